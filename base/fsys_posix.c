/*
 * base/fsys.h on POSIX.
 */
#include "base/fsys.h"

#include <errno.h>
#include <sys/stat.h>

#include "base/banned.h"

int
fsys_mkdir(const char *path)
{
	return mkdir(path, 0777) ? errno : 0;
}
