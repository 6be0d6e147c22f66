/*
 * Suite e2e_plan_gpu: GPU tests a baseline run deferred (its runners had
 * no matching GPU) are planned to run, as `baseline-deferred`, and are not
 * root causes of the change being planned; a GPU test the change adds is
 * still `new-node`.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

/* No GPU anywhere has 1 EiB: the GPU test is deferred on every host. */
static const char rules_yml[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [\"src/**\"]}\n"
	"  docs: {paths: [\"docs/**\"]}\n"
	"artifacts:\n"
	"  lib:\n"
	"    inputs: [src]\n"
	"    command: \"true\"\n"
	"  site:\n"
	"    inputs: [docs]\n"
	"    command: \"true\"\n"
	"tests:\n"
	"  gpu-test:\n"
	"    needs: [lib]\n"
	"    command: \"true\"\n"
	"    gpu: {count: 1, min-memory: 1073741824}\n";

static const char added_gpu_test[] =
	"  gpu-test-2:\n"
	"    needs: [lib]\n"
	"    command: \"true\"\n"
	"    gpu: {count: 1, min-memory: 1073741824}\n";

/* A repository whose main has a baseline run that deferred gpu-test. */
static char *
make_repo(void)
{
	char *dir = t_git_init();
	const char *run[] = { "run", "--run-id", "base", NULL };
	struct run_result r;

	t_write(dir, ".gitignore", ".ripple/\n");
	t_write(dir, "ripple.yml", rules_yml);
	t_write(dir, "src/lib.c", "int x;\n");
	t_write(dir, "docs/index.md", "# docs\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	r = t_ripple(dir, run);
	cr_assert_eq(r.status, 4, "the GPU test is deferred: %s%s", r.out,
		     r.err);
	cr_assert(strstr(r.out, "deferred: test:gpu-test") != NULL, "%s",
		  r.out);
	t_result_release(&r);
	r = t_sh(dir, "git checkout -q -b pr");
	t_result_release(&r);
	return dir;
}

static json_t *
plan(const char *dir)
{
	const char *argv[] = { "plan", "--base", "main", "--json", NULL };
	struct run_result r = t_ripple(dir, argv);
	json_error_t je;
	json_t *doc;

	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = json_loads(r.out, 0, &je);
	cr_assert_not_null(doc, "%s", je.text);
	t_result_release(&r);
	return doc;
}

static const char *
field(json_t *doc, const char *id, const char *name)
{
	json_t *nodes = json_object_get(doc, "nodes"), *n;
	size_t i;

	json_array_foreach(nodes, i, n)
		if (!strcmp(json_string_value(json_object_get(n, "id")), id))
			return json_string_value(json_object_get(n, name));
	cr_assert_fail("no node %s", id);
	return NULL;
}

Test(e2e_plan_gpu, a_test_deferred_on_the_baseline_is_not_a_root_cause)
{
	char *dir = make_repo();
	const char *text[] = { "plan", "--base", "main", NULL };
	struct run_result r;
	json_t *doc;

	t_write(dir, "docs/index.md", "# better docs\n");
	cr_assert_eq(t_git_commit(dir, "docs"), 0);
	doc = plan(dir);
	cr_expect_str_eq(field(doc, "artifact:site", "reason"),
			 "input-content-changed");
	cr_expect_str_eq(field(doc, "test:gpu-test", "decision"), "test");
	cr_expect_str_eq(field(doc, "test:gpu-test", "reason"),
			 "baseline-deferred");
	cr_expect_eq(json_integer_value(json_object_get(doc, "root_causes")),
		     1, "only the docs change is a root cause");
	json_decref(doc);
	r = t_ripple(dir, text);
	cr_expect(strstr(r.out, "\ndeferred in the baseline run") != NULL,
		  "%s", r.out);
	cr_expect(strstr(r.out, "1 root cause") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan_gpu, a_gpu_test_the_change_adds_is_a_new_node)
{
	char *dir = make_repo();
	char *yml = malloc(sizeof(rules_yml) + sizeof(added_gpu_test));
	json_t *doc;

	cr_assert(yml);
	snprintf(yml, sizeof(rules_yml) + sizeof(added_gpu_test), "%s%s",
		 rules_yml, added_gpu_test);
	t_write(dir, "ripple.yml", yml);
	free(yml);
	cr_assert_eq(t_git_commit(dir, "another GPU test"), 0);
	doc = plan(dir);
	cr_expect_str_eq(field(doc, "test:gpu-test-2", "reason"), "new-node");
	cr_expect_str_eq(field(doc, "test:gpu-test", "reason"),
			 "baseline-deferred");
	cr_expect_eq(json_integer_value(json_object_get(doc, "root_causes")),
		     1);
	json_decref(doc);
	t_rmtree(dir);
	free(dir);
}
