/*
 * `ripple plan` and `ripple why`: the planner's decisions for a target, as a
 * table, JSON, GitHub Actions outputs or a step summary; and one node's
 * decision with its root-cause chain.
 */
#include "engine/cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fnmatch.h"
#include "cache/cache.h"
#include "engine/plan/eval.h"
#include "engine/plan/planner.h"
#include "graph/graph.h"
#include "graph/repo.h"
#include "base/banned.h"

enum {
	OPT_HEAD = 256, OPT_BASE, OPT_BASELINE, OPT_REUSE, OPT_ASSUME,
	OPT_RULES, OPT_CACHE, OPT_JSON, OPT_GHO, OPT_GHS, OPT_WORKTREE,
	OPT_VERBOSE, OPT_TAG, OPT_GHSTAGES, OPT_REF,
};

static const struct option plan_opts[] = {
	{ "head", required_argument, NULL, OPT_HEAD },
	{ "worktree", no_argument, NULL, OPT_WORKTREE },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "baseline-run", required_argument, NULL, OPT_BASELINE },
	{ "reuse", required_argument, NULL, OPT_REUSE },
	{ "assume-base-built", no_argument, NULL, OPT_ASSUME },
	{ "rules", required_argument, NULL, OPT_RULES },
	{ "cache", required_argument, NULL, OPT_CACHE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "github-output", required_argument, NULL, OPT_GHO },
	{ "github-step-summary", required_argument, NULL, OPT_GHS },
	{ "github-stages", required_argument, NULL, OPT_GHSTAGES },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "tag", required_argument, NULL, OPT_TAG },
	{ "ref", required_argument, NULL, OPT_REF },
	{ "jobs", required_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct plan_args {
	struct planner_options po;
	const char *cache_opt;
	const char *gh_output, *gh_summary;
	int json, verbose;
	unsigned gh_stages;	/* --github-stages N, or 0 */
	struct cli_base auto_base;	/* --base auto, derived */
	const char *ref_opt;	/* --ref, or NULL */
	char ref[1024];		/* the ref planned for (cli_remote_ref) */
	char dbranch[1024];	/* the default branch, or "" */
};

static const char plan_help[] =
	"usage: ripple plan [TARGET...] [--head REV | --worktree] [--base REV]\n"
	"                   [--baseline-run ID|auto] [--reuse baseline|any|none]\n"
	"                   [--assume-base-built] [--tag TAG] [--rules FILE]\n"
	"                   [--cache PATH] [--json] [--github-output FILE]\n"
	"                   [--github-step-summary FILE] [--github-stages N]\n"
	"                   [--verbose] [--ref REF] [-j N]\n"
	"\n"
	"Decide, for every node in the targets' closure, build, test, reuse or\n"
	"skip, with the reason. TARGET is a declared target, a rule name,\n"
	"'artifacts', 'tests', 'releases' or a glob over node ids (default:\n"
	"every artifact and test).\n"
	"\n"
	"  --head REV            plan this commit (default HEAD)\n"
	"  --worktree            plan the working tree, uncommitted changes too\n"
	"  --base REV            compare with the merge base of REV and the head:\n"
	"                        its newest successful run is the baseline;\n"
	"                        auto: derived from the GitHub event (`ripple\n"
	"                        base` says which and why)\n"
	"  --baseline-run ID     compare with this recorded run instead\n"
	"  --reuse SCOPE         baseline (default: the rules' policy), any (a\n"
	"                        record with the same key in any run), none\n"
	"  --assume-base-built   no recorded run: compare keys with the base\n"
	"                        commit's, as if it had been built\n"
	"  --tag TAG             plan as `ripple run --tag TAG` does: an artifact\n"
	"                        with `version:` is reused only from a record of\n"
	"                        the version it has now\n"
	"  --rules FILE          rules file instead of the head's ripple.yml\n"
	"  --cache PATH          the run cache (default $RIPPLE_CACHE, else\n"
	"                        .ripple/cache.db at the repository root)\n"
	"  --ref REF             the ref this works for: its trust domain in\n"
	"                        the remote cache (default $RIPPLE_REF, else\n"
	"                        GitHub Actions' ref, else the branch)\n"
	"  --json                the plan as JSON (schema ripple-plan-v1)\n"
	"  --github-output FILE  append GitHub Actions outputs (matrices)\n"
	"  --github-step-summary FILE  append a Markdown summary\n"
	"  --github-stages N     the workflow runs N job slots in order: also\n"
	"                        write stage-1..N outputs (has-, matrix-,\n"
	"                        name-stage-K); more stages than N is an error\n"
	"  --verbose             list reused and skipped nodes too\n"
	"  -j, --jobs N          key at most N source sets at once (default\n"
	"                        $RIPPLE_JOBS, else the number of cores, at\n"
	"                        most 8); the plan is the same for every N\n"
	"  --max-nodes N, --max-edges N  raise the graph's ceilings (100000\n"
	"                        nodes, 1000000 edges; the rules' policy can\n"
	"                        only lower them; docs/rules.md)\n"
	"\n"
	"Exit 0; 2 for bad rules or arguments; 3 for internal or I/O errors.\n";

static const char why_help[] =
	"usage: ripple why NODE [--head REV | --worktree] [--base REV]\n"
	"                  [--baseline-run ID|auto] [--reuse baseline|any|none]\n"
	"                  [--assume-base-built] [--tag TAG] [--rules FILE]\n"
	"                  [--cache PATH] [--json] [--ref REF] [-j N]\n"
	"\n"
	"Explain one node's decision: the input that changed (file and both blob\n"
	"ids), the rule field (old and new text), the toolkit, or, for a\n"
	"cascade, the chain up to the root cause. NODE is an id, a glob that\n"
	"matches one node, or the name of a rule with one instance. The options\n"
	"are `ripple plan`'s: why plans exactly as plan does.\n";

static int
parse(int argc, char **argv, const struct cli_ctx *ctx, const char *cmd,
      const char *help, struct plan_args *a)
{
	int c;

	memset(a, 0, sizeof(*a));
	a->po.reuse = -1;
	while ((c = cli_getopt(ctx, cmd, argc, argv, "hj:", plan_opts)) != -1) {
		switch (c) {
		case OPT_HEAD: a->po.head = optarg; break;
		case OPT_WORKTREE: a->po.worktree = 1; break;
		case OPT_BASE: a->po.base = optarg; break;
		case OPT_BASELINE: a->po.baseline_run = optarg; break;
		case OPT_ASSUME: a->po.assume_base_built = 1; break;
		case OPT_RULES: a->po.rules_file = optarg; break;
		case OPT_CACHE: a->cache_opt = optarg; break;
		case OPT_JSON: a->json = 1; break;
		case OPT_GHO: a->gh_output = optarg; break;
		case OPT_GHS: a->gh_summary = optarg; break;
		case OPT_GHSTAGES: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !*optarg || v < 1 || v > 64)
				return cli_usage_error(ctx, cmd, "--github-"
						       "stages takes 1 to 64, "
						       "not '%s'", optarg);
			a->gh_stages = (unsigned)v;
			break;
		}
		case OPT_VERBOSE: a->verbose = 1; break;
		case OPT_TAG: a->po.tag = optarg; break;
		case OPT_REF: a->ref_opt = optarg; break;
		case OPT_REUSE:
			if (!strcmp(optarg, "baseline"))
				a->po.reuse = PLAN_REUSE_SCOPE_BASELINE;
			else if (!strcmp(optarg, "any"))
				a->po.reuse = PLAN_REUSE_SCOPE_ANY;
			else if (!strcmp(optarg, "none"))
				a->po.reuse = PLAN_REUSE_SCOPE_NONE;
			else
				return cli_usage_error(ctx, cmd,
						       "--reuse takes baseline, "
						       "any or none, not '%s'",
						       optarg);
			break;
		case 'j': {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v <= 0 || v > 4096)
				return cli_usage_error(ctx, cmd, "-j takes a "
						       "number from 1 to 4096, "
						       "not '%s'", optarg);
			a->po.jobs = (size_t)v;
			break;
		}
		case 'h':
			fputs(help, stdout);
			return -1;
		default:
			return CLI_USAGE;
		}
	}
	if (a->po.head && a->po.worktree)
		return cli_usage_error(ctx, cmd, "--head and --worktree "
				       "exclude each other");
	if (a->gh_stages && !a->gh_output)
		return cli_usage_error(ctx, cmd, "--github-stages goes with "
				       "--github-output");
	return 0;
}

static int
run_planner(const struct cli_ctx *ctx, struct plan_args *a,
	    struct graph_repo **repo, struct cache **cache,
	    struct cli_remote *rem, struct planner **pl)
{
	struct error err;
	int rc;

	error_init(&err);
	rc = graph_repo_open(ctx->dir, repo, &err);
	if (rc) {
		cli_print_error(ctx, &err);
		return cli_exit_for(rc);
	}
	rc = cli_cache_open_existing(ctx, a->cache_opt, cache);
	if (!rc)
		rc = cli_remote_open(ctx, rem);
	if (rc)
		return rc;
	if (a->po.worktree && cli_date_epoch(ctx, &a->po.date_epoch) < 0)
		return CLI_USAGE;
	a->po.remote = rem->index;
	rc = cli_remote_ref(ctx, *repo, a->ref_opt, a->po.tag, a->ref,
			    sizeof(a->ref));
	if (rc)
		return rc;
	a->po.ref = a->ref[0] ? a->ref : NULL;
	cli_remote_default_branch(*repo, a->dbranch, sizeof(a->dbranch));
	a->po.default_branch = a->dbranch[0] ? a->dbranch : NULL;
	rc = cli_base_resolve(ctx, *repo, *cache, &a->po, &a->auto_base);
	if (rc)
		return rc;
	rc = cli_planner(ctx, *repo, *cache, &a->po, pl);
	if (!rc) {
		struct arena ar;

		/* A toolkit that is not what its pin says is an error here
		 * as in `ripple run`, before anything relies on the plan. */
		arena_init(&ar);
		rc = cli_toolkits_check(ctx, *pl, &ar, NULL, NULL);
		arena_release(&ar);
	}
	return rc;
}

static int
emit(const struct cli_ctx *ctx, const char *path, int append,
     int (*fn)(const struct graph *, const struct plan *,
	       const struct plan_meta *, struct buf *, struct error *),
     const struct planner *pl)
{
	struct error err;
	struct buf b;
	int rc;

	error_init(&err);
	buf_init(&b, 0);
	rc = fn(pl->head->graph, pl->plan, &pl->meta, &b, &err);
	if (rc) {
		cli_print_error(ctx, &err);
		rc = cli_exit_for(rc);
	} else {
		rc = cli_write_out(ctx, path, append, &b);
	}
	buf_release(&b);
	return rc;
}

int
cli_plan(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct graph_repo *repo = NULL;
	struct cache *cache = NULL;
	struct planner *pl = NULL;
	struct cli_remote rem = { NULL, NULL };
	struct plan_args a;
	int rc;

	rc = parse(argc, argv, ctx, "plan", plan_help, &a);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	a.po.targets = (const char *const *)argv + optind;
	a.po.n_targets = (size_t)(argc - optind);
	rc = run_planner(ctx, &a, &repo, &cache, &rem, &pl);
	if (rc)
		goto done;
	pl->meta.color = ctx->color_out;
	pl->meta.verbose = a.verbose;
	pl->meta.github_stages = a.gh_stages;
	rc = emit(ctx, NULL, 0, a.json ? report_plan_json : report_plan_text,
		  pl);
	if (!rc && a.gh_output)
		rc = emit(ctx, a.gh_output, 1, report_plan_github, pl);
	if (!rc && a.gh_summary)
		rc = emit(ctx, a.gh_summary, 1, report_plan_summary, pl);
done:
	planner_free(pl);
	cli_remote_close(&rem);
	cache_close(cache);
	graph_repo_close(repo);
	return rc;
}

static long
find_node(const struct cli_ctx *ctx, const struct graph *g, const char *pat)
{
	struct error err;
	long hit;
	size_t i, n;

	hit = planner_node(g, pat, &n);
	if (hit >= 0)
		return hit;
	error_init(&err);
	if (n == 0) {
		error_set(&err, ERROR_NOT_FOUND, "no node matches '%s'", pat);
		error_hint(&err, "`ripple graph` lists the node ids; a glob "
				 "such as 'artifact:NAME*' that matches one "
				 "node works too");
	} else {
		const char *first = NULL, *second = NULL;

		for (i = 0; i < g->n_nodes && !second; i++)
			if (fnmatch_match(pat, g->nodes[i].id) ||
			    !strcmp(pat, g->nodes[i].name)) {
				if (first)
					second = g->nodes[i].id;
				else
					first = g->nodes[i].id;
			}
		error_set(&err, ERROR_INVALID, "'%s' matches %zu nodes; "
			  "`why` explains one", pat, n);
		error_hint(&err, "name one, e.g. '%s' or '%s' (`ripple plan` "
			   "explains them all)", first, second);
	}
	cli_print_error(ctx, &err);
	return -1;
}

int
cli_why(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct graph_repo *repo = NULL;
	struct cache *cache = NULL;
	struct planner *pl = NULL;
	struct cli_remote rem = { NULL, NULL };
	struct plan_args a;
	struct error err;
	struct buf b;
	long at;
	int rc;

	rc = parse(argc, argv, ctx, "why", why_help, &a);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (argc - optind != 1)
		return cli_usage_error(ctx, "why", "expected one NODE");
	a.po.targets = (const char *const *)argv + optind;
	a.po.n_targets = 0;	/* the whole closure for the coverage; */
	a.po.why_node = argv[optind];	/* planned: the node's own scope */
	error_init(&err);
	buf_init(&b, 0);
	rc = run_planner(ctx, &a, &repo, &cache, &rem, &pl);
	if (rc)
		goto done;
	at = find_node(ctx, pl->head->graph, argv[optind]);
	if (at < 0) {
		rc = CLI_USAGE;
		goto done;
	}
	rc = a.json ? report_why_json(pl->head->graph, pl->plan, (size_t)at,
				      &pl->meta, &b, &err)
		    : report_why_text(pl->head->graph, pl->plan, (size_t)at,
				      &pl->meta, &b, &err);
	if (rc) {
		cli_print_error(ctx, &err);
		rc = cli_exit_for(rc);
		goto done;
	}
	rc = cli_write_out(ctx, NULL, 0, &b);
done:
	buf_release(&b);
	planner_free(pl);
	cli_remote_close(&rem);
	cache_close(cache);
	graph_repo_close(repo);
	return rc;
}
