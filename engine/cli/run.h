/*
 * Internal to `ripple run` (engine/cli/run.c and run_prep.c): its arguments and the
 * checks and gathering done before execution.
 */
#ifndef RIPPLE_ENGINE_CLI_RUN_H
#define RIPPLE_ENGINE_CLI_RUN_H

#include <stddef.h>

#include "engine/cli/cli.h"
#include "engine/plan/planner.h"

struct arena;
struct cache;
struct cli_ctx;
struct error;
struct eval;
struct graph;
struct graph_repo;
struct plan;
struct rules_kv;
struct run_gpu;

struct run_args {
	struct planner_options po;
	const char *cache_opt, *run_id, *ref, *tag, *platform;
	const char *only[64];	/* --only GLOB, repeatable: their union */
	size_t n_only;
	const char *job;	/* --job NAME: exactly one CI job's nodes */
	unsigned char *select;	/* n_nodes bytes from --only/--job, or NULL */
	char select_note[160];	/* why an unselected node is skipped */
	long jobs;
	long timeout_s;
	int keep_going, dry_run, json;
	struct cli_remote rem;	/* the remote cache, or zeroed */
	char ref_buf[1024];	/* --ref, refs/tags/TAG, or the branch */
	char runner[256];	/* this runner's name (provenance) */
};

struct json_t;
struct run_result;

/* The --json document of a finished run (engine/cli/run_report.c). */
struct json_t *cli_run_json(const struct planner *pl,
			    const struct run_result *res, const char *run_id,
			    const char *status);

/* The summary line on stderr (engine/cli/run_report.c). */
void cli_run_summary(const struct run_result *res, const char *run_id,
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
 * Every root's version at the head into out[] (name -> version, texts in
 * ar; room for the rules' roots), *n of them; roots whose version cannot
 * be computed are left out (their nodes get no RIPPLE_VERSION).
 */
void cli_run_root_versions(struct graph_repo *repo, const struct eval *ev,
			   const struct run_args *a, struct rules_kv *out,
			   size_t *n, struct arena *ar);

/*
 * The GPUs cudart sees (*out, *n; mem_free it) when some node to build or
 * test needs one, and the toolkit home used (CUDA_HOME, else
 * /usr/local/cuda). No GPU, driver or runtime: *n is 0.
 */
void cli_run_probe_gpus(const struct graph *g, const struct plan *p,
			struct run_gpu **out, size_t *n, const char **home);

/* Make run `id` at the head, or join it at the same commit; 0 or exit code. */
int cli_run_create_run(const struct cli_ctx *ctx, struct cache *c,
		       const char *id, const struct run_args *a,
		       const struct eval *ev);

/* --platform must be a value of the rules' platform axis. */
int cli_run_check_platform(const struct cli_ctx *ctx,
			   const struct run_args *a, const struct eval *head);

/*
 * Turn --only globs and --job into a->select (mem_alloc'd; the caller
 * frees it) and a->select_note. --only must select a node the plan builds
 * or tests; --job must name a job of the target (jobs.h), and that job's
 * platform must be this runner's (or --platform's). 0 or an exit code.
 */
int cli_run_select(const struct cli_ctx *ctx, struct run_args *a,
		   const struct planner *pl);

/* The working tree must hold the planned commit. */
int cli_run_check_checkout(const struct cli_ctx *ctx, struct graph_repo *repo,
			   const struct eval *head);

/* --tag must name the commit being run (a release looks the run up so). */
int cli_run_check_tag(const struct cli_ctx *ctx, struct graph_repo *repo,
		      const struct run_args *a, const struct eval *head);

#endif
