/*
 * base/place.h on Windows. Windows has no openat: every folder on the way
 * is checked by its full path, one component at a time (fsys_lstat: a
 * symlink or junction is refused, never entered), then the file is made
 * by its full path. Between the check and the use another process could
 * swap a folder for a link; making links on Windows takes a privilege or
 * Developer Mode, and the POSIX build (base/place.c, openat with
 * O_NOFOLLOW) has no such window. Temporary files, the all-or-none
 * renames and the sweep of a gone process's files are as on POSIX.
 */
#include "base/place.h"
#include "base/place_int.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/file.h"
#include "base/fsys.h"
#include "base/mem.h"
#include "base/random.h"
#include "base/wide_win.h"
#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")
#define NAME_KEEP 160		/* bytes of a name kept in its temp name */

static void remove_path(const char *path, int folder);

static const char *
kind_of(enum fsys_kind k)
{
	return k == FSYS_LNK ? "a symbolic link" : file_kind_name(k);
}



/* root + "/" + rel[0..len) (or root alone for len 0) into b. */
static int
join(struct buf *b, const char *root, const char *rel, size_t len,
     struct error *err)
{
	buf_reset(b);
	return len ? buf_addf(b, err, "%s/%.*s", root, (int)len, rel)
		   : buf_addstr(b, root, err);
}

/*
 * Check the folders of rel[0..len) under root one by one, refusing a link
 * or a non-folder; with p, make missing ones (noted in p). 0, or
 * ERROR_NOT_FOUND (missing, without p), ERROR_INVALID, ERROR_IO.
 */
static int
check_dirs(struct place *p, const char *root, const char *whole,
	   const char *rel, size_t len, struct error *err)
{
	struct buf b = BUF_INIT;
	size_t at = 0;
	int rc = 0;

	while (!rc && at < len) {
		const char *slash = memchr(rel + at, '/', len - at);
		size_t end = slash ? (size_t)(slash - rel) : len;
		struct fsys_stat st;
		int e;

		rc = join(&b, root, rel, end, err);
		if (rc)
			break;
		e = fsys_lstat(b.data, &st);
		if (e == ENOENT && p) {
			e = fsys_mkdir(b.data);
			if (!e)
				rc = place_note_made(p, rel, end, err);
			else if (e != EEXIST)
				rc = error_set(err, ERROR_IO, "cannot make "
					       "'%.*s': %s", (int)end, rel,
					       strerror(e));
			if (!rc)
				e = fsys_lstat(b.data, &st);
		}
		if (rc)
			break;
		if (e == ENOENT || e == ENOTDIR)
			rc = error_set(err, ERROR_NOT_FOUND, "'%.*s' does not "
				       "exist", (int)end, rel);
		else if (e)
			rc = error_set(err, ERROR_IO, "cannot open '%.*s': %s",
				       (int)end, rel, strerror(e));
		else if (st.kind != FSYS_DIR)
			rc = place_refuse(whole, rel, end, kind_of(st.kind), err);
		at = end + 1;
	}
	buf_release(&b);
	return rc;
}


/* 0 when path is missing or a regular file, else ERROR_INVALID. */
static int
dest_ok(const char *path, const char *rel, struct error *err)
{
	struct fsys_stat st;
	int e = fsys_lstat(path, &st);

	if (e == ENOENT)
		return 0;
	if (e)
		return error_set(err, ERROR_IO, "cannot check '%s': %s", rel,
				 strerror(e));
	if (st.kind == FSYS_REG)
		return 0;
	return place_refuse(rel, rel, strlen(rel), kind_of(st.kind), err);
}

/* The full path of file i's destination (tmp 0) or temp file (tmp 1). */
static int
file_path(const struct place *p, const struct place_file *f, int tmp,
	  struct buf *b, struct error *err)
{
	const char *name;
	size_t dlen = place_split(f->rel, &name);

	buf_reset(b);
	return buf_addf(b, err, "%s/%.*s%s%s", p->root, (int)dlen, f->rel,
			dlen ? "/" : "", tmp ? f->tmp : name);
}

/* Create NAME.ripple-tmp-PID-RANDOM beside dir/name: its fd; *tmp owned. */
static int
make_tmp(const char *dir, const char *name, const char *rel, char **tmp,
	 struct error *err)
{
	size_t n = strlen(name), cap;
	struct buf b = BUF_INIT;
	struct error we;
	unsigned tries;
	int e = 0;

	if (n > NAME_KEEP)
		n = NAME_KEEP;
	cap = n + sizeof(PLACE_TMP_MARK) + 32;
	*tmp = mem_alloc(cap);
	if (!*tmp)
		return OOM(err);
	for (tries = 0; tries < 100; tries++) {
		uint32_t r = 0;
		wchar_t *w;
		int fd;

		if (random_bytes(&r, sizeof(r), 1))
			r = (uint32_t)time(NULL) * 2654435761u + tries;
		snprintf(*tmp, cap, "%.*s%s%lu-%08x", (int)n, name,
			 PLACE_TMP_MARK, (unsigned long)GetCurrentProcessId(),
			 (unsigned)r);
		buf_reset(&b);
		error_init(&we);
		if (buf_addf(&b, err, "%s%s%s", dir, dir[0] ? "/" : "", *tmp)) {
			e = ENOMEM;
			break;
		}
		w = wide_from_utf8(b.data, &we);
		if (!w) {
			e = EINVAL;
			break;
		}
		fd = _wopen(w, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY |
			    _O_NOINHERIT, _S_IREAD | _S_IWRITE);
		e = errno;
		free(w);
		if (fd >= 0) {
			buf_release(&b);
			return fd;
		}
		if (e != EEXIST)
			break;
	}
	buf_release(&b);
	error_set(err, ERROR_IO, "cannot create a temporary file for '%s': "
		  "%s", rel, strerror(e));
	mem_free(*tmp);
	*tmp = NULL;
	return ERROR_IO;
}

int
place_open(struct place *p, const char *root, struct error *err)
{
	struct fsys_stat st;
	int e;

	memset(p, 0, sizeof(*p));
	p->root_fd = -1;
	p->root = mem_strdup(root);
	if (!p->root)
		return OOM(err);
	e = fsys_stat(root, &st);
	if (!e && st.kind != FSYS_DIR)
		e = ENOTDIR;
	if (e)
		return error_set(err, e == ENOENT ? ERROR_NOT_FOUND : ERROR_IO,
				 "cannot open '%s': %s", root, strerror(e));
	return 0;
}

int
place_stage(struct place *p, const char *rel, unsigned mode,
	    struct error *err)
{
	struct buf dir = BUF_INIT, dest = BUF_INIT;
	struct place_file *f;
	const char *name;
	size_t dlen = place_split(rel, &name);
	int rc;

	if (place_name_check(rel, err))
		return err->code;
	f = place_file_add(p, rel, mode, err);
	if (!f)
		return err->code;
	rc = check_dirs(p, p->root, rel, rel, dlen, err);
	if (!rc)
		rc = join(&dir, p->root, rel, dlen, err);
	if (!rc)
		rc = file_path(p, f, 0, &dest, err);
	if (!rc)
		rc = dest_ok(dest.data, rel, err);
	if (!rc)
		rc = make_tmp(dir.data, name, rel, &f->tmp, err);
	buf_release(&dir);
	buf_release(&dest);
	if (rc >= 0) {
		/* No descriptor is held per staged file (base/place.h):
		 * remember which file it is, and close it. */
		struct fsys_stat st;
		int fd = rc, e = fsys_fstat(fd, &st);

		f->dev = st.dev;
		f->ino = st.ino;
		if (close(fd) && !e)
			e = errno;
		rc = e ? error_set(err, ERROR_IO, "cannot create a temporary "
				   "file for '%s': %s", rel, strerror(e)) : 0;
		if (rc && !file_path(p, f, 1, &dest, NULL))
			remove_path(dest.data, 0);
		buf_release(&dest);
	}
	if (rc < 0) {
		mem_free(f->tmp);
		mem_free(f->rel);
		return rc;
	}
	return (int)p->n++;
}

int
place_fd(struct place *p, size_t i, struct error *err)
{
	struct place_file *f = &p->files[i];
	struct buf b = BUF_INIT;
	struct fsys_stat st;
	const char *name;
	size_t dlen = place_split(f->rel, &name);
	wchar_t *w = NULL;
	int rc, e;

	if (f->fd >= 0)
		return f->fd;
	rc = check_dirs(NULL, p->root, f->rel, f->rel, dlen, err);
	if (!rc)
		rc = file_path(p, f, 1, &b, err);
	if (!rc && (e = fsys_lstat(b.data, &st)) != 0)
		rc = error_set(err, ERROR_IO, "cannot open the temporary file "
			       "of '%s': %s", f->rel, strerror(e));
	else if (!rc && (st.kind != FSYS_REG || st.dev != f->dev ||
			 st.ino != f->ino))
		rc = place_refuse(f->rel, f->rel, strlen(f->rel), "not the "
			    "temporary file ripple made (replaced meanwhile)",
			    err);
	if (!rc) {
		w = wide_from_utf8(b.data, err);
		rc = w ? 0 : ERROR_INVALID;
	}
	if (!rc) {
		int fd = _wopen(w, _O_WRONLY | _O_BINARY | _O_NOINHERIT);

		e = errno;
		if (fd < 0)
			rc = error_set(err, ERROR_IO, "cannot open the "
				       "temporary file of '%s': %s", f->rel,
				       strerror(e));
		else
			f->fd = fd;
	}
	free(w);
	buf_release(&b);
	return rc ? rc : f->fd;
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
	struct buf b = BUF_INIT;

	if (file_path(p, &p->files[i], 1, &b, NULL)) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

int
place_commit(struct place *p, struct error *err)
{
	struct buf tmp = BUF_INIT, dest = BUF_INIT;
	size_t i;
	int rc = 0, e;

	for (i = 0; !rc && i < p->n; i++)
		rc = place_fd_close(p, i, err);
	for (i = 0; !rc && i < p->n; i++) {
		struct place_file *f = &p->files[i];
		int fd = place_fd(p, i, err), c;

		if (fd < 0) {
			rc = fd;
			break;
		}
		e = fsys_fchmod(fd, f->mode);
		c = place_fd_close(p, i, err);
		if (e) {
			rc = error_set(err, ERROR_IO, "cannot write '%s': %s",
				       f->rel, strerror(e));
			break;
		}
		rc = c;
		if (!rc)
			rc = file_path(p, f, 0, &dest, err);
		if (!rc)
			rc = file_path(p, f, 1, &tmp, err);
		if (!rc)
			rc = dest_ok(dest.data, f->rel, err);
		if (rc)
			break;
		e = fsys_rename(tmp.data, dest.data);
		if (e) {
			rc = error_set(err, ERROR_IO, "cannot rename into "
				       "'%s': %s", f->rel, strerror(e));
			break;
		}
		mem_free(f->tmp);
		f->tmp = NULL;
	}
	buf_release(&tmp);
	buf_release(&dest);
	if (!rc)
		p->committed = 1;
	return rc;
}

/* Remove a file or an empty folder by its UTF-8 path. */
static void
remove_path(const char *path, int folder)
{
	struct error err;
	wchar_t *w;

	error_init(&err);
	w = wide_from_utf8(path, &err);
	if (!w)
		return;
	if (folder)
		RemoveDirectoryW(w);
	else
		DeleteFileW(w);
	free(w);
}

void
place_close(struct place *p)
{
	struct buf b = BUF_INIT;
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++) {
		struct place_file *f = &p->files[i];

		if (f->fd >= 0)
			close(f->fd);
		if (f->tmp && !file_path(p, f, 1, &b, NULL))
			remove_path(b.data, 0);
		mem_free(f->tmp);
		mem_free(f->rel);
	}
	for (i = p->n_made; i-- > 0;) {
		if (!p->committed && p->root &&
		    !join(&b, p->root, p->made[i], strlen(p->made[i]), NULL))
			remove_path(b.data, 1);
		mem_free(p->made[i]);
	}
	buf_release(&b);
	mem_free(p->made);
	mem_free(p->files);
	mem_free(p->root);
	memset(p, 0, sizeof(*p));
	p->root_fd = -1;
}

int
place_read_open(const char *root, const char *rel, struct error *err)
{
	struct buf b = BUF_INIT;
	struct fsys_stat st;
	const char *name;
	size_t dlen = place_split(rel, &name);
	int rc, fd = -1, e;

	rc = check_dirs(NULL, root, rel, rel, dlen, err);
	if (!rc)
		rc = join(&b, root, rel, strlen(rel), err);
	if (rc)
		goto done;
	e = fsys_lstat(b.data, &st);
	if (e) {
		rc = error_set(err, e == ENOENT ? ERROR_NOT_FOUND : ERROR_IO,
			       "cannot open '%s': %s", rel, strerror(e));
		goto done;
	}
	if (st.kind != FSYS_REG) {
		rc = place_refuse(rel, rel, strlen(rel), kind_of(st.kind), err);
		goto done;
	}
	fd = fsys_open_read(b.data);
	if (fd < 0) {
		e = errno;
		rc = error_set(err, e == ENOENT ? ERROR_NOT_FOUND : ERROR_IO,
			       "cannot open '%s': %s", rel, strerror(e));
		goto done;
	}
	e = fsys_fstat(fd, &st);
	if (e || st.kind != FSYS_REG) {
		close(fd);
		fd = -1;
		rc = e ? error_set(err, ERROR_IO, "cannot read '%s': %s", rel,
				   strerror(e))
		       : place_refuse(rel, rel, strlen(rel), kind_of(st.kind), err);
	}
done:
	buf_release(&b);
	return rc ? rc : fd;
}

/* 1 when no process `pid` runs on this machine. */
static int
gone(long pid)
{
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE,
			       (DWORD)pid);
	DWORD code = 0;
	int dead;

	if (!h)
		return GetLastError() == ERROR_INVALID_PARAMETER;
	dead = GetExitCodeProcess(h, &code) && code != STILL_ACTIVE;
	CloseHandle(h);
	return dead;
}

/* Whether a folder named `name` is git's or ripple's own. */
static int
reserved_dir(const char *name)
{
	return !_stricmp(name, ".git") || !strcmp(name, ".ripple");
}

/* Sweep root/rel_dir; the folders below too while depth > 0. */
static int
sweep_in(const char *root, const char *rel_dir, int depth, struct error *err)
{
	struct buf dir = BUF_INIT, file = BUF_INIT;
	struct error e, werr;
	WIN32_FIND_DATAW fd;
	HANDLE h = INVALID_HANDLE_VALUE;
	wchar_t *w = NULL;
	int rc, removed = 0;

	error_init(&e);
	rc = check_dirs(NULL, root, rel_dir, rel_dir, strlen(rel_dir), &e);
	if (rc == ERROR_NOT_FOUND)
		return 0;
	if (rc) {
		if (err && !err->code)
			*err = e;
		return rc;
	}
	rc = join(&dir, root, rel_dir, strlen(rel_dir), err);
	if (!rc)
		rc = buf_addstr(&dir, "/*", err);
	error_init(&werr);
	w = rc ? NULL : wide_from_utf8(dir.data, &werr);
	if (w)
		h = FindFirstFileW(w, &fd);
	free(w);
	if (rc || h == INVALID_HANDLE_VALUE) {
		buf_release(&dir);
		return rc ? rc : 0;
	}
	dir.len -= 2;
	dir.data[dir.len] = '\0';
	do {
		char *name = wide_to_utf8(fd.cFileName, &werr);
		long pid = name ? place_tmp_pid(name) : 0;
		struct fsys_stat st;

		/* A folder below, never a link or junction (a reparse
		 * point): check_dirs checks the way again. */
		if (name && depth > 0 &&
		    (fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) &&
		    !(fd.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) &&
		    strcmp(name, ".") && strcmp(name, "..") &&
		    !reserved_dir(name)) {
			struct buf sub = BUF_INIT;
			struct error se;

			error_init(&se);
			if (!buf_addf(&sub, NULL, "%s%s%s", rel_dir,
				      rel_dir[0] ? "/" : "", name)) {
				int k = sweep_in(root, sub.data, depth - 1,
						 &se);

				removed += k > 0 ? k : 0;
			}
			buf_release(&sub);
		}
		if (pid && pid != (long)GetCurrentProcessId() && gone(pid)) {
			buf_reset(&file);
			if (!buf_addf(&file, NULL, "%s/%s", dir.data, name) &&
			    !fsys_lstat(file.data, &st) &&
			    st.kind == FSYS_REG) {
				remove_path(file.data, 0);
				if (fsys_lstat(file.data, &st) == ENOENT)
					removed++;
			}
		}
		free(name);
	} while (FindNextFileW(h, &fd));
	FindClose(h);
	buf_release(&dir);
	buf_release(&file);
	return removed;
}

int
place_sweep(const char *root, const char *rel_dir, int deep,
	    struct error *err)
{
	return sweep_in(root, rel_dir, deep ? PLACE_SWEEP_DEPTH : 0, err);
}
