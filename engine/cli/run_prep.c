/*
 * What `ripple run` checks and gathers before it executes: the run made or
 * joined, --platform, --only, the checked-out commit and its claimed
 * inputs checked, and the GPUs found. Printing stays in engine/cli/run.c.
 */
#include "engine/cli/cli.h"
#include "engine/cli/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/fnmatch.h"
#include "base/fsys.h"
#include "base/host.h"
#include "base/mem.h"
#include "base/spell.h"
#include "cache/cache.h"
#include "engine/cuda/load.h"
#include "engine/cuda/probe.h"
#include "engine/plan/dirty.h"
#include "engine/plan/eval.h"
#include "engine/plan/jobs.h"
#include "engine/plan/plan.h"
#include "engine/plan/planner.h"
#include "engine/plan/remote.h"
#include "engine/run/run.h"
#include "graph/graph.h"
#include "graph/repo.h"
#include "rules/rules.h"
#include "base/banned.h"

/* GPUs through cudart when some node to run needs one. */
void
cli_run_probe_gpus(const struct graph *g, const struct plan *p,
		   struct run_gpu **out, size_t *n, const char **home)
{
	struct cuda_devices devs;
	struct cuda_libs *libs = NULL;
	struct error err;
	size_t i, need = 0;

	*out = NULL;
	*n = 0;
	*home = getenv("CUDA_HOME");
	if (!*home || !**home)
		*home = "/usr/local/cuda";
	for (i = 0; i < g->n_nodes; i++)
		if (p->in_closure[i] && g->nodes[i].rule &&
		    (p->items[i].decision == PLAN_BUILD ||
		     p->items[i].decision == PLAN_TEST) &&
		    g->nodes[i].rule->gpu.count)
			need = 1;
	if (!need)
		return;
	error_init(&err);
	memset(&devs, 0, sizeof(devs));
	if (cuda_libs_open(*home, &libs, &err) ||
	    cuda_devices_list(libs, &devs, &err)) {
		cuda_libs_close(libs);
		return;
	}
	*out = mem_calloc(devs.n + 1, sizeof(**out));
	for (i = 0; *out && i < devs.n; i++) {
		(*out)[i].index = devs.items[i].index;
		(*out)[i].cc_major = devs.items[i].cc_major;
		(*out)[i].cc_minor = devs.items[i].cc_minor;
		(*out)[i].memory_mib = devs.items[i].memory_mib;
	}
	if (*out)
		*n = devs.n;
	cuda_devices_release(&devs);
	cuda_libs_close(libs);
}

/*
 * Make the run, or join it: runners of one CI run share an id, and a run
 * that exists at the same commit takes their records too.
 */
int
cli_run_create_run(const struct cli_ctx *ctx, struct cache *c, const char *id,
		   const struct run_args *a, const struct eval *ev,
		   FILE *report)
{
	struct cache_run run;
	struct error err;
	int joined = 0;

	error_init(&err);
	memset(&run, 0, sizeof(run));
	run.id = (char *)id;
	run.commit = (char *)ev->commit_hex;
	run.ref = (char *)a->ref;
	run.tag = (char *)a->tag;
	run.status = CACHE_RUN_STATUS_RUNNING;
	run.started_ms = cache_clock_ms();
	/*
	 * Own it first: a run is never marked running without a live owner,
	 * so one whose runner dies (even by SIGKILL) reads as interrupted.
	 */
	if (cache_run_own(c, id, &err)) {
		fprintf(stderr, "ripple: warning: %s: a runner killed now "
			"would leave run %s marked running\n", err.msg, id);
		error_init(&err);
	}
	if (cache_run_join(c, &run, &joined, &err))
		return cli_fail(ctx, &err);
	if (joined) {
		fprintf(report, "run %s: joining the run recorded at %.12s\n",
			id, ev->commit_hex);
		fflush(report);
	}
	return 0;
}

/*
 * --platform must be a value of the rules' platform axis: a typo would
 * otherwise make every node remote and the run a quiet no-op.
 */
int
cli_run_check_platform(const struct cli_ctx *ctx, const struct run_args *a,
		       const struct eval *head)
{
	const struct rules_axis *ax = rules_find_axis(head->rules, "platform");
	const char *s;
	struct error err;
	size_t i;

	if (!a->platform || !ax)
		return 0;
	for (i = 0; i < ax->n_values; i++)
		if (!strcmp(ax->values[i], a->platform))
			return 0;
	error_init(&err);
	error_set(&err, ERROR_INVALID, "unknown platform '%s': the platform "
		  "axis has no such value", a->platform);
	s = spell_suggest(a->platform, ax->values, ax->n_values);
	if (s)
		error_hint(&err, "did you mean '%s'?", s);
	else
		error_hint(&err, "the rules' platforms are listed under "
			   "axes: platform");
	return cli_fail(ctx, &err);
}

/* --only that selects no node to build or test would make a silent no-op. */
static int
select_only(const struct cli_ctx *ctx, struct run_args *a,
	    const struct planner *pl)
{
	const struct graph *g = pl->head->graph;
	struct error err;
	size_t i, k, hit;

	for (k = 0; k < a->n_only; k++) {
		for (i = hit = 0; i < g->n_nodes; i++) {
			enum plan_decision d = pl->plan->items[i].decision;

			if (!fnmatch_match(a->only[k], g->nodes[i].id))
				continue;
			a->select[i] = 1;
			hit += d == PLAN_BUILD || d == PLAN_TEST;
		}
		if (hit)
			continue;
		error_init(&err);
		error_set(&err, ERROR_INVALID, "--only '%s' matches no node "
			  "this plan builds or tests", a->only[k]);
		error_hint(&err, "`ripple plan` lists what would run; reused "
			   "nodes need no --only");
		return cli_fail(ctx, &err);
	}
	snprintf(a->select_note, sizeof(a->select_note),
		 "not matched by --only");
	return 0;
}

/*
 * A GPU job needs every toolkit its nodes pin at the pin's home (the
 * runner convention): a runner without one fails here, naming the pin,
 * before anything runs, rather than deep in a test.
 */
static int
job_toolkits(const struct cli_ctx *ctx, const struct graph *g,
	     const struct plan_job *job)
{
	char home[4096];
	struct error err;
	struct fsys_stat st;
	size_t i;

	for (i = 0; i < job->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[job->nodes[i]];
		const struct rules_toolkit *tk = n->toolkit;

		if (!tk)
			continue;
		if (!cli_toolkit_home(tk, home, sizeof(home)) &&
		    !fsys_stat(home, &st) && st.kind == FSYS_DIR)
			continue;
		error_init(&err);
		error_set(&err, ERROR_NOT_FOUND, "job '%s' needs toolkit '%s' "
			  "(pinned %s at %s:%u:%u) at %s, which this runner "
			  "does not have", job->name, tk->name, tk->version,
			  g->rules->file ? g->rules->file : "ripple.yml",
			  tk->pos.line, tk->pos.col, home);
		error_node(&err, n->id);
		error_hint(&err, "GPU runners keep each pinned toolkit at its "
			   "home (toolkits: %s: {home:}, else "
			   "/usr/local/cuda-%u.%u; docs/github.md): install "
			   "CUDA %s there", tk->name, tk->major, tk->minor,
			   tk->version);
		return cli_fail(ctx, &err);
	}
	return 0;
}

static int
select_job(const struct cli_ctx *ctx, struct run_args *a,
	   const struct planner *pl)
{
	const struct graph *g = pl->head->graph;
	const char *host = a->platform ? a->platform : run_host_platform();
	const struct plan_job *job;
	struct plan_jobs *jobs = NULL;
	const char *names[256];
	struct error err;
	size_t i;
	int rc;

	error_init(&err);
	rc = plan_jobs_compute(g, pl->closure, &jobs, &err);
	if (rc)
		return cli_fail(ctx, &err);
	job = plan_jobs_find(jobs, a->job);
	if (!job) {
		const char *s;

		for (i = 0; i < jobs->n && i < 256; i++)
			names[i] = jobs->jobs[i].name;
		s = spell_suggest(a->job, names, i);
		error_set(&err, ERROR_NOT_FOUND, "no CI job '%s' in this "
			  "target (%zu jobs)", a->job, jobs->n);
		if (s)
			error_hint(&err, "did you mean '%s'? `ripple jobs` "
				   "lists them", s);
		else
			error_hint(&err, "`ripple jobs` lists them; run the "
				   "same target as the plan job");
		plan_jobs_free(jobs);
		return cli_fail(ctx, &err);
	}
	if (job->platform && job->host && strcmp(job->host, job->platform) &&
	    !a->platform && host && !strcmp(job->host, host)) {
		/* A cross-build: runners: P: {host: H}, and this is H. */
		a->platform = job->platform;
		host = job->platform;
	}
	if (job->platform && (!host || strcmp(job->platform, host))) {
		error_set(&err, ERROR_INVALID, "job '%s' is for platform %s; "
			  "this runner is %s", job->name, job->platform,
			  host ? host : "of no known platform");
		error_hint(&err, "run it on a %s runner (the matrix entry's "
			   "runs-on), or see docs/github.md for platforms "
			   "ripple cannot run on", job->platform);
		plan_jobs_free(jobs);
		return cli_fail(ctx, &err);
	}
	if (job->group == PLAN_JOB_GPU) {
		rc = job_toolkits(ctx, g, job);
		if (rc) {
			plan_jobs_free(jobs);
			return rc;
		}
	}
	for (i = 0; i < job->n_nodes; i++)
		a->select[job->nodes[i]] = 1;
	snprintf(a->select_note, sizeof(a->select_note), "not in job %s",
		 job->name);
	plan_jobs_free(jobs);
	return 0;
}

/*
 * The cache gaps of a selection: a node the plan builds or tests that a
 * selected node needs, and that this runner can run, has no usable record
 * of its key; it is built here too (and, in turn, what it needs), rather
 * than leaving the selected node without its input. Nodes are in
 * topological order, so one pass from the last covers every level.
 */
static void
select_gaps(struct run_args *a, const struct planner *pl)
{
	const struct graph *g = pl->head->graph;
	const char *host = a->platform ? a->platform : run_host_platform();
	size_t i, k;

	for (i = g->n_nodes; i-- > 0;) {
		const struct graph_node *n = &g->nodes[i];

		if (!a->select[i] || !pl->plan->in_closure[i])
			continue;
		for (k = 0; k < n->n_deps; k++) {
			size_t d = n->deps[k];
			const struct graph_node *dn = &g->nodes[d];
			enum plan_decision dd = pl->plan->items[d].decision;
			const char *pf = graph_node_axis(dn, "platform");

			if (a->select[d] || !pl->plan->in_closure[d] ||
			    (dd != PLAN_BUILD && dd != PLAN_TEST) ||
			    !dn->rule || (!dn->argc && !dn->rule->builtin) ||
			    (pf && (!host || strcmp(pf, host))))
				continue;
			a->select[d] = 1;
			a->gap[d] = 1;
		}
	}
}

int
cli_run_select(const struct cli_ctx *ctx, struct run_args *a,
	       const struct planner *pl)
{
	struct error err;
	int rc;

	if (!a->n_only && !a->job)
		return 0;
	if (a->n_only && a->job)
		return cli_usage_error(ctx, "run", "--only and --job exclude "
				       "each other");
	a->select = mem_calloc(pl->head->graph->n_nodes + 1, 1);
	a->gap = mem_calloc(pl->head->graph->n_nodes + 1, 1);
	if (!a->select || !a->gap) {
		error_init(&err);
		error_set(&err, ERROR_NOMEM, "out of memory");
		return cli_fail(ctx, &err);
	}
	rc = a->job ? select_job(ctx, a, pl) : select_only(ctx, a, pl);
	if (!rc && !a->strict_cache)
		select_gaps(a, pl);
	return rc;
}

/* Actions run in the working tree: it must hold the planned commit. */
int
cli_run_check_checkout(const struct cli_ctx *ctx, struct graph_repo *repo,
		       const struct eval *head)
{
	struct graph_oid oid;
	char hex[GRAPH_OID_HEX];
	struct error err;

	error_init(&err);
	if (head->worktree)
		return 0;
	if (graph_repo_resolve(repo, "HEAD", &oid, &err))
		return cli_fail(ctx, &err);
	graph_oid_hex(&oid, hex);
	if (!strcmp(hex, head->commit_hex))
		return 0;
	error_set(&err, ERROR_INVALID, "cannot run commit %.12s: the working "
		  "tree holds %.12s", head->commit_hex, hex);
	error_hint(&err, "check out the commit first (git checkout %.12s), "
		   "or use `ripple plan --head` to only plan it",
		   head->commit_hex);
	return cli_fail(ctx, &err);
}

/* The first ten of paths as "a, b, c and N more", into list. */
static void
list_paths(struct buf *list, const struct strv *paths)
{
	size_t i;

	for (i = 0; i < paths->n && i < 10; i++)
		buf_addf(list, NULL, "%s%s", i ? ", " : "", paths->v[i]);
	if (paths->n > 10)
		buf_addf(list, NULL, " and %zu more", paths->n - 10);
}

/*
 * A checkout without links (core.symlinks false, Git for Windows' way)
 * holds the committed links among the inputs to build as files of the
 * link's text: a build reads that text where a checkout with links reads
 * the file it names, under the same keys. Said on stderr, not refused:
 * the keys are the commit's either way, and such a runner may have no
 * right to make links. But what it builds must not serve a checkout with
 * links under those keys: the run publishes nothing to the remote cache
 * (rem, or NULL), as a fork's run does not.
 */
static int
note_link_files(const struct cli_ctx *ctx, const struct planner *pl,
		const unsigned char *mask, struct plan_remote *rem)
{
	struct strv paths = STRV_INIT;
	struct buf list;
	struct error err;
	int keep_local, rc;

	if (graph_repo_checkout_links(pl->head->repo))
		return 0;
	error_init(&err);
	buf_init(&list, 0);
	rc = plan_link_files(pl->head, mask, &paths, &err);
	if (rc) {
		rc = cli_fail(ctx, &err);
		goto done;
	}
	if (!paths.n)
		goto done;
	keep_local = rem && plan_remote_may_write(rem);
	if (keep_local)
		plan_remote_keep_local(rem);
	list_paths(&list, &paths);
	fprintf(stderr, "%s %s: note: this checkout holds %zu committed "
		"symlink%s among the inputs of nodes to build as files of "
		"the link's text (core.symlinks false): %s\n", ctx->prog,
		ctx->cmd, paths.n, paths.n == 1 ? "" : "s",
		list.data ? list.data : "");
	fprintf(stderr, "  hint: a build that reads through one reads that "
		"text, not the file it names, so its outputs can differ from "
		"a checkout with links under the same keys; set core.symlinks "
		"true before checking out (on Windows, Developer Mode or an "
		"administrator can make links)\n");
	if (keep_local)
		fprintf(stderr, "  so this run publishes nothing to the remote "
			"cache %s: its results are kept in the local cache\n",
			plan_remote_url(rem));
done:
	buf_release(&list);
	strv_release(&paths);
	return rc;
}

/*
 * Actions run in the working tree but a run of a commit records the
 * commit's keys: an uncommitted edit of an input it builds from would be
 * built and recorded as the commit, and a later plan would reuse it.
 */
int
cli_run_check_clean(const struct cli_ctx *ctx, const struct planner *pl,
		    struct plan_remote *rem)
{
	const struct plan *p = pl->plan;
	struct strv paths = STRV_INIT;
	unsigned char *mask = NULL;
	struct buf list;
	struct error err;
	size_t i;
	int rc;

	if (pl->head->worktree)
		return 0;
	error_init(&err);
	buf_init(&list, 0);
	mask = mem_calloc(p->n + 1, 1);
	if (!mask) {
		error_set(&err, ERROR_NOMEM, "out of memory");
		return cli_fail(ctx, &err);
	}
	for (i = 0; i < p->n; i++)
		mask[i] = p->in_closure[i] &&
			  (p->items[i].decision == PLAN_BUILD ||
			   p->items[i].decision == PLAN_TEST);
	rc = plan_dirty_inputs(pl->head, mask, &paths, &err);
	if (rc) {
		rc = cli_fail(ctx, &err);
		goto done;
	}
	if (!paths.n) {
		rc = note_link_files(ctx, pl, mask, rem);
		goto done;
	}
	list_paths(&list, &paths);
	error_set(&err, ERROR_CONFLICT, "cannot run commit %.12s: the working "
		  "tree changes %zu claimed input file%s of nodes to build: %s",
		  pl->head->commit_hex, paths.n, paths.n == 1 ? "" : "s",
		  list.data ? list.data : "");
	error_hint(&err, "commit or stash the changes (git stash), or run "
		   "the working tree as it is with --worktree");
	rc = cli_fail(ctx, &err);
done:
	buf_release(&list);
	strv_release(&paths);
	mem_free(mask);
	return rc;
}

int
cli_run_check_tag(const struct cli_ctx *ctx, struct graph_repo *repo,
		  const struct run_args *a, const struct eval *head)
{
	struct graph_oid oid;
	char hex[GRAPH_OID_HEX], ref[1100];
	struct error err;

	if (!a->tag)
		return 0;
	error_init(&err);
	snprintf(ref, sizeof(ref), "refs/tags/%s", a->tag);
	if (graph_repo_resolve(repo, ref, &oid, &err)) {
		error_init(&err);
		error_set(&err, ERROR_NOT_FOUND, "--tag '%s': no such tag",
			  a->tag);
		error_hint(&err, "tag the commit first (git tag %s), then run "
			   "at it", a->tag);
		return cli_fail(ctx, &err);
	}
	graph_oid_hex(&oid, hex);
	if (!strcmp(hex, head->commit_hex))
		return 0;
	error_set(&err, ERROR_CONFLICT, "--tag '%s' is commit %.12s, but the "
		  "run is at %.12s", a->tag, hex, head->commit_hex);
	error_hint(&err, "check out the tag (git checkout %s) to record its "
		   "CI run", a->tag);
	return cli_fail(ctx, &err);
}

int
cli_run_remote(const struct cli_ctx *ctx, struct graph_repo *repo,
	       struct run_args *a)
{
	const char *name = getenv("RIPPLE_RUNNER");
	int rc;

	if (!name || !name[0])
		name = getenv("RUNNER_NAME");
	if (name && name[0])
		snprintf(a->runner, sizeof(a->runner), "%s", name);
	else
		host_name(a->runner, sizeof(a->runner));
	rc = cli_remote_ref(ctx, repo, a->ref, a->tag, a->ref_buf,
			    sizeof(a->ref_buf));
	if (rc)
		return rc;
	a->ref = a->ref_buf[0] ? a->ref_buf : NULL;
	a->po.ref = a->ref;
	cli_remote_default_branch(repo, a->dbranch, sizeof(a->dbranch));
	a->po.default_branch = a->dbranch[0] ? a->dbranch : NULL;
	return cli_remote_open(ctx, &a->rem);
}
