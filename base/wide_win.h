/*
 * Windows only: ripple keeps every string in UTF-8 and converts at the
 * API, as Git for Windows and libgit2 do; the wide (UTF-16) side exists
 * only in base/ *_win.c files, for the W functions of the Windows API.
 * Also the one mapping of Windows error codes to errno values.
 */
#ifndef RIPPLE_BASE_WIDE_WIN_H
#define RIPPLE_BASE_WIDE_WIN_H

#include <wchar.h>
#include <windows.h>

#include "base/error.h"	/* after <windows.h>: ERROR_NOT_FOUND is ours */

struct error;

/*
 * `s` (UTF-8, NUL-terminated) as a new UTF-16 string the caller frees
 * with free(). Returns NULL with ERROR_INVALID for bytes that are not
 * UTF-8 (never a lossy conversion), or ERROR_NOMEM.
 */
wchar_t *wide_from_utf8(const char *s, struct error *err);

/*
 * `w` (UTF-16, NUL-terminated) as a new UTF-8 string the caller frees.
 * Returns NULL with ERROR_INVALID for unpaired surrogates, or ERROR_NOMEM.
 */
char *wide_to_utf8(const wchar_t *w, struct error *err);

/*
 * The errno value for a Windows error code (GetLastError()), so that the
 * Windows side of a base/ concern returns what its POSIX side does:
 * EEXIST, ENOENT, EACCES, EAGAIN (a lock held elsewhere), ENOMEM; EIO for
 * the rest.
 */
int win_errno(unsigned long winerr);

#endif
