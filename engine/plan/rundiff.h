/*
 * `ripple diff`: for the nodes whose keys differ between two recorded runs,
 * the first divergence of each from the stored key manifests (as the
 * planner explains a rebuild: engine/plan/explain.c), input changes expanded to
 * files from the stored source manifests, root causes apart from cascades,
 * and the nodes only one run recorded. No repository is needed: everything
 * comes from the cache.
 */
#ifndef RIPPLE_ENGINE_PLAN_RUNDIFF_H
#define RIPPLE_ENGINE_PLAN_RUNDIFF_H

#include <stddef.h>

#include "base/arena.h"
#include "engine/plan/plan.h"

struct cache;
struct error;

enum rundiff_status {
	RUNDIFF_STATUS_CHANGED,	/* both runs recorded it, keys differ */
	RUNDIFF_STATUS_ADDED,	/* only run B recorded it */
	RUNDIFF_STATUS_REMOVED,	/* only run A recorded it */
};

struct rundiff_node {
	const char *id;			/* node id */
	enum rundiff_status status;
	const char *old_key, *new_key;	/* 32 hex; NULL when absent */
	enum plan_reason reason;	/* CHANGED only: rule-changed,
					   toolkit-changed, input-*,
					   symlink-retargeted, upstream-rebuilt
					   (a cascade), or key-changed (a key
					   manifest is not stored) */
	const char *cascade_of;		/* cascades: the first differing
					   upstream (by id) that is itself in
					   the diff, else the first */
	const char *root_cause;		/* cascades: the end of the chain */
	struct plan_change *changes;	/* (kind, name) order */
	size_t n_changes;
};

struct rundiff {
	const char *run_a, *run_b;
	struct rundiff_node *nodes;	/* sorted by id, globs applied */
	size_t n;
	size_t n_root_causes, n_cascades, n_added, n_removed;
	struct arena arena;		/* owns every string */
};

/*
 * Compare runs `run_a` (old) and `run_b` (new) of cache `c`, restricted to
 * node ids matching one of `globs` (fnmatch; n_globs 0: every node).
 * Cascades are found over every node, so a cascade's cause may lie
 * outside the globs. On success *out is owned by the caller
 * (rundiff_free). Errors: ERROR_NOT_FOUND naming a run that is not
 * recorded, cache errors, ERROR_NOMEM.
 */
int rundiff_compute(struct cache *c, const char *run_a, const char *run_b,
		    const char *const *globs, size_t n_globs,
		    struct rundiff **out, struct error *err);

/* Free. Accepts NULL. */
void rundiff_free(struct rundiff *d);

/* "changed", "added", "removed". */
const char *rundiff_status_name(enum rundiff_status s);

#endif
