/* Suite e2e_record: `ripple record` end to end on a made repository. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static const char rules[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [\"src/**\"]}\n"
	"artifacts:\n"
	"  a: {inputs: [src], command: [\"true\"]}\n"
	"  b: {inputs: [src], command: [\"true\"]}\n"
	"  c: {inputs: [src], command: [\"true\"]}\n";

static char *
make_repo(void)
{
	char *dir = t_git_init();

	t_write(dir, ".gitignore", ".ripple/\n");
	t_write(dir, "ripple.yml", rules);
	t_write(dir, "src/x.txt", "x\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	return dir;
}

Test(e2e_record, node_repeats_and_each_glob_records)
{
	char *dir = make_repo();
	const char *rec[] = { "record", "--run", "r1", "--node", "artifact:a",
			      "--node", "artifact:c", "--status", "ok", NULL };
	const char *runs[] = { "runs", "--json", NULL };
	struct run_result r = t_ripple(dir, rec);

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "recorded artifact:a ok in run r1\n"
				"recorded artifact:c ok in run r1\n");
	t_result_release(&r);
	r = t_ripple(dir, runs);
	cr_expect(strstr(r.out, "\"records\": 2") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_record, artifacts_give_the_output_digest)
{
	char *dir = make_repo();
	const char *rec[] = { "record", "--run", "r1", "--node", "artifact:a",
			      "--status", "ok", "--artifact", "dist/a.whl",
			      NULL };
	const char *exp[] = { "cache", "export", "--run", "r1", NULL };
	struct run_result r;

	t_write(dir, "dist/a.whl", "wheel bytes\n");
	r = t_ripple(dir, rec);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, exp);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\"output_digest\": \"") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "dist/a.whl") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_record, a_missing_artifact_or_node_is_an_error_for_people)
{
	char *dir = make_repo();
	const char *art[] = { "record", "--run", "r1", "--node", "artifact:a",
			      "--status", "ok", "--artifact", "nope.whl", NULL };
	const char *node[] = { "record", "--run", "r1", "--node", "artifact:z",
			       "--status", "ok", NULL };
	struct run_result r;

	r = t_ripple(dir, art);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "cannot read artifact 'nope.whl'") != NULL,
		  "%s", r.err);
	cr_expect(strstr(r.err, "node: artifact:a") != NULL, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, node);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "no node matches 'artifact:z'") != NULL, "%s",
		  r.err);
	cr_expect(strstr(r.err, "hint: `ripple graph --rev") != NULL, "%s",
		  r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_record, finish_sets_the_status_a_baseline_needs)
{
	char *dir = make_repo();
	const char *rec[] = { "record", "--run", "r1", "--node", "*",
			      "--status", "ok", NULL };
	const char *fin[] = { "record", "--run", "r1", "--finish", "ok", NULL };
	const char *bad[] = { "record", "--run", "r1", "--finish", "great",
			      NULL };
	const char *runs[] = { "runs", "--json", NULL };
	struct run_result r;

	r = t_ripple(dir, rec);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, bad);
	cr_expect_eq(r.status, 2, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, fin);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, runs);
	cr_expect(strstr(r.out, "\"status\": \"ok\"") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "\"records\": 3") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_record, only_absolute_artifacts_are_checked_for_reuse)
{
	char *dir = make_repo(), *store = t_tmpdir(), abs_art[4096];
	const char *rec_a[] = { "record", "--run", "r1", "--node", "artifact:a",
				"--status", "ok", "--artifact", abs_art, NULL };
	const char *rec_b[] = { "record", "--run", "r1", "--node", "artifact:b",
				"--status", "ok", "--artifact", "dist/b.whl",
				NULL };
	const char *rec_c[] = { "record", "--run", "r1", "--node", "artifact:c",
				"--status", "ok", NULL };
	const char *fin[] = { "record", "--run", "r1", "--finish", "ok", NULL };
	const char *plan[] = { "plan", "--base", "HEAD", "--json", NULL };
	struct run_result r;
	char cmd[4200];

	snprintf(abs_art, sizeof(abs_art), "%s/a.whl", store);
	t_write(store, "a.whl", "a\n");
	t_write(dir, "dist/b.whl", "b\n");
	r = t_ripple(dir, rec_a);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, rec_b);
	t_result_release(&r);
	r = t_ripple(dir, rec_c);
	t_result_release(&r);
	r = t_ripple(dir, fin);
	t_result_release(&r);
	/* A fresh clone has no dist/: a relative locator is not checked. */
	snprintf(cmd, sizeof(cmd), "rm -rf dist '%s'", abs_art);
	r = t_sh(dir, cmd);
	t_result_release(&r);
	r = t_ripple(dir, plan);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\"reason\": \"key-equal-artifact-missing\"")
		  != NULL, "%s", r.out);
	cr_expect(strstr(r.out, abs_art) != NULL, "the plan names %s: %s",
		  abs_art, r.out);
	cr_expect(strstr(r.out, "\"reuse\": 2") != NULL, "b and c reused: %s",
		  r.out);
	t_result_release(&r);
	t_rmtree(store);
	t_rmtree(dir);
	free(store);
	free(dir);
}

/*
 * Issue 22 item 7: `--meta =v` was "metadata '=v' is not KEY=VALUE",
 * which it is; the message says the key is empty, names the option and
 * leaves no run behind.
 */
Test(e2e_record, an_empty_metadata_key_is_named_as_such)
{
	char *dir = make_repo();
	const char *rec[] = { "record", "--run", "r1", "--node", "artifact:a",
			      "--status", "ok", "--meta", "=v", NULL };
	const char *runs[] = { "runs", "--json", NULL };
	struct run_result r = t_ripple(dir, rec);

	cr_expect_eq(r.status, 2, "%d %s", r.status, r.err);
	cr_expect(strstr(r.err, "error: --meta '=v' has an empty key\n") !=
		  NULL, "%s", r.err);
	cr_expect(strstr(r.err, "hint: name it: --meta KEY=VALUE") != NULL,
		  "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, runs);
	cr_expect(strstr(r.out, "r1") == NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
