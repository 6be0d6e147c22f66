/*
 * base/dl_sys.h on Windows: LoadLibraryExW of the DLL that stands for a
 * Linux soname, searched in ripple.exe's folder and System32 only
 * (LOAD_LIBRARY_SEARCH_DEFAULT_DIRS: never the current directory, where a
 * planted DLL would run as ripple).
 */
#include "base/dl_sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/wide_win.h"
#include "base/error.h"
#include "base/banned.h"

/*
 * The DLL for each soname ripple loads, as tools/windows/deps.sh builds
 * it (CMake's MinGW names). A soname missing here is a library not ported
 * yet: loading it fails with words that say so.
 */
static const struct {
	const char *soname;
	const char *dll;
} names[] = {
	{ "libarchive.so.13", "libarchive.dll" },
	{ "libcurl.so.4", "libcurl.dll" },
	{ "libzip.so.4", "libzip.dll" },
};

static const char *
dll_name(const char *soname)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].soname, soname))
			return names[i].dll;
	return NULL;
}

void *
dl_sys_open(const char *soname, char *why, size_t n)
{
	const char *dll = dll_name(soname);
	struct error err;
	wchar_t *w;
	HMODULE h;

	if (!dll) {
		snprintf(why, n, "%s: not supported on Windows yet (no DLL "
			 "name for it in base/dl_win.c)", soname);
		return NULL;
	}
	error_init(&err);
	w = wide_from_utf8(dll, &err);
	if (!w) {
		snprintf(why, n, "%s: %s", dll, err.msg);
		return NULL;
	}
	h = LoadLibraryExW(w, NULL, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
	free(w);
	if (!h)
		snprintf(why, n, "cannot load %s (Windows error %lu)", dll,
			 (unsigned long)GetLastError());
	return (void *)h;
}

dl_fn
dl_sys_sym(void *h, const char *name)
{
	/* FARPROC to another function pointer type: a plain cast. */
	return (dl_fn)GetProcAddress((HMODULE)h, name);
}

void
dl_sys_close(void *h)
{
	FreeLibrary((HMODULE)h);
}

int
dl_sys_error(const struct dl_lib *lib, struct error *err)
{
	const char *dll = dll_name(lib->soname);

	error_set(err, ERROR_UNSUPPORTED, "cannot load %s, which %s needs: "
		  "%s", dll ? dll : lib->soname, lib->purpose, lib->why);
	if (dll)
		error_hint(err, "%s belongs in ripple.exe's folder (`ninja "
			   "windows` puts it there)", dll);
	return ERROR_UNSUPPORTED;
}
