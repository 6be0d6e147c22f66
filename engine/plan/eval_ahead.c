/*
 * Which source sets a plan keys ahead (engine/plan/eval_pool.c keys
 * them): the inputs of the nodes to be keyed, in node order, whose key
 * no memo holds, one slot per memo id, the head's and (with
 * --assume-base-built) the merge base's in one batch. Nothing depends on
 * the order but which sets a failure leaves unkeyed (the keying walks
 * those itself).
 * The scan asks each memo as source_key would (a hit is taken at once:
 * what a memo holds it still holds when the keying comes), and stops at
 * an input the keying would fail on before walking it, leaving that
 * error to the keying.
 */
#include "engine/plan/eval.h"
#include "engine/plan/eval_int.h"

#include "base/error.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "graph/graph.h"
#include "base/banned.h"

/*
 * One input for the batch: a memo's key is taken now (memo_key, as
 * source_key would ask it: what a memo holds it still holds then), a set
 * the batch or the pool has under its memo id already is not walked
 * twice, any other gets a slot. *stop at an input whose patterns do not
 * compile or whose memo id cannot be named: the keying meets that error
 * itself, in its order, and nothing after it is keyed ahead.
 */
static int
ahead_one(struct eval *ev, const struct graph_input *in,
	  struct strmap *batch, struct eval_keyed **items, size_t *m,
	  int *stop, struct error *err)
{
	struct eval_input *x = eval_find_input(ev, in->name);
	struct eval_keyed *k;
	struct digest d;
	struct error e2;
	char memo[33] = "";
	int rc;

	if (x && (x->key_known || x->computed || x->ahead))
		return 0;
	if (ev->memo || ev->key_memo || ev->remote_memo) {
		/* The memo id is named from the set's parts: a hit compiles
		 * nothing (eval.c compiles on first use). */
		error_init(&e2);
		rc = x ? 0 : eval_add_input(ev, in, &x, &e2);
		if (!rc)
			rc = eval_memo_key(ev, x, memo, &d, &e2);
		*stop = rc < 0;
		if (rc > 0) {
			x->key = d;
			x->key_known = 1;
		}
		if (rc)
			return 0;
	}
	/* The files are kept (a run records them): each input walks its
	 * own set, and no other commit's key spares that. Else under the
	 * same memo id another commit's slot serves this input only if its
	 * key may be memoized (eval_stream_key); else the keying walks this
	 * set. */
	if (ev->stream && eval_pool_shared(ev->pool, memo))
		return 0;
	k = ev->stream && memo[0] ? strmap_get(batch, memo) : NULL;
	if (!k) {
		/* A set to walk needs its patterns compiled: an input the
		 * memo's read or the lookup above met first has none yet.
		 * Patterns that do not compile are the keying's error, in
		 * its order (nothing is kept of them: a later use compiles
		 * again and fails the same). */
		error_init(&e2);
		rc = eval_ensure_input(ev, in, &x, &e2);
		if (rc == ERROR_NOMEM)
			return error_set(err, rc, "out of memory");
		if (rc) {
			*stop = 1;
			return 0;
		}
		k = eval_pool_slot(ev->pool, ev, x->set, memo, err);
		if (!k)
			return ERROR_NOMEM;
		k->full = !ev->stream;
		if (ev->stream && memo[0] &&
		    (rc = strmap_put(batch, k->memo, k, err)))
			return rc;
		items[(*m)++] = k;
	} else if (!x && !(x = eval_find_input(ev, in->name))) {
		return 0;	/* named by eval_memo_key: not reached */
	}
	x->ahead = k;
	return 0;
}

/* 1 when ev's sets may be keyed ahead on `pool`. */
static int
keys_ahead(const struct eval *ev, const struct eval_pool *pool)
{
	return ev && ev->pool && ev->pool == pool && !ev->worktree;
}

/* Slots for the sets of ev's nodes in mask (NULL: all), appended to
 * items[*m], in node order. */
static int
collect(struct eval *ev, const unsigned char *mask, struct strmap *batch,
	struct eval_keyed **items, size_t *m, struct error *err)
{
	const struct graph *g = ev->graph;
	size_t i, j;
	int rc = 0, stop = 0;

	for (i = 0; !rc && !stop && i < g->n_nodes; i++)
		for (j = 0; !rc && !stop && (!mask || mask[i]) &&
		     j < g->nodes[i].n_inputs; j++)
			rc = ahead_one(ev, &g->nodes[i].inputs[j], batch,
				       items, m, &stop, err);
	return rc;
}

static size_t
inputs_of(const struct eval *ev, const unsigned char *mask)
{
	size_t i, n = 0;

	for (i = 0; ev && i < ev->graph->n_nodes; i++)
		if (!mask || mask[i])
			n += ev->graph->nodes[i].n_inputs;
	return n;
}

int
eval_prefetch_pair(struct eval *a, const unsigned char *mask_a,
		   struct eval *b, const unsigned char *mask_b,
		   struct error *err)
{
	struct strmap batch = STRMAP_INIT;
	struct eval_keyed **items;
	struct eval_pool *pool = a->pool;
	size_t m = 0;
	int rc = 0;

	if (!keys_ahead(a, pool))
		return 0;
	if (!keys_ahead(b, pool) || b->repo != a->repo)
		b = NULL;
	items = mem_calloc(inputs_of(a, mask_a) + inputs_of(b, mask_b) + 1,
			   sizeof(*items));
	if (!items)
		return error_set(err, ERROR_NOMEM, "out of memory");
	rc = collect(a, mask_a, &batch, items, &m, err);
	if (!rc && b)
		rc = collect(b, mask_b, &batch, items, &m, err);
	if (!rc)
		rc = eval_pool_key(pool, a->repo, items, m, err);
	strmap_release(&batch);
	mem_free(items);
	return rc;
}

int
eval_prefetch(struct eval *ev, const unsigned char *mask, struct error *err)
{
	return eval_prefetch_pair(ev, mask, NULL, NULL, err);
}
