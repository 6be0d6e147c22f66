/*
 * First divergence: why a node's key differs from a recorded one, from the
 * two component lists. Used by the planner (reasons) and by `why`/`diff`.
 */
#ifndef RIPPLE_ENGINE_PLAN_EXPLAIN_H
#define RIPPLE_ENGINE_PLAN_EXPLAIN_H

#include <stddef.h>

#include "engine/plan/plan.h"

struct arena;
struct error;
struct graph;
struct graph_component;
struct plan;
struct plan_record;
struct plan_history;

/* A comparison of two component lists. */
struct explain_diff {
	enum plan_reason reason;	/* rule-changed, toolkit-changed,
					   input-*, symlink-retargeted,
					   upstream-rebuilt, or key-changed
					   when nothing differs */
	struct plan_change *changes;	/* in (kind, name) order, files of
					   an input in path order */
	size_t n_changes;
};

/*
 * Compare the recorded components `old` (no) with `new` (nn), both sorted
 * by (kind, name) as graph keys make them. Input changes expand into file
 * changes through h->input_diff when it knows them (h may have no
 * callbacks). Changes and their strings are allocated in `a`. The reason
 * follows the priority below. Returns 0, ERROR_NOMEM, or input_diff's
 * error.
 */
int explain_components(struct arena *a, const struct graph_component *old,
		       size_t no, const struct graph_component *new,
		       size_t nn, const struct plan_history *h,
		       struct explain_diff *out, struct error *err);

/*
 * Fill p->items[i]'s reason, cause and changes by comparing its key's
 * components with rec's (recorded with a different key). Priority of the
 * first-order reason: rule (or id, schema) > toolkit > input (file level
 * when the history can list files: added, removed, retargeted, content) >
 * upstream (a cascade: `cause` is the first differing upstream, by id).
 * Without recorded components the reason is key-changed. Returns 0, or
 * ERROR_NOMEM / an input_diff callback's error.
 */
int explain_difference(const struct graph *g, struct plan *p, size_t i,
		       const struct plan_record *rec,
		       const struct plan_history *h, struct error *err);

#endif
