/*
 * graph/tree.c and graph/tree_scan.c: the walk of a commit's tree for a
 * source set, its per-process memo, and the scans of what lies below a
 * tree (links, height, canonical id). Only these two include it.
 */
#ifndef RIPPLE_GRAPH_TREE_INT_H
#define RIPPLE_GRAPH_TREE_INT_H

#include <stddef.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/strmap.h"
#include "graph/repo_git.h"
#include "graph/source.h"
#include "graph/source_int.h"

struct memo_node;

struct memo_item {
	struct memo_node *child;	/* a subdirectory, or NULL */
	struct graph_source_raw file;	/* when child is NULL */
};

struct memo_node {
	unsigned char k[16];
	size_t n, total;		/* items; raw entries in the whole subtree
					   (files and folder markers) */
	struct memo_item *items;
	/* A folder the set claims whole: flatten puts a folder marker
	 * (graph_source_finish) before its entries. */
	int marker;
	const char *dir;
	unsigned char tree[20];
	/* A folder claimed whole, walked (not a marker alone): its scan's
	 * links and height, from its entries and subfolders. */
	int links, height;
};

struct graph_source_cache {
	struct arena arena;
	struct memo_node **slots;
	size_t cap, used, hits, misses;
	/* Tree id (hex) -> struct graph_tree_scan (from the trees' entry
	 * modes, or the store). */
	struct strmap links;
	const struct graph_scan_store *store;	/* borrowed, or NULL */
};

struct walk {
	struct graph_repo *repo;
	const struct pattern_set *set;
	struct graph_source_cache *cache;
	struct buf path;
	struct error *err;
	int all;	/* the directory walked is claimed whole */
	int key_only;	/* a link-free folder claimed whole is its marker
			   alone: its files are not listed */
	int depth;	/* folders entered (too_deep) */
};

/* ERROR_INVALID "tree too deep" at w->path; returns the code. */
int graph_tree_too_deep(struct walk *w);

/*
 * *out = the scan of tree `id` entered `depth` folders down: remembered
 * in w->cache (a folder is scanned once), else from the cache's store,
 * else from the trees' entries alone (no blob, no path), then told to the
 * store. ERROR_INVALID where a line of folders is too deep (depth above
 * plus height below), repository errors, ERROR_NOMEM.
 */
int graph_tree_scan_links(struct walk *w, const git_oid *id, int depth,
			  const struct graph_tree_scan **out);

/* The scan of `m`, a folder claimed whole and walked entry by entry (its
 * canonical id worked out: tree.c's canonical), into w->cache and the
 * store. ERROR_NOMEM. */
int graph_tree_scan_walked(struct walk *w, const git_oid *id,
			   const struct memo_node *m);

#endif
