/*
 * Suite engine_plan_eval_claim: eval_path_claimed looks a changed path up
 * among the inputs indexed by their patterns' fixed prefixes
 * (engine/plan/eval_claim.c). Its answer must be the full scan's: some
 * input of some node whose compiled set matches the path (anchored,
 * unanchored, wildcard folders, classes, excludes, "**" in the middle, a
 * folder pattern), or the folder of a root whose root.sources a node
 * uses, or policy.ignore.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "engine/plan/eval.h"
#include "engine/plan/eval_int.h"
#include "graph/graph.h"
#include "graph/pattern.h"
#include "graph/repo.h"
#include "rules/rules.h"
#include "tests/support/support.h"

#define RULES \
	"version: 1\n" \
	"policy:\n" \
	"  ignore: [\"*.log\"]\n" \
	"sources:\n" \
	"  a: {paths: [src/**], exclude: [src/gen/**]}\n" \
	"  b: {paths: [\"*.md\"]}\n" \
	"  c: {paths: [/top.txt]}\n" \
	"  d: {paths: [\"docs/a*/x.txt\"]}\n" \
	"  e: {paths: [\"lib/[ab]/**\"]}\n" \
	"  f: {paths: [pkg/sub/file.c, pkg/other/**], " \
	"exclude: [pkg/other/skip/**]}\n" \
	"  g: {paths: [deep/**/leaf.c]}\n" \
	"  h: {paths: [x/y/]}\n" \
	"roots:\n" \
	"  r: {path: tools/r, tags: \"r-v*\"}\n" \
	"artifacts:\n" \
	"  a1: {inputs: [a], command: [make]}\n" \
	"  b1: {inputs: [b], command: [make]}\n" \
	"  c1: {inputs: [c], command: [make]}\n" \
	"  d1: {inputs: [d], command: [make]}\n" \
	"  e1: {inputs: [e], command: [make]}\n" \
	"  f1: {inputs: [f, a], command: [make]}\n" \
	"  g1: {inputs: [g], command: [make]}\n" \
	"  h1: {inputs: [h], command: [make]}\n" \
	"  w:\n" \
	"    each: {root: [r]}\n" \
	"    inputs: [root.sources]\n" \
	"    command: [make]\n"

/* The full scan: every input compiled and matched, as before the index. */
static int
oracle(struct eval *ev, const char *path)
{
	const struct pattern_set *set;
	struct error err;
	size_t i, k;

	for (i = 0; i < ev->rules->policy.n_ignore; i++)
		if (pattern_match(ev->rules->policy.ignore[i], path))
			return 1;
	for (i = 0; i < ev->graph->n_nodes; i++) {
		const struct graph_node *n = &ev->graph->nodes[i];

		for (k = 0; k < n->n_inputs; k++) {
			error_init(&err);
			cr_assert_eq(eval_input_set(ev, &n->inputs[k], &set,
						    &err), 0, "%s", err.msg);
			if (pattern_set_match(set, path))
				return 1;
			if (!strncmp(n->inputs[k].name, "root.sources:", 13) &&
			    pattern_match(n->inputs[k].include[0], path))
				return 1;
		}
	}
	return 0;
}

Test(engine_plan_eval_claim, index_answers_as_the_full_scan)
{
	static const char *const paths[] = {
		"src/a.c", "src/gen/x.c", "src", "srcx/a.c", "README.md",
		"docs/README.md", "top.txt", "sub/top.txt", "docs/ab/x.txt",
		"docs/b/x.txt", "docs/a/x.txt", "lib/a/z.c", "lib/c/z.c",
		"pkg/sub/file.c", "pkg/sub/other.c", "pkg/other/q.c",
		"pkg/other/skip/q.c", "deep/1/2/leaf.c", "deep/leaf.c",
		"deep/1/leaf.cc", "x/y/z", "x/y", "x/yz", "nothing/here",
		"pkg", "build.log", "a/b/c.log", "tools/r/setup.py",
		"tools/rx/setup.py", "",
	};
	char *dir = t_git_init();
	struct graph_repo *repo;
	struct eval *ev, *ref;
	struct error_list errors;
	struct error err;
	size_t i;
	int ignored, got, want, claimed = 0;

	t_write(dir, "ripple.yml", RULES);
	t_write(dir, "tools/r/setup.py", "\n");
	cr_assert_eq(t_git_commit(dir, "one"), 0);
	error_init(&err);
	error_list_init(&errors, 4);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	cr_assert_eq(eval_open_memo(repo, "HEAD", 0, NULL, NULL, NULL, 0,
				    &errors, &ev, &err), 0, "%s", err.msg);
	cr_assert_eq(eval_open_memo(repo, "HEAD", 0, NULL, NULL, NULL, 0,
				    &errors, &ref, &err), 0, "%s", err.msg);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		got = eval_path_claimed(ev, paths[i], &ignored, &err);
		want = oracle(ref, paths[i]);
		cr_expect_geq(got, 0, "%s: %s", paths[i], err.msg);
		cr_expect_eq(got, want, "'%s': index %d, full scan %d",
			     paths[i], got, want);
		claimed += want;
	}
	/* Both answers occur, or the comparison says little. */
	cr_expect_gt(claimed, 10);
	cr_expect_lt(claimed, (int)(sizeof(paths) / sizeof(paths[0])) - 5);
	eval_free(ev);
	eval_free(ref);
	error_list_release(&errors);
	graph_repo_close(repo);
	t_rmtree(dir);
	free(dir);
}

/* Rules of n nodes, each of one source, whose folders go from z to a
 * (reverse: the index's sort gives up insertion) or from a to z (nearly
 * in order): two patterns each, every third with the next folder's. */
static char *
many_rules(int n, int reverse)
{
	size_t cap = 200 + (size_t)n * 160, len;
	char *s = malloc(cap);
	int i, k;

	cr_assert_not_null(s);
	len = (size_t)snprintf(s, cap, "version: 1\nsources:\n");
	for (i = 0; i < n; i++) {
		k = reverse ? n - 1 - i : i;
		len += (size_t)snprintf(s + len, cap - len,
					"  s%03d: {paths: [p/d%03d/**, "
					"p/d%03d/f.c]}\n", i, k,
					k % 3 ? k : k + 1);
	}
	len += (size_t)snprintf(s + len, cap - len, "artifacts:\n");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len,
					"  a%03d: {inputs: [s%03d], command: "
					"[make]}\n", i, i);
	return s;
}

/*
 * The index sorts its claims by insertion while they come nearly in
 * order and by qsort when not: in both cases sorted by prefix, claims of
 * one prefix in their order, and the answers the full scan's.
 */
Test(engine_plan_eval_claim, index_is_sorted_whatever_the_order)
{
	static const char *const paths[] = {
		"p/d000/x.c", "p/d001/f.c", "p/d040/q/r.c", "p/d079/f.c",
		"p/d080/f.c", "p/d07", "p", "q/d001/x.c",
	};
	int reverse;

	for (reverse = 0; reverse < 2; reverse++) {
		char *dir = t_git_init(), *rules = many_rules(80, reverse);
		const struct eval_claims *c;
		struct graph_repo *repo;
		struct eval *ev, *ref;
		struct error_list errors;
		struct error err;
		size_t i;
		int ignored, got;

		t_write(dir, "ripple.yml", rules);
		cr_assert_eq(t_git_commit(dir, "one"), 0);
		error_init(&err);
		error_list_init(&errors, 4);
		cr_assert_eq(graph_repo_open(dir, &repo, &err), 0);
		cr_assert_eq(eval_open_memo(repo, "HEAD", 0, NULL, NULL, NULL,
					    0, &errors, &ev, &err), 0, "%s",
			     err.msg);
		cr_assert_eq(eval_open_memo(repo, "HEAD", 0, NULL, NULL, NULL,
					    0, &errors, &ref, &err), 0);
		for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
			got = eval_path_claimed(ev, paths[i], &ignored, &err);
			cr_expect_eq(got, oracle(ref, paths[i]), "%s (%s)",
				     paths[i], reverse ? "reverse" : "sorted");
		}
		c = ev->claims;
		cr_assert_not_null(c);
		cr_expect_eq(c->n, 160);
		for (i = 1; i < c->n; i++) {
			int d = strcmp(c->v[i - 1].prefix, c->v[i].prefix);

			/* Equal prefixes in node order: by source name. */
			cr_expect(d < 0 || (d == 0 && strcmp(
				c->v[i - 1].in->name, c->v[i].in->name) <= 0),
				  "claim %zu out of order", i);
		}
		eval_free(ev);
		eval_free(ref);
		error_list_release(&errors);
		graph_repo_close(repo);
		t_rmtree(dir);
		free(dir);
		free(rules);
	}
}
