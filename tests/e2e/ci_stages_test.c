/*
 * Suite e2e_ci_stages: a workflow of fixed job slots (`plan
 * --github-stages N`) gets every stage of a target in run order, however
 * deep, or a plan-time refusal naming the stage it could not run; never a
 * stage silently left out. And what a CI job template relies on: a GPU job
 * without its pinned toolkit fails first, naming the pin; --failed-logs
 * collects exactly the failed nodes' logs for an artifact.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/e2e/plan_support.h"
#include "tests/support/support.h"

/* noarch a -> linux b -> noarch c -> linux d -> noarch e, then a test:
 * build, build-2, build-3, build-4, build-5, test. */
static const char deep_rules[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [src/**]}\n"
	"axes:\n"
	"  platform: [linux-64]\n"
	"artifacts:\n"
	"  a: {inputs: [src], command: [sh, -c, 'true']}\n"
	"  b: {each: {platform: [linux-64]}, needs: [a], command: [sh, -c, "
	"'true']}\n"
	"  c: {needs: [b], command: [sh, -c, 'true']}\n"
	"  d: {each: {platform: [linux-64]}, needs: [c], command: [sh, -c, "
	"'true']}\n"
	"  e: {needs: [d], command: [sh, -c, 'true']}\n"
	"tests:\n"
	"  t: {needs: [e], command: [sh, -c, 'true']}\n";

static char *
deep_repo(void)
{
	char *dir = t_git_init();

	t_write(dir, "ripple.yml", deep_rules);
	t_write(dir, ".gitignore", ".ripple/\n");
	t_write(dir, "src/a.c", "int a;\n");
	free(pt_sh(dir, "git checkout -q -B main"));
	cr_assert_eq(t_git_commit(dir, "init"), 0);
	return dir;
}

Test(e2e_ci_stages, every_stage_of_a_deep_chain_gets_a_slot_in_order)
{
	char *dir = deep_repo(), path[4096], *text;
	const char *plan[] = { "plan", "--github-output", path,
			       "--github-stages", "8", NULL };
	struct run_result r;

	snprintf(path, sizeof(path), "%s/gho.txt", dir);
	r = t_ripple(dir, plan);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	text = t_read(path);
	cr_expect(strstr(text, "stages=6\n") != NULL, "%s", text);
	cr_expect(strstr(text, "name-stage-1=build\n") != NULL, "%s", text);
	cr_expect(strstr(text, "name-stage-5=build-5\n") != NULL, "%s", text);
	cr_expect(strstr(text, "name-stage-6=test\n") != NULL, "%s", text);
	cr_expect(strstr(text, "has-stage-5=true\n") != NULL, "%s", text);
	cr_expect(strstr(text, "matrix-stage-5={\"include\":[{\"job\":"
			 "\"build-5-any-1\"") != NULL, "%s", text);
	cr_expect(strstr(text, "has-stage-7=false\n") != NULL, "%s", text);
	cr_expect(strstr(text, "has-stage-8=false\n") != NULL, "%s", text);
	cr_expect(strstr(text, "matrix-stage-7") == NULL, "%s", text);
	free(text);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci_stages, a_chain_deeper_than_the_workflow_is_refused_at_plan_time)
{
	char *dir = deep_repo(), path[4096], *text;
	const char *plan[] = { "plan", "--github-output", path,
			       "--github-stages", "4", NULL };
	const char *alone[] = { "plan", "--github-stages", "4", NULL };
	struct run_result r;

	snprintf(path, sizeof(path), "%s/gho.txt", dir);
	r = t_ripple(dir, plan);
	cr_expect_eq(r.status, 2, "%s", r.out);
	cr_expect(strstr(r.err, "need 6 stages in order (build, build-2, "
			 "build-3, build-4, build-5, test), but the workflow "
			 "runs 4") != NULL, "%s", r.err);
	cr_expect(strstr(r.err, "the deepest is test-any-1") != NULL, "%s",
		  r.err);
	t_result_release(&r);
	/* Nothing half-written for the workflow to act on. */
	text = t_read(path);
	cr_expect(text == NULL || strstr(text, "matrix-") == NULL, "%s",
		  text ? text : "");
	free(text);
	r = t_ripple(dir, alone);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "--github-stages goes with --github-output")
		  != NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci_stages, a_gpu_job_without_its_pinned_toolkit_fails_before_running)
{
	char *dir = t_git_init(), home[1024], rules[6144], path[4096];
	const char *job[] = { "run", "--job", "gpu-any-1", "--json", NULL };
	struct run_result r;

	snprintf(home, sizeof(home), "%s/cuda-12.9", dir);
	snprintf(rules, sizeof(rules),
		 "version: 1\n"
		 "toolkits:\n  ctk12: {version: \"12.9.1\", home: %s}\n"
		 "tests:\n"
		 "  on-gpu:\n    toolkit: ctk12\n    gpu: {count: 1}\n"
		 "    command: [sh, -c, 'touch ran']\n", home);
	t_write(dir, "ripple.yml", rules);
	t_write(dir, ".gitignore", ".ripple/\nran\ncuda-12.9/\n");
	cr_assert_eq(t_git_commit(dir, "init"), 0);
	r = t_ripple(dir, job);
	cr_expect_eq(r.status, 2, "%s", r.out);
	cr_expect(strstr(r.err, "job 'gpu-any-1' needs toolkit 'ctk12' "
			 "(pinned 12.9.1 at ripple.yml") != NULL, "%s", r.err);
	cr_expect(strstr(r.err, "install CUDA 12.9.1 there") != NULL, "%s",
		  r.err);
	snprintf(path, sizeof(path), "%s/ran", dir);
	cr_expect_null(t_read(path), "nothing ran");
	t_result_release(&r);
	/* With the toolkit at its home the job goes on (and, without a GPU
	 * here, defers its test). */
	t_write(dir, "cuda-12.9/version.json", "{}\n");
	r = t_ripple(dir, job);
	cr_expect(r.status == 0 || r.status == 4, "%d %s", r.status, r.err);
	cr_expect(strstr(r.err, "needs toolkit") == NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci_stages, failed_logs_collects_exactly_the_failed_nodes_logs)
{
	char *dir = t_git_init(), logs[2048], path[4096], *text;
	const char *run[] = { "run", "--failed-logs", logs, "--keep-going",
			      NULL };
	struct run_result r;

	snprintf(logs, sizeof(logs), "%s/failed-logs", dir);
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"artifacts:\n"
		"  good: {command: [sh, -c, 'echo fine']}\n"
		"tests:\n"
		"  bad: {command: [sh, -c, 'echo broken here; exit 3']}\n");
	t_write(dir, ".gitignore", ".ripple/\nfailed-logs/\n");
	cr_assert_eq(t_git_commit(dir, "init"), 0);
	r = t_ripple(dir, run);
	cr_expect_eq(r.status, 1, "%s", r.err);
	t_result_release(&r);
	snprintf(path, sizeof(path), "%s/test%%3Abad.log", logs);
	text = t_read(path);
	if (!text) {
		struct run_result ls = t_sh(logs, "ls");

		cr_assert_fail("no %s; there: %s", path, ls.out);
	}
	cr_expect(strstr(text, "broken here") != NULL, "%s", text);
	free(text);
	{
		struct run_result ls = t_sh(logs, "ls | wc -l");

		cr_expect_eq(atoi(ls.out), 1, "only the failed node's log");
		t_result_release(&ls);
	}
	t_rmtree(dir);
	free(dir);
}
