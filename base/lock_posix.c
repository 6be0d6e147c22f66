/*
 * base/lock.h on POSIX: open(2) and open-file-description locks.
 */
#define _GNU_SOURCE 1
#include "base/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "base/banned.h"

int
lock_open(const char *path, int flags, int *fd)
{
	int o = (flags & LOCK_OPEN_WRITE ? O_RDWR : O_RDONLY) | O_CLOEXEC;

	if (flags & LOCK_OPEN_CREATE)
		o |= O_CREAT | O_EXCL;
	*fd = open(path, o, 0666);
	return *fd < 0 ? errno : 0;
}

int
lock_try(int fd)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	while (fcntl(fd, F_OFD_SETLK, &fl))
		if (errno != EINTR)
			return errno;
	return 0;
}

int
lock_held(int fd)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	return fcntl(fd, F_OFD_GETLK, &fl) || fl.l_type != F_UNLCK;
}
