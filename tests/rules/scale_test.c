/*
 * Suite rules_scale: large rules keep their checks (issue 14, item 12).
 * Duplicate axis values, unknown experimental values and name lookups
 * used to compare every pair; they are sorted and indexed now, and these
 * tests pin down that what they report did not change. Timing lives in
 * bench/scale_bench.sh, never here.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "rules/rules.h"

static int
load(struct buf *b, struct rules **r, struct error_list *errs)
{
	error_list_init(errs, 0);
	*r = NULL;
	return rules_load_buffer("t.yml", b->data, b->len, r, errs);
}

Test(rules_scale, duplicate_values_are_found_among_many)
{
	struct buf b = BUF_INIT;
	struct error_list errs;
	struct rules *r;
	size_t i;

	buf_addstr(&b, "version: 1\naxes:\n  big:\n", NULL);
	for (i = 0; i < 5000; i++)	/* line 4 + i */
		buf_addf(&b, NULL, "    - v%zu\n", i);
	buf_addstr(&b, "    - v4999\n", NULL);	/* line 5004 */
	buf_addstr(&b, "    - v17\n", NULL);	/* line 5005 */
	buf_addstr(&b, "    - v17\n", NULL);	/* line 5006 */
	cr_assert_eq(load(&b, &r, &errs), ERROR_INVALID);
	cr_assert_null(r);
	/* Every later copy once, at its own position, in file order. */
	cr_assert_eq(errs.n, 3);
	cr_expect_eq(errs.items[0].line, 5004);
	cr_expect_eq(errs.items[0].col, 7);
	cr_expect_str_eq(errs.items[0].msg,
			 "duplicate value 'v4999' of axis 'big'");
	cr_expect_eq(errs.items[1].line, 5005);
	cr_expect_str_eq(errs.items[1].msg, "duplicate value 'v17' of axis 'big'");
	cr_expect_eq(errs.items[2].line, 5006);
	error_list_release(&errs);
	buf_release(&b);
}

Test(rules_scale, unknown_experimental_value_is_found_among_many)
{
	struct buf b = BUF_INIT;
	struct error_list errs;
	struct rules *r;
	size_t i;

	buf_addstr(&b, "version: 1\naxes:\n  big:\n    values:\n", NULL);
	for (i = 0; i < 5000; i++)
		buf_addf(&b, NULL, "      - v%zu\n", i);
	buf_addstr(&b, "    experimental:\n", NULL);
	for (i = 0; i < 5000; i += 2)
		buf_addf(&b, NULL, "      - v%zu\n", i);
	buf_addstr(&b, "      - v5000\n", NULL);
	cr_assert_eq(load(&b, &r, &errs), ERROR_INVALID);
	cr_assert_eq(errs.n, 1);
	cr_expect_str_eq(errs.items[0].msg, "unknown value 'v5000'");
	cr_expect_eq(errs.items[0].line, 5 + 5000 + 1 + 2500);
	error_list_release(&errs);
	buf_release(&b);

	buf_addstr(&b, "version: 1\naxes:\n  big:\n    values:\n", NULL);
	for (i = 0; i < 5000; i++)
		buf_addf(&b, NULL, "      - v%zu\n", i);
	buf_addstr(&b, "    experimental: [v4999, v0]\n", NULL);
	cr_assert_eq(load(&b, &r, &errs), 0);
	cr_expect_eq(r->axes[0].n_experimental, 2);
	rules_free(r);
	error_list_release(&errs);
	buf_release(&b);
}

/* n sources, artifacts each reading one and needing the next, tests
 * needing artifacts, a release publishing some. */
static void
many_rules(struct buf *b, size_t n, const char *extra_input)
{
	size_t i;

	buf_addstr(b, "version: 1\nsources:\n", NULL);
	for (i = 0; i < n; i++)
		buf_addf(b, NULL, "  s%zu: {paths: [p%zu/**]}\n", i, i);
	buf_addstr(b, "artifacts:\n", NULL);
	for (i = 0; i < n; i++)
		buf_addf(b, NULL, "  a%zu: {inputs: [s%zu%s%s], needs: [a%zu], "
			 "command: [x]}\n", i, i, extra_input && i == n / 2 ?
			 ", " : "", extra_input && i == n / 2 ? extra_input : "",
			 i + 1 < n ? i + 1 : 0);
	buf_addstr(b, "tests:\n", NULL);
	for (i = 0; i < n; i += 100)
		buf_addf(b, NULL, "  t%zu: {needs: [a%zu], command: [x]}\n", i, i);
	buf_addstr(b, "releases:\n  rel: {tag: 'v*', artifacts: [a0, a7]}\n",
		   NULL);
}

Test(rules_scale, names_are_found_among_many_rules)
{
	struct buf b = BUF_INIT;
	struct error_list errs;
	struct rules *r;

	/* The last artifact needs a0: a cycle, which the loader leaves to
	 * the graph. */
	many_rules(&b, 3000, NULL);
	cr_assert_eq(load(&b, &r, &errs), 0, "%s",
		     errs.n ? errs.items[0].msg : "");
	cr_expect_eq(r->n_sources, 3000);
	cr_expect_eq(rules_find_source(r, "s2999"), &r->sources[2999]);
	cr_expect_eq(rules_find_source(r, "s0"), &r->sources[0]);
	cr_expect_null(rules_find_source(r, "s3000"));
	cr_expect_null(rules_find_source(r, "a1"));
	cr_expect_eq(rules_find_artifact(r, "a1234"), &r->artifacts[1234]);
	cr_expect_eq(rules_find_artifact(r, "a1234")->deps[0].kind,
		     RULES_DEP_SOURCE);
	cr_expect_eq(rules_find_artifact(r, "a1234")->deps[1].kind,
		     RULES_DEP_ARTIFACT);
	cr_expect_eq(rules_find_test(r, "t2900"), &r->tests[29]);
	cr_expect_eq(rules_find_release(r, "rel"), &r->releases[0]);
	cr_expect_null(rules_find_toolkit(r, "x"));
	rules_free(r);
	error_list_release(&errs);
	buf_release(&b);

	/* An unknown name among thousands is still reported, with a hint. */
	many_rules(&b, 3000, "s29999");
	cr_assert_eq(load(&b, &r, &errs), ERROR_INVALID);
	cr_assert_eq(errs.n, 1);
	cr_expect_str_eq(errs.items[0].msg,
			 "unknown source or rule 's29999'");
	cr_expect_str_eq(errs.items[0].hint, "did you mean 's2999'?");
	error_list_release(&errs);
	buf_release(&b);
}

Test(rules_scale, lookups_scan_a_model_without_an_index)
{
	struct rules_source src[3];
	struct rules r;

	memset(&r, 0, sizeof(r));
	arena_init(&r.arena);
	memset(src, 0, sizeof(src));
	src[0].name = "b";
	src[1].name = NULL;	/* never loaded: skipped */
	src[2].name = "a";
	r.sources = src;
	r.n_sources = 3;
	cr_expect_eq(rules_find_source(&r, "a"), &src[2]);
	cr_expect_null(rules_find_source(&r, "c"));
	cr_expect_eq(rules_index_names(&r), 0);
	cr_expect_eq(rules_find_source(&r, "a"), &src[2]);
	cr_expect_eq(rules_find_source(&r, "b"), &src[0]);
	cr_expect_null(rules_find_source(&r, "c"));
	/* A section that grew since is scanned again. */
	r.n_sources = 2;
	cr_expect_null(rules_find_source(&r, "a"));
	cr_expect_eq(rules_find_source(&r, "b"), &src[0]);
	rules_index_release(&r);
	arena_release(&r.arena);
}

/* policy max-nodes bounds the matrix before expansion (item 11). */
Test(rules_scale, max_nodes_bounds_the_matrix_before_expansion)
{
	static const char base[] =
		"version: 1\n"
		"axes:\n"
		"  x: [%s]\n"
		"  y: [%s]\n"
		"artifacts:\n"
		"  a:\n"
		"    each: {x: axes.x, y: axes.y%s}\n"
		"    command: [c]\n"
		"%s";
	struct buf xs = BUF_INIT, ys = BUF_INIT, b = BUF_INIT;
	struct error_list errs;
	struct rules *r;
	size_t i;

	for (i = 0; i < 40; i++)
		buf_addf(&xs, NULL, "%sx%zu", i ? ", " : "", i);
	for (i = 0; i < 50; i++)
		buf_addf(&ys, NULL, "%sy%zu", i ? ", " : "", i);
	/* No policy: the default. */
	buf_addf(&b, NULL, base, xs.data, ys.data, "", "");
	cr_assert_eq(load(&b, &r, &errs), 0);
	cr_expect_eq(r->policy.max_nodes, 0);	/* not set */
	rules_free(r);
	error_list_release(&errs);
	/* Exactly at the limit. */
	buf_reset(&b);
	buf_addf(&b, NULL, base, xs.data, ys.data, "",
		 "policy: {max-nodes: 2000}\n");
	cr_assert_eq(load(&b, &r, &errs), 0);
	cr_expect_eq(r->policy.max_nodes, 2000);
	rules_free(r);
	error_list_release(&errs);
	/* One included combination past it. */
	buf_reset(&b);
	buf_addf(&b, NULL, base, xs.data, ys.data,
		 ", include: [{x: x0, y: y0}]", "policy: {max-nodes: 2000}\n");
	cr_assert_eq(load(&b, &r, &errs), ERROR_INVALID);
	cr_assert_eq(errs.n, 1);
	cr_expect_str_eq(errs.items[0].msg,
			 "artifact 'a' expands to 2001 nodes (x 40 x y 50 + 1 "
			 "included), more than max-nodes 2000");
	cr_expect_eq(errs.items[0].line, 6);
	cr_expect_eq(errs.items[0].col, 3);
	error_list_release(&errs);
	buf_release(&b);
	buf_release(&ys);
	buf_release(&xs);
}

/* Large YAML: duplicate keys, many anchors, big merges (item 12). */
Test(rules_scale, duplicate_keys_are_reported_among_many)
{
	struct buf b = BUF_INIT;
	struct error_list errs;
	struct rules *r;
	size_t i;

	buf_addstr(&b, "version: 1\nartifacts:\n  a:\n    command: [x]\n"
		   "    env:\n", NULL);
	for (i = 0; i < 3000; i++)	/* line 6 + i */
		buf_addf(&b, NULL, "      K%zu: v\n", i % 1000);
	error_list_init(&errs, 5000);
	r = NULL;
	cr_assert_eq(rules_load_buffer("t.yml", b.data, b.len, &r, &errs),
		     ERROR_INVALID);
	cr_assert_eq(errs.n, 2000);
	/* Sorted by position: K0 again at line 1006, first at line 6. */
	cr_expect_eq(errs.items[0].line, 1006);
	cr_expect_str_eq(errs.items[0].msg, "duplicate key 'K0' (first at line 6)");
	cr_expect_eq(errs.items[1999].line, 3005);
	cr_expect_str_eq(errs.items[1999].msg,
			 "duplicate key 'K999' (first at line 1005)");
	error_list_release(&errs);
	buf_release(&b);
}

Test(rules_scale, many_anchors_and_big_merges_resolve)
{
	struct buf b = BUF_INIT;
	struct error_list errs;
	struct rules *r;
	const struct rules_node *a;
	size_t i;

	/* 2000 anchored values, the last redefining the first's name; a
	 * map of 2000 env entries merged under 2000 explicit ones. */
	buf_addstr(&b, "version: 1\nartifacts:\n  z:\n    command:\n", NULL);
	for (i = 0; i < 2000; i++)
		buf_addf(&b, NULL, "      - &v%zu val%zu\n", i, i);
	buf_addstr(&b, "      - &v0 last\n    env: &env\n", NULL);
	for (i = 0; i < 2000; i++)
		buf_addf(&b, NULL, "      M%zu: *v%zu\n", i, i);
	buf_addstr(&b, "  a:\n    command: [x]\n    env:\n      <<: *env\n",
		   NULL);
	for (i = 1000; i < 3000; i++)
		buf_addf(&b, NULL, "      M%zu: explicit\n", i);
	cr_assert_eq(load(&b, &r, &errs), 0, "%s",
		     errs.n ? errs.items[0].msg : "");
	a = rules_find_artifact(r, "a");
	cr_assert_not_null(a);
	cr_assert_eq(a->n_env, 3000);
	/* Sorted by key: M0 (merged, the redefined anchor), ..., M1000
	 * (explicit wins over the merge). */
	cr_expect_str_eq(a->env[0].key, "M0");
	cr_expect_str_eq(a->env[0].value, "last");
	cr_expect_str_eq(a->env[1].key, "M1");
	cr_expect_str_eq(a->env[1].value, "val1");
	cr_expect_str_eq(a->env[2].key, "M10");
	for (i = 0; i < a->n_env; i++)
		if (!strcmp(a->env[i].key, "M1500"))
			cr_expect_str_eq(a->env[i].value, "explicit");
	rules_free(r);
	error_list_release(&errs);
	buf_release(&b);
}

/* The brute force that check_roots replaced: a is b or above it. */
static int
overlap(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (!strcmp(a, ".") || !strcmp(b, "."))
		return 1;
	if (la > lb)
		return overlap(b, a);
	return !strncmp(a, b, la) && (b[la] == '\0' || b[la] == '/');
}

static int
cmp_err(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Overlapping roots are found by sorting now: the same pairs, once each. */
Test(rules_scale, overlapping_roots_are_the_pairs_of_the_brute_force)
{
	static const char *const paths[] = {
		"a", "a/b", "a-b", "a.b", "a/b/c", "a/bc", "b", ".", "a/b-c",
		"ab", "a/b/c/d",
	};
	const char *pick[300];
	char **got, **want;
	size_t n = 300, i, j, n_want = 0;
	struct buf b = BUF_INIT;
	struct error_list errs;
	struct rules *r = NULL;
	unsigned seed = 7;

	buf_addstr(&b, "version: 1\nroots:\n", NULL);
	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		/* "." rarely: it overlaps everything */
		pick[i] = paths[(seed >> 16) % (i % 97 == 5 ? 11 : 10)];
		buf_addf(&b, NULL, "  r%zu: {path: '%s'}\n", i, pick[i]);
	}
	error_list_init(&errs, 100000);
	cr_assert_eq(rules_load_buffer("t.yml", b.data, b.len, &r, &errs),
		     ERROR_INVALID);
	want = calloc(n * n, sizeof(*want));
	got = calloc(errs.n + 1, sizeof(*got));
	cr_assert(want && got);
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (overlap(pick[j], pick[i])) {
				char msg[256];

				snprintf(msg, sizeof(msg), "%u: root 'r%zu' "
					 "overlaps root 'r%zu' (path '%s')",
					 (unsigned)(3 + i), i, j, pick[j]);
				want[n_want++] = strdup(msg);
			}
	for (i = 0; i < errs.n; i++) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "%u: %s", errs.items[i].line,
			 errs.items[i].msg);
		got[i] = strdup(msg);
	}
	cr_assert_gt(n_want, 1000);
	cr_assert_eq(errs.n, n_want, "%zu errors, want %zu", errs.n, n_want);
	qsort(want, n_want, sizeof(*want), cmp_err);
	qsort(got, errs.n, sizeof(*got), cmp_err);
	for (i = 0; i < n_want; i++) {
		cr_expect_str_eq(got[i], want[i]);
		free(got[i]);
		free(want[i]);
	}
	free(got);
	free(want);
	error_list_release(&errs);
	buf_release(&b);
}

/* Past the error list's limit unknown names are counted, not spelled. */
Test(rules_scale, unknown_names_past_the_limit_are_counted)
{
	struct buf b = BUF_INIT;
	struct error_list errs;
	struct rules *r = NULL;
	size_t i;

	buf_addstr(&b, "version: 1\nartifacts:\n", NULL);
	for (i = 0; i < 3000; i++)
		buf_addf(&b, NULL, "  a%zu: {inputs: [a%zux], command: [x]}\n",
			 i, i);
	error_list_init(&errs, 10);
	cr_assert_eq(rules_load_buffer("t.yml", b.data, b.len, &r, &errs),
		     ERROR_INVALID);
	cr_expect_eq(errs.n, 10);
	cr_expect_eq(errs.dropped, 2990);
	cr_expect_str_eq(errs.items[0].msg, "unknown source or rule 'a0x'");
	cr_expect_str_eq(errs.items[0].hint, "did you mean 'a0'?");
	error_list_release(&errs);
	buf_release(&b);
}
