/*
 * What an evaluation asks the local memo for all at once: the memo ids of
 * the inputs of a plan's scope, named together (the commit's trees read
 * once for all of them), and their keys in one read of the memo
 * (eval_prefetch_memo). Asking one input at a time is eval.c's.
 */
#include "engine/plan/eval.h"
#include "engine/plan/eval_int.h"

#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "graph/graph.h"
#include "graph/source.h"
#include "base/banned.h"

/*
 * The memo ids of the inputs at pos[0..n) not named yet (their parts
 * known), the commit's trees read once for all of them
 * (graph_source_memo_ids). After an error none of them is named.
 */
static int
memo_ids(struct eval *ev, const size_t *pos, size_t n, struct error *err)
{
	const unsigned char **digests = mem_calloc(n + 1, sizeof(*digests));
	const struct strv **lists = mem_calloc(n + 1, sizeof(*lists));
	char **outs = mem_calloc(n + 1, sizeof(*outs));
	struct eval_input *x;
	size_t i, m = 0;
	int rc;

	if (!digests || !lists || !outs) {
		rc = error_nomem(err);
		goto done;
	}
	for (i = 0; i < n; i++) {
		x = ev->inputs[pos[i]];
		if (x->memo[0])
			continue;
		digests[m] = x->digest;
		lists[m] = &x->prefixes;
		outs[m++] = x->memo;
	}
	rc = graph_source_memo_ids(ev->repo, &ev->commit, m, digests, lists,
				   outs, err);
	if (rc)
		for (i = 0; i < m; i++)
			outs[i][0] = '\0';
done:
	mem_free(outs);
	mem_free(lists);
	mem_free(digests);
	return rc;
}

void
eval_prefetch_memo(struct eval *ev, const unsigned char *mask)
{
	const struct graph *g = ev->graph;
	const char **memos = NULL;
	size_t *pos = NULL, i, k, n = 0;
	char *keys = NULL;
	struct eval_input *x;
	struct error e2;

	if (!ev->memo || ev->worktree)
		return;
	error_init(&e2);
	for (i = 0; i < g->n_nodes; i++)
		for (k = 0; mask[i] && k < g->nodes[i].n_inputs; k++)
			if (eval_add_input(ev, &g->nodes[i].inputs[k], &x, &e2))
				return;
	memos = mem_calloc(ev->n_inputs + 1, sizeof(*memos));
	pos = mem_calloc(ev->n_inputs + 1, sizeof(*pos));
	keys = mem_alloc(33 * (ev->n_inputs + 1));
	if (!memos || !pos || !keys)
		goto done;
	for (i = 0; i < ev->n_inputs; i++) {
		x = ev->inputs[i];
		if (x->key_known || x->computed || x->fetched ||
		    eval_input_parts(ev, x, &e2))
			continue;
		pos[n++] = i;
	}
	if (memo_ids(ev, pos, n, &e2))
		goto done;
	for (i = 0; i < n; i++)
		memos[i] = ev->inputs[pos[i]]->memo;
	if (cache_source_keys_get(ev->memo, memos, n, keys, &e2) != 1)
		goto done;
	for (i = 0; i < n; i++) {
		x = ev->inputs[pos[i]];
		x->fetched = 1;
		memcpy(x->fetched_key, keys + 33 * i, 33);
	}
done:
	mem_free(keys);
	mem_free(pos);
	mem_free(memos);
}
