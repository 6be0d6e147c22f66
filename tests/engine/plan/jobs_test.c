/*
 * Suite engine_plan_jobs: cutting a closure into CI jobs: stages for noarch
 * upstreams, runner labels (win-64 on Windows runners, cross-builds on
 * their host's), packing above 256 jobs without mixing buckets, refused
 * orders, circles and runners ripple cannot run on, stable names.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "engine/plan/jobs.h"
#include "graph/graph.h"
#include "rules/rules.h"

struct fix {
	struct rules *r;
	struct graph *g;
	unsigned char *all;
};

static void
setup(struct fix *f, const char *text)
{
	struct error_list errors;
	struct error err;
	int rc;

	memset(f, 0, sizeof(*f));
	error_list_init(&errors, 10);
	rc = rules_load_buffer("t.yml", text, strlen(text), &f->r, &errors);
	if (rc && errors.n)
		cr_log_error("%u:%u: %s", errors.items[0].line,
			     errors.items[0].col, errors.items[0].msg);
	cr_assert_eq(rc, 0);
	error_list_release(&errors);
	error_init(&err);
	cr_assert_eq(graph_build(f->r, &f->g, &err), 0, "%s", err.msg);
	f->all = malloc(f->g->n_nodes + 1);
	memset(f->all, 1, f->g->n_nodes + 1);
}

static void
teardown(struct fix *f)
{
	graph_free(f->g);
	rules_free(f->r);
	free(f->all);
}

static long
node(const struct fix *f, const char *id)
{
	size_t i;

	for (i = 0; i < f->g->n_nodes; i++)
		if (!strcmp(f->g->nodes[i].id, id))
			return (long)i;
	cr_assert_fail("no node %s", id);
	return -1;
}

static const struct plan_job *
job_of(const struct fix *f, const struct plan_jobs *j, const char *id)
{
	long at = j->job_of[node(f, id)];

	cr_assert_geq(at, 0, "%s has no job", id);
	return &j->jobs[at];
}

static const char noarch_rules[] =
	"version: 1\n"
	"axes:\n"
	"  platform: [linux-64, win-64]\n"
	"  python: ['3.12', '3.13']\n"
	"  gpu: [h100, l4]\n"
	"runners:\n"
	"  linux-64: {runs-on: [ubuntu-24.04], gpu-runs-on: [gpu-a, big]}\n"
	"  win-64: {runs-on: win-cross, host: linux-64}\n"
	"  default: {runs-on: [ubuntu-24.04]}\n"
	"artifacts:\n"
	"  pure: {command: [b]}\n"
	"  wheel:\n"
	"    each: {platform: axes.platform, python: axes.python}\n"
	"    needs: [pure]\n"
	"    command: [b]\n"
	"  merged:\n"
	"    each: {platform: axes.platform}\n"
	"    needs: [wheel]\n"
	"    command: [m]\n"
	"tests:\n"
	"  unit:\n"
	"    each: {platform: axes.platform}\n"
	"    needs: [merged]\n"
	"    command: [t]\n"
	"  on-gpu:\n"
	"    each: {platform: [linux-64], gpu: [h100, l4]}\n"
	"    needs: [unit]\n"
	"    gpu: {count: 1, runs-on: ['gpu-${gpu}']}\n"
	"    command: [t]\n"
	"  plain-gpu:\n"
	"    each: {platform: [linux-64]}\n"
	"    needs: [unit]\n"
	"    gpu: {count: 2}\n"
	"    command: [t]\n";

Test(engine_plan_jobs, noarch_upstream_puts_platform_jobs_in_stage_two)
{
	struct plan_jobs *j = NULL;
	const struct plan_job *a, *b, *c;
	struct error err;
	struct fix f;

	setup(&f, noarch_rules);
	error_init(&err);
	cr_assert_eq(plan_jobs_compute(f.g, f.all, &j, &err), 0, "%s",
		     err.msg);
	a = job_of(&f, j, "artifact:pure");
	b = job_of(&f, j, "artifact:wheel[platform=linux-64,python=3.12]");
	c = job_of(&f, j, "artifact:merged[platform=linux-64]");
	cr_expect_str_eq(a->matrix, "build");
	cr_expect_str_eq(a->name, "build-any-1");
	cr_expect_str_eq(b->matrix, "build-2");
	/* Both pythons' wheels feed one merged node: one job. */
	cr_expect_eq(b, c);
	cr_expect_eq(b, job_of(&f, j,
			       "artifact:wheel[platform=linux-64,python=3.13]"));
	cr_expect_str_eq(b->name, "build-2-linux-64-1");
	cr_expect_str_eq(b->platform, "linux-64");
	cr_expect_str_eq(job_of(&f, j, "artifact:merged[platform=win-64]")
				 ->runs_on[0], "win-cross");
	cr_expect_str_eq(job_of(&f, j, "test:unit[platform=linux-64]")->matrix,
			 "test");
	plan_jobs_free(j);
	teardown(&f);
}

Test(engine_plan_jobs, gpu_labels_come_from_the_rule_or_the_platform)
{
	struct plan_jobs *j = NULL;
	const struct plan_job *h, *l, *p;
	struct error err;
	struct fix f;

	setup(&f, noarch_rules);
	error_init(&err);
	cr_assert_eq(plan_jobs_compute(f.g, f.all, &j, &err), 0, "%s",
		     err.msg);
	h = job_of(&f, j, "test:on-gpu[gpu=h100,platform=linux-64]");
	l = job_of(&f, j, "test:on-gpu[gpu=l4,platform=linux-64]");
	p = job_of(&f, j, "test:plain-gpu[platform=linux-64]");
	cr_expect_str_eq(h->matrix, "gpu");
	cr_expect_eq(h->n_runs_on, 1);
	cr_expect_str_eq(h->runs_on[0], "gpu-h100");
	cr_expect_str_eq(l->runs_on[0], "gpu-l4");
	cr_expect_neq(h, l);
	cr_expect_eq(p->n_runs_on, 2);
	cr_expect_str_eq(p->runs_on[0], "gpu-a");
	cr_expect_str_eq(p->runs_on[1], "big");
	plan_jobs_free(j);
	teardown(&f);
}

Test(engine_plan_jobs, packing_above_256_never_mixes_platforms)
{
	char text[8192];
	struct plan_jobs *j = NULL;
	struct error err;
	struct fix f;
	size_t n = 0, i, k, in_jobs = 0, build = 0;
	int x;

	n += (size_t)snprintf(text + n, sizeof(text) - n,
			      "version: 1\nrunners:\n  win-64: {runs-on: "
			      "[x], host: linux-64}\naxes:\n  platform: "
			      "[linux-64, win-64]\n  x: [");
	for (x = 0; x < 300; x++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%sx%d",
				      x ? ", " : "", x);
	snprintf(text + n, sizeof(text) - n,
		 "]\nartifacts:\n  many:\n    each: {platform: axes.platform,"
		 " x: axes.x}\n    command: [b]\n");
	setup(&f, text);
	cr_assert_eq(f.g->n_nodes, 600);
	error_init(&err);
	cr_assert_eq(plan_jobs_compute(f.g, f.all, &j, &err), 0, "%s",
		     err.msg);
	for (i = 0; i < j->n; i++) {
		const struct plan_job *job = &j->jobs[i];

		build += !strcmp(job->matrix, "build");
		for (k = 0; k < job->n_nodes; k++) {
			cr_expect_str_eq(graph_node_axis(
				&f.g->nodes[job->nodes[k]], "platform"),
				job->platform, "%s mixes platforms", job->name);
			cr_expect_eq(j->job_of[job->nodes[k]], (long)i);
			in_jobs++;
		}
	}
	cr_expect_leq(build, PLAN_JOBS_MATRIX_MAX);
	cr_expect_geq(build, 200);
	cr_expect_eq(in_jobs, 600, "every node in exactly one job");
	plan_jobs_free(j);
	teardown(&f);
}

Test(engine_plan_jobs, an_artifact_needing_a_test_is_refused)
{
	struct plan_jobs *j = NULL;
	struct error err;
	struct fix f;

	setup(&f, "version: 1\n"
		  "artifacts:\n  a: {needs: [t], command: [b]}\n"
		  "tests:\n  t: {command: [t]}\n");
	error_init(&err);
	cr_assert_eq(plan_jobs_compute(f.g, f.all, &j, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "artifact:a needs test:t") != NULL, "%s",
		  err.msg);
	cr_expect_null(j);
	teardown(&f);
}

Test(engine_plan_jobs, a_circle_through_another_platform_is_refused)
{
	struct plan_jobs *j = NULL;
	struct error err;
	struct fix f;

	/* l1 -> w -> l2 and l1 -> l2: l1 and l2 are one linux job, which
	 * would need the windows job in the middle of it. */
	setup(&f, "version: 1\n"
		  "axes:\n  platform: [linux-64, win-64]\n"
		  "runners:\n  win-64: {runs-on: [w], host: linux-64}\n"
		  "artifacts:\n"
		  "  l1: {each: {platform: [linux-64]}, command: [b]}\n"
		  "  w:\n    each: {platform: [win-64]}\n"
		  "    needs: [{node: l1, where: {platform: linux-64}}]\n"
		  "    command: [b]\n"
		  "  l2:\n    each: {platform: [linux-64]}\n"
		  "    needs: [l1, {node: w, where: {platform: win-64}}]\n"
		  "    command: [b]\n");
	error_init(&err);
	cr_assert_eq(plan_jobs_compute(f.g, f.all, &j, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "across platforms") != NULL, "%s", err.msg);
	teardown(&f);
}

Test(engine_plan_jobs, a_circle_through_a_noarch_node_is_one_job)
{
	struct plan_jobs *j = NULL;
	struct error err;
	struct fix f;

	setup(&f, "version: 1\n"
		  "axes:\n  platform: [linux-64]\n"
		  "artifacts:\n"
		  "  l1: {each: {platform: [linux-64]}, command: [b]}\n"
		  "  n: {needs: [l1], command: [b]}\n"
		  "  l2:\n    each: {platform: [linux-64]}\n"
		  "    needs: [l1, n]\n    command: [b]\n");
	error_init(&err);
	cr_assert_eq(plan_jobs_compute(f.g, f.all, &j, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(j->n, 1);
	cr_expect_str_eq(j->jobs[0].name, "build-linux-64-1");
	cr_expect_eq(j->jobs[0].n_nodes, 3);
	plan_jobs_free(j);
	teardown(&f);
}

Test(engine_plan_jobs, names_are_stable_and_depend_on_the_closure_only)
{
	struct plan_jobs *a = NULL, *b = NULL;
	struct error err;
	struct fix f;
	size_t i;

	setup(&f, noarch_rules);
	error_init(&err);
	cr_assert_eq(plan_jobs_compute(f.g, f.all, &a, &err), 0);
	cr_assert_eq(plan_jobs_compute(f.g, f.all, &b, &err), 0);
	cr_assert_eq(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		cr_expect_str_eq(a->jobs[i].name, b->jobs[i].name);
		cr_expect_eq(a->jobs[i].n_nodes, b->jobs[i].n_nodes);
	}
	cr_expect_not_null(plan_jobs_find(a, "gpu-linux-64-1"));
	cr_expect_null(plan_jobs_find(a, "gpu-linux-64-99"));
	plan_jobs_free(a);
	plan_jobs_free(b);
	teardown(&f);
}

Test(engine_plan_jobs, runners_name_known_platforms_only)
{
	struct error_list errors;
	struct rules *r = NULL;
	static const char text[] =
		"version: 1\naxes:\n  platform: [linux-64]\n"
		"runners:\n  linux64: {runs-on: [x]}\n"
		"  linux-64: {runs-on: ['bad label']}\n"
		"artifacts:\n  a: {command: [b]}\n";

	error_list_init(&errors, 10);
	cr_assert_eq(rules_load_buffer("t.yml", text, strlen(text), &r,
				       &errors), ERROR_INVALID);
	cr_assert_eq(errors.n, 2);
	cr_expect(strstr(errors.items[0].msg, "unknown platform 'linux64'"),
		  "%s", errors.items[0].msg);
	cr_expect(strstr(errors.items[0].hint, "linux-64"), "%s",
		  errors.items[0].hint);
	cr_expect(strstr(errors.items[1].msg, "bad runner label"), "%s",
		  errors.items[1].msg);
	error_list_release(&errors);
}

static int
jobs_error(const char *text, struct error *err)
{
	struct plan_jobs *j = NULL;
	struct fix f;
	int rc;

	setup(&f, text);
	error_init(err);
	rc = plan_jobs_compute(f.g, f.all, &j, err);
	plan_jobs_free(j);
	teardown(&f);
	return rc;
}

Test(engine_plan_jobs, win64_nodes_go_to_windows_runners)
{
	struct plan_jobs *j = NULL;
	const struct plan_job *w;
	struct error err;
	struct fix f;

	/* Before ripple.exe: refused ("no runner ripple runs on is given
	 * for win-64"); now win-64 runs as itself on windows-latest. */
	setup(&f, "version: 1\naxes:\n  platform: [linux-64, win-64]\n"
		  "artifacts:\n  w: {each: {platform: axes.platform}, "
		  "command: [b]}\n  n: {command: [b], runs-on: "
		  "[windows-2022]}\n"
		  "tests:\n  g:\n    each: {platform: axes.platform}\n"
		  "    needs: [{node: w, where: {platform: "
		  "'${platform}'}}]\n"
		  "    command: [t]\n    gpu: {count: 1}\n");
	error_init(&err);
	cr_assert_eq(plan_jobs_compute(f.g, f.all, &j, &err), 0, "%s",
		     err.msg);
	w = job_of(&f, j, "artifact:w[platform=win-64]");
	cr_expect_str_eq(w->platform, "win-64");
	cr_expect_str_eq(w->host, "win-64");
	cr_assert_eq(w->n_runs_on, 1);
	cr_expect_str_eq(w->runs_on[0], "windows-latest");
	w = job_of(&f, j, "artifact:w[platform=linux-64]");
	cr_expect_str_eq(w->runs_on[0], "ubuntu-latest");
	/* A node without a platform runs anywhere ripple does. */
	w = job_of(&f, j, "artifact:n");
	cr_expect_str_eq(w->runs_on[0], "windows-2022");
	/* A win-64 GPU test: a Windows GPU runner by default. */
	w = job_of(&f, j, "test:g[platform=win-64]");
	cr_assert_eq(w->n_runs_on, 3);
	cr_expect_str_eq(w->runs_on[1], "windows");
	w = job_of(&f, j, "test:g[platform=linux-64]");
	cr_expect_str_eq(w->runs_on[1], "linux");
	plan_jobs_free(j);
	teardown(&f);
}

Test(engine_plan_jobs, a_node_ripple_cannot_run_is_refused_when_cut)
{
	static const char osx[] =
		"version: 1\naxes:\n  platform: [linux-64, osx-arm64]\n"
		"artifacts:\n  w: {each: {platform: axes.platform}, "
		"command: [b]}\n";
	static const char cross_on_windows[] =
		"version: 1\naxes:\n  platform: [linux-64, win-64]\n"
		"runners:\n  win-64: {runs-on: [windows-2022], "
		"host: linux-64}\n"
		"artifacts:\n  w: {each: {platform: axes.platform}, "
		"command: [b]}\n";
	static const char win_on_linux[] =
		"version: 1\naxes:\n  platform: [linux-64, win-64]\n"
		"runners:\n  win-64: {runs-on: [ubuntu-24.04]}\n"
		"artifacts:\n  w: {each: {platform: axes.platform}, "
		"command: [b]}\n";
	static const char linux_on_windows[] =
		"version: 1\naxes:\n  platform: [linux-64, win-64]\n"
		"artifacts:\n  w: {each: {platform: axes.platform}, "
		"command: [b], runs-on: ['${platform}-box', Windows]}\n";
	static const char mac[] =
		"version: 1\n"
		"artifacts:\n  w: {command: [b], runs-on: [macos-14]}\n";
	struct error err;

	cr_assert_eq(jobs_error(osx, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "artifact:w[platform=osx-arm64] is a "
			 "osx-arm64 node and no runner ripple runs on") !=
		  NULL, "%s", err.msg);
	cr_expect(strstr(err.hint, "host: linux-64") != NULL, "%s", err.hint);
	cr_assert_eq(jobs_error(cross_on_windows, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "labelled 'windows-2022' (windows), but "
			 "its platform win-64 is built as linux-64") != NULL,
		  "%s", err.msg);
	cr_expect(strstr(err.hint, "drop host:") != NULL, "%s", err.hint);
	cr_assert_eq(jobs_error(win_on_linux, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "artifact:w[platform=win-64] would run on "
			 "runners labelled 'ubuntu-24.04' (linux), but a "
			 "win-64 node runs on windows runners") != NULL, "%s",
		  err.msg);
	cr_expect(strstr(err.hint, "windows-latest") != NULL, "%s", err.hint);
	cr_assert_eq(jobs_error(linux_on_windows, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "artifact:w[platform=linux-64] would run "
			 "on runners labelled 'Windows' (windows)") != NULL,
		  "%s", err.msg);
	cr_assert_eq(jobs_error(mac, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "labelled 'macos-14', where ripple cannot "
			 "run") != NULL, "%s", err.msg);
}

Test(engine_plan_jobs, a_cross_built_platform_runs_on_its_host)
{
	struct plan_jobs *j = NULL;
	const struct plan_job *w;
	struct error err;
	struct fix f;

	setup(&f, "version: 1\naxes:\n  platform: [linux-64, win-64]\n"
		  "runners:\n  win-64: {runs-on: [ubuntu-24.04], "
		  "host: linux-64}\n"
		  "artifacts:\n  w: {each: {platform: axes.platform}, "
		  "command: [b]}\n");
	error_init(&err);
	cr_assert_eq(plan_jobs_compute(f.g, f.all, &j, &err), 0, "%s",
		     err.msg);
	w = job_of(&f, j, "artifact:w[platform=win-64]");
	cr_expect_str_eq(w->platform, "win-64");
	cr_expect_str_eq(w->host, "linux-64");
	cr_expect_str_eq(w->runs_on[0], "ubuntu-24.04");
	w = job_of(&f, j, "artifact:w[platform=linux-64]");
	cr_expect_str_eq(w->host, "linux-64");
	plan_jobs_free(j);
	teardown(&f);
}

Test(engine_plan_jobs, a_runner_host_must_be_a_platform)
{
	struct error_list errors;
	struct rules *r = NULL;
	static const char text[] =
		"version: 1\naxes:\n  platform: [linux-64, win-64]\n"
		"runners:\n  win-64: {runs-on: [x], host: linux64}\n"
		"artifacts:\n  a: {command: [b]}\n";

	error_list_init(&errors, 10);
	cr_assert_eq(rules_load_buffer("t.yml", text, strlen(text), &r,
				       &errors), ERROR_INVALID);
	cr_assert_eq(errors.n, 1);
	cr_expect(strstr(errors.items[0].msg, "unknown platform 'linux64'"),
		  "%s", errors.items[0].msg);
	cr_expect_eq(errors.items[0].line, 5);
	error_list_release(&errors);
}
