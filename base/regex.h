/*
 * POSIX extended regular expressions (ERE), as the rules use them: a
 * `regex:` value reference (rules/refs.c checks it has one group) and the
 * drift check reading that group from a file (rules/drift_file.c).
 * base/regex.c calls the POSIX functions: the C library's regcomp(3), or
 * on Windows, which has none, PCRE2's (pcre2posix.h,
 * libpcre2-posix.dll). They agree on the EREs rules write (literals, classes,
 * `+ * ? {m,n}`, anchors, one group); they differ where PCRE2 differs from
 * POSIX (docs/windows.md): an alternation takes its leftmost alternative
 * that matches, not the longest, and `\d`, `\w` are PCRE2 classes.
 */
#ifndef RIPPLE_BASE_REGEX_H
#define RIPPLE_BASE_REGEX_H

#include <stddef.h>

/*
 * Compile `re` (REG_EXTENDED; with `newline` also REG_NEWLINE: `^` and `$`
 * match at line ends) and, when `text` is not NULL, find its first match
 * there. Returns:
 *   -1  `re` does not compile: the compiler's words in msg[0..n);
 *    0  it compiles; *groups is its number of (...) groups; with text,
 *       no match, or group 1 took no part in it;
 *    1  text is not NULL and group 1 matched bytes [*so, *eo) of text.
 * groups, so, eo may be NULL when not wanted.
 */
int regex_group1(const char *re, int newline, const char *text,
		 size_t *groups, size_t *so, size_t *eo, char *msg, size_t n);

#endif
