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
 * Every tracked file whose working-tree entry differs from the index
 * (modified, deleted, retyped; as `git status` shows unstaged changes;
 * untracked and ignored files are not listed), appended to *out, sorted.
 * Errors: repository errors, ERROR_NOMEM.
 */
int graph_repo_modified_tracked(struct graph_repo *repo, struct strv *out,
				struct error *err);

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
