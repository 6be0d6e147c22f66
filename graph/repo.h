/*
 * The repository view: a libgit2 repository opened by discovery, revision
 * resolution, merge bases, tags, blobs at a commit, and the changed paths
 * between two commits or a commit and the working tree. Never runs git.
 * Missing objects in shallow or partial clones are reported as such.
 */
#ifndef RIPPLE_GRAPH_REPO_H
#define RIPPLE_GRAPH_REPO_H

#include <stddef.h>

#include "base/strv.h"

struct buf;
struct error;
struct graph_repo;

/* A git object id (SHA-1, 20 raw bytes). */
struct graph_oid {
	unsigned char id[20];
};

#define GRAPH_OID_HEX 41	/* 40 hex digits and a NUL */

/* Lowercase hex of *oid into out (GRAPH_OID_HEX bytes, NUL-terminated). */
void graph_oid_hex(const struct graph_oid *oid, char *out);

/*
 * Open the repository containing `dir`, discovering upward as git does
 * (git_repository_discover; ceiling: none). *out is a new handle; close it
 * with graph_repo_close. A bare repository opens too (commits can be
 * planned without a working tree): so does a bare mirror whose `config`
 * file is missing, which libgit2 alone takes for a checkout of the folder
 * above it (see graph_repo_is_bare). Errors: ERROR_NOT_FOUND (no
 * repository; the message names dir), ERROR_INTERNAL (libgit2's message
 * copied).
 */
int graph_repo_open(const char *dir, struct graph_repo **out,
		    struct error *err);

/*
 * Another handle on the repository `like` has open (the same git folder,
 * no discovery; the same working tree root and bareness), for another
 * thread: libgit2's objects, its object cache included, are used by one
 * thread at a time, so each thread reading the object database needs a
 * handle of its own (libgit2's THREADING.md). Only like's paths are
 * read, which never change: another thread may be using `like`
 * meanwhile. *out is new (graph_repo_close). Errors: ERROR_INTERNAL
 * (libgit2's message copied), ERROR_NOMEM.
 */
int graph_repo_open_again(const struct graph_repo *like,
			  struct graph_repo **out, struct error *err);

/* 1 when libgit2 was built thread-safe (GIT_FEATURE_THREADS), so that
 * handles of graph_repo_open_again may be used on threads; else 0. */
int graph_repo_threads(void);

/* Close the handle and free everything it owns. Accepts NULL. */
void graph_repo_close(struct graph_repo *repo);

/*
 * The working tree's root: an absolute path without a trailing "/", owned by
 * the handle. Never part of a key. In a bare repository, the repository
 * folder itself (where its cache lives; nothing is run there).
 */
const char *graph_repo_root(const struct graph_repo *repo);

/* 1 when the repository has no working tree (bare), else 0. */
int graph_repo_is_bare(const struct graph_repo *repo);

/*
 * 0 when the repository has a working tree; in a bare one ERROR_INVALID
 * saying that `what` (e.g. "'ripple run'") needs one, with a hint.
 */
int graph_repo_need_worktree(const struct graph_repo *repo, const char *what,
			     struct error *err);

/*
 * Resolve any revision git understands (gitrevisions(7): a branch, a tag,
 * an annotated tag (peeled), a short or full SHA, "HEAD~2", "main^") to a
 * commit id. Errors: ERROR_NOT_FOUND when the revision does not exist
 * (or, in a shallow or partial clone, when its history is missing: the
 * message says so and the hint is "fetch more history: git fetch
 * --unshallow"), ERROR_INVALID when it names something that is not a
 * commit.
 */
int graph_repo_resolve(struct graph_repo *repo, const char *rev,
		       struct graph_oid *out, struct error *err);

/*
 * The best common ancestor of revisions a and b (git merge-base a b).
 * ERROR_NOT_FOUND when they share no history (or it is missing from a
 * shallow clone: see graph_repo_resolve).
 */
int graph_repo_merge_base(struct graph_repo *repo, const char *a,
			  const char *b, struct graph_oid *out,
			  struct error *err);

/*
 * The branch checked out: its full ref name ("refs/heads/main") into out
 * (n bytes) and 1; 0 when HEAD is detached or unborn (out is ""). A name
 * longer than n - 1 bytes counts as none.
 */
int graph_repo_head_ref(struct graph_repo *repo, char *out, size_t n);

/*
 * The default branch as the clone knows it: the target of the symbolic
 * ref refs/remotes/origin/HEAD ("refs/remotes/origin/main" gives
 * "refs/heads/main") into out (n bytes) and 1; 0 and "" when there is no
 * such ref (GitHub's checkout makes none) or the name does not fit.
 */
int graph_repo_default_branch(struct graph_repo *repo, char *out, size_t n);

/* 1 when the repository is a shallow clone (a linked worktree of one too:
 * graph/shallow.c reads the common git folder's shallow file), else 0. */
int graph_repo_is_shallow(struct graph_repo *repo);

/* 1 when it is a partial clone (extensions.partialclone set), else 0. */
int graph_repo_is_partial(struct graph_repo *repo);

/*
 * Whether git's checkouts of this repository make committed symlinks as
 * links: 0 when its configuration (the repository's, the user's or the
 * system's) sets core.symlinks false, as Git for Windows does where
 * making links needs a privilege; git then writes a committed link as a
 * file holding the link's text. Else 1 (git's default).
 */
int graph_repo_checkout_links(struct graph_repo *repo);

/*
 * 0 when the commit and its tree are present in the object database.
 * Otherwise ERROR_NOT_FOUND saying which object is missing and whether
 * the clone is shallow or partial, with the "git fetch --unshallow" hint;
 * or, when they cannot be read (no file descriptor left, a damaged
 * object), graph_repo_git_error's error with libgit2's message.
 */
int graph_repo_has_commit(struct graph_repo *repo,
			  const struct graph_oid *commit, struct error *err);

/*
 * Append the bytes of the blob at `path` (repository-relative) in the tree
 * of `commit` to *out. ERROR_NOT_FOUND when the path does not exist at that
 * commit (the message names path and short commit), ERROR_INVALID when it
 * is not a file, ERROR_CORRUPT when the tree names a blob the object store
 * lacks (an incomplete clone; see graph_repo_git_error).
 */
int graph_repo_read_blob(struct graph_repo *repo,
			 const struct graph_oid *commit, const char *path,
			 struct buf *out, struct error *err);

/*
 * The id of the blob at `path` (repository-relative) in the tree of
 * `commit` into *out, without reading the blob: what its bytes are (git
 * names a blob by them), for memos of what is made from them. Errors as
 * graph_repo_read_blob's but ERROR_CORRUPT (the blob is not looked up).
 */
int graph_repo_blob_id(struct graph_repo *repo,
		       const struct graph_oid *commit, const char *path,
		       struct graph_oid *out, struct error *err);

/*
 * The id git gives `len` bytes of `data` as a blob (what `git
 * hash-object` prints) into *out: a working-tree file's, to find what
 * was remembered for the same bytes committed. Returns 0, or -1 when
 * libgit2 cannot hash (out of memory).
 */
int graph_blob_id_of(const void *data, size_t len, struct graph_oid *out);

/*
 * Whether `path` (repository-relative) names an entry of any kind in the
 * tree of `commit`: *found 1 or 0, without reading the entry (the rules
 * file's blob is inflated once, not again to learn it is tracked).
 * Returns 0, or an error reading the commit or its trees.
 */
int graph_repo_path_exists(struct graph_repo *repo,
			   const struct graph_oid *commit, const char *path,
			   int *found, struct error *err);

struct graph_tag {
	char *name;			/* without "refs/tags/", owned */
	struct graph_oid target;	/* the commit, annotated tags peeled */
	int annotated;			/* 1 for a tag object, 0 lightweight */
};

struct graph_tag_list {
	struct graph_tag *items;	/* owned; sorted by name (bytes) */
	size_t n;
	struct strv skipped;		/* broken refs left out: full names
					   ("refs/tags/x"), sorted */
};

/*
 * Every tag that points (after peeling) at a commit; tags of trees or blobs
 * are left out. A broken ref under refs/tags/ (an invalid name, a symbolic
 * ref to nothing, an object that cannot be read) is left out and named in
 * out->skipped, which callers show as git does ("warning: ignoring broken
 * ref refs/tags/x"): one bad ref never hides the others. *out is
 * overwritten; free with graph_tag_list_release.
 */
int graph_repo_tags(struct graph_repo *repo, struct graph_tag_list *out,
		    struct error *err);

/* Free the list's contents. Accepts NULL. */
void graph_tag_list_release(struct graph_tag_list *list);

enum graph_change_status {
	GRAPH_CHANGE_ADDED,
	GRAPH_CHANGE_DELETED,
	GRAPH_CHANGE_MODIFIED,
	GRAPH_CHANGE_TYPECHANGE,	/* e.g. a file became a symlink */
};

struct graph_change {
	char *path;			/* owned */
	enum graph_change_status status;
	unsigned old_mode, new_mode;	/* 0 on the missing side */
	/* Object ids (zero on the missing side), filled by the tree-to-tree
	 * diffs only (graph_repo_diff_paths, graph_source_diff); zero from
	 * the working-tree diff. */
	struct graph_oid old_id, new_id;
};

struct graph_change_list {
	struct graph_change *items;	/* owned; sorted by path (bytes) */
	size_t n;
};

/*
 * The paths that differ between the trees of commits base and head
 * (git_diff_tree_to_tree; no rename detection: a rename is a delete plus an
 * add). Mode-only changes are modifications. *out is overwritten; free
 * with graph_change_list_release.
 */
int graph_repo_diff_paths(struct graph_repo *repo,
			  const struct graph_oid *base,
			  const struct graph_oid *head,
			  struct graph_change_list *out, struct error *err);

/*
 * The same between the tree of `base` and the working tree as git status
 * sees it (staged, unstaged and untracked files that are not ignored).
 */
int graph_repo_diff_worktree_paths(struct graph_repo *repo,
				   const struct graph_oid *base,
				   struct graph_change_list *out,
				   struct error *err);

/* Free the list's contents. Accepts NULL. */
void graph_change_list_release(struct graph_change_list *list);

#endif
