/*
 * File-level differences between two file lists of one input: as stored
 * in the cache (the manifest of a source key, kind "file" entries, see
 * record_source_manifest) or taken from a live source state. Shared by
 * the plan histories (`plan`, `why`) and by `ripple diff`.
 */
#ifndef RIPPLE_ENGINE_PLAN_FILEDIFF_H
#define RIPPLE_ENGINE_PLAN_FILEDIFF_H

#include <stddef.h>

struct arena;
struct cache;
struct error;
struct graph_source_state;
struct plan_file_diff;

/* A file identity in the form manifests store (record_file_identity). */
struct filediff_entry {
	const char *path;	/* repository path */
	const char *digest;	/* blob id, or "BLOB:TARGET" for links */
	const char *detail;	/* octal mode [" -> " link target] */
};

/*
 * The file list stored as the manifest of source key `key` in `c`, in
 * stored order (path order, as recorded), allocated in `a`. Returns 1 and
 * fills *out and *n when stored, 0 when not (no file detail known), or
 * ERROR_NOMEM.
 */
int filediff_from_cache(struct cache *c, struct arena *a, const char *key,
			struct filediff_entry **out, size_t *n,
			struct error *err);

/*
 * The file list of a live source state (its files in path order),
 * allocated in `a`; the paths, and the blob ids and modes of plain
 * files, are borrowed from st, which must outlive the list. Returns 0 or
 * ERROR_NOMEM.
 */
int filediff_from_state(struct arena *a, const struct graph_source_state *st,
			struct filediff_entry **out, size_t *n,
			struct error *err);

/*
 * Compare two path-sorted lists: added, removed, retargeted (link text
 * changed: old and new are the link texts), mode (same blob: old and new
 * are the modes) or modified (old and new are blob ids). *out (allocated
 * in `a`) lists them in path order; strings are borrowed from the lists
 * or allocated in `a`. Returns 0 or ERROR_NOMEM.
 */
int filediff_compare(struct arena *a, const struct filediff_entry *o,
		     size_t no, const struct filediff_entry *n, size_t nn,
		     struct plan_file_diff **out, size_t *count,
		     struct error *err);

#endif
