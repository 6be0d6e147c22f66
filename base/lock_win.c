/*
 * base/lock.h on Windows: CreateFileW, LockFileEx, and a C runtime
 * descriptor over the handle (_open_osfhandle), so callers close it with
 * close() as on POSIX (closing it closes the handle and drops the lock).
 */
#include "base/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/wide_win.h"
#include "base/error.h"
#include "base/banned.h"

int
lock_open(const char *path, int flags, int *fd)
{
	struct error err;
	wchar_t *w;
	HANDLE h;
	DWORD e;

	*fd = -1;
	error_init(&err);
	w = wide_from_utf8(path, &err);
	if (!w)
		return err.code == ERROR_NOMEM ? ENOMEM : EINVAL;
	h = CreateFileW(w, GENERIC_READ |
			(flags & LOCK_OPEN_WRITE ? GENERIC_WRITE : 0),
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			NULL, flags & LOCK_OPEN_CREATE ? CREATE_NEW :
			OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
	e = GetLastError();
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return win_errno(e);
	*fd = _open_osfhandle((intptr_t)h, flags & LOCK_OPEN_WRITE ? _O_RDWR :
			      _O_RDONLY);
	if (*fd < 0) {
		CloseHandle(h);
		return EMFILE;
	}
	return 0;
}

/* All of the file: the largest range LockFileEx takes. */
static int
lock_range(int fd, DWORD how)
{
	OVERLAPPED o = { 0 };
	HANDLE h = (HANDLE)_get_osfhandle(fd);

	if (h == INVALID_HANDLE_VALUE)
		return EBADF;
	if (!LockFileEx(h, how | LOCKFILE_FAIL_IMMEDIATELY, 0, MAXDWORD,
			MAXDWORD, &o))
		return win_errno(GetLastError());
	return 0;
}

int
lock_try(int fd)
{
	return lock_range(fd, LOCKFILE_EXCLUSIVE_LOCK);
}

int
lock_held(int fd)
{
	OVERLAPPED o = { 0 };
	int e = lock_range(fd, 0);

	if (e)
		return 1;
	/* A shared lock was free: nobody holds an exclusive one. */
	UnlockFileEx((HANDLE)_get_osfhandle(fd), 0, MAXDWORD, MAXDWORD, &o);
	return 0;
}
