/*
 * Drift checks: each kind of value (rules fields, YAML and JSON key paths,
 * regex groups, literals), each kind of problem, the positions reported,
 * and `ripple check` on the demo repository.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "rules/drift.h"
#include "rules/rules.h"
#include "tests/support/support.h"

/* An in-memory tree: NULL-terminated pairs of path and text. */
static int
read_mem(void *payload, const char *path, struct buf *out, struct error *err)
{
	const char *const *files = payload;
	size_t i;

	for (i = 0; files[i]; i += 2)
		if (!strcmp(files[i], path))
			return buf_addstr(out, files[i + 1], err);
	return error_set(err, ERROR_NOT_FOUND, "no file '%s'", path);
}

#define RULES_HEAD \
	"version: 1\n" \
	"toolkits:\n" \
	"  ctk12: {version: \"12.9.1\"}\n" \
	"roots:\n" \
	"  b12:\n" \
	"    path: cuda_bindings_12\n" \
	"    toolkit: ctk12\n" \
	"    tags: [\"v12.9.*\", \"v12.8.*\"]\n" \
	"    fallback-version: 12.9.10.dev0\n" \
	"  b13: {path: cuda_bindings, tags: \"v13.*\"}\n" \
	"sources:\n" \
	"  ci: {paths: [ci/**, .github/**]}\n" \
	"axes:\n" \
	"  python: [\"3.12\", \"3.13\"]\n" \
	"checks:\n"

struct outcome {
	int rc;
	size_t n_ok;
	struct error_list errors;
};

/* Load RULES_HEAD + checks and evaluate them over files. */
static struct outcome
evaluate(const char *checks, const char *const *files)
{
	struct outcome o;
	struct rules *r = NULL;
	char text[8192];
	int rc;

	snprintf(text, sizeof(text), "%s%s", RULES_HEAD, checks);
	error_list_init(&o.errors, 0);
	rc = rules_load_buffer("ripple.yml", text, strlen(text), &r, &o.errors);
	cr_assert_eq(rc, 0, "load: %s", o.errors.n ? o.errors.items[0].msg : "");
	o.n_ok = 99;
	o.rc = rules_drift_evaluate_read(r, read_mem, (void *)files, &o.n_ok,
					 &o.errors);
	rules_free(r);
	return o;
}

static void
expect_error(const struct outcome *o, size_t i, int code, const char *file,
	     unsigned line, unsigned col, const char *msg)
{
	const struct error *e;

	cr_assert_lt(i, o->errors.n, "only %zu errors", o->errors.n);
	e = &o->errors.items[i];
	cr_expect_eq(e->code, code, "code %d: %s", e->code, e->msg);
	cr_expect_str_eq(e->file, file);
	cr_expect_eq(e->line, line, "line %u: %s", e->line, e->msg);
	cr_expect_eq(e->col, col, "col %u: %s", e->col, e->msg);
	cr_expect_str_eq(e->msg, msg);
}

static const char *const pyproject[] = {
	"p.toml", "[tool]\nname = \"x\"\n  fallback_version = \"12.9.9.dev0\"\n",
	"v.yml", "# pins\ncuda:\n  12: 12.9.1\n  list:\n    - {name: a, v: \"1\"}\n"
		 "    - {name: b, v: \"2\"}\n",
	"v.json", "{\n  \"cuda\": {\"12\": \"12.9.1\", \"n\": 12.90,\n"
		  "    \"l\": [true, {\"x\": \"y\"}]},\n  \"nil\": null\n}\n",
	"bad.yml", "a: [1, 2\n",
	"bad.json", "{\n  \"a\": 1,\n}\n",
	NULL,
};

Test(rules_drift, rule_field_and_regex_that_agree_pass)
{
	struct outcome o = evaluate(
		"  c:\n"
		"    - {rule: roots.b12.fallback-version}\n"
		"    - {value: 12.9.10.dev0}\n", pyproject);

	cr_expect_eq(o.rc, 0);
	cr_expect_eq(o.n_ok, 1);
	cr_expect_eq(o.errors.n, 0);
	error_list_release(&o.errors);
}

Test(rules_drift, disagreement_names_both_places_and_values)
{
	struct outcome o = evaluate(
		"  fb:\n"
		"    - {rule: roots.b12.fallback-version}\n"
		"    - {file: p.toml, regex: 'fallback_version = \"([^\"]+)\"'}\n",
		pyproject);

	cr_expect_eq(o.rc, ERROR_CONFLICT);
	cr_expect_eq(o.n_ok, 0);
	cr_assert_eq(o.errors.n, 1);
	expect_error(&o, 0, ERROR_CONFLICT, "ripple.yml", 9, 23,
		     "check 'fb': roots.b12.fallback-version is "
		     "\"12.9.10.dev0\" but p.toml:3:23 (the regex match) is "
		     "\"12.9.9.dev0\"");
	cr_expect_str_eq(o.errors.items[0].hint,
			 "make them agree; the check is at ripple.yml:16:3");
	error_list_release(&o.errors);
}

Test(rules_drift, yaml_key_paths_with_list_indexes_and_positions)
{
	struct outcome o = evaluate(
		"  y:\n"
		"    - {file: v.yml, key: cuda.list.1.v}\n"
		"    - {file: v.yml, key: cuda.12}\n", pyproject);

	cr_assert_eq(o.errors.n, 1);
	expect_error(&o, 0, ERROR_CONFLICT, "v.yml", 6, 20,
		     "check 'y': key 'cuda.list.1.v' is \"2\" but v.yml:3:7 "
		     "(key 'cuda.12') is \"12.9.1\"");
	error_list_release(&o.errors);
}

Test(rules_drift, yaml_problems_are_reported_with_hints)
{
	struct outcome o = evaluate(
		"  y:\n"
		"    - {file: v.yml, key: cuda.13}\n"
		"    - {file: v.yml, key: cuda.list}\n"
		"    - {file: v.yml, key: cuda.list.7}\n"
		"    - {file: bad.yml, key: a}\n"
		"    - {file: gone.yml, key: a}\n", pyproject);

	cr_expect_eq(o.rc, ERROR_NOT_FOUND);
	cr_assert_eq(o.errors.n, 5);
	expect_error(&o, 0, ERROR_NOT_FOUND, "ripple.yml", 17, 7,
		     "check 'y': 'v.yml' has no key 'cuda.13'");
	cr_expect_str_eq(o.errors.items[0].hint, "did you mean 'cuda.12'?");
	expect_error(&o, 1, ERROR_INVALID, "ripple.yml", 18, 7,
		     "check 'y': key 'cuda.list' in 'v.yml' is a list, not a "
		     "value");
	expect_error(&o, 2, ERROR_NOT_FOUND, "ripple.yml", 19, 7,
		     "check 'y': 'v.yml' has no key 'cuda.list.7' (a list of 2)");
	cr_expect_eq(o.errors.items[3].code, ERROR_INVALID);
	cr_expect_str_eq(o.errors.items[3].file, "bad.yml");
	cr_expect_gt(o.errors.items[3].line, 0);
	cr_expect(strncmp(o.errors.items[3].msg, "check 'y': ", 11) == 0);
	expect_error(&o, 4, ERROR_NOT_FOUND, "ripple.yml", 21, 7,
		     "check 'y': no file 'gone.yml'");
	error_list_release(&o.errors);
}

Test(rules_drift, json_values_keep_their_text_and_line)
{
	struct outcome o = evaluate(
		"  j:\n"
		"    - {file: v.json, key: cuda.n}\n"
		"    - {value: \"12.90\"}\n"
		"  k:\n"
		"    - {file: v.json, key: cuda.l.1.x}\n"
		"    - {file: v.json, key: cuda.l.0}\n", pyproject);

	cr_expect_eq(o.n_ok, 1);
	cr_assert_eq(o.errors.n, 1);
	expect_error(&o, 0, ERROR_CONFLICT, "v.json", 3, 23,
		     "check 'k': key 'cuda.l.1.x' is \"y\" but v.json:3:11 "
		     "(key 'cuda.l.0') is \"true\"");
	error_list_release(&o.errors);
}

Test(rules_drift, json_problems_are_reported)
{
	struct outcome o = evaluate(
		"  j:\n"
		"    - {file: v.json, key: cuda.13}\n"
		"    - {file: v.json, key: nil}\n"
		"    - {file: bad.json, key: a}\n", pyproject);

	cr_assert_eq(o.errors.n, 3);
	expect_error(&o, 0, ERROR_NOT_FOUND, "ripple.yml", 17, 7,
		     "check 'j': 'v.json' has no key 'cuda.13'");
	cr_expect_str_eq(o.errors.items[0].hint, "did you mean 'cuda.12'?");
	expect_error(&o, 1, ERROR_INVALID, "ripple.yml", 18, 7,
		     "check 'j': key 'nil' in 'v.json' is null, not a value");
	cr_expect_eq(o.errors.items[2].code, ERROR_INVALID);
	cr_expect_str_eq(o.errors.items[2].file, "bad.json");
	cr_expect_eq(o.errors.items[2].line, 3);
	cr_expect(strncmp(o.errors.items[2].msg, "check 'j': invalid JSON: ",
			  25) == 0, "%s", o.errors.items[2].msg);
	error_list_release(&o.errors);
}

Test(rules_drift, regex_that_matches_nothing_is_an_error)
{
	struct outcome o = evaluate(
		"  r:\n"
		"    - {file: p.toml, regex: 'version = ([0-9]+)$'}\n"
		"    - {value: x}\n", pyproject);

	cr_expect_eq(o.rc, ERROR_NOT_FOUND);
	cr_expect_eq(o.n_ok, 0);
	cr_assert_eq(o.errors.n, 1);
	expect_error(&o, 0, ERROR_NOT_FOUND, "ripple.yml", 17, 7,
		     "check 'r': regex 'version = ([0-9]+)$' matches nothing "
		     "in 'p.toml'");
	error_list_release(&o.errors);
}

Test(rules_drift, each_differing_value_is_one_error_against_the_first)
{
	struct outcome o = evaluate(
		"  l:\n"
		"    - {value: a}\n"
		"    - {value: b}\n"
		"    - {value: a}\n"
		"    - {value: c}\n", pyproject);

	cr_assert_eq(o.errors.n, 2);
	expect_error(&o, 0, ERROR_CONFLICT, "ripple.yml", 17, 7,
		     "check 'l': the literal value is \"a\" but ripple.yml:18:7 "
		     "(the literal value) is \"b\"");
	expect_error(&o, 1, ERROR_CONFLICT, "ripple.yml", 17, 7,
		     "check 'l': the literal value is \"a\" but ripple.yml:20:7 "
		     "(the literal value) is \"c\"");
	error_list_release(&o.errors);
}

Test(rules_drift, rule_fields_render_lists_defaults_and_numbers)
{
	struct outcome o = evaluate(
		"  tags: [{rule: roots.b12.tags}, {value: \"v12.9.*, v12.8.*\"}]\n"
		"  prefix: [{rule: roots.b13.tag-prefix}, {value: v}]\n"
		"  nodes: [{rule: roots.b13.node-length}, {value: \"9\"}]\n"
		"  home: [{rule: toolkits.ctk12.home}, {value: /usr/local/cuda-12.9}]\n"
		"  major: [{rule: toolkits.ctk12.major}, {value: \"12\"}]\n"
		"  src: [{rule: sources.ci.paths}, {value: \"ci/**, .github/**\"}]\n"
		"  axis: [{rule: axes.python}, {value: \"3.12, 3.13\"}]\n"
		"  tk: [{rule: roots.b12.toolkit}, {value: ctk12}]\n"
		"  pretend: [{rule: roots.b12.fallback-pretend}, {value: \"false\"}]\n",
		pyproject);

	cr_expect_eq(o.rc, 0, "%s", o.errors.n ? o.errors.items[0].msg : "");
	cr_expect_eq(o.n_ok, 9);
	error_list_release(&o.errors);
}

Test(rules_drift, unset_rule_field_is_an_error)
{
	struct outcome o = evaluate(
		"  fb: [{rule: roots.b13.fallback-version}, {value: x}]\n",
		pyproject);

	cr_assert_eq(o.errors.n, 1);
	expect_error(&o, 0, ERROR_NOT_FOUND, "ripple.yml", 16, 8,
		     "check 'fb': roots.b13.fallback-version is not set");
	cr_expect_str_eq(o.errors.items[0].hint, "set 'fallback-version' in "
			 "root 'b13', or leave it out of the check");
	error_list_release(&o.errors);
}

Test(rules_drift, read_dir_reads_files_and_refuses_escapes)
{
	char *dir = t_tmpdir();
	struct buf b = BUF_INIT;
	struct error e;

	t_write(dir, "a/b.txt", "hello\n");
	error_init(&e);
	cr_expect_eq(rules_drift_read_dir(dir, "a/b.txt", &b, &e), 0);
	cr_expect_str_eq(b.data, "hello\n");
	cr_expect_eq(rules_drift_read_dir(dir, "a/../../x", &b, &e),
		     ERROR_INVALID);
	cr_expect_str_eq(e.msg, "path 'a/../../x' leaves the repository");
	error_init(&e);
	cr_expect_eq(rules_drift_read_dir(dir, "nope", &b, &e), ERROR_NOT_FOUND);
	cr_expect_str_eq(e.msg, "no file 'nope'");
	buf_release(&b);
	t_rmtree(dir);
	free(dir);
}

/* make-demo-repo into TMP/demo; returns the repository's path. */
static char *
make_demo(const char *tmp)
{
	char *src = realpath(t_srcdir(), NULL), cmd[3 * PATH_MAX], *repo;
	struct run_result r;

	cr_assert_not_null(src);
	snprintf(cmd, sizeof(cmd), "'%s/examples/cuda-bindings/make-demo-repo' "
		 "demo", src);
	r = t_sh(tmp, cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	free(src);
	repo = malloc(strlen(tmp) + 6);
	cr_assert_not_null(repo);
	snprintf(repo, strlen(tmp) + 6, "%s/demo", tmp);
	return repo;
}

Test(rules_drift, demo_repository_passes_and_an_edit_fails)
{
	char *tmp = t_tmpdir(), *repo = make_demo(tmp);
	const char *argv[] = { "-C", repo, "check", NULL };
	const char *nodrift[] = { "-C", repo, "check", "--no-drift", NULL };
	struct run_result r;

	r = t_ripple(".", argv);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "5 checks (5 agree)") != NULL, "%s", r.out);
	t_result_release(&r);
	r = t_sh(repo, "sed 's/12.9.10.dev0\"/12.9.9.dev0\"/' "
		 "cuda_bindings_12/pyproject.toml > p && "
		 "mv p cuda_bindings_12/pyproject.toml");
	cr_assert_eq(r.status, 0);
	t_result_release(&r);
	r = t_ripple(".", argv);
	cr_expect_eq(r.status, 2);
	cr_expect_str_eq(r.out, "");
	cr_expect(strstr(r.err, "error: check 'bindings-12-fallback': "
			 "roots.bindings-12.fallback-version is "
			 "\"12.9.10.dev0\" but cuda_bindings_12/pyproject.toml:") != NULL,
		  "%s", r.err);
	cr_expect(strstr(r.err, "is \"12.9.9.dev0\"\n") != NULL, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(".", nodrift);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "5 checks\n") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(tmp);
	free(repo);
	free(tmp);
}
