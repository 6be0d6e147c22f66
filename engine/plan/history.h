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
struct plan_remote;

/*
 * History over run `run_id` of cache `c` (either may be NULL: then there is
 * no baseline, but `c` still serves reuse of any run). `remote` (may be
 * NULL; borrowed) serves reuse of any record too, after the local cache:
 * keys without a local record are looked up in it a level at a time (the
 * prefetch callback). `head` is the evaluation being planned (for the new
 * side of file diffs, and its repository for the run's commit).
 * `rules_file` (borrowed; NULL: each commit's ripple.yml) is the planner's
 * --rules, used to tell whether the run's commit declared a GPU node it
 * did not record (baseline_declared). Free with history_free. Errors:
 * ERROR_NOMEM.
 */
int history_from_run(struct cache *c, struct plan_remote *remote,
		     const char *run_id, const char *label,
		     const char *rules_file, struct eval *head,
		     struct history **out, struct error *err);

/*
 * History whose baseline is the records of the base commit's keys: the
 * base (targets selected as in the head; the whole base when one is
 * missing there) is planned with reuse of any record, local (c, may be
 * NULL) or remote, and a base node it reuses is the baseline record of the
 * head node with its id; one it would build has no baseline record (new
 * node). For `plan --base` on a runner whose own cache has no run at the
 * merge base. *found: base nodes with a record. `base` is borrowed.
 * Errors: those of planning the base.
 */
int history_from_remote_base(struct cache *c, struct plan_remote *remote,
			     struct eval *base, struct eval *head,
			     const char *const *targets, size_t n_targets,
			     size_t *found, struct history **out,
			     struct error *err);

/*
 * History that treats every node of `base` as built with base's keys
 * (affected-targets mode, as bazel-diff and `nx affected`). Keys of `base`
 * are computed on first use. Free with history_free.
 */
int history_from_eval(struct eval *base, struct eval *head,
		      struct history **out, struct error *err);

/*
 * The baseline run's records as the planner already read them
 * (cache_record_list of the run history_from_run was given), taken over
 * from *recs (left empty), so the run is not read a second time. Does
 * nothing but release them when the history has no local baseline run
 * or has read it already.
 */
struct cache_record_list;

/*
 * Read the baseline run's records one by one, as nodes ask for them,
 * instead of all at once: for a plan with a scope (why, --job) that
 * decides a few nodes. Does nothing once the records are read.
 */
void history_records_by_node(struct history *h);

void history_give_run_records(struct history *h,
			      struct cache_record_list *recs);

/*
 * Make a history of history_from_run serve records of the remote cache
 * only (no local cache), from namespace `ns` ("tag/TAG/": the records a
 * run of a tag published; NULL: the plain entries). For `release`, which
 * asks what a tag's own CI recorded. Errors: ERROR_NOMEM.
 */
int history_remote_only(struct history *h, const char *ns,
			struct error *err);

/*
 * The trust domain h reads local records for (plan_trust_domain: "" or
 * NULL the trusted one, the default; else a ref's own): records reused
 * from another ref's own domain of the remote cache are neither records
 * of a key nor baseline records for it (record_source_allows). Returns
 * 0, or ERROR_INVALID (not a domain id), with err set.
 */
int history_set_reader(struct history *h, const char *domain,
		       struct error *err);

/* The plan of the merge base a remote baseline made, or NULL. */
const struct plan *history_base_plan(const struct history *h);

/* The callbacks and flags for plan_compute; owned by h. */
const struct plan_history *history_plan(struct history *h);

/* Free. Accepts NULL. */
void history_free(struct history *h);

#endif
