/*
 * base/cudalib.h on Windows: LoadLibraryExW, the toolkit's bin folders
 * and NVIDIA's DLL names.
 */
#include "base/cudalib.h"
#include "base/cudalib_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/fnmatch.h"
#include "base/strv.h"
#include "base/wide_win.h"
#include "base/error.h"
#include "base/banned.h"

/* CUDA 13 keeps its DLLs in bin/x64, CUDA 12 in bin. */
static const char *const lib_dirs[] = { "bin/x64", "bin" };

/* The file-name glob of each library (".alt" variants excluded). */
static const char *
pattern(const char *name)
{
	if (!strcmp(name, "nvrtc"))
		return "nvrtc64_*_0.dll";
	if (!strcmp(name, "nvJitLink"))
		return "nvJitLink_*_0.dll";
	if (!strcmp(name, "cudart"))
		return "cudart64_*.dll";
	return NULL;
}

int
cudalib_candidates(const char *home, const char *name, struct strv *paths,
		   struct buf *tried, struct error *err)
{
	const char *pat = pattern(name);
	struct strv found = STRV_INIT;
	struct buf p = BUF_INIT;
	size_t d, k;
	int rc = 0;

	if (!pat)
		return error_set(err, ERROR_INTERNAL, "no Windows name for "
				 "CUDA library '%s'", name);
	for (d = 0; !rc && d < sizeof(lib_dirs) / sizeof(lib_dirs[0]); d++) {
		buf_reset(&p);
		rc = buf_addf(&p, err, "%s/%s", lib_dirs[d], pat);
		if (!rc)
			rc = fnmatch_glob(home, p.data, &found, err);
		/* Sorted by bytes: the newest version last, tried first. */
		for (k = found.n; !rc && k-- > 0;) {
			buf_reset(&p);
			rc = buf_addf(&p, err, "%s/%s", home, found.v[k]);
			if (!rc)
				rc = strv_push(paths, p.data, err);
		}
		strv_release(&found);
		strv_init(&found, 1);
	}
	if (!rc)
		rc = cudalib_dirs_tried(tried, home, lib_dirs,
					sizeof(lib_dirs) / sizeof(lib_dirs[0]),
					err);
	if (!rc)
		rc = buf_addf(tried, err, " for %s", pat);
	buf_release(&p);
	strv_release(&found);
	return rc;
}

void
cudalib_builtins(const char *nvrtc_path, int major, int minor, char *out,
		 size_t n)
{
	char name[64];	/* two ints fit */

	snprintf(name, sizeof(name), "nvrtc-builtins64_%d%d.dll", major,
		 minor);
	cudalib_beside(nvrtc_path, name, out, n);
}

const char *
cudalib_driver(void)
{
	return "nvcuda.dll";
}

void *
cudalib_open(const char *path, char *why, size_t n)
{
	struct error err;
	wchar_t *w, *k;
	HMODULE h, pinned;
	DWORD flags;

	error_init(&err);
	w = wide_from_utf8(path, &err);
	if (!w) {
		snprintf(why, n, "%s: %s", path, err.msg);
		return NULL;
	}
	/* LoadLibraryExW takes '\\' only; a bare name comes from System32. */
	for (k = w; *k; k++)
		if (*k == L'/')
			*k = L'\\';
	flags = LOAD_LIBRARY_SEARCH_SYSTEM32;
	if (strchr(path, '/') || strchr(path, '\\')) {
		/* Its own folder first (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR),
		 * which takes an absolute path only. */
		DWORD len = GetFullPathNameW(w, 0, NULL, NULL);
		wchar_t *full = len ? malloc(len * sizeof(*full)) : NULL;

		if (full && GetFullPathNameW(w, len, full, NULL) < len) {
			free(w);
			w = full;
		} else {
			free(full);
		}
		flags = LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR |
			LOAD_LIBRARY_SEARCH_DEFAULT_DIRS;
	}
	h = LoadLibraryExW(w, NULL, flags);
	/* Kept loaded until the process ends, as RTLD_NODELETE does:
	 * NVRTC and cudart keep threads and callbacks of their own. */
	if (h)
		GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_PIN |
				   GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS,
				   (LPCWSTR)(void *)h, &pinned);
	free(w);
	if (!h)
		snprintf(why, n, "cannot load %.200s (Windows error %lu)",
			 path, (unsigned long)GetLastError());
	return (void *)h;
}

void *
cudalib_sym(void *h, const char *name)
{
	FARPROC f = GetProcAddress((HMODULE)h, name);
	void *p;

	/* ISO C has no cast from a function pointer to void *. */
	memcpy(&p, &f, sizeof(p));
	return p;
}

void
cudalib_close(void *h)
{
	FreeLibrary((HMODULE)h);
}
