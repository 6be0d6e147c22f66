/*
 * A run's bundle (docs/remote-cache.md, "Bundles and the source-key
 * memo"): what each record in it attests, the memo id and key of its
 * node's inputs as this run computed them, and the remote reuses of the
 * run's own domain that join what it published.
 */
#include "engine/run/remote.h"

#include "base/error.h"
#include "base/strv.h"
#include "engine/plan/eval.h"
#include "engine/plan/remote.h"
#include "graph/graph.h"
#include "base/banned.h"

int
run_remote_sources(struct eval *ev, size_t node, struct strv *out,
		   struct error *err)
{
	const struct graph_node *n = &ev->graph->nodes[node];
	char memo[33], key[33];
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < n->n_inputs; i++) {
		rc = eval_input_memo(ev, &n->inputs[i], memo, key, err);
		if (rc != 1)
			continue;	/* not memoizable (0), or an error */
		rc = strv_push(out, memo, err);
		if (!rc)
			rc = strv_push(out, key, err);
	}
	return rc;
}

int
run_remote_bundle_reused(struct plan_remote *pr, struct eval *ev, size_t node,
			 const struct plan_remote_hit *hit, struct error *err)
{
	struct strv src = STRV_INIT;
	int rc;

	/* Only a record of the domain this run writes goes in its bundle. */
	if (!plan_remote_writes_for(pr, hit->rec.run.ref))
		return 0;
	rc = run_remote_sources(ev, node, &src, err);
	if (!rc)
		rc = plan_remote_bundle_add(pr, &hit->rec.rec, &hit->rec.run,
					    hit->rec.runner, &hit->action,
					    &src, err);
	strv_release(&src);
	return rc;
}
