/*
 * Helpers of the planner's end-to-end tests: the small repository, runs
 * recorded with the ripple binary, and JSON output parsed with jansson.
 */
#include "tests/e2e/plan_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static const char rules_fmt[] =
	"version: 1\n"
	"toolkits:\n"
	"  tka: {version: \"1.0.0\", home: /opt/a}\n"
	"  tkb: {version: \"2.0.0\", home: /opt/b}\n"
	"roots:\n"
	"  a: {path: pa, toolkit: tka, tags: \"a-v*\", fallback-version: 0.1.0.dev0}\n"
	"  b: {path: pb, toolkit: tkb, tags: \"b-v*\", fallback-version: 0.1.0.dev0}\n"
	"sources:\n"
	"  shared: {paths: [shared/**]}\n"
	"axes:\n"
	"  python: [\"3.11\", \"3.12\"]\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots, python: axes.python}\n"
	"    inputs: [root.sources, shared]\n"
	"    toolkit: root.toolkit\n"
	"    command: [build, \"${root.path}\", \"${python}\"]\n"
	"tests:\n"
	"  unit:\n"
	"    each: {root: roots}\n"
	"    inputs: [root.tests]\n"
	"    needs: [{node: wheel, where: {python: \"3.12\"}}]\n"
	"    command: [test, \"${root.path}\"]\n"
	"policy:\n"
	"  unclaimed-paths: %s\n"
	"  ignore: [\"docs/**\"]\n";

char *
pt_repo(const char *unclaimed)
{
	char *dir = t_git_init();
	char rules[2048];
	char *out;

	snprintf(rules, sizeof(rules), rules_fmt, unclaimed);
	t_write(dir, "ripple.yml", rules);
	t_write(dir, ".gitignore", ".ripple/\n");
	t_write(dir, "pa/a.py", "a = 1\n");
	t_write(dir, "pa/other.py", "other = 1\n");
	t_write(dir, "pa/tests/test_a.py", "def test(): pass\n");
	t_write(dir, "pb/b.py", "b = 1\n");
	t_write(dir, "pb/tests/test_b.py", "def test(): pass\n");
	t_write(dir, "shared/s.py", "s = 1\n");
	t_write(dir, "docs/index.md", "# docs\n");
	t_write(dir, "tox.ini", "[tox]\n");
	out = pt_sh(dir, "ln -s a.py pa/link && git checkout -q -B main");
	free(out);
	cr_assert_eq(t_git_commit(dir, "init"), 0);
	return dir;
}

char *
pt_sh(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);
	size_t n;

	cr_assert_eq(r.status, 0, "'%s' failed (%d): %s", cmd, r.status,
		     r.err);
	n = strlen(r.out);
	while (n && r.out[n - 1] == '\n')
		r.out[--n] = '\0';
	free(r.err);
	return r.out;
}

static void
ripple_ok(const char *dir, const char *const *argv)
{
	struct run_result r = t_ripple(dir, argv);

	cr_assert_eq(r.status, 0, "ripple %s failed (%d): %s", argv[0],
		     r.status, r.err);
	t_result_release(&r);
}

void
pt_record(const char *dir, const char *run, const char *node,
	  const char *status, const char *extra)
{
	const char *argv[] = { "record", "--run", run, "--node", node,
			       "--status", status, extra && extra[0] ? extra
								     : NULL,
			       NULL };

	ripple_ok(dir, argv);
}

void
pt_finish(const char *dir, const char *run)
{
	const char *argv[] = { "record", "--run", run, "--finish", "ok",
			       NULL };

	ripple_ok(dir, argv);
}

void
pt_record_all(const char *dir, const char *run)
{
	pt_record(dir, run, "*", "ok", "");
	pt_finish(dir, run);
}

json_t *
pt_json(const char *dir, const char *const *argv)
{
	struct run_result r = t_ripple(dir, argv);
	json_error_t je;
	json_t *doc;

	cr_assert_eq(r.status, 0, "ripple %s failed (%d): %s", argv[0],
		     r.status, r.err);
	doc = json_loads(r.out, 0, &je);
	cr_assert_not_null(doc, "not JSON (%s): %s", je.text, r.out);
	t_result_release(&r);
	return doc;
}

const char *
pt_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

json_t *
pt_node(json_t *plan, const char *id)
{
	json_t *nodes = json_object_get(plan, "nodes");
	size_t i;

	cr_assert(json_is_array(nodes), "no nodes array");
	for (i = 0; i < json_array_size(nodes); i++) {
		json_t *n = json_array_get(nodes, i);

		if (!strcmp(pt_str(n, "id"), id))
			return n;
	}
	cr_assert_fail("node %s not in the plan", id);
	return NULL;
}

void
pt_expect(json_t *plan, const char *id, const char *decision,
	  const char *reason)
{
	json_t *n = pt_node(plan, id);

	cr_expect_str_eq(pt_str(n, "decision"), decision, "%s decision", id);
	cr_expect_str_eq(pt_str(n, "reason"), reason, "%s reason", id);
}
