/*
 * Internal to `ripple run` (engine/cli/run.c and run_prep.c): its arguments and the
 * checks and gathering done before execution.
 */
#ifndef RIPPLE_ENGINE_CLI_RUN_H
#define RIPPLE_ENGINE_CLI_RUN_H

#include <stddef.h>
#include <stdio.h>

#include "base/arena.h"
#include "engine/cli/cli.h"
#include "engine/plan/planner.h"

struct cache;
struct cli_ctx;
struct error;
struct eval;
struct graph;
struct graph_repo;
struct plan;
struct plan_remote;
struct rules_kv;
struct run_event;
struct run_gpu;

struct run_args {
	struct planner_options po;
	const char *cache_opt, *run_id, *ref, *tag, *platform;
	const char *failed_logs;	/* --failed-logs DIR, or NULL */
	const char *only[64];	/* --only GLOB, repeatable: their union */
	size_t n_only;
	const char *job;	/* --job NAME: exactly one CI job's nodes */
	unsigned char *select;	/* n_nodes bytes from --only/--job, or NULL */
	unsigned char *gap;	/* n_nodes bytes: selected only because a
				   selected node needs them and they have no
				   usable record (a cache gap), or NULL */
	int strict_cache;	/* --strict-cache: a gap fails the node */
	char select_note[160];	/* why an unselected node is skipped */
	long jobs;
	long timeout_s;
	int keep_going, dry_run, json;
	struct rules_kv *toolkit_ids;	/* probed toolkit name -> identity
					   (cli_toolkits_check), in arena */
	size_t n_toolkit_ids;
	struct arena arena;
	struct cli_remote rem;	/* the remote cache, or zeroed */
	char ref_buf[1024];	/* --ref, refs/tags/TAG, or the branch */
	char dbranch[1024];	/* the default branch, or "" */
	char runner[256];	/* this runner's name (provenance) */
};

struct json_t;
struct run_result;

/*
 * --failed-logs DIR: copy the log of every node that failed or timed out
 * (NODE.log, as under .ripple/logs/RUN/) into DIR, made when needed and
 * only when there is one. 0, or an exit code after printing the error.
 */
int cli_run_failed_logs(const struct cli_ctx *ctx, const char *dir,
			const struct run_result *res);

/* The --json document of a finished run (engine/cli/run_report.c). */
struct json_t *cli_run_json(const struct planner *pl,
			    const struct run_result *res, const char *run_id,
			    const char *status);

/*
 * The summary line, the deferred count when some were, and the nodes
 * rebuilt because of a cache gap with the gap of each, on f (the report's
 * stream: stdout, or stderr with --json; engine/cli/run_report.c).
 */
void cli_run_summary(FILE *f, const struct graph *g,
		     const struct run_result *res, const char *run_id,
		     const char *status);

/*
 * The remote cache of a run (when one is set): opened into a->rem, the
 * run's ref (--ref, else refs/tags/TAG for --tag, else the checked-out
 * branch) into a->ref, and this runner's name ($RIPPLE_RUNNER, else
 * $RUNNER_NAME, else the host name) into a->runner. 0 or an exit code.
 */
int cli_run_remote(const struct cli_ctx *ctx, struct graph_repo *repo,
		   struct run_args *a);

/*
 * The GPUs cudart sees (*out, *n; mem_free it) when some node to build or
 * test needs one, and the toolkit home used (CUDA_HOME, else
 * /usr/local/cuda). No GPU, driver or runtime: *n is 0.
 */
void cli_run_probe_gpus(const struct graph *g, const struct plan *p,
			struct run_gpu **out, size_t *n, const char **home);

/*
 * Make run `id` at the head, or join it at the same commit (saying so on
 * `report`); 0 or exit code.
 */
int cli_run_create_run(const struct cli_ctx *ctx, struct cache *c,
		       const char *id, const struct run_args *a,
		       const struct eval *ev, FILE *report);

/* --platform must be a value of the rules' platform axis. */
int cli_run_check_platform(const struct cli_ctx *ctx,
			   const struct run_args *a, const struct eval *head);

/*
 * Turn --only globs and --job into a->select (mem_alloc'd; the caller
 * frees it) and a->select_note. --only must select a node the plan builds
 * or tests; --job must name a job of the target (jobs.h), and that job's
 * platform must be this runner's (or --platform's). Then, unless
 * --strict-cache, every node the plan builds that a selected node needs
 * (through nodes that build: a reused node's bytes are fetched) and that
 * can run here is selected too and marked in a->gap (mem_alloc'd): the
 * job builds its upstream itself when it has no usable record. 0 or an
 * exit code.
 */
int cli_run_select(const struct cli_ctx *ctx, struct run_args *a,
		   const struct planner *pl);

/* The working tree must hold the planned commit. */
int cli_run_check_checkout(const struct cli_ctx *ctx, struct graph_repo *repo,
			   const struct eval *head);

/*
 * A run of a commit (not --worktree) must not build from uncommitted
 * edits of the inputs of the nodes it builds or tests: they would be
 * recorded under the commit's keys. Refuses naming the files. A clean
 * checkout that holds committed links as files (core.symlinks false) is
 * noted, and publishes nothing to rem (NULL: no remote cache).
 */
int cli_run_check_clean(const struct cli_ctx *ctx, const struct planner *pl,
			struct plan_remote *rem);

/* --tag must name the commit being run (a release looks the run up so). */
int cli_run_check_tag(const struct cli_ctx *ctx, struct graph_repo *repo,
		      const struct run_args *a, const struct eval *head);

/*
 * The run's progress observer (engine/cli/run_progress.c): a status line
 * on stderr when it is a smart terminal (ctx->smart_err), else a line on
 * stderr as each node ends; failures (with their log) and deferrals on
 * `report`.
 */
struct cli_run_progress {
	const struct cli_ctx *ctx;
	const struct graph *g;
	FILE *report;		/* stdout, or stderr under --json */
	int smart;		/* rewrite one status line in place */
	size_t width;		/* the terminal's columns (80 unknown) */
	int line_open;		/* the status line is on the terminal */
};

/* Start an observer for g's run; nothing to free. */
void cli_run_progress_init(struct cli_run_progress *pr,
			   const struct cli_ctx *ctx, const struct graph *g,
			   FILE *report);

/* The observer (run_options.progress, payload a cli_run_progress). */
void cli_run_progress_event(void *payload, const struct run_event *ev);

/* Clear the status line when the run is over. */
void cli_run_progress_end(struct cli_run_progress *pr);

#endif
