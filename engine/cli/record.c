/*
 * `ripple record`: a CI job that ran nodes outside ripple records their
 * outcome (key at the run's commit, output digest of the artifacts, key
 * and input manifests), creating the run on first use; `--finish` closes
 * a run with its status, which is what baselines look for.
 */
#include "engine/cli/cli.h"

#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/strv.h"
#include "cache/cache.h"
#include "engine/plan/eval.h"
#include "engine/plan/record.h"
#include "graph/graph.h"
#include "graph/repo.h"
#include "base/banned.h"

static const char record_help[] =
	"usage: ripple record --run ID --node ID|GLOB --status ok|failed|timeout\n"
	"                     [--artifact PATH]... [--meta K=V]... [--version V]\n"
	"                     [--duration-ms N] [--rev REV] [--ref REF] [--tag TAG]\n"
	"                     [--cache PATH] [--rules FILE]\n"
	"       ripple record --run ID --finish ok|failed|interrupted [--cache PATH]\n"
	"\n"
	"Record the outcome of nodes run outside ripple into run ID (made with\n"
	"its first record, at --rev, default HEAD, with --ref and --tag; a\n"
	"call that fails leaves no run; jobs may record into one ID at once).\n"
	"The output digest is the XXH3-128 of the artifact files. A glob\n"
	"records every node it matches with the same outcome; --node may\n"
	"repeat. --finish sets the run's final status: plans look for\n"
	"successful runs at the merge base.\n";

enum {
	OPT_RUN = 256, OPT_NODE, OPT_STATUS, OPT_ARTIFACT, OPT_META,
	OPT_VERSION, OPT_DURATION, OPT_REV, OPT_REF, OPT_TAG, OPT_CACHE,
	OPT_RULES, OPT_FINISH,
};

static int
fail(const struct cli_ctx *ctx, const struct error *err)
{
	cli_print_error(ctx, err);
	return cli_exit_for(err->code);
}

/*
 * The commit of run `id`: the stored run's, which --rev must agree with,
 * or --rev's (default HEAD) for a run not made yet. The run itself is made
 * (or joined, if another process makes it meanwhile) with the first record,
 * in that record's transaction: a call that records nothing leaves no run.
 */
static int
run_commit(const struct cli_ctx *ctx, struct cache *c, struct graph_repo *repo,
	   const char *id, const char *rev, char *commit, size_t n)
{
	struct cache_run run;
	struct graph_oid oid;
	char hex[GRAPH_OID_HEX];
	struct error err;
	int rc;

	error_init(&err);
	rc = cache_run_get(c, id, &run, &err);
	if (rc && rc != ERROR_NOT_FOUND)
		return fail(ctx, &err);
	if (rc == 0)
		snprintf(commit, n, "%s", run.commit ? run.commit : "");
	cache_run_release(&run);
	if (rc == 0 && !rev)
		return 0;
	error_init(&err);
	if (graph_repo_resolve(repo, rev ? rev : "HEAD", &oid, &err))
		return fail(ctx, &err);
	graph_oid_hex(&oid, hex);
	if (rc == ERROR_NOT_FOUND) {
		snprintf(commit, n, "%s", hex);
		return 0;
	}
	if (strcmp(hex, commit)) {
		error_set(&err, ERROR_CONFLICT, "run '%s' is at commit %.9s, "
			  "not %.9s", id, commit, hex);
		error_hint(&err, "record into a new run for another commit");
		return fail(ctx, &err);
	}
	return 0;
}

int
cli_record(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, OPT_RUN },
		{ "node", required_argument, NULL, OPT_NODE },
		{ "status", required_argument, NULL, OPT_STATUS },
		{ "artifact", required_argument, NULL, OPT_ARTIFACT },
		{ "meta", required_argument, NULL, OPT_META },
		{ "version", required_argument, NULL, OPT_VERSION },
		{ "duration-ms", required_argument, NULL, OPT_DURATION },
		{ "rev", required_argument, NULL, OPT_REV },
		{ "ref", required_argument, NULL, OPT_REF },
		{ "tag", required_argument, NULL, OPT_TAG },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "rules", required_argument, NULL, OPT_RULES },
		{ "finish", required_argument, NULL, OPT_FINISH },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *run = NULL, *status = NULL, *version = NULL;
	struct strv nodes = STRV_INIT;
	const char *rev = NULL, *ref = NULL, *tag = NULL, *cache_opt = NULL;
	const char *rules = NULL, *finish = NULL;
	struct strv artifacts = STRV_INIT, meta = STRV_INIT;
	struct strv node_meta = STRV_INIT;
	struct graph_repo *repo = NULL;
	struct cache *c = NULL;
	struct eval *ev = NULL;
	struct record_outcome o;
	struct cache_run made;
	char path[4096], commit[GRAPH_OID_HEX] = "";
	struct error err;
	long duration = 0;
	size_t i, hits = 0;
	int ch, rc = 0;

	error_init(&err);
	while ((ch = cli_getopt(ctx, "record", argc, argv, "h", opts)) != -1) {
		switch (ch) {
		case OPT_RUN: run = optarg; break;
		case OPT_NODE: strv_push(&nodes, optarg, NULL); break;
		case OPT_STATUS: status = optarg; break;
		case OPT_ARTIFACT: strv_push(&artifacts, optarg, NULL); break;
		case OPT_META: strv_push(&meta, optarg, NULL); break;
		case OPT_VERSION: version = optarg; break;
		case OPT_DURATION: duration = strtol(optarg, NULL, 10); break;
		case OPT_REV: rev = optarg; break;
		case OPT_REF: ref = optarg; break;
		case OPT_TAG: tag = optarg; break;
		case OPT_CACHE: cache_opt = optarg; break;
		case OPT_RULES: rules = optarg; break;
		case OPT_FINISH: finish = optarg; break;
		case 'h':
			fputs(record_help, stdout);
			rc = CLI_OK;
			goto done;
		default:
			rc = CLI_USAGE;
			goto done;
		}
	}
	if (!run || (!finish && (!nodes.n || !status))) {
		rc = cli_usage_error(ctx, "record", "--run and either --finish "
				     "or --node with --status are needed");
		goto done;
	}
	if (cache_run_id_check(run, &err)) {
		rc = fail(ctx, &err);
		goto done;
	}
	rc = cli_cache_path(ctx, cache_opt, path, sizeof(path));
	if (rc) {
		rc = cli_exit_for(rc);
		goto done;
	}
	rc = cache_open(path, CACHE_OPEN_CREATE, &c, &err);
	if (rc) {
		rc = fail(ctx, &err);
		goto done;
	}
	if (finish) {
		enum cache_run_status st;

		rc = cache_run_status_parse(finish, &st, &err);
		if (!rc)
			rc = cache_run_finish(c, run, st, cache_clock_ms(), &err);
		if (rc)
			rc = fail(ctx, &err);
		goto done;
	}
	rc = graph_repo_open(ctx->dir, &repo, &err);
	if (rc) {
		rc = fail(ctx, &err);
		goto done;
	}
	rc = run_commit(ctx, c, repo, run, rev, commit, sizeof(commit));
	if (rc)
		goto done;
	rc = cli_open_eval(ctx, commit, 0, rules, &repo, &ev);
	if (rc)
		goto done;
	eval_set_memo(ev, c, 1);
	memset(&o, 0, sizeof(o));
	o.status = status;
	o.artifacts = (const char *const *)artifacts.v;
	o.n_artifacts = artifacts.n;
	o.meta = (const char *const *)meta.v;
	o.n_meta = meta.n;
	o.version = version;
	o.duration_ms = duration;
	memset(&made, 0, sizeof(made));
	made.id = (char *)run;
	made.commit = commit;
	made.ref = (char *)ref;
	made.tag = (char *)tag;
	made.status = CACHE_RUN_STATUS_RUNNING;
	made.started_ms = cache_clock_ms();
	o.run = &made;
	for (i = 0; i < ev->graph->n_nodes; i++) {
		const struct graph_node *n = &ev->graph->nodes[i];
		size_t k;

		for (k = 0; k < nodes.n; k++)
			if (!strcmp(n->id, nodes.v[k]) ||
			    !fnmatch(nodes.v[k], n->id, 0))
				break;
		if (k == nodes.n)
			continue;
		hits++;
		/* Its output groups' digests, as a run records them. */
		strv_release(&node_meta);
		strv_init(&node_meta, 1);
		for (k = 0; !rc && k < meta.n; k++)
			rc = strv_push(&node_meta, meta.v[k], &err);
		if (!rc && !strcmp(status, "ok"))
			rc = record_group_meta(graph_repo_root(repo), n,
					       &artifacts, &node_meta, &err);
		o.meta = (const char *const *)node_meta.v;
		o.n_meta = node_meta.n;
		if (!rc)
			rc = record_node(c, ev, run, i, &o, &err);
		if (rc) {
			rc = fail(ctx, &err);
			goto done;
		}
		printf("recorded %s %s in run %s\n", n->id, status, run);
	}
	if (!hits) {
		error_set(&err, ERROR_NOT_FOUND, "no node matches '%s'%s at "
			  "commit %.9s", nodes.v[0], nodes.n > 1 ? " or the "
			  "other --node globs" : "", commit);
		error_hint(&err, "`ripple graph --rev %.9s` lists the node ids",
			   commit);
		rc = fail(ctx, &err);
	}
done:
	eval_free(ev);
	graph_repo_close(repo);
	cache_close(c);
	strv_release(&artifacts);
	strv_release(&node_meta);
	strv_release(&meta);
	strv_release(&nodes);
	return rc;
}
