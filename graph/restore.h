/*
 * Tracked files an action rewrites (issue 26): what a commit holds at a
 * path, so `rewrites:` files are put back after the action, and which
 * tracked files the working tree changes, so a node that modifies one it
 * did not declare is named. RAPIDS' wheel scripts run
 * `rapids-generate-version > ./VERSION`; without the restore the next run
 * in that checkout refuses (a claimed input changed).
 */
#ifndef RIPPLE_GRAPH_RESTORE_H
#define RIPPLE_GRAPH_RESTORE_H

#include <stddef.h>

#include "base/file.h"

struct buf;
struct error;
struct graph_oid;
struct graph_repo;
struct strv;

/*
 * The entry at `path` in the tree of `commit`: its bytes (a link's target
 * text for a link) appended to *bytes and its kind in *kind. Returns 0, or
 * ERROR_NOT_FOUND when the commit has no file there; ERROR_INVALID when it
 * is a folder or a submodule; repository errors (graph_repo_git_error).
 */
int graph_repo_committed_entry(struct graph_repo *repo,
			       const struct graph_oid *commit,
			       const char *path, struct buf *bytes,
			       enum file_entry *kind, struct error *err);

/*
 * Put `path` back as `commit` holds it, under the repository's working
 * tree (file_replace_under: never through a link), or remove what is
 * there when the commit has no such file. Errors: those of
 * graph_repo_committed_entry and file_replace_under, naming the path.
 */
int graph_repo_restore_path(struct graph_repo *repo,
			    const struct graph_oid *commit, const char *path,
			    struct error *err);

/*
 * A snapshot of the tracked files' stat data (lstat: size, times, inode,
 * mode), so that the files an action changed are found by one lstat per
 * tracked file, not by `git status` (which rehashes every racily clean
 * file: a fresh clone's checkout and index share a second, and 20 actions
 * in a 50,000-file repository took 15 s instead of 2.4 s). A file whose
 * stat data changed is compared by content (its blob id) with what it held
 * at the snapshot (the index's blob, or its content then when it already
 * differed from the index), so rewriting identical bytes is no change.
 */
struct graph_tracked;

/*
 * Take the snapshot of the tracked files of the index (stage 0, no
 * submodules) that are in `only` (sorted; NULL: all of them). *out is new
 * (graph_tracked_free). Errors: repository errors, ERROR_NOMEM.
 */
int graph_tracked_snapshot(struct graph_repo *repo, const struct strv *only,
			   struct graph_tracked **out, struct error *err);

/*
 * Append to *out the tracked files whose content, kind or executable bit
 * changed since the snapshot (or since they were last reported; a file
 * is reported once per change), in index order (sorted). Errors:
 * ERROR_NOMEM; a file that cannot be read counts as changed.
 */
int graph_tracked_changed(struct graph_repo *repo, struct graph_tracked *t,
			  struct strv *out, struct error *err);

/* Free. Accepts NULL. */
void graph_tracked_free(struct graph_tracked *t);

/* A commit's files for the rules (struct rules_files' payload). */
struct graph_commit_files {
	struct graph_repo *repo;
	const struct graph_oid *commit;
};

/*
 * struct rules_files' read() over a commit's tree (payload: struct
 * graph_commit_files): the file's bytes, mem_alloc'd and NUL-terminated.
 * A link, a folder or a file above 64 MiB is ERROR_INVALID; a missing one
 * ERROR_NOT_FOUND.
 */
int graph_commit_file_read(void *payload, const char *path, char **data,
			   size_t *len, struct error *err);

#endif
