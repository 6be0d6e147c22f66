/*
 * `ripple run`: plan with the one planner, create the run, carry the plan
 * out (engine/run/run.c) with progress on stderr and the report on stdout
 * (run_progress.c: each failed node's log once, deferrals), a summary,
 * optionally JSON (then the report goes to stderr), and finish the run ok,
 * failed or interrupted.
 */
#include "engine/cli/cli.h"
#include "engine/cli/run.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/host.h"
#include "base/mem.h"
#include "base/path.h"
#include "cache/cache.h"
#include "engine/plan/eval.h"
#include "engine/run/exec.h"
#include "engine/plan/history.h"
#include "engine/plan/planner.h"
#include "engine/plan/remote.h"
#include "engine/plan/report.h"
#include "engine/run/run.h"
#include "engine/run/store.h"
#include "graph/graph.h"
#include "graph/repo.h"
#include "rules/rules.h"
#include "base/banned.h"

extern char **environ;

/* Exit codes of `ripple run` (docs/cli.md). */
enum {
	RUN_EXIT_DEFERRED = 4,		/* nothing failed; GPU tests deferred */
	RUN_EXIT_INTERRUPTED = 130,	/* Ctrl-C or SIGTERM */
};

static const char run_help[] =
	"usage: ripple run [TARGET...] [-j N] [--keep-going] [--only GLOB]...\n"
	"                  [--job NAME]\n"
	"                  [--run-id ID] [--ref REF] [--tag TAG] [--dry-run]\n"
	"                  [--head REV | --worktree] [--base REV]\n"
	"                  [--baseline-run ID|auto] [--reuse baseline|any|none]\n"
	"                  [--timeout SECONDS] [--rules FILE] [--cache PATH]\n"
	"                  [--platform P] [--strict-cache] [--failed-logs DIR]\n"
	"                  [--json]\n"
	"\n"
	"Plan exactly as `ripple plan` does, then carry the plan out: reused\n"
	"nodes are recorded into the new run from their baseline record; build\n"
	"and test nodes run when their dependencies are done, -j at once\n"
	"(default: $RIPPLE_JOBS, else the number of cores; a plan keys source\n"
	"sets on as many threads, at most 8), lowest topological index first. A\n"
	"failure blocks its dependents and stops new starts unless\n"
	"--keep-going. A cascade whose key, recomputed with this run's output\n"
	"digests, equals the baseline's is cut off (reused, not run). Nodes of\n"
	"another platform are remote; GPU tests with no matching GPU here are\n"
	"deferred. --only GLOB (repeatable: any of them) runs only matching\n"
	"build/test nodes; the others are skipped, and nodes needing a skipped\n"
	"one are skipped too. --job NAME runs exactly one CI job's nodes (a\n"
	"matrix entry of `plan --github-output`; `ripple jobs` lists them) and\n"
	"fails when one of them cannot run here; it reuses any ok record of an\n"
	"equal key (--reuse any) unless told.\n"
	"A cache gap is a slowdown, never a failure: an upstream that a\n"
	"selected node needs and that has no usable record (none, not trusted,\n"
	"the server down), or a reused one whose bytes cannot be had (an\n"
	"evicted or damaged blob), is built here first, with what it needs;\n"
	"the report lists these gap rebuilds. --strict-cache fails such a node\n"
	"instead (and leaves unrecorded upstream to other jobs).\n"
	"Logs: .ripple/logs/RUN/NODE.log; --failed-logs DIR also copies the\n"
	"logs of the nodes that failed or timed out into DIR (for a CI\n"
	"artifact). --dry-run prints the plan only.\n"
	"--platform P runs as a runner of platform P (default: this host's,\n"
	"e.g. linux-64). Runners of one CI run share --run-id: a run id that\n"
	"exists at the same commit is joined, and a failure anywhere keeps the\n"
	"run failed. Actions run in the working tree, so --head must name the\n"
	"checked-out commit, and uncommitted changes of the inputs of nodes to\n"
	"build are refused (commit, stash, or run them with --worktree).\n"
	"--tag TAG: a release run; artifacts with `version:` are reused only at\n"
	"the version they have at the tag. Toolkits whose home exists here are\n"
	"probed and must match their pins.\n"
	"With --remote-cache URL (docs/remote-cache.md) records are looked up\n"
	"there too, the outputs of reused nodes that a node here needs are\n"
	"fetched, and every ok result is published into the trust domain of\n"
	"the run's ref: --ref, else $RIPPLE_REF, else refs/tags/TAG for --tag,\n"
	"else GitHub Actions' ref (a pull request's is refs/pull/N/merge),\n"
	"else the branch. A run whose ref is unknown publishes nothing.\n"
	"--max-nodes N and --max-edges N raise the graph's ceilings (100000\n"
	"nodes, 1000000 edges); the rules' policy can only lower them.\n"
	"\n"
	"Exit: 0 everything here ok (remote nodes are listed); 1 a node failed,\n"
	"timed out or was blocked; 4 nothing failed but GPU tests were\n"
	"deferred; 130 interrupted; 2 usage or rules; 3 internal or I/O.\n";

enum {
	OPT_HEAD = 256, OPT_BASE, OPT_BASELINE, OPT_REUSE, OPT_RULES,
	OPT_CACHE, OPT_JSON, OPT_WORKTREE, OPT_KEEP, OPT_RUNID, OPT_ONLY, OPT_JOB,
	OPT_DRY, OPT_REF, OPT_TAG, OPT_TIMEOUT, OPT_PLATFORM, OPT_STRICT,
	OPT_FAILED_LOGS,
};


static int
parse(int argc, char **argv, const struct cli_ctx *ctx, struct run_args *a)
{
	static const struct option opts[] = {
		{ "head", required_argument, NULL, OPT_HEAD },
		{ "worktree", no_argument, NULL, OPT_WORKTREE },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "baseline-run", required_argument, NULL, OPT_BASELINE },
		{ "reuse", required_argument, NULL, OPT_REUSE },
		{ "rules", required_argument, NULL, OPT_RULES },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "keep-going", no_argument, NULL, OPT_KEEP },
		{ "run-id", required_argument, NULL, OPT_RUNID },
		{ "only", required_argument, NULL, OPT_ONLY },
		{ "job", required_argument, NULL, OPT_JOB },
		{ "dry-run", no_argument, NULL, OPT_DRY },
		{ "ref", required_argument, NULL, OPT_REF },
		{ "tag", required_argument, NULL, OPT_TAG },
		{ "platform", required_argument, NULL, OPT_PLATFORM },
		{ "failed-logs", required_argument, NULL, OPT_FAILED_LOGS },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "strict-cache", no_argument, NULL, OPT_STRICT },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(a, 0, sizeof(*a));
	a->po.reuse = -1;
	while ((c = cli_getopt(ctx, "run", argc, argv, "hj:", opts)) != -1) {
		switch (c) {
		case OPT_HEAD: a->po.head = optarg; break;
		case OPT_WORKTREE: a->po.worktree = 1; break;
		case OPT_BASE: a->po.base = optarg; break;
		case OPT_BASELINE: a->po.baseline_run = optarg; break;
		case OPT_RULES: a->po.rules_file = optarg; break;
		case OPT_CACHE: a->cache_opt = optarg; break;
		case OPT_JSON: a->json = 1; break;
		case OPT_KEEP: a->keep_going = 1; break;
		case OPT_RUNID: a->run_id = optarg; break;
		case OPT_ONLY:
			if (a->n_only == sizeof(a->only) / sizeof(a->only[0]))
				return cli_usage_error(ctx, "run", "at most "
						       "64 --only globs");
			a->only[a->n_only++] = optarg;
			break;
		case OPT_JOB: a->job = optarg; break;
		case OPT_DRY: a->dry_run = 1; break;
		case OPT_REF: a->ref = optarg; break;
		case OPT_TAG: a->tag = optarg; break;
		case OPT_PLATFORM: a->platform = optarg; break;
		case OPT_STRICT: a->strict_cache = 1; break;
		case OPT_FAILED_LOGS: a->failed_logs = optarg; break;
		case OPT_TIMEOUT:
			errno = 0;
			a->timeout_s = strtol(optarg, &end, 10);
			if (errno || *end || a->timeout_s <= 0)
				return cli_usage_error(ctx, "run", "--timeout "
						       "takes seconds > 0, not "
						       "'%s'", optarg);
			break;
		case 'j':
			errno = 0;
			a->jobs = strtol(optarg, &end, 10);
			if (errno || *end || a->jobs <= 0 || a->jobs > 4096)
				return cli_usage_error(ctx, "run", "-j takes a "
						       "number from 1 to 4096, "
						       "not '%s'", optarg);
			a->po.jobs = (size_t)a->jobs;
			break;
		case OPT_REUSE:
			if (!strcmp(optarg, "baseline"))
				a->po.reuse = PLAN_REUSE_SCOPE_BASELINE;
			else if (!strcmp(optarg, "any"))
				a->po.reuse = PLAN_REUSE_SCOPE_ANY;
			else if (!strcmp(optarg, "none"))
				a->po.reuse = PLAN_REUSE_SCOPE_NONE;
			else
				return cli_usage_error(ctx, "run", "--reuse "
						       "takes baseline, any or "
						       "none, not '%s'",
						       optarg);
			break;
		case 'h':
			fputs(run_help, stdout);
			return -1;
		default:
			return CLI_USAGE;
		}
	}
	if (a->po.head && a->po.worktree)
		return cli_usage_error(ctx, "run", "--head and --worktree "
				       "exclude each other");
	return 0;
}

/*
 * --dry-run: plan as the run would, refuse what it would refuse in its
 * arguments (--platform, --only, --tag; not the checkout, since nothing
 * runs), and print the plan. Reads the cache if there is one (as `plan`
 * does) and records nothing: no cache file is created, no run is made and
 * no source-key memo is stored.
 */
static int
dry_run(const struct cli_ctx *ctx, struct run_args *a,
	struct graph_repo *repo)
{
	struct cache *cache = NULL;
	struct planner *pl = NULL;
	struct error err;
	struct buf b;
	int rc;

	error_init(&err);
	buf_init(&b, 0);
	rc = cli_cache_open_existing(ctx, a->cache_opt, &cache);
	if (rc)
		goto done;
	a->po.memo_write = 0;
	rc = cli_planner(ctx, repo, cache, &a->po, &pl);
	if (!rc)
		rc = cli_run_check_platform(ctx, a, pl->head);
	if (!rc)
		rc = cli_run_select(ctx, a, pl);
	if (!rc)
		rc = cli_run_check_tag(ctx, repo, a, pl->head);
	if (rc)
		goto done;
	pl->meta.color = ctx->color_out;
	rc = (a->json ? report_plan_json : report_plan_text)(
		pl->head->graph, pl->plan, &pl->meta, &b, &err);
	rc = rc ? cli_fail(ctx, &err) : cli_write_out(ctx, NULL, 0, &b);
done:
	buf_release(&b);
	planner_free(pl);
	cache_close(cache);
	return rc;
}

/*
 * A job's node that should have run here but was skipped or left to
 * another platform (an upstream of another platform has no record, or
 * one without a record under --strict-cache): the job did not do its
 * work. Gap rebuilds are not the job's own nodes. Prints each one.
 */
static int
job_incomplete(const struct planner *pl, const struct run_args *a,
	       const struct run_result *res)
{
	size_t i, n = 0;

	for (i = 0; i < res->n; i++) {
		enum run_state s = res->nodes[i].state;

		if (!a->select[i] || (a->gap && a->gap[i]) ||
		    !pl->plan->in_closure[i] ||
		    (s != RUN_STATE_SKIPPED && s != RUN_STATE_REMOTE))
			continue;
		if (!n++)
			fprintf(stderr, "job %s could not run:\n", a->job);
		fprintf(stderr, "  %s: %s\n", pl->head->graph->nodes[i].id,
			res->nodes[i].message);
	}
	return n > 0;
}

static int
execute(const struct cli_ctx *ctx, const struct run_args *a,
	struct graph_repo *repo, struct cache *cache, struct planner *pl,
	const char *run_id, FILE *report)
{
	struct run_cache_store cs;
	struct run_store store;
	struct run_options o;
	struct run_result res;
	struct exec_runner ex;
	struct cli_run_progress pr;
	struct run_gpu *gpus = NULL;
	struct cli_stop_saved saved;
	const char *env[EXEC_ENV_ALWAYS_MAX];
	char logdir[4096], outdir[4096], self[4096];
	const char *root = graph_repo_root(repo), *status;
	struct error err;
	json_t *doc;
	size_t ngpu = 0;
	int rc, finish_rc;
	enum cache_run_status final;

	error_init(&err);
	memset(&res, 0, sizeof(res));
	memset(&cs, 0, sizeof(cs));
	/* Made inside the repository only: a committed `.ripple` link to
	 * elsewhere is refused (the run id is a plain name, checked). */
	snprintf(logdir, sizeof(logdir), ".ripple/logs/%s", run_id);
	snprintf(outdir, sizeof(outdir), ".ripple/out/%s", run_id);
	if (path_mkdirs_under(root, logdir, &err) ||
	    path_mkdirs_under(root, outdir, &err)) {
		rc = cli_fail(ctx, &err);
		goto done;
	}
	snprintf(logdir, sizeof(logdir), "%s/.ripple/logs/%s", root, run_id);
	snprintf(outdir, sizeof(outdir), "%s/.ripple/out/%s", root, run_id);
	host_self_exe(self, sizeof(self));
	memset(&o, 0, sizeof(o));
	cli_run_probe_gpus(pl->head->graph, pl->plan, &gpus, &ngpu, &o.cuda_home);
	if (cli_job_count(ctx, "run", a->jobs, &o.jobs)) {
		rc = CLI_USAGE;
		goto done;
	}
	o.keep_going = a->keep_going;
	o.select = a->select;
	o.gap = a->gap;
	o.strict_cache = a->strict_cache;
	o.select_note = a->select_note;
	o.timeout_ms = a->timeout_s * 1000;
	o.run_id = run_id;
	o.root = root;
	o.log_dir = logdir;
	o.out_dir = outdir;
	o.self_exe = self[0] ? self : NULL;
	o.host_platform = a->platform ? a->platform : run_host_platform();
	o.gpus = gpus;
	o.n_gpus = ngpu;
	/* cudart's ordinals count the runner's own restriction, if any. */
	o.visible_devices = getenv("CUDA_VISIBLE_DEVICES");
	o.base_env = env;
	o.n_base_env = exec_env_allowed(environ, env);
	o.pass_env = (const char *const *)environ;
	o.versions = pl->versions;
	o.n_versions = pl->n_versions;
	o.stop = cli_stop_flag();
	cli_run_progress_init(&pr, ctx, pl->head->graph, report);
	o.progress = cli_run_progress_event;
	o.progress_payload = &pr;
	cs.cache = cache;
	cs.ev = pl->head;
	cs.plan = pl->plan;
	cs.hist = history_plan(pl->hist);
	cs.run_id = run_id;
	cs.root = root;
	cs.versions = pl->versions;
	cs.n_versions = pl->n_versions;
	cs.check_versions = pl->check_versions;
	cs.toolkit_ids = a->toolkit_ids;
	cs.n_toolkit_ids = a->n_toolkit_ids;
	cs.remote = a->rem.index;
	cs.runner = a->runner[0] ? a->runner : NULL;
	cs.tag = a->tag;
	run_store_cache(&cs, &store);
	rc = exec_runner_system(&ex, &err);
	if (rc) {
		rc = cli_fail(ctx, &err);
		goto done;
	}
	cli_stop_catch(0, &saved);
	/*
	 * A reader that goes away (`ripple run | head`) must not kill the
	 * run half-way and leave it "running": writes fail instead, and the
	 * run is finished and recorded. Actions get SIGPIPE back
	 * (base/proc_posix.c).
	 */
	interrupt_ignore_broken_pipe();
	rc = run_execute(pl->head->graph, pl->plan, &ex, &store, &o, &res,
			 &err);
	exec_runner_system_release(&ex);
	run_store_cache_release(&cs);
	cli_stop_restore(&saved);
	cli_run_progress_end(&pr);
	if (rc) {
		cli_print_error(ctx, &err);
		rc = cli_exit_for(rc);
		final = CACHE_RUN_STATUS_FAILED;
	} else if (res.interrupted) {
		rc = RUN_EXIT_INTERRUPTED;
		final = CACHE_RUN_STATUS_INTERRUPTED;
	} else if (res.counts[RUN_STATE_FAILED] ||
		   res.counts[RUN_STATE_TIMEOUT] ||
		   res.counts[RUN_STATE_BLOCKED] ||
		   res.counts[RUN_STATE_INTERRUPTED]) {
		rc = CLI_FAIL;
		final = CACHE_RUN_STATUS_FAILED;
	} else if (a->job && job_incomplete(pl, a, &res)) {
		rc = CLI_FAIL;
		final = CACHE_RUN_STATUS_FAILED;
	} else {
		rc = res.counts[RUN_STATE_DEFERRED] ? RUN_EXIT_DEFERRED
						    : CLI_OK;
		final = CACHE_RUN_STATUS_OK;
	}
	{
		struct cache_run have;

		/* A joined run stays failed if another runner failed. */
		memset(&have, 0, sizeof(have));
		error_init(&err);
		if (!cache_run_get(cache, run_id, &have, &err) &&
		    (have.status == CACHE_RUN_STATUS_FAILED ||
		     have.status == CACHE_RUN_STATUS_INTERRUPTED) &&
		    final == CACHE_RUN_STATUS_OK)
			final = have.status;
		cache_run_release(&have);
	}
	status = cache_run_status_name(final);
	error_init(&err);
	finish_rc = cache_run_finish(cache, run_id, final, cache_clock_ms(),
				     &err);
	if (finish_rc) {
		cli_print_error(ctx, &err);
		if (!rc)
			rc = cli_exit_for(finish_rc);
	}
	/* One bundle of what it published, for plans that follow. */
	if (a->rem.index && !pl->head->worktree) {
		error_init(&err);
		if (plan_remote_bundle_publish(a->rem.index,
					       pl->head->commit_hex, a->tag,
					       a->runner[0] ? a->runner : NULL,
					       &err) &&
		    plan_remote_fault(a->rem.index, &err, &err) && !rc)
			rc = cli_fail(ctx, &err);
	}
	cli_run_summary(report, pl->head->graph, &res, run_id, status);
	cli_remote_summary(&a->rem);
	if (a->failed_logs) {
		int lrc = cli_run_failed_logs(ctx, a->failed_logs, &res);

		if (lrc && !rc)
			rc = lrc;
	}
	if (a->json) {
		int prc;

		doc = cli_run_json(pl, &res, run_id, status);
		prc = cli_print_json(ctx, doc, JSON_INDENT(2));
		if (prc && !rc)
			rc = prc;
	}
done:
	run_store_cache_release(&cs);
	run_result_release(&res);
	mem_free(gpus);
	return rc;
}

int
cli_run(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct graph_repo *repo = NULL;
	struct cache *cache = NULL;
	struct planner *pl = NULL;
	struct run_args a;
	struct cli_base auto_base;
	struct error err;
	char path[4096], id[CACHE_RUN_ID_SIZE];
	const char *run_id;
	FILE *report;
	int rc;

	rc = parse(argc, argv, ctx, &a);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	/* A job's upstream comes from other jobs of the same CI run, not
	 * from the baseline: an ok record of an equal key is the thing.
	 * Only the job's part of the graph is planned and looked up. */
	if (a.job && a.po.reuse < 0)
		a.po.reuse = PLAN_REUSE_SCOPE_ANY;
	a.po.job = a.job;
	arena_init(&a.arena);
	/* The report is stdout's, unless JSON is. */
	report = a.json ? stderr : stdout;
	a.po.targets = (const char *const *)argv + optind;
	a.po.n_targets = (size_t)(argc - optind);
	error_init(&err);
	if (a.run_id && cache_run_id_check(a.run_id, &err))
		return cli_fail(ctx, &err);
	rc = graph_repo_open(ctx->dir, &repo, &err);
	if (!rc && !a.dry_run)
		rc = graph_repo_need_worktree(repo, "'ripple run' (actions "
					      "run in it)", &err);
	if (rc) {
		rc = cli_fail(ctx, &err);
		goto done;
	}
	/* The remote cache serves a dry run's plan too. */
	rc = cli_run_remote(ctx, repo, &a);
	if (rc)
		goto done;
	a.po.remote = a.rem.index;
	if (a.rem.index && !a.ref && !ctx->remote_read_only && !a.dry_run)
		cli_say(ctx, "warning", "remote cache %s: this run's ref is "
			"unknown (a detached HEAD outside GitHub Actions), so "
			"it publishes nothing; pass --ref REF or set RIPPLE_REF",
			plan_remote_url(a.rem.index));
	if (a.dry_run) {
		rc = dry_run(ctx, &a, repo);
		goto done;
	}
	rc = cli_cache_path(ctx, a.cache_opt, path, sizeof(path));
	if (rc) {
		rc = cli_exit_for(rc);
		goto done;
	}
	rc = cache_open(path, CACHE_OPEN_CREATE, &cache, &err);
	if (rc) {
		rc = cli_fail(ctx, &err);
		goto done;
	}
	a.po.memo_write = 1;
	a.po.want_versions = 1;
	a.po.tag = a.tag;
	if (a.po.worktree && cli_date_epoch(ctx, &a.po.date_epoch) < 0) {
		rc = CLI_USAGE;
		goto done;
	}
	rc = cli_base_resolve(ctx, repo, cache, &a.po, &auto_base);
	if (!rc)
		rc = cli_planner(ctx, repo, cache, &a.po, &pl);
	if (!rc)
		rc = cli_toolkits_check(ctx, pl, &a.arena, &a.toolkit_ids,
					&a.n_toolkit_ids);
	if (rc)
		goto done;
	run_id = a.run_id;
	if (!run_id) {
		uint64_t entropy = 0;

		rc = cache_entropy(&entropy, &err);
		if (!rc)
			rc = cache_run_new_id(cache_clock_ms(), entropy, id,
					      sizeof(id), &err);
		if (rc) {
			rc = cli_fail(ctx, &err);
			goto done;
		}
		run_id = id;
	}
	rc = cli_run_check_platform(ctx, &a, pl->head);
	if (!rc)
		rc = cli_run_select(ctx, &a, pl);
	if (!rc)
		rc = cli_run_check_checkout(ctx, repo, pl->head);
	if (!rc)
		rc = cli_run_check_clean(ctx, pl, a.rem.index);
	if (!rc)
		rc = cli_run_check_tag(ctx, repo, &a, pl->head);
	if (!rc)
		rc = cli_run_create_run(ctx, cache, run_id, &a, pl->head,
					report);
	if (rc)
		goto done;
	fprintf(report, "run %s: baseline %s\n", run_id,
		pl->label[0] ? pl->label : "none");
	fflush(report);
	rc = execute(ctx, &a, repo, cache, pl, run_id, report);
done:
	mem_free(a.select);
	mem_free(a.gap);
	planner_free(pl);
	cli_remote_close(&a.rem);
	cache_close(cache);
	graph_repo_close(repo);
	arena_release(&a.arena);
	return rc;
}
