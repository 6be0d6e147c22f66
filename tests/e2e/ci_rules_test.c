/*
 * Suite e2e_ci_rules: what real CI needs of the rules (issue 26), on small
 * repositories made here with real shell actions: variables passed through
 * unkeyed and unrecorded (pass-env), containers, GPU artifacts, tracked
 * files an action rewrites, output groups, axes read from a file.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static char *
make_repo(const char *rules)
{
	char *dir = t_git_init();

	t_write(dir, ".gitignore", ".ripple/\nout/\n");
	t_write(dir, "ripple.yml", rules);
	t_write(dir, "src/lib.txt", "hello\n");
	t_write(dir, "tests/t.txt", "test\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	return dir;
}

static json_t *
parse(const char *text)
{
	json_error_t je;
	json_t *doc = json_loads(text, 0, &je);

	cr_assert_not_null(doc, "bad JSON: %s\n%s", je.text, text);
	return doc;
}

/* id -> field of every node of a plan or run JSON document. */
static const char *
node_field(json_t *doc, const char *id, const char *field)
{
	json_t *nodes = json_object_get(doc, "nodes"), *n;
	size_t i;

	json_array_foreach(nodes, i, n)
		if (!strcmp(json_string_value(json_object_get(n, "id")), id))
			return json_string_value(json_object_get(n, field));
	return NULL;
}

/* Run ripple; assert its exit status; return stdout (malloc'd). */
static char *
ok(const char *dir, int status, const char *const *argv)
{
	struct run_result r = t_ripple(dir, argv);
	char *out;

	cr_assert_eq(r.status, status, "ripple %s: exit %d\n%s%s", argv[0],
		     r.status, r.out, r.err);
	out = strdup(r.out);
	cr_assert_not_null(out);
	t_result_release(&r);
	return out;
}

/* No file under dir/rel holds `value` (grep -r over every byte). */
static void
expect_nowhere(const char *dir, const char *rel, const char *value)
{
	struct run_result r;
	char cmd[PATH_MAX + 256];

	snprintf(cmd, sizeof(cmd), "test -e '%s' && ! grep -rlaF -e '%s' "
		 "'%s'", rel, value, rel);
	r = t_sh(dir, cmd);
	cr_expect_eq(r.status, 0, "'%s' found under %s/%s:\n%s%s", value,
		     dir, rel, r.out, r.err);
	t_result_release(&r);
}

static const char pass_yml[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [\"src/**\"]}\n"
	"artifacts:\n"
	"  lib:\n"
	"    inputs: [src]\n"
	"    env: {MODE: release}\n"
	"    pass-env: [GH_TOKEN, \"SCCACHE_*\"]\n"
	"    command: \"mkdir -p out && test -n \\\"$GH_TOKEN\\\" && "
	"printf '%s %s %s' $${#GH_TOKEN} $${#SCCACHE_BUCKET} "
	"$${NOT_PASSED:-unset} > out/lib.bin\"\n"
	"    outputs: [out/lib.bin]\n"
	"tests:\n"
	"  lib-test:\n"
	"    needs: [lib]\n"
	"    command: \"test -z \\\"$GH_TOKEN\\\" && grep -q unset out/lib.bin\"\n";

#define TOKEN "ghp_s3cr3tT0kenValue4211"
#define BUCKET "bucket-secret-9f8e7d"

Test(e2e_ci_rules, pass_env_reaches_the_action_and_appears_nowhere)
{
	char *dir = make_repo(pass_yml);
	const char *run[] = { "run", "--run-id", "r1", "--json", NULL };
	const char *run2[] = { "run", "--run-id", "r2", "--base", "HEAD",
			       "--json", NULL };
	const char *plan[] = { "plan", "--json", NULL };
	const char *why[] = { "why", "artifact:lib", "--json", NULL };
	const char *keys[] = { "keys", "--components", "--json", NULL };
	const char *graph[] = { "graph", "--format", "json", NULL };
	const char *jobs[] = { "jobs", "--json", NULL };
	const char *runs[] = { "runs", "--json", NULL };
	const char *const *all[] = { plan, why, keys, graph, jobs, runs };
	char path[PATH_MAX], *out, *text;
	json_t *doc;
	size_t i;

	setenv("GH_TOKEN", TOKEN, 1);
	setenv("SCCACHE_BUCKET", BUCKET, 1);
	setenv("NOT_PASSED", "x", 1);
	out = ok(dir, 0, run);
	doc = parse(out);
	cr_expect_str_eq(node_field(doc, "artifact:lib", "status"), "ok");
	cr_expect_str_eq(node_field(doc, "test:lib-test", "status"), "ok");
	cr_expect_null(strstr(out, TOKEN));
	cr_expect_null(strstr(out, BUCKET));
	json_decref(doc);
	free(out);
	snprintf(path, sizeof(path), "%s/out/lib.bin", dir);
	text = t_read(path);
	cr_expect_str_eq(text, "24 20 unset",
			 "the action saw both values, and nothing unlisted");
	free(text);
	/* Another value of a passed variable keys nothing: reused. */
	setenv("GH_TOKEN", "ghp_another_value", 1);
	out = ok(dir, 0, run2);
	doc = parse(out);
	cr_expect_str_eq(node_field(doc, "artifact:lib", "status"), "reused");
	json_decref(doc);
	free(out);
	setenv("GH_TOKEN", TOKEN, 1);
	for (i = 0; i < sizeof(all) / sizeof(*all); i++) {
		out = ok(dir, 0, all[i]);
		cr_expect_null(strstr(out, TOKEN), "%s shows the token",
			       all[i][0]);
		cr_expect_null(strstr(out, BUCKET), "%s shows the bucket",
			       all[i][0]);
		if (all[i] == keys) {
			cr_expect_not_null(strstr(out, "pass-env"));
			cr_expect_not_null(strstr(out, "SCCACHE_*"),
					   "keys show the names: %s", out);
		}
		free(out);
	}
	expect_nowhere(dir, ".ripple", TOKEN);
	expect_nowhere(dir, ".ripple", BUCKET);
	expect_nowhere(dir, ".ripple", "ghp_another_value");
	expect_nowhere(dir, "out", TOKEN);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci_rules, pass_env_names_are_checked)
{
	static const char bad[] =
		"version: 1\n"
		"artifacts:\n"
		"  lib:\n"
		"    env: {GH_TOKEN: x}\n"
		"    pass-env: [\"GH_*\", \"BAD-NAME\"]\n"
		"    command: [true]\n";
	char *dir = make_repo(bad);
	const char *check[] = { "check", NULL };
	struct run_result r = t_ripple(dir, check);

	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "ripple.yml:5:16: error: "
				  "'GH_TOKEN' is in both env and pass-env"),
			   "%s", r.err);
	cr_expect_not_null(strstr(r.err, "ripple.yml:5:24: error: invalid "
				  "pass-env name 'BAD-NAME'"), "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
