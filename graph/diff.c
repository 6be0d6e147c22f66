/*
 * Changed paths for the planner: tree to tree and tree to working tree,
 * without rename folding (a rename is a delete and an add).
 */
#include "graph/repo_git.h"

#include <stdlib.h>
#include <string.h>

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

int
graph_repo_diff_paths(struct graph_repo *repo, const struct graph_oid *base,
		      const struct graph_oid *head,
		      struct graph_change_list *out, struct error *err)
{
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	git_diff_options o;
	int rc, grc;

	out->items = NULL;
	out->n = 0;
	rc = graph_repo_commit_tree(repo, base, &a, err);
	if (rc)
		goto done;
	rc = graph_repo_commit_tree(repo, head, &b, err);
	if (rc)
		goto done;
	diff_options(&o, 0);
	grc = git_diff_tree_to_tree(&diff, graph_repo_git(repo), a, b, &o);
	if (grc < 0) {
		rc = graph_repo_git_error(repo, grc, err, "diffing trees");
		goto done;
	}
	rc = collect(diff, out, err);
done:
	if (rc)
		graph_change_list_release(out);
	git_diff_free(diff);
	git_tree_free(b);
	git_tree_free(a);
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
