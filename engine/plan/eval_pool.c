/*
 * Source sets keyed ahead, in parallel (issue 28): a cold plan spends
 * nine tenths of its time in libgit2 reading the trees of some 500
 * independent source sets, one after the other. Before the nodes are
 * keyed, the evaluation hands the sets its memos do not know
 * (eval_ahead.c) to a pool of threads (base/pool.h), each reading
 * through a repository handle of its own (libgit2's objects and object
 * cache are one thread's at a time); each set's key, whether it may be
 * memoized, or its error lands in the set's own slot, with the set's
 * files when the evaluation keeps them (a run). The single-threaded
 * keying then runs exactly as before, in its own order, and takes a
 * slot's result where it would have walked the set: memo rows, keys,
 * records, plan and errors cannot depend on the threads' scheduling.
 */
#include "engine/plan/eval.h"
#include "engine/plan/eval_int.h"

#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/strmap.h"
#include "graph/repo.h"
#include "graph/source.h"
#include "base/banned.h"

struct eval_pool {
	size_t jobs;			/* threads, the caller's included */
	struct graph_repo **repos;	/* jobs - 1 handles (NULL until a
					   thread opens its own) */
	struct strmap shared;		/* memo id -> struct eval_keyed:
					   memoizable keys, for any
					   evaluation of the plan */
	struct eval_keyed **all;	/* every slot (errors to free) */
	size_t n_all, cap_all;
	struct arena arena;		/* slots and memo ids */
};

int
eval_pool_new(size_t jobs, struct eval_pool **out, struct error *err)
{
	struct eval_pool *pool;

	*out = NULL;
	if (jobs <= 1 || !graph_repo_threads())
		return 0;	/* today's path: one thread */
	pool = mem_calloc(1, sizeof(*pool));
	if (!pool)
		return error_set(err, ERROR_NOMEM, "out of memory");
	pool->jobs = jobs > EVAL_POOL_MAX_JOBS ? EVAL_POOL_MAX_JOBS : jobs;
	arena_init(&pool->arena);
	*out = pool;
	return 0;
}

void
eval_pool_free(struct eval_pool *pool)
{
	size_t i;

	if (!pool)
		return;
	for (i = 0; pool->repos && i < pool->jobs; i++)
		graph_repo_close(pool->repos[i]);
	mem_free(pool->repos);
	for (i = 0; i < pool->n_all; i++) {
		mem_free(pool->all[i]->err);
		graph_source_state_release(&pool->all[i]->state);
	}
	mem_free(pool->all);
	strmap_release(&pool->shared);
	arena_release(&pool->arena);
	mem_free(pool);
}

struct eval_keyed *
eval_pool_slot(struct eval_pool *pool, const struct eval *owner,
	       const struct pattern_set *set, const char *memo,
	       struct error *err)
{
	struct eval_keyed *k;

	if (pool->n_all == pool->cap_all) {
		size_t cap = pool->cap_all ? pool->cap_all * 2 : 64;
		struct eval_keyed **v = mem_realloc(pool->all,
						    cap * sizeof(*v));

		if (!v) {
			error_set(err, ERROR_NOMEM, "out of memory");
			return NULL;
		}
		pool->all = v;
		pool->cap_all = cap;
	}
	k = arena_alloc(&pool->arena, sizeof(*k));
	if (!k) {
		error_set(err, ERROR_NOMEM, "out of memory");
		return NULL;
	}
	memset(k, 0, sizeof(*k));
	k->owner = owner;
	k->set = set;
	memcpy(k->memo, memo, sizeof(k->memo));
	pool->all[pool->n_all++] = k;
	return k;
}

const struct eval_keyed *
eval_pool_shared(const struct eval_pool *pool, const char *memo)
{
	return pool && memo[0] ? strmap_get(&pool->shared, memo) : NULL;
}

/* One thread's seat: its handle, opened by that thread on its first set
 * (seat 0 is the calling thread's, with the evaluation's handle). */
struct seat {
	struct graph_repo *const *own;	/* seat 0: the caller's handle */
	struct graph_repo **slot;	/* the others: the pool's, kept */
	const struct graph_repo *like;	/* what a slot is opened on */
	int broken;			/* the handle would not open */
};

struct batch {
	struct eval_keyed **items;
};

/* One set, on the thread of seat `worker`. */
static int
key_one(void *worker, size_t i, void *arg)
{
	struct seat *seat = worker;
	struct batch *b = arg;
	struct eval_keyed *k = b->items[i];
	struct graph_repo *repo;
	struct graph_source_state st;
	struct error e;
	int rc;

	error_init(&e);
	if (!seat->own && !*seat->slot && !seat->broken &&
	    graph_repo_open_again(seat->like, seat->slot, &e))
		seat->broken = 1;
	if (seat->broken)
		return 0;	/* left undone: the keying walks it */
	repo = seat->own ? *seat->own : *seat->slot;
	rc = eval_walk(k->owner, repo, k->set, !k->full, &st, &e);
	if (!rc) {
		memcpy(k->key.bytes, st.key, sizeof(k->key.bytes));
		k->memoizable = graph_source_state_memoizable(k->set, &st);
		if (k->full) {
			k->state = st;	/* for the input to take */
			memset(&st, 0, sizeof(st));
		}
	} else {
		/* Not kept (no memory for it): the single-threaded keying
		 * walks the set again and meets the error itself. */
		k->err = mem_alloc(sizeof(*k->err));
		if (!k->err)
			rc = 0;
		else
			*k->err = e;
	}
	graph_source_state_release(&st);
	k->rc = rc;
	k->done = !rc || k->err;
	return rc;
}

int
eval_pool_key(struct eval_pool *pool, struct graph_repo *repo,
	      struct eval_keyed **items, size_t n, struct error *err)
{
	struct seat seats[EVAL_POOL_MAX_JOBS];
	void *workers[EVAL_POOL_MAX_JOBS];
	struct batch b = { items };
	size_t i, threads = n / EVAL_POOL_SETS_PER_THREAD;
	int rc;

	/* Each thread opens a handle and reads the trees above the sets
	 * again (its own object cache): worth it for a few sets each. */
	if (threads > pool->jobs)
		threads = pool->jobs;
	if (threads < 2)
		return 0;	/* cheaper on one thread: left to it */
	if (!pool->repos) {
		pool->repos = mem_calloc(pool->jobs, sizeof(*pool->repos));
		if (!pool->repos)
			return error_set(err, ERROR_NOMEM, "out of memory");
	}
	memset(seats, 0, sizeof(seats));
	seats[0].own = &repo;
	for (i = 0; i < threads; i++) {
		if (i) {
			seats[i].slot = &pool->repos[i - 1];
			seats[i].like = repo;
		}
		workers[i] = &seats[i];
	}
	pool_run(threads, workers, n, key_one, &b);
	for (i = 0; i < n; i++)
		if (items[i]->done && !items[i]->rc &&
		    items[i]->memoizable && items[i]->memo[0] &&
		    !strmap_get(&pool->shared, items[i]->memo)) {
			rc = strmap_put(&pool->shared, items[i]->memo,
					items[i], err);
			if (rc)
				return rc;
		}
	return 0;
}

int
eval_pool_take_state(const struct eval *ev, struct eval_input *x,
		     struct error *err)
{
	struct eval_keyed *k = (struct eval_keyed *)x->ahead;

	if (!k || k->owner != ev || !k->full || !k->done)
		return 0;
	k->full = 0;	/* taken, or its error reported: once */
	if (k->rc) {
		if (err && !err->code)
			*err = *k->err;
		return k->rc;
	}
	x->state = k->state;
	memset(&k->state, 0, sizeof(k->state));
	return 1;
}

/*
 * The key of x's set alone (its files are not kept): what the pool keyed
 * ahead for it, or for the same memo id in another evaluation of the
 * plan, else a walk here. The same key, memoizable flag and error text
 * either way.
 */
int
eval_stream_key(struct eval *ev, const struct graph_input *in,
		struct eval_input *x, const char *memo, struct digest *out,
		int *memoizable, struct error *err)
{
	const struct eval_keyed *k = x->ahead;
	const struct eval_keyed *own = k && k->owner == ev ? k : NULL;
	int rc;

	/* Another commit's key only where the memo would lend it. */
	if (!k || !k->done || (!own && (k->rc || !k->memoizable)))
		k = eval_pool_shared(ev->pool, memo);
	if (k && k->done && !k->rc) {
		memcpy(out->bytes, k->key.bytes, sizeof(out->bytes));
		*memoizable = k->memoizable;
		return 0;
	}
	if (own && own->done && own->rc && err && !err->code) {
		*err = *own->err;
		rc = own->rc;
	} else {
		rc = eval_walk(ev, ev->repo, x->set, 1, &x->state, err);
	}
	if (rc) {
		error_prefix(err, "input '%s'", in->name);
		graph_source_state_release(&x->state);
		return rc;
	}
	memcpy(out->bytes, x->state.key, sizeof(out->bytes));
	*memoizable = graph_source_state_memoizable(x->set, &x->state);
	x->link_free = !graph_source_state_has_link(&x->state);
	return 0;
}
