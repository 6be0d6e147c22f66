/*
 * Early cutoff foreseen by the plan (engine/plan/predict.h): one walk in
 * topological order over the decided plan, reading each node's baseline
 * record again; decisions are left as they are.
 */
#include "engine/plan/predict.h"

#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "engine/plan/group.h"
#include "engine/plan/plan.h"
#include "engine/plan/versions.h"
#include "graph/graph.h"
#include "rules/rules.h"
#include "base/banned.h"

/* The baseline record of node n, usable for reuse or cutoff: 1, else 0
 * (none, failed, artifact gone, conflicting), negative on error. */
static int
usable_record(const struct graph_node *n, const struct plan_history *h,
	      struct plan_record *rec, struct error *err)
{
	int rc;

	if (!h->has_baseline || !h->baseline_record)
		return 0;
	memset(rec, 0, sizeof(*rec));
	rc = h->baseline_record(h->payload, n->id, rec, err);
	if (rc <= 0)
		return rc;
	return rec->ok && !rec->artifact_missing && !rec->conflict;
}

/*
 * What node i, building, gives its users: its recorded output as far as
 * they can see it. A version-group member rebuilt only to re-version
 * (its key is its record's) with `cutoff: payload` gives the same payload
 * digest (the version is left out of it); another `cutoff: payload`
 * artifact the same one if its payload did not change.
 */
static int
own_output(const struct graph_node *n, struct plan_item *it,
	   const struct plan_history *h, const struct plan_options *o,
	   struct error *err)
{
	struct plan_record rec;
	int rc;

	if (n->kind != GRAPH_NODE_ARTIFACT || !n->rule ||
	    !n->rule->cutoff_payload)
		return 0;
	rc = usable_record(n, h, &rec, err);
	if (rc <= 0)
		return rc;
	/* A run's record without a payload digest (made before the rule
	 * said `cutoff: payload`) gave its users its bytes, version and
	 * all: nothing to foresee. */
	if (!o->assumed_base && !rec.key_digest)
		return 0;
	if (it->reason == PLAN_REASON_VERSION_GROUP &&
	    !strcmp(rec.key, it->key.hex))
		it->output_expect = PLAN_EXPECT_CUTOFF;
	else
		it->output_expect = PLAN_EXPECT_IF_PAYLOAD;
	it->expect_on = (long)n->index;
	return 0;
}

/*
 * 1 when the run's cutoff of node i would not be refused for reasons of
 * its own record (engine/run/store.c cutoff): a usable record, its
 * version group not building past it, its version the one it has now
 * where versions are checked.
 */
static int
cutoff_allowed(const struct graph_node *n, const struct plan *p, size_t i,
	       const struct plan_history *h, const struct plan_options *o,
	       struct error *err)
{
	struct plan_record rec;
	struct buf now;
	int rc;

	rc = usable_record(n, h, &rec, err);
	if (rc <= 0)
		return rc;
	if (plan_group_builds(p, i) &&
	    !plan_group_member_current(n, rec.version, o->versions,
				       o->n_versions))
		return 0;
	if (!o->check_versions)
		return 1;
	buf_init(&now, 0);
	rc = plan_version_matches(n, o->versions, o->n_versions, rec.version,
				  &now, err);
	buf_release(&now);
	return rc;
}

/* Record the foresight `worst`, decided by `on`, if the run may cut
 * node i off at all. */
static int
foresee(const struct graph *g, struct plan *p, size_t i,
	enum plan_expect worst, long on, const struct plan_history *h,
	const struct plan_options *o, struct error *err)
{
	struct plan_item *it = &p->items[i];
	int rc = cutoff_allowed(&g->nodes[i], p, i, h, o, err);

	if (rc <= 0)
		return rc;
	it->expect = it->output_expect = worst;
	it->expect_on = on;
	return 0;
}

/*
 * Assumed-built base: node i's key equals its record's (upstream keys on
 * both sides) while upstreams build; each building upstream needs a
 * foreseen output.
 */
static int
same_key(const struct graph *g, struct plan *p, size_t i,
	 const struct plan_history *h, const struct plan_options *o,
	 struct error *err)
{
	const struct graph_node *n = &g->nodes[i];
	enum plan_expect worst = PLAN_EXPECT_CUTOFF;
	long on = -1;
	size_t k;

	for (k = 0; k < n->n_deps; k++) {
		const struct plan_item *u = &p->items[n->deps[k]];

		if (!p->in_closure[n->deps[k]] || u->decision == PLAN_REUSE)
			continue;
		if (u->output_expect == PLAN_EXPECT_NONE)
			return 0;
		if (u->output_expect == PLAN_EXPECT_IF_PAYLOAD &&
		    worst != PLAN_EXPECT_IF_PAYLOAD) {
			worst = PLAN_EXPECT_IF_PAYLOAD;
			on = -1;
		}
		if (on < 0 && u->output_expect == worst)
			on = u->expect_on;
	}
	return on < 0 ? 0 : foresee(g, p, i, worst, on, h, o, err);
}

/* A cascade whose every differing upstream has a foreseen output. */
static int
cascade(const struct graph *g, struct plan *p, size_t i,
	const struct plan_history *h, const struct plan_options *o,
	struct error *err)
{
	struct plan_item *it = &p->items[i];
	enum plan_expect worst = PLAN_EXPECT_CUTOFF;
	long on = -1;
	size_t k;

	if (it->reason != PLAN_REASON_UPSTREAM_REBUILT)
		return 0;
	if (!it->n_changes)
		return o->assumed_base ? same_key(g, p, i, h, o, err) : 0;
	for (k = 0; k < it->n_changes; k++) {
		const struct plan_change *c = &it->changes[k];
		const struct graph_node *up;
		const struct plan_item *u;

		if (c->kind != PLAN_CHANGE_UPSTREAM || !c->old_value ||
		    !c->new_value)
			return 0;
		up = graph_find(g, c->name);
		if (!up)
			return 0;
		u = &p->items[up->index];
		if (u->output_expect == PLAN_EXPECT_NONE)
			return 0;
		if (u->output_expect == PLAN_EXPECT_IF_PAYLOAD &&
		    worst != PLAN_EXPECT_IF_PAYLOAD) {
			worst = PLAN_EXPECT_IF_PAYLOAD;
			on = -1;
		}
		if (on < 0 && u->output_expect == worst)
			on = u->expect_on;
	}
	return on < 0 ? 0 : foresee(g, p, i, worst, on, h, o, err);
}

int
plan_predict_cutoff(const struct graph *g, struct plan *p,
		    const struct plan_history *h,
		    const struct plan_options *o, struct error *err)
{
	size_t i;
	int rc = 0;

	memset(p->expected, 0, sizeof(p->expected));
	for (i = 0; i < p->n; i++) {
		p->items[i].expect = p->items[i].output_expect =
			PLAN_EXPECT_NONE;
		p->items[i].expect_on = -1;
	}
	for (i = 0; !rc && i < p->n; i++) {
		struct plan_item *it = &p->items[i];

		if (!p->in_closure[i] || (it->decision != PLAN_BUILD &&
					  it->decision != PLAN_TEST))
			continue;
		rc = cascade(g, p, i, h, o, err);
		if (!rc && it->expect == PLAN_EXPECT_NONE)
			rc = own_output(&g->nodes[i], it, h, o, err);
		if (rc)
			error_node(err, g->nodes[i].id);
		else
			p->expected[it->expect]++;
	}
	return rc;
}
