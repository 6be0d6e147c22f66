/*
 * Safe placement of files under a root: folders walked with openat and
 * O_NOFOLLOW, destinations checked with fstatat, temporary files beside
 * them, renamed together, or removed with the folders made for them. See
 * base/place.h for the design.
 */
#define _GNU_SOURCE
#include "base/place.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"
#include "base/mem.h"
#include "base/random.h"
#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")
#define NAME_KEEP 160		/* bytes of a name kept in its temp name */

static const char hint_links[] =
	"ripple never writes through a link, into a FIFO or onto a device: "
	"remove it (it may be committed) and run again";

/* "a symbolic link", "a FIFO", ... of an lstat mode. */
static const char *
kind_of(unsigned mode)
{
	return S_ISLNK(mode) ? "a symbolic link"
		: file_kind_name(S_ISFIFO(mode) ? FSYS_FIFO
				 : S_ISCHR(mode) ? FSYS_CHR
				 : S_ISBLK(mode) ? FSYS_BLK
				 : S_ISSOCK(mode) ? FSYS_SOCK
				 : S_ISDIR(mode) ? FSYS_DIR : FSYS_REG);
}

/* ERROR_INVALID: rel is not written because `what` (a prefix) is `kind`. */
static int
refuse(const char *rel, const char *what, size_t what_len, const char *kind,
       struct error *err)
{
	if (what_len == strlen(rel))
		error_set(err, ERROR_INVALID, "'%s' is not written: it is %s",
			  rel, kind);
	else
		error_set(err, ERROR_INVALID, "'%s' is not written: '%.*s' is "
			  "%s", rel, (int)what_len, what, kind);
	error_hint(err, hint_links);
	return ERROR_INVALID;
}

/* Remember folder rel[0..len) as made by this placement. */
static int
note_made(struct place *p, const char *rel, size_t len, struct error *err)
{
	char *s;

	if (!p)
		return 0;
	if (p->n_made == p->cap_made) {
		size_t cap = p->cap_made ? 2 * p->cap_made : 8;
		char **v = mem_realloc(p->made, cap * sizeof(*v));

		if (!v)
			return OOM(err);
		p->made = v;
		p->cap_made = cap;
	}
	s = mem_alloc(len + 1);
	if (!s)
		return OOM(err);
	memcpy(s, rel, len);
	s[len] = '\0';
	p->made[p->n_made++] = s;
	return 0;
}

/*
 * Open the folder rel[0..len) under root_fd, one component at a time,
 * never following a link; with p, make missing ones (noted in p). Returns
 * the descriptor, or ERROR_NOT_FOUND (missing, without p), ERROR_INVALID,
 * ERROR_IO. `whole` names the file being written, for messages.
 */
static int
open_dir(struct place *p, int root_fd, const char *whole, const char *rel,
	 size_t len, struct error *err)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC |
			  O_NONBLOCK;
	char comp[256];
	size_t at = 0;
	int cur = dup(root_fd);

	if (cur < 0)
		return error_set(err, ERROR_IO, "cannot open a folder: %s",
				 strerror(errno));
	while (at < len) {
		const char *slash = memchr(rel + at, '/', len - at);
		size_t end = slash ? (size_t)(slash - rel) : len;
		struct stat st;
		int next, made = 0;

		if (end - at >= sizeof(comp)) {
			close(cur);
			return error_set(err, ERROR_INVALID, "'%s' is not "
					 "written: a folder name is too long",
					 whole);
		}
		memcpy(comp, rel + at, end - at);
		comp[end - at] = '\0';
	again:
		next = openat(cur, comp, flags);
		if (next < 0 && errno == ENOENT && p && !made) {
			made = 1;
			if (!mkdirat(cur, comp, 0777)) {
				int rc = note_made(p, rel, end, err);

				if (rc) {
					close(cur);
					return rc;
				}
			} else if (errno != EEXIST) {
				int e = errno;

				close(cur);
				return error_set(err, ERROR_IO, "cannot make "
						 "'%.*s': %s", (int)end, rel,
						 strerror(e));
			}
			goto again;
		}
		if (next < 0) {
			int e = errno;

			if (e == ENOENT) {
				close(cur);
				return error_set(err, ERROR_NOT_FOUND,
						 "'%.*s' does not exist",
						 (int)end, rel);
			}
			if ((e == ELOOP || e == ENOTDIR) &&
			    !fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW)) {
				close(cur);
				return refuse(whole, rel, end,
					      kind_of((unsigned)st.st_mode),
					      err);
			}
			close(cur);
			return error_set(err, ERROR_IO, "cannot open '%.*s': "
					 "%s", (int)end, rel, strerror(e));
		}
		close(cur);
		cur = next;
		at = end + 1;
	}
	return cur;
}

/* The folder part of rel: its length (0 for none), and the name. */
static size_t
split(const char *rel, const char **name)
{
	const char *slash = strrchr(rel, '/');

	*name = slash ? slash + 1 : rel;
	return slash ? (size_t)(slash - rel) : 0;
}

/* 0 when dir_fd/name is missing or a regular file, else ERROR_INVALID. */
static int
dest_ok(int dir_fd, const char *name, const char *rel, struct error *err)
{
	struct stat st;

	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		return error_set(err, ERROR_IO, "cannot check '%s': %s", rel,
				 strerror(errno));
	}
	if (S_ISREG(st.st_mode))
		return 0;
	return refuse(rel, rel, strlen(rel), kind_of((unsigned)st.st_mode),
		      err);
}

/* Create NAME.ripple-tmp-PID-RANDOM in dir_fd: its fd; *tmp owned. */
static int
make_tmp(int dir_fd, const char *name, const char *rel, char **tmp,
	 struct error *err)
{
	size_t n = strlen(name), cap;
	unsigned tries;

	if (n > NAME_KEEP)
		n = NAME_KEEP;
	cap = n + sizeof(PLACE_TMP_MARK) + 32;
	*tmp = mem_alloc(cap);
	if (!*tmp)
		return OOM(err);
	for (tries = 0; tries < 100; tries++) {
		uint32_t r = 0;
		int fd;

		if (random_bytes(&r, sizeof(r), 1))
			r = (uint32_t)time(NULL) * 2654435761u + tries;
		snprintf(*tmp, cap, "%.*s%s%ld-%08x", (int)n, name,
			 PLACE_TMP_MARK, (long)getpid(), (unsigned)r);
		fd = openat(dir_fd, *tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
	}
	error_set(err, ERROR_IO, "cannot create a temporary file for '%s': "
		  "%s", rel, strerror(errno));
	mem_free(*tmp);
	*tmp = NULL;
	return ERROR_IO;
}

int
place_open(struct place *p, const char *root, struct error *err)
{
	memset(p, 0, sizeof(*p));
	p->root_fd = -1;
	p->root = mem_strdup(root);
	if (!p->root)
		return OOM(err);
	p->root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->root_fd < 0)
		return error_set(err, errno == ENOENT ? ERROR_NOT_FOUND
						      : ERROR_IO,
				 "cannot open '%s': %s", root, strerror(errno));
	return 0;
}

int
place_stage(struct place *p, const char *rel, unsigned mode,
	    struct error *err)
{
	struct place_file *f;
	const char *name;
	size_t dlen = split(rel, &name);
	int rc, dir_fd;

	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 8;
		struct place_file *v = mem_realloc(p->files, cap * sizeof(*v));

		if (!v)
			return OOM(err);
		p->files = v;
		p->cap = cap;
	}
	f = &p->files[p->n];
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->mode = mode;
	f->rel = mem_strdup(rel);
	if (!f->rel)
		return OOM(err);
	dir_fd = open_dir(p, p->root_fd, rel, rel, dlen, err);
	if (dir_fd < 0) {
		rc = dir_fd;
		goto fail;
	}
	rc = dest_ok(dir_fd, name, rel, err);
	if (!rc)
		rc = make_tmp(dir_fd, name, rel, &f->tmp, err);
	if (rc >= 0 && close(rc))
		rc = error_set(err, ERROR_IO, "cannot create a temporary file "
			       "for '%s': %s", rel, strerror(errno));
	if (rc < 0 && f->tmp)
		unlinkat(dir_fd, f->tmp, 0);
	close(dir_fd);
	if (rc < 0)
		goto fail;
	return (int)p->n++;
fail:
	mem_free(f->tmp);
	mem_free(f->rel);
	return rc;
}

/*
 * The folder of a staged file, walked again from the root without
 * following a link; kept open while the next files share it.
 */
struct dir_at {
	char *rel;		/* the folder's path, owned */
	size_t len;
	int fd;			/* -1 when none is open */
};

static int
dir_at_open(struct place *p, struct dir_at *d, const struct place_file *f,
	    struct error *err)
{
	const char *name;
	size_t len = split(f->rel, &name);

	if (d->fd >= 0 && d->len == len && !memcmp(d->rel, f->rel, len))
		return d->fd;
	if (d->fd >= 0)
		close(d->fd);
	mem_free(d->rel);
	d->rel = NULL;
	d->fd = open_dir(NULL, p->root_fd, f->rel, f->rel, len, err);
	if (d->fd < 0)
		return d->fd;
	d->rel = mem_alloc(len + 1);
	if (!d->rel) {
		close(d->fd);
		d->fd = -1;
		return OOM(err);
	}
	memcpy(d->rel, f->rel, len);
	d->len = len;
	return d->fd;
}

static void
dir_at_close(struct dir_at *d)
{
	if (d->fd >= 0)
		close(d->fd);
	mem_free(d->rel);
	d->rel = NULL;
	d->fd = -1;
}

/* Open f's temp file in dir_fd without following a link: a regular file. */
static int
open_tmp(int dir_fd, const struct place_file *f, int flags,
	 struct error *err)
{
	struct stat st;
	int fd = openat(dir_fd, f->tmp, flags | O_NOFOLLOW | O_NONBLOCK |
			O_NOCTTY | O_CLOEXEC);
	int e = errno;

	if (fd < 0 && e == ELOOP)
		return refuse(f->rel, f->rel, strlen(f->rel),
			      "a symbolic link (its temporary file)", err);
	if (fd < 0)
		return error_set(err, ERROR_IO, "cannot open the temporary "
				 "file of '%s': %s", f->rel, strerror(e));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return refuse(f->rel, f->rel, strlen(f->rel), "not a regular "
			      "file (its temporary file)", err);
	}
	return fd;
}

int
place_fd(struct place *p, size_t i, struct error *err)
{
	struct place_file *f = &p->files[i];
	struct dir_at d = { NULL, 0, -1 };
	int fd;

	if (f->fd >= 0)
		return f->fd;
	fd = dir_at_open(p, &d, f, err);
	if (fd >= 0)
		fd = open_tmp(d.fd, f, O_WRONLY, err);
	dir_at_close(&d);
	if (fd >= 0)
		f->fd = fd;
	return fd;
}

int
place_fd_close(struct place *p, size_t i, struct error *err)
{
	struct place_file *f = &p->files[i];
	int rc;

	if (f->fd < 0)
		return 0;
	rc = close(f->fd);
	f->fd = -1;
	if (rc)
		return error_set(err, ERROR_IO, "cannot write '%s': %s",
				 f->rel, strerror(errno));
	return 0;
}

char *
place_tmp_path(const struct place *p, size_t i)
{
	const struct place_file *f = &p->files[i];
	const char *name;
	size_t dlen = split(f->rel, &name);
	size_t n = strlen(p->root) + dlen + strlen(f->tmp) + 3;
	char *s = mem_alloc(n);

	if (s)
		snprintf(s, n, "%s/%.*s%s%s", p->root, (int)dlen, f->rel,
			 dlen ? "/" : "", f->tmp);
	return s;
}

int
place_commit(struct place *p, struct error *err)
{
	struct dir_at d = { NULL, 0, -1 };
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < p->n; i++)
		rc = place_fd_close(p, i, err);
	for (i = 0; !rc && i < p->n; i++) {
		struct place_file *f = &p->files[i];
		const char *name;
		int dir_fd, fd;

		split(f->rel, &name);
		dir_fd = dir_at_open(p, &d, f, err);
		if (dir_fd < 0) {
			rc = dir_fd;
			break;
		}
		fd = open_tmp(dir_fd, f, O_RDONLY, err);
		if (fd < 0) {
			rc = fd;
			break;
		}
		if (fchmod(fd, f->mode)) {
			rc = error_set(err, ERROR_IO, "cannot write '%s': %s",
				       f->rel, strerror(errno));
			close(fd);
			break;
		}
		close(fd);
		rc = dest_ok(dir_fd, name, f->rel, err);
		if (rc)
			break;
		if (renameat(dir_fd, f->tmp, dir_fd, name)) {
			rc = error_set(err, ERROR_IO, "cannot rename into "
				       "'%s': %s", f->rel, strerror(errno));
			break;
		}
		mem_free(f->tmp);
		f->tmp = NULL;
	}
	dir_at_close(&d);
	if (!rc)
		p->committed = 1;
	return rc;
}

void
place_close(struct place *p)
{
	struct dir_at d = { NULL, 0, -1 };
	struct error e;
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++) {
		struct place_file *f = &p->files[i];

		if (f->fd >= 0)
			close(f->fd);
		error_init(&e);
		if (f->tmp && p->root_fd >= 0 &&
		    dir_at_open(p, &d, f, &e) >= 0)
			unlinkat(d.fd, f->tmp, 0);
		mem_free(f->tmp);
		mem_free(f->rel);
	}
	dir_at_close(&d);
	for (i = p->n_made; i-- > 0;) {
		if (!p->committed && p->root_fd >= 0)
			unlinkat(p->root_fd, p->made[i], AT_REMOVEDIR);
		mem_free(p->made[i]);
	}
	if (p->root_fd >= 0)
		close(p->root_fd);
	mem_free(p->made);
	mem_free(p->files);
	mem_free(p->root);
	memset(p, 0, sizeof(*p));
	p->root_fd = -1;
}

int
place_read_open(const char *root, const char *rel, struct error *err)
{
	const char *name;
	size_t dlen = split(rel, &name);
	struct stat st;
	int root_fd, dir_fd, fd, e, flags;

	root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return error_set(err, errno == ENOENT ? ERROR_NOT_FOUND
						      : ERROR_IO,
				 "cannot open '%s': %s", root, strerror(errno));
	dir_fd = open_dir(NULL, root_fd, rel, rel, dlen, err);
	close(root_fd);
	if (dir_fd < 0)
		return dir_fd;
	fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_NOCTTY | O_CLOEXEC);
	e = errno;
	if (fd < 0 && e == ELOOP &&
	    !fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		close(dir_fd);
		return refuse(rel, rel, strlen(rel),
			      kind_of((unsigned)st.st_mode), err);
	}
	close(dir_fd);
	if (fd < 0)
		return error_set(err, e == ENOENT ? ERROR_NOT_FOUND : ERROR_IO,
				 "cannot open '%s': %s", rel, strerror(e));
	if (fstat(fd, &st)) {
		e = errno;
		close(fd);
		return error_set(err, ERROR_IO, "cannot read '%s': %s", rel,
				 strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return refuse(rel, rel, strlen(rel),
			      kind_of((unsigned)st.st_mode), err);
	}
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

/* The PID in a temp file's name, or 0 when it is not one of ours. */
static long
tmp_pid(const char *name)
{
	const char *m = strstr(name, PLACE_TMP_MARK);
	const char *p;
	long pid = 0;

	if (!m)
		return 0;
	for (p = m + strlen(PLACE_TMP_MARK); *p >= '0' && *p <= '9'; p++) {
		pid = pid * 10 + (*p - '0');
		if (pid > 1L << 30)
			return 0;
	}
	if (*p != '-' || p == m + strlen(PLACE_TMP_MARK))
		return 0;
	for (p++; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return pid;
}

/* Whether a folder named `name` is git's or ripple's own. */
static int
reserved_dir(const char *name)
{
	return !strcasecmp(name, ".git") || !strcmp(name, ".ripple");
}

/* Sweep the open folder d (closed here); below it too with depth > 0. */
static int
sweep_dir(DIR *d, int depth)
{
	struct dirent *de;
	int removed = 0;

	while ((de = readdir(d))) {
		long pid = tmp_pid(de->d_name);
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISDIR(st.st_mode) && depth > 0 &&
		    !reserved_dir(de->d_name)) {
			int fd = openat(dirfd(d), de->d_name, O_RDONLY |
					O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK |
					O_CLOEXEC);
			DIR *sub = fd >= 0 ? fdopendir(fd) : NULL;

			if (sub)
				removed += sweep_dir(sub, depth - 1);
			else if (fd >= 0)
				close(fd);
			continue;
		}
		if (!pid || pid == (long)getpid() || !S_ISREG(st.st_mode) ||
		    !(kill((pid_t)pid, 0) && errno == ESRCH))
			continue;
		if (!unlinkat(dirfd(d), de->d_name, 0))
			removed++;
	}
	closedir(d);
	return removed;
}

int
place_sweep(const char *root, const char *rel_dir, int deep,
	    struct error *err)
{
	struct error e;
	DIR *d;
	int root_fd, dir_fd;

	root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return errno == ENOENT ? 0
				       : error_set(err, ERROR_IO, "cannot open "
						   "'%s': %s", root,
						   strerror(errno));
	error_init(&e);
	dir_fd = open_dir(NULL, root_fd, rel_dir, rel_dir, strlen(rel_dir),
			  &e);
	close(root_fd);
	if (dir_fd == ERROR_NOT_FOUND)
		return 0;
	if (dir_fd < 0) {
		if (err && !err->code)
			*err = e;
		return dir_fd;
	}
	d = fdopendir(dir_fd);
	if (!d) {
		close(dir_fd);
		return error_set(err, ERROR_IO, "cannot list '%s': %s",
				 rel_dir, strerror(errno));
	}
	return sweep_dir(d, deep ? PLACE_SWEEP_DEPTH : 0);
}
