/*
 * First divergence: why a node's key differs from a recorded one, from the
 * two component lists. Used by the planner (reasons) and by `why`/`diff`.
 */
#ifndef RIPPLE_ENGINE_EXPLAIN_H
#define RIPPLE_ENGINE_EXPLAIN_H

#include <stddef.h>

struct error;
struct graph;
struct plan;
struct plan_record;
struct plan_history;

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
