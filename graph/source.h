/*
 * Source-set keys: the files a pattern set claims at a commit (or in the
 * working tree), each identified by (path, mode, blob id) without reading
 * file contents, and their XXH3-128 key. The per-file list is kept so an
 * explanation can name the file that differs. Encoding: docs/patterns.md.
 */
#ifndef RIPPLE_GRAPH_SOURCE_H
#define RIPPLE_GRAPH_SOURCE_H

#include <stddef.h>

#include "base/arena.h"
#include "graph/repo.h"

struct error;
struct pattern_set;
struct strv;
struct graph_source_cache;
struct graph_worktree;

enum graph_file_kind {
	GRAPH_FILE_BLOB,	/* a regular or executable file (LFS pointers too) */
	GRAPH_FILE_SYMLINK,	/* mode 120000: the blob holds the target text */
	GRAPH_FILE_SUBMODULE,	/* mode 160000: id is the recorded commit */
};

enum graph_link_state {
	GRAPH_LINK_NONE,	/* not a symlink */
	GRAPH_LINK_INSIDE,	/* resolves to something in the repository */
	GRAPH_LINK_DANGLING,	/* resolves inside, to nothing */
	GRAPH_LINK_ESCAPES,	/* absolute, or leaves the repository */
};

struct graph_source_file {
	const char *path;		/* repository-relative bytes */
	unsigned mode;			/* git mode: 0100644, 0100755, 0120000, 0160000 */
	enum graph_file_kind kind;
	char id[GRAPH_OID_HEX];		/* blob id, or gitlink commit id */
	/* Symlinks only (else NULL / GRAPH_LINK_NONE / 0 / ""): */
	const char *link_target;	/* the target text as stored */
	enum graph_link_state link_state;
	const char *link_resolved;	/* INSIDE: repository-relative target */
	unsigned target_mode;		/* INSIDE: the final target's mode (040000: a directory) */
	char target_id[GRAPH_OID_HEX];	/* INSIDE: blob/commit id (40 hex), or a directory's digest (32 hex) */
	/* Every repository path resolution looked up, in order: each hop of
	 * a chain of links, the last being link_resolved (INSIDE) or what
	 * dangles. The key depends on all of them (retargeting any hop moves
	 * the link), so the memo counts every one. */
	const char **link_hops;
	size_t n_link_hops;
};

/* A symlink that escapes the repository or dangles: reported, not fatal. */
struct graph_source_warning {
	const char *path;	/* the link */
	const char *target;	/* its target text */
	const char *reason;	/* "escapes the repository", "dangles", ... */
};

struct graph_source_state {
	unsigned char key[16];		/* XXH3-128, canonical (big-endian) bytes */
	char key_hex[33];		/* the same as 32 lowercase hex digits */
	struct graph_source_file *files;	/* sorted by path (bytes) */
	size_t n_files;
	struct graph_source_warning *warnings;	/* sorted by path */
	size_t n_warnings;
	struct arena arena;		/* owns files, warnings and strings */
};

/* Free everything the state owns; it can be reused. Accepts NULL. */
void graph_source_state_release(struct graph_source_state *st);

/*
 * A memo of walked subtrees, (tree id, directory path, pattern digest) ->
 * the claimed entries below, so evaluating a later commit descends only
 * into subtrees whose ids changed. Lives for one process; not thread-safe.
 * graph_source_cache_new returns NULL when out of memory.
 */
struct graph_source_cache *graph_source_cache_new(void);
void graph_source_cache_free(struct graph_source_cache *cache);

/* Memo hits and misses so far (for benchmarks and tests). */
void graph_source_cache_stats(const struct graph_source_cache *cache,
			      size_t *hits, size_t *misses);

/*
 * What lies below one tree, as graph_source_compute_key needs it to key a
 * folder claimed whole by its id alone: a function of the tree id (its
 * contents), never of the path it sits at or of a pattern.
 */
struct graph_tree_scan {
	int links;			/* 1: a symlink lies somewhere below */
	int height;			/* folders in its deepest line below:
					   0 .. GRAPH_MAX_TREE_DEPTH - 1 */
	unsigned char canon[20];	/* no link below: the id git gives
					   the tree with every mode as git
					   writes it and empty folders left
					   out (graph/tree_canon.c); the
					   tree's own id in the common case */
};

/*
 * A memo of scans that outlives the process (engine/plan/eval_scans.c:
 * the cache's tree_scans table), so that a folder a later commit changed
 * is scanned again only where its subtrees' ids changed. get: 1 and *out
 * on a hit, 0 on a miss (a store that fails misses); only a hit that
 * holds (links 0 or 1, height in range) is used. put: every scan the
 * walk works out, best effort. Both may be called from several threads
 * at once (the sets keyed ahead), each with its own repository handle.
 */
struct graph_scan_store {
	int (*get)(void *ctx, const unsigned char tree[20],
		   struct graph_tree_scan *out);
	void (*put)(void *ctx, const unsigned char tree[20],
		    const struct graph_tree_scan *scan);
	void *ctx;
};

/*
 * The cache's walks consult and tell `store` (borrowed: it outlives the
 * cache; NULL: no store). A folder the full walk (graph_source_compute)
 * lists whole tells its scan too, so a run's walk fills the store that a
 * later plan's key-only walk reads.
 */
void graph_source_cache_set_store(struct graph_source_cache *cache,
				  const struct graph_scan_store *store);

/*
 * The source state of `set` at `commit`: every claimed tree entry (blobs,
 * symlinks, gitlinks), symlinks resolved, and the key. Only subtrees that
 * pattern_set_may_match_dir allows are read; `cache` may be NULL (no memo).
 * *out is overwritten (release it with graph_source_state_release, also
 * after an error). Errors: those of graph_repo_has_commit (a missing commit
 * in a shallow clone), ERROR_INTERNAL from libgit2, ERROR_NOMEM.
 */
int graph_source_compute(struct graph_repo *repo,
			 const struct graph_oid *commit,
			 const struct pattern_set *set,
			 struct graph_source_cache *cache,
			 struct graph_source_state *out, struct error *err);

/*
 * The key of `set` at `commit`, as graph_source_compute gives it, reading
 * no more than the key needs: a folder the set claims whole is read only
 * for its entries' modes (to know that no symlink lies below it) and
 * stands as its tree id, so out->files lists only the claimed files
 * outside such folders (every symlink among them, resolved). For a plan
 * that keeps keys and walks a set again when it needs the files. Errors
 * as graph_source_compute.
 */
int graph_source_compute_key(struct graph_repo *repo,
			     const struct graph_oid *commit,
			     const struct pattern_set *set,
			     struct graph_source_cache *cache,
			     struct graph_source_state *out,
			     struct error *err);

/*
 * The memo id of `set` at `commit` (out: 33 bytes, 32 hex digits and a
 * NUL): XXH3-128 of the set's pattern digest and, for each fixed prefix of
 * its includes, the prefix and the object id there ("-" when absent). Two
 * commits with one memo id give one key, provided the state is
 * memoizable (graph_source_state_memoizable). Errors: repository errors.
 */
int graph_source_memo_id(struct graph_repo *repo,
			 const struct graph_oid *commit,
			 const struct pattern_set *set, char *out,
			 struct error *err);

/*
 * The same memo id from a set's parts, as pattern_set_memo_parts gives
 * them without compiling the set: its digest (16 bytes) and its sorted,
 * unique prefixes. Errors as graph_source_memo_id.
 */
int graph_source_memo_id_parts(struct graph_repo *repo,
			       const struct graph_oid *commit,
			       const unsigned char *digest,
			       const struct strv *prefixes, char *out,
			       struct error *err);

/*
 * The memo ids of n sets at one commit from their parts, as
 * graph_source_memo_id_parts gives each (out[i]: 33 bytes): the commit's
 * tree and the folder above the last cover are read once for all of
 * them. Errors as graph_source_memo_id; after one, no out[i] is to be
 * used.
 */
int graph_source_memo_ids(struct graph_repo *repo,
			  const struct graph_oid *commit, size_t n,
			  const unsigned char *const *digests,
			  const struct strv *const *prefixes,
			  char *const *out, struct error *err);

/*
 * The files of `set` that differ between commits base and head, from the
 * tree diff under the set's fixed prefixes (subtrees with one id are not
 * read): 1 with *out (release it with graph_change_list_release) listing
 * each claimed path that is added, deleted or modified, in path order,
 * with its modes (graph_git_entry_mode) and blob ids. That is every
 * difference between the two states' file lists when neither state holds
 * a symlink (whose identity follows its target): the caller must know
 * that much of at least one side. 0 (*out empty) when the diff alone
 * cannot tell: a symlink or gitlink among the changes, or at or above a
 * prefix. Errors: repository errors, ERROR_NOMEM.
 */
struct graph_change_list;
int graph_source_diff(struct graph_repo *repo, const struct graph_oid *base,
		      const struct graph_oid *head,
		      const struct pattern_set *set,
		      struct graph_change_list *out, struct error *err);

/* 1 when a file of st is a symlink, 0 when none is. */
int graph_source_state_has_link(const struct graph_source_state *st);

/*
 * 1 when `st`'s key depends only on what lies under the set's prefixes:
 * every path a symlink's resolution looked up (each hop of a chain of
 * links, not only the final target; see graph_source_file.link_hops)
 * lies under them. 0 otherwise, and on out-of-memory.
 */
int graph_source_state_memoizable(const struct pattern_set *set,
				  const struct graph_source_state *st);

/*
 * A snapshot of the working tree with git status semantics: the index,
 * overlaid with unstaged changes and untracked files that are not ignored
 * (git_status_list_new with INCLUDE_UNTRACKED and RECURSE_UNTRACKED_DIRS,
 * rename detection off, submodules at their recorded commit). Only files
 * whose stat differs from the index are hashed (as git blob ids, with
 * git's clean filters, nothing written to the object database), so a
 * clean tree gives the commit's identities and `touch` changes nothing.
 * Free with graph_worktree_free. Errors: ERROR_INTERNAL, ERROR_IO, NOMEM.
 */
int graph_worktree_read(struct graph_repo *repo, struct graph_worktree **out,
			struct error *err);
void graph_worktree_free(struct graph_worktree *wt);

/* Number of files in the snapshot. */
size_t graph_worktree_count(const struct graph_worktree *wt);

/*
 * As graph_source_compute, over a working-tree snapshot. A clean working
 * tree gives the same key as graph_source_compute at HEAD.
 */
int graph_source_compute_worktree(const struct graph_worktree *wt,
				  const struct pattern_set *set,
				  struct graph_source_state *out,
				  struct error *err);

#endif
