/*
 * Recording a node's outcome into a run: its key computed at the run's
 * commit (upstream nodes contribute the output digests recorded in the same
 * run: early cutoff), the output digest of its artifacts, the key's
 * components and every input's file list (so `why` can explain a change
 * after the old commit has left the clone). One transaction per node.
 */
#ifndef RIPPLE_ENGINE_PLAN_RECORD_H
#define RIPPLE_ENGINE_PLAN_RECORD_H

#include <stddef.h>
#include <stdint.h>

struct cache;
struct cache_run;
struct digest;
struct error;
struct eval;
struct buf;
struct graph_keys;
struct graph_node;
struct strv;
struct graph_source_state;

struct record_outcome {
	const char *status;		/* "ok", "failed", "timeout", ... */
	const char *const *artifacts;	/* files, repository-relative or
					   absolute; hashed in byte order */
	size_t n_artifacts;
	const char *const *meta;	/* "K=V" */
	size_t n_meta;
	const char *version;		/* or NULL */
	int64_t duration_ms;
	const char *output_digest;	/* precomputed (32 hex), or NULL:
					   computed from the artifacts */
	const struct cache_run *run;	/* or NULL: the run to make or join
					   in the record's transaction
					   (cache_record_put_in) */
};

/*
 * XXH3-128 over the artifact files' contents in path byte order, each as
 * (name relative to `root`, bytes), length-prefixed. Paths are opened
 * relative to `root` unless absolute. Errors: ERROR_NOT_FOUND naming a
 * missing file, ERROR_IO, ERROR_NOMEM.
 */
int record_output_digest(const char *root, const char *const *paths,
			 size_t n, struct digest *out, struct error *err);

/*
 * record_output_digest of n artifacts named names[i] (as recorded: they
 * decide the order and the hashed base names) whose bytes are in files[i]
 * (paths opened as given), e.g. copies fetched into another folder.
 */
int record_output_digest_files(const char *const *names,
			       const char *const *files, size_t n,
			       struct digest *out, struct error *err);

/*
 * The payload digest (32 hex) a record of a `cutoff: payload` artifact
 * carries in its metadata ("payload-digest"), or NULL. Users' keys take it
 * in place of the output digest (early cutoff through package metadata:
 * engine/run/payload.h).
 */
struct cache_record;
const char *record_payload_digest(const struct cache_record *rec);

/*
 * Compute node `index`'s key in `ev` as recorded in `run` (upstream output
 * digests from that run's records) into *keys (allocated when NULL; the
 * caller frees it with graph_keys_free). Errors: cache and eval errors.
 */
int record_node_key(struct cache *c, struct eval *ev, const char *run,
		    size_t index, struct graph_keys **keys,
		    struct error *err);

/*
 * Record node `index` of `ev` in run `run` with outcome *o; with o->run
 * set, the run is made or joined in the same transaction. Errors:
 * ERROR_NOT_FOUND (no such run and no o->run), ERROR_CONFLICT (o->run
 * exists at another commit), ERROR_INVALID (bad status or meta), cache
 * and eval errors. The node id is attached to errors.
 */
int record_node(struct cache *c, struct eval *ev, const char *run,
		size_t index, const struct record_outcome *o,
		struct error *err);

/*
 * Store a source state's file list as the manifest of its key (kind
 * "file", name the path, digest the blob id [":" target id], detail the
 * octal mode [" -> " link target]). Stored once per key.
 */
int record_source_manifest(struct cache *c,
			   const struct graph_source_state *st,
			   struct error *err);

/*
 * A source file's identity as manifests store it: digest "BLOB" or
 * "BLOB:TARGET" for a link that resolves inside the repository, detail
 * the octal mode, plus " -> TARGET-TEXT" for links. Writes NUL-terminated
 * text into digest (dn bytes) and detail (tn bytes).
 */
struct graph_source_file;
void record_file_identity(const struct graph_source_file *f, char *digest,
			  size_t dn, char *detail, size_t tn);

/*
 * Output groups (`outputs: {lib: [...], tests: [...]}`): a record keeps each
 * group's digest (record_output_digest of the artifacts its globs match)
 * as metadata "ripple.output.GROUP=DIGEST"; plans carry them as text
 * "GROUP=DIGEST\n" per group.
 */
#define RECORD_GROUP_META "ripple.output."

/*
 * Push "ripple.output.GROUP=DIGEST" for every output group of node n onto
 * *meta, each over the files of `arts` (repository-relative, under root)
 * that its globs match. Nothing for a node without groups. Errors: those
 * of record_output_digest, ERROR_NOMEM.
 */
int record_group_meta(const char *root, const struct graph_node *n,
		      const struct strv *arts, struct strv *meta,
		      struct error *err);

/*
 * The "GROUP=DIGEST\n" text of the ripple.output.* entries of `meta`
 * ("K=V" strings) into *out (empty when none). Returns 0 or ERROR_NOMEM.
 */
int record_groups_text(const struct strv *meta, struct buf *out,
		       struct error *err);

/*
 * Group `group`'s digest from such a text (NULL: none): 1 and *out, or 0
 * when absent or malformed.
 */
int record_group_digest(const char *text, const char *group,
			struct digest *out);

#endif
