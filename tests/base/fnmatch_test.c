/*
 * Suite base_fnmatch: base/fnmatch.c against the C library's fnmatch(3)
 * with flags 0 (glibc on Linux), on a table of the cases rules write and
 * on every pattern and name of a seeded random family of both; Windows
 * has no fnmatch, so this is the Linux build's check that both platforms
 * answer as glibc does.
 */
#include <criterion/criterion.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/fnmatch.h"

static void
same(const char *p, const char *s)
{
	int want = fnmatch(p, s, 0) == 0;

	cr_expect_eq(fnmatch_match(p, s), want, "pattern '%s', string '%s': "
		     "fnmatch says %d", p, s, want);
}

Test(base_fnmatch, agrees_with_the_c_library_on_rules_cases)
{
	static const char *const cases[][2] = {
		{ "wheel-*", "wheel-linux-64-py3.12" },
		{ "wheel-*", "test-linux-64" },
		{ "*-win-64-*", "wheel-win-64-py3.12" },
		{ "*", "a/b/.c" },
		{ "a/*", "a/b/c" },
		{ "?", "/" },
		{ ".*", ".hidden" },
		{ "*.whl", "dist/x-1.0-py3-none-any.whl" },
		{ "CUDA_*", "CUDA_VISIBLE_DEVICES" },
		{ "refs/heads/release/*", "refs/heads/release/1.x" },
		{ "v[0-9]*", "v12.3" },
		{ "v[!0-9]*", "v12.3" },
		{ "v[^0-9]*", "vx" },
		{ "[]]", "]" },
		{ "[!]]", "a" },
		{ "[a-]", "-" },
		{ "[-a]", "-" },
		{ "[", "[" },
		{ "[abc", "[abc" },
		{ "a[", "a[" },
		{ "\\*", "*" },
		{ "\\*", "a" },
		{ "a\\", "a\\" },
		{ "a\\", "a" },
		{ "[\\]]", "]" },
		{ "[\\-a]", "-" },
		{ "[[:digit:]]x", "7x" },
		{ "[[:alpha:][:digit:]]", "_" },
		{ "[![:space:]]", " " },
		{ "[[:upper:]]*", "Linux" },
		{ "[[:nope:]]", "a" },
		{ "[[:alpha:]", "a" },
		{ "**/x", "a/b/x" },
		{ "*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" },
		{ "", "" },
		{ "", "a" },
		{ "*", "" },
		{ "\xc3\xa9*", "\xc3\xa9t\xc3\xa9" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		same(cases[i][0], cases[i][1]);
}

/* xorshift64: the same family on every run. */
static unsigned
next(uint64_t *x, unsigned n)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (unsigned)(*x % n);
}

Test(base_fnmatch, agrees_with_the_c_library_on_random_patterns)
{
	static const char pat_alpha[] = "ab/.-*?[]!^\\:=";
	static const char str_alpha[] = "ab/.-[]!^\\:";
	uint64_t x = 0x9e3779b97f4a7c15u;
	char p[12], s[10];
	int k, n, i, matched = 0;

	for (k = 0; k < 200000; k++) {
		n = (int)next(&x, sizeof(p));
		for (i = 0; i < n; i++)
			p[i] = pat_alpha[next(&x, sizeof(pat_alpha) - 1)];
		p[n] = 0;
		n = (int)next(&x, sizeof(s));
		for (i = 0; i < n; i++)
			s[i] = str_alpha[next(&x, sizeof(str_alpha) - 1)];
		s[n] = 0;
		if ((fnmatch(p, s, 0) == 0) != fnmatch_match(p, s)) {
			cr_expect_fail("pattern '%s', string '%s': fnmatch "
				       "says %d", p, s, fnmatch(p, s, 0) == 0);
			return;
		}
		matched += fnmatch_match(p, s);
	}
	/* The family is not all misses: matches were compared too. */
	cr_expect_gt(matched, 1000);
}
