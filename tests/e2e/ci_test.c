/*
 * Suite e2e_ci: what a CI workflow runs on real repositories: `ripple jobs`,
 * `ripple run --job` running exactly one job's nodes (and building an
 * upstream that has no record yet itself, or failing under
 * --strict-cache), repeatable --only, `ripple gate`, GitHub
 * outputs without empty matrices, and a folded Mermaid graph.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/e2e/plan_support.h"
#include "tests/support/support.h"

static const char ci_rules[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [src/**]}\n"
	"axes:\n"
	"  platform: [linux-64, linux-aarch64, win-64]\n"
	"  python: ['3.12', '3.13']\n"
	"artifacts:\n"
	"  pure:\n"
	"    inputs: [src]\n"
	"    command: [sh, -c, 'mkdir -p dist/pure && echo p > dist/pure/p.txt']\n"
	"    outputs: [dist/pure/p.txt]\n"
	"  wheel:\n"
	"    each: {platform: [linux-64], python: axes.python}\n"
	"    needs: [pure]\n"
	"    command: [sh, -c, 'mkdir -p dist/w/${python} && "
	"cat dist/pure/p.txt > dist/w/${python}/w.txt']\n"
	"    outputs: ['dist/w/${python}/w.txt']\n"
	"  winwheel:\n"
	"    each: {platform: [win-64]}\n"
	"    command: [sh, -c, 'true']\n"
	"tests:\n"
	"  unit:\n"
	"    each: {platform: [linux-64]}\n"
	"    needs: [{node: wheel, where: {python: '3.12'}}]\n"
	"    command: [sh, -c, 'test -s dist/w/3.12/w.txt']\n"
	"targets:\n"
	"  linux: [pure, wheel, unit]\n"
	"runners:\n"
	"  win-64: {runs-on: [ubuntu-24.04-arm], host: linux-aarch64}\n";

static char *
ci_repo(void)
{
	char *dir = t_git_init();

	t_write(dir, "ripple.yml", ci_rules);
	t_write(dir, ".gitignore", ".ripple/\ndist/\n");
	t_write(dir, "src/a.c", "int a;\n");
	free(pt_sh(dir, "git checkout -q -B main"));
	cr_assert_eq(t_git_commit(dir, "init"), 0);
	return dir;
}

static struct run_result
rip(const char *dir, const char *const *argv)
{
	return t_ripple(dir, argv);
}

Test(e2e_ci, jobs_cut_a_noarch_upstream_into_an_earlier_stage)
{
	char *dir = ci_repo();
	const char *argv[] = { "jobs", "linux", "--json", NULL };
	json_t *doc = pt_json(dir, argv), *jobs = json_object_get(doc, "jobs");

	/* The two wheels need each other in no way: two jobs. */
	cr_assert_eq(json_array_size(jobs), 4);
	cr_expect_str_eq(pt_str(json_array_get(jobs, 0), "name"),
			 "build-any-1");
	cr_expect_str_eq(pt_str(json_array_get(jobs, 1), "name"),
			 "build-2-linux-64-1");
	cr_expect_str_eq(pt_str(json_array_get(jobs, 1), "matrix"), "build-2");
	cr_expect_str_eq(pt_str(json_array_get(jobs, 2), "name"),
			 "build-2-linux-64-2");
	cr_expect_str_eq(pt_str(json_array_get(jobs, 3), "name"),
			 "test-linux-64-1");
	json_decref(doc);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci, run_job_runs_exactly_its_nodes_and_the_gate_follows)
{
	char *dir = ci_repo();
	const char *gate[] = { "gate", "linux", NULL };
	const char *j2[] = { "run", "linux", "--job", "build-2-linux-64-1",
			     "--run-id", "ci", NULL };
	const char *j2s[] = { "run", "linux", "--job", "build-2-linux-64-1",
			      "--run-id", "strict", "--strict-cache", NULL };
	const char *j1[] = { "run", "linux", "--job", "build-any-1",
			     "--run-id", "ci", NULL };
	const char *j2b[] = { "run", "linux", "--job", "build-2-linux-64-2",
			      "--run-id", "ci", NULL };
	const char *j3[] = { "run", "linux", "--job", "test-linux-64-1",
			     "--run-id", "ci", NULL };
	struct run_result r;
	char *s;

	r = rip(dir, gate);
	cr_expect_eq(r.status, 1, "nothing recorded yet: %s", r.out);
	cr_expect(strstr(r.out, "artifact:pure") != NULL, "%s", r.out);
	t_result_release(&r);
	/*
	 * Stage 2 before stage 1: its upstream has no record. Under
	 * --strict-cache it fails and builds nothing; by default the gap
	 * is a slowdown: it builds pure itself, and says so.
	 */
	r = rip(dir, j2s);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.err, "could not run") != NULL, "%s", r.err);
	cr_expect(strstr(r.err, "needs artifact:pure") != NULL, "%s", r.err);
	t_result_release(&r);
	s = pt_sh(dir, "ls dist 2>/dev/null || true");
	cr_expect_str_eq(s, "", "nothing was built: %s", s);
	free(s);
	r = rip(dir, j2);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "1 rebuilt because of a cache gap") != NULL,
		  "%s", r.out);
	cr_expect(strstr(r.out, "  artifact:pure (ok): a selected node "
			 "needs it") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "2 built") != NULL, "%s", r.out);
	t_result_release(&r);
	s = pt_sh(dir, "ls dist");
	cr_expect_str_eq(s, "pure\nw", "job 2 built pure too: %s", s);
	free(s);
	r = rip(dir, j1);
	cr_expect_eq(r.status, 0, "%s", r.err);
	/* Only the job's own part of the graph is planned: pure. */
	cr_expect(strstr(r.out, "0 built, 1 reused") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "0 remote, 0 skipped") != NULL, "%s", r.out);
	t_result_release(&r);
	r = rip(dir, j2b);
	cr_expect_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	s = pt_sh(dir, "ls dist/w");
	cr_expect_str_eq(s, "3.12\n3.13", "%s", s);
	free(s);
	r = rip(dir, gate);
	cr_expect_eq(r.status, 1, "the test has not run: %s", r.out);
	cr_expect(strstr(r.out, "test:unit[platform=linux-64]") != NULL,
		  "%s", r.out);
	cr_expect(strstr(r.out, "1 of 4 nodes") != NULL, "%s", r.out);
	t_result_release(&r);
	r = rip(dir, j3);
	cr_expect_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = rip(dir, gate);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "gate: ok: all 4 nodes") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "1 of them rebuilt because of a cache gap")
		  != NULL, "%s", r.out);
	t_result_release(&r);
	{
		const char *gj[] = { "gate", "linux", "--json", NULL };
		json_t *doc = pt_json(dir, gj);

		cr_expect(json_is_true(json_object_get(doc, "complete")));
		cr_expect_eq(json_integer_value(json_object_get(doc, "ok")), 4);
		cr_expect_eq(json_array_size(json_object_get(doc,
							     "gap_rebuilds")),
			     1);
		json_decref(doc);
	}
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci, a_job_name_that_does_not_exist_or_another_platform_is_refused)
{
	char *dir = ci_repo();
	const char *typo[] = { "run", "--job", "build-2-linux-64-9", NULL };
	const char *win[] = { "run", "--job", "build-win-64-1", NULL };
	struct run_result r;

	r = rip(dir, typo);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "no CI job 'build-2-linux-64-9'") != NULL,
		  "%s", r.err);
	cr_expect(strstr(r.err, "did you mean 'build-2-linux-64-1'") != NULL,
		  "%s", r.err);
	t_result_release(&r);
	r = rip(dir, win);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "is for platform win-64") != NULL, "%s",
		  r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci, win64_goes_to_windows_runners_or_is_cross_built_on_its_host)
{
	char *dir = ci_repo();
	const char *jobs[] = { "jobs", "--json", NULL };
	const char *win[] = { "run", "--job", "build-win-64-1", "--json",
			      NULL };
	char *text = malloc(sizeof(ci_rules) + 64), *at;
	struct run_result r;
	json_t *doc, *job;
	size_t i;

	/* No runners: entry: win-64 jobs go to windows-latest, where
	 * ripple.exe runs them; this Linux runner refuses the job. */
	strcpy(text, ci_rules);
	at = strstr(text, "runners:");
	cr_assert_not_null(at);
	*at = '\0';
	t_write(dir, "ripple.yml", text);
	cr_assert_eq(t_git_commit(dir, "win-64 on windows-latest"), 0);
	doc = pt_json(dir, jobs);
	job = NULL;
	for (i = 0; i < json_array_size(json_object_get(doc, "jobs")); i++) {
		job = json_array_get(json_object_get(doc, "jobs"), i);
		if (!strcmp(pt_str(job, "name"), "build-win-64-1"))
			break;
		job = NULL;
	}
	cr_assert_not_null(job);
	cr_expect_str_eq(json_string_value(json_array_get(
		json_object_get(job, "runs-on"), 0)), "windows-latest");
	cr_expect_str_eq(pt_str(job, "platform"), "win-64");
	json_decref(doc);
	r = rip(dir, win);
	cr_expect_eq(r.status, 2, "%s", r.out);
	cr_expect(strstr(r.err, "job 'build-win-64-1' is for platform "
			 "win-64") != NULL, "%s", r.err);
	t_result_release(&r);
	/* Linux labels without a Linux host: refused when the jobs are
	 * cut, never sent to a runner where the job fails. */
	strcat(text, "runners:\n  win-64: {runs-on: [ubuntu-24.04]}\n");
	t_write(dir, "ripple.yml", text);
	cr_assert_eq(t_git_commit(dir, "win-64 on Linux labels"), 0);
	r = rip(dir, jobs);
	cr_expect_eq(r.status, 2, "%s", r.out);
	cr_expect(strstr(r.err, "artifact:winwheel[platform=win-64] would "
			 "run on runners labelled 'ubuntu-24.04'") != NULL,
		  "%s", r.err);
	t_result_release(&r);
	/* Cross-built on linux-64: this runner runs the job. */
	*at = '\0';
	strcat(text, "runners:\n  win-64: {runs-on: [ubuntu-24.04], host: "
	       "linux-64}\n");
	t_write(dir, "ripple.yml", text);
	cr_assert_eq(t_git_commit(dir, "win-64 built on linux-64"), 0);
	r = rip(dir, win);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "\"built\": 1") != NULL, "%s", r.out);
	t_result_release(&r);
	free(text);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci, only_given_twice_runs_both)
{
	char *dir = ci_repo();
	const char *argv[] = { "run", "linux", "--only", "artifact:pure",
			       "--only", "artifact:wheel*python=3.13*", NULL };
	struct run_result r = rip(dir, argv);
	char *s;

	cr_expect_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	s = pt_sh(dir, "ls dist dist/w");
	cr_expect_str_eq(s, "dist:\npure\nw\n\ndist/w:\n3.13", "%s", s);
	free(s);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci, github_outputs_leave_out_groups_with_nothing_to_run)
{
	char *dir = ci_repo();
	char path[4096], *text;
	const char *run[] = { "run", "linux", "--run-id", "all", NULL };
	const char *plan[] = { "plan", "linux", "--reuse", "any",
			       "--github-output", path, NULL };
	struct run_result r;

	snprintf(path, sizeof(path), "%s/gho.txt", dir);
	r = rip(dir, run);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = rip(dir, plan);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	text = t_read(path);
	cr_expect(strstr(text, "has-build=false\n") != NULL, "%s", text);
	cr_expect(strstr(text, "has-build-2=false\n") != NULL, "%s", text);
	cr_expect(strstr(text, "has-test=false\n") != NULL, "%s", text);
	cr_expect(strstr(text, "matrix-") == NULL, "%s", text);
	cr_expect(strstr(text, "\"include\":[]") == NULL, "%s", text);
	free(text);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci, a_large_plan_folds_its_mermaid_graph_into_rules)
{
	char *dir = t_git_init();
	char rules[4096], path[4096], *text, *p;
	const char *argv[] = { "plan", "--github-step-summary", path, NULL };
	struct run_result r;
	size_t n = 0, edges = 0;
	int i;

	n += (size_t)snprintf(rules + n, sizeof(rules) - n,
			      "version: 1\naxes:\n  x: [");
	for (i = 0; i < 600; i++)
		n += (size_t)snprintf(rules + n, sizeof(rules) - n, "%s%d",
				      i ? "," : "", i);
	snprintf(rules + n, sizeof(rules) - n,
		 "]\nartifacts:\n  many: {each: {x: axes.x}, command: [b]}\n"
		 "tests:\n  all: {needs: [many], command: [t]}\n");
	t_write(dir, "ripple.yml", rules);
	cr_assert_eq(t_git_commit(dir, "init"), 0);
	snprintf(path, sizeof(path), "%s/summary.md", dir);
	r = rip(dir, argv);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	text = t_read(path);
	cr_expect(strstr(text, "601 nodes, folded into one box per rule") !=
		  NULL, "%s", text);
	cr_expect(strstr(text, "[\"artifact many<br/>600 run") != NULL, "%s",
		  text);
	for (p = text; (p = strstr(p, " --> ")); p++)
		edges++;
	cr_expect_eq(edges, 1, "one rule-level edge, not 600");
	cr_expect(strstr(text, "Colours:") != NULL);
	cr_expect_lt(strlen(text), 50000);
	free(text);
	t_rmtree(dir);
	free(dir);
}
