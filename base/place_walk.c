/*
 * Walking folders under a root without following a link (openat with
 * O_NOFOLLOW, one component at a time): what placing files (place.c)
 * builds on, reading a file the same way, and sweeping temporary files
 * that killed placements left. See base/place.h for the design.
 */
#define _GNU_SOURCE
#include "base/place.h"
#include "base/place_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"
#include "base/mem.h"
#include "base/banned.h"

/* "a symbolic link", "a FIFO", ... of an lstat mode. */
const char *
place_kind_of(unsigned mode)
{
	return S_ISLNK(mode) ? "a symbolic link"
		: file_kind_name(S_ISFIFO(mode) ? FSYS_FIFO
				 : S_ISCHR(mode) ? FSYS_CHR
				 : S_ISBLK(mode) ? FSYS_BLK
				 : S_ISSOCK(mode) ? FSYS_SOCK
				 : S_ISDIR(mode) ? FSYS_DIR : FSYS_REG);
}



/*
 * Open the folder rel[0..len) under root_fd, one component at a time,
 * never following a link; with p, make missing ones (noted in p). Returns
 * the descriptor, or ERROR_NOT_FOUND (missing, without p), ERROR_INVALID,
 * ERROR_IO. `whole` names the file being written, for messages.
 */
int
place_open_dir(struct place *p, int root_fd, const char *whole,
	       const char *rel, size_t len, struct error *err)
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
				int rc = place_note_made(p, rel, end, err);

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
				return place_refuse(whole, rel, end,
					      place_kind_of((unsigned)st.st_mode),
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

int
place_read_open(const char *root, const char *rel, struct error *err)
{
	const char *name;
	size_t dlen = place_split(rel, &name);
	struct stat st;
	int root_fd, dir_fd, fd, e, flags;

	root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return error_set(err, errno == ENOENT ? ERROR_NOT_FOUND
						      : ERROR_IO,
				 "cannot open '%s': %s", root, strerror(errno));
	dir_fd = place_open_dir(NULL, root_fd, rel, rel, dlen, err);
	close(root_fd);
	if (dir_fd < 0)
		return dir_fd;
	fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_NOCTTY | O_CLOEXEC);
	e = errno;
	if (fd < 0 && e == ELOOP &&
	    !fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		close(dir_fd);
		return place_refuse(rel, rel, strlen(rel),
			      place_kind_of((unsigned)st.st_mode), err);
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
		return place_refuse(rel, rel, strlen(rel),
			      place_kind_of((unsigned)st.st_mode), err);
	}
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
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
		long pid = place_tmp_pid(de->d_name);
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
	dir_fd = place_open_dir(NULL, root_fd, rel_dir, rel_dir, strlen(rel_dir),
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
