/*
 * Suites base_path and base_file: the lexical ".." test, resolving paths
 * under a root with symlinks followed, making folders only inside it, and
 * opening only regular files.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/file.h"
#include "base/path.h"
#include "tests/support/support.h"

Test(base_path, leaves_is_lexical)
{
	cr_expect(path_leaves("/tmp"));
	cr_expect(path_leaves(".."));
	cr_expect(path_leaves("a/../b"));
	cr_expect(path_leaves("out/../../x/*.txt"));
	cr_expect(!path_leaves(""));
	cr_expect(!path_leaves("."));
	cr_expect(!path_leaves("a/./b"));
	cr_expect(!path_leaves("a..b/..c"));
}

/*
 * Names that write somewhere else than they say (issue 29): refused on
 * every system when they alias '.git' anywhere or '.ripple' at the root;
 * with PATH_NAMES_WINDOWS, also Windows' devices, streams, trailing dots
 * and spaces, 8.3 short names and backslashes. `word` is part of the
 * reason; `at` the offending component's offset (-1: none refused).
 */
#define W PATH_NAMES_WINDOWS
Test(base_path, names_that_alias_are_refused)
{
	static const struct {
		const char *s;
		unsigned flags;
		int at;
		size_t len;
		const char *word;
	} cases[] = {
		{ "dist/w.whl", W, -1, 0, NULL },
		{ "dist/.github/x.yml", W, -1, 0, NULL },
		{ "dist/.gitignore", W, -1, 0, NULL },
		{ "dist/git~1", 0, 5, 5, "'.git'" },
		{ "dist/.ripple/x", W, -1, 0, NULL },	/* only at the root */
		{ "src/.ripplerc", W, -1, 0, NULL },
		{ "a.b/c d/e~f/x~1y.tar.gz", W, -1, 0, NULL },
		{ "dist/longname~1.txt", W, -1, 0, NULL },	/* not 8.3 */
		{ "dist/a~1.tar.gz", W, -1, 0, NULL },	/* two dots */
		{ "CONSOLE/NULL.txt/COM10/LPT/AUXI", W, -1, 0, NULL },
		{ "./a/../b", W, -1, 0, NULL },	/* other checks' business */
		/* .git, every system */
		{ ".git", 0, 0, 4, "'.git'" },
		{ "a/.GIT/config", 0, 2, 4, "'.git'" },
		{ "a/.Git./hooks/x", 0, 2, 5, "'.git'" },
		{ "a/.git . ./hooks/x", 0, 2, 8, "'.git'" },
		{ ".git::$INDEX_ALLOCATION/hooks", 0, 0, 23, "'.git'" },
		{ "a/GIT~1/config", 0, 2, 5, "'.git'" },
		{ "a/git~12./config", 0, 2, 7, "'.git'" },
		{ "a/.g\xe2\x80\x8cit/hooks", 0, 2, 7, "'.git'" },
		{ "a/\xef\xbb\xbf.git/hooks", 0, 2, 7, "'.git'" },
		{ "a/.gi\xe2\x81\xaft/hooks", 0, 2, 7, "'.git'" },
		{ "a/.g\xc4\xb1t/hooks", 0, 2, 5, "'.git'" },
		/* .ripple at the root, every system */
		{ ".Ripple/cache.db", 0, 0, 7, "'.ripple'" },
		{ ".RIPPLE", 0, 0, 7, "'.ripple'" },
		{ ".ripple./logs/x", 0, 0, 8, "'.ripple'" },
		{ "RIPPLE~1/cache.db", 0, 0, 8, "'.ripple'" },
		{ ".r\xc4\xb1pple/x", 0, 0, 8, "'.ripple'" },
		{ ".ri\xe2\x80\x8fpple/x", 0, 0, 10, "'.ripple'" },
		/* Windows only */
		{ "dist/NUL.txt", 0, -1, 0, NULL },
		{ "dist/NUL.txt", W, 5, 7, "device" },
		{ "con", W, 0, 3, "device" },
		{ "a/Aux/b", W, 2, 3, "device" },
		{ "a/prn.tar.gz", W, 2, 10, "device" },
		{ "a/com1 .log", W, 2, 9, "device" },
		{ "a/LPT9", W, 2, 4, "device" },
		{ "a/COM0", W, 2, 4, "device" },
		{ "a/com\xc2\xb9", W, 2, 5, "device" },
		{ "a/LPT\xc2\xb2.txt", W, 2, 9, "device" },
		{ "a/lpt\xc2\xb3", W, 2, 5, "device" },
		{ "a/CONOUT$", W, 2, 7, "device" },
		{ "a/conin$.x", W, 2, 8, "device" },
		{ "a/b:c", 0, -1, 0, NULL },
		{ "a/b:c", W, 2, 3, "':'" },
		{ "C:x/y", W, 0, 3, "':'" },
		{ "a/w.whl:evil", W, 2, 10, "':'" },
		{ "a./b", 0, -1, 0, NULL },
		{ "a./b", W, 0, 2, "ending in" },
		{ "a/b ", W, 2, 2, "ending in" },
		{ "a/b...", W, 2, 4, "ending in" },
		{ "a/PROGRA~1/x", 0, -1, 0, NULL },
		{ "a/PROGRA~1/x", W, 2, 8, "8.3" },
		{ "a/dist~2.whl", W, 2, 10, "8.3" },
		{ "a/x~99", W, 2, 4, "8.3" },
		{ "a\\b", 0, -1, 0, NULL },
		{ "a\\b", W, 0, 3, "separator" },
		{ "a/\\[x\\].whl", W | PATH_NAMES_GLOB, -1, 0, NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *s = cases[i].s;
		size_t at = 99, len = 99;
		const char *why = path_name_refused(s, strlen(s),
						    cases[i].flags, &at, &len);

		if (cases[i].at < 0) {
			cr_expect_null(why, "%s (flags %u): %s", s,
				       cases[i].flags, why);
			continue;
		}
		cr_expect_not_null(why, "%s (flags %u) passed", s,
				   cases[i].flags);
		if (!why)
			continue;
		cr_expect(strstr(why, cases[i].word) != NULL, "%s: %s", s,
			  why);
		cr_expect_eq(at, (size_t)cases[i].at, "%s: at %zu", s, at);
		cr_expect_eq(len, cases[i].len, "%s: len %zu", s, len);
	}
	/* The length counts: a name is not read past n. */
	cr_expect_not_null(path_name_refused(".gitx", 4, 0, NULL, NULL));
	cr_expect_null(path_name_refused("dist/NUL", 6, W, NULL, NULL));
}
#undef W

static void
sh(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);

	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	t_result_release(&r);
}

/*
 * C1 controls (U+0080-U+009F, two bytes in UTF-8) are control characters
 * as C0 ones are, and bytes that are not UTF-8 are refused too (issue
 * 22: U+0085 and U+009B passed `check` and entries before).
 */
Test(base_path, bad_chars_are_c0_c1_and_not_utf8)
{
	static const struct { const char *s; int at; const char *what; }
	cases[] = {
		{ "dist/w.bin", -1, NULL },
		{ "dist/caf\xc3\xa9/\xe2\x82\xac.whl", -1, NULL },
		{ "dist/\xc2\xa0x", -1, NULL },	/* U+00A0: printable */
		{ "a\nb", 1, "control character \\x0a" },
		{ "ab\x7f", 2, "control character \\x7f" },
		{ "dist/\xc2\x85", 5, "control character U+0085" },
		{ "d\xc2\x9b" "2J", 1, "control character U+009B" },
		{ "d\xc2\x80", 1, "control character U+0080" },
		{ "d\xc2\x9f", 1, "control character U+009F" },
		{ "d/\xff", 2, "byte \\xff, which is not UTF-8," },
		{ "d/\xc0\xaf", 2, "byte \\xc0, which is not UTF-8," },
		{ "d/\xed\xa0\x80", 2, "byte \\xed, which is not UTF-8," },
		{ "d/\xe2\x82", 2, "byte \\xe2, which is not UTF-8," },
	};
	char what[PATH_BAD_WHAT];
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *s = cases[i].s;
		const char *at = path_bad_char(s, strlen(s), what);

		if (cases[i].at < 0) {
			cr_expect_null(at, "%s", s);
			continue;
		}
		cr_expect_eq(at, s + cases[i].at, "%s", s);
		cr_expect_str_eq(what, cases[i].what);
	}
	cr_assert_eq(path_escape_controls(&b, "a\xc2\x85" "b\n\xff" "c\xc3\xa9",
					  NULL), 0);
	cr_expect_str_eq(b.data, "a\\xc2\\x85b\\x0a\\xffc\xc3\xa9");
	buf_release(&b);
}

Test(base_path, resolve_follows_every_link_and_tells_inside_from_out)
{
	char *base = t_tmpdir(), root[PATH_MAX], real[PATH_MAX];
	char out[PATH_RESOLVED_MAX], want[PATH_MAX + 64];
	struct error err;

	snprintf(root, sizeof(root), "%s/repo", base);
	sh(base, "mkdir -p repo/in outside && ln -s ../outside repo/out && "
	   "ln -s in repo/alias && ln -s /nonexistent/x repo/dangle && "
	   "touch outside/f");
	cr_assert_not_null(realpath(base, real));
	error_init(&err);
	cr_expect_eq(path_resolve_under(root, "in/new/deeper", 1, out,
					sizeof(out), &err), 1, "%s", err.msg);
	snprintf(want, sizeof(want), "%s/repo/in/new/deeper", real);
	cr_expect_str_eq(out, want);
	cr_expect_eq(path_resolve_under(root, "alias/x", 1, out, sizeof(out),
					&err), 1);
	snprintf(want, sizeof(want), "%s/repo/in/x", real);
	cr_expect_str_eq(out, want);
	cr_expect_eq(path_resolve_under(root, "out/f", 1, out, sizeof(out),
					&err), 0);
	snprintf(want, sizeof(want), "%s/outside/f", real);
	cr_expect_str_eq(out, want);
	cr_expect_eq(path_resolve_under(root, "out/missing/x", 1, out,
					sizeof(out), &err), 0);
	/* The link itself is inside: unlink(2) removes only the link. */
	cr_expect_eq(path_resolve_under(root, "out", 0, out, sizeof(out),
					&err), 1);
	cr_expect_eq(path_resolve_under(root, "in/../../outside", 1, out,
					sizeof(out), &err), 0);
	cr_expect_eq(path_resolve_under(root, "in/nope/../../..", 1, out,
					sizeof(out), &err), 0, "%s", out);
	cr_expect_eq(path_resolve_under(root, ".", 1, out, sizeof(out),
					&err), 1);
	cr_expect_eq(path_resolve_under(root, "/etc", 1, out, sizeof(out),
					&err), 0);
	t_rmtree(base);
	free(base);
}

/*
 * rel (missing, so resolved by appending) padded with 100-byte components
 * to make ROOT/rel exactly `total` bytes long.
 */
static void
long_rel(const char *root, size_t total, char *rel, size_t n)
{
	size_t have = strlen(root) + 1, o = 0;

	cr_assert_lt(total, n + have);
	while (have + o < total) {
		size_t left = total - have - o, part = left > 101 ? 100 : left;

		if (part == left - 1)	/* leave no lone "/" at the end */
			part--;
		if (o)
			rel[o++] = '/', part--;
		memset(rel + o, 'd', part);
		o += part;
	}
	rel[o] = '\0';
	cr_assert_eq(strlen(root) + 1 + strlen(rel), total);
}

/*
 * A path of PATH_RESOLVED_MAX - 1 bytes fits: it resolves to itself, not
 * to its parent (fold dropped the last component of a 4,095-byte path, so
 * a write there went one folder up); one byte more is an error.
 */
Test(base_path, a_path_that_fits_resolves_whole_and_a_longer_one_fails)
{
	char *base = t_tmpdir(), root[PATH_MAX], rel[PATH_RESOLVED_MAX];
	char out[PATH_RESOLVED_MAX], want[2 * PATH_RESOLVED_MAX];
	struct error err;

	cr_assert_not_null(realpath(base, root));
	long_rel(root, PATH_RESOLVED_MAX - 1, rel, sizeof(rel));
	snprintf(want, sizeof(want), "%s/%s", root, rel);
	error_init(&err);
	cr_expect_eq(path_resolve_under(root, rel, 1, out, sizeof(out), &err),
		     1, "%s", err.msg);
	cr_expect_str_eq(out, want);
	cr_expect_eq(path_resolve_under(root, rel, 0, out, sizeof(out), &err),
		     1, "%s", err.msg);
	cr_expect_str_eq(out, want);
	long_rel(root, PATH_RESOLVED_MAX, rel, sizeof(rel));
	error_init(&err);
	cr_expect_eq(path_resolve_under(root, rel, 1, out, sizeof(out), &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "too long") != NULL, "%s", err.msg);
	t_rmtree(base);
	free(base);
}

Test(base_path, mkdirs_makes_nothing_outside)
{
	char *base = t_tmpdir(), root[PATH_MAX];
	struct error err;
	struct stat st;

	snprintf(root, sizeof(root), "%s/repo", base);
	sh(base, "mkdir -p repo outside && ln -s ../outside repo/.ripple && "
	   "ln -s /nonexistent/dir repo/dangle");
	error_init(&err);
	cr_expect_eq(path_mkdirs_under(root, "a/b/c", &err), 0, "%s",
		     err.msg);
	cr_expect_eq(path_mkdirs_under(root, "a/b/d", &err), 0, "%s",
		     err.msg);
	error_init(&err);
	cr_expect_eq(path_mkdirs_under(root, ".ripple/logs/r1", &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "outside") != NULL, "%s", err.msg);
	error_init(&err);
	cr_expect_neq(path_mkdirs_under(root, "dangle/x", &err), 0);
	error_init(&err);
	cr_expect_eq(path_mkdirs_under(root, "../x", &err), ERROR_INVALID);
	cr_expect_neq(stat("/nonexistent/dir", &st), 0);
	{
		char p[PATH_MAX + 32];

		snprintf(p, sizeof(p), "%s/outside/logs", base);
		cr_expect_neq(stat(p, &st), 0, "made a folder outside");
		snprintf(p, sizeof(p), "%s/repo/a/b/d", base);
		cr_expect_eq(stat(p, &st), 0);
	}
	t_rmtree(base);
	free(base);
}

Test(base_file, only_regular_files_are_opened_and_nothing_waits)
{
	char *dir = t_tmpdir(), p[PATH_MAX];
	struct error err;
	int fd;

	sh(dir, "mkfifo fifo && echo hi > file && mkdir folder");
	snprintf(p, sizeof(p), "%s/fifo", dir);
	error_init(&err);
	cr_expect_eq(file_open_regular(p, "fifo", &err), ERROR_INVALID);
	cr_expect_str_eq(err.msg, "'fifo' is not a regular file (a FIFO)");
	error_init(&err);
	cr_expect_eq(file_open_regular("/dev/zero", NULL, &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "a device") != NULL, "%s", err.msg);
	snprintf(p, sizeof(p), "%s/folder", dir);
	error_init(&err);
	cr_expect_eq(file_open_regular(p, "folder", &err), ERROR_INVALID);
	snprintf(p, sizeof(p), "%s/missing", dir);
	error_init(&err);
	cr_expect_eq(file_open_regular(p, "missing", &err), ERROR_NOT_FOUND);
	snprintf(p, sizeof(p), "%s/file", dir);
	error_init(&err);
	fd = file_open_regular(p, "file", &err);
	cr_assert_geq(fd, 0, "%s", err.msg);
	{
		char b[8];

		cr_expect_eq(read(fd, b, sizeof(b)), 3);
	}
	close(fd);
	t_rmtree(dir);
	free(dir);
}
