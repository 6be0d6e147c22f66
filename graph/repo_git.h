/*
 * graph/ internals: the libgit2 handle behind a struct graph_repo and the
 * helpers that turn libgit2 failures into ripple errors. Only graph/ sources
 * includes this.
 */
#ifndef RIPPLE_GRAPH_REPO_GIT_H
#define RIPPLE_GRAPH_REPO_GIT_H

#include <git2.h>

#include "graph/repo.h"

/* The libgit2 repository of the handle; owned by the handle. */
git_repository *graph_repo_git(struct graph_repo *repo);

/*
 * Set *err from libgit2's last error: "WHAT: MESSAGE". A not-found result
 * (GIT_ENOTFOUND) becomes ERROR_NOT_FOUND, anything else ERROR_INTERNAL;
 * in a shallow or partial clone a missing object gets the clone's kind in
 * the message and the "git fetch --unshallow" hint. In a clone that is
 * neither, an object libgit2 cannot find ("object not found": referenced by
 * a tree but absent, as in an incomplete mirror) is ERROR_CORRUPT, with a
 * message saying so and a refetch hint. Returns the code.
 */
int graph_repo_git_error(struct graph_repo *repo, int git_rc,
			 struct error *err, const char *what);

/* The commit's tree, looked up; the caller frees it with git_tree_free. */
int graph_repo_commit_tree(struct graph_repo *repo,
			   const struct graph_oid *commit, git_tree **out,
			   struct error *err);

/*
 * The tags of `git`: the names under refs/tags/ (without that prefix) of
 * the refs that resolve to an object, sorted by bytes and unique, appended
 * to *names (an owned vector). A ref git skips with "warning: ignoring
 * broken ref" (an invalid name, a symbolic ref to nothing, the all-zero
 * id) is left out and its full name appended to *skipped (may be NULL), so one bad ref never
 * hides the others; libgit2 itself drops loose refs whose text does not
 * parse. Errors: ERROR_INTERNAL (the refs cannot be listed at all, e.g. a
 * damaged packed-refs file), ERROR_NOMEM.
 */
struct strv;
int graph_git_tags(git_repository *git, struct strv *names,
		   struct strv *skipped, struct error *err);

#endif
