/*
 * Source sets at a commit: a walk of the commit's tree that enters only
 * subtrees the pattern set may claim, memoized per (tree id, directory,
 * pattern digest) so a later commit re-reads only subtrees whose ids
 * changed. Depth-first in tree order yields paths in byte order.
 */
#include "graph/tree_int.h"

#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/strv.h"
#include "graph/pattern.h"
#include "base/banned.h"

struct graph_source_cache *
graph_source_cache_new(void)
{
	struct graph_source_cache *c = mem_calloc(1, sizeof(*c));

	if (c)
		arena_init(&c->arena);	/* links: zeroed, an empty map */
	return c;
}

void
graph_source_cache_free(struct graph_source_cache *c)
{
	if (!c)
		return;
	mem_free(c->slots);
	strmap_release(&c->links);
	arena_release(&c->arena);
	mem_free(c);
}

void
graph_source_cache_stats(const struct graph_source_cache *c, size_t *hits,
			 size_t *misses)
{
	*hits = c ? c->hits : 0;
	*misses = c ? c->misses : 0;
}

static size_t
slot_of(const unsigned char k[16], size_t cap)
{
	size_t h;

	memcpy(&h, k, sizeof(h));
	return h & (cap - 1);
}

static struct memo_node *
memo_get(struct graph_source_cache *c, const unsigned char k[16])
{
	size_t i;

	if (!c->cap)
		return NULL;
	for (i = slot_of(k, c->cap); c->slots[i]; i = (i + 1) & (c->cap - 1))
		if (!memcmp(c->slots[i]->k, k, 16))
			return c->slots[i];
	return NULL;
}

static int
memo_put(struct graph_source_cache *c, struct memo_node *m)
{
	struct memo_node **old = c->slots;
	size_t oldcap = c->cap, i, j;

	if ((c->used + 1) * 2 > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;

		c->slots = mem_calloc(cap, sizeof(*c->slots));
		if (!c->slots) {
			c->slots = old;
			return ERROR_NOMEM;
		}
		c->cap = cap;
		for (i = 0; i < oldcap; i++) {
			if (!old[i])
				continue;
			for (j = slot_of(old[i]->k, cap); c->slots[j];
			     j = (j + 1) & (cap - 1))
				;
			c->slots[j] = old[i];
		}
		mem_free(old);
	}
	for (i = slot_of(m->k, c->cap); c->slots[i];
	     i = (i + 1) & (c->cap - 1))
		;
	c->slots[i] = m;
	c->used++;
	return 0;
}

static void
memo_key(const git_oid *tree, const char *dir, size_t dirlen,
	 const unsigned char digest[16], int key_only, unsigned char k[16])
{
	XXH3_state_t h;
	XXH128_canonical_t c;

	XXH3_128bits_reset(&h);
	XXH3_128bits_update(&h, key_only ? "ripple-memo-v2k" : "ripple-memo-v2",
			    key_only ? 16 : 15);
	XXH3_128bits_update(&h, tree->id, 20);
	XXH3_128bits_update(&h, digest, 16);
	XXH3_128bits_update(&h, dir, dirlen);
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&h));
	memcpy(k, c.digest, 16);
}

static int walk_tree(struct walk *w, git_tree *tree, struct memo_node **out);

/* A folder claimed whole with no symlink below: its marker alone, with
 * its canonical id. */
static int
folder_only(struct walk *w, const unsigned char id[20],
	    struct memo_node **out)
{
	struct memo_node *m = arena_alloc(&w->cache->arena, sizeof(*m));

	if (!m)
		return error_set(w->err, ERROR_NOMEM, "out of memory");
	memset(m, 0, sizeof(*m));
	m->marker = 1;
	m->total = 1;
	m->dir = arena_strndup(&w->cache->arena, w->path.data, w->path.len);
	if (!m->dir)
		return error_set(w->err, ERROR_NOMEM, "out of memory");
	memcpy(m->tree, id, 20);
	if (graph_tree_is_empty_id(id))
		m->marker = m->total = 0;	/* no checkout holds it */
	*out = m;
	return 0;
}

/*
 * Walk the folder at w->path (tree `id`, entry of a walked tree or a
 * prefix) into *out, w->all set for it: with key_only, a link-free folder
 * claimed whole is its marker alone and none of its trees is walked.
 */
static int
walk_folder(struct walk *w, const git_oid *id, struct memo_node **out)
{
	git_tree *sub = NULL;
	const struct graph_tree_scan *s;
	int rc, grc;

	if (w->all && w->key_only) {
		rc = graph_tree_scan_links(w, id, w->depth, &s);
		if (rc)
			return rc;
		if (!s->links)
			return folder_only(w, s->canon, out);
	}
	if (w->depth == GRAPH_MAX_TREE_DEPTH)
		return graph_tree_too_deep(w);
	grc = git_tree_lookup(&sub, graph_repo_git(w->repo), id);
	if (grc < 0)
		return graph_repo_git_error(w->repo, grc, w->err,
					    "reading a tree");
	w->depth++;
	rc = walk_tree(w, sub, out);
	w->depth--;
	git_tree_free(sub);
	return rc;
}

static int
walk_entry(struct walk *w, const git_tree_entry *e, struct memo_item *it,
	   int *keep)
{
	unsigned mode = graph_git_entry_mode(e);
	int rc = 0;

	*keep = 0;
	if (mode == GIT_FILEMODE_TREE) {
		int was_all = w->all;

		if (!was_all && !pattern_set_may_match_dir(w->set,
							   w->path.data))
			return 0;
		w->all = was_all ||
			 pattern_set_claims_all_below(w->set, w->path.data);
		rc = walk_folder(w, git_tree_entry_id(e), &it->child);
		w->all = was_all;
		*keep = !rc && it->child->total > 0;
		return rc;
	}
	if (!w->all && !(mode == GIT_FILEMODE_COMMIT ||
			 mode == GIT_FILEMODE_LINK ?
			 pattern_set_claims_opaque(w->set, w->path.data) :
			 pattern_set_match(w->set, w->path.data)))
		return 0;
	it->child = NULL;
	it->file.path = arena_strndup(&w->cache->arena, w->path.data,
				      w->path.len);
	if (!it->file.path)
		return error_set(w->err, ERROR_NOMEM, "out of memory");
	it->file.mode = (unsigned)mode;
	memcpy(it->file.oid, git_tree_entry_id(e)->id, 20);
	*keep = 1;
	return 0;
}

/* The last component of item it's path. */
static const char *
item_name(const struct memo_item *it)
{
	const char *p = it->child ? it->child->dir : it->file.path;
	const char *slash = strrchr(p, '/');

	return slash ? slash + 1 : p;
}

/*
 * The marker of m, a folder claimed whole (every entry of tree kept, in
 * order, each folder a marker, but the empty ones, left out), gets the
 * canonical id (graph_tree_canonical_id) in place of the tree's own; an
 * empty one is no record at all, as no checkout holds it.
 */
static int
canonical(struct walk *w, git_tree *tree, struct memo_node *m)
{
	size_t i, j, n = git_tree_entrycount(tree);
	const unsigned char **child;
	const git_tree_entry *e;
	int rc;

	/* The common case: nothing left out, every mode and id as git
	 * writes them. */
	for (i = 0; m->n == n && i < n; i++) {
		e = git_tree_entry_byindex(tree, i);
		if ((unsigned)git_tree_entry_filemode_raw(e) !=
		    graph_git_entry_mode(e) ||
		    (m->items[i].child &&
		     (memcmp(m->items[i].child->tree, git_tree_entry_id(e)->id,
			     20) || graph_tree_is_empty_id(
				     m->items[i].child->tree))))
			break;
	}
	if (m->n == n && i == n) {
		memcpy(m->tree, git_tree_id(tree)->id, 20);
		if (!n)
			m->marker = m->total = 0;	/* empty */
		return 0;
	}
	child = n ? mem_calloc(n, sizeof(*child)) : NULL;
	if (n && !child)
		return error_set(w->err, ERROR_NOMEM, "out of memory");
	for (i = j = 0; i < n; i++) {
		const char *name = git_tree_entry_name(
			git_tree_entry_byindex(tree, i));

		if (j < m->n && !strcmp(item_name(&m->items[j]), name))
			child[i] = m->items[j].child ?
				m->items[j++].child->tree : (j++, NULL);
		else
			child[i] = graph_tree_empty_id();	/* left out */
	}
	rc = graph_tree_canonical_id(tree, child, m->tree, w->err);
	mem_free(child);
	if (!rc && graph_tree_is_empty_id(m->tree))
		m->marker = m->total = 0;
	return rc;
}

/*
 * What entry e of a folder claimed whole adds to m's links and height
 * (it: its item, walked; every entry of such a folder is, the empty
 * folders too, kept or not), as graph_tree_scan_links counts them.
 */
static void
below(struct memo_node *m, const git_tree_entry *e, const struct memo_item *it)
{
	switch (graph_git_entry_mode(e)) {
	case GIT_FILEMODE_LINK:
		m->links = 1;
		break;
	case GIT_FILEMODE_TREE:
		m->links |= it->child->links;
		if (it->child->height >= m->height)
			m->height = it->child->height + 1;
		break;
	default:
		break;
	}
}

static int
walk_tree(struct walk *w, git_tree *tree, struct memo_node **out)
{
	struct memo_node *m;
	struct memo_item *items = NULL;
	size_t i, n = git_tree_entrycount(tree), base = w->path.len, kept = 0;
	unsigned char k[16];
	const git_tree_entry *e;
	const char *name;
	int rc = 0, keep;

	memo_key(git_tree_id(tree), w->path.data, w->path.len,
		 pattern_set_digest(w->set), w->key_only, k);
	m = memo_get(w->cache, k);
	if (m) {
		w->cache->hits++;
		*out = m;
		return 0;
	}
	w->cache->misses++;
	m = arena_alloc(&w->cache->arena, sizeof(*m));
	if (n)
		items = arena_alloc(&w->cache->arena, n * sizeof(*items));
	if (!m || (n && !items))
		return error_set(w->err, ERROR_NOMEM, "out of memory");
	memset(m, 0, sizeof(*m));
	memcpy(m->k, k, 16);
	if (w->all) {
		m->marker = 1;
		m->total = 1;
		m->dir = arena_strndup(&w->cache->arena, w->path.data,
				       w->path.len);
		if (!m->dir)
			return error_set(w->err, ERROR_NOMEM, "out of memory");
		memcpy(m->tree, git_tree_id(tree)->id, 20);
	}
	for (i = 0; i < n; i++) {
		e = git_tree_entry_byindex(tree, i);
		name = git_tree_entry_name(e);
		if (base)
			rc = buf_addch(&w->path, '/', w->err);
		if (!rc)
			rc = buf_addstr(&w->path, name, w->err);
		if (!rc)
			rc = walk_entry(w, e, &items[kept], &keep);
		w->path.len = base;
		w->path.data[base] = '\0';
		if (rc)
			return rc;
		if (w->all)
			below(m, e, &items[kept]);
		if (keep) {
			m->total += items[kept].child ?
				items[kept].child->total : 1;
			kept++;
		}
	}
	m->items = items;
	m->n = kept;
	if (w->all) {
		rc = canonical(w, tree, m);
		if (!rc)
			rc = graph_tree_scan_walked(w, git_tree_id(tree), m);
		if (rc)
			return rc;
	}
	if (memo_put(w->cache, m))
		return error_set(w->err, ERROR_NOMEM, "out of memory");
	*out = m;
	return 0;
}

static void
flatten(const struct memo_node *m, struct graph_source_raw *v, size_t *n)
{
	size_t i;

	if (m->marker) {
		v[*n].path = m->dir;
		v[*n].mode = 040000;
		memcpy(v[*n].oid, m->tree, 20);
		(*n)++;
	}
	for (i = 0; i < m->n; i++) {
		if (m->items[i].child)
			flatten(m->items[i].child, v, n);
		else
			v[(*n)++] = m->items[i].file;
	}
}

/*
 * The memo nodes to flatten, in path order: the root's, or, when every
 * include pattern has a fixed prefix, one per outermost prefix directory
 * (so a set under "pkg/" never scans the root's other entries).
 */
static int
walk_roots(struct walk *w, git_tree *root, struct memo_node ***nodes,
	   size_t *n_nodes)
{
	struct strv pre = STRV_INIT;
	git_tree_entry *e = NULL;
	size_t i;
	int rc, grc;

	*nodes = NULL;
	*n_nodes = 0;
	rc = pattern_set_prefixes(w->set, &pre, w->err);
	if (!rc)
		graph_source_opaque_parents(w->set, root, &pre);
	if (rc)
		goto done;
	*nodes = mem_calloc(pre.n ? pre.n : 1, sizeof(**nodes));
	if (!*nodes) {
		rc = error_set(w->err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	if (!pre.n || !pre.v[0][0]) {
		rc = walk_tree(w, root, &(*nodes)[0]);
		*n_nodes = rc ? 0 : 1;
		goto done;
	}
	graph_source_outer_prefixes(&pre);
	for (i = 0; i < pre.n; i++) {
		if (!pattern_set_may_match_dir(w->set, pre.v[i]))
			continue;
		grc = git_tree_entry_bypath(&e, root, pre.v[i]);
		if (grc == GIT_ENOTFOUND)
			continue;
		if (grc < 0) {
			rc = graph_repo_git_error(w->repo, grc, w->err,
						  "reading a tree");
			goto done;
		}
		if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
			buf_reset(&w->path);
			rc = buf_addstr(&w->path, pre.v[i], w->err);
			/* A prefix folder is claimed whole as one below it
			 * would be: its marker, as the full walk gives. */
			w->all = pattern_set_claims_all_below(w->set,
							      pre.v[i]);
			if (!rc)
				rc = walk_folder(w, git_tree_entry_id(e),
						 &(*nodes)[*n_nodes]);
			w->all = 0;
			if (rc)
				goto done;
			(*n_nodes)++;
		}
		git_tree_entry_free(e);
		e = NULL;
	}
done:
	git_tree_entry_free(e);
	strv_release(&pre);
	return rc;
}

static int
compute(struct graph_repo *repo, const struct graph_oid *commit,
	const struct pattern_set *set, struct graph_source_cache *cache,
	int key_only, struct graph_source_state *out, struct error *err)
{
	struct graph_source_cache *own = NULL;
	struct walk w;
	struct memo_node **tops = NULL;
	struct graph_source_raw *raw = NULL;
	struct graph_tree_view tv = { repo, NULL };
	struct graph_source_view view;
	size_t n = 0, i, n_tops = 0, total = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	arena_init(&out->arena);
	if (!cache) {
		cache = own = graph_source_cache_new();
		if (!own)
			return error_set(err, ERROR_NOMEM, "out of memory");
	}
	rc = graph_repo_commit_tree(repo, commit, &tv.root, err);
	if (rc)
		goto done;
	graph_tree_view_init(&tv, &view);
	w.repo = repo;
	w.set = set;
	w.cache = cache;
	w.err = err;
	w.all = 0;
	w.key_only = key_only;
	w.depth = 0;
	buf_init(&w.path, 0);
	rc = walk_roots(&w, tv.root, &tops, &n_tops);
	buf_release(&w.path);
	if (rc)
		goto done;
	for (i = 0; i < n_tops; i++)
		total += tops[i]->total;
	if (total) {
		raw = mem_calloc(total, sizeof(*raw));
		if (!raw) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			goto done;
		}
		for (i = 0; i < n_tops; i++)
			flatten(tops[i], raw, &n);
	}
	rc = graph_source_finish(out, raw, n, &view, err);
done:
	mem_free(raw);
	mem_free(tops);
	git_tree_free(tv.root);
	graph_source_cache_free(own);
	return rc;
}

int
graph_source_compute(struct graph_repo *repo, const struct graph_oid *commit,
		     const struct pattern_set *set,
		     struct graph_source_cache *cache,
		     struct graph_source_state *out, struct error *err)
{
	return compute(repo, commit, set, cache, 0, out, err);
}

int
graph_source_compute_key(struct graph_repo *repo,
			 const struct graph_oid *commit,
			 const struct pattern_set *set,
			 struct graph_source_cache *cache,
			 struct graph_source_state *out, struct error *err)
{
	return compute(repo, commit, set, cache, 1, out, err);
}
