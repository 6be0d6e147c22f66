/*
 * Which source sets a plan keys ahead (issue 28): the inputs of the
 * nodes it will key, in the graph's order, that no memo answers and no
 * earlier input shares a memo id with, handed to the evaluation's pool
 * (eval_pool.c) at once. It reads the evaluation (eval.c) and fills the
 * pool's slots; the keying itself takes the slots' results later.
 */
#include "engine/plan/eval.h"
#include "engine/plan/eval_int.h"

#include "base/error.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "graph/graph.h"
#include "graph/pattern.h"
#include "rules/rules.h"
#include "base/banned.h"

/* 1 when in's patterns (and policy.ignore) are well spelled: compile()
 * can then fail only for want of memory. */
static int
compiles(const struct eval *ev, const struct graph_input *in)
{
	const struct rules_policy *pol = &ev->rules->policy;
	size_t i;

	for (i = 0; i < in->n_include; i++)
		if (pattern_validate(in->include[i], NULL))
			return 0;
	for (i = 0; i < in->n_exclude; i++)
		if (pattern_validate(in->exclude[i], NULL))
			return 0;
	for (i = 0; i < pol->n_ignore; i++)
		if (pattern_validate(pol->ignore[i], NULL))
			return 0;
	return 1;
}

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

	if (!x && !compiles(ev, in)) {
		*stop = 1;
		return 0;
	}
	if (!x && (rc = eval_ensure_input(ev, in, &x, err)))
		return rc;
	if (x->key_known || x->computed || x->ahead)
		return 0;
	if (ev->memo || ev->key_memo || ev->remote_memo) {
		error_init(&e2);
		rc = eval_memo_key(ev, in, memo, &d, &e2);
		*stop = rc < 0;
		if (rc > 0) {
			x->key = d;
			x->key_known = 1;
		}
		if (rc)
			return 0;
	}
	if (eval_pool_shared(ev->pool, memo))
		return 0;
	k = memo[0] ? strmap_get(batch, memo) : NULL;
	if (!k) {
		/* An input the memo's read met first has no set yet (eval.c
		 * compiles on first use): the slot needs it. */
		if (!x->set && !compiles(ev, in)) {
			*stop = 1;
			return 0;
		}
		if (!x->set && (rc = eval_ensure_input(ev, in, &x, err)))
			return rc;
		k = eval_pool_slot(ev->pool, x->set, memo, err);
		if (!k)
			return ERROR_NOMEM;
		if (memo[0] && (rc = strmap_put(batch, k->memo, k, err)))
			return rc;
		items[(*m)++] = k;
	}
	x->ahead = k;
	return 0;
}

int
eval_prefetch(struct eval *ev, const unsigned char *mask, struct error *err)
{
	const struct graph *g = ev->graph;
	struct strmap batch = STRMAP_INIT;
	struct eval_keyed **items;
	size_t i, j, m = 0, total = 0;
	int rc = 0, stop = 0;

	if (!ev->pool || !ev->stream || ev->worktree)
		return 0;
	for (i = 0; i < g->n_nodes; i++)
		if (!mask || mask[i])
			total += g->nodes[i].n_inputs;
	items = mem_calloc(total + 1, sizeof(*items));
	if (!items)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; !rc && !stop && i < g->n_nodes; i++)
		for (j = 0; !rc && !stop && (!mask || mask[i]) &&
		     j < g->nodes[i].n_inputs; j++)
			rc = ahead_one(ev, &g->nodes[i].inputs[j], &batch,
				       items, &m, &stop, err);
	if (!rc)
		rc = eval_pool_key(ev->pool, ev->repo, &ev->commit, items, m,
				   err);
	strmap_release(&batch);
	mem_free(items);
	return rc;
}
