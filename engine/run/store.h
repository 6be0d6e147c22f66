/*
 * The executor's store over the cache: records reused nodes with their
 * baseline record's output digest, artifacts and version; records finished
 * nodes after hashing their declared outputs; and the early-cutoff check
 * (a cascade's key recomputed with this run's output digests against the
 * baseline record's key).
 */
#ifndef RIPPLE_ENGINE_RUN_STORE_H
#define RIPPLE_ENGINE_RUN_STORE_H

#include <stddef.h>

#include "base/strv.h"

struct cache;
struct error;
struct eval;
struct plan;
struct plan_history;
struct plan_remote;
struct rules_kv;
struct run_rewrites;
struct run_store;

struct run_cache_store {
	struct cache *cache;		/* read-write */
	struct eval *ev;		/* the head evaluation */
	const struct plan *plan;
	const struct plan_history *hist;	/* the planner's baseline */
	const char *run_id;
	const char *root;		/* repository root, absolute */
	const struct rules_kv *versions;	/* root name -> version */
	size_t n_versions;
	/* internal: per node, identities (outputs.h) of the files its
	   outputs matched before its action that were kept; owned */
	struct strv *before;
	int check_versions;		/* cut off only to a record of the
					   version the node has now (the
					   plan's check, planner.h) */
	const struct rules_kv *toolkit_ids;	/* toolkit name -> probed
						   identity, for records */
	size_t n_toolkit_ids;
	struct plan_remote *remote;	/* or NULL: no remote cache */
	const char *runner;		/* provenance of published records */
	const char *tag;		/* the run's --tag, or NULL */
	unsigned char *reused;		/* internal: n_nodes bytes, owned */
	struct run_rewrites *rewrites;	/* internal: tracked files actions
					   rewrite (engine/run/rewrite.h),
					   from the first prepare; owned */
};

/*
 * Fill *out with callbacks over *s (which must outlive the run; zero its
 * internal fields first). Free what the run left with
 * run_store_cache_release. With s->remote: before a node starts, the
 * outputs of its reused dependencies are fetched unless already there
 * (engine/run/remote.h; a failure is the node's: "cannot get the bytes");
 * a reuse from the remote cache is recorded from the remote record; and
 * every node recorded ok is published (a failure is a fault of the index:
 * a warning, unless the remote cache is required: then it stops the run).
 */
void run_store_cache(struct run_cache_store *s, struct run_store *out);

/* Free the store's internal state (not *s itself); again is harmless.
 * Accepts NULL. */
void run_store_cache_release(struct run_cache_store *s);

/*
 * The record's metadata of node n, appended to meta as "KEY=VALUE"
 * lines: the rule's meta: (${root.version} filled in), then what the
 * first wheel of arts (output paths under s->root) says about itself
 * (Version, Requires-Dist). A wheel whose METADATA cannot be read fails
 * the node (rn->state, rn->message) and returns 0. Returns 0 or an error
 * code (ERROR_NOMEM) with err set.
 */
struct graph_node;
struct strv;
struct run_node;
int run_store_node_meta(const struct run_cache_store *s,
			const struct graph_node *n, const struct strv *arts,
			struct run_node *rn, struct strv *meta,
			struct error *err);

/*
 * "toolkit-identity=NAME PAIRS" appended to meta for a node built with a
 * toolkit probed here (its pin checked before the run started); nothing
 * when the home was not here. Returns 0 or ERROR_NOMEM.
 */
int run_store_toolkit_meta(const struct run_cache_store *s,
			   const struct graph_node *n, struct strv *meta,
			   struct error *err);

#endif
