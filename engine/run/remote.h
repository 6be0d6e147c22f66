/*
 * A run's side of the remote cache: the bytes of a reused node, fetched
 * (SHA-256 and size verified as they stream, then the record's output
 * digest checked) when a node that runs here needs them or `ripple fetch`
 * asks; and a finished node published (outputs, record blob, AC entry).
 * Nothing else is downloaded. Which records may be reused is
 * engine/plan/remote.h's business; this file moves bytes.
 */
#ifndef RIPPLE_ENGINE_RUN_REMOTE_H
#define RIPPLE_ENGINE_RUN_REMOTE_H

#include <stddef.h>

struct cache;
struct cache_record;
struct error;
struct plan_remote;
struct plan_remote_hit;

/*
 * Make the bytes of `rec` (node `rec->node_id`'s record, reused here) be
 * there. Without `to_dir`: each repository-relative artifact at its path
 * under `root`; files already there whose output digest equals the
 * record's are left alone. With `to_dir` (an existing folder): each
 * output as TO_DIR/BASENAME (two outputs with one base name are an
 * error). The digests come from the record's AC entry (looked up by key
 * when the plan did not). Every path of the record and of the entry must
 * match one of the node's output globs `patterns` (n_patterns; the rules
 * at the head), else ERROR_CORRUPT. Verify, then place (base/place.h):
 * every file is downloaded into a temporary file beside its destination,
 * its SHA-256 and size checked, the record's output digest checked over
 * the whole set, and only then are they renamed into place, all or none;
 * a failure leaves the tree as it was. Folders are made one component at
 * a time; a link on the way, or a link, FIFO or device at a destination,
 * is refused (ERROR_INVALID), never written through or read. Temporary
 * files a killed fetch left in the destination folders are removed first.
 * Counts the files and bytes fetched in the index's stats.
 * Errors: ERROR_NOT_FOUND (the remote cache has no entry or blob: "cannot
 * get the bytes of NODE"), ERROR_CORRUPT (a digest mismatch, or files that
 * do not make the record's output digest), ERROR_INVALID (a bad path),
 * ERROR_IO, ERROR_NOMEM. The node id is attached.
 */
int run_remote_fetch(struct plan_remote *pr, const char *root,
		     const struct cache_record *rec,
		     const char *const *patterns, size_t n_patterns,
		     const char *to_dir, struct error *err);

/*
 * Publish node `node_id`'s ok record in run `run_id` of cache `c`: its
 * repository-relative artifacts (under root) to the CAS, the record blob
 * (with its key's components and the run's provenance, written by
 * `runner`, may be NULL), then the AC entry; for a run of a tag also under
 * namespace "tag/TAG/" (plan_remote_lookup), so that `release` finds what
 * exactly that tag's run recorded. A node the run reused (`reused`) is
 * published only under the tag's namespace, from its files here or, when
 * it came from the remote cache (`from`), naming the blobs already there.
 * A record that is not ok, a read-only client or a server that is down:
 * nothing is sent. A plain entry published is added to the run's bundle
 * (plan_remote_bundle_add) with `sources` (may be NULL: the memo id and
 * key pairs of its inputs). Errors: those of the cache and the client
 * (the caller reports a client's as a fault).
 */
struct strv;
int run_remote_publish(struct plan_remote *pr, struct cache *c,
		       const char *root, const char *run_id,
		       const char *node_id, const char *runner, int reused,
		       const struct plan_remote_hit *from,
		       const struct strv *sources, struct error *err);

/*
 * Publish the ok record of `node_id` in run `run_id` (a record this run
 * reuses from the local cache) unless the local cache knows the server
 * holds it (cache_published_has): a node recorded ok here whose upload
 * died, with its runner or the server, goes up with the next run that can
 * write. Only when the files it lists are in the working tree as recorded
 * (its output digest); else nothing is sent. Read-only or down: nothing.
 * The record published is the builder's: a copy a run recorded when it
 * reused the node (metadata reused-from=RUN) is followed back to the run
 * that built it, and only a builder whose ref writes this run's trust
 * domain (plan_remote_writes_for) is published; a copy of a remote
 * record is never sent back. Errors: those of run_remote_publish.
 */
int run_remote_publish_pending(struct plan_remote *pr, struct cache *c,
			       const char *root, const char *run_id,
			       const char *node_id, const char *runner,
			       struct error *err);

/*
 * The memo id and key pairs of node `node`'s inputs in `ev`
 * (eval_input_memo: those that may be memoized), appended to out: what
 * its record in the run's bundle attests. Errors: the evaluation's.
 */
struct eval;
int run_remote_sources(struct eval *ev, size_t node, struct strv *out,
		       struct error *err);

/*
 * A node this run reused from the remote cache (hit) goes into the run's
 * bundle, with its sources, when its record is of the domain the run
 * writes (plan_remote_writes_for). Errors: NOMEM, the evaluation's.
 */
int run_remote_bundle_reused(struct plan_remote *pr, struct eval *ev,
			     size_t node, const struct plan_remote_hit *hit,
			     struct error *err);

#endif
