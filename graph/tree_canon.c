/*
 * What the commit walk (graph/tree.c) reads of a tree beyond its
 * entries. The tree id git write-tree gives a commit's folder once it is
 * checked out: git reads legacy entry modes (100664, 120755, ...) as
 * canon_mode makes them, so the index, and the working tree's folded ids
 * (graph/worktree_fold.c), hold the canonical modes; a folder claimed
 * whole is keyed by this id, so a clean checkout has its commit's key.
 * And the folders to walk for a set's prefixes: the outermost ones in
 * tree order, and for prefixes inside a submodule or a link their
 * folders.
 */
#include "graph/source.h"
#include "graph/source_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/strv.h"
#include "graph/pattern.h"
#include "graph/repo_git.h"
#include "base/banned.h"

/* git's empty tree, 4b825dc642cb6eb9a060e54bf8d69288fbee4904 */
static const unsigned char EMPTY[20] = {
	0x4b, 0x82, 0x5d, 0xc6, 0x42, 0xcb, 0x6e, 0xb9, 0xa0, 0x60,
	0xe5, 0x4b, 0xf8, 0xd6, 0x92, 0x88, 0xfb, 0xee, 0x49, 0x04,
};

int
graph_tree_is_empty_id(const unsigned char id[20])
{
	return !memcmp(id, EMPTY, 20);
}

const unsigned char *
graph_tree_empty_id(void)
{
	return EMPTY;
}

int
graph_tree_canonical_id(git_tree *t, const unsigned char *const *child,
			unsigned char out[20], struct error *err)
{
	size_t i, n = git_tree_entrycount(t);
	const git_tree_entry *e;
	const char *name;
	struct buf obj = BUF_INIT;
	unsigned mode;
	git_oid id;
	int rc = 0, same = 1, grc;

	for (i = 0; same && i < n; i++) {
		e = git_tree_entry_byindex(t, i);
		mode = graph_git_entry_mode(e);
		if ((unsigned)git_tree_entry_filemode_raw(e) != mode ||
		    (mode == 040000 && child[i] &&
		     memcmp(child[i], git_tree_entry_id(e)->id, 20)) ||
		    (mode == 040000 &&
		     !memcmp(git_tree_entry_id(e)->id, EMPTY, 20)))
			same = 0;
	}
	if (same) {
		memcpy(out, git_tree_id(t)->id, 20);
		return 0;
	}
	/* The same entries in the same order (names and kinds do not
	 * change), each "MODE NAME\0ID" as git writes it, less the empty
	 * folders, which no checkout holds. */
	for (i = 0; !rc && i < n; i++) {
		e = git_tree_entry_byindex(t, i);
		mode = graph_git_entry_mode(e);
		name = git_tree_entry_name(e);
		if (mode == 040000 &&
		    graph_tree_is_empty_id(child[i] ? child[i] :
					   git_tree_entry_id(e)->id))
			continue;
		rc = buf_addf(&obj, err, "%o ", mode);
		if (!rc)
			rc = buf_add(&obj, name, strlen(name) + 1, err);
		if (!rc)
			rc = buf_add(&obj, mode == 040000 && child[i] ?
				     (const char *)child[i] :
				     (const char *)git_tree_entry_id(e)->id,
				     20, err);
	}
	if (!rc) {
		grc = git_odb_hash(&id, obj.data ? obj.data : "", obj.len,
				   GIT_OBJECT_TREE);
		if (grc < 0)
			rc = error_set(err, ERROR_INTERNAL, "hashing a tree: "
				       "libgit2 error %d", grc);
		else
			memcpy(out, id.id, 20);
	}
	buf_release(&obj);
	return rc;
}

/*
 * A prefix at or below a submodule or a folder link names nothing in the
 * tree, yet the set reads the submodule's checkout or the linked folder
 * there: walk the folder of the gitlink or link instead (walk_entry
 * claims it). Then the root comes first when it is one of them, as
 * walk_roots expects.
 */
void
graph_source_opaque_parents(const struct pattern_set *set, git_tree *root,
			    struct strv *pre)
{
	git_tree_entry *e = NULL;
	size_t i, len;
	int root_too = 0;

	for (i = 0; i < pre->n; i++) {
		if (!pre->v[i][0])
			continue;
		/* The common case, a folder there: one lookup. */
		if (git_tree_entry_bypath(&e, root, pre->v[i]) == 0) {
			len = graph_git_entry_mode(e) == 040000;
			git_tree_entry_free(e);
			if (len)
				continue;
		}
		if (!graph_git_opaque_at_or_above(root, pre->v[i], &e, &len))
			continue;
		git_tree_entry_free(e);
		pre->v[i][len] = '\0';
		if (!pattern_set_claims_opaque(set, pre->v[i]))
			continue;	/* excluded: nothing to read there */
		while (len > 0 && pre->v[i][len] != '/')
			len--;
		pre->v[i][len] = '\0';	/* its folder */
		root_too |= !len;
	}
	if (root_too)
		strv_sort_unique(pre);	/* "" first */
}

/* Compare directory paths as git orders trees: as if each ended in "/". */
static int
cmp_dir(const void *a, const void *b)
{
	const unsigned char *x = *(const unsigned char *const *)a;
	const unsigned char *y = *(const unsigned char *const *)b;
	unsigned cx, cy;

	for (;; x++, y++) {
		cx = *x ? *x : '/';
		cy = *y ? *y : '/';
		if (cx != cy)
			return cx < cy ? -1 : 1;
		if (!*x || !*y)
			return !*x && !*y ? 0 : (!*x ? -1 : 1);
	}
}

static int
is_under(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(p, dir, n) && p[n] == '/';
}

void
graph_source_outer_prefixes(struct strv *pre)
{
	size_t i, j;

	/* Order as trees order, where everything under a directory follows
	 * it at once; then drop each prefix under the last one kept (one
	 * pass: a set may have 50,000 prefixes). */
	qsort(pre->v, pre->n, sizeof(*pre->v), cmp_dir);
	for (i = j = 0; i < pre->n; i++) {
		if (j && is_under(pre->v[i], pre->v[j - 1]))
			mem_free(pre->v[i]);
		else
			pre->v[j++] = pre->v[i];
	}
	pre->n = j;
	if (pre->v)
		pre->v[j] = NULL;
}
