/*
 * graph/ internals: the libgit2 handle behind a struct graph_repo and the
 * helpers that turn libgit2 failures into ripple errors. Only graph/ sources
 * includes this.
 */
#ifndef RIPPLE_GRAPH_REPO_GIT_H
#define RIPPLE_GRAPH_REPO_GIT_H

#include <git2.h>
/*
 * libgit2 1.8 moved git_error_clear (with other calls meant for its own
 * callers) from git2/errors.h to git2/sys/errors.h; 1.5 to 1.7 declare
 * it in git2/errors.h, which git2.h includes.
 */
#if LIBGIT2_VER_MAJOR > 1 || \
    (LIBGIT2_VER_MAJOR == 1 && LIBGIT2_VER_MINOR >= 8)
#include <git2/sys/errors.h>
#endif

#include "graph/repo.h"

/* libgit2's last error message, or "unknown libgit2 error"; its buffer. */
const char *graph_git_last_message(void);

/*
 * 0 when every pack of git's object store (the .pack files in
 * objects/pack of the common git folder that have an index) can be
 * opened, starts as a pack and ends with the checksum its index records;
 * else ERROR_IO for the first that does not, "WHAT: ..." naming the file,
 * with a hint. A store without packs is 0.
 */
int graph_git_packs_check(git_repository *git, const char *what,
			  struct error *err);

/* The libgit2 repository of the handle; owned by the handle. */
git_repository *graph_repo_git(struct graph_repo *repo);

/*
 * Set *err from libgit2's last error: "WHAT: MESSAGE". A not-found result
 * (GIT_ENOTFOUND) becomes ERROR_NOT_FOUND, anything else ERROR_INTERNAL;
 * in a shallow or partial clone a missing object gets the clone's kind in
 * the message and the "git fetch --unshallow" hint. In a clone that is
 * neither, an object libgit2 cannot find ("object not found": referenced by
 * a tree but absent, as in an incomplete mirror) is ERROR_CORRUPT, with a
 * message saying so and a refetch hint. But first, for any not-found
 * result, a pack file of the object store that cannot be opened or does
 * not end as its index records (truncated) is ERROR_IO naming the file
 * (libgit2 passes over such a pack and calls its objects not found).
 * Returns the code.
 */
int graph_repo_git_error(struct graph_repo *repo, int git_rc,
			 struct error *err, const char *what);

/* The commit's tree, looked up; the caller frees it with git_tree_free. */
int graph_repo_commit_tree(struct graph_repo *repo,
			   const struct graph_oid *commit, git_tree **out,
			   struct error *err);

/*
 * The mode git checks tree entry `e` out with (git's canon_mode): the
 * type bits of the mode as stored decide, 0100xxx a file (0100755 when
 * its owner's execute bit is set, else 0100644), 0120xxx a symlink
 * (0120000), 0040xxx a folder (040000), anything else a gitlink
 * (0160000). libgit2's git_tree_entry_filemode instead calls a mode with
 * any execute bit an executable file, so a hostile 120755 entry, which
 * git checks out as a link, would not be resolved as one.
 */
unsigned graph_git_entry_mode(const git_tree_entry *e);

/*
 * The gitlink (submodule) or symlink at `path` or at a folder above it
 * in `root`, the first on the way down, into *out (the caller frees it
 * with git_tree_entry_free) and the length of its path (a prefix of
 * `path`) into *len: 1 when there is one, 0 when not (*out NULL). A set whose patterns reach inside a
 * submodule reads its checkout, which only the gitlink's commit id
 * names, and inside a folder link what the link reaches
 * (docs/patterns.md, "Submodules", "Symlinks").
 */
int graph_git_opaque_at_or_above(git_tree *root, const char *path,
				 git_tree_entry **out, size_t *len);

/*
 * Append to *out (the caller releases it) every path that differs at or
 * below `path` ("" for the whole trees) between trees a (old) and b
 * (new): subtrees with one id are skipped whole, a missing side's files
 * are added or deleted. Entries are compared by their raw modes and ids,
 * and reported with graph_git_entry_mode's modes and their object ids.
 * Unsorted. Returns 0, ERROR_NOMEM, or ERROR_INTERNAL from libgit2.
 */
struct graph_change_list;
int graph_git_diff_at(struct graph_repo *repo, git_tree *a, git_tree *b,
		      const char *path, struct graph_change_list *out,
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

/*
 * The shallow boundary of a clone: the commits named in the shallow file
 * of its common git folder (`git rev-parse --git-common-dir`/shallow),
 * whose parents the clone lacks. ripple reads the file itself: libgit2
 * 1.5 and 1.6 fail a walk at such a commit, later versions end the walk
 * there silently (they read the file as grafts), so only this tells a
 * count from truncated history from a real one on every libgit2.
 */
struct graph_shallow {
	git_oid *ids;	/* sorted; owned */
	size_t n;	/* 0: not a shallow clone */
};

/*
 * Load the boundary of `git` into *out (n = 0 and no error when there is
 * no shallow file). Errors: ERROR_CORRUPT (a line is not a 40-digit commit
 * id; FILE:LINE in the message, a fetch hint), ERROR_INVALID (the file is
 * not a regular file), ERROR_IO, ERROR_NOMEM. Release with
 * graph_git_shallow_release.
 */
int graph_git_shallow_load(git_repository *git, struct graph_shallow *out,
			   struct error *err);

/* 1 when `id` is a boundary commit of `s` (its parents are missing). */
int graph_git_shallow_has(const struct graph_shallow *s, const git_oid *id);

/* Free the ids of `s` and empty it. */
void graph_git_shallow_release(struct graph_shallow *s);

/*
 * 1 when `git` is a shallow clone (its common git folder has a non-empty
 * shallow file; a damaged one counts, one that cannot be read now, for
 * want of a descriptor or memory, does not), else 0. Unlike
 * git_repository_is_shallow, which looks in the worktree's own git
 * folder, this also answers for a linked worktree of a shallow clone.
 */
int graph_git_is_shallow(git_repository *git);

#endif
