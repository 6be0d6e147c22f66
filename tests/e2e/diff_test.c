/*
 * End-to-end checks of `ripple diff`: two runs recorded in one cache at
 * different commits, root causes with file-level divergences, cascades with
 * their upstream cause, nodes only one run recorded, globs, exit codes.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/e2e/plan_support.h"
#include "tests/support/support.h"

/* r1 at main; r2 after `cmd` (run in the repository) is committed on pr. */
static char *
two_runs(const char *cmd)
{
	char *dir = pt_repo("rebuild-all");
	char line[1024];

	pt_record_all(dir, "r1");
	snprintf(line, sizeof(line), "git checkout -q -b pr && %s", cmd);
	free(pt_sh(dir, line));
	cr_assert_eq(t_git_commit(dir, "change"), 0);
	pt_record_all(dir, "r2");
	return dir;
}

static json_t *
by_id(json_t *list, const char *id)
{
	size_t i;

	for (i = 0; i < json_array_size(list); i++)
		if (!strcmp(pt_str(json_array_get(list, i), "id"), id))
			return json_array_get(list, i);
	return NULL;
}

/* `ripple diff ARGS --json`, expecting exit status `want`. */
static json_t *
diff_json(const char *dir, const char *const *argv, int want)
{
	struct run_result r = t_ripple(dir, argv);
	json_error_t je;
	json_t *doc;

	cr_assert_eq(r.status, want, "exit %d: %s", r.status, r.err);
	doc = json_loads(r.out, 0, &je);
	cr_assert_not_null(doc, "%s: %s", je.text, r.out);
	t_result_release(&r);
	cr_expect_str_eq(pt_str(doc, "schema"), "ripple-diff-v1");
	return doc;
}

Test(e2e_diff, input_change_is_a_root_cause_with_file_and_blob_ids)
{
	char *dir = two_runs("echo 'a = 2' > pa/a.py");
	const char *argv[] = { "diff", "r1", "r2", "--json", NULL };
	char *old_id = pt_sh(dir, "git rev-parse main:pa/a.py");
	char *new_id = pt_sh(dir, "git rev-parse pr:pa/a.py");
	json_t *d = diff_json(dir, argv, 1), *roots, *x, *c;

	roots = json_object_get(d, "root_causes");
	cr_expect_eq(json_array_size(roots), 2);
	x = by_id(roots, W12A);
	cr_assert_not_null(x);
	cr_expect_str_eq(pt_str(x, "reason"), "input-content-changed");
	cr_expect_str_eq(pt_str(x, "status"), "changed");
	cr_expect_null(pt_str(x, "cascade_of"));
	c = json_array_get(json_object_get(x, "changes"), 0);
	cr_expect_str_eq(pt_str(c, "kind"), "file");
	cr_expect_str_eq(pt_str(c, "path"), "pa/a.py");
	cr_expect_str_eq(pt_str(c, "old"), old_id);
	cr_expect_str_eq(pt_str(c, "new"), new_id);
	cr_expect_not_null(by_id(roots, W11A));
	cr_expect_null(by_id(roots, W11B));
	x = by_id(json_object_get(d, "cascades"), UA);
	cr_assert_not_null(x);
	cr_expect_eq(json_array_size(json_object_get(d, "cascades")), 1);
	cr_expect_str_eq(pt_str(x, "reason"), "upstream-rebuilt");
	cr_expect_str_eq(pt_str(x, "cascade_of"), W12A);
	cr_expect_str_eq(pt_str(x, "root_cause"), W12A);
	cr_expect_eq(json_array_size(json_object_get(d, "added")), 0);
	cr_expect_eq(json_array_size(json_object_get(d, "removed")), 0);
	json_decref(d);
	free(old_id);
	free(new_id);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_diff, text_names_file_ids_and_cascades)
{
	char *dir = two_runs("echo 'a = 2' > pa/a.py");
	const char *argv[] = { "diff", "r1", "r2", NULL };
	char *new_id = pt_sh(dir, "git rev-parse pr:pa/a.py");
	struct run_result r = t_ripple(dir, argv);

	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.out, "root causes:") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "pa/a.py") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, new_id) != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "cascade of " W12A) != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "2 root causes, 1 cascade, 0 added, "
			 "0 removed") != NULL, "%s", r.out);
	t_result_release(&r);
	free(new_id);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_diff, identical_runs_agree_with_exit_zero)
{
	char *dir = pt_repo("rebuild-all");
	const char *argv[] = { "diff", "r1", "r2", "--json", NULL };
	json_t *d;

	pt_record_all(dir, "r1");
	pt_record_all(dir, "r2");
	d = diff_json(dir, argv, 0);
	cr_expect_eq(json_array_size(json_object_get(d, "root_causes")), 0);
	cr_expect_eq(json_array_size(json_object_get(d, "cascades")), 0);
	json_decref(d);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_diff, nodes_only_in_one_run_are_added_or_removed)
{
	char *dir = pt_repo("rebuild-all");
	const char *argv[] = { "diff", "r1", "r2", "--json", NULL };
	const char *r1[] = { W11A, W12A, W12B, UA, UB };
	const char *r2[] = { W11A, W12A, W11B, W12B, UA };
	json_t *d, *x;
	size_t i;

	for (i = 0; i < 5; i++) {
		pt_record(dir, "r1", r1[i], "ok", "");
		pt_record(dir, "r2", r2[i], "ok", "");
	}
	d = diff_json(dir, argv, 1);
	x = by_id(json_object_get(d, "added"), W11B);
	cr_assert_not_null(x);
	cr_expect_null(pt_str(x, "old_key"));
	cr_expect_not_null(pt_str(x, "new_key"));
	x = by_id(json_object_get(d, "removed"), UB);
	cr_assert_not_null(x);
	cr_expect_null(pt_str(x, "new_key"));
	cr_expect_eq(json_array_size(json_object_get(d, "added")), 1);
	cr_expect_eq(json_array_size(json_object_get(d, "removed")), 1);
	cr_expect_eq(json_array_size(json_object_get(d, "root_causes")), 0);
	json_decref(d);
	t_rmtree(dir);
	free(dir);
}

/* The glob keeps only the tests; their root cause lies outside it. */
Test(e2e_diff, glob_filters_nodes_but_keeps_root_causes_outside_it)
{
	char *dir = two_runs("echo 'a = 2' > pa/a.py");
	const char *argv[] = { "diff", "r1", "r2", "test:*", "--json", NULL };
	json_t *d = diff_json(dir, argv, 1), *x;

	cr_expect_eq(json_array_size(json_object_get(d, "root_causes")), 0);
	cr_assert_eq(json_array_size(json_object_get(d, "cascades")), 1);
	x = by_id(json_object_get(d, "cascades"), UA);
	cr_assert_not_null(x);
	cr_expect_str_eq(pt_str(x, "root_cause"), W12A);
	json_decref(d);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_diff, rule_change_names_the_field_and_both_texts)
{
	char *dir = two_runs("sed -i 's/command: \\[test,/command: [test2,/' "
			     "ripple.yml");
	const char *argv[] = { "diff", "r1", "r2", "--json", NULL };
	json_t *d = diff_json(dir, argv, 1), *x, *c;

	x = by_id(json_object_get(d, "root_causes"), UB);
	cr_assert_not_null(x);
	cr_expect_str_eq(pt_str(x, "reason"), "rule-changed");
	c = json_array_get(json_object_get(x, "changes"), 0);
	cr_expect_str_eq(pt_str(c, "kind"), "rule");
	cr_expect_str_eq(pt_str(c, "name"), "command");
	cr_expect_str_eq(pt_str(c, "old"), "[\"test\",\"pb\"]");
	cr_expect_str_eq(pt_str(c, "new"), "[\"test2\",\"pb\"]");
	cr_expect_eq(json_array_size(json_object_get(d, "root_causes")), 2);
	cr_expect_eq(json_array_size(json_object_get(d, "cascades")), 0);
	json_decref(d);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_diff, unknown_run_is_a_usage_error)
{
	char *dir = pt_repo("rebuild-all");
	const char *argv[] = { "diff", "r1", "nope", NULL };
	struct run_result r;

	pt_record_all(dir, "r1");
	r = t_ripple(dir, argv);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "'nope'") != NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_diff, same_key_other_output_is_named_not_reproducible)
{
	static const char y[] =
		"version: 1\n"
		"artifacts:\n"
		"  stamp:\n"
		"    command: \"mkdir -p out && echo $RIPPLE_RUN > out/stamp\"\n"
		"    outputs: [out/stamp]\n"
		"tests:\n"
		"  check: {needs: [stamp], command: \"test -s out/stamp\"}\n";
	char *dir = t_git_init();
	const char *r1[] = { "run", "--run-id", "r1", NULL };
	const char *r2[] = { "run", "--run-id", "r2", "--reuse", "none", NULL };
	const char *argv[] = { "diff", "r1", "r2", "--json", NULL };
	json_t *doc, *n;
	struct run_result r;

	t_write(dir, ".gitignore", ".ripple/\nout/\n");
	t_write(dir, "ripple.yml", y);
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	r = t_ripple(dir, r1);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, r2);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	doc = diff_json(dir, argv, 1);
	n = by_id(json_object_get(doc, "root_causes"), "artifact:stamp");
	cr_assert_not_null(n, "the stamp is the root cause");
	cr_expect_str_eq(pt_str(n, "reason"), "output-not-reproducible");
	n = by_id(json_object_get(doc, "cascades"), "test:check");
	cr_assert_not_null(n);
	cr_expect_str_eq(pt_str(n, "cascade_of"), "artifact:stamp");
	json_decref(doc);
	t_rmtree(dir);
	free(dir);
}
