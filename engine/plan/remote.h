/*
 * The remote cache as plans see it: a client (cache/remote.h) and the
 * records it found, by node key. Lookups come in batches (a plan asks once
 * per topological level, since keys depend on upstream output digests);
 * every hit is checked before a plan may reuse it: the record blob names
 * the node and key asked for, its status is ok, each artifact it lists is
 * an output of the AC entry (so its bytes can be fetched), and its writer's
 * ref may be reused from the domain it was found in (plan_remote_trust:
 * a ref's own domain first, then the trusted one).
 *
 * Faults (server down, 5xx, corrupt or tampered entries) are never wrong
 * answers: the node is a miss and the warn observer hears the error, which
 * names the server; with `required` the first fault is the error instead.
 * After a batch in which every request failed to reach the server, the
 * server counts as down for the rest of the command (one warning, no more
 * timeouts). Hits live until plan_remote_free; a plan and a run borrow them.
 */
#ifndef RIPPLE_ENGINE_PLAN_REMOTE_H
#define RIPPLE_ENGINE_PLAN_REMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "base/strv.h"
#include "cache/remote.h"

struct error;
struct plan_remote;

/* One record found in the remote cache, checked. Owned by the index. */
struct plan_remote_hit {
	const char *node_id;		/* the node's canonical id */
	const char *key;		/* its 32-hex key */
	const char *label;		/* "remote cache URL (run R, commit C,
					   ref F)" for reasons and metadata */
	const char *url;		/* the server (remote_url) */
	const char *domain;		/* the trust domain it was found in
					   (owned by the index), or NULL for
					   the trusted one: its blobs are in
					   that domain's CAS */
	struct remote_action action;	/* the outputs by SHA-256 */
	struct remote_record rec;	/* record, components, provenance */
	struct strv sources;		/* from a bundle: the memo id and key
					   pairs its writer attests for the
					   node's inputs; else empty */
	int bundled;			/* 1: from a bundle, components not
					   read yet (plan_remote_components) */
};

struct plan_remote_options {
	int required;		/* 1: a fault is an error, not a warning */
	/* Told each fault when not required (may be NULL). */
	void (*warn)(void *payload, const struct error *e);
	void *payload;
};

/* What the index did, for summaries and tests. */
struct plan_remote_stats {
	size_t asked;		/* node keys looked up remotely */
	size_t hits;		/* checked records that may be reused */
	size_t untrusted;	/* records whose writer's ref is not trusted */
	size_t faults;		/* requests or records that failed */
	size_t fetched_files;	/* output files downloaded (engine/run) */
	int64_t fetched_bytes;
	size_t uploaded;	/* nodes published (engine/run) */
};

/*
 * A new index over client `r` (borrowed: it must outlive the index).
 * o: may be NULL (not required, silent). Errors: ERROR_NOMEM.
 */
int plan_remote_new(struct remote *r, const struct plan_remote_options *o,
		    struct plan_remote **out, struct error *err);

/* Free the index and every hit. Accepts NULL. */
void plan_remote_free(struct plan_remote *pr);

/* The client, and the server's URL as messages name it. */
struct remote *plan_remote_client(const struct plan_remote *pr);
const char *plan_remote_url(const struct plan_remote *pr);

/* Whether the server answered so far (0 once it counts as down). */
int plan_remote_up(const struct plan_remote *pr);

/*
 * Count the server as down from now on (a publish that failed after its
 * retries): later lookups and publishes send nothing.
 */
void plan_remote_set_down(struct plan_remote *pr);

/* The counters; the caller may add to the fetch and upload ones. */
struct plan_remote_stats *plan_remote_stats(struct plan_remote *pr);

/*
 * The trust domains of this index (docs/remote-cache.md). Trusted refs
 * are those matching one of the n fnmatch(3) globs (policy trusted-refs),
 * or, with n 0, `default_branch` (e.g. "refs/heads/main"; NULL or "":
 * refs/heads/main and refs/heads/master) and tags (refs/tags/ and anything). `own_ref` is
 * the ref being planned or run (NULL: unknown). A trusted own ref reads
 * and writes the trusted domain; any other ref writes a domain of its own
 * (remote_domain_id) and reads it first, then the trusted one, so a pull
 * request reuses its own earlier stages and main's records, and main
 * never sees a pull request's. In the own domain only records of the own
 * ref are reused; in the trusted one only records of trusted refs. With
 * no own ref nothing is written (plan_remote_may_write). Applies to
 * lookups made after the call, and sets the client's write domain
 * (remote_set_domain). Errors: ERROR_NOMEM, ERROR_INVALID (a ref that
 * makes no domain).
 */
int plan_remote_trust(struct plan_remote *pr, const char *const *globs,
		      size_t n, const char *default_branch,
		      const char *own_ref, struct error *err);

/*
 * The trust domain a command of `ref` reads and writes, by the rules of
 * plan_remote_trust and with or without a remote cache (the local cache
 * applies them to records reused from the remote cache, source.h): into
 * out (REMOTE_DOMAIN_SIZE bytes) the remote_domain_id of an untrusted
 * ref, "" for a trusted ref or none (NULL or ""), which is the trusted
 * domain. globs (n; 0: the default branch, or main and master, and
 * tags): policy trusted-refs. Errors: those of remote_domain_id.
 */
int plan_trust_domain(const char *const *globs, size_t n,
		      const char *default_branch, const char *ref, char *out,
		      struct error *err);

/* The own ref given to plan_remote_trust, or NULL. */
const char *plan_remote_own_ref(const struct plan_remote *pr);

/* The own domain's id when the own ref is not trusted, else NULL. */
const char *plan_remote_domain(const struct plan_remote *pr);

/*
 * The server and domain this index writes, as published marks name it
 * (cache_published_has): the URL for the trusted domain, URL/d/DOMAIN for
 * a ref's own. Owned by the index.
 */
const char *plan_remote_write_server(const struct plan_remote *pr);

/*
 * Whether records written by a run of `ref` belong to the domain this
 * index writes: the own ref itself in its own domain; a trusted ref in
 * the trusted one. A record of another ref is not this run's to publish
 * (a persistent runner's local records of main are never published into
 * a pull request's domain, and the reverse). 0 without an own ref.
 */
int plan_remote_writes_for(const struct plan_remote *pr, const char *ref);

/*
 * Whether a run may publish: a ref is known, the client is not
 * read-only, the server is up and has not refused a write, and the run
 * was not kept local (plan_remote_keep_local).
 */
int plan_remote_may_write(const struct plan_remote *pr);

/*
 * The server refused a write (HTTP 401 or 403): the rest of the command
 * is read-only (lookups and fetches go on).
 */
void plan_remote_refuse_writes(struct plan_remote *pr);

/* Whether plan_remote_refuse_writes was called. */
int plan_remote_writes_refused(const struct plan_remote *pr);

/*
 * This run's results stay in the local cache: the rest of the command
 * publishes nothing (lookups and fetches go on). For a checkout whose
 * builds may differ from the commit's under the same keys (committed
 * links checked out as files: engine/cli/run_prep.c).
 */
void plan_remote_keep_local(struct plan_remote *pr);

/* Whether plan_remote_keep_local was called. */
int plan_remote_kept_local(const struct plan_remote *pr);

/*
 * Look up n nodes (ids[i] with keys[i], 32 hex) not asked before, in one
 * batch (AC entries, then record blobs). `ns` (or NULL) names a separate
 * set of entries: "tag/TAG/" for the records a run of tag TAG wrote
 * (engine/run publishes them; docs/remote-cache.md). Faults go to the
 * observer (or are the error when required). Returns 0 or an error
 * (ERROR_NOMEM; a fault when required).
 */
int plan_remote_lookup(struct plan_remote *pr, const char *ns,
		       const char *const *ids, const char *const *keys,
		       size_t n, struct error *err);

/* The checked hit for `key` in `ns` (NULL: the plain entries), or NULL. */
const struct plan_remote_hit *plan_remote_find(const struct plan_remote *pr,
					       const char *ns,
					       const char *key);

/*
 * Report a fault with the remote cache: 0 after telling the observer, or
 * (required) *e copied into err and its code returned. Counts it, unless
 * it is the refused write (ERROR_UNSUPPORTED after
 * plan_remote_refuse_writes) that made the run read-only.
 */
int plan_remote_fault(struct plan_remote *pr, const struct error *e,
		      struct error *err);

/*
 * Forget the hit for `key` in `ns` (a caller found it unusable, e.g.
 * plan_remote_outputs_check failed): plan_remote_find answers NULL from
 * now on and the key is not asked again. Not counted as a hit.
 */
void plan_remote_drop(struct plan_remote *pr, const char *ns,
		      const char *key);

/*
 * Whether hit h may write what it lists, for a node declaring the output
 * globs `patterns` (n; graph/outputs.h dialect, as the rules at the
 * planned commit expand them): every output path of its AC entry and
 * every relative artifact of its record matches one of them (paths were
 * already checked at decoding: relative, no "..", no control byte, not
 * under .git/ or .ripple/). 0, or ERROR_CORRUPT naming the server, the
 * node, its key and the first path that is not an output, so a hostile
 * entry can make a node rebuild but never write elsewhere.
 */
int plan_remote_outputs_check(const struct plan_remote_hit *h,
			      const char *const *patterns, size_t n,
			      struct error *err);

/* ---- bundles and the source-key memo (engine/plan/remote_bundle.c) ---- */

/*
 * Fetch the bundles of the n commits (hex; at most 4 new ones; asked
 * before: skipped) in one batch, in the own domain and the trusted one:
 * their records answer later lookups of their keys without a request,
 * checked as per-node hits are (the own domain's first, and a trusted
 * bundle only after the own domain missed), and their memo pairs of
 * records that may be reused from their domain make plan_remote_memo.
 * A missing bundle is nothing; a damaged one a fault (its records are
 * then looked up one by one). Returns 0 or an error (NOMEM; a fault when
 * required).
 */
int plan_remote_bundles(struct plan_remote *pr, const char *const *commits,
			size_t n, struct error *err);

/*
 * The source-key memo the fetched bundles' records attest: memo id
 * (graph_source_memo_id) -> key hex, "" where two records disagree; NULL
 * when empty. A key taken from it is a claim until the record reused
 * under it attests the same pair (plan_remote_attests) or a walk
 * confirms it (engine/plan/memo_check.h). Owned by the index.
 */
struct strmap;
const struct strmap *plan_remote_memo(const struct plan_remote *pr);

/* Whether hit h (may be NULL) attests source key `key` for memo id `memo`. */
int plan_remote_attests(const struct plan_remote_hit *h, const char *memo,
			const char *key);

/*
 * The key components of a hit from a bundle (which leaves them out): its
 * record blob from the CAS, checked to name its node and key, once. A
 * failure is a fault told to the observer (the node is explained without
 * them). Returns 0 or an error (NOMEM; a fault when required).
 */
int plan_remote_components(struct plan_remote *pr,
			   const struct plan_remote_hit *h, struct error *err);

/*
 * Add an ok record this run published (`a`: its AC entry) or reused from
 * the remote cache to the run's bundle, with the memo id and key pairs
 * of its inputs (`sources`, may be NULL); once per node. Errors: NOMEM.
 */
int plan_remote_bundle_add(struct plan_remote *pr,
			   const struct cache_record *rec,
			   const struct cache_run *run, const char *runner,
			   const struct remote_action *a,
			   const struct strv *sources, struct error *err);

/*
 * Publish the run's bundle at `commit` in the domain it writes (the blob,
 * then its AC entry), when it holds a record and the run may write. It
 * keeps the records of the commit's bundle, as the server holds it just
 * before the PUT, that the run did not replace and that runs of its own
 * tag made (`tag`: the run's, NULL for none: a tag run's versions are not
 * a branch run's), and PUTs again when another run's PUT came between.
 * Errors: those of remote_node_put.
 */
int plan_remote_bundle_publish(struct plan_remote *pr, const char *commit,
			       const char *tag, const char *runner,
			       struct error *err);

#endif
