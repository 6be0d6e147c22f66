/*
 * Whole-file locks that the operating system drops when the process that
 * holds them dies, however it dies (cache/owner.c: who is running a run).
 *
 * POSIX (base/lock_posix.c): open-file-description locks (F_OFD_SETLK),
 * which conflict between two descriptors of one process too and survive
 * the closing of another descriptor of the file. Windows
 * (base/lock_win.c): LockFileEx on a handle opened with CreateFileW,
 * shared for reading, writing and deletion (so a locked file can be
 * renamed into place and removed, as on POSIX), turned into a C runtime
 * descriptor; Windows locks are per handle, as OFD locks are per open.
 *
 * Descriptors are not inherited by child processes (O_CLOEXEC; a handle
 * created without inheritance). Every function returns 0 or an errno
 * value (EEXIST, ENOENT, EAGAIN when another holder has the lock, ...).
 */
#ifndef RIPPLE_BASE_LOCK_H
#define RIPPLE_BASE_LOCK_H

enum {
	LOCK_OPEN_WRITE = 1,	/* read-write, not read-only */
	LOCK_OPEN_CREATE = 2,	/* create the file; EEXIST if it exists */
};

/* Open `path` (UTF-8) as `flags` says; *fd is the descriptor on success. */
int lock_open(const char *path, int flags, int *fd);

/* Take an exclusive lock on all of fd's file without waiting: 0, EAGAIN
 * (EACCES on some POSIX systems) while another descriptor of any process
 * holds one, or another errno. */
int lock_try(int fd);

/* 1 when some other descriptor holds a lock on fd's file, else 0 (and 1
 * when the system cannot tell: the file is then counted as alive). */
int lock_held(int fd);

#endif
