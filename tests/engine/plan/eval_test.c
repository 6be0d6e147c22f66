/*
 * Suite engine_plan_eval: evaluations of two commits of one plan
 * (engine/plan/eval.h). The merge base's evaluation borrows the head's
 * rules and graph only when its ripple.yml is the same text and no other
 * file (a matrix) went into the rules; otherwise it loads its own.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/error.h"
#include "engine/plan/eval.h"
#include "graph/graph.h"
#include "graph/repo.h"
#include "tests/support/support.h"

TestSuite(engine_plan_eval);

#define RULES \
	"version: 1\n" \
	"sources:\n" \
	"  src: {paths: [src/**]}\n" \
	"artifacts:\n" \
	"  lib: {inputs: [src], command: [make]}\n"

#define MATRIX_RULES \
	"version: 1\n" \
	"sources:\n" \
	"  src: {paths: [src/**]}\n" \
	"artifacts:\n" \
	"  lib:\n" \
	"    each:\n" \
	"      from:\n" \
	"        file: ci/matrix.yaml\n" \
	"        select: rows\n" \
	"        axes: {v: V}\n" \
	"    inputs: [src]\n" \
	"    command: [make, \"${v}\"]\n"

/*
 * A repository whose base commit has base_rules (and base_matrix at
 * ci/matrix.yaml when not NULL) and whose head commit changes src/a.c and
 * has head_rules (and head_matrix). Evaluates the head, then the base
 * like the head; *base_ev and *head_ev are the evaluations.
 */
static void
two_commits(const char *base_rules, const char *base_matrix,
	    const char *head_rules, const char *head_matrix, char **dirp,
	    struct graph_repo **repo, struct eval **head_ev,
	    struct eval **base_ev)
{
	char *dir = t_git_init(), *base;
	struct error_list errors;
	struct error err;

	t_write(dir, "ripple.yml", base_rules);
	t_write(dir, "src/a.c", "int a;\n");
	if (base_matrix)
		t_write(dir, "ci/matrix.yaml", base_matrix);
	cr_assert_eq(t_git_commit(dir, "base"), 0);
	base = t_git_rev(dir, "HEAD");
	t_write(dir, "ripple.yml", head_rules);
	t_write(dir, "src/a.c", "int a = 1;\n");
	if (head_matrix)
		t_write(dir, "ci/matrix.yaml", head_matrix);
	cr_assert_eq(t_git_commit(dir, "head"), 0);
	error_init(&err);
	error_list_init(&errors, 4);
	cr_assert_eq(graph_repo_open(dir, repo, &err), 0, "%s", err.msg);
	cr_assert_eq(eval_open_memo(*repo, "HEAD", 0, NULL, NULL, NULL, 0,
				    &errors, head_ev, &err), 0, "%s", err.msg);
	cr_assert_eq(eval_open_like(*head_ev, *repo, base, NULL, NULL, NULL,
				    0, &errors, base_ev, &err), 0, "%s",
		     err.msg);
	error_list_release(&errors);
	free(base);
	*dirp = dir;
}

static void
done(char *dir, struct graph_repo *repo, struct eval *head,
     struct eval *base)
{
	eval_free(base);	/* it may borrow the head's rules */
	eval_free(head);
	graph_repo_close(repo);
	t_rmtree(dir);
	free(dir);
}

Test(engine_plan_eval, same_rules_text_is_borrowed)
{
	struct graph_repo *repo;
	struct eval *head, *base;
	char *dir;

	two_commits(RULES, NULL, RULES, NULL, &dir, &repo, &head, &base);
	cr_expect_eq(base->borrowed, 1);
	cr_expect_eq(base->rules, head->rules);
	cr_expect_eq(base->graph, head->graph);
	cr_expect_str_neq(base->commit_hex, head->commit_hex);
	done(dir, repo, head, base);
}

Test(engine_plan_eval, other_rules_text_is_loaded)
{
	struct graph_repo *repo;
	struct eval *head, *base;
	char *dir;

	two_commits(RULES, NULL, RULES "  docs: {inputs: [src], "
		    "command: [make, docs]}\n", NULL, &dir, &repo, &head,
		    &base);
	cr_expect_eq(base->borrowed, 0);
	cr_expect_neq(base->rules, head->rules);
	cr_expect_eq(base->graph->n_nodes + 1, head->graph->n_nodes);
	done(dir, repo, head, base);
}

/* The same ripple.yml over another matrix file is other rules. */
Test(engine_plan_eval, same_text_other_matrix_is_loaded)
{
	struct graph_repo *repo;
	struct eval *head, *base;
	char *dir;

	two_commits(MATRIX_RULES, "rows:\n  - {V: \"1\"}\n", MATRIX_RULES,
		    "rows:\n  - {V: \"1\"}\n  - {V: \"2\"}\n", &dir, &repo,
		    &head, &base);
	cr_expect_eq(head->rules_read_files, 1);
	cr_expect_eq(base->borrowed, 0);
	cr_expect_eq(base->graph->n_nodes, 1);
	cr_expect_eq(head->graph->n_nodes, 2);
	done(dir, repo, head, base);
}

/* Without an evaluation to borrow from (the full walk), each loads. */
Test(engine_plan_eval, no_like_loads)
{
	struct graph_repo *repo;
	struct eval *head, *base, *again;
	struct error_list errors;
	struct error err;
	char *dir;

	two_commits(RULES, NULL, RULES, NULL, &dir, &repo, &head, &base);
	error_init(&err);
	error_list_init(&errors, 4);
	cr_assert_eq(eval_open_like(NULL, repo, base->commit_hex, NULL, NULL,
				    NULL, 0, &errors, &again, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(again->borrowed, 0);
	cr_expect_neq(again->rules, head->rules);
	eval_free(again);
	error_list_release(&errors);
	done(dir, repo, head, base);
}

/*
 * Rules read from a file (--rules) with the commit's bytes are not the
 * commit's: their matrix came from the disk, so they are never lent.
 */
Test(engine_plan_eval, rules_from_a_file_are_not_lent)
{
	struct graph_repo *repo;
	struct eval *head, *base, *file_ev, *again;
	struct error_list errors;
	struct error err;
	char *dir, path[4096];

	two_commits(MATRIX_RULES, "rows:\n  - {V: \"1\"}\n", MATRIX_RULES,
		    "rows:\n  - {V: \"1\"}\n  - {V: \"2\"}\n", &dir, &repo,
		    &head, &base);
	error_init(&err);
	error_list_init(&errors, 4);
	snprintf(path, sizeof(path), "%s/ripple.yml", dir);
	cr_assert_eq(eval_open_memo(repo, "HEAD", 0, path, NULL, NULL, 0,
				    &errors, &file_ev, &err), 0, "%s", err.msg);
	cr_assert_eq(eval_open_like(file_ev, repo, base->commit_hex, NULL,
				    NULL, NULL, 0, &errors, &again, &err), 0,
		     "%s", err.msg);
	cr_expect_eq(again->borrowed, 0);
	cr_expect_eq(again->graph->n_nodes, 1, "the base's own matrix");
	eval_free(again);
	eval_free(file_ev);
	error_list_release(&errors);
	done(dir, repo, head, base);
}
