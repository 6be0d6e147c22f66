/*
 * Changed paths for the planner: tree to tree and tree to working tree,
 * without rename folding (a rename is a delete and an add).
 */
#include "graph/repo_git.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

static int
cmp_change(const void *a, const void *b)
{
	return strcmp(((const struct graph_change *)a)->path,
		      ((const struct graph_change *)b)->path);
}

static int
collect(git_diff *diff, struct graph_change_list *out, struct error *err)
{
	size_t i, n = git_diff_num_deltas(diff);
	const git_diff_delta *d;
	struct graph_change *c;

	if (!n)
		return 0;
	out->items = mem_calloc(n, sizeof(*out->items));
	if (!out->items)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		d = git_diff_get_delta(diff, i);
		c = &out->items[out->n];
		switch (d->status) {
		case GIT_DELTA_ADDED:
		case GIT_DELTA_UNTRACKED:
			c->status = GRAPH_CHANGE_ADDED;
			break;
		case GIT_DELTA_DELETED:
			c->status = GRAPH_CHANGE_DELETED;
			break;
		case GIT_DELTA_MODIFIED:
			c->status = GRAPH_CHANGE_MODIFIED;
			break;
		case GIT_DELTA_TYPECHANGE:
			c->status = GRAPH_CHANGE_TYPECHANGE;
			break;
		default:
			continue;	/* unmodified, ignored, unreadable */
		}
		c->old_mode = c->status == GRAPH_CHANGE_ADDED ? 0 :
			(unsigned)d->old_file.mode;
		c->new_mode = c->status == GRAPH_CHANGE_DELETED ? 0 :
			(unsigned)d->new_file.mode;
		c->path = mem_strdup(c->status == GRAPH_CHANGE_DELETED ?
				     d->old_file.path : d->new_file.path);
		if (!c->path)
			return error_set(err, ERROR_NOMEM, "out of memory");
		out->n++;
	}
	qsort(out->items, out->n, sizeof(*out->items), cmp_change);
	return 0;
}

static void
diff_options(git_diff_options *o, int worktree)
{
	git_diff_options_init(o, GIT_DIFF_OPTIONS_VERSION);
	o->flags = GIT_DIFF_INCLUDE_TYPECHANGE | GIT_DIFF_SKIP_BINARY_CHECK;
	if (worktree)
		o->flags |= GIT_DIFF_INCLUDE_UNTRACKED |
			GIT_DIFF_RECURSE_UNTRACKED_DIRS;
	o->context_lines = 0;
}

/*
 * Tree-to-tree diff by hand: git's trees are a Merkle tree, so two
 * subtrees with one id are skipped whole and only trees whose ids differ
 * are read. libgit2's git_diff_tree_to_tree read every tree of a 100k-file
 * repository (38 ms against git's 3 ms in bench/plan_bench.sh).
 */
struct tdiff {
	struct graph_repo *repo;
	struct graph_change_list *out;
	size_t cap;
	struct buf path;
	int raw;	/* 1: entries compared by raw mode, reported with
			   graph_git_entry_mode (graph_git_diff_at) */
};

static unsigned
mode_of(const struct tdiff *t, const git_tree_entry *e)
{
	if (!e)
		return 0;
	return t->raw ? graph_git_entry_mode(e)
		      : (unsigned)git_tree_entry_filemode(e);
}

/* A change of the entry at t->path: x the old entry, y the new, either
 * NULL on its missing side. */
static int
add_change(struct tdiff *t, enum graph_change_status status,
	   const git_tree_entry *x, const git_tree_entry *y,
	   struct error *err)
{
	struct graph_change *c;

	if (t->out->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct graph_change *v = mem_realloc(t->out->items,
						     cap * sizeof(*v));

		if (!v)
			return error_set(err, ERROR_NOMEM, "out of memory");
		t->out->items = v;
		t->cap = cap;
	}
	c = &t->out->items[t->out->n];
	c->path = mem_strdup(t->path.data);
	if (!c->path)
		return error_set(err, ERROR_NOMEM, "out of memory");
	c->status = status;
	c->old_mode = mode_of(t, x);
	c->new_mode = mode_of(t, y);
	memset(&c->old_id, 0, sizeof(c->old_id));
	memset(&c->new_id, 0, sizeof(c->new_id));
	if (x)
		memcpy(c->old_id.id, git_tree_entry_id(x)->id, 20);
	if (y)
		memcpy(c->new_id.id, git_tree_entry_id(y)->id, 20);
	t->out->n++;
	return 0;
}

static int
is_tree(const git_tree_entry *e)
{
	return git_tree_entry_type(e) == GIT_OBJECT_TREE;
}

/* Byte order of names, a tree's name read as if it ended in '/' (git's). */
static int
entry_cmp(const git_tree_entry *x, const git_tree_entry *y)
{
	const char *a = git_tree_entry_name(x), *b = git_tree_entry_name(y);
	size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;
	int c = memcmp(a, b, n);
	unsigned char ca, cb;

	if (c)
		return c;
	ca = la > n ? (unsigned char)a[n] : is_tree(x) ? '/' : 0;
	cb = lb > n ? (unsigned char)b[n] : is_tree(y) ? '/' : 0;
	return ca < cb ? -1 : ca > cb;
}

static int diff_trees(struct tdiff *t, git_tree *a, git_tree *b,
		      struct error *err);

static int
enter(struct tdiff *t, const git_tree_entry *e, size_t *len,
      struct error *err)
{
	*len = t->path.len;
	if (t->path.len && buf_addch(&t->path, '/', err))
		return ERROR_NOMEM;
	return buf_addstr(&t->path, git_tree_entry_name(e), err);
}

static void
leave(struct tdiff *t, size_t len)
{
	t->path.len = len;
	t->path.data[len] = '\0';
}

static int
lookup_tree(struct tdiff *t, const git_tree_entry *e, git_tree **out,
	    struct error *err)
{
	int grc = git_tree_lookup(out, graph_repo_git(t->repo),
				  git_tree_entry_id(e));

	return grc < 0 ? graph_repo_git_error(t->repo, grc, err,
					      "reading a tree") : 0;
}

/* Every file under (or at) a one-sided entry, added or deleted. */
static int
one_side(struct tdiff *t, const git_tree_entry *e, int added,
	 struct error *err)
{
	git_tree *tree = NULL;
	size_t len;
	int rc = enter(t, e, &len, err);

	if (rc)
		return rc;
	if (!is_tree(e)) {
		rc = add_change(t, added ? GRAPH_CHANGE_ADDED
					 : GRAPH_CHANGE_DELETED,
				added ? NULL : e, added ? e : NULL, err);
	} else {
		rc = lookup_tree(t, e, &tree, err);
		if (!rc)
			rc = added ? diff_trees(t, NULL, tree, err)
				   : diff_trees(t, tree, NULL, err);
		git_tree_free(tree);
	}
	leave(t, len);
	return rc;
}

static int
both_sides(struct tdiff *t, const git_tree_entry *x, const git_tree_entry *y,
	   struct error *err)
{
	unsigned mx = t->raw ? (unsigned)git_tree_entry_filemode_raw(x)
			     : (unsigned)git_tree_entry_filemode(x);
	unsigned my = t->raw ? (unsigned)git_tree_entry_filemode_raw(y)
			     : (unsigned)git_tree_entry_filemode(y);
	git_tree *a = NULL, *b = NULL;
	size_t len;
	int rc;

	if (mx == my && git_oid_equal(git_tree_entry_id(x),
				      git_tree_entry_id(y)))
		return 0;	/* the same subtree or file: skip it whole */
	rc = enter(t, y, &len, err);
	if (rc)
		return rc;
	if (is_tree(x)) {
		rc = lookup_tree(t, x, &a, err);
		if (!rc)
			rc = lookup_tree(t, y, &b, err);
		if (!rc)
			rc = diff_trees(t, a, b, err);
	} else {
		rc = add_change(t, (mx & 0170000) == (my & 0170000)
					   ? GRAPH_CHANGE_MODIFIED
					   : GRAPH_CHANGE_TYPECHANGE,
				x, y, err);
	}
	git_tree_free(b);
	git_tree_free(a);
	leave(t, len);
	return rc;
}

static int
diff_trees(struct tdiff *t, git_tree *a, git_tree *b, struct error *err)
{
	size_t na = a ? git_tree_entrycount(a) : 0;
	size_t nb = b ? git_tree_entrycount(b) : 0;
	size_t i = 0, j = 0;
	int rc = 0;

	while (!rc && (i < na || j < nb)) {
		const git_tree_entry *x = i < na ? git_tree_entry_byindex(a, i)
						 : NULL;
		const git_tree_entry *y = j < nb ? git_tree_entry_byindex(b, j)
						 : NULL;
		int c = !x ? 1 : !y ? -1 : entry_cmp(x, y);

		if (c < 0) {
			rc = one_side(t, x, 0, err);
			i++;
		} else if (c > 0) {
			rc = one_side(t, y, 1, err);
			j++;
		} else {
			rc = both_sides(t, x, y, err);
			i++;
			j++;
		}
	}
	return rc;
}

int
graph_repo_diff_paths(struct graph_repo *repo, const struct graph_oid *base,
		      const struct graph_oid *head,
		      struct graph_change_list *out, struct error *err)
{
	struct tdiff t = { repo, out, 0, BUF_INIT, 0 };
	git_tree *a = NULL, *b = NULL;
	int rc;

	out->items = NULL;
	out->n = 0;
	rc = graph_repo_commit_tree(repo, base, &a, err);
	if (!rc)
		rc = graph_repo_commit_tree(repo, head, &b, err);
	if (!rc)
		rc = diff_trees(&t, a, b, err);
	if (!rc && out->n > 1)
		qsort(out->items, out->n, sizeof(*out->items), cmp_change);
	if (rc)
		graph_change_list_release(out);
	buf_release(&t.path);
	git_tree_free(b);
	git_tree_free(a);
	return rc;
}

int
graph_git_diff_at(struct graph_repo *repo, git_tree *a, git_tree *b,
		  const char *path, struct graph_change_list *out,
		  struct error *err)
{
	struct tdiff t = { repo, out, out->n, BUF_INIT, 1 };
	git_tree_entry *x = NULL, *y = NULL;
	const char *slash = strrchr(path, '/');
	int rc = 0, grc;

	if (!path[0]) {
		rc = diff_trees(&t, a, b, err);
		goto done;
	}
	grc = git_tree_entry_bypath(&x, a, path);
	if (grc < 0 && grc != GIT_ENOTFOUND) {
		rc = graph_repo_git_error(repo, grc, err, "reading a tree");
		goto done;
	}
	grc = git_tree_entry_bypath(&y, b, path);
	if (grc < 0 && grc != GIT_ENOTFOUND) {
		rc = graph_repo_git_error(repo, grc, err, "reading a tree");
		goto done;
	}
	/* enter() appends the entry's own name to its folder's path. */
	if (slash)
		rc = buf_add(&t.path, path, (size_t)(slash - path), err);
	if (!rc && x && y)
		rc = both_sides(&t, x, y, err);
	else if (!rc && (x || y))
		rc = one_side(&t, x ? x : y, !x, err);
done:
	buf_release(&t.path);
	git_tree_entry_free(y);
	git_tree_entry_free(x);
	return rc;
}

int
graph_repo_diff_worktree_paths(struct graph_repo *repo,
			       const struct graph_oid *base,
			       struct graph_change_list *out,
			       struct error *err)
{
	git_tree *a = NULL;
	git_diff *diff = NULL;
	git_diff_options o;
	int rc, grc;

	out->items = NULL;
	out->n = 0;
	rc = graph_repo_commit_tree(repo, base, &a, err);
	if (rc)
		goto done;
	diff_options(&o, 1);
	grc = git_diff_tree_to_workdir_with_index(&diff, graph_repo_git(repo),
						  a, &o);
	if (grc < 0) {
		rc = graph_repo_git_error(repo, grc, err,
					  "diffing the working tree");
		goto done;
	}
	rc = collect(diff, out, err);
done:
	if (rc)
		graph_change_list_release(out);
	git_diff_free(diff);
	git_tree_free(a);
	return rc;
}

void
graph_change_list_release(struct graph_change_list *list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->n; i++)
		mem_free(list->items[i].path);
	mem_free(list->items);
	list->items = NULL;
	list->n = 0;
}
