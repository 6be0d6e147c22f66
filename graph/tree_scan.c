/*
 * What lies below a tree, for the key-only walk (graph/tree.c): whether a
 * symlink does, how deep its folders go, and its canonical id. Worked out
 * from the trees' entries alone, remembered per process by tree id, and
 * kept beyond it by the cache's store (struct graph_scan_store), which a
 * full walk fills too: a folder that a later commit changed is then read
 * again only where its subtrees' ids changed.
 */
#include "graph/tree_int.h"

#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

void
graph_source_cache_set_store(struct graph_source_cache *c,
			     const struct graph_scan_store *store)
{
	if (c)
		c->store = store;
}

int
graph_tree_too_deep(struct walk *w)
{
	return error_set(w->err, ERROR_INVALID, "tree too deep: folders nest "
			 "more than %d deep under '%.200s'", GRAPH_MAX_TREE_DEPTH,
			 w->path.data ? w->path.data : "");
}

/* Remember `s`, a scan of tree `hex`, for the process: *out is the copy
 * kept (the one already there when another walk got it first). */
static int
keep(struct walk *w, const char *hex, const struct graph_tree_scan *s,
     const struct graph_tree_scan **out)
{
	struct graph_tree_scan *copy;
	char *key;

	*out = strmap_get(&w->cache->links, hex);
	if (*out)
		return 0;
	copy = arena_alloc(&w->cache->arena, sizeof(*copy));
	key = arena_strdup(&w->cache->arena, hex);
	if (!copy || !key)
		return error_set(w->err, ERROR_NOMEM, "out of memory");
	*copy = *s;
	*out = copy;
	return strmap_put(&w->cache->links, key, copy, w->err);
}

/* A scan from the store, if it has one that holds. */
static int
stored(struct walk *w, const git_oid *id, struct graph_tree_scan *s)
{
	const struct graph_scan_store *st = w->cache->store;

	memset(s, 0, sizeof(*s));
	if (!st || st->get(st->ctx, id->id, s) != 1)
		return 0;
	return !s->links && s->height >= 0 &&
	       s->height < GRAPH_MAX_TREE_DEPTH;
}

/*
 * Only link-free scans go to the store: a scan stops at the first link,
 * so a tree with one has no whole height, and the walk reads it entry by
 * entry anyway.
 */
static void
tell(struct walk *w, const git_oid *id, const struct graph_tree_scan *s)
{
	const struct graph_scan_store *st = w->cache->store;

	if (st && !s->links)
		st->put(st->ctx, id->id, s);
}

/* The scan of tree t (id) from its entries and its subtrees' scans. */
static int
scan_entries(struct walk *w, git_tree *t, const git_oid *id, int depth,
	     struct graph_tree_scan *s)
{
	const unsigned char **child = NULL;
	const struct graph_tree_scan *sub;
	const git_tree_entry *e;
	size_t i, n = git_tree_entrycount(t);
	int rc = 0, odd = 0;

	memset(s, 0, sizeof(*s));
	for (i = 0; !rc && !s->links && i < n; i++) {
		e = git_tree_entry_byindex(t, i);
		odd |= (unsigned)git_tree_entry_filemode_raw(e) !=
			graph_git_entry_mode(e);
		switch (graph_git_entry_mode(e)) {
		case GIT_FILEMODE_LINK:
			s->links = 1;
			break;
		case GIT_FILEMODE_TREE:
			rc = graph_tree_scan_links(w, git_tree_entry_id(e),
						   depth + 1, &sub);
			if (!rc) {
				s->links = sub->links;
				if (sub->height >= s->height)
					s->height = sub->height + 1;
				odd |= memcmp(sub->canon,
					      git_tree_entry_id(e)->id, 20) ||
				       graph_tree_is_empty_id(sub->canon);
			}
			break;
		default:
			break;
		}
	}
	if (rc || s->links)
		return rc;
	if (!odd) {
		memcpy(s->canon, id->id, 20);	/* as git would write it */
		return 0;
	}
	/* Rare: the subtrees' answers, remembered, then a new hash. */
	child = mem_calloc(n, sizeof(*child));
	if (!child)
		return error_set(w->err, ERROR_NOMEM, "out of memory");
	for (i = 0; !rc && i < n; i++) {
		e = git_tree_entry_byindex(t, i);
		if (graph_git_entry_mode(e) != GIT_FILEMODE_TREE)
			continue;
		rc = graph_tree_scan_links(w, git_tree_entry_id(e), depth + 1,
					   &sub);
		if (!rc)
			child[i] = sub->canon;
	}
	if (!rc)
		rc = graph_tree_canonical_id(t, child, s->canon, w->err);
	mem_free(child);
	return rc;
}

int
graph_tree_scan_links(struct walk *w, const git_oid *id, int depth,
		      const struct graph_tree_scan **out)
{
	char hex[GRAPH_OID_HEX];
	struct graph_tree_scan s;
	git_tree *t = NULL;
	int rc, grc;

	git_oid_tostr(hex, sizeof(hex), id);
	*out = strmap_get(&w->cache->links, hex);
	if (!*out && stored(w, id, &s)) {
		rc = keep(w, hex, &s, out);
		if (rc)
			return rc;
	}
	if (depth + (*out ? (*out)->height : 0) >= GRAPH_MAX_TREE_DEPTH)
		return graph_tree_too_deep(w);
	if (*out)
		return 0;
	grc = git_tree_lookup(&t, graph_repo_git(w->repo), id);
	if (grc < 0)
		return graph_repo_git_error(w->repo, grc, w->err,
					    "reading a tree");
	rc = scan_entries(w, t, id, depth, &s);
	git_tree_free(t);
	if (!rc)
		rc = keep(w, hex, &s, out);
	if (!rc)
		tell(w, id, &s);
	return rc;
}

int
graph_tree_scan_walked(struct walk *w, const git_oid *id,
		       const struct memo_node *m)
{
	char hex[GRAPH_OID_HEX];
	const struct graph_tree_scan *kept;
	struct graph_tree_scan s;
	int rc;

	if (m->links)
		return 0;	/* a scan would stop at the first (tell) */
	git_oid_tostr(hex, sizeof(hex), id);
	if (strmap_get(&w->cache->links, hex))
		return 0;	/* scanned, and told, already */
	memset(&s, 0, sizeof(s));
	s.height = m->height;
	memcpy(s.canon, m->tree, 20);	/* canonical(): the same id */
	rc = keep(w, hex, &s, &kept);
	if (!rc)
		tell(w, id, &s);
	return rc;
}
