/*
 * Record sources: where a plan's records of a key come from. One
 * interface and one struct per implementation (as libgit2's transports or
 * ninja's DiskInterface): the local SQLite cache (source_local.c) and the
 * remote cache with its trust domains (source_remote.c, over
 * engine/plan/remote.h). A history (history.c) holds its sources in order
 * (local first) and hands the planner "the nth record of this key" across
 * them; the planner never asks which source answered, except through the
 * reason it reports (plan_record.remote's label).
 *
 * Records handed out point into the arena the caller passes (strings) or
 * into the source (a remote hit), and live until both are freed.
 */
#ifndef RIPPLE_ENGINE_PLAN_SOURCE_H
#define RIPPLE_ENGINE_PLAN_SOURCE_H

#include <stddef.h>

struct arena;
struct cache;
struct cache_manifest;
struct cache_record;
struct error;
struct graph_component;
struct plan_record;
struct plan_remote;
struct record_source;

struct record_source_ops {
	/*
	 * How many ok-or-not records of `key` the source holds right now
	 * (a remote source: those its lookups found) into *n. Errors:
	 * the store's.
	 */
	int (*count)(struct record_source *s, const char *key, size_t *n,
		     struct error *err);
	/*
	 * Record i (< count; 0 the newest) of `key` into *out, strings in
	 * `a`, components left NULL. Returns 0 or an error.
	 */
	int (*get)(struct record_source *s, struct arena *a, const char *key,
		   size_t i, struct plan_record *out, struct error *err);
	/*
	 * The key components of a record this source handed out, into
	 * rec->components (in `a`); left NULL when not stored.
	 */
	int (*components)(struct record_source *s, struct arena *a,
			  struct plan_record *rec, struct error *err);
	/*
	 * A batch of n keys (ids[i], keys[i]) about to be asked for: a
	 * chance to look them up at once (a remote cache). NULL: nothing to
	 * do ahead.
	 */
	int (*prefetch)(struct record_source *s, const char *const *ids,
			const char *const *keys, size_t n, struct error *err);
	/*
	 * Forget the source's record of `key` (a remote hit the planner
	 * found unfit to reuse): later asks hold none. NULL: a source whose
	 * records are never dropped (the local cache).
	 */
	void (*drop)(struct record_source *s, const char *key);
	void (*free)(struct record_source *s);
};

/* The part every implementation's struct starts with. */
struct record_source {
	const struct record_source_ops *ops;
};

/*
 * The records of the local cache `c` (borrowed; it must outlive the
 * source), by key across every run, newest first, those the reader's
 * trust domain may reuse (record_source_local_reader; the trusted one
 * until told). Errors: ERROR_NOMEM.
 */
int record_source_local(struct cache *c, struct record_source **out,
			struct error *err);

/*
 * The metadata entry a run writes into a record it reused from a ref's
 * own trust domain of the remote cache (engine/run/store.c): the domain
 * id (remote_domain_id). Local copies of that record keep it.
 */
#define RECORD_SOURCE_DOMAIN_META "trust-domain="

/*
 * The trust domain a local record came from: its RECORD_SOURCE_DOMAIN_META
 * value; "?" for one reused from a ref's own domain before the domain was
 * recorded (metadata reused-from-remote naming "this ref's domain");
 * NULL for a record built on this machine or reused from the trusted
 * domain. Points into rec.
 */
const char *record_source_domain(const struct cache_record *rec);

/*
 * Whether a command reading for trust domain `reader` (plan_trust_domain:
 * "" or NULL the trusted one, else a ref's own) may reuse local record
 * rec: one from a ref's own domain only for that same domain, never for
 * a trusted ref (docs/security.md, issue 23); any other record for every
 * reader (the machine that built it ran that code: one local cache is
 * one trust level, as Bazel's --disk_cache and Turborepo's local cache).
 */
int record_source_allows(const char *reader, const struct cache_record *rec);

/*
 * Make local source s (of record_source_local; any other: nothing)
 * hand out only the records that the reader of trust domain `domain`
 * (as record_source_allows) may reuse. Until it is called: the trusted
 * domain. Returns 0, or ERROR_INVALID for a domain too long to be one.
 */
int record_source_local_reader(struct record_source *s, const char *domain);

/*
 * A record of local source s (of record_source_local; any other: none)
 * that its reader's trust domain may not reuse (record_source_allows):
 * run `run`'s record of node `id` when run is not NULL, else (or when
 * that is not hidden) the newest successful record of key `key` when
 * key is not NULL. 1 with *hidden_run and
 * *domain (the record's domain, "?" when unknown) pointing into s until
 * its next call, 0 when there is none, or a negative error.
 */
int record_source_local_hidden(struct record_source *s, const char *run,
			       const char *id, const char *key,
			       const char **hidden_run, const char **domain,
			       struct error *err);

/*
 * The records of remote cache index `pr` (borrowed) in namespace `ns`
 * (NULL: the plain entries; "tag/TAG/": what a run of tag TAG
 * published; copied), found by its lookups (prefetch) and checked there:
 * node, key, status, outputs, and the trust domain they came from
 * (plan_remote_trust). Errors: ERROR_NOMEM.
 */
int record_source_remote(struct plan_remote *pr, const char *ns,
			 struct record_source **out, struct error *err);

/* Free a source of either kind. Accepts NULL. */
void record_source_free(struct record_source *s);

/*
 * A stored record as the planner sees it (strings in `a`): status,
 * output digest, version, a missing absolute artifact, and, when the
 * local cache `c` (may be NULL) holds an imported copy that disagrees,
 * the conflict. Components are left for record_source_ops.components.
 * Returns 0 or ERROR_NOMEM (or the cache's error).
 */
int record_source_fill(struct cache *c, struct arena *a,
		       const struct cache_record *rec, struct plan_record *out,
		       struct error *err);

/*
 * Key components from a stored key manifest (as record_node stores them;
 * components of unknown kinds are skipped), in stored (kind, name) order,
 * allocated in `a`. Returns 0 or ERROR_NOMEM.
 */
int record_source_components(struct arena *a, const struct cache_manifest *m,
			     const struct graph_component **out, size_t *n);

#endif
