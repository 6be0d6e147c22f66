/*
 * Safe placement of files under a root: folders walked with openat and
 * O_NOFOLLOW (place_walk.c), destinations checked with fstatat, temporary
 * files beside them, renamed together, or removed with the folders made
 * for them. See base/place.h for the design.
 */
#define _GNU_SOURCE
#include "base/place.h"
#include "base/place_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	return place_refuse(rel, rel, strlen(rel), place_kind_of((unsigned)st.st_mode),
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
	size_t dlen = place_split(rel, &name);
	int rc, dir_fd;

	if (place_name_check(rel, err))
		return err->code;
	f = place_file_add(p, rel, mode, err);
	if (!f)
		return err->code;
	dir_fd = place_open_dir(p, p->root_fd, rel, rel, dlen, err);
	if (dir_fd < 0) {
		rc = dir_fd;
		goto fail;
	}
	rc = dest_ok(dir_fd, name, rel, err);
	if (!rc)
		rc = make_tmp(dir_fd, name, rel, &f->tmp, err);
	if (rc >= 0) {
		struct stat st;
		int fd = rc;

		rc = fstat(fd, &st);
		f->dev = (unsigned long long)st.st_dev;
		f->ino = (unsigned long long)st.st_ino;
		if (close(fd) || rc)
			rc = error_set(err, ERROR_IO, "cannot create a "
				       "temporary file for '%s': %s", rel,
				       strerror(errno));
	}
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
	size_t len = place_split(f->rel, &name);

	if (d->fd >= 0 && d->len == len && !memcmp(d->rel, f->rel, len))
		return d->fd;
	if (d->fd >= 0)
		close(d->fd);
	mem_free(d->rel);
	d->rel = NULL;
	d->fd = place_open_dir(NULL, p->root_fd, f->rel, f->rel, len, err);
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
		return place_refuse(f->rel, f->rel, strlen(f->rel),
			      "a symbolic link (its temporary file)", err);
	if (fd < 0)
		return error_set(err, ERROR_IO, "cannot open the temporary "
				 "file of '%s': %s", f->rel, strerror(e));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    (unsigned long long)st.st_dev != f->dev ||
	    (unsigned long long)st.st_ino != f->ino) {
		close(fd);
		return place_refuse(f->rel, f->rel, strlen(f->rel), "not the "
			      "temporary file ripple made (replaced meanwhile)",
			      err);
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
	size_t dlen = place_split(f->rel, &name);
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

		place_split(f->rel, &name);
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
