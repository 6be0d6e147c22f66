/*
 * POSIX fnmatch(3) with flags 0, written once so that every platform
 * matches the same names: ripple's rules match node ids, tags, refs,
 * environment variable names and release file names with it (`only:`,
 * `trusted-refs:`, `pass-env:`, `exclude:`, `--only`, `ripple plan ID...`),
 * and Windows has no fnmatch.
 *
 * The dialect, as glibc's fnmatch(pattern, string, 0) in the C locale:
 * `*` matches any run of bytes ('/' and a leading '.' included), `?` any
 * one byte, `[...]` one byte of a bracket expression (`!` or `^` first
 * negates; `]` first is literal; ranges `a-z` by byte value; `[:alpha:]`
 * and the other POSIX classes; a backslash quotes the next byte), and a
 * backslash quotes the next byte outside brackets; `[.X.]` and `[=X=]` are
 * the byte X. A `[` without its `]` is
 * a literal `[`; a pattern ending in a lone backslash matches nothing.
 * tests/base/fnmatch_test.c checks it against the C library's fnmatch.
 *
 * Design: backtracking to the last `*` only (a `*` later in the pattern
 * supersedes the earlier one's choices), so a match costs at most
 * |pattern| x |string| steps, never exponential time on hostile patterns.
 */
#ifndef RIPPLE_BASE_FNMATCH_H
#define RIPPLE_BASE_FNMATCH_H

struct error;
struct strv;

/* 1 when `string` matches the fnmatch(3) glob `pattern` (flags 0), else 0. */
int fnmatch_match(const char *pattern, const char *string);

/*
 * glob(3) with flags 0, under the folder `root`: append to `out` the paths
 * (relative to root, '/'-separated, sorted by bytes) that match `pattern`
 * ('/'-separated components, each an fnmatch pattern; a name's leading '.'
 * only matched by a literal '.', as glob(3) does; a component without
 * wildcards is taken as written). Every match exists (lstat); folders on
 * the way are followed through links, as glob(3) does. No match is no
 * error. Returns 0, or ERROR_NOMEM.
 */
int fnmatch_glob(const char *root, const char *pattern, struct strv *out,
		 struct error *err);

#endif
