/* Suites for graph/pattern: the documented match table, validation, sets. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/strv.h"
#include "graph/pattern.h"

struct row {
	const char *pattern, *path;
	int match;
};

/* Keep in step with the table in docs/patterns.md. */
static const struct row rows[] = {
	/* literal names, anchored and unanchored */
	{ "README.md", "README.md", 1 },
	{ "README.md", "docs/README.md", 1 },
	{ "README.md", "README.mdx", 0 },
	{ "src/main.c", "src/main.c", 1 },
	{ "src/main.c", "lib/src/main.c", 0 },
	{ "src", "src/a/b.c", 1 },
	{ "src", "lib/src/x.c", 1 },
	{ "src", "srcs/x.c", 0 },
	{ "a/b", "a/b/c/d", 1 },
	{ "a/b", "x/a/b", 0 },
	/* star within one component */
	{ "*.c", "main.c", 1 },
	{ "*.c", "src/deep/main.c", 1 },
	{ "*.c", "main.h", 0 },
	{ "*.c", "main.c.orig", 0 },
	{ "src/*.c", "src/a.c", 1 },
	{ "src/*.c", "src/sub/a.c", 0 },
	{ "src/*", "src/a.c", 1 },
	{ "src/*", "src/sub/a.c", 1 },
	{ "*", "anything/at/all", 1 },
	{ "a*b", "ab", 1 },
	{ "a*b", "axxb", 1 },
	{ "a*b", "a/b", 0 },
	{ "*foo*", "xfooy/z", 1 },
	/* question mark */
	{ "?.c", "a.c", 1 },
	{ "?.c", "ab.c", 0 },
	{ "a?c", "a/c", 0 },
	{ "lib/??.h", "lib/ab.h", 1 },
	/* double star */
	{ "**", "x", 1 },
	{ "**", "x/y/z", 1 },
	{ "**/tests/**", "tests/a.py", 1 },
	{ "**/tests/**", "pkg/tests/a.py", 1 },
	{ "**/tests/**", "pkg/tests", 0 },
	{ "**/tests/**", "pkg/testsuite/a.py", 0 },
	{ "**/tests", "a/b/tests/c.py", 1 },
	{ "**/*.md", "a.md", 1 },
	{ "**/*.md", "a/b/c.md", 1 },
	{ "dir/**", "dir/a", 1 },
	{ "dir/**", "dir/a/b/c", 1 },
	{ "dir/**", "dir", 0 },
	{ "dir/**", "other/dir/a", 0 },
	{ "a/**/b", "a/b", 1 },
	{ "a/**/b", "a/x/b", 1 },
	{ "a/**/b", "a/x/y/b", 1 },
	{ "a/**/b", "a/x/y/c", 0 },
	{ "a/**/b/*.c", "a/q/b/m.c", 1 },
	{ "a**b", "axb", 1 },
	{ "a**b", "a/b", 0 },
	/* trailing slash: a directory and everything under it */
	{ "build/", "build/out.o", 1 },
	{ "build/", "sub/build/out.o", 1 },
	{ "build/", "build", 0 },
	{ "docs/api/", "docs/api/x.html", 1 },
	{ "docs/api/", "x/docs/api/y", 0 },
	/* character classes */
	{ "[abc].txt", "a.txt", 1 },
	{ "[abc].txt", "d.txt", 0 },
	{ "[a-z]x", "qx", 1 },
	{ "[a-z]x", "Qx", 0 },
	{ "[!a]x", "bx", 1 },
	{ "[!a]x", "ax", 0 },
	{ "[^a]x", "ax", 0 },
	{ "[]]x", "]x", 1 },
	{ "[a-]x", "-x", 1 },
	{ "v[0-9][0-9].c", "v12.c", 1 },
	{ "v[0-9][0-9].c", "v1a.c", 0 },
	/* escapes */
	{ "\\*.c", "*.c", 1 },
	{ "\\*.c", "a.c", 0 },
	{ "a\\?b", "a?b", 1 },
	{ "a\\?b", "axb", 0 },
	{ "\\[x]", "[x]", 1 },
	/* unusual names: bytes */
	{ "with space/*", "with space/f", 1 },
	{ "-lead", "-lead", 1 },
	{ "caf\xc3\xa9/*", "caf\xc3\xa9/x", 1 },
	{ "*.\xff", "bin/a.\xff", 1 },
	{ "quo\"te", "quo\"te", 1 },
	{ "new*line", "new\nline", 1 },
	/* case matters */
	{ "*.C", "a.c", 0 },
	/* a leading slash anchors a single name at the root (gitignore) */
	{ "/conftest.py", "conftest.py", 1 },
	{ "/conftest.py", "cuda_core/tests/conftest.py", 0 },
	{ "/ci/**", "ci/tools/x", 1 },
	{ "/ci/**", "a/ci/x", 0 },
	{ "/build/", "build/o", 1 },
	{ "/build/", "sub/build/o", 0 },
	{ "/*.lock", "pixi.lock", 1 },
	{ "/*.lock", "cuda_core/pixi.lock", 0 },
};

Test(graph_pattern, table_of_matches)
{
	size_t i;

	cr_assert_geq(sizeof(rows) / sizeof(rows[0]), 60);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		cr_expect_eq(pattern_match(rows[i].pattern, rows[i].path),
			     rows[i].match, "pattern '%s' path '%s': want %d",
			     rows[i].pattern, rows[i].path, rows[i].match);
}

static void
expect_invalid(const char *p, const char *words)
{
	struct error err;

	error_init(&err);
	cr_expect_eq(pattern_validate(p, &err), ERROR_INVALID, "'%s'", p);
	cr_expect(strstr(err.msg, words) != NULL, "'%s': %s", p, err.msg);
}

Test(graph_pattern, malformed_patterns_are_rejected)
{
	expect_invalid("", "empty");
	expect_invalid("/", "absolute");
	expect_invalid("//abs", "absolute");
	expect_invalid("/a/../b", "'..'");
	cr_expect_eq(pattern_validate("/abs", NULL), 0);
	expect_invalid("a/../b", "'..'");
	expect_invalid("..", "'..'");
	expect_invalid("./a", "'.'");
	expect_invalid("a//b", "empty component");
	expect_invalid("[abc", "unterminated");
	expect_invalid("a/[!x", "unterminated");
	expect_invalid("a\\", "trailing backslash");
	cr_expect_eq(pattern_validate("a/b/", NULL), 0);
	cr_expect_eq(pattern_validate("**/x/**", NULL), 0);
	cr_expect_eq(pattern_match("[abc", "[abc"), 0);
}

static struct pattern_set *
compile(const char *const *inc, size_t ni, const char *const *exc, size_t ne)
{
	struct pattern_set *s = NULL;
	struct error err;

	error_init(&err);
	cr_assert_eq(pattern_set_compile(inc, ni, exc, ne, &s, &err), 0, "%s",
		     err.msg);
	return s;
}

Test(graph_pattern, set_includes_minus_excludes)
{
	const char *inc[] = { "cuda_core/**" };
	const char *exc[] = { "**/tests/**", "**/docs/**", "**/*.md" };
	struct pattern_set *s = compile(inc, 1, exc, 3);

	cr_expect_eq(pattern_set_match(s, "cuda_core/src/a.c"), 1);
	cr_expect_eq(pattern_set_match(s, "cuda_core/tests/t.py"), 0);
	cr_expect_eq(pattern_set_match(s, "cuda_core/README.md"), 0);
	cr_expect_eq(pattern_set_match(s, "cuda_core/docs/x/y.rst"), 0);
	cr_expect_eq(pattern_set_match(s, "other/a.c"), 0);
	pattern_set_free(s);
}

Test(graph_pattern, may_match_dir_prunes_subtrees)
{
	const char *inc[] = { "pkg/src/**", "**/*.cfg" };
	const char *exc[] = { "pkg/src/gen/**", "vendor/" };
	struct pattern_set *s = compile(inc, 2, exc, 2);
	const char *inc2[] = { "pkg/src/**" };
	struct pattern_set *s2 = compile(inc2, 1, NULL, 0);

	cr_expect_eq(pattern_set_may_match_dir(s, ""), 1);
	cr_expect_eq(pattern_set_may_match_dir(s, "pkg"), 1);
	cr_expect_eq(pattern_set_may_match_dir(s, "pkg/src/deep"), 1);
	cr_expect_eq(pattern_set_may_match_dir(s, "pkg/src/gen"), 0);
	cr_expect_eq(pattern_set_may_match_dir(s, "pkg/src/gen/x"), 0);
	cr_expect_eq(pattern_set_may_match_dir(s, "vendor"), 0);
	cr_expect_eq(pattern_set_may_match_dir(s, "a/vendor/b"), 0);
	/* "**" + "*.cfg" may match anywhere else. */
	cr_expect_eq(pattern_set_may_match_dir(s, "other"), 1);
	cr_expect_eq(pattern_set_may_match_dir(s2, "other"), 0);
	cr_expect_eq(pattern_set_may_match_dir(s2, "pkg/doc"), 0);
	cr_expect_eq(pattern_set_may_match_dir(s2, "pkg"), 1);
	pattern_set_free(s2);
	pattern_set_free(s);
}

Test(graph_pattern, claims_all_below_only_when_nothing_is_excluded)
{
	const char *inc[] = { "pkg/**", "*.cfg" };
	const char *exc[] = { "pkg/**/tests/**", "**/*.md" };
	const char *inc2[] = { "pkg/**" };
	const char *exc2[] = { "pkg/gen/**" };
	struct pattern_set *s = compile(inc, 2, exc, 2);
	struct pattern_set *s2 = compile(inc2, 1, exc2, 1);

	/* An exclude could match below: files are matched one by one. */
	cr_expect_eq(pattern_set_claims_all_below(s, "pkg/src"), 0);
	cr_expect_eq(pattern_set_claims_all_below(s2, "pkg"), 0);
	cr_expect_eq(pattern_set_claims_all_below(s2, "pkg/gen"), 0);
	/* Nothing excluded below pkg/src: claimed whole. */
	cr_expect_eq(pattern_set_claims_all_below(s2, "pkg/src"), 1);
	cr_expect_eq(pattern_set_claims_all_below(s2, "pkg/src/deep"), 1);
	/* Outside the include, or an unanchored file pattern: no. */
	cr_expect_eq(pattern_set_claims_all_below(s2, "other"), 0);
	cr_expect_eq(pattern_set_claims_all_below(s, "etc"), 0);
	cr_expect_eq(pattern_set_claims_all_below(s2, ""), 0);
	pattern_set_free(s2);
	pattern_set_free(s);
}

Test(graph_pattern, fixed_prefixes_and_digest)
{
	const char *inc[] = { "b/c/*.py", "a/**", "**/x", "a/b/**", "lit" };
	const char *inc2[] = { "b/c/*.py", "a/**", "**/x", "a/b/**", "lat" };
	struct pattern_set *s = compile(inc, 5, NULL, 0);
	struct pattern_set *s2 = compile(inc2, 5, NULL, 0);
	struct strv v = STRV_INIT;
	struct buf b = BUF_INIT;

	cr_assert_eq(pattern_set_prefixes(s, &v, NULL), 0);
	cr_assert_eq(v.n, 4);
	cr_expect_str_eq(v.v[0], "");
	cr_expect_str_eq(v.v[1], "a");
	cr_expect_str_eq(v.v[2], "a/b");
	cr_expect_str_eq(v.v[3], "b/c");
	cr_expect_eq(pattern_fixed_prefix("x/y\\*/z", &b, NULL), 0);
	cr_expect_str_eq(b.data, "x");
	b.len = 0;
	b.data[0] = '\0';
	cr_expect_eq(pattern_fixed_prefix("/ci/tools/*.py", &b, NULL), 0);
	cr_expect_str_eq(b.data, "ci/tools");
	b.len = 0;
	b.data[0] = '\0';
	cr_expect_eq(pattern_fixed_prefix("/pixi.lock", &b, NULL), 0);
	cr_expect_str_eq(b.data, "");
	{
		/* pattern, prefix: the pattern's own run of plain
		 * components (appended after what b holds) */
		static const char *const cases[][2] = {
			{ "packages/pkg-0037/src/**", "packages/pkg-0037/src" },
			{ "packages/pkg-0037/package.json",
			  "packages/pkg-0037" },
			{ "a//b/*.c", "a//b" },
			{ "a/b/", "a/b" },
			{ "//a/b", "/a" },
			{ "a/b?/c", "a" },
			{ "[ab]/c", "" },
			{ "*.c", "" },
			{ "a/", "" },
			{ "/x", "" },
			{ "/", "" },
			{ "\\a/b", "" },
			{ "a/\\b/c", "a" },
			{ "/a/b/", "a/b" },
			{ "a/b/**/c", "a/b" },
			{ "x//", "x/" },
			{ "//", "" },
			{ "/a//b/c*", "a//b" },
			{ "ab/cd\\/ef/g", "ab" },
			{ "a/b/c/d/e.txt", "a/b/c/d" },
			{ "", "" },
		};
		size_t i;

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			buf_reset(&b);
			cr_assert_eq(buf_addstr(&b, "x:", NULL), 0);
			cr_expect_eq(pattern_fixed_prefix(cases[i][0], &b, NULL),
				     0);
			cr_expect_str_eq(b.data + 2, cases[i][1], "%s",
					 cases[i][0]);
		}
	}
	cr_expect_neq(memcmp(pattern_set_digest(s), pattern_set_digest(s2), 16),
		      0);
	buf_release(&b);
	strv_release(&v);
	pattern_set_free(s2);
	pattern_set_free(s);
}

/* pattern_fixed_prefix as a walk over components (the code before it
 * scanned for the first wildcard): the reference the scan is held to. */
static void
walked_prefix(const char *pattern, struct buf *out)
{
	const char *p = pattern, *pe, *q, *start, *end = NULL;
	size_t len = strlen(pattern);
	int meta;

	if (!len || !memchr(pattern, '/', pattern[len - 1] == '/' ? len - 1
								 : len))
		return;
	if (*p == '/')
		p++;
	start = p;
	for (;;) {
		pe = strchr(p, '/');
		if (!pe)
			pe = p + strlen(p);
		for (meta = 0, q = p; q < pe; q++)
			meta |= *q == '*' || *q == '?' || *q == '[' ||
				*q == '\\';
		if (!*pe || meta)
			break;
		end = pe;
		p = pe + 1;
		if (!*p)
			break;
	}
	if (end)
		cr_assert_eq(buf_add(out, start, (size_t)(end - start), NULL),
			     0);
}

/*
 * The next number of a 64-bit linear congruential sequence, its high bits:
 * the same on every system (unsigned long is 32 bits on Windows).
 */
static uint64_t
lcg_next(uint64_t *seed)
{
	*seed = *seed * UINT64_C(6364136223846793005) +
		UINT64_C(1442695040888963407);
	return *seed >> 33;
}

/*
 * The fixed prefix, found by scanning for the first wildcard or escape,
 * is the one a walk over the components finds: 20,000 patterns over
 * 'a', '/', '*', '?', '[' and '\\', valid or not.
 */
Test(graph_pattern, fixed_prefix_is_the_component_walks)
{
	static const char alphabet[] = "aa//*?[\\";
	uint64_t seed = 12345;
	struct buf want = BUF_INIT, got = BUF_INIT;
	char pat[16];
	int i, k, n;

	for (i = 0; i < 20000; i++) {
		n = (int)(lcg_next(&seed) % 13);
		for (k = 0; k < n; k++)
			pat[k] = alphabet[lcg_next(&seed) %
					  (sizeof(alphabet) - 1)];
		pat[n] = '\0';
		buf_reset(&want);
		buf_reset(&got);
		walked_prefix(pat, &want);
		cr_assert_eq(pattern_fixed_prefix(pat, &got, NULL), 0);
		cr_assert_str_eq(got.data, want.data, "pattern '%s'", pat);
	}
	buf_release(&want);
	buf_release(&got);
}

/* The end of class [p.. (p at '['), before end, or NULL (pattern.c's). */
static const char *
ref_class_end(const char *p, const char *end)
{
	p++;
	if (p < end && (*p == '!' || *p == '^'))
		p++;
	if (p < end && *p == ']')
		p++;
	while (p < end && *p != ']') {
		if (*p == '\\' && p + 1 < end)
			p++;
		p++;
	}
	return p < end ? p : NULL;
}

/* pattern_validate as a walk over every component (before it took
 * plain patterns by a few scans): the reference it is held to. */
static int
walked_validate(const char *pattern, struct error *err)
{
	const char *p = pattern, *pe, *q, *e;

	if (!*pattern)
		return error_set(err, ERROR_INVALID, "empty path pattern");
	if (pattern[0] == '/') {
		if (!pattern[1] || pattern[1] == '/')
			return error_set(err, ERROR_INVALID,
					 "absolute path pattern '%s'", pattern);
		p++;
	}
	for (;;) {
		pe = strchr(p, '/');
		if (!pe)
			pe = p + strlen(p);
		if (pe == p && *pe)
			return error_set(err, ERROR_INVALID,
					 "empty component in path pattern '%s'",
					 pattern);
		if ((pe - p == 1 && p[0] == '.') ||
		    (pe - p == 2 && p[0] == '.' && p[1] == '.'))
			return error_set(err, ERROR_INVALID,
					 "'%.*s' component in path pattern '%s'",
					 (int)(pe - p), p, pattern);
		for (q = p; q < pe; q++) {
			if (*q == '\\') {
				if (q + 1 >= pe)
					return error_set(err, ERROR_INVALID,
						"trailing backslash in path pattern '%s'",
						pattern);
				q++;
			} else if (*q == '[') {
				e = ref_class_end(q, pe);
				if (!e)
					return error_set(err, ERROR_INVALID,
						"unterminated character class in path pattern '%s'",
						pattern);
				q = e;
			}
		}
		if (!*pe)
			break;
		p = pe + 1;
		if (!*p)
			break;
	}
	return 0;
}

/*
 * pattern_validate says what a walk over every component says (the
 * code, the message): 50,000 patterns over 'a', '/', '.', '*', '[',
 * ']' and '\\', most of them invalid, and the bench's.
 */
Test(graph_pattern, validate_is_the_component_walks)
{
	static const char alphabet[] = "aaa//..*[]\\";
	static const char *const fixed[] = {
		"packages/pkg-0037/src/**", "packages/pkg-0037/package.json",
		"a/...", ".a/b..", "a/./b", "a/../b", "a/..", "./a", "a//",
		"/a", "/", "//a", "a/", ".ripple/**",
	};
	uint64_t seed = 4242;
	char pat[16];
	int i, k, n;

	for (i = 0; i < 50000 + (int)(sizeof(fixed) / sizeof(fixed[0]));
	     i++) {
		const char *pt = pat;
		struct error a, b;
		int ra, rb;

		if (i < 50000) {
			n = (int)(lcg_next(&seed) % 12);
			for (k = 0; k < n; k++)
				pat[k] = alphabet[lcg_next(&seed) %
						  (sizeof(alphabet) - 1)];
			pat[n] = '\0';
		} else {
			pt = fixed[i - 50000];
		}
		error_init(&a);
		error_init(&b);
		ra = pattern_validate(pt, &a);
		rb = walked_validate(pt, &b);
		cr_assert_eq(ra, rb, "pattern '%s'", pt);
		cr_assert_str_eq(a.msg, b.msg, "pattern '%s'", pt);
	}
}

Test(graph_pattern, set_compile_reports_bad_pattern)
{
	const char *inc[] = { "ok/**", "bad/[x" };
	struct pattern_set *s = NULL;
	struct error err;

	error_init(&err);
	cr_expect_eq(pattern_set_compile(inc, 2, NULL, 0, &s, &err),
		     ERROR_INVALID);
	cr_expect_null(s);
	cr_expect(strstr(err.msg, "bad/[x") != NULL, "%s", err.msg);
}

/* "a/a/.../a" with n components, then `tail` ("" for none). */
static char *
deep_path(size_t n, const char *tail)
{
	size_t i, len = 2 * n + strlen(tail) + 1;
	char *s = calloc(1, len), *p = s;

	cr_assert_not_null(s);
	for (i = 0; i < n; i++) {
		*p++ = 'a';
		*p++ = '/';
	}
	if (*tail)
		memcpy(p, tail, strlen(tail) + 1);
	else if (n)
		p[-1] = '\0';
	return s;
}

/* Matching must stay within a small multiple of path x pattern length. */
static void
expect_bounded(const char *pattern, const char *path,
	       enum pattern_query q, int want)
{
	unsigned long steps = 0, bound;

	bound = 2 * (strlen(pattern) + 4) * (strlen(path) + 4);
	cr_expect_eq(pattern_match_counted(pattern, path, q, &steps), want,
		     "'%s' query %d on '%s'", pattern, (int)q, path);
	cr_expect_leq(steps, bound, "'%s' query %d: %lu steps, bound %lu",
		      pattern, (int)q, steps, bound);
}

/* Ten "**" and a pattern that fails only at its last component: the old
 * recursive matcher tried every way to place the nine "a" (C(40,9) > 10^8
 * for a 40-deep path; issue 14, item 9). */
static const char ten_dstars[] =
	"**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/b";
/* The attacker's pattern (cases/failures/patho.yml): twelve "**". */
static const char patho[] =
	"**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a";

Test(graph_pattern, many_double_stars_match_in_polynomial_steps)
{
	char *p20 = deep_path(20, ""), *p40 = deep_path(40, "");
	char *p40c = deep_path(40, "c"), *p11 = deep_path(11, "c/d");

	expect_bounded(ten_dstars, p20, PATTERN_QUERY_PATH, 0);
	expect_bounded(ten_dstars, p40, PATTERN_QUERY_PATH, 0);
	expect_bounded(ten_dstars, p40c, PATTERN_QUERY_PATH, 0);
	expect_bounded(ten_dstars, p40, PATTERN_QUERY_ALL_BELOW, 0);
	expect_bounded(ten_dstars, p40, PATTERN_QUERY_SOME_BELOW, 1);
	expect_bounded(patho, p40, PATTERN_QUERY_PATH, 1);
	expect_bounded(patho, p40c, PATTERN_QUERY_PATH, 1);
	expect_bounded(patho, p11, PATTERN_QUERY_PATH, 0);
	expect_bounded(patho, p40, PATTERN_QUERY_ALL_BELOW, 1);
	expect_bounded(patho, p11, PATTERN_QUERY_ALL_BELOW, 0);
	free(p11);
	free(p40c);
	free(p40);
	free(p20);
}

Test(graph_pattern, many_stars_in_one_component_match_in_polynomial_steps)
{
	char name[1001];

	memset(name, 'a', 1000);
	name[1000] = '\0';
	expect_bounded("*a*a*a*a*a*a*a*a*a*a*b", name, PATTERN_QUERY_PATH, 0);
	name[999] = 'b';
	expect_bounded("*a*a*a*a*a*a*a*a*a*a*b", name, PATTERN_QUERY_PATH, 1);
	expect_bounded("x/**/*a*a*a*b/**/c", "x/y/aaab/z/c", PATTERN_QUERY_PATH,
		       1);
}

/*
 * A set indexes patterns by a literal first component (issue 14, item 12):
 * with many patterns it must answer exactly as its patterns one by one.
 */
Test(graph_pattern, big_set_answers_as_its_patterns_one_by_one)
{
	static const char *const extra_inc[] = {
		"*.cfg", "**/gen/**", "p7/**", "p7", "p1?/x", "p2*/**",
		"\\p3/a", "/conftest.py", "p5/", "[p]9/z",
	};
	static const char *const exc[] = {
		"p7/skip/**", "**/*.md", "p1/**/t", "p4",
	};
	static const char *const paths[] = {
		"p7", "p7/a", "p7/skip/x", "p7/skip", "p1/x", "p12/x",
		"p1/q/t", "p1/q/t/u", "p2/a/b", "p20/a", "p3/a", "p4/a",
		"p5/a/b", "p5", "p9/z", "q/gen/x", "a.cfg", "p8/a.md",
		"conftest.py", "x/conftest.py", "p999/y", "p1000/y", "",
	};
	const char *inc[1000 + 10];
	char names[1000][16];
	struct pattern_set *s;
	size_t i, j, n = 0;
	unsigned long steps = 0;

	for (i = 0; i < 1000; i++) {
		snprintf(names[i], sizeof(names[i]), "p%zu/y", i);
		inc[n++] = names[i];
	}
	for (i = 0; i < sizeof(extra_inc) / sizeof(extra_inc[0]); i++)
		inc[n++] = extra_inc[i];
	s = compile(inc, n, exc, sizeof(exc) / sizeof(exc[0]));
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const char *p = paths[i];
		int want_inc[3] = { 0, 0, 0 }, want_exc[3] = { 0, 0, 0 };
		int q;

		for (q = 0; q < 3; q++) {
			for (j = 0; j < n; j++)
				want_inc[q] |= pattern_match_counted(inc[j], p,
					(enum pattern_query)q, &steps);
			for (j = 0; j < sizeof(exc) / sizeof(exc[0]); j++)
				want_exc[q] |= pattern_match_counted(exc[j], p,
					(enum pattern_query)q, &steps);
		}
		cr_expect_eq(pattern_set_match(s, p),
			     want_inc[PATTERN_QUERY_PATH] &&
			     !want_exc[PATTERN_QUERY_PATH], "match '%s'", p);
		if (!p[0])
			continue;	/* the root: answered without patterns */
		cr_expect_eq(pattern_set_may_match_dir(s, p),
			     want_inc[PATTERN_QUERY_SOME_BELOW] &&
			     !want_exc[PATTERN_QUERY_ALL_BELOW], "may '%s'", p);
		cr_expect_eq(pattern_set_claims_all_below(s, p),
			     want_inc[PATTERN_QUERY_ALL_BELOW] &&
			     !want_exc[PATTERN_QUERY_SOME_BELOW], "all '%s'", p);
	}
	cr_expect_eq(pattern_set_match(s, "p999/y"), 1);
	cr_expect_eq(pattern_set_match(s, "p1000/y"), 0);
	cr_expect_eq(pattern_set_match(s, "p7/skip/x"), 0);
	pattern_set_free(s);
}

/*
 * Issue 25: ripple's own paths and declared outputs, given as output globs,
 * are left out of a set that would claim them (a root at '.'), and the
 * walk's shortcuts stay sound: no claims_all_below over a folder a glob can
 * reach, a folder a glob covers whole is pruned.
 */
Test(graph_pattern, output_globs_are_excluded)
{
	const char *inc[] = { "/**" };
	const char *globs[] = { ".ripple/**", "dist/*/pkg-*.whl",
				"ripple\\*.yml" };
	struct pattern_set *set = NULL;
	unsigned char before[16];
	struct error err;

	error_init(&err);
	cr_assert_eq(pattern_set_compile(inc, 1, NULL, 0, &set, &err), 0);
	memcpy(before, pattern_set_digest(set), 16);
	cr_expect(pattern_set_claims_all_below(set, "dist"));
	cr_assert_eq(pattern_set_exclude_globs(set, globs, 3, &err), 0);
	cr_expect(memcmp(before, pattern_set_digest(set), 16) != 0);
	cr_expect(!pattern_set_match(set, ".ripple/cache.db"));
	cr_expect(!pattern_set_match(set, ".ripple/logs/r1/x.log"));
	cr_expect(!pattern_set_match(set, "dist/linux/pkg-1.0.whl"));
	cr_expect(pattern_set_match(set, "dist/linux/other-1.0.whl"));
	cr_expect(pattern_set_match(set, "dist/pkg-1.0.whl"));
	cr_expect(!pattern_set_match(set, "ripple*.yml"));
	cr_expect(pattern_set_match(set, "ripple.yml"));
	cr_expect(pattern_set_match(set, "src/a.py"));
	cr_expect(!pattern_set_may_match_dir(set, ".ripple"));
	cr_expect(!pattern_set_may_match_dir(set, ".ripple/logs"));
	cr_expect(pattern_set_may_match_dir(set, ".rippled"));
	cr_expect(pattern_set_may_match_dir(set, "dist"));
	cr_expect(!pattern_set_claims_all_below(set, "dist"));
	cr_expect(!pattern_set_claims_all_below(set, "dist/linux"));
	cr_expect(pattern_set_claims_all_below(set, "src"));
	cr_expect(pattern_set_claims_all_below(set, ".rippled"));
	pattern_set_free(set);
}

/*
 * A memo id is taken from pattern_set_memo_parts without compiling the
 * set (engine/plan/eval.c): its digest and prefixes must be the compiled
 * set's after the same excludes, globs and absent path, or every memo
 * entry stored before misses (or, worse, two sets share an id).
 */
Test(graph_pattern, memo_parts_are_the_compiled_sets)
{
	static const char *const inc[] = { "b/c/*.py", "a/**", "**/x",
					   "a/b/**", "lit", "a/**" };
	static const char *const exc[] = { "**/*.md", "a/b/tests/**" };
	static const char *const globs[] = { ".ripple/**", "dist/*.whl" };
	static const struct {
		size_t n_inc, n_exc, n_globs;
		const char *absent;
	} cases[] = {
		{ 1, 0, 0, NULL }, { 6, 0, 0, NULL }, { 6, 2, 0, NULL },
		{ 2, 1, 1, NULL }, { 6, 2, 2, NULL }, { 3, 0, 0, "ripple.yml" },
		{ 6, 2, 2, "sub/ripple.yml" }, { 0, 0, 0, NULL },
	};
	size_t i, k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pattern_set *s = NULL;
		struct strv want = STRV_INIT, got = STRV_INIT, in_arena;
		struct arena a;
		unsigned char d[16];
		struct error err;

		error_init(&err);
		cr_assert_eq(pattern_set_compile(inc, cases[i].n_inc, exc,
						 cases[i].n_exc, &s, &err), 0);
		cr_assert_eq(pattern_set_exclude_globs(s, globs,
						       cases[i].n_globs, &err),
			     0);
		if (cases[i].absent)
			cr_assert_eq(pattern_set_exclude_absent(
					     s, cases[i].absent, &err), 0);
		cr_assert_eq(pattern_set_prefixes(s, &want, &err), 0);
		cr_assert_eq(pattern_set_memo_parts(
				     inc, cases[i].n_inc, exc, cases[i].n_exc,
				     globs, cases[i].n_globs, cases[i].absent,
				     d, NULL, &got, &err), 0, "%s", err.msg);
		cr_expect_eq(memcmp(d, pattern_set_digest(s), 16), 0,
			     "case %zu: digest differs", i);
		cr_expect_eq(got.n, want.n, "case %zu", i);
		for (k = 0; k < got.n && k < want.n; k++)
			cr_expect_str_eq(got.v[k], want.v[k], "case %zu", i);
		/* The same prefixes with their texts in an arena. */
		arena_init(&a);
		strv_init(&in_arena, 0);
		memset(d, 0, sizeof(d));
		cr_assert_eq(pattern_set_memo_parts(
				     inc, cases[i].n_inc, exc, cases[i].n_exc,
				     globs, cases[i].n_globs, cases[i].absent,
				     d, &a, &in_arena, &err), 0, "%s", err.msg);
		cr_expect_eq(memcmp(d, pattern_set_digest(s), 16), 0,
			     "case %zu: digest differs", i);
		cr_expect_eq(in_arena.n, want.n, "case %zu", i);
		for (k = 0; k < in_arena.n && k < want.n; k++)
			cr_expect_str_eq(in_arena.v[k], want.v[k], "case %zu",
					 i);
		strv_release(&in_arena);
		arena_release(&a);
		strv_release(&got);
		strv_release(&want);
		pattern_set_free(s);
	}
}

Test(graph_pattern, memo_parts_report_bad_patterns_as_compile_does)
{
	const char *inc[] = { "ok/**", "bad/[x" };
	const char *exc[] = { "a//b" };
	unsigned char d[16];
	struct strv v = STRV_INIT;
	struct error err;

	error_init(&err);
	cr_expect_eq(pattern_set_memo_parts(inc, 2, NULL, 0, NULL, 0, NULL, d,
					    NULL, &v, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "bad/[x") != NULL, "%s", err.msg);
	error_init(&err);
	cr_expect_eq(pattern_set_memo_parts(inc, 1, exc, 1, NULL, 0, NULL, d,
					    NULL, &v, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "a//b") != NULL, "%s", err.msg);
	strv_release(&v);
}

/*
 * A failed allocation while a prefix is appended to an empty buffer
 * (BUF_INIT: its data is a read-only "") is ERROR_NOMEM and the buffer is
 * as it was: the error path wrote the terminator into that "" (a crash,
 * found by engine_plan_eval_pool's allocation sweep), as
 * pattern_set_prefixes called it for every set of a plan.
 */
Test(graph_pattern, fixed_prefix_out_of_memory_leaves_the_buffer)
{
	struct buf b = BUF_INIT, c;
	struct error err;
	long n;
	int rc, fired;

	for (n = 0; n < 16; n++) {
		error_init(&err);
		mem_fault_after(n);
		rc = pattern_fixed_prefix("pkg/src/**", &b, &err);
		fired = mem_fault_fired();
		mem_fault_after(-1);
		if (!fired) {
			cr_expect_eq(rc, 0);
			cr_expect_str_eq(b.data, "pkg/src");
			break;
		}
		cr_expect_eq(rc, ERROR_NOMEM, "allocation %ld", n);
		cr_expect_eq(b.len, 0);
		cr_expect_str_eq(b.data, "");
	}
	cr_expect_gt(n, 0, "no allocation to fail");
	buf_release(&b);
	/* With text already there, the text stays. */
	buf_init(&c, 0);
	cr_assert_eq(buf_addstr(&c, "x", NULL), 0);
	error_init(&err);
	mem_fault_after(0);
	(void)pattern_fixed_prefix("a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/"
				   "v/w/x/y/z/aa/bb/cc/dd/ee/ff/**", &c, &err);
	mem_fault_after(-1);
	cr_expect_str_eq(c.data, "x");
	buf_release(&c);
}

/*
 * Pattern digests (memo ids are made of them) pinned to main's at
 * 4bff975: short sets hashed in one shot, a long one (over 256 bytes)
 * streamed, with globs and an absent path; the same bytes either way.
 */
Test(graph_pattern, digests_are_pinned)
{
	static const char *const inc[] = {
		"b/c/*.py", "a/**", "packages/some-long-package-name-00/src/**",
		"packages/some-long-package-name-01/src/**",
		"packages/some-long-package-name-02/src/**",
		"packages/some-long-package-name-03/src/**",
		"packages/some-long-package-name-04/src/**",
		"packages/some-long-package-name-05/src/**",
	};
	static const char *const exc[] = { "**/*.md" };
	static const char *const globs[] = { ".ripple/**", "dist/*.whl" };
	static const struct {
		size_t n_inc, n_exc, n_globs;
		const char *absent, *hex;
	} cases[] = {
		{ 1, 0, 0, NULL, "ec9a1758a517d2d2247d2ea9504352ae" },
		{ 2, 1, 2, "ripple.yml", "28afc94d82bfc4526d461209e67b1cb8" },
		{ 8, 1, 2, "sub/ripple.yml",
		  "c15c1a98e6785f3cbaa91a5374e7ba1f" },
	};
	size_t i, k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strv got = STRV_INIT;
		unsigned char d[16];
		char hex[33];
		struct error err;

		error_init(&err);
		cr_assert_eq(pattern_set_memo_parts(
				     inc, cases[i].n_inc, exc, cases[i].n_exc,
				     globs, cases[i].n_globs, cases[i].absent,
				     d, NULL, &got, &err), 0, "%s", err.msg);
		for (k = 0; k < 16; k++)
			snprintf(hex + 2 * k, 3, "%02x", d[k]);
		cr_expect_str_eq(hex, cases[i].hex, "case %zu: %s", i, hex);
		strv_release(&got);
	}
}
