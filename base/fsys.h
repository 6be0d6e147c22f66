/*
 * File-system calls whose POSIX and Windows forms differ, one function
 * each, UTF-8 paths: base/fsys_posix.c and base/fsys_win.c (the W
 * functions, UTF-16 at the API). Each returns 0 or an errno value, as the
 * POSIX call sets it, so callers keep one error path.
 */
#ifndef RIPPLE_BASE_FSYS_H
#define RIPPLE_BASE_FSYS_H

/* mkdir(path, 0777): EEXIST when something is there already. */
int fsys_mkdir(const char *path);

#endif
