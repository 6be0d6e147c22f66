/*
 * Suite e2e_github_base: `--base auto` and `ripple base` derive the base
 * from the GitHub event on real repositories: a pull request's target
 * branch, a bot-made pull-request/N branch, a new branch (all-zeros
 * `before`), a push (the previous record-complete commit, not `before`
 * when `before` was never fully built), a force-push (from the merge base),
 * and an explicit --base that always wins.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/e2e/plan_support.h"
#include "tests/support/support.h"

static const char rules[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [src/**]}\n"
	"artifacts:\n"
	"  lib: {inputs: [src], command: [sh, -c, 'true']}\n"
	"tests:\n"
	"  unit: {needs: [lib], command: [sh, -c, 'true']}\n";

struct repo {
	char *dir;
	char c1[64], c2[64], c3[64];	/* main: c1 (run) - c2 - c3 */
	char event[4096];
};

static void
commit(struct repo *r, const char *file, const char *text, char *hex)
{
	char *s;

	t_write(r->dir, file, text);
	cr_assert_eq(t_git_commit(r->dir, file), 0);
	s = pt_sh(r->dir, "git rev-parse HEAD");
	snprintf(hex, 64, "%s", s);
	free(s);
}

/* c1 fully run and recorded; c2 and c3 change src and were never run. */
static void
setup_repo(struct repo *r)
{
	const char *run[] = { "run", "--run-id", "c1", NULL };
	struct run_result res;

	memset(r, 0, sizeof(*r));
	r->dir = t_git_init();
	t_write(r->dir, "ripple.yml", rules);
	t_write(r->dir, ".gitignore", ".ripple/\n");
	commit(r, "src/a.c", "int a;\n", r->c1);
	res = t_ripple(r->dir, run);
	cr_assert_eq(res.status, 0, "%s", res.err);
	t_result_release(&res);
	commit(r, "src/a.c", "int a2;\n", r->c2);
	commit(r, "src/a.c", "int a3;\n", r->c3);
	snprintf(r->event, sizeof(r->event), "%s/event.json", r->dir);
	setenv("GITHUB_EVENT_PATH", r->event, 1);
	unsetenv("GITHUB_BASE_REF");
	unsetenv("GITHUB_REF");
	unsetenv("RIPPLE_TARGET_BRANCH");
}

static void
teardown_repo(struct repo *r)
{
	t_rmtree(r->dir);
	free(r->dir);
}

static void
event(struct repo *r, const char *name, const char *json)
{
	FILE *f = fopen(r->event, "w");

	cr_assert_not_null(f);
	fputs(json, f);
	fclose(f);
	setenv("GITHUB_EVENT_NAME", name, 1);
}

/* `ripple base` in the repository: the derived commit, malloc'd. */
static char *
base(struct repo *r, char **why)
{
	const char *argv[] = { "base", NULL };
	struct run_result res = t_ripple(r->dir, argv);
	char *hex;

	cr_assert_eq(res.status, 0, "%s", res.err);
	hex = strndup(res.out, 40);
	if (why)
		*why = strdup(res.out);
	t_result_release(&res);
	return hex;
}

Test(e2e_github_base, a_push_compares_with_the_previous_record_complete_commit)
{
	struct repo r;
	char json[512], *hex, *why;

	setup_repo(&r);
	/* Before: the workflow passed `before` (c2), never built. */
	snprintf(json, sizeof(json), "{\"before\": \"%s\", \"repository\": "
		 "{\"default_branch\": \"main\"}}", r.c2);
	event(&r, "push", json);
	setenv("GITHUB_REF", "refs/heads/main", 1);
	hex = base(&r, &why);
	cr_expect_str_eq(hex, r.c1, "%s", why);
	cr_expect(strstr(why, "record-complete commit 1 back") != NULL, "%s",
		  why);
	free(hex);
	free(why);
	teardown_repo(&r);
}

Test(e2e_github_base, a_force_push_walks_from_the_merge_base)
{
	struct repo r;
	char json[512], old[64], *hex, *why;

	setup_repo(&r);
	/* The pushed-over commit: a sibling of c2 on top of c1. */
	free(pt_sh(r.dir, "git checkout -q -b gone HEAD~2"));
	commit(&r, "src/b.c", "int b;\n", old);
	free(pt_sh(r.dir, "git checkout -q main"));
	snprintf(json, sizeof(json), "{\"before\": \"%s\", \"forced\": true}",
		 old);
	event(&r, "push", json);
	setenv("GITHUB_REF", "refs/heads/main", 1);
	hex = base(&r, &why);
	cr_expect_str_eq(hex, r.c1, "%s", why);
	cr_expect(strstr(why, "force-push over") != NULL, "%s", why);
	free(hex);
	free(why);
	teardown_repo(&r);
}

Test(e2e_github_base, a_new_branch_compares_with_the_default_branch)
{
	struct repo r;
	char tip[64], *hex, *why;

	setup_repo(&r);
	free(pt_sh(r.dir, "git checkout -q -b topic"));
	commit(&r, "src/t.c", "int t;\n", tip);
	event(&r, "push", "{\"before\": \"0000000000000000000000000000000000"
	      "000000\", \"repository\": {\"default_branch\": \"main\"}}");
	setenv("GITHUB_REF", "refs/heads/topic", 1);
	hex = base(&r, &why);
	cr_expect_str_eq(hex, r.c3, "%s", why);
	cr_expect(strstr(why, "new branch") != NULL, "%s", why);
	free(hex);
	free(why);
	teardown_repo(&r);
}

Test(e2e_github_base, pull_requests_and_bot_branches_use_their_target)
{
	struct repo r;
	char tip[64], rel[64], *hex, *why;

	setup_repo(&r);
	free(pt_sh(r.dir, "git branch release HEAD~1"));
	free(pt_sh(r.dir, "git checkout -q -b pull-request/7"));
	commit(&r, "src/p.c", "int p;\n", tip);
	event(&r, "pull_request", "{\"pull_request\": {\"base\": {\"ref\": "
	      "\"main\", \"sha\": \"x\"}}}");
	setenv("GITHUB_BASE_REF", "main", 1);
	hex = base(&r, NULL);
	cr_expect_str_eq(hex, r.c3);
	free(hex);
	unsetenv("GITHUB_BASE_REF");
	/* copy-pr-bot: a push to pull-request/7, the target from the rules
	 * of the workflow (RIPPLE_TARGET_BRANCH), else the default branch. */
	event(&r, "push", "{\"before\": \"0000000000000000000000000000000000"
	      "000000\", \"repository\": {\"default_branch\": \"main\"}}");
	setenv("GITHUB_REF", "refs/heads/pull-request/7", 1);
	hex = base(&r, &why);
	cr_expect_str_eq(hex, r.c3, "%s", why);
	cr_expect(strstr(why, "bot branch pull-request/7") != NULL, "%s", why);
	free(hex);
	free(why);
	setenv("RIPPLE_TARGET_BRANCH", "release", 1);
	snprintf(rel, sizeof(rel), "%s", r.c2);
	hex = base(&r, NULL);
	cr_expect_str_eq(hex, rel);
	free(hex);
	setenv("RIPPLE_TARGET_BRANCH", "nosuch", 1);
	{
		const char *argv[] = { "base", NULL };
		struct run_result res = t_ripple(r.dir, argv);

		cr_expect_eq(res.status, 2, "%s", res.out);
		cr_expect(strstr(res.err, "the target branch 'nosuch' is not "
				 "here") != NULL, "%s", res.err);
		t_result_release(&res);
	}
	teardown_repo(&r);
}

Test(e2e_github_base, plan_base_auto_uses_it_and_an_explicit_base_wins)
{
	struct repo r;
	char json[512];
	const char *autob[] = { "plan", "--base", "auto", "--json", NULL };
	const char *given[] = { "plan", "--base", "HEAD~1", "--json", NULL };
	struct run_result res;

	setup_repo(&r);
	snprintf(json, sizeof(json), "{\"before\": \"%s\"}", r.c2);
	event(&r, "push", json);
	setenv("GITHUB_REF", "refs/heads/main", 1);
	res = t_ripple(r.dir, autob);
	cr_assert_eq(res.status, 0, "%s", res.err);
	cr_expect(strstr(res.err, "ripple: base ") != NULL, "%s", res.err);
	cr_expect(strstr(res.out, r.c1) != NULL, "the plan's base is c1");
	cr_expect(strstr(res.out, "\"baseline_run\": \"c1\"") != NULL, "%s",
		  res.out);
	t_result_release(&res);
	res = t_ripple(r.dir, given);
	cr_assert_eq(res.status, 0, "%s", res.err);
	cr_expect(strstr(res.err, "ripple: base ") == NULL, "%s", res.err);
	cr_expect(strstr(res.out, r.c2) != NULL, "the plan's base is c2");
	t_result_release(&res);
	teardown_repo(&r);
}

Test(e2e_github_base, the_first_commit_has_no_base_and_plans_everything)
{
	char *dir = t_git_init();
	const char *b[] = { "base", NULL };
	const char *plan[] = { "plan", "--base", "auto", NULL };
	struct run_result r;

	t_write(dir, "ripple.yml", rules);
	t_write(dir, "src/a.c", "int a;\n");
	cr_assert_eq(t_git_commit(dir, "first"), 0);
	unsetenv("GITHUB_EVENT_NAME");
	r = t_ripple(dir, b);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strncmp(r.out, "none  ", 6) == 0, "%s", r.out);
	t_result_release(&r);
	r = t_ripple(dir, plan);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "2 build") || strstr(r.out, "1 build"), "%s",
		  r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
