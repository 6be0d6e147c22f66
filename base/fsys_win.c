/*
 * base/fsys.h on Windows: the W functions, paths converted at the call.
 */
#include "base/fsys.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/wide_win.h"
#include <winioctl.h>	/* after <windows.h> */
#include "base/error.h"
#include "base/banned.h"

int
fsys_mkdir(const char *path)
{
	struct error err;
	wchar_t *w;
	DWORD e = 0;

	error_init(&err);
	w = wide_from_utf8(path, &err);
	if (!w)
		return err.code == ERROR_NOMEM ? ENOMEM : EINVAL;
	if (!CreateDirectoryW(w, NULL))
		e = GetLastError();
	free(w);
	return e ? win_errno(e) : 0;
}

/* Open `path` for its attributes only; `follow` 0: the link itself. */
static HANDLE
open_meta(const char *path, int follow, int *e)
{
	struct error err;
	wchar_t *w;
	HANDLE h;

	error_init(&err);
	w = wide_from_utf8(path, &err);
	if (!w) {
		*e = err.code == ERROR_NOMEM ? ENOMEM : ENOENT;
		return INVALID_HANDLE_VALUE;
	}
	h = CreateFileW(w, FILE_READ_ATTRIBUTES,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS |
			(follow ? 0 : FILE_FLAG_OPEN_REPARSE_POINT), NULL);
	if (h == INVALID_HANDLE_VALUE)
		*e = win_errno(GetLastError());
	free(w);
	return h;
}

/* A reparse point that is a link: a symlink or a junction (mount point). */
static int
is_link(HANDLE h, DWORD attrs)
{
	FILE_ATTRIBUTE_TAG_INFO tag;

	if (!(attrs & FILE_ATTRIBUTE_REPARSE_POINT))
		return 0;
	if (!GetFileInformationByHandleEx(h, FileAttributeTagInfo, &tag,
					  sizeof(tag)))
		return 0;
	return tag.ReparseTag == IO_REPARSE_TAG_SYMLINK ||
	       tag.ReparseTag == IO_REPARSE_TAG_MOUNT_POINT;
}

static int
from_handle(HANDLE h, struct fsys_stat *st)
{
	BY_HANDLE_FILE_INFORMATION fi;
	FILE_BASIC_INFO basic;
	uint64_t t;

	switch (GetFileType(h)) {
	case FILE_TYPE_CHAR:
		memset(st, 0, sizeof(*st));
		st->kind = FSYS_CHR;
		st->mode = 0666;
		return 0;
	case FILE_TYPE_PIPE:
		memset(st, 0, sizeof(*st));
		st->kind = FSYS_FIFO;
		st->mode = 0600;
		return 0;
	default:
		break;
	}
	if (!GetFileInformationByHandle(h, &fi))
		return win_errno(GetLastError());
	if (is_link(h, fi.dwFileAttributes))
		st->kind = FSYS_LNK;
	else if (fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
		st->kind = FSYS_DIR;
	else
		st->kind = FSYS_REG;
	st->mode = st->kind == FSYS_DIR ? 0755 : 0644;
	st->size = st->kind == FSYS_DIR ? 0 :
		((uint64_t)fi.nFileSizeHigh << 32) | fi.nFileSizeLow;
	/* 100 ns steps since 1601-01-01; 11644473600 s before 1970. */
	t = ((uint64_t)fi.ftLastWriteTime.dwHighDateTime << 32) |
	    fi.ftLastWriteTime.dwLowDateTime;
	st->mtime_s = (int64_t)(t / 10000000u) - INT64_C(11644473600);
	st->mtime_ns = (long)(t % 10000000u) * 100;
	if (GetFileInformationByHandleEx(h, FileBasicInfo, &basic,
					 sizeof(basic)))
		t = (uint64_t)basic.ChangeTime.QuadPart;
	st->ctime_s = (int64_t)(t / 10000000u) - INT64_C(11644473600);
	st->ctime_ns = (long)(t % 10000000u) * 100;
	st->dev = fi.dwVolumeSerialNumber;
	st->ino = ((uint64_t)fi.nFileIndexHigh << 32) | fi.nFileIndexLow;
	return 0;
}

static int
stat_path(const char *path, int follow, struct fsys_stat *st)
{
	int e = 0;
	HANDLE h = open_meta(path, follow, &e);

	if (h == INVALID_HANDLE_VALUE)
		return e;
	e = from_handle(h, st);
	CloseHandle(h);
	return e;
}

int
fsys_lstat(const char *path, struct fsys_stat *st)
{
	return stat_path(path, 0, st);
}

int
fsys_stat(const char *path, struct fsys_stat *st)
{
	return stat_path(path, 1, st);
}

int
fsys_fstat(int fd, struct fsys_stat *st)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);

	if (h == INVALID_HANDLE_VALUE)
		return EBADF;
	return from_handle(h, st);
}

/*
 * The reparse data of a symlink or junction (ntifs.h's
 * REPARSE_DATA_BUFFER, which user-mode headers leave out).
 */
struct reparse {
	ULONG tag;
	USHORT data_len, reserved;
	USHORT subst_off, subst_len, print_off, print_len;
	/* symlinks: ULONG flags, then the names; junctions: the names */
	union {
		struct {
			ULONG flags;
			WCHAR names[1];
		} link;
		struct {
			WCHAR names[1];
		} mount;
	} u;
};

int
fsys_readlink(const char *path, char *buf, size_t n, size_t *len)
{
	union {
		struct reparse r;
		unsigned char bytes[MAXIMUM_REPARSE_DATA_BUFFER_SIZE];
	} *rd = NULL;
	struct error err;
	wchar_t *w = NULL, *name, *target = NULL;
	char *u8 = NULL;
	HANDLE h = INVALID_HANDLE_VALUE;
	DWORD got;
	USHORT off, cnt;
	size_t k, m;
	int e = 0;

	error_init(&err);
	w = wide_from_utf8(path, &err);
	rd = malloc(sizeof(*rd));
	if (!w || !rd) {
		e = !w && err.code != ERROR_NOMEM ? ENOENT : ENOMEM;
		goto done;
	}
	h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE |
			FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
			FILE_FLAG_BACKUP_SEMANTICS |
			FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		e = win_errno(GetLastError());
		goto done;
	}
	if (!DeviceIoControl(h, FSCTL_GET_REPARSE_POINT, NULL, 0, rd,
			     sizeof(*rd), &got, NULL)) {
		e = win_errno(GetLastError());
		goto done;
	}
	/* The print name is the target as written (relative stays so). */
	off = rd->r.print_off;
	cnt = rd->r.print_len;
	if (rd->r.tag == IO_REPARSE_TAG_SYMLINK)
		name = rd->r.u.link.names;
	else if (rd->r.tag == IO_REPARSE_TAG_MOUNT_POINT)
		name = rd->r.u.mount.names;
	else {
		e = EINVAL;
		goto done;
	}
	if ((unsigned char *)name + off + cnt > rd->bytes + got) {
		e = EIO;
		goto done;
	}
	target = malloc(cnt + sizeof(wchar_t));
	if (!target) {
		e = ENOMEM;
		goto done;
	}
	memcpy(target, (unsigned char *)name + off, cnt);
	target[cnt / sizeof(wchar_t)] = 0;
	u8 = wide_to_utf8(target, &err);
	if (!u8) {
		e = err.code == ERROR_NOMEM ? ENOMEM : EIO;
		goto done;
	}
	m = strlen(u8);
	if (m >= n) {
		e = ENAMETOOLONG;
		goto done;
	}
	for (k = 0; k <= m; k++)
		buf[k] = u8[k] == '\\' ? '/' : u8[k];
	*len = m;
done:
	if (h != INVALID_HANDLE_VALUE)
		CloseHandle(h);
	free(w);
	free(rd);
	free(target);
	free(u8);
	return e;
}

char *
fsys_realpath(const char *path)
{
	struct error err;
	wchar_t *w = NULL, *full = NULL;
	char *out = NULL, *p;
	HANDLE h;
	DWORD n;
	int e = 0;

	error_init(&err);
	w = wide_from_utf8(path, &err);
	if (!w) {
		errno = err.code == ERROR_NOMEM ? ENOMEM : ENOENT;
		return NULL;
	}
	h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE |
			FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
			FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		errno = win_errno(GetLastError());
		return NULL;
	}
	n = GetFinalPathNameByHandleW(h, NULL, 0, VOLUME_NAME_DOS);
	full = n ? malloc((n + 1) * sizeof(wchar_t)) : NULL;
	if (!n || !full ||
	    !GetFinalPathNameByHandleW(h, full, n + 1, VOLUME_NAME_DOS)) {
		e = full ? win_errno(GetLastError()) : ENOMEM;
		goto done;
	}
	out = wide_to_utf8(full, &err);
	if (!out) {
		e = err.code == ERROR_NOMEM ? ENOMEM : EIO;
		goto done;
	}
	/* "\\?\C:\x" is "C:/x"; "\\?\UNC\host\share" is "//host/share". */
	p = out;
	if (!strncmp(p, "\\\\?\\UNC\\", 8)) {
		p += 6;
		*p = '\\';
	} else if (!strncmp(p, "\\\\?\\", 4)) {
		p += 4;
	}
	memmove(out, p, strlen(p) + 1);
	for (p = out; *p; p++)
		if (*p == '\\')
			*p = '/';
done:
	CloseHandle(h);
	free(full);
	if (e)
		errno = e;
	return out;
}

int
fsys_open_read(const char *path)
{
	struct error err;
	wchar_t *w;
	int fd;

	error_init(&err);
	w = wide_from_utf8(path, &err);
	if (!w) {
		errno = err.code == ERROR_NOMEM ? ENOMEM : ENOENT;
		return -1;
	}
	fd = _wopen(w, _O_RDONLY | _O_BINARY | _O_NOINHERIT);
	free(w);
	return fd;
}

int
fsys_symlink(const char *target, const char *path)
{
	struct error err;
	wchar_t *wt = NULL, *wp = NULL, *k;
	char *beside = NULL;
	const char *slash;
	struct fsys_stat st;
	DWORD flags = SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE;
	size_t n;
	int e = 0;

	error_init(&err);
	/* A relative target is relative to the link's folder. */
	slash = strrchr(path, '/');
	n = slash && target[0] != '/' && !(target[0] && target[1] == ':')
		? (size_t)(slash - path) + 1 : 0;
	beside = malloc(n + strlen(target) + 1);
	if (!beside)
		return ENOMEM;
	memcpy(beside, path, n);
	memcpy(beside + n, target, strlen(target) + 1);
	if (!fsys_stat(beside, &st) && st.kind == FSYS_DIR)
		flags |= SYMBOLIC_LINK_FLAG_DIRECTORY;
	free(beside);
	wt = wide_from_utf8(target, &err);
	wp = wt ? wide_from_utf8(path, &err) : NULL;
	if (!wt || !wp) {
		e = err.code == ERROR_NOMEM ? ENOMEM : EINVAL;
		goto done;
	}
	for (k = wt; *k; k++)
		if (*k == L'/')
			*k = L'\\';
	if (!CreateSymbolicLinkW(wp, wt, flags))
		e = win_errno(GetLastError());
done:
	free(wt);
	free(wp);
	return e;
}

int
fsys_fchmod(int fd, unsigned mode)
{
	(void)fd;
	(void)mode;
	return 0;
}

int
fsys_rename(const char *from, const char *to)
{
	struct error err;
	wchar_t *wf, *wt = NULL;
	int e = 0;

	error_init(&err);
	wf = wide_from_utf8(from, &err);
	wt = wf ? wide_from_utf8(to, &err) : NULL;
	if (!wf || !wt)
		e = err.code == ERROR_NOMEM ? ENOMEM : ENOENT;
	else if (!MoveFileExW(wf, wt, MOVEFILE_REPLACE_EXISTING))
		e = win_errno(GetLastError());
	free(wf);
	free(wt);
	return e;
}

int
fsys_absolute(const char *path)
{
	int sep0 = path[0] == '/' || path[0] == '\\';
	int sep1 = sep0 && (path[1] == '/' || path[1] == '\\');
	int drive = path[0] && (path[0] | 0x20) >= 'a' && (path[0] | 0x20) <= 'z' &&
		    path[1] == ':' && (path[2] == '/' || path[2] == '\\');

	return drive || sep1;
}

long long
fsys_pread(int fd, void *buf, size_t n, int64_t off)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	OVERLAPPED ov;
	DWORD got = 0;

	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	if (n > 0x40000000u)
		n = 0x40000000u;
	memset(&ov, 0, sizeof(ov));
	ov.Offset = (DWORD)((uint64_t)off & 0xffffffffu);
	ov.OffsetHigh = (DWORD)((uint64_t)off >> 32);
	if (!ReadFile(h, buf, (DWORD)n, &got, &ov)) {
		DWORD e = GetLastError();

		if (e == ERROR_HANDLE_EOF)
			return 0;
		errno = win_errno(e);
		return -1;
	}
	return (long long)got;
}

static int
is_sep(char c)
{
	return c == '/' || c == '\\';
}

size_t
fsys_root_len(const char *path)
{
	size_t i = 0, parts;

	if (!fsys_absolute(path))
		return 0;
	if (!is_sep(path[0]))
		return 3;			/* C:/ */
	if (path[2] == '?' && is_sep(path[3]))
		return 4 + fsys_root_len(path + 4);	/* \\?\C:\ */
	/* //host/share/: past two more separators */
	for (i = 2, parts = 0; path[i]; i++)
		if (is_sep(path[i]) && ++parts == 2)
			return i + 1;
	return i;
}

int
fsys_exec_bits(void)
{
	return 0;
}
