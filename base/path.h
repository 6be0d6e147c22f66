/*
 * Paths that must stay inside one folder (the repository, or the cache's
 * folder): the lexical test for a relative path from the rules, and the
 * resolution of a path on disk, every symlink followed, to tell where it
 * really goes before anything is written, deleted or run there.
 *
 * Design: resolution uses realpath(3) on the deepest part of the path that
 * exists and appends the rest, which cannot hold a symlink because it does
 * not exist. A caller checks, then acts; a race in between (another process
 * swapping a folder for a link) is outside what a build tool can prevent,
 * as it is for make and ninja.
 */
#ifndef RIPPLE_BASE_PATH_H
#define RIPPLE_BASE_PATH_H

#include <stddef.h>

struct error;

/* Bytes enough for any resolved path (PATH_MAX on Linux). */
#define PATH_RESOLVED_MAX 4096

/*
 * 1 when the relative path `rel` (a rule's output pattern or cwd, after
 * templates) leaves its folder lexically: it is absolute, or one of its
 * "/"-separated components is "..". 0 otherwise ("", "." and "a/./b" stay).
 */
int path_leaves(const char *rel);

/*
 * The first character of s[0..n) that no path ripple writes may hold, or
 * NULL when there is none: a C0 control (a byte 0x00-0x1f), DEL (0x7f),
 * a C1 control (U+0080-U+009F, the UTF-8 bytes c2 80 to c2 9f), or a byte
 * that is not part of valid UTF-8 (base/utf8.h, RFC 3629). A newline or
 * an escape in an output path forges a line of SHA256SUMS or of a log;
 * U+0085 is a line break and U+009B an escape to some readers (ECMA-48),
 * and bytes that are not UTF-8 cannot be shown or put in JSON as they
 * are. So the rules refuse them (rules/syntax.c, graph/expand.c), and so
 * do remote cache entries and records (cache/remote_ac.c,
 * cache/remote_record.c). When what is not NULL, it receives (size
 * PATH_BAD_WHAT) what the character is, e.g. "control character \x0a",
 * "control character U+0085" or "byte \xff, which is not UTF-8".
 */
#define PATH_BAD_WHAT 48
const char *path_bad_char(const char *s, size_t n, char *what);

/*
 * s with each character path_bad_char finds written byte by byte as
 * "\xHH" (lowercase hex), appended to b (base/buf.h), for messages that
 * must not carry the character itself to a terminal. Returns 0 or the
 * error of buf_add.
 */
struct buf;
int path_escape_controls(struct buf *b, const char *s, struct error *err);

/*
 * Names that write somewhere else than they say (docs/security.md, "Names
 * that alias"). Refused on every system, in any component but "." and
 * "..":
 *   - a name that is git's ".git" on some file system: any case (NTFS,
 *     APFS, HFS+), with the dotless i U+0131 (NTFS upper-cases it to I),
 *     with code points HFS+ ignores (U+200C-U+200F, U+202A-U+202E,
 *     U+206A-U+206F, U+FEFF; git's own list, CVE-2014-9390), with dots or
 *     spaces after it or a ':' stream suffix (Windows drops or opens
 *     them), or its 8.3 short name "GIT~N";
 *   - the first component naming ripple's ".ripple" the same ways
 *     (".RIPPLE", ".ripple.", "RIPPLE~1"): logs and the cache live there.
 * With PATH_NAMES_WINDOWS, also what Windows reads as another file:
 *   - a device name: CON, PRN, AUX, NUL, CONIN$, CONOUT$, COM0-COM9,
 *     LPT0-LPT9 and COM and LPT with a superscript 1, 2 or 3 (Windows 11),
 *     in any case, also with spaces after it or an extension ("NUL.txt",
 *     "com1 .log"): the file would be the device;
 *   - ':' (an alternate data stream "a:b", a drive-relative "C:x");
 *   - a component that ends in '.' or ' ' (Windows drops them: "a." is
 *     "a");
 *   - an 8.3 short name (up to 8 characters ending in '~' and digits, an
 *     extension of up to 3): "PROGRA~1" may be another file's short name;
 *   - '\' (a separator on Windows), unless PATH_NAMES_GLOB says s is a
 *     glob pattern, where '\' escapes the next character.
 * Returns NULL when s[0..n) is none of these, else why, as words that
 * follow the path in a message ("names git's '.git' folder on some file
 * systems"), with *at and *len (when not NULL) the component's offset and
 * length. Source: Microsoft's "Naming Files, Paths, and Namespaces"; git's
 * is_ntfs_dotgit and is_hfs_dotgit (path.c, utf8.c).
 */
#define PATH_NAMES_WINDOWS 1u
#define PATH_NAMES_GLOB 2u
/* Hints for a rule's output that path_name_refused refuses: on every
 * system, and with PATH_NAMES_WINDOWS only (a win-64 node's). */
#define PATH_HINT_ALIAS "outputs never name git's '.git' (anywhere) or " \
	"ripple's '.ripple' (at the root) by another spelling: another " \
	"case, dots or spaces after it, a ':' stream, an 8.3 short name " \
	"(docs/security.md)"
#define PATH_HINT_WINDOWS "a win-64 node's outputs are written on " \
	"Windows, where this name is another file or a device: rename it " \
	"(docs/security.md)"
const char *path_name_refused(const char *s, size_t n, unsigned flags,
			      size_t *at, size_t *len);

/*
 * Where `root`/`rel` really is: the path resolved with every symlink
 * followed (realpath(3) on its deepest existing prefix, the missing rest
 * appended). With follow_last 0 the last component itself is not followed
 * (unlink(2) removes a link, not its target): only its folder is resolved.
 * `rel` may also be absolute (then `root` only decides inside or not).
 * Writes the resolved path to out (n bytes, PATH_RESOLVED_MAX is enough).
 * Returns 1 when it lies in `root` (itself resolved) or is `root`, 0 when
 * it lies outside, or a negative ERROR_IO (realpath failed for another
 * reason than a missing path, naming the path) or ERROR_INVALID (too long).
 */
int path_resolve_under(const char *root, const char *rel, int follow_last,
		       char *out, size_t n, struct error *err);

/*
 * Make the folder `root`/`rel` (rel relative, "/"-separated) and its missing
 * parents, checking before each mkdir that the parent resolves inside root,
 * and after it that the folder does (an existing link to elsewhere, even a
 * dangling one, is refused). Errors: ERROR_INVALID naming `rel` and where
 * it resolves when it leaves root (nothing is made outside), ERROR_IO.
 */
int path_mkdirs_under(const char *root, const char *rel, struct error *err);

#endif
