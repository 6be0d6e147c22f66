/*
 * Restoring the tracked files actions rewrite, and naming those they
 * modify undeclared (see engine/run/rewrite.h).
 */
#include "engine/run/rewrite.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/file.h"
#include "base/fsys.h"
#include "base/mem.h"
#include "base/strv.h"
#include "engine/plan/eval.h"
#include "engine/plan/plan.h"
#include "graph/graph.h"
#include "graph/outputs.h"
#include "graph/repo.h"
#include "graph/restore.h"
#include "graph/source.h"
#include "base/banned.h"

/* A declared file's content when a --worktree run began. */
struct snapshot {
	const char *path;	/* borrowed from the graph */
	int exists;
	enum file_entry kind;
	struct buf bytes;
};

struct run_rewrites {
	struct graph_tracked *tracked;	/* stat snapshot of tracked files */
	struct strv declared;	/* every rewrites: path of the plan */
	struct strv named;	/* files already blamed on a node */
	struct snapshot *snaps;	/* worktree runs: one per declared path */
	size_t n_snaps;
};

/* Index of s in the sorted vector, or -1 (a binary search). */
static long
find(const struct strv *sv, const char *s)
{
	char **at;

	if (!sv->n)
		return -1;
	at = bsearch(&s, sv->v, sv->n, sizeof(*sv->v), sort_cmp_str);
	return at ? (long)(at - sv->v) : -1;
}

void
run_rewrites_free(struct run_rewrites *rw)
{
	size_t i;

	if (!rw)
		return;
	graph_tracked_free(rw->tracked);
	strv_release(&rw->declared);
	strv_release(&rw->named);
	for (i = 0; i < rw->n_snaps; i++)
		buf_release(&rw->snaps[i].bytes);
	mem_free(rw->snaps);
	mem_free(rw);
}

/* The worktree content of `path` now (a file, a link, or nothing). */
static int
snap(struct eval *ev, const char *path, struct snapshot *s,
     struct error *err)
{
	char full[4096], target[4096];
	struct fsys_stat sb;
	size_t len;
	ssize_t n;
	int fd, rc = 0;

	s->path = path;
	buf_init(&s->bytes, 0);
	snprintf(full, sizeof(full), "%s/%s", graph_repo_root(ev->repo), path);
	if (fsys_lstat(full, &sb))
		return 0;
	s->exists = 1;
	if (sb.kind == FSYS_LNK) {
		s->kind = FILE_ENTRY_LINK;
		if (fsys_readlink(full, target, sizeof(target), &len))
			return error_set(err, ERROR_IO, "cannot read the link "
					 "'%s'", path);
		return buf_add(&s->bytes, target, len, err);
	}
	s->kind = sb.mode & 0100 ? FILE_ENTRY_EXEC : FILE_ENTRY_PLAIN;
	fd = file_open_regular(full, path, err);
	if (fd < 0)
		return fd;
	for (;;) {
		char chunk[65536];

		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = error_set(err, ERROR_IO, "cannot read '%s': %s",
				       path, strerror(errno));
		if (n <= 0 || rc)
			break;
		rc = buf_add(&s->bytes, chunk, (size_t)n, err);
		if (rc)
			break;
	}
	close(fd);
	return rc;
}

int
run_rewrites_begin(struct eval *ev, const struct plan *p,
		   struct run_rewrites **out, struct error *err)
{
	const struct graph *g = ev->graph;
	struct run_rewrites *rw = mem_calloc(1, sizeof(*rw));
	struct strv watch;
	size_t i, k;
	int rc = 0;

	*out = NULL;
	if (!rw)
		return error_set(err, ERROR_NOMEM, "out of memory");
	strv_init(&rw->declared, 1);
	strv_init(&rw->named, 1);
	strv_init(&watch, 1);
	for (i = 0; !rc && i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];

		if (!p->in_closure[i] || (p->items[i].decision != PLAN_BUILD &&
					  p->items[i].decision != PLAN_TEST))
			continue;
		for (k = 0; !rc && k < n->n_rewrites; k++)
			rc = strv_push(&rw->declared, n->rewrites[k], err);
		/* Only what some node to run reads can make a record
		 * wrong: the files its inputs claim. */
		for (k = 0; !rc && k < n->n_inputs; k++) {
			const struct graph_source_state *st;
			size_t f;

			rc = eval_input_state(ev, &n->inputs[k], &st, err);
			for (f = 0; !rc && f < st->n_files; f++)
				rc = strv_push(&watch, st->files[f].path, err);
		}
	}
	strv_sort_unique(&rw->declared);
	strv_sort_unique(&watch);
	if (!rc)
		rc = graph_tracked_snapshot(ev->repo, &watch, &rw->tracked,
					    err);
	strv_release(&watch);
	if (!rc && ev->worktree && rw->declared.n) {
		rw->snaps = mem_calloc(rw->declared.n, sizeof(*rw->snaps));
		if (!rw->snaps)
			rc = error_set(err, ERROR_NOMEM, "out of memory");
		for (i = 0; !rc && i < rw->declared.n; i++) {
			rc = snap(ev, rw->declared.v[i], &rw->snaps[i], err);
			rw->n_snaps = i + 1;
		}
	}
	if (rc) {
		run_rewrites_free(rw);
		return rc;
	}
	*out = rw;
	return 0;
}

static int
restore(struct run_rewrites *rw, struct eval *ev, const char *path,
	struct error *err)
{
	const char *root = graph_repo_root(ev->repo);
	long at;

	if (!ev->worktree)
		return graph_repo_restore_path(ev->repo, &ev->commit, path,
					       err);
	at = find(&rw->declared, path);
	if (at < 0 || (size_t)at >= rw->n_snaps)
		return error_set(err, ERROR_INTERNAL, "no snapshot of '%s'",
				 path);
	if (!rw->snaps[at].exists)
		return file_remove_under(root, path, err);
	return file_replace_under(root, path,
				  rw->snaps[at].bytes.data
				  ? rw->snaps[at].bytes.data : "",
				  rw->snaps[at].bytes.len, rw->snaps[at].kind,
				  err);
}

/* 1 when some node declares `path` among its outputs: a node writes and
 * ripple removes its own outputs, tracked or not. */
static int
an_output(const struct graph *g, const char *path)
{
	size_t i, k;

	for (i = 0; i < g->n_nodes; i++)
		for (k = 0; k < g->nodes[i].n_outputs; k++)
			if (graph_glob_match(g->nodes[i].outputs[k], path))
				return 1;
	return 0;
}

int
run_rewrites_end(struct run_rewrites *rw, struct eval *ev, size_t node,
		 char *msg, size_t msg_size, struct error *err)
{
	const struct graph_node *n = &ev->graph->nodes[node];
	struct strv now = STRV_INIT;
	struct buf list;
	size_t i, found = 0;
	int rc = 0;

	msg[0] = '\0';
	for (i = 0; !rc && i < n->n_rewrites; i++)
		rc = restore(rw, ev, n->rewrites[i], err);
	if (rc)
		return rc;
	rc = graph_tracked_changed(ev->repo, rw->tracked, &now, err);
	buf_init(&list, 0);
	for (i = 0; !rc && i < now.n; i++) {
		const char *path = now.v[i];

		if (find(&rw->declared, path) >= 0 ||
		    find(&rw->named, path) >= 0 || an_output(ev->graph, path))
			continue;
		rc = strv_push(&rw->named, path, err);
		if (!rc && found < 5)
			rc = buf_addf(&list, err, "%s'%s'", found ? ", " : "",
				      path);
		found++;
	}
	if (!rc)
		strv_sort(&rw->named);
	if (!rc && found)
		snprintf(msg, msg_size, "modified tracked file%s %s%s while it "
			 "ran: declare %s in rewrites: to have %s restored "
			 "after the action, or write outside the tracked tree",
			 found == 1 ? "" : "s", list.data,
			 found > 5 ? " and more" : "",
			 found == 1 ? "it" : "them",
			 found == 1 ? "it" : "them");
	buf_release(&list);
	strv_release(&now);
	if (rc)
		return rc;
	return found ? 1 : 0;
}
