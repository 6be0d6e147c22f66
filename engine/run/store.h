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
	struct plan_remote *remote;	/* or NULL: no remote cache */
	const char *runner;		/* provenance of published records */
	const char *tag;		/* the run's --tag, or NULL */
	unsigned char *reused;		/* internal: n_nodes bytes, owned */
};

/*
 * Fill *out with callbacks over *s (which must outlive the run; release
 * it with run_store_cache_release). With s->remote: before a node starts,
 * the outputs of its reused dependencies are fetched unless already there
 * (engine/run/remote.h; a failure is the node's: "cannot get the bytes");
 * a reuse from the remote cache is recorded from the remote record; and
 * every node recorded ok is published (a failure is a fault of the
 * index: a warning, unless the remote cache is required: then it stops
 * the run).
 */
void run_store_cache(struct run_cache_store *s, struct run_store *out);

/* Free what the store allocated during a run. Accepts NULL. */
void run_store_cache_release(struct run_cache_store *s);

/*
 * Expand output globs (relative to `root`; glob(3), plus `**` matching
 * any number of directories) into repository-relative file paths appended
 * to *out, sorted and unique. Every pattern must match at least one
 * regular file: else ERROR_NOT_FOUND naming the pattern.
 */
int run_outputs_expand(const char *root, const char *const *patterns,
		       size_t n, struct strv *out, struct error *err);

#endif
