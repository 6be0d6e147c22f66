/*
 * base/fsys.h on Windows: the W functions, paths converted at the call.
 */
#include "base/fsys.h"

#include <errno.h>
#include <stdlib.h>

#include "base/wide_win.h"
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
