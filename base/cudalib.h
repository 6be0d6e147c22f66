/*
 * The CUDA toolkit's libraries by the names and folders each system gives
 * them, for engine/cuda/load.c, which loads NVRTC, nvJitLink and cudart
 * from one toolkit home (never by the system's search path, which could
 * mix toolkits):
 *
 *   Linux (base/cudalib_posix.c): HOME/{lib64, targets/ARCH-linux/lib,
 *   lib, lib/ARCH-linux-gnu}/libNAME.so.{13,12,}; the driver libcuda.so.1;
 *   NVRTC's builtins libnvrtc-builtins.so.MAJOR.MINOR beside NVRTC.
 *   Windows (base/cudalib_win.c): HOME/bin/x64 (CUDA 13) and HOME/bin
 *   (CUDA 12): nvrtc64_*_0.dll, nvJitLink_*_0.dll, cudart64_*.dll (the
 *   ".alt" variants are left out); the driver nvcuda.dll from System32;
 *   the builtins nvrtc-builtins64_MAJORMINOR.dll beside NVRTC.
 *
 * What both do the same way (the folders named in a message, a file
 * beside NVRTC) is written once in base/cudalib.c (base/cudalib_int.h).
 */
#ifndef RIPPLE_BASE_CUDALIB_H
#define RIPPLE_BASE_CUDALIB_H

#include <stddef.h>

struct buf;
struct error;
struct strv;

/*
 * The files that may be library `name` ("nvrtc", "nvJitLink", "cudart")
 * of the toolkit at `home`, best first, appended to `paths` (they need
 * not exist: the caller tries each), and what was looked for, for an
 * error message, appended to `tried` ("HOME/lib64, ... for libnvrtc.so.13,
 * libnvrtc.so.12, libnvrtc.so"). Returns 0 or ERROR_NOMEM.
 */
int cudalib_candidates(const char *home, const char *name, struct strv *paths,
		       struct buf *tried, struct error *err);

/*
 * The path of NVRTC's builtins library for NVRTC MAJOR.MINOR, beside
 * `nvrtc_path`, in out[0..n); "" when it does not fit.
 */
void cudalib_builtins(const char *nvrtc_path, int major, int minor,
		      char *out, size_t n);

/* The driver library's name, loaded from the system's folders. */
const char *cudalib_driver(void);

/*
 * Load the library at `path` (a file path; or cudalib_driver()'s name),
 * resolving its own dependencies from its folder, kept loaded until the
 * process ends. The handle, or NULL with the system's words in why[0..n).
 */
void *cudalib_open(const char *path, char *why, size_t n);

/* The symbol `name` of a handle from cudalib_open, or NULL. */
void *cudalib_sym(void *h, const char *name);

/* Close a handle from cudalib_open. */
void cudalib_close(void *h);

#endif
