/*
 * Inside base/cudalib: what the two systems' files (cudalib_posix.c,
 * cudalib_win.c) do the same way, written once in base/cudalib.c. Not for
 * use outside base/.
 */
#ifndef RIPPLE_BASE_CUDALIB_INT_H
#define RIPPLE_BASE_CUDALIB_INT_H

#include <stddef.h>

struct buf;
struct error;

/*
 * Append "HOME/DIR1, HOME/DIR2, ..." (each of the n folders `dirs` under
 * `home`) to `tried`, for the message naming where a library was looked
 * for. Returns 0 or ERROR_NOMEM.
 */
int cudalib_dirs_tried(struct buf *tried, const char *home,
		       const char *const *dirs, size_t n, struct error *err);

/*
 * The path of file `name` in the folder of `path` (everything before its
 * last '/'; "." when it has none) in out[0..n); "" when it does not fit.
 */
void cudalib_beside(const char *path, const char *name, char *out, size_t n);

#endif
