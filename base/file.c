/*
 * Regular files only: open without blocking, check the kind, hand back a
 * blocking descriptor. See base/file.h.
 */
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
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
