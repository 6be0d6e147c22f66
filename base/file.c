/*
 * Regular files only: open without blocking, check the kind, hand back a
 * blocking descriptor. See base/file.h.
 */
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/banned.h"

const char *
file_kind_name(unsigned mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISDIR(mode))
		return "a folder";
	return "a regular file";
}

int
file_open_regular(const char *path, const char *what, struct error *err)
{
	struct stat st;
	int fd, flags;

	if (!what)
		what = path;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int e = errno;

		fd = e == ENOENT || e == ENOTDIR ? ERROR_NOT_FOUND : ERROR_IO;
		error_set(err, fd, "cannot open '%s': %s", what, strerror(e));
		errno = e;
		return fd;
	}
	if (fstat(fd, &st)) {
		error_set(err, ERROR_IO, "cannot read '%s': %s", what,
			  strerror(errno));
		close(fd);
		return ERROR_IO;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		error_set(err, ERROR_INVALID, "'%s' is not a regular file (%s)",
			  what, file_kind_name((unsigned)st.st_mode));
		error_hint(err, "ripple reads only regular files here");
		return ERROR_INVALID;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
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
	struct stat sb;

	if ((size_t)snprintf(out, n, "%s/%s", root, rel) >= n)
		return error_set(err, ERROR_INVALID, "path '%s' is too long",
				 rel);
	for (i = rl + 1; out[i]; i++) {
		if (out[i] != '/')
			continue;
		out[i] = '\0';
		if (lstat(out, &sb)) {
			out[i] = '/';
			return error_set(err, errno == ENOENT ? ERROR_NOT_FOUND
					 : ERROR_IO, "cannot restore '%s': %s",
					 rel, strerror(errno));
		}
		if (!S_ISDIR(sb.st_mode)) {
			error_set(err, ERROR_INVALID, "cannot restore '%s': "
				  "'%s' is %s", rel, out + rl + 1,
				  S_ISLNK(sb.st_mode) ? "a link"
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
	struct stat sb;
	size_t done = 0;
	int fd = -1, rc;

	rc = folders_real(root, rel, path, sizeof(path), err);
	if (rc)
		return rc;
	if (!lstat(path, &sb) && S_ISDIR(sb.st_mode))
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
		if (unlink(tmp) || symlink(target, tmp)) {
			rc = error_set(err, ERROR_IO, "cannot restore '%s': %s",
				       rel, strerror(errno));
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
		rc = fchmod(fd, kind == FILE_ENTRY_EXEC ? 0755 : 0644);
		if (close(fd))
			rc = -1;
		fd = -1;
		if (rc) {
			rc = error_set(err, ERROR_IO, "cannot restore '%s': %s",
				       rel, strerror(errno));
			goto done;
		}
	}
	if (rename(tmp, path))
		rc = error_set(err, ERROR_IO, "cannot restore '%s': %s", rel,
			       strerror(errno));
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
	struct stat sb;
	int rc;

	rc = folders_real(root, rel, path, sizeof(path), err);
	if (rc == ERROR_NOT_FOUND)
		return 0;
	if (rc)
		return rc;
	if (lstat(path, &sb))
		return errno == ENOENT ? 0
			: error_set(err, ERROR_IO, "cannot remove '%s': %s",
				    rel, strerror(errno));
	if (S_ISDIR(sb.st_mode))
		return error_set(err, ERROR_INVALID, "cannot remove '%s': it "
				 "is a folder", rel);
	if (unlink(path) && errno != ENOENT)
		return error_set(err, ERROR_IO, "cannot remove '%s': %s", rel,
				 strerror(errno));
	return 0;
}
