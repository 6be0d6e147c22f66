/*
 * CI jobs: the build and test nodes of a target's closure cut into jobs,
 * each run by one command on one runner (`ripple run --job NAME`).
 *
 * Design choices:
 * - Jobs are a function of the rules at the commit and the target's closure
 *   only, never of the plan's decisions: the plan job and every matrix job
 *   compute the same jobs with the same names, so a matrix entry needs to
 *   carry only the job's name (no node ids to escape), and a record written
 *   by another runner in between changes what a job builds, not which job a
 *   node is in.
 * - Groups run in order: `build` (artifacts), `test` (tests without GPUs),
 *   `gpu` (tests that need GPUs). A node's group is its kind and GPU need.
 * - Within a group, nodes of one bucket (the same platform and runner
 *   labels) that depend on each other are one job, so a job never waits on
 *   another job of its stage. Jobs whose nodes need nodes of another job of
 *   the same group (a noarch wheel that every platform's wheels need) are in
 *   a later stage: matrices `build`, `build-2`, ... run in that order.
 * - Above PLAN_JOBS_MATRIX_MAX jobs in one matrix (GitHub's limit of 256
 *   jobs), jobs of one bucket are packed together; packing never mixes
 *   buckets (platforms or GPU kinds).
 * - A node's `container:` (image and options) is part of its bucket: a
 *   job never mixes containers, so each matrix entry can carry its
 *   container for GitHub's job-level `container:` (issue 26).
 * - Runner labels come from the rules' `runners:` section (the platform's
 *   `runs-on`, or `gpu-runs-on` for GPU nodes; a rule's own `runs-on`,
 *   or a GPU rule's `gpu: {runs-on}`, templates win), else from defaults:
 *   linux-64 ubuntu-latest, linux-aarch64 ubuntu-24.04-arm, GPU nodes
 *   [self-hosted, linux, gpu], anything else ubuntu-latest. A GPU artifact
 *   stays in the build group, on GPU runners (issue 26).
 * - Nodes are never sent where ripple cannot run: a node whose platform is
 *   not one ripple runs on (win-64, osx-arm64) needs `runners: P: {host:
 *   linux-64}` (built on Linux: a cross-build), and runner labels naming
 *   Windows or macOS are refused, both when the jobs are cut (plan time).
 */
#ifndef RIPPLE_ENGINE_PLAN_JOBS_H
#define RIPPLE_ENGINE_PLAN_JOBS_H

#include <stddef.h>

#include "base/arena.h"

struct error;
struct graph;

/* GitHub's documented limit of jobs per matrix. */
#define PLAN_JOBS_MATRIX_MAX 256

enum plan_job_group {
	PLAN_JOB_BUILD,		/* artifacts */
	PLAN_JOB_TEST,		/* tests without GPUs */
	PLAN_JOB_GPU,		/* tests with GPUs */
};

struct plan_job {
	const char *name;	/* "build-2-linux-64-3": matrix, platform, k */
	const char *matrix;	/* "build", "build-2", "test", "gpu", ... */
	enum plan_job_group group;
	unsigned stage;		/* 1-based within the group */
	const char *platform;	/* the platform axis value, or NULL */
	const char *host;	/* the platform ripple runs as on its runner:
				   `runners: P: {host:}` (a cross-build), else
				   platform */
	const char **runs_on;	/* runner labels */
	size_t n_runs_on;
	const char *container_image;	/* the nodes' container image (one
					   per job), or NULL */
	const char *container_options;	/* its options, or NULL */
	size_t *nodes;		/* graph node indices, topological order */
	size_t n_nodes;
	const char *label;	/* for people: first id and how many more */
};

struct plan_jobs {
	struct plan_job *jobs;	/* by (group, stage, platform, name) */
	size_t n;
	long *job_of;		/* per graph node: job index, or -1 */
	struct arena arena;	/* owns everything above */
};

/*
 * Cut the artifact and test nodes marked in `closure` (g->n_nodes bytes)
 * into jobs. On success *out is new (plan_jobs_free). Errors:
 * ERROR_INVALID naming the nodes when a node would run where ripple
 * cannot (a platform other than linux-64, linux-aarch64 or win-64 without
 * such a `host:`, runner labels of another operating system than its
 * host's: a win-64 node on Linux labels without `host: linux-64`, a
 * linux-64 one on Windows labels; macOS labels), an artifact needs a test, a test
 * without GPUs needs a GPU test, nodes of two platforms need each other,
 * a runner label template cannot be expanded, or one matrix would need
 * more buckets than GitHub allows jobs; ERROR_NOMEM.
 */
int plan_jobs_compute(const struct graph *g, const unsigned char *closure,
		      struct plan_jobs **out, struct error *err);

/* Free. Accepts NULL. */
void plan_jobs_free(struct plan_jobs *j);

/*
 * 1 when ripple runs on `platform` (linux-64, linux-aarch64, win-64) or
 * platform is NULL (nodes without a platform run anywhere ripple does).
 */
int plan_jobs_host_ok(const char *platform);

/* The job named `name`, or NULL. */
const struct plan_job *plan_jobs_find(const struct plan_jobs *j,
				      const char *name);

/*
 * GitHub's job-level container of a job with one: {"image": REF,
 * "options": TEXT} (options only when set), a new jansson object; NULL
 * for a job without a container or on out of memory.
 */
struct json_t;
struct json_t *plan_job_container_json(const struct plan_job *job);

/* "build", "test", "gpu". */
const char *plan_job_group_name(enum plan_job_group g);

#endif
