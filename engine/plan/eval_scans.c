/*
 * The evaluation's store of tree scans (graph/source.h's struct
 * graph_scan_store) over the cache's tree_scans table: a plan's key-only
 * walk of a changed folder asks it before reading each subtree, and a
 * run's full walk tells it every folder it listed whole. The threads
 * keying sets ahead (eval_pool.c) share it, so SQLite is reached under
 * one lock; what is told waits in memory and is written in one
 * transaction when the evaluation ends (eval_scans_free), and only by an
 * evaluation that writes memos (a run, `record`), never by a plan.
 */
#include "engine/plan/eval.h"
#include "engine/plan/eval_int.h"

#include <pthread.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "base/banned.h"

struct eval_scans {
	const struct eval *ev;		/* its memo and memo_write */
	pthread_mutex_t lock;		/* the cache's statements, told */
	struct graph_scan_store store;
	struct cache_tree_scan *told;		/* to write (memo_write only) */
	size_t n_told, cap_told;
};

static int
scan_get(void *ctx, const unsigned char tree[20], struct graph_tree_scan *out)
{
	struct eval_scans *s = ctx;
	struct error e;
	int rc;

	if (!s->ev->memo)
		return 0;
	error_init(&e);
	pthread_mutex_lock(&s->lock);
	rc = cache_tree_scan_get(s->ev->memo, tree, &out->height, out->canon,
				 &e);
	pthread_mutex_unlock(&s->lock);
	out->links = 0;
	return rc == 1;
}

static void
scan_put(void *ctx, const unsigned char tree[20],
	 const struct graph_tree_scan *scan)
{
	struct eval_scans *s = ctx;
	struct cache_tree_scan *t;

	if (!s->ev->memo || !s->ev->memo_write || scan->links)
		return;
	pthread_mutex_lock(&s->lock);
	if (s->n_told == s->cap_told) {
		size_t cap = s->cap_told ? 2 * s->cap_told : 256;

		t = mem_realloc(s->told, cap * sizeof(*t));
		if (!t)
			goto done;	/* best effort: a later run tells it */
		s->told = t;
		s->cap_told = cap;
	}
	t = &s->told[s->n_told++];
	memcpy(t->tree, tree, 20);
	memcpy(t->canon, scan->canon, 20);
	t->height = scan->height;
done:
	pthread_mutex_unlock(&s->lock);
}

int
eval_scans_new(struct eval *ev, struct error *err)
{
	struct eval_scans *s = mem_calloc(1, sizeof(*s));

	if (!s || pthread_mutex_init(&s->lock, NULL)) {
		mem_free(s);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	s->ev = ev;
	s->store.get = scan_get;
	s->store.put = scan_put;
	s->store.ctx = s;
	ev->scans = s;
	return 0;
}

int
eval_walk(const struct eval *ev, struct graph_repo *repo,
	  const struct pattern_set *set, int key_only,
	  struct graph_source_state *out, struct error *err)
{
	struct graph_source_cache *c = NULL;
	int rc;

	if (ev->scans && ev->memo && !ev->worktree) {
		c = graph_source_cache_new();	/* NULL: the walk's own */
		graph_source_cache_set_store(c, &ev->scans->store);
	}
	rc = key_only
	     ? graph_source_compute_key(repo, &ev->commit, set, c, out, err)
	     : graph_source_compute(repo, &ev->commit, set, c, out, err);
	graph_source_cache_free(c);
	return rc;
}

void
eval_scans_free(struct eval *ev)
{
	struct eval_scans *s = ev->scans;
	struct error e;

	if (!s)
		return;
	error_init(&e);
	/* Best effort: a scan not stored is worked out again. */
	if (s->n_told && ev->memo)
		(void)cache_tree_scans_put(ev->memo, s->told, s->n_told, &e);
	pthread_mutex_destroy(&s->lock);
	mem_free(s->told);
	mem_free(s);
	ev->scans = NULL;
}
