/*
 * base/fsys.h on POSIX.
 */
#define _GNU_SOURCE 1
#include "base/fsys.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/banned.h"

int
fsys_mkdir(const char *path)
{
	return mkdir(path, 0777) ? errno : 0;
}

static int
from_stat(const struct stat *sb, struct fsys_stat *st)
{
	mode_t m = sb->st_mode;

	st->kind = S_ISREG(m) ? FSYS_REG : S_ISDIR(m) ? FSYS_DIR
		: S_ISLNK(m) ? FSYS_LNK : S_ISFIFO(m) ? FSYS_FIFO
		: S_ISCHR(m) ? FSYS_CHR : S_ISBLK(m) ? FSYS_BLK
		: S_ISSOCK(m) ? FSYS_SOCK : FSYS_OTHER;
	st->mode = (unsigned)(m & 0777);
	st->size = (uint64_t)sb->st_size;
	st->mtime_s = (int64_t)sb->st_mtim.tv_sec;
	st->mtime_ns = sb->st_mtim.tv_nsec;
	st->ctime_s = (int64_t)sb->st_ctim.tv_sec;
	st->ctime_ns = sb->st_ctim.tv_nsec;
	st->dev = (uint64_t)sb->st_dev;
	st->ino = (uint64_t)sb->st_ino;
	return 0;
}

int
fsys_lstat(const char *path, struct fsys_stat *st)
{
	struct stat sb;

	return lstat(path, &sb) ? errno : from_stat(&sb, st);
}

int
fsys_stat(const char *path, struct fsys_stat *st)
{
	struct stat sb;

	return stat(path, &sb) ? errno : from_stat(&sb, st);
}

int
fsys_fstat(int fd, struct fsys_stat *st)
{
	struct stat sb;

	return fstat(fd, &sb) ? errno : from_stat(&sb, st);
}

int
fsys_readlink(const char *path, char *buf, size_t n, size_t *len)
{
	ssize_t r;

	if (!n)
		return ENAMETOOLONG;
	r = readlink(path, buf, n);
	if (r < 0)
		return errno;
	if ((size_t)r >= n)
		return ENAMETOOLONG;
	buf[r] = 0;
	*len = (size_t)r;
	return 0;
}

char *
fsys_realpath(const char *path)
{
	return realpath(path, NULL);
}

int
fsys_open_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	int flags;

	if (fd < 0)
		return -1;
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

int
fsys_symlink(const char *target, const char *path)
{
	return symlink(target, path) ? errno : 0;
}

int
fsys_fchmod(int fd, unsigned mode)
{
	return fchmod(fd, (mode_t)mode) ? errno : 0;
}

int
fsys_rename(const char *from, const char *to)
{
	return rename(from, to) ? errno : 0;
}

int
fsys_absolute(const char *path)
{
	return path[0] == '/';
}

long long
fsys_pread(int fd, void *buf, size_t n, int64_t off)
{
	return (long long)pread(fd, buf, n, (off_t)off);
}

size_t
fsys_root_len(const char *path)
{
	return path[0] == '/';
}

int
fsys_exec_bits(void)
{
	return 1;
}
