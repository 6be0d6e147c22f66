/*
 * The operating system's side of base/dl.c: exactly one of base/dl_posix.c
 * (dlopen, dlsym) and base/dl_win.c (LoadLibraryExW, GetProcAddress) is
 * built, chosen by $plat in the ninja files. Only base/dl.c includes this.
 */
#ifndef RIPPLE_BASE_DL_SYS_H
#define RIPPLE_BASE_DL_SYS_H

#include <stddef.h>

#include "base/dl.h"

/*
 * Open the library ripple knows by its Linux soname ("libcurl.so.4"; on
 * Windows the DLL named for it in base/dl_win.c). Returns a handle, or
 * NULL with the system's words (or "not supported on Windows yet" for a
 * library without a Windows name) in why[0..n).
 */
void *dl_sys_open(const char *soname, char *why, size_t n);

/* The function `name` in `h`, or NULL when the library has none. */
dl_fn dl_sys_sym(void *h, const char *name);

/*
 * Set err for `lib`, which failed to load (lib->why says how), with the
 * hint that fits the system (the Debian package; the DLL's folder).
 * Returns ERROR_UNSUPPORTED.
 */
int dl_sys_error(const struct dl_lib *lib, struct error *err);

/* Close a handle from dl_sys_open. */
void dl_sys_close(void *h);

#endif
