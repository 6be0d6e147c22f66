/*
 * UTF-8 <-> UTF-16 at the Windows API (base/wide_win.h).
 */
#include "base/wide_win.h"

#include <errno.h>
#include <stdlib.h>

#include "base/error.h"
#include "base/banned.h"

wchar_t *
wide_from_utf8(const char *s, struct error *err)
{
	wchar_t *w;
	int n;

	n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	if (n <= 0) {
		error_set(err, ERROR_INVALID, "'%s' is not UTF-8", s);
		return NULL;
	}
	w = malloc((size_t)n * sizeof(*w));
	if (!w) {
		error_nomem(err);
		return NULL;
	}
	if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w,
				n) != n) {
		free(w);
		error_set(err, ERROR_INTERNAL, "MultiByteToWideChar failed "
			  "(Windows error %lu)", (unsigned long)GetLastError());
		return NULL;
	}
	return w;
}

char *
wide_to_utf8(const wchar_t *w, struct error *err)
{
	char *s;
	int n;

	n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, NULL, 0,
				NULL, NULL);
	if (n <= 0) {
		error_set(err, ERROR_INVALID, "a name from Windows is not "
			  "valid UTF-16 (an unpaired surrogate)");
		return NULL;
	}
	s = malloc((size_t)n);
	if (!s) {
		error_nomem(err);
		return NULL;
	}
	if (WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, s, n,
				NULL, NULL) != n) {
		free(s);
		error_set(err, ERROR_INTERNAL, "WideCharToMultiByte failed "
			  "(Windows error %lu)", (unsigned long)GetLastError());
		return NULL;
	}
	return s;
}

int
win_errno(unsigned long winerr)
{
	switch (winerr) {
	case ERROR_FILE_EXISTS:
	case ERROR_ALREADY_EXISTS:
		return EEXIST;
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
	case ERROR_BAD_NETPATH:
		return ENOENT;
	case ERROR_DIRECTORY:
		return ENOTDIR;
	case ERROR_NOT_A_REPARSE_POINT:
		return EINVAL;
	case ERROR_FILENAME_EXCED_RANGE:
		return ENAMETOOLONG;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
		return EACCES;
	case ERROR_LOCK_VIOLATION:
	case ERROR_IO_PENDING:
		return EAGAIN;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	default:
		return EIO;
	}
}
