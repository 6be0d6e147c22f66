/* Suite e2e_release_cli: what `ripple release` prints for people. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static const char rules[] =
	"version: 1\n"
	"roots:\n"
	"  a: {path: a, tags: \"a-v*\"}\n"
	"artifacts:\n"
	"  wheel: {each: {root: roots}, inputs: [root.sources], "
	"command: [\"true\"]}\n"
	"releases:\n"
	"  lib: {each: {root: roots}, tag: root.tags, artifacts: [wheel]}\n";

Test(e2e_release_cli, a_tag_that_does_not_exist_says_so_first)
{
	char *dir = t_git_init();
	const char *argv[] = { "release", "a-v9.9.9", "--dry-run", NULL };
	struct run_result r;

	t_write(dir, "ripple.yml", rules);
	t_write(dir, "a/x.py", "x = 1\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	r = t_ripple(dir, argv);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(!strncmp(r.out, "release a-v9.9.9: NOT RELEASABLE: no tag "
			   "'a-v9.9.9' in this repository", 60), "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_release_cli, publishing_is_refused)
{
	char *dir = t_git_init();
	const char *argv[] = { "release", "a-v1.0.0", NULL };
	struct run_result r;

	t_write(dir, "ripple.yml", rules);
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	r = t_ripple(dir, argv);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "ripple never publishes; pass --dry-run")
		  != NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
