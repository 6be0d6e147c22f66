/*
 * Regular files only: open without blocking, check the kind, hand back a
 * blocking descriptor. See base/file.h.
 */
#include "base/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fsys.h"
#include "base/banned.h"

const char *
file_kind_name(enum fsys_kind kind)
{
	switch (kind) {
	case FSYS_FIFO:
		return "a FIFO";
	case FSYS_CHR:
	case FSYS_BLK:
		return "a device";
	case FSYS_SOCK:
		return "a socket";
	case FSYS_DIR:
		return "a folder";
	case FSYS_LNK:
		return "a link";
	default:
		return "a regular file";
	}
}

int
file_open_regular(const char *path, const char *what, struct error *err)
{
	struct fsys_stat st;
	int fd, e;

	if (!what)
		what = path;
	fd = fsys_open_read(path);
	if (fd < 0) {
		int oe = errno;

		fd = oe == ENOENT || oe == ENOTDIR ? ERROR_NOT_FOUND : ERROR_IO;
		error_set(err, fd, "cannot open '%s': %s", what, strerror(oe));
		errno = oe;
		return fd;
	}
	e = fsys_fstat(fd, &st);
	if (e) {
		error_set(err, ERROR_IO, "cannot read '%s': %s", what,
			  strerror(e));
		close(fd);
		return ERROR_IO;
	}
	if (st.kind != FSYS_REG) {
		close(fd);
		error_set(err, ERROR_INVALID, "'%s' is not a regular file (%s)",
			  what, file_kind_name(st.kind));
		error_hint(err, "ripple reads only regular files here");
		return ERROR_INVALID;
	}
	return fd;
}

/*
 * root/rel into out; 0 when every folder on the way is a real folder
 * (lstat: no symlink), else ERROR_NOT_FOUND or ERROR_INVALID naming rel.
 */
static int
folders_real(const char *root, const char *rel, char *out, size_t n,
	     struct error *err)
{
	size_t rl = strlen(root), i;
	struct fsys_stat sb;
	int e;

	if ((size_t)snprintf(out, n, "%s/%s", root, rel) >= n)
		return error_set(err, ERROR_INVALID, "path '%s' is too long",
				 rel);
	for (i = rl + 1; out[i]; i++) {
		if (out[i] != '/')
			continue;
		out[i] = '\0';
		e = fsys_lstat(out, &sb);
		if (e) {
			out[i] = '/';
			return error_set(err, e == ENOENT ? ERROR_NOT_FOUND
					 : ERROR_IO, "cannot restore '%s': %s",
					 rel, strerror(e));
		}
		if (sb.kind != FSYS_DIR) {
			error_set(err, ERROR_INVALID, "cannot restore '%s': "
				  "'%s' is %s", rel, out + rl + 1,
				  sb.kind == FSYS_LNK ? "a link"
						      : "not a folder");
			out[i] = '/';
			return ERROR_INVALID;
		}
		out[i] = '/';
	}
	return 0;
}

int
file_replace_under(const char *root, const char *rel, const void *bytes,
		   size_t len, enum file_entry kind, struct error *err)
{
	char path[4096], tmp[4200], *slash;
	const char *p = bytes;
	struct fsys_stat sb;
	size_t done = 0;
	int fd = -1, rc, e;

	rc = folders_real(root, rel, path, sizeof(path), err);
	if (rc)
		return rc;
	if (!fsys_lstat(path, &sb) && sb.kind == FSYS_DIR)
		return error_set(err, ERROR_INVALID, "cannot restore '%s': it "
				 "is a folder now", rel);
	slash = strrchr(path, '/');
	snprintf(tmp, sizeof(tmp), "%.*s/.ripple-restore-XXXXXX",
		 (int)(slash - path), path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return error_set(err, ERROR_IO, "cannot restore '%s': %s", rel,
				 strerror(errno));
	if (kind == FILE_ENTRY_LINK) {
		char target[4096];

		close(fd);
		fd = -1;
		if (len >= sizeof(target) || memchr(bytes, '\0', len)) {
			unlink(tmp);
			return error_set(err, ERROR_INVALID, "cannot restore "
					 "'%s': a bad link target", rel);
		}
		memcpy(target, bytes, len);
		target[len] = '\0';
		e = unlink(tmp) ? errno : fsys_symlink(target, tmp);
		if (e) {
			rc = error_set(err, ERROR_IO, "cannot restore '%s': %s",
				       rel, strerror(e));
			goto done;
		}
	} else {
		while (done < len) {
			ssize_t w = write(fd, p + done, len - done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				rc = error_set(err, ERROR_IO, "cannot restore "
					       "'%s': %s", rel,
					       strerror(errno));
				goto done;
			}
			done += (size_t)w;
		}
		e = fsys_fchmod(fd, kind == FILE_ENTRY_EXEC ? 0755 : 0644);
		if (close(fd) && !e)
			e = errno;
		fd = -1;
		if (e) {
			rc = error_set(err, ERROR_IO, "cannot restore '%s': %s",
				       rel, strerror(e));
			goto done;
		}
	}
	e = fsys_rename(tmp, path);
	if (e)
		rc = error_set(err, ERROR_IO, "cannot restore '%s': %s", rel,
			       strerror(e));
done:
	if (fd >= 0)
		close(fd);
	if (rc)
		unlink(tmp);
	return rc;
}

int
file_remove_under(const char *root, const char *rel, struct error *err)
{
	char path[4096];
	struct fsys_stat sb;
	int rc, e;

	rc = folders_real(root, rel, path, sizeof(path), err);
	if (rc == ERROR_NOT_FOUND)
		return 0;
	if (rc)
		return rc;
	e = fsys_lstat(path, &sb);
	if (e)
		return e == ENOENT ? 0
			: error_set(err, ERROR_IO, "cannot remove '%s': %s",
				    rel, strerror(e));
	if (sb.kind == FSYS_DIR)
		return error_set(err, ERROR_INVALID, "cannot remove '%s': it "
				 "is a folder", rel);
	if (unlink(path) && errno != ENOENT)
		return error_set(err, ERROR_IO, "cannot remove '%s': %s", rel,
				 strerror(errno));
	return 0;
}
