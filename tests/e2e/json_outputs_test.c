/*
 * Suite e2e_json_outputs: the JSON outputs no other test reads, printed
 * once each so that `ninja check` validates them against docs/schemas/
 * (tests/schemas/validate.sh, over what tests/support keeps). Each test
 * also checks that stdout is one JSON document.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static const char rules_yml[] =
	"version: 1\n"
	"toolkits:\n"
	"  ctk: {version: '12.9.1', home: /nonexistent/ripple-ctk}\n"
	"sources:\n"
	"  src: {paths: [\"src/**\"]}\n"
	"artifacts:\n"
	"  lib:\n"
	"    inputs: [src]\n"
	"    toolkit: ctk\n"
	"    command: \"true\"\n"
	"tests:\n"
	"  t: {needs: [lib], command: \"true\"}\n";

static char *
make_repo(void)
{
	char *dir = t_git_init();

	t_write(dir, "ripple.yml", rules_yml);
	t_write(dir, "src/a.c", "int a;\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	return dir;
}

/* Run ripple; stdout must be one JSON document. Returns it (decref). */
static json_t *
json_of(const char *dir, const char *const *argv, int want_status)
{
	struct run_result r = t_ripple(dir, argv);
	json_error_t je;
	json_t *doc;

	cr_assert_eq(r.status, want_status, "%s: %s", argv[0], r.err);
	doc = json_loads(r.out, 0, &je);
	cr_assert_not_null(doc, "%s: %s\n%s", argv[0], je.text, r.out);
	t_result_release(&r);
	return doc;
}

Test(e2e_json_outputs, keys)
{
	char *dir = make_repo();
	const char *keys[] = { "keys", "--json", NULL };
	const char *comps[] = { "keys", "--json", "--components", NULL };
	json_t *doc = json_of(dir, keys, 0);

	cr_expect_str_eq(json_string_value(json_object_get(doc, "schema")),
			 "ripple-keys-v1");
	json_decref(doc);
	doc = json_of(dir, comps, 0);
	cr_expect(json_array_size(json_object_get(json_array_get(
		json_object_get(doc, "nodes"), 0), "components")) > 0);
	json_decref(doc);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_json_outputs, toolkits_and_devices)
{
	char *dir = make_repo();
	const char *tk[] = { "toolkits", "--json", NULL };
	const char *dev[] = { "devices", "--json", "--home",
			      "/nonexistent/ripple-ctk", NULL };
	json_t *doc = json_of(dir, tk, 0);

	cr_expect(json_is_false(json_object_get(json_array_get(
		json_object_get(doc, "toolkits"), 0), "found")));
	json_decref(doc);
	doc = json_of(dir, dev, 0);
	cr_expect_eq(json_array_size(json_object_get(doc, "devices")), 0);
	cr_expect(json_is_string(json_object_get(doc, "reason")));
	json_decref(doc);
	t_rmtree(dir);
	free(dir);
}

/* Prints JSON where a toolkit is installed (passed or deferred). */
Test(e2e_json_outputs, cuda_smoke_where_a_toolkit_is_installed)
{
	char *dir = make_repo();
	const char *argv[] = { "cuda-smoke", "--json", "--no-cache", NULL };
	struct run_result r = t_ripple(dir, argv);
	json_error_t je;
	json_t *doc;

	if (r.status == 3 && !r.out[0]) {
		t_result_release(&r);
		t_rmtree(dir);
		free(dir);
		cr_skip_test("no CUDA toolkit here");
	}
	doc = json_loads(r.out, 0, &je);
	cr_expect_not_null(doc, "%s\n%s", je.text, r.out);
	json_decref(doc);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_json_outputs, check)
{
	char *dir = make_repo();
	const char *check[] = { "check", "--json", NULL };
	json_t *doc = json_of(dir, check, 0);

	cr_expect(json_is_true(json_object_get(doc, "ok")));
	json_decref(doc);
	t_rmtree(dir);
	free(dir);
}
