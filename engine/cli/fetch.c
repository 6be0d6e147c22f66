/*
 * `ripple fetch NODE... [--to DIR]`: the outputs of reused nodes, from the
 * remote cache, for a job that needs files but runs nothing (a release job
 * collecting wheels, a test job outside ripple). The nodes' keys at the
 * head decide which records count, exactly as `ripple plan --reuse any`
 * would reuse them; the bytes are verified (engine/run/remote.h).
 */
#include "engine/cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "base/fsys.h"
#include "base/strv.h"
#include "cache/cache.h"
#include "engine/plan/eval.h"
#include "engine/plan/planner.h"
#include "engine/plan/remote.h"
#include "engine/run/remote.h"
#include "graph/graph.h"
#include "graph/repo.h"
#include "base/banned.h"

static const char fetch_help[] =
	"usage: ripple fetch NODE... [--to DIR] [--head REV] [--rules FILE]\n"
	"                    [--cache PATH] [--ref REF]\n"
	"\n"
	"Download the outputs of NODE (an id, a glob over ids, a rule or a\n"
	"target, as `ripple plan` takes them) from the remote cache\n"
	"(--remote-cache URL or RIPPLE_REMOTE_CACHE): the outputs of the\n"
	"record of each node's key at the head, found as `ripple plan --reuse\n"
	"any` finds it (this cache first, then the remote one). Each file's\n"
	"SHA-256 is checked as it arrives, then the record's output digest\n"
	"over all of them. Files already in place are not fetched again.\n"
	"\n"
	"  --to DIR       write DIR/FILE-NAME (made when missing) instead of\n"
	"                 the repository paths the records list\n"
	"  --ref REF      the ref whose trust domain is read first (default\n"
	"                 $RIPPLE_REF, else GitHub Actions' ref, else the\n"
	"                 branch); then the trusted domain\n"
	"\n"
	"Every file is checked before any is put in place, all or none; an\n"
	"entry listing a path its node does not declare as an output is\n"
	"refused, and a link, FIFO or device at a destination is never\n"
	"written through (docs/security.md). A blob the server holds damaged\n"
	"fails the fetch, naming it; a run that builds the node again\n"
	"uploads its true bytes. With --to DIR, `ripple release TAG\n"
	"--artifacts DIR` reads the files where this puts them.\n"
	"\n"
	"Exit 0 everything fetched; 1 a node has no ok record of its key or\n"
	"its bytes cannot be had; 2 usage; 3 internal or I/O errors; 130\n"
	"stopped by SIGINT or SIGTERM.\n";

enum { OPT_TO = 256, OPT_HEAD, OPT_RULES, OPT_CACHE, OPT_REF };

struct fetch_args {
	struct planner_options po;
	const char *cache_opt, *to, *ref_opt;
	char ref[1024];
	char dbranch[1024];
};

static int
parse(int argc, char **argv, const struct cli_ctx *ctx, struct fetch_args *a)
{
	static const struct option opts[] = {
		{ "to", required_argument, NULL, OPT_TO },
		{ "head", required_argument, NULL, OPT_HEAD },
		{ "rules", required_argument, NULL, OPT_RULES },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "ref", required_argument, NULL, OPT_REF },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->po.reuse = PLAN_REUSE_SCOPE_ANY;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_TO: a->to = optarg; break;
		case OPT_REF: a->ref_opt = optarg; break;
		case OPT_HEAD: a->po.head = optarg; break;
		case OPT_RULES: a->po.rules_file = optarg; break;
		case OPT_CACHE: a->cache_opt = optarg; break;
		case 'h':
			fputs(fetch_help, stdout);
			return -1;
		default:
			fputs(fetch_help, stderr);
			return CLI_USAGE;
		}
	}
	if (optind >= argc)
		return cli_usage_error(ctx, "fetch", "expected NODE...");
	if (!ctx->remote_url || !ctx->remote_url[0])
		return cli_usage_error(ctx, "fetch", "no remote cache: pass "
				       "--remote-cache URL or set "
				       "RIPPLE_REMOTE_CACHE");
	if (a->to && !a->to[0])
		return cli_usage_error(ctx, "fetch", "--to takes a folder");
	a->po.targets = (const char *const *)argv + optind;
	a->po.n_targets = (size_t)(argc - optind);
	return 0;
}

/* --to: one folder, made when missing; file names must not collide. */
static int
check_names(const struct cli_ctx *ctx, const struct cache_record *rec,
	    struct strv *seen)
{
	struct error err;
	size_t i, k;

	for (i = 0; i < rec->artifacts.n; i++) {
		const char *a = rec->artifacts.v[i], *b = strrchr(a, '/');

		if (a[0] == '/')
			continue;
		b = b ? b + 1 : a;
		for (k = 0; k < seen->n; k++)
			if (!strcmp(seen->v[k], b))
				break;
		error_init(&err);
		if (k < seen->n) {
			error_set(&err, ERROR_INVALID, "two outputs are named "
				  "'%s': --to would write one over the other",
				  b);
			error_node(&err, rec->node_id);
			error_hint(&err, "fetch them into the repository "
				   "(no --to), or one node at a time");
			cli_print_error(ctx, &err);
			return -1;
		}
		if (strv_push(seen, b, &err)) {
			cli_print_error(ctx, &err);
			return -1;
		}
	}
	return 0;
}

/* Fetch node i's outputs; 0 done, 1 the node's failure, or an exit code. */
static int
fetch_one(const struct cli_ctx *ctx, const struct fetch_args *a,
	  struct cache *cache, struct plan_remote *pr, const struct planner *pl,
	  size_t i, struct strv *seen)
{
	const struct graph_node *n = &pl->head->graph->nodes[i];
	const struct plan_item *it = &pl->plan->items[i];
	const struct cache_record *rec;
	struct cache_record local;
	struct error err;
	int rc = 0;

	error_init(&err);
	cache_record_init(&local);
	if (it->decision != PLAN_REUSE) {
		fprintf(stderr, "ripple fetch: %s: no ok record of its key %s "
			"(it would %s)\n", n->id, it->key.hex,
			plan_decision_name(it->decision));
		return 1;
	}
	if (it->remote) {
		rec = &it->remote->rec.rec;
	} else {
		rc = cache_record_get(cache, it->reused_run, n->id, &local,
				      &err);
		if (rc) {
			cache_record_release(&local);
			return cli_fail(ctx, &err);
		}
		rec = &local;
	}
	if (a->to && check_names(ctx, rec, seen)) {
		cache_record_release(&local);
		return CLI_USAGE;
	}
	rc = run_remote_fetch(pr, graph_repo_root(pl->repo), rec,
			      (const char *const *)n->outputs, n->n_outputs,
			      a->to, &err);
	if (rc) {
		cli_print_error(ctx, &err);
		rc = rc == ERROR_NOMEM ? CLI_ERROR : 1;
	} else {
		printf("%s: %zu file%s\n", n->id, rec->artifacts.n,
		       rec->artifacts.n == 1 ? "" : "s");
	}
	cache_record_release(&local);
	return rc;
}

int
cli_fetch(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct graph_repo *repo = NULL;
	struct cache *cache = NULL;
	struct planner *pl = NULL;
	struct cli_remote rem = { NULL, NULL };
	struct strv seen = STRV_INIT;
	struct fetch_args a;
	struct error err;
	size_t i;
	int rc, e, failed = 0;

	rc = parse(argc, argv, ctx, &a);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	error_init(&err);
	rc = graph_repo_open(ctx->dir, &repo, &err);
	if (rc) {
		rc = cli_fail(ctx, &err);
		goto done;
	}
	if (a.to && (e = fsys_mkdir(a.to)) != 0 && e != EEXIST) {
		error_set(&err, ERROR_IO, "cannot make '%s': %s", a.to,
			  strerror(e));
		rc = cli_fail(ctx, &err);
		goto done;
	}
	rc = cli_cache_open_existing(ctx, a.cache_opt, &cache);
	if (!rc)
		rc = cli_remote_open(ctx, &rem);
	if (rc)
		goto done;
	rc = cli_remote_ref(ctx, repo, a.ref_opt, NULL, a.ref, sizeof(a.ref));
	if (rc)
		goto done;
	a.po.ref = a.ref[0] ? a.ref : NULL;
	cli_remote_default_branch(repo, a.dbranch, sizeof(a.dbranch));
	a.po.default_branch = a.dbranch[0] ? a.dbranch : NULL;
	a.po.remote = rem.index;
	rc = cli_planner(ctx, repo, cache, &a.po, &pl);
	if (rc)
		goto done;
	/* Until now a signal kills at once (nothing was written); from here
	 * a stop ends transfers at once and removes their temp files, and
	 * a second signal kills. */
	cli_stop_catch(1, NULL);
	for (i = 0; i < pl->head->graph->n_nodes; i++) {
		if (cli_stopped())
			break;
		if (!pl->selected[i] ||
		    pl->head->graph->nodes[i].kind != GRAPH_NODE_ARTIFACT)
			continue;
		rc = fetch_one(ctx, &a, cache, rem.index, pl, i, &seen);
		if (rc == 1)
			failed = 1;
		else if (rc)
			goto done;
	}
	rc = failed ? CLI_FAIL : CLI_OK;
	cli_remote_summary(&rem);
done:
	if (cli_stopped()) {
		cli_say(ctx, "note", "interrupted: nothing more is fetched");
		rc = CLI_INTERRUPTED;
	}
	strv_release(&seen);
	planner_free(pl);
	cli_remote_close(&rem);
	cache_close(cache);
	graph_repo_close(repo);
	return rc;
}
