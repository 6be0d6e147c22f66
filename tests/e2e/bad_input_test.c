/*
 * Suite e2e_bad_input: repositories and arguments a user should not give
 * ripple, which it must survive with a clear error or a correct result.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static const char rules_yml[] =
	"version: 1\n"
	"sources:\n"
	"  s: {paths: [\"**\"]}\n"
	"artifacts:\n"
	"  a:\n"
	"    inputs: [s]\n"
	"    command: \"mkdir -p out && echo hi > out/a\"\n"
	"    outputs: [out/a]\n";

Test(e2e_bad_input, non_utf8_file_name_runs_and_is_listed_in_plan_json)
{
	char *dir = t_git_init();
	const char *run[] = { "run", NULL };
	const char *plan[] = { "plan", "--base", "HEAD~1",
			       "--assume-base-built", "--json", NULL };
	struct run_result r;
	json_t *doc, *paths;

	t_write(dir, ".gitignore", ".ripple/\nout/\n");
	t_write(dir, "ripple.yml", rules_yml);
	t_write(dir, "bad\xff.txt", "one\n");
	cr_assert_eq(t_git_commit(dir, "one"), 0);
	t_write(dir, "bad\xff.txt", "two\n");
	cr_assert_eq(t_git_commit(dir, "two"), 0);

	r = t_ripple(dir, run);
	cr_expect_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);

	r = t_ripple(dir, plan);
	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = json_loads(r.out, 0, NULL);
	cr_assert_not_null(doc, "%s", r.out);
	paths = json_object_get(doc, "changed_paths");
	cr_expect_eq(json_array_size(paths), 1, "%s", r.out);
	cr_expect_str_eq(json_string_value(json_array_get(paths, 0)),
			 "bad\\xff.txt");
	json_decref(doc);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_bad_input, dash_c_to_a_file_or_nothing_is_a_usage_error)
{
	char *dir = t_tmpdir(), path[4200];
	const char *file[] = { "-C", path, "plan", NULL };
	const char *none[] = { "-C", "no/such/dir", "plan", NULL };
	struct run_result r;

	snprintf(path, sizeof(path), "%s/f.txt", dir);
	t_write(dir, "f.txt", "x\n");
	r = t_ripple(dir, file);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "-C") && strstr(r.err, "not a directory"),
		  "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, none);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "'no/such/dir'") &&
		  strstr(r.err, "No such file or directory"), "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_bad_input, output_glob_matching_a_directory_says_so)
{
	char *dir = t_git_init();
	const char *run[] = { "run", NULL };
	struct run_result r;

	t_write(dir, ".gitignore", ".ripple/\nout/\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"sources:\n"
		"  s: {paths: [\"*.txt\"]}\n"
		"artifacts:\n"
		"  a:\n"
		"    inputs: [s]\n"
		"    command: \"mkdir -p out/dir && touch out/dir/f\"\n"
		"    outputs: [out/dir]\n");
	t_write(dir, "f.txt", "x\n");
	cr_assert_eq(t_git_commit(dir, "one"), 0);
	r = t_ripple(dir, run);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.out, "'out/dir' is a directory") != NULL, "%s",
		  r.out);
	cr_expect(strstr(r.out, "out/dir/**") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
