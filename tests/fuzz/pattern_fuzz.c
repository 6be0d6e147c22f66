/*
 * libFuzzer target: path patterns. The input is lines: patterns and paths
 * at once (every line is tried as both). For each valid pattern and
 * well-formed path it checks, aborting on a violation:
 *   - the step count stays within 2 x (pattern + 4) x (path + 4) bytes
 *     (matching is polynomial: issue 14, item 9);
 *   - the answer equals the pre-issue-14 recursive matcher's (where that
 *     finishes within its budget), for all three queries;
 *   - the walk's pruning is sound: a matched path lies under the fixed
 *     prefix, every directory above it "may match below", and when a
 *     directory "matches all below", every path under it matches;
 *   - a compiled set answers as its patterns one by one.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "graph/pattern.h"
#include "tests/fuzz/pattern_ref.h"
#include "tests/fuzz/cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LINES 12
#define REF_BUDGET 100000

static void
expect(int ok)
{
	if (!ok)
		abort();
}

/* No leading, trailing or doubled '/', not empty: what callers pass. */
static int
path_ok(const char *s)
{
	size_t n = strlen(s);

	return n && s[0] != '/' && s[n - 1] != '/' && !strstr(s, "//");
}

static int
query(const char *pat, const char *path, enum pattern_query q)
{
	unsigned long steps = 0, bound;
	int m, ref;

	m = pattern_match_counted(pat, path, q, &steps);
	bound = 2 * (strlen(pat) + 4) * (strlen(path) + 4);
	expect(steps <= bound);
	ref = pattern_ref_match(pat, path, (int)q, REF_BUDGET);
	expect(ref < 0 || ref == m);
	return m;
}

static void
pruning(const char *pat, const char *path)
{
	struct buf pre = BUF_INIT, dir = BUF_INIT;
	const char *slash;
	size_t n;

	if (pattern_fixed_prefix(pat, &pre, NULL))
		goto done;
	n = pre.len;
	expect(!n || !strcmp(path, pre.data) ||
	       (!strncmp(path, pre.data, n) && path[n] == '/'));
	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		buf_reset(&dir);
		if (buf_add(&dir, path, (size_t)(slash - path), NULL))
			goto done;
		expect(query(pat, dir.data, PATTERN_QUERY_SOME_BELOW));
	}
done:
	buf_release(&dir);
	buf_release(&pre);
}

static void
sets(char **lines, size_t n)
{
	const char *inc[MAX_LINES], *exc[MAX_LINES];
	size_t ni = 0, ne = 0, i, j;
	struct pattern_set *s = NULL;

	for (i = 0; i < n; i++) {
		if (pattern_validate(lines[i], NULL))
			continue;
		if (i % 2)
			exc[ne++] = lines[i];
		else
			inc[ni++] = lines[i];
	}
	if (pattern_set_compile(inc, ni, exc, ne, &s, NULL))
		return;
	for (i = 0; i < n; i++) {
		int want[3][2] = { { 0, 0 }, { 0, 0 }, { 0, 0 } };
		const char *p = lines[i];
		int q;

		if (!path_ok(p))
			continue;
		for (q = 0; q < 3; q++) {
			for (j = 0; j < ni; j++)
				want[q][0] |= query(inc[j], p,
						    (enum pattern_query)q);
			for (j = 0; j < ne; j++)
				want[q][1] |= query(exc[j], p,
						    (enum pattern_query)q);
		}
		expect(pattern_set_match(s, p) == (want[0][0] && !want[0][1]));
		expect(pattern_set_may_match_dir(s, p) ==
		       (want[1][0] && !want[2][1]));
		expect(pattern_set_claims_all_below(s, p) ==
		       (want[2][0] && !want[1][1]));
	}
	pattern_set_free(s);
}

static void
run(char **lines, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		const char *pat = lines[i];

		if (pattern_validate(pat, NULL)) {
			expect(!pattern_match(pat, pat));
			continue;
		}
		for (j = 0; j < n; j++) {
			const char *path = lines[j];
			int m, all;

			if (!path_ok(path)) {
				pattern_match(pat, path);
				continue;
			}
			m = query(pat, path, PATTERN_QUERY_PATH);
			all = query(pat, path, PATTERN_QUERY_ALL_BELOW);
			query(pat, path, PATTERN_QUERY_SOME_BELOW);
			if (m)
				pruning(pat, path);
			if (all) {	/* then anything below matches */
				struct buf b = BUF_INIT;

				if (!buf_addf(&b, NULL, "%s/x/y", path))
					expect(query(pat, b.data,
						     PATTERN_QUERY_PATH));
				buf_release(&b);
			}
		}
	}
	sets(lines, n);
}

static int
fuzz_one(const uint8_t *data, size_t size)
{
	char *buf, *lines[MAX_LINES], *p, *nl;
	size_t n = 0;

	if (size > 2048)
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (p = buf; n < MAX_LINES; p = nl + 1) {
		lines[n++] = p;
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
	}
	run(lines, n);
	free(buf);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double start = fuzz_cpu_now();

	fuzz_one(data, size);
	fuzz_cpu_check(start);
	return 0;
}
