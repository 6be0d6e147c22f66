/*
 * End-to-end checks of the plan's outputs: byte-identical JSON across
 * runs, GitHub Actions matrices within GitHub's 256-job limit, and the
 * step summary's Mermaid graph.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/e2e/plan_support.h"
#include "tests/support/support.h"

Test(e2e_plan_output, two_identical_runs_give_byte_identical_json)
{
	char *dir = pt_repo("rebuild-all");
	const char *argv[] = { "plan", "--base", "main", "--json", NULL };
	struct run_result a, b;

	pt_record_all(dir, "base1");
	free(pt_sh(dir, "git checkout -q -b pr && echo 'a = 9' > pa/a.py && "
			"echo x > docs/x.md && echo y > tox.ini"));
	cr_assert_eq(t_git_commit(dir, "mixed"), 0);
	a = t_ripple(dir, argv);
	b = t_ripple(dir, argv);
	cr_assert_eq(a.status, 0, "%s", a.err);
	cr_assert_eq(b.status, 0, "%s", b.err);
	cr_expect(strlen(a.out) > 100);
	cr_expect_str_eq(a.out, b.out);
	t_result_release(&a);
	t_result_release(&b);
	t_rmtree(dir);
	free(dir);
}

/* A repository with one rule of 30 x 20 = 600 combinations. */
static char *
big_repo(void)
{
	char *dir = t_git_init();
	char rules[4096];
	size_t n = 0;
	int i;

	n += (size_t)snprintf(rules + n, sizeof(rules) - n,
			      "version: 1\nsources:\n  src: {paths: [src/**]}\n"
			      "axes:\n  x: [");
	for (i = 0; i < 30; i++)
		n += (size_t)snprintf(rules + n, sizeof(rules) - n, "%sx%d",
				      i ? ", " : "", i);
	n += (size_t)snprintf(rules + n, sizeof(rules) - n, "]\n  y: [");
	for (i = 0; i < 20; i++)
		n += (size_t)snprintf(rules + n, sizeof(rules) - n, "%sy%d",
				      i ? ", " : "", i);
	snprintf(rules + n, sizeof(rules) - n,
		 "]\nartifacts:\n  many:\n    each: {x: axes.x, y: axes.y}\n"
		 "    inputs: [src]\n    command: [b, \"${x}\", \"${y}\"]\n"
		 "tests:\n  check:\n    inputs: [src]\n    command: [t]\n");
	t_write(dir, "ripple.yml", rules);
	t_write(dir, "src/a.c", "int a;\n");
	cr_assert_eq(t_git_commit(dir, "init"), 0);
	return dir;
}

/* Each matrix-NAME=JSON line: parse, check include, count entries. */
static size_t
check_matrices(const char *text, size_t *n_nodes, int *saw_many)
{
	const char *line = text;
	size_t n = 0;

	*n_nodes = 0;
	*saw_many = 0;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *copy = strndup(line, len);
		char *eq = strchr(copy, '=');

		cr_assert_not_null(eq, "no '=' in output line %s", copy);
		*eq = '\0';
		if (!strncmp(copy, "matrix-", 7)) {
			json_error_t je;
			json_t *doc = json_loads(eq + 1, 0, &je);
			json_t *inc;
			size_t i;

			cr_assert_not_null(doc, "%s: %s", copy, je.text);
			inc = json_object_get(doc, "include");
			cr_assert(json_is_array(inc), "%s has no include", copy);
			cr_expect_leq(json_array_size(inc), 256, "%s: %zu jobs",
				      copy, json_array_size(inc));
			cr_expect_gt(json_array_size(inc), 0);
			for (i = 0; i < json_array_size(inc); i++) {
				json_t *e = json_array_get(inc, i);
				json_t *nn = json_object_get(e, "nodes");

				cr_assert(json_is_integer(nn), "%s: nodes", copy);
				cr_assert_not_null(pt_str(e, "job"));
				cr_assert(json_is_array(json_object_get(e,
								"runs-on")));
				*n_nodes += (size_t)json_integer_value(nn);
			}
			if (!strcmp(copy, "matrix-build"))
				*saw_many = 1;
			n++;
			json_decref(doc);
		}
		free(copy);
		line = nl ? nl + 1 : NULL;
	}
	return n;
}

Test(e2e_plan_output, github_output_packs_600_jobs_into_a_matrix_of_256)
{
	char *dir = big_repo();
	char path[4096];
	const char *argv[] = { "plan", "--github-output", path, NULL };
	struct run_result r;
	size_t n_nodes, n;
	int saw_many;
	char *text;

	snprintf(path, sizeof(path), "%s/gho.txt", dir);
	r = t_ripple(dir, argv);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	text = t_read(path);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "build=true\n") != NULL);
	cr_expect(strstr(text, "test=true\n") != NULL);
	n = check_matrices(text, &n_nodes, &saw_many);
	cr_expect_eq(n, 2, "two job groups");
	cr_expect(strstr(text, "has-build=true\n") != NULL);
	cr_expect(strstr(text, "has-test=true\n") != NULL);
	cr_expect(saw_many);
	cr_expect_eq(n_nodes, 601, "every node once: %zu", n_nodes);
	free(text);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan_output, step_summary_has_a_mermaid_graph)
{
	char *dir = pt_repo("rebuild-all");
	char path[4096];
	const char *argv[] = { "plan", "--base", "main",
			       "--github-step-summary", path, NULL };
	struct run_result r;
	char *text;

	snprintf(path, sizeof(path), "%s/summary.md", dir);
	pt_record_all(dir, "base1");
	free(pt_sh(dir, "git checkout -q -b pr && echo 'a = 9' > pa/a.py"));
	cr_assert_eq(t_git_commit(dir, "a"), 0);
	r = t_ripple(dir, argv);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	text = t_read(path);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "```mermaid\n") != NULL, "%s", text);
	cr_expect(strstr(text, "flowchart") != NULL, "%s", text);
	cr_expect(strstr(text, "[\"artifact wheel<br/>3.12 · a\"]") != NULL,
		  "%s", text);
	cr_expect(strstr(text, ":::run") != NULL, "%s", text);
	cr_expect(strstr(text, "Colours:") != NULL, "%s", text);
	cr_expect(strstr(text, ":::reuse") != NULL, "%s", text);
	free(text);
	t_rmtree(dir);
	free(dir);
}
