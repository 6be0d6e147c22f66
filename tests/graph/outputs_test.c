/*
 * Suite graph_outputs: the output-glob dialect (matching), whether two
 * globs can name one file, and the check over a graph's nodes.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "graph/graph.h"
#include "graph/outputs.h"
#include "rules/rules.h"

Test(graph_outputs, matching_follows_the_documented_dialect)
{
	static const struct {
		const char *pattern, *path;
		int want;
	} rows[] = {
		{ "dist/*.whl", "dist/a.whl", 1 },
		{ "dist/*.whl", "dist/sub/a.whl", 0 },	/* '*' stays in one */
		{ "dist/**", "dist/sub/a.whl", 1 },
		{ "dist/**", "dist", 0 },
		{ "dist/**/*.whl", "dist/a/b/c.whl", 1 },
		{ "conda-bld/**/rmm-*.conda", "conda-bld/x/librmm-1.conda", 0 },
		{ "conda-bld/**/rmm-*.conda", "conda-bld/x/rmm-1.conda", 1 },
		{ "out/?.txt", "out/a.txt", 1 },
		{ "out/?.txt", "out//.txt", 0 },
		{ "out/[a-c].txt", "out/b.txt", 1 },
		{ "out/[!a-c].txt", "out/b.txt", 0 },
		{ "out/[!a-c].txt", "out/z.txt", 1 },
		{ "out/\\*.txt", "out/*.txt", 1 },
		{ "out/\\*.txt", "out/a.txt", 0 },
		{ "a**b", "a/x/b", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		cr_expect_eq(graph_glob_match(rows[i].pattern, rows[i].path),
			     rows[i].want, "'%s' ~ '%s'", rows[i].pattern,
			     rows[i].path);
}

Test(graph_outputs, overlap_is_decided_exactly)
{
	static const struct {
		const char *a, *b;
		int want;
	} rows[] = {
		{ "dist/*.whl", "dist/*.whl", 1 },
		{ "dist/*.whl", "dist/pkg-*.whl", 1 },
		{ "dist/*.whl", "dist/*.tar.gz", 0 },
		{ "dist/a-*.whl", "dist/b-*.whl", 0 },
		{ "out/3.12/*.whl", "out/3.13/*.whl", 0 },
		{ "dist/**", "dist/sub/x.whl", 1 },
		{ "dist/*", "dist/sub/x.whl", 0 },
		{ "conda-bld/**/rmm-*.conda", "conda-bld/**/librmm-*.conda", 0 },
		{ "out/[ab].txt", "out/[bc].txt", 1 },
		{ "out/[a].txt", "out/[b].txt", 0 },
		{ "**", "anything/at/all", 1 },
		{ "a*", "*b", 1 },
		{ "a*/x", "*b", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		cr_expect_eq(graph_glob_overlap(rows[i].a, rows[i].b),
			     rows[i].want, "'%s' & '%s'", rows[i].a, rows[i].b);
		cr_expect_eq(graph_glob_overlap(rows[i].b, rows[i].a),
			     rows[i].want, "'%s' & '%s'", rows[i].b, rows[i].a);
	}
}

Test(graph_outputs, matching_and_overlap_are_polynomial)
{
	char pat[200], path[4200];
	clock_t t0 = clock();
	size_t i;

	pat[0] = '\0';
	for (i = 0; i < 10; i++)
		strcat(pat, "**/a");
	strcat(pat, "/b");
	path[0] = '\0';
	for (i = 0; i < 1000; i++)
		strcat(path, "a/");
	strcat(path, "c");
	cr_expect_eq(graph_glob_match(pat, path), 0);
	cr_expect_eq(graph_glob_overlap(pat, path), 0);
	cr_expect_lt((double)(clock() - t0) / CLOCKS_PER_SEC, 1.0);
}

static struct graph *
build(const char *yml)
{
	struct error_list errors;
	struct rules *r = NULL;
	struct graph *g = NULL;
	struct error err;

	error_list_init(&errors, 10);
	error_init(&err);
	cr_assert_eq(rules_load_buffer("ripple.yml", yml, strlen(yml), &r,
				       &errors), 0);
	cr_assert_eq(graph_build(r, &g, &err), 0, "%s", err.msg);
	error_list_release(&errors);
	return g;
}

Test(graph_outputs, nodes_of_one_runner_with_overlapping_outputs_are_errors)
{
	struct graph *g = build(
		"version: 1\n"
		"axes:\n"
		"  platform: [linux-64, win-64]\n"
		"  py: [\"3.12\", \"3.13\"]\n"
		"artifacts:\n"
		"  w: {each: {platform: axes.platform, py: axes.py},\n"
		"      command: [\"true\"], outputs: [\"dist/${platform}/*.whl\"]}\n"
		"  apart: {each: {platform: axes.platform},\n"
		"      command: [\"true\"], outputs: [\"dist/${platform}/*.tgz\"]}\n"
		"  any: {command: [\"true\"], outputs: [\"dist/**\"]}\n");
	struct error_list errors;
	const struct rules *r = g->rules;

	error_list_init(&errors, 100);
	cr_expect_eq(graph_outputs_check(g, &errors), ERROR_INVALID);
	/* w: py 3.12 and 3.13 on each platform (2); `any` runs everywhere and
	 * meets each of the 4 w nodes and 2 apart nodes (6). */
	cr_expect_eq(errors.n, 8);
	cr_expect(strstr(errors.items[0].msg, "can match the same files") ||
		  strstr(errors.items[0].msg, "is also declared by"), "%s",
		  errors.items[0].msg);
	error_list_release(&errors);
	graph_free(g);
	rules_free((struct rules *)r);
}
