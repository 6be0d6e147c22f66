/*
 * Claimed inputs the working tree changed: each input's state at the
 * commit against its state in the working tree, compared file by file.
 * A clean tree (git status empty) is answered without reading any state.
 * And the committed links that a checkout without links holds as files.
 */
#include "engine/plan/dirty.h"

#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fsys.h"
#include "base/mem.h"
#include "base/strv.h"
#include "engine/plan/eval.h"
#include "engine/plan/filediff.h"
#include "engine/plan/plan.h"
#include "graph/graph.h"
#include "graph/repo.h"
#include "graph/source.h"
#include "base/banned.h"

/* Append the files of one input that differ between st and wst. */
static int
input_changes(const struct graph_input *in,
	      const struct graph_source_state *st,
	      const struct graph_source_state *wst, struct strv *paths,
	      struct error *err)
{
	struct filediff_entry *o = NULL, *n = NULL;
	struct plan_file_diff *d = NULL;
	size_t no = 0, nn = 0, nd = 0, i;
	struct arena a;
	int rc;

	arena_init(&a);
	rc = filediff_from_state(&a, st, &o, &no, err);
	if (!rc)
		rc = filediff_from_state(&a, wst, &n, &nn, err);
	if (!rc)
		rc = filediff_compare(&a, o, no, n, nn, &d, &nd, err);
	for (i = 0; !rc && i < nd; i++)
		rc = strv_push(paths, d[i].path, err);
	if (!rc && !nd) {
		char *what = arena_printf(&a, "input %s", in->name);

		rc = what ? strv_push(paths, what, err)
			  : error_set(err, ERROR_NOMEM, "out of memory");
	}
	arena_release(&a);
	return rc;
}

int
plan_dirty_inputs(struct eval *ev, const unsigned char *mask,
		  struct strv *paths, struct error *err)
{
	const struct graph *g = ev->graph;
	struct graph_change_list ch = { NULL, 0 };
	struct graph_worktree *wt = NULL;
	struct strv seen = STRV_INIT;
	size_t i, k;
	int rc;

	rc = graph_repo_diff_worktree_paths(ev->repo, &ev->commit, &ch, err);
	if (rc || !ch.n)
		goto done;
	rc = graph_worktree_read(ev->repo, &wt, err);
	for (i = 0; !rc && i < g->n_nodes; i++) {
		if (!mask[i])
			continue;
		for (k = 0; !rc && k < g->nodes[i].n_inputs; k++) {
			const struct graph_input *in = &g->nodes[i].inputs[k];
			const struct graph_source_state *st;
			const struct pattern_set *set;
			struct graph_source_state wst;

			if (strv_find(&seen, in->name) >= 0)
				continue;
			rc = strv_push(&seen, in->name, err);
			if (!rc)
				rc = eval_input_state(ev, in, &st, err);
			if (!rc)
				rc = eval_input_patterns(ev, in, &set, err);
			if (rc)
				break;
			memset(&wst, 0, sizeof(wst));
			arena_init(&wst.arena);
			rc = graph_source_compute_worktree(wt, set, &wst, err);
			if (!rc && memcmp(st->key, wst.key, sizeof(st->key)))
				rc = input_changes(in, st, &wst, paths, err);
			graph_source_state_release(&wst);
		}
	}
	if (!rc)
		strv_sort_unique(paths);
done:
	strv_release(&seen);
	graph_worktree_free(wt);
	graph_change_list_release(&ch);
	return rc;
}

/* Append the links of state st that are regular files on disk. */
static int
state_link_files(struct eval *ev, const struct graph_source_state *st,
		 struct buf *full, struct strv *paths, struct error *err)
{
	size_t f;
	int rc = 0;

	for (f = 0; !rc && f < st->n_files; f++) {
		const struct graph_source_file *sf = &st->files[f];
		struct fsys_stat sb;

		if (sf->mode != 0120000)
			continue;
		buf_reset(full);
		rc = buf_addf(full, err, "%s/%s", graph_repo_root(ev->repo),
			      sf->path);
		if (!rc && !fsys_lstat(full->data, &sb) &&
		    sb.kind == FSYS_REG)
			rc = strv_push(paths, sf->path, err);
	}
	return rc;
}

int
plan_link_files(struct eval *ev, const unsigned char *mask,
		struct strv *paths, struct error *err)
{
	const struct graph *g = ev->graph;
	struct strv seen = STRV_INIT;
	struct buf full = BUF_INIT;
	size_t i, k;
	int rc = 0;

	for (i = 0; !rc && i < g->n_nodes; i++) {
		if (!mask[i])
			continue;
		for (k = 0; !rc && k < g->nodes[i].n_inputs; k++) {
			const struct graph_input *in = &g->nodes[i].inputs[k];
			const struct graph_source_state *st;

			if (strv_find(&seen, in->name) >= 0)
				continue;
			rc = strv_push(&seen, in->name, err);
			if (!rc)
				rc = eval_input_state(ev, in, &st, err);
			if (!rc)
				rc = state_link_files(ev, st, &full, paths,
						      err);
		}
	}
	if (!rc)
		strv_sort_unique(paths);
	buf_release(&full);
	strv_release(&seen);
	return rc;
}
