/*
 * Where a plan's past comes from: a recorded baseline run in the cache (its
 * records, the manifests of their keys, and the file lists of their
 * inputs), or, with --assume-base-built, the base commit's own keys as if
 * every node had been built there. Both fill a struct plan_history.
 */
#ifndef RIPPLE_ENGINE_PLAN_HISTORY_H
#define RIPPLE_ENGINE_PLAN_HISTORY_H

#include <stddef.h>

struct arena;
struct cache;
struct cache_manifest;
struct graph_component;
struct error;
struct eval;
struct history;
struct plan_history;

/*
 * History over run `run_id` of cache `c` (either may be NULL: then there is
 * no baseline, but `c` still serves reuse of any run). `head` is the
 * evaluation being planned (for the new side of file diffs, and its
 * repository for the run's commit). `rules_file` (borrowed; NULL: each
 * commit's ripple.yml) is the planner's --rules, used to tell whether the
 * run's commit declared a GPU node it did not record (baseline_declared).
 * Free with history_free. Errors: ERROR_NOMEM.
 */
int history_from_run(struct cache *c, const char *run_id,
		     const char *label, const char *rules_file,
		     struct eval *head, struct history **out,
		     struct error *err);

/*
 * History that treats every node of `base` as built with base's keys
 * (affected-targets mode, as bazel-diff and `nx affected`). Keys of `base`
 * are computed on first use. Free with history_free.
 */
int history_from_eval(struct eval *base, struct eval *head,
		      struct history **out, struct error *err);

/* The callbacks and flags for plan_compute; owned by h. */
const struct plan_history *history_plan(struct history *h);

/*
 * Key components from a stored key manifest (as record_node stores them;
 * components of unknown kinds are skipped), in stored (kind, name) order,
 * allocated in `a`. Returns 0 or ERROR_NOMEM.
 */
int history_components(struct arena *a, const struct cache_manifest *m,
		       const struct graph_component **out, size_t *n);

/* Free. Accepts NULL. */
void history_free(struct history *h);

#endif
