/*
 * Suite engine_check: `ripple check` end to end: warnings about source
 * sets that make the unclaimed-paths fallback misbehave, and --json.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static struct run_result
check_rules(const char *rules, const char *extra)
{
	char *dir = t_git_init();
	const char *argv[] = { "check", extra, NULL };
	struct run_result r;

	t_write(dir, "ripple.yml", rules);
	r = t_ripple(dir, argv);
	t_rmtree(dir);
	free(dir);
	return r;
}

Test(engine_check, a_source_no_rule_uses_is_a_warning)
{
	struct run_result r = check_rules(
		"version: 1\n"
		"sources:\n"
		"  src: {paths: [\"src/**\"]}\n"
		"  tools: {paths: [\"tools/**\"]}\n"
		"artifacts:\n"
		"  a: {inputs: [src], command: \"true\"}\n", NULL);

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err,
		"ripple.yml:4:3: warning: source 'tools' is used by no rule: "
		"its paths are unclaimed, so a change there rebuilds "
		"everything (policy unclaimed-paths: rebuild-all)\n"
		"  hint: add it to a rule's inputs: or needs:, or delete it\n");
	cr_expect(strstr(r.out, "ripple.yml: ok:") == r.out, "%s", r.out);
	t_result_release(&r);
}

Test(engine_check, a_source_claiming_every_path_is_a_warning)
{
	struct run_result r = check_rules(
		"version: 1\n"
		"sources:\n"
		"  all: {paths: [\"**\"], exclude: [\"docs/**\"]}\n"
		"artifacts:\n"
		"  a: {inputs: [all], command: \"true\"}\n", NULL);

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err,
		"ripple.yml:3:3: warning: source 'all' claims every path "
		"('**'): no change is ever unclaimed, so policy "
		"unclaimed-paths: rebuild-all never applies\n"
		"  hint: list the folders it needs, or say so with policy: "
		"{unclaimed-paths: ignore}\n");
	t_result_release(&r);
}

Test(engine_check, no_catch_all_warning_when_the_fallback_is_off_or_scoped)
{
	struct run_result r = check_rules(
		"version: 1\n"
		"sources:\n"
		"  all: {paths: [\"**\"]}\n"
		"artifacts:\n"
		"  a: {inputs: [all], command: \"true\"}\n"
		"policy: {unclaimed-paths: ignore}\n", NULL);

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err, "");
	t_result_release(&r);
	r = check_rules(
		"version: 1\n"
		"sources:\n"
		"  py: {paths: [\"*.py\", \"src/**\"]}\n"
		"artifacts:\n"
		"  a: {inputs: [py], command: \"true\"}\n", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err, "");
	t_result_release(&r);
}

static json_t *
parse(const char *text)
{
	json_error_t je;
	json_t *doc = json_loads(text, 0, &je);

	cr_assert_not_null(doc, "bad JSON: %s\n%s", je.text, text);
	return doc;
}

Test(engine_check, json_reports_counts_warnings_and_errors_on_stdout)
{
	struct run_result r = check_rules(
		"version: 1\n"
		"sources:\n"
		"  src: {paths: [\"src/**\"]}\n"
		"  tools: {paths: [\"tools/**\"]}\n"
		"artifacts:\n"
		"  a: {inputs: [src], command: \"true\"}\n", "--json");
	json_t *doc, *w;

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err, "");
	doc = parse(r.out);
	cr_expect_str_eq(json_string_value(json_object_get(doc, "schema")),
			 "ripple-check-v1");
	cr_expect(json_is_true(json_object_get(doc, "ok")));
	cr_expect_eq(json_integer_value(json_object_get(
		json_object_get(doc, "counts"), "sources")), 2);
	w = json_array_get(json_object_get(doc, "warnings"), 0);
	cr_expect_eq(json_integer_value(json_object_get(w, "line")), 4);
	cr_expect(strstr(json_string_value(json_object_get(w, "message")),
			 "source 'tools' is used by no rule") != NULL);
	json_decref(doc);
	t_result_release(&r);
	r = check_rules("version: 1\nartifacts:\n  a: {inputs: [nope], "
			"command: \"true\"}\n", "--json");
	cr_expect_eq(r.status, 2);
	cr_expect_str_eq(r.err, "");
	doc = parse(r.out);
	cr_expect(json_is_false(json_object_get(doc, "ok")));
	cr_expect(json_is_null(json_object_get(doc, "counts")));
	w = json_array_get(json_object_get(doc, "errors"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(w, "message")),
			 "unknown source or rule 'nope'");
	cr_expect_str_eq(json_string_value(json_object_get(w, "code")),
			 "invalid");
	json_decref(doc);
	t_result_release(&r);
}

Test(engine_check, json_reports_every_rule_that_fails_to_expand)
{
	/* Two rules fail once their templates are filled in: both are
	 * reported, in file order, each at its value with its node id. */
	struct run_result r = check_rules(
		"version: 1\n"
		"axes:\n"
		"  d: [ok, \"..\"]\n"
		"artifacts:\n"
		"  b:\n"
		"    each: {d: axes.d}\n"
		"    command: \"true\"\n"
		"    outputs: [\"out/${d}/x\"]\n"
		"  a:\n"
		"    each: {d: axes.d}\n"
		"    command: \"true\"\n"
		"    cwd: \"${d}\"\n", "--json");
	json_t *doc, *errors, *e;

	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect_str_eq(r.err, "");
	doc = parse(r.out);
	errors = json_object_get(doc, "errors");
	cr_assert_eq(json_array_size(errors), 2, "%s", r.out);
	e = json_array_get(errors, 0);
	cr_expect_eq(json_integer_value(json_object_get(e, "line")), 8);
	cr_expect_eq(json_integer_value(json_object_get(e, "col")), 15);
	cr_expect_str_eq(json_string_value(json_object_get(e, "node")),
			 "artifact:b[d=..]");
	e = json_array_get(errors, 1);
	cr_expect_eq(json_integer_value(json_object_get(e, "line")), 12);
	cr_expect_eq(json_integer_value(json_object_get(e, "col")), 10);
	cr_expect_str_eq(json_string_value(json_object_get(e, "node")),
			 "artifact:a[d=..]");
	json_decref(doc);
	t_result_release(&r);
}
