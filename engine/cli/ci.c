/*
 * `ripple jobs` and `ripple gate`: the two questions a CI workflow asks
 * besides "what runs": which jobs does this target cut into (so a matrix
 * entry can name one, engine/plan/jobs.h), and is this commit's CI complete
 * and green (the required status check). Both plan exactly as `ripple
 * plan` does; the gate plans with reuse from any record with an equal key,
 * so it needs no baseline and no run index: a node is done when an ok
 * record of its key exists.
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "cache/cache.h"
#include "engine/plan/eval.h"
#include "engine/plan/jobs.h"
#include "engine/plan/plan.h"
#include "engine/plan/planner.h"
#include "engine/plan/remote.h"
#include "graph/graph.h"
#include "graph/repo.h"
#include "base/banned.h"

enum {
	OPT_HEAD = 256, OPT_BASE, OPT_RULES, OPT_CACHE, OPT_JSON,
	OPT_WORKTREE, OPT_BASELINE, OPT_REF,
};

struct ci_args {
	struct planner_options po;
	const char *cache_opt;
	int json;
	struct cli_remote rem;	/* the remote cache, or zeroed */
	const char *ref_opt;	/* --ref, or NULL */
	char ref[1024];		/* the ref planned for (cli_remote_ref) */
	char dbranch[1024];	/* the default branch, or "" */
	struct cli_base auto_base;	/* --base auto, derived */
};

static const char jobs_help[] =
	"usage: ripple jobs [TARGET...] [--head REV | --worktree] [--base REV]\n"
	"                   [--baseline-run ID] [--rules FILE] [--cache PATH]\n"
	"                   [--json] [--ref REF]\n"
	"\n"
	"List the CI jobs the target's build and test nodes are cut into: each\n"
	"job's name (what `ripple run --job NAME` takes and a matrix entry of\n"
	"`ripple plan --github-output` carries), its matrix (build, build-2,\n"
	"test, gpu: run in that order), platform, runner labels and nodes. Jobs\n"
	"depend only on the rules at the head and the target, never on what a\n"
	"plan reuses; with --base, each job also says how many of its nodes\n"
	"would run, as `ripple run --job NAME` decides it (reusing any ok\n"
	"record of an equal key: local, this ref's domain of the remote\n"
	"cache, the trusted one). JSON: docs/schemas/jobs.json.\n";

static const char gate_help[] =
	"usage: ripple gate [TARGET...] [--head REV] [--rules FILE]\n"
	"                   [--cache PATH] [--json] [--ref REF]\n"
	"\n"
	"Is the head commit's CI complete and green for TARGET (default: every\n"
	"artifact and test)? Every build and test node of the closure needs an\n"
	"ok record of the key it has at this commit (any run, any runner whose\n"
	"records reached this cache). Prints what is missing; meant as the\n"
	"required status check at the end of a workflow. --ref REF: the ref\n"
	"whose trust domain in the remote cache is read first (default\n"
	"$RIPPLE_REF, else GitHub Actions' ref, else the branch).\n"
	"\n"
	"Exit 0 complete and green; 1 something has no ok record; 2 bad\n"
	"arguments or rules; 3 internal or I/O errors.\n";

static int
parse(int argc, char **argv, const struct cli_ctx *ctx, const char *cmd,
      const char *help, struct ci_args *a)
{
	static const struct option opts[] = {
		{ "head", required_argument, NULL, OPT_HEAD },
		{ "worktree", no_argument, NULL, OPT_WORKTREE },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "baseline-run", required_argument, NULL, OPT_BASELINE },
		{ "rules", required_argument, NULL, OPT_RULES },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "ref", required_argument, NULL, OPT_REF },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, gate = !strcmp(cmd, "gate");

	memset(a, 0, sizeof(*a));
	a->po.reuse = -1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_HEAD: a->po.head = optarg; break;
		case OPT_WORKTREE: a->po.worktree = 1; break;
		case OPT_BASE: a->po.base = optarg; break;
		case OPT_BASELINE: a->po.baseline_run = optarg; break;
		case OPT_RULES: a->po.rules_file = optarg; break;
		case OPT_CACHE: a->cache_opt = optarg; break;
		case OPT_JSON: a->json = 1; break;
		case OPT_REF: a->ref_opt = optarg; break;
		case 'h':
			fputs(help, stdout);
			return -1;
		default:
			return cli_usage_error(ctx, cmd, "unknown option");
		}
	}
	if (gate && (a->po.worktree || a->po.base || a->po.baseline_run))
		return cli_usage_error(ctx, cmd, "the gate judges a commit's "
				       "records: --worktree, --base and "
				       "--baseline-run do not apply");
	if (a->po.worktree && a->po.head)
		return cli_usage_error(ctx, cmd, "--head and --worktree "
				       "exclude each other");
	a->po.targets = (const char *const *)argv + optind;
	a->po.n_targets = (size_t)(argc - optind);
	return 0;
}

static int
open_planner(const struct cli_ctx *ctx, struct ci_args *a,
	     struct graph_repo **repo, struct cache **cache,
	     struct planner **pl)
{
	struct error err;
	int rc;

	error_init(&err);
	rc = graph_repo_open(ctx->dir, repo, &err);
	if (rc)
		return cli_fail(ctx, &err);
	rc = cli_cache_open_existing(ctx, a->cache_opt, cache);
	if (!rc)
		rc = cli_remote_open(ctx, &a->rem);
	if (rc)
		return rc;
	a->po.remote = a->rem.index;
	rc = cli_remote_ref(ctx, *repo, a->ref_opt, NULL, a->ref,
			    sizeof(a->ref));
	if (rc)
		return rc;
	a->po.ref = a->ref[0] ? a->ref : NULL;
	cli_remote_default_branch(*repo, a->dbranch, sizeof(a->dbranch));
	a->po.default_branch = a->dbranch[0] ? a->dbranch : NULL;
	rc = cli_base_resolve(ctx, *repo, *cache, &a->po, &a->auto_base);
	if (rc)
		return rc;
	return cli_planner(ctx, *repo, *cache, &a->po, pl);
}

static int
runs(const struct plan_item *it)
{
	return it->decision == PLAN_BUILD || it->decision == PLAN_TEST;
}

static json_t *
jobs_json(const struct planner *pl, const struct plan_jobs *j, int planned)
{
	const struct graph *g = pl->head->graph;
	json_t *doc = json_object(), *arr = json_array();
	size_t i, k;

	for (i = 0; i < j->n; i++) {
		const struct plan_job *job = &j->jobs[i];
		json_t *e = json_object(), *labels = json_array();
		json_t *nodes = json_array(), *run = json_array();

		for (k = 0; k < job->n_runs_on; k++)
			json_array_append_new(labels,
					      json_string(job->runs_on[k]));
		for (k = 0; k < job->n_nodes; k++) {
			size_t n = job->nodes[k];

			json_array_append_new(nodes,
					      json_string(g->nodes[n].id));
			if (planned && runs(&pl->plan->items[n]))
				json_array_append_new(
					run, json_string(g->nodes[n].id));
		}
		json_object_set_new(e, "name", json_string(job->name));
		json_object_set_new(e, "matrix", json_string(job->matrix));
		json_object_set_new(e, "group", json_string(
			plan_job_group_name(job->group)));
		json_object_set_new(e, "stage", json_integer(job->stage));
		json_object_set_new(e, "platform",
				    job->platform ? json_string(job->platform)
						  : json_null());
		json_object_set_new(e, "runs-on", labels);
		json_object_set_new(e, "label", json_string(job->label));
		json_object_set_new(e, "nodes", nodes);
		if (job->container_image)
			json_object_set_new(e, "container",
					    plan_job_container_json(job));
		if (planned)
			json_object_set_new(e, "run", run);
		else
			json_decref(run);
		json_array_append_new(arr, e);
	}
	json_object_set_new(doc, "schema", json_string("ripple-jobs-v1"));
	json_object_set_new(doc, "head", json_string(pl->meta.head));
	json_object_set_new(doc, "jobs", arr);
	return doc;
}

static int
print_json(const struct cli_ctx *ctx, json_t *doc)
{
	char *s = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	struct error err;
	struct buf b;
	int rc;

	json_decref(doc);
	if (!s) {
		error_init(&err);
		error_set(&err, ERROR_NOMEM, "out of memory");
		return cli_fail(ctx, &err);
	}
	buf_init(&b, 0);
	error_init(&err);
	rc = buf_addstr(&b, s, &err);
	if (!rc)
		rc = buf_addch(&b, '\n', &err);
	free(s);
	rc = rc ? cli_fail(ctx, &err) : cli_write_out(ctx, NULL, 0, &b);
	buf_release(&b);
	return rc;
}

int
cli_jobs(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct graph_repo *repo = NULL;
	struct cache *cache = NULL;
	struct planner *pl = NULL;
	struct plan_jobs *j = NULL;
	struct ci_args a;
	struct error err;
	size_t i, k, n;
	int rc;

	rc = parse(argc, argv, ctx, "jobs", jobs_help, &a);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	/* What "to run" means is what `run --job` will run: it reuses any
	 * ok record of an equal key (local, this ref's domain, the trusted
	 * one), not only the baseline's (issue 23). */
	a.po.reuse = PLAN_REUSE_SCOPE_ANY;
	rc = open_planner(ctx, &a, &repo, &cache, &pl);
	if (rc)
		goto done;
	error_init(&err);
	rc = plan_jobs_compute(pl->head->graph, pl->closure, &j, &err);
	if (rc) {
		rc = cli_fail(ctx, &err);
		goto done;
	}
	if (a.json) {
		rc = print_json(ctx, jobs_json(pl, j, a.po.base != NULL));
		goto done;
	}
	for (i = 0; i < j->n; i++) {
		const struct plan_job *job = &j->jobs[i];

		for (k = n = 0; k < job->n_nodes; k++)
			n += runs(&pl->plan->items[job->nodes[k]]);
		printf("%-28s %3zu node%s", job->name, job->n_nodes,
		       job->n_nodes == 1 ? " " : "s");
		if (a.po.base)
			printf(" %3zu to run", n);
		printf("  runs-on:");
		for (k = 0; k < job->n_runs_on; k++)
			printf("%s%s", k ? "," : " ", job->runs_on[k]);
		if (job->container_image)
			printf("  container: %s", job->container_image);
		printf("  %s\n", job->label);
	}
	if (!j->n)
		printf("no jobs: the target has no artifact or test to run\n");
done:
	plan_jobs_free(j);
	planner_free(pl);
	cli_remote_close(&a.rem);
	cache_close(cache);
	graph_repo_close(repo);
	return rc;
}

/*
 * Whether the ok record the gate found for item `it` was made by a gap
 * rebuild (metadata cache-gap: a job built this upstream itself because
 * the cache could not give it). Unreadable records count as not.
 */
static int
gap_rebuilt(struct cache *cache, const struct graph_node *n,
	    const struct plan_item *it)
{
	const struct strv *meta = NULL;
	struct cache_record rec;
	struct error err;
	size_t i;
	int found = 0;

	cache_record_init(&rec);
	error_init(&err);
	if (it->remote)
		meta = &it->remote->rec.rec.metadata;
	else if (cache && it->reused_run &&
		 !cache_record_get(cache, it->reused_run, n->id, &rec, &err))
		meta = &rec.metadata;
	for (i = 0; meta && i < meta->n; i++)
		found |= !strncmp(meta->v[i], "cache-gap=", 10);
	cache_record_release(&rec);
	return found;
}

/* A node the gate judges: a build or test rule with an action. */
static int
judged(const struct graph_node *n)
{
	return n->rule && (n->kind == GRAPH_NODE_ARTIFACT ||
			   n->kind == GRAPH_NODE_TEST);
}

int
cli_gate(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct graph_repo *repo = NULL;
	struct cache *cache = NULL;
	struct planner *pl = NULL;
	const struct graph *g;
	json_t *doc = NULL, *missing = NULL, *gaps = NULL;
	struct ci_args a;
	size_t i, total = 0, bad = 0, n_gaps = 0;
	int rc;

	rc = parse(argc, argv, ctx, "gate", gate_help, &a);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	a.po.reuse = PLAN_REUSE_SCOPE_ANY;
	rc = open_planner(ctx, &a, &repo, &cache, &pl);
	if (rc)
		goto done;
	g = pl->head->graph;
	missing = json_array();
	gaps = json_array();
	for (i = 0; i < g->n_nodes; i++) {
		const struct plan_item *it = &pl->plan->items[i];

		if (!pl->plan->in_closure[i] || !judged(&g->nodes[i]))
			continue;
		total++;
		if (!runs(it) && gap_rebuilt(cache, &g->nodes[i], it)) {
			n_gaps++;
			json_array_append_new(gaps,
					      json_string(g->nodes[i].id));
		}
		if (!runs(it))
			continue;
		bad++;
		if (a.json) {
			json_t *e = json_object();

			json_object_set_new(e, "id",
					    json_string(g->nodes[i].id));
			json_object_set_new(e, "key",
					    json_string(it->key.hex));
			json_array_append_new(missing, e);
		} else {
			if (bad == 1)
				printf("not done at %.12s (no ok record of "
				       "the node's key here):\n",
				       pl->meta.head);
			printf("  %s\n", g->nodes[i].id);
		}
	}
	if (a.json) {
		doc = json_object();
		json_object_set_new(doc, "schema",
				    json_string("ripple-gate-v1"));
		json_object_set_new(doc, "head", json_string(pl->meta.head));
		json_object_set_new(doc, "complete", json_boolean(!bad));
		json_object_set_new(doc, "nodes", json_integer((json_int_t)total));
		json_object_set_new(doc, "ok",
				    json_integer((json_int_t)(total - bad)));
		json_object_set_new(doc, "missing", missing);
		json_object_set_new(doc, "gap_rebuilds", gaps);
		missing = gaps = NULL;
		rc = print_json(ctx, doc);
	} else if (bad) {
		printf("gate: FAIL: %zu of %zu nodes have no ok record at "
		       "%.12s\n  hint: `ripple why NODE --reuse any` explains "
		       "one; a failed or deferred node leaves no ok record\n",
		       bad, total, pl->meta.head);
	} else {
		printf("gate: ok: all %zu nodes have ok records at %.12s\n",
		       total, pl->meta.head);
	}
	if (!a.json && n_gaps)
		printf("gate: %zu of them rebuilt because of a cache gap (a "
		       "job built its upstream itself: slower, not wrong)\n",
		       n_gaps);
	if (!rc && bad)
		rc = CLI_FAIL;
done:
	json_decref(missing);
	json_decref(gaps);
	planner_free(pl);
	cli_remote_close(&a.rem);
	cache_close(cache);
	graph_repo_close(repo);
	return rc;
}
