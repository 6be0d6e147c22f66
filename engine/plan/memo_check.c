/*
 * The source-key memo of the remote cache, checked after a plan (docs/
 * remote-cache.md, "Bundles and the source-key memo"): a source key taken
 * from it (eval_set_remote_memo) is a claim; it stands when the record
 * the plan reused for a node with that input attests the same memo id
 * and key, else the input is walked. A claim that is not the trees' key
 * sends the planner back to plan without the memo.
 */
#include "engine/plan/memo_check.h"

#include <string.h>

#include "base/error.h"
#include "engine/plan/eval.h"
#include "engine/plan/plan.h"
#include "engine/plan/remote.h"
#include "graph/digest.h"
#include "graph/graph.h"
#include "graph/source.h"
#include "base/banned.h"

/*
 * Confirm the source keys of ev that plan `pl` took from the remote memo
 * and reused a record for: a claim (memo id -> key) stands when the
 * record reused for a node with that input attests it, its writer having
 * computed that key from trees with that memo id. Never a record of
 * another node: a record vouches for its own node's inputs only.
 */
static void
confirm_claims(struct eval *ev, const struct plan *pl)
{
	const struct graph *g = ev->graph;
	const char *memo, *key;
	size_t i, k;

	for (i = 0; pl && i < pl->n && i < g->n_nodes; i++) {
		const struct plan_remote_hit *h = pl->items[i].remote;

		if (pl->items[i].decision != PLAN_REUSE || !h)
			continue;
		for (k = 0; k < g->nodes[i].n_inputs; k++) {
			const char *name = g->nodes[i].inputs[k].name;

			if (eval_input_remote_claim(ev, name, &memo, &key) &&
			    plan_remote_attests(h, memo, key))
				eval_input_confirm(ev, name);
		}
	}
}

/*
 * Walk every input of plan pl's nodes whose key is still a claim and
 * compare: *wrong at the first that is not the trees' key.
 */
static int
walk_claims(struct eval *ev, const struct plan *pl, int *wrong,
	    struct error *err)
{
	const struct graph *g = ev->graph;
	const struct graph_source_state *st;
	const char *memo, *key;
	struct digest d;
	size_t i, k;
	int rc;

	for (i = 0; pl && i < pl->n && i < g->n_nodes && !*wrong; i++) {
		for (k = 0; k < g->nodes[i].n_inputs && !*wrong; k++) {
			const struct graph_input *in = &g->nodes[i].inputs[k];

			if (!eval_input_remote_claim(ev, in->name, &memo,
						     &key))
				continue;
			rc = eval_input_state(ev, in, &st, err);
			if (rc)
				return rc;
			memcpy(d.bytes, st->key, sizeof(d.bytes));
			digest_to_hex(&d);
			*wrong = strcmp(d.hex, key) != 0;
			eval_input_confirm(ev, in->name);
		}
	}
	return 0;
}

int
plan_memo_check(struct eval *head, const struct plan *plan,
		struct eval *base, const struct plan *base_plan, int *wrong,
		struct error *err)
{
	int rc;

	*wrong = 0;
	confirm_claims(head, plan);
	if (base)
		confirm_claims(base, base_plan);
	rc = walk_claims(head, plan, wrong, err);
	if (!rc && base && !*wrong)
		rc = walk_claims(base, base_plan, wrong, err);
	return rc;
}

