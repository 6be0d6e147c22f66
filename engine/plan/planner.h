/*
 * The one planner `plan`, `why` and `run` share: evaluate the head (a
 * revision or the working tree), select the targets, find the merge base
 * and the baseline run (or evaluate the base with --assume-base-built),
 * classify changed paths (claimed, ignored by policy, unclaimed), and
 * compute the plan. A run must never decide differently from the plan it
 * printed, so there is exactly this one entry point.
 */
#ifndef RIPPLE_ENGINE_PLAN_PLANNER_H
#define RIPPLE_ENGINE_PLAN_PLANNER_H

#include <stddef.h>

#include "base/arena.h"
#include "base/strmap.h"
#include "base/strv.h"
#include "cache/cache.h"
#include "engine/plan/plan.h"
#include "engine/plan/report.h"
#include "graph/repo.h"

struct cache;
struct error;
struct error_list;
struct eval;
struct graph_limits;
struct history;
struct plan_remote;

struct planner_options {
	const char *const *targets;	/* as graph_select takes them */
	size_t n_targets;
	const char *head;		/* revision; NULL: HEAD */
	int worktree;			/* plan the working tree over HEAD */
	const char *base;		/* revision whose merge base with head
					   is the baseline commit; or NULL */
	const char *baseline_run;	/* run id, "auto" or NULL (auto) */
	int reuse;			/* enum plan_reuse, or -1: policy */
	int assume_base_built;		/* compare keys with the base commit */
	const char *rules_file;		/* NULL: ripple.yml of the head */
	int memo_write;			/* 1: remember computed source keys
					   in the cache (it is writable) */
	int full_walk;			/* 1: neither read nor write the
					   source-key memo: every source set
					   is walked file by file (the
					   reference the fast paths must
					   match; RIPPLE_FULL_WALK=1) */
	const char *tag;		/* the tag a release run is at (run
					   --tag, plan --tag), or NULL: then
					   versioned artifacts are reused
					   only at the version they have now */
	int want_versions;		/* 1: compute the roots' versions even
					   when no check needs them (a run
					   stamps them) */
	long long date_epoch;		/* seconds since the epoch for dirty
					   working-tree versions (.dYYYYMMDD) */
	struct plan_remote *remote;	/* a remote cache (borrowed), or
					   NULL: records by key are looked
					   up there after the local cache,
					   and with --base but no local run
					   at the merge base, the base's keys
					   there are the baseline */
	const struct graph_limits *limits;	/* the graph's ceilings
						   (borrowed), or NULL: the
						   defaults (graph/graph.h) */
	const char *job;		/* a CI job's name (engine/plan/
					   jobs.h) or NULL: only its nodes,
					   what they need and their version
					   groups are planned (and looked up
					   in the remote cache); the closure
					   stays the targets' for the job
					   names. An unknown name plans the
					   whole closure (run's --job check
					   reports it) */
	const char *why_node;		/* `why`: the one node (planner_node
					   matches it) whose decision is
					   asked; only it, what it needs and
					   its version groups are planned
					   (its decision and chain are those
					   of the whole plan), the coverage
					   stays the closure's. No single
					   match: the whole closure */
	const char *ref;		/* the ref being planned: its trust
					   domain in the remote cache
					   (plan_remote_trust), or NULL */
	const char *default_branch;	/* "refs/heads/NAME": trusted with
					   tags when the rules set no
					   trusted-refs; NULL: main, master */
	size_t jobs;			/* threads keying source sets that
					   no memo knows (eval_set_pool; at
					   most EVAL_POOL_MAX_JOBS); 0 or 1:
					   one thread */
};

struct planner {
	struct graph_repo *repo;	/* borrowed */
	struct cache *cache;		/* borrowed, may be NULL */
	struct eval *head;		/* owned */
	struct eval *base;		/* owned, --assume-base-built */
	struct history *hist;		/* owned */
	struct plan *plan;		/* owned */
	unsigned char *selected, *closure;	/* n_nodes bytes each */
	unsigned char *scope;		/* --job: what is planned, or NULL
					   (the closure) */
	struct plan_meta meta;		/* what the reports print */
	struct strv changed, unclaimed, ignored;
	char base_hex[GRAPH_OID_HEX];	/* the merge base, or "" */
	char run_id[128];		/* the baseline run, or "" */
	char label[256];		/* the baseline for people */
	char forced[512];		/* the forced reason, or "" */
	struct rules_kv *versions;	/* root name -> version at the head
					   (engine/plan/versions.h), when
					   computed; strings in arena */
	size_t n_versions;
	int check_versions;		/* versions were compared */
	struct cache_record_list run_recs;	/* the baseline run's records
						   (coverage read them), until
						   the history takes them */
	const struct strmap *remote_memo;	/* the remote cache's memo
					   this plan took keys from
					   (plan_remote_memo), or NULL */
	struct strmap key_memo;		/* source keys the base and head
					   evaluations share (memo id -> key
					   hex; strings in arena) */
	struct eval_pool *pool;		/* keys their sets ahead on threads
					   (owned), or NULL */
	struct arena arena;
};

/*
 * Plan. `cache` may be NULL (no history: everything builds, reason
 * no-baseline-run). Rule errors are appended to `errors`; other errors
 * set err (with the node id where one is involved). On success *out owns
 * the result (planner_free). Errors: ERROR_NOT_FOUND (revision, baseline
 * run, target), ERROR_INVALID (rules), repository and cache errors.
 */
int planner_run(struct graph_repo *repo, struct cache *cache,
		const struct planner_options *o, struct error_list *errors,
		struct planner **out, struct error *err);

/* Free. Accepts NULL. */
void planner_free(struct planner *p);

/*
 * The node `pat` names in g: its id exactly, else the nodes whose id
 * matches it as a glob (fnmatch) or whose rule name it is. Returns the
 * index of the one match, or -1, with *n the number of matches (0, or 2
 * and more). The one matcher of `why` and the planner's why_node.
 */
long planner_node(const struct graph *g, const char *pat, size_t *n);

#endif
