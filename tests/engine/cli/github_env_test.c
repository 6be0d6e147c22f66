/*
 * Suite engine_cli_github_env: the ref a command works for (its trust
 * domain in the remote cache), end to end through `ripple run` and the
 * ref its run records: --ref, then RIPPLE_REF, then --tag, then GitHub
 * Actions' environment (engine/cli/github_env.c), then the branch. A
 * pull request's checkout is a detached merge commit: its ref is
 * refs/pull/N/merge, never "none" and never the base branch.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static char *repo;

static void
setup(void)
{
	unsetenv("GITHUB_ACTIONS");
	unsetenv("GITHUB_EVENT_NAME");
	unsetenv("GITHUB_REF");
	unsetenv("GITHUB_EVENT_PATH");
	unsetenv("RIPPLE_REF");
	repo = t_git_init();
	t_write(repo, "ripple.yml",
		"version: 1\n"
		"sources:\n"
		"  src: {paths: [src/**]}\n"
		"artifacts:\n"
		"  a:\n"
		"    inputs: [src]\n"
		"    command: [sh, -c, 'true']\n");
	t_write(repo, "src/a.c", "int a;\n");
	t_write(repo, ".gitignore", ".ripple/\n");
	cr_assert_eq(t_git_commit(repo, "initial"), 0);
	cr_assert_eq(t_git_commit(repo, "second"), 0);
}

static void
teardown(void)
{
	t_rmtree(repo);
	free(repo);
}

TestSuite(engine_cli_github_env, .init = setup, .fini = teardown);

/* Run once (extra: one more argument or NULL); the ref the run recorded. */
static char *
run_ref(const char *extra, const char *extra2)
{
	const char *run[] = { "run", "--run-id", "r", extra, extra2, NULL };
	const char *runs[] = { "runs", "--json", NULL };
	struct run_result r;
	char *p, *q, *out;

	r = t_sh(repo, "rm -rf .ripple");
	t_result_release(&r);
	r = t_ripple(repo, run);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	r = t_ripple(repo, runs);
	cr_assert_eq(r.status, 0, "%s", r.err);
	p = strstr(r.out, "\"ref\": ");
	cr_assert_not_null(p, "%s", r.out);
	p += 7;
	q = strpbrk(p, ",\n");
	cr_assert_not_null(q);
	out = strndup(p, (size_t)(q - p));
	t_result_release(&r);
	return out;
}

static void
detach(void)
{
	struct run_result r = t_sh(repo, "git checkout -q --detach HEAD");

	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
}

static void
expect_ref(const char *extra, const char *extra2, const char *want)
{
	char *got = run_ref(extra, extra2);

	cr_expect_str_eq(got, want);
	free(got);
}

static void
payload(const char *json)
{
	char path[4096];

	t_write(repo, "event.json", json);
	snprintf(path, sizeof(path), "%s/event.json", repo);
	setenv("GITHUB_EVENT_PATH", path, 1);
}

Test(engine_cli_github_env, a_branch_checkout_is_its_branch)
{
	expect_ref(NULL, NULL, "\"refs/heads/main\"");
}

Test(engine_cli_github_env, a_detached_checkout_outside_actions_has_none)
{
	detach();
	expect_ref(NULL, NULL, "null");
}

Test(engine_cli_github_env, a_pull_request_merge_checkout_is_the_pr_ref)
{
	detach();
	setenv("GITHUB_ACTIONS", "true", 1);
	setenv("GITHUB_EVENT_NAME", "pull_request", 1);
	setenv("GITHUB_REF", "refs/pull/12/merge", 1);
	expect_ref(NULL, NULL, "\"refs/pull/12/merge\"");
}

/* pull_request_target: GITHUB_REF is the base branch; the PR is not. */
Test(engine_cli_github_env, pull_request_target_takes_the_number)
{
	detach();
	setenv("GITHUB_ACTIONS", "true", 1);
	setenv("GITHUB_EVENT_NAME", "pull_request_target", 1);
	setenv("GITHUB_REF", "refs/heads/main", 1);
	expect_ref(NULL, NULL, "null");
	payload("{\"number\": 34, \"pull_request\": {\"number\": 34}}");
	expect_ref(NULL, NULL, "\"refs/pull/34/merge\"");
}

Test(engine_cli_github_env, a_push_is_github_ref)
{
	detach();
	setenv("GITHUB_ACTIONS", "true", 1);
	setenv("GITHUB_EVENT_NAME", "push", 1);
	setenv("GITHUB_REF", "refs/heads/release/1.x", 1);
	expect_ref(NULL, NULL, "\"refs/heads/release/1.x\"");
	setenv("GITHUB_ACTIONS", "false", 1);
	expect_ref(NULL, NULL, "null");
}

Test(engine_cli_github_env, flag_beats_environment_beats_github)
{
	detach();
	setenv("GITHUB_ACTIONS", "true", 1);
	setenv("GITHUB_EVENT_NAME", "pull_request", 1);
	setenv("GITHUB_REF", "refs/pull/12/merge", 1);
	setenv("RIPPLE_REF", "refs/heads/from-env", 1);
	expect_ref(NULL, NULL, "\"refs/heads/from-env\"");
	expect_ref("--ref", "refs/heads/from-flag",
		   "\"refs/heads/from-flag\"");
}
