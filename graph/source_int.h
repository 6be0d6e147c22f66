/*
 * graph/ internals shared by the commit and working-tree source readers:
 * the raw entry list, the lookups symlink resolution needs, and the step
 * that turns raw entries into a keyed graph_source_state.
 */
#ifndef RIPPLE_GRAPH_SOURCE_INT_H
#define RIPPLE_GRAPH_SOURCE_INT_H

#include <stddef.h>

#include "base/arena.h"

struct buf;
struct error;
struct pattern_set;
struct strv;
struct graph_source_state;

/*
 * Folders nest at most this deep, git's own bound (core.maxTreeDepth,
 * 4096 by default since git 2.45): the walks are recursive, and a hostile
 * tree nested deeper would overflow the stack; it is an error instead.
 */
#define GRAPH_MAX_TREE_DEPTH 4096

struct graph_source_raw {
	const char *path;	/* repository-relative */
	unsigned mode;		/* 040000: a folder marker (graph_source_finish) */
	unsigned char oid[20];
};

/* What resolving a symlink needs to know about one tree or working tree. */
struct graph_source_view {
	void *ctx;
	/* 0 and *mode/oid when path exists (040000 for a directory), 1 when
	 * not, or a negative error. */
	int (*lookup)(void *ctx, const char *path, unsigned *mode,
		      unsigned char oid[20], struct error *err);
	/* Append the symlink's target text (blob oid at path) to *out. */
	int (*link_text)(void *ctx, const char *path,
			 const unsigned char oid[20], struct buf *out,
			 struct error *err);
	/* Digest (16 bytes) of the sorted (relative path, mode, id) of every
	 * entry under directory path: "ripple-dir-v1" encoding; and the
	 * repository paths of the symlinks among them pushed to *links
	 * (owned strings, in no particular order). */
	int (*dir_digest)(void *ctx, const char *path, unsigned char d[16],
			  struct strv *links, struct error *err);
};

/* A commit's tree as a view: root is the commit's tree (not owned). */
struct git_tree;
struct graph_repo;
struct graph_tree_view {
	struct graph_repo *repo;
	struct git_tree *root;
};

/* Point *out at tv (which must outlive it): lookups in tv->root. */
void graph_tree_view_init(struct graph_tree_view *tv,
			  struct graph_source_view *out);

/*
 * Fill *st from n raw entries sorted by path: copy them into st's arena,
 * read and resolve symlinks through view, collect warnings, and compute the
 * key (docs/patterns.md, "ripple-source-v2"). An entry of mode 040000 is a
 * folder marker: a folder the set claims whole, with its git tree id, put
 * just before the entries below it (which may be left out when the walk
 * knows the folder holds no symlink). A marker none of whose entries below
 * is a symlink, and that lies under no other such marker, is hashed as one
 * record (path, 040000, tree id) in place of its entries; the others are
 * ignored. Markers are not files: st->files holds only the other entries.
 * Returns 0 or a negative error.
 */
int graph_source_finish(struct graph_source_state *st,
			const struct graph_source_raw *raw, size_t n,
			const struct graph_source_view *view,
			struct error *err);

/*
 * The id git write-tree gives tree t once checked out, into out: t's own
 * id when every entry's stored mode is the one git's canon_mode gives
 * (graph_git_entry_mode) and every subtree's canonical id, child[i] for
 * entry i (NULL: not a tree, or take its id as it is), is its id; else
 * the id of the tree object with canonical modes and ids, and without
 * its empty folders (a checkout holds none), hashed by libgit2, never
 * written. Errors: ERROR_NOMEM, ERROR_INTERNAL.
 */
int graph_tree_canonical_id(struct git_tree *t,
			    const unsigned char *const *child,
			    unsigned char out[20], struct error *err);

/* Is id git's empty tree (a folder no checkout holds)? That id (20
 * bytes, static). */
int graph_tree_is_empty_id(const unsigned char id[20]);
const unsigned char *graph_tree_empty_id(void);

/*
 * Replace each prefix of pre (a set's fixed prefixes) at or below a
 * gitlink or a symlink in root that the set claims
 * (pattern_set_claims_opaque) by that entry's folder: the walk then
 * claims the entry, and "" (the root) sorts first again.
 */
struct strv;
void graph_source_opaque_parents(const struct pattern_set *set,
				 struct git_tree *root, struct strv *pre);

/* Sort pre in git's tree order (folders as if ending in '/') and drop
 * (free) each prefix under another: the outermost prefixes to walk. */
void graph_source_outer_prefixes(struct strv *pre);

/* Raw entries with folder markers, as the commit walk gives them. */
struct graph_source_folded {
	struct graph_source_raw *v;	/* owned */
	size_t n, cap;
	struct arena arena;	/* the markers' paths */
};

/*
 * The claimed entries raw[0, n) (path order) with the folder markers the
 * commit walk puts there, appended to *f (zeroed, its arena initialized):
 * before the entries of every folder the set claims whole
 * (pattern_set_claims_all_below of it or of a folder above it), a marker
 * with the tree id of its content here. Every entry under such a folder
 * is claimed, so the claimed entries are its whole content. The entries'
 * paths are borrowed. Errors: ERROR_NOMEM, ERROR_INTERNAL (libgit2).
 */
struct pattern_set;
int graph_source_add_markers(const struct pattern_set *set,
			     const struct graph_source_raw *raw, size_t n,
			     struct graph_source_folded *f, struct error *err);

/* Free what *f owns; it is empty again. */
void graph_source_folded_release(struct graph_source_folded *f);

/* Streaming helpers for the "ripple-dir-v1" directory digest. */
void graph_source_dir_entry(void *xxh3_state, const char *rel, unsigned mode,
			    const unsigned char oid[20]);
/* The same for the path dir + name (dir "" or ending in '/'), hashed as
 * one string without joining them. */
void graph_source_dir_entry2(void *xxh3_state, const char *dir,
			     const char *name, unsigned mode,
			     const unsigned char oid[20]);

#endif
