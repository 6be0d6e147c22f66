/*
 * File-system calls whose POSIX and Windows forms differ, one function
 * each, UTF-8 paths: base/fsys_posix.c and base/fsys_win.c (the W
 * functions, UTF-16 at the API). Each returns 0 or an errno value, as the
 * POSIX call sets it, so callers keep one error path.
 */
#ifndef RIPPLE_BASE_FSYS_H
#define RIPPLE_BASE_FSYS_H

#include <stddef.h>
#include <stdint.h>

/*
 * 1 when `path` is absolute: "/..." on POSIX; on Windows C:/..., C:\...,
 * //host/share and \\?\... too (a drive-relative "C:x" or a
 * rooted "/x" without a drive is not: it depends on the current drive).
 */
int fsys_absolute(const char *path);

/*
 * The length of the root that begins the absolute `path`, its last
 * separator included: 1 for / on POSIX; on Windows 3 for C:/, and
 * //host/share/ or \\?\C:\ whole. 0 when path is not absolute. ".." never
 * climbs above it.
 */
size_t fsys_root_len(const char *path);

/* mkdir(path, 0777): EEXIST when something is there already. */
int fsys_mkdir(const char *path);

/* What a directory entry is. Windows: symlinks and junctions are links. */
enum fsys_kind {
	FSYS_REG,		/* a regular file */
	FSYS_DIR,		/* a folder */
	FSYS_LNK,		/* a symbolic link (or a junction) */
	FSYS_FIFO,
	FSYS_CHR,		/* a character device (Windows: NUL, CON) */
	FSYS_BLK,
	FSYS_SOCK,
	FSYS_OTHER,
};

/*
 * What lstat(2) tells ripple. Windows: dev is the volume serial number,
 * ino the file index (GetFileInformationByHandle), mtime from the last
 * write time in 100 ns steps, and mode 0644 for files, 0755 for folders
 * (NTFS has no executable bit; git for Windows reads its index's bit).
 */
struct fsys_stat {
	enum fsys_kind kind;
	unsigned mode;		/* permission bits, 0777 at most */
	uint64_t size;		/* bytes */
	int64_t mtime_s;	/* last modification: seconds since 1970 */
	long mtime_ns;		/* and nanoseconds, 0 to 999999999 */
	int64_t ctime_s;	/* last status change (Windows: the */
	long ctime_ns;		/* change time of FILE_BASIC_INFO) */
	uint64_t dev, ino;	/* which file: equal pairs, the same file */
};

/* lstat(path): the entry itself, a link not followed. 0 or errno. */
int fsys_lstat(const char *path, struct fsys_stat *st);

/* stat(path): links followed. 0 or errno. */
int fsys_stat(const char *path, struct fsys_stat *st);

/* fstat(fd) of a descriptor from open(). 0 or errno. */
int fsys_fstat(int fd, struct fsys_stat *st);

/*
 * readlink(path): the link's target text, NUL-terminated in buf[0..n)
 * (UTF-8; on Windows with '/' for '\'), its length in *len. 0, EINVAL (not
 * a link), ENAMETOOLONG (it does not fit), or errno.
 */
int fsys_readlink(const char *path, char *buf, size_t n, size_t *len);

/*
 * realpath(path): absolute, every link followed, no "." or "..", as a new
 * string the caller frees with free() (Windows: "C:/dir/file", '/'
 * separators, no "\\?\"). NULL with errno set when path is missing (or a
 * folder on the way is) or out of memory.
 */
char *fsys_realpath(const char *path);

/*
 * open(path) for reading (O_RDONLY | O_CLOEXEC | O_NOCTTY), without
 * blocking while it opens (a FIFO with no writer); the descriptor then
 * blocks again. The descriptor, or -1 with errno set. Windows: _wopen,
 * binary, not inherited by child processes.
 */
int fsys_open_read(const char *path);

/*
 * pread(fd, buf, n, off): up to n bytes at offset `off` (bytes). The
 * count (0 at the end), or -1 with errno set. Windows: ReadFile with an
 * OVERLAPPED offset, which also moves the file position (POSIX leaves it):
 * read such a descriptor with fsys_pread only.
 */
long long fsys_pread(int fd, void *buf, size_t n, int64_t off);

/*
 * symlink(target, path): a link at path whose text is target. 0 or errno.
 * Windows: CreateSymbolicLinkW, unprivileged where Developer Mode allows
 * it (EACCES otherwise), a folder link when target names a folder.
 */
int fsys_symlink(const char *target, const char *path);

/*
 * rename(from, to), replacing what is at `to` (a file, a link). 0 or errno.
 * Windows: MoveFileExW with MOVEFILE_REPLACE_EXISTING (msvcrt's rename
 * refuses an existing destination).
 */
int fsys_rename(const char *from, const char *to);

/*
 * 1 when files carry an executable bit (POSIX), 0 when they do not
 * (Windows): then a file's git mode is the index's, as git does with
 * core.filemode false.
 */
int fsys_exec_bits(void);

/*
 * fchmod(fd, mode). 0 or errno. Windows: NTFS keeps no permission bits
 * (the executable bit lives in git's index), so only a mode without 0200
 * means anything there: nothing is done, and 0 is returned.
 */
int fsys_fchmod(int fd, unsigned mode);

#endif
