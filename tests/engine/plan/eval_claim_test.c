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
