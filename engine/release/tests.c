/*
 * Release check 8: a release may name test rules (`tests:`) whose
 * instances must have passed in the tag's run, besides its artifacts:
 * the bindings are released only when the tag's CI ran their GPU tests.
 */
#include <string.h>

#include "base/error.h"
#include "engine/plan/eval.h"
#include "engine/release/internal.h"
#include "graph/graph.h"
#include "rules/rules.h"
#include "base/banned.h"

/* 1 when a binding of the node is an experimental value of its axis. */
static int
experimental(const struct rules *rules, const struct graph_node *d)
{
	size_t i, k;

	for (i = 0; i < d->n_axes; i++) {
		const struct rules_axis *ax = rules_find_axis(rules,
							      d->axes[i].axis);

		for (k = 0; ax && k < ax->n_experimental; k++)
			if (!strcmp(ax->experimental[k], d->axes[i].value))
				return 1;
	}
	return 0;
}

static int
has_dep(const struct graph_node *n, size_t dep)
{
	size_t k;

	for (k = 0; k < n->n_deps; k++)
		if (n->deps[k] == dep)
			return 1;
	return 0;
}

/* The run's record of test node d: ok, failed, or none. */
static int
check_one(struct release_ctx *x, const struct graph_node *d)
{
	struct release_parsed_id p;
	size_t k;
	int rc;

	for (k = 0; k < x->recs.n; k++) {
		const struct cache_record *rec = &x->recs.items[k];

		rc = release_parse_id(x->a, rec->node_id, &p);
		if (rc == ERROR_NOMEM)
			return rc;
		if (rc || strcmp(p.canon, d->id))
			continue;
		if (rec->status == CACHE_RECORD_STATUS_OK)
			return 0;
		return release_problem(x, RELEASE_CHECK_TESTS, "%s: recorded "
				       "as %s", d->id,
				       cache_record_status_name(rec->status));
	}
	return release_problem(x, RELEASE_CHECK_TESTS, "%s: no record in run "
			       "%s", d->id, x->r->run);
}

int
release_check_tests(struct release_ctx *x, struct error *err)
{
	const struct graph *g = x->ev->graph;
	size_t i, k, j, n = 0;

	for (i = 0; i < x->n_nodes; i++)
		for (k = 0; k < x->nodes[i]->n_deps; k++) {
			const struct graph_node *d =
				&g->nodes[x->nodes[i]->deps[k]];
			int dup = 0;

			if (d->kind != GRAPH_NODE_TEST ||
			    experimental(g->rules, d))
				continue;
			for (j = 0; j < i && !dup; j++)
				dup = has_dep(x->nodes[j], x->nodes[i]->deps[k]);
			if (dup)
				continue;
			n++;
			if (check_one(x, d))
				return error_set(err, ERROR_NOMEM,
						 "out of memory");
		}
	if (x->problems[RELEASE_CHECK_TESTS].n)
		release_set(x, RELEASE_CHECK_TESTS, RELEASE_STATUS_FAIL,
			    "%zu of %zu required tests did not pass",
			    x->problems[RELEASE_CHECK_TESTS].n, n);
	else if (!n)
		release_set(x, RELEASE_CHECK_TESTS, RELEASE_STATUS_OK,
			    "none required");
	else
		release_set(x, RELEASE_CHECK_TESTS, RELEASE_STATUS_OK,
			    "%zu required tests passed in run %s", n,
			    x->r->run);
	return 0;
}
