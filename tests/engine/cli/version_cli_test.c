/* Suite engine_version: `ripple version` end to end on a made repository. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static const char rules_text[] =
	"version: 1\n"
	"roots:\n"
	"  bindings-12:\n"
	"    path: b12\n"
	"    role: maintenance\n"
	"    tags: \"v12.9.*\"\n"
	"    exclude-tags: [v12.9.0]\n"
	"    fallback-version: 12.9.8.dev0\n"
	"    fallback-pretend: true\n"
	"    node-length: 7\n"
	"  bindings-13:\n"
	"    path: b13\n"
	"    role: current\n"
	"    tags: \"v13.4.*\"\n";

/* A repository with the rules, tag v13.4.1 then one more commit. */
static char *
make_repo(void)
{
	char *dir = t_git_init();
	struct run_result r;

	t_write(dir, "ripple.yml", rules_text);
	t_write(dir, "b13/a.txt", "a\n");
	cr_assert_eq(t_git_commit(dir, "one"), 0);
	r = t_sh(dir, "git tag v13.4.1 && git tag v12.9.0");
	cr_assert_eq(r.status, 0);
	t_result_release(&r);
	t_write(dir, "b13/a.txt", "b\n");
	cr_assert_eq(t_git_commit(dir, "two"), 0);
	return dir;
}

Test(engine_version, prints_the_next_dev_version)
{
	char *dir = make_repo(), *head = t_git_rev(dir, "HEAD");
	const char *argv[] = { "version", "bindings-13", NULL };
	struct run_result r = t_ripple(dir, argv);
	char want[128];

	snprintf(want, sizeof(want), "13.4.2.dev1+g%.9s\n", head);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, want);
	t_result_release(&r);
	free(head);
	t_rmtree(dir);
	free(dir);
}

/* One broken ref under refs/tags hid every tag: 12.9.9.dev0+g... */
Test(engine_version, a_broken_tag_ref_is_skipped_with_a_warning)
{
	char *dir = t_git_init();
	const char *argv[] = { "version", "b", NULL };
	struct run_result r;

	t_write(dir, "ripple.yml", "version: 1\nroots:\n  b: {path: b, tags: "
		"\"v12.9.*\", fallback-version: 12.9.10.dev0}\n");
	t_write(dir, "b/a.txt", "a\n");
	cr_assert_eq(t_git_commit(dir, "one"), 0);
	r = t_sh(dir, "git tag v12.9.9 && "
		      "echo 'ref: refs/heads/nope' > .git/refs/tags/dangling");
	cr_assert_eq(r.status, 0);
	t_result_release(&r);
	r = t_ripple(dir, argv);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "12.9.9\n");
	cr_expect_str_eq(r.err, "warning: ignoring broken ref "
				"refs/tags/dangling\n");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* v1.18446744073709551615 plus a commit gave "1.0.dev1": it wrapped. */
Test(engine_version, a_release_number_at_2_64_is_refused)
{
	char *dir = t_git_init();
	const char *argv[] = { "version", "b", NULL };
	struct run_result r;

	t_write(dir, "ripple.yml", "version: 1\nroots:\n  b: {path: b, tags: "
		"\"v*\"}\n");
	t_write(dir, "b/a.txt", "a\n");
	cr_assert_eq(t_git_commit(dir, "one"), 0);
	r = t_sh(dir, "git tag v1.18446744073709551615");
	cr_assert_eq(r.status, 0);
	t_result_release(&r);
	t_write(dir, "b/a.txt", "b\n");
	cr_assert_eq(t_git_commit(dir, "two"), 0);
	r = t_ripple(dir, argv);
	cr_expect_eq(r.status, 2, "%s", r.out);
	cr_expect_str_eq(r.out, "");
	cr_expect(strstr(r.err, "tag 'v1.18446744073709551615': tag version "
		  "'1.18446744073709551615' has no next version") != NULL,
		  "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(engine_version, exact_tag_with_rev)
{
	char *dir = make_repo();
	const char *argv[] = { "version", "bindings-13", "--rev", "v13.4.1",
			       NULL };
	struct run_result r = t_ripple(dir, argv);

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "13.4.1\n");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(engine_version, pretend_fallback_as_json)
{
	char *dir = make_repo(), *head = t_git_rev(dir, "HEAD");
	const char *argv[] = { "version", "bindings-12", "--json", NULL };
	struct run_result r = t_ripple(dir, argv);
	char want[128];

	cr_expect_eq(r.status, 0, "%s", r.err);
	snprintf(want, sizeof(want), "\"version\": \"12.9.8.dev0+g%.7s\"",
		 head);
	cr_expect(strstr(r.out, want) != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "\"source\": \"pretend\"") != NULL, "%s",
		  r.out);
	cr_expect(strstr(r.out, "\"tag\": null") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "\"root\": \"bindings-12\"") != NULL);
	t_result_release(&r);
	free(head);
	t_rmtree(dir);
	free(dir);
}

/* Criterion runs each test in its own process: setenv stays local. */
Test(engine_version, dirty_worktree_uses_source_date_epoch)
{
	char *dir = make_repo(), *head = t_git_rev(dir, "HEAD");
	const char *argv[] = { "version", "bindings-13", "--worktree", NULL };
	struct run_result r;
	char want[128];

	t_write(dir, "b13/a.txt", "dirty\n");
	setenv("SOURCE_DATE_EPOCH", "1717200000", 1);
	r = t_ripple(dir, argv);
	snprintf(want, sizeof(want), "13.4.2.dev1+g%.9s.d20240601\n", head);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, want);
	t_result_release(&r);
	free(head);
	t_rmtree(dir);
	free(dir);
}

Test(engine_version, unknown_root_suggests_a_name)
{
	char *dir = make_repo();
	const char *argv[] = { "version", "bindings-31", NULL };
	struct run_result r = t_ripple(dir, argv);

	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "unknown root 'bindings-31'") != NULL, "%s",
		  r.err);
	cr_expect(strstr(r.err, "did you mean") != NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(engine_version, missing_root_is_a_usage_error)
{
	char *dir = make_repo();
	const char *argv[] = { "version", NULL };
	struct run_result r = t_ripple(dir, argv);

	cr_expect_eq(r.status, 2);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(engine_version, rev_reads_the_rules_of_that_commit)
{
	char *dir = make_repo(), *old = t_git_rev(dir, "HEAD");
	const char *at_old[] = { "version", "bindings-12", "--rev", old,
				 NULL };
	char want[128], *text, *at;
	struct run_result r;

	/* Raise the fallback after the commit: --rev keeps the old one. */
	text = strdup(rules_text);
	at = strstr(text, "12.9.8.dev0");
	cr_assert_not_null(at);
	memcpy(at, "12.9.9", 6);
	t_write(dir, "ripple.yml", text);
	free(text);
	cr_assert_eq(t_git_commit(dir, "raise the fallback"), 0);
	r = t_ripple(dir, at_old);
	snprintf(want, sizeof(want), "12.9.8.dev0+g%.7s\n", old);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, want);
	t_result_release(&r);
	free(old);
	t_rmtree(dir);
	free(dir);
}
