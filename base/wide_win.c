/*
 * UTF-8 <-> UTF-16 at the Windows API (base/wide_win.h).
 */
#include "base/wide_win.h"

#include <stdlib.h>
#include <windows.h>

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
