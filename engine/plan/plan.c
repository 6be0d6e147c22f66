/*
 * Plan decisions: keys node by node in topological order (reused upstream
 * nodes contribute their output digests), compared with the history, and
 * the first-order reason for every rebuild. Explanations of a difference
 * come from comparing key components (engine/plan/explain.c).
 */
#include "engine/plan/plan.h"
#include "engine/plan/record.h"

#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "engine/plan/explain.h"
#include "engine/plan/group.h"
#include "engine/plan/predict.h"
#include "engine/plan/versions.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "rules/rules.h"
#include "base/banned.h"

struct ctx {
	const struct graph *g;
	const struct graph_key_sources *src;
	struct plan *p;
	const long *forced;	/* version groups: -1, a member, or -2 */
};

static int
reused_digest(void *payload, const struct graph_node *node,
	      struct digest *out)
{
	struct ctx *c = payload;
	const struct plan_item *it = &c->p->items[node->index];

	const char *d = it->key_digest ? it->key_digest : it->output_digest;

	if (it->decision != PLAN_REUSE || !d)
		return 0;
	return digest_from_hex(d, out, NULL) ? 0 : 1;
}

static int
reused_group(void *payload, const struct graph_node *node, const char *group,
	     struct digest *out)
{
	struct ctx *c = payload;
	const struct plan_item *it = &c->p->items[node->index];

	if (it->decision != PLAN_REUSE)
		return 0;
	return record_group_digest(it->output_groups, group, out);
}

static int
fwd_source(void *payload, const struct graph_input *in, struct digest *out,
	   struct error *err)
{
	struct ctx *c = payload;

	return c->src->source_key(c->src->payload, in, out, err);
}

static int
fwd_toolkit(void *payload, const struct rules_toolkit *tk,
	    const char **identity, struct error *err)
{
	struct ctx *c = payload;

	*identity = NULL;
	if (!c->src->toolkit_identity)
		return 0;
	return c->src->toolkit_identity(c->src->payload, tk, identity, err);
}

static int
set_reuse(struct plan *p, struct plan_item *it, const struct plan_record *r,
	  struct error *err)
{
	it->decision = PLAN_REUSE;
	it->reason = PLAN_REASON_REUSED;
	it->reused_run = arena_strdup(&p->arena, r->run_id);
	it->remote = r->remote;
	it->output_digest = r->output_digest
		? arena_strdup(&p->arena, r->output_digest) : NULL;
	it->key_digest = r->key_digest
		? arena_strdup(&p->arena, r->key_digest) : NULL;
	if (r->key_digest && !it->key_digest)
		return error_set(err, ERROR_NOMEM, "out of memory");
	it->reused_version = r->version
		? arena_strdup(&p->arena, r->version) : NULL;
	it->output_groups = r->output_groups
		? arena_strdup(&p->arena, r->output_groups) : NULL;
	if (r->output_groups && !it->output_groups)
		return error_set(err, ERROR_NOMEM, "out of memory");
	if (!it->reused_run || (r->output_digest && !it->output_digest) ||
	    (r->version && !it->reused_version))
		return error_set(err, ERROR_NOMEM, "out of memory");
	return 0;
}

/*
 * The first upstream of node i (deps are sorted by id) that does not reuse,
 * or -1. A node whose key equals a recorded one still rebuilds when an
 * upstream must: its record was made against an upstream output the plan
 * is about to replace (the upstream's record was missing, failed or lost
 * its artifact, so the key could not tell).
 */
static long
building_upstream(const struct ctx *c, size_t i)
{
	const struct graph_node *node = &c->g->nodes[i];
	size_t k;

	for (k = 0; k < node->n_deps; k++) {
		size_t d = node->deps[k];

		if (c->p->in_closure[d] &&
		    c->p->items[d].decision != PLAN_REUSE)
			return (long)d;
	}
	return -1;
}

/* Reuse rec, unless an upstream builds: then node i is a cascade of it. */
static int
reuse_or_cascade(struct ctx *c, size_t i, const struct plan_record *r,
		 struct error *err)
{
	struct plan_item *it = &c->p->items[i];
	long up = building_upstream(c, i);

	if (up < 0)
		return set_reuse(c->p, it, r, err);
	it->reason = PLAN_REASON_UPSTREAM_REBUILT;
	it->cause = up;
	return 0;
}

/*
 * Give item it one change of kind other: `name`, old -> now (copied into
 * the plan's arena; NULL stays NULL) and `path` (copied, or NULL).
 */
static int
other_change(struct plan *p, struct plan_item *it, const char *name,
	     const char *path, const char *old, const char *now,
	     struct error *err)
{
	struct plan_change *c = arena_alloc(&p->arena, sizeof(*c));

	if (!c)
		return error_set(err, ERROR_NOMEM, "out of memory");
	memset(c, 0, sizeof(*c));
	c->kind = PLAN_CHANGE_OTHER;
	c->name = name;
	c->path = path ? arena_strdup(&p->arena, path) : NULL;
	c->old_value = old ? arena_strdup(&p->arena, old) : NULL;
	c->new_value = now ? arena_strdup(&p->arena, now) : NULL;
	if ((path && !c->path) || (old && !c->old_value) ||
	    (now && !c->new_value))
		return error_set(err, ERROR_NOMEM, "out of memory");
	it->changes = c;
	it->n_changes = 1;
	return 0;
}

/* Key equal, artifact gone: name the file in the changes. */
static int
artifact_gone(struct plan *p, struct plan_item *it,
	      const struct plan_record *rec, struct error *err)
{
	it->reason = PLAN_REASON_ARTIFACT_MISSING;
	return other_change(p, it, "artifact", rec->missing_artifact,
			    rec->missing_artifact, "(missing)", err);
}

/*
 * With version checks on, 1 when record r of node i carries the version
 * the node has now; else 0 (and, with `it`, the reason version-differs
 * and both versions in the changes). Negative on out of memory.
 */
static int
version_ok(struct ctx *c, size_t i, const struct plan_options *o,
	   const struct plan_record *r, struct plan_item *it,
	   struct error *err)
{
	struct plan *p = c->p;
	struct plan_change *ch;
	struct buf now;
	int rc;

	if (!o->check_versions)
		return 1;
	buf_init(&now, 0);
	rc = plan_version_matches(&c->g->nodes[i], o->versions, o->n_versions,
				  r->version, &now, err);
	if (rc != 0 || !it)
		goto done;
	ch = arena_alloc(&p->arena, sizeof(*ch));
	if (!ch) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	ch->kind = PLAN_CHANGE_VERSION;
	ch->name = "version";
	ch->old_value = r->version ? arena_strdup(&p->arena, r->version)
				   : NULL;
	ch->new_value = now.len ? arena_strdup(&p->arena, now.data) : NULL;
	if ((r->version && !ch->old_value) || (now.len && !ch->new_value)) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	it->reason = PLAN_REASON_VERSION_DIFFERS;
	it->changes = ch;
	it->n_changes = 1;
done:
	buf_release(&now);
	return rc;
}

/* Node i rebuilds with its version group (plan_groups_force). */
static int
group_forced(struct ctx *c, size_t i)
{
	struct plan_item *it = &c->p->items[i];

	it->reason = PLAN_REASON_VERSION_GROUP;
	it->cause = c->forced[i] >= 0 ? c->forced[i] : -1;
	return 0;
}

/*
 * A node a runner may defer rather than run: one that needs a GPU, or a
 * built-in action (cuda-smoke) that exits 4 without one (engine/run).
 */
static int
deferrable(const struct graph_node *n)
{
	return n->rule && (n->rule->gpu.count || n->rule->builtin);
}

/*
 * No baseline record: a node added since (`new-node`, a root cause), or a
 * GPU node the baseline's commit declared but its runners deferred
 * (`baseline-deferred`: it runs, but nothing in the change caused it).
 */
static int
unrecorded(const struct graph_node *node, const struct plan_history *h,
	   struct plan_item *it, struct error *err)
{
	int rc = 0;

	it->reason = PLAN_REASON_NEW_NODE;
	if (deferrable(node) && h->baseline_declared)
		rc = h->baseline_declared(h->payload, node->id, err);
	if (rc < 0)
		return rc;
	if (rc == 1)
		it->reason = PLAN_REASON_BASELINE_DEFERRED;
	return 0;
}

/* Key equal, but an import disagrees on the outcome: name both sides. */
static int
record_conflict(struct plan *p, struct plan_item *it,
		const struct plan_record *rec, struct error *err)
{
	it->reason = PLAN_REASON_RECORD_CONFLICT;
	return other_change(p, it, "conflict", NULL, rec->conflict_have,
			    rec->conflict_import, err);
}

/*
 * No record to compare with or reuse (reason no-baseline-run or
 * new-node): when one is there but this plan's trust domain may not
 * reuse it, say that instead (record-in-other-trust-domain), its run and
 * domain in the changes (a pull request's reuse is not main's).
 */
static int
hidden_record(struct plan *p, const struct graph_node *node,
	      const struct plan_history *h, const char *key,
	      struct plan_item *it, struct error *err)
{
	const char *run = NULL, *domain = NULL, *reader = NULL;
	int rc;

	if (!h->hidden_record || (it->reason != PLAN_REASON_NO_BASELINE &&
				  it->reason != PLAN_REASON_NEW_NODE))
		return 0;
	rc = h->hidden_record(h->payload, node->id, key, &run, &domain,
			      &reader, err);
	if (rc <= 0)
		return rc;
	it->reason = PLAN_REASON_OTHER_DOMAIN;
	return other_change(p, it, "trust-domain", run, domain,
			    reader && reader[0] ? reader : "trusted", err);
}

static int
decide(struct ctx *c, size_t i, const struct plan_history *h,
       const struct plan_options *o, struct error *err)
{
	const struct graph_node *node = &c->g->nodes[i];
	struct plan *p = c->p;
	struct plan_item *it = &p->items[i];
	const struct graph_node_key *k = &p->keys->keys[i];
	struct plan_record rec;
	const char *any;
	int rc;

	it->key = k->key;
	it->cutoff = k->cutoff;
	it->decision = node->kind == GRAPH_NODE_TEST ? PLAN_TEST : PLAN_BUILD;
	if (o->forced_reason || o->reuse == PLAN_REUSE_SCOPE_NONE) {
		it->reason = PLAN_REASON_FORCED;
		return 0;
	}
	if (c->forced && c->forced[i] != -1)
		return group_forced(c, i);
	if (o->reuse == PLAN_REUSE_SCOPE_ANY && h->record_by_key &&
	    building_upstream(c, i) < 0) {
		size_t nth;

		/* Newest first, past records whose artifact is gone or
		 * that carry another version than the node's now. */
		for (nth = 0;; nth++) {
			memset(&rec, 0, sizeof(rec));
			rc = h->record_by_key(h->payload, k->key.hex, nth,
					      &rec, err);
			if (rc < 0)
				return rc;
			if (rc == 0)
				break;
			if (!rec.ok || rec.artifact_missing || rec.conflict)
				continue;
			rc = version_ok(c, i, o, &rec, NULL, err);
			if (rc < 0)
				return rc;
			if (rc)
				return set_reuse(p, it, &rec, err);
		}
	}
	/* A key an upstream's rebuild may change reuses nothing. */
	any = o->reuse == PLAN_REUSE_SCOPE_ANY && building_upstream(c, i) < 0
	      ? k->key.hex : NULL;
	if (!h->has_baseline || !h->baseline_record) {
		it->reason = PLAN_REASON_NO_BASELINE;
		return any ? hidden_record(p, node, h, any, it, err) : 0;
	}
	memset(&rec, 0, sizeof(rec));
	rc = h->baseline_record(h->payload, node->id, &rec, err);
	if (rc == 0)
		rc = unrecorded(node, h, it, err);
	if (rc == 0)
		return hidden_record(p, node, h, any, it, err);
	if (rc < 0)
		return rc;
	if (!strcmp(rec.key, k->key.hex)) {
		if (!rec.ok) {
			it->reason = PLAN_REASON_BASELINE_FAILED;
			return 0;
		}
		if (rec.artifact_missing)
			return artifact_gone(p, it, &rec, err);
		if (rec.conflict)
			return record_conflict(p, it, &rec, err);
		rc = version_ok(c, i, o, &rec, it, err);
		if (rc != 1)
			return rc < 0 ? rc : 0;
		return reuse_or_cascade(c, i, &rec, err);
	}
	if (!rec.components && h->record_components) {
		rc = h->record_components(h->payload, &rec, err);
		if (rc)
			return rc;
	}
	return explain_difference(c->g, p, i, &rec, h, err);
}

int
plan_item_follows(const struct plan_item *it)
{
	return it->reason == PLAN_REASON_UPSTREAM_REBUILT ||
	       (it->reason == PLAN_REASON_VERSION_GROUP && it->cause >= 0);
}

static void
chain_root(struct plan *p, size_t i)
{
	struct plan_item *it = &p->items[i];
	long at = it->cause;
	size_t guard = 0;

	it->root_cause = -1;
	while (at >= 0 && guard++ < p->n) {
		const struct plan_item *up = &p->items[at];

		if (!plan_item_follows(up)) {
			it->root_cause = at;
			return;
		}
		at = up->cause;
	}
}

/*
 * The closure's nodes ordered by topological level (0: no upstream in the
 * closure; else one more than the deepest upstream), by index within a
 * level, into order[]; level starts into starts[] (n_levels + 1 of them).
 */
static int
levels(const struct graph *g, const unsigned char *in, size_t **order,
       size_t **starts, size_t *n_levels, struct error *err)
{
	size_t n = g->n_nodes, i, k, top = 0, at;
	size_t *lev = mem_calloc(n + 1, sizeof(*lev));
	size_t *count = NULL;

	*order = mem_calloc(n + 1, sizeof(**order));
	if (!lev || !*order)
		goto oom;
	for (i = 0; i < n; i++) {
		const struct graph_node *node = &g->nodes[i];

		if (!in[i])
			continue;
		for (k = 0; k < node->n_deps; k++)
			if (in[node->deps[k]] && lev[node->deps[k]] + 1 > lev[i])
				lev[i] = lev[node->deps[k]] + 1;
		if (lev[i] > top)
			top = lev[i];
	}
	count = mem_calloc(top + 2, sizeof(*count));
	*starts = mem_calloc(top + 2, sizeof(**starts));
	if (!count || !*starts)
		goto oom;
	for (i = 0; i < n; i++)
		if (in[i])
			count[lev[i] + 1]++;
	for (i = 1; i <= top + 1; i++)
		count[i] += count[i - 1];
	memcpy(*starts, count, (top + 2) * sizeof(*count));
	for (i = 0; i < n; i++)
		if (in[i]) {
			at = count[lev[i]]++;
			(*order)[at] = i;
		}
	*n_levels = top + 1;
	mem_free(count);
	mem_free(lev);
	return 0;
oom:
	mem_free(count);
	mem_free(lev);
	return error_set(err, ERROR_NOMEM, "out of memory");
}

/* Hand one level's ids and keys to the history's prefetch. */
static int
prefetch(const struct graph *g, const struct plan *p,
	 const struct plan_history *h, const size_t *idx, size_t n,
	 struct error *err)
{
	const char **ids = mem_calloc(n + 1, sizeof(*ids));
	const char **keys = mem_calloc(n + 1, sizeof(*keys));
	size_t i;
	int rc;

	if (!ids || !keys) {
		mem_free(ids);
		mem_free(keys);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		ids[i] = g->nodes[idx[i]].id;
		keys[i] = p->keys->keys[idx[i]].key.hex;
	}
	rc = h->prefetch(h->payload, ids, keys, n, err);
	mem_free(ids);
	mem_free(keys);
	return rc;
}

/* Keys of one level's nodes, a prefetch, then each node's decision
 * (counted by compute_pass once all are decided). */
static int
decide_level(struct ctx *c, struct graph_key_sources *fwd,
	     const struct plan_history *hist, const struct plan_options *o,
	     const size_t *idx, size_t n, struct error *err)
{
	struct plan *p = c->p;
	size_t k;
	int rc = 0;

	for (k = 0; !rc && k < n; k++) {
		rc = graph_keys_node(c->g, p->keys, idx[k], fwd, err);
		if (rc)
			error_node(err, c->g->nodes[idx[k]].id);
	}
	if (!rc && hist->prefetch && o->reuse == PLAN_REUSE_SCOPE_ANY &&
	    !o->forced_reason)
		rc = prefetch(c->g, p, hist, idx, n, err);
	for (k = 0; !rc && k < n; k++) {
		rc = decide(c, idx[k], hist, o, err);
		if (rc)
			error_node(err, c->g->nodes[idx[k]].id);
	}
	return rc;
}

/* One pass over the closure with the group members `forced` so far. */
static int
compute_pass(const struct graph *g, const unsigned char *selected,
	     const unsigned char *closure,
	     const struct graph_key_sources *src,
	     const struct plan_history *hist,
	     const struct plan_options *opts, const long *forced,
	     int *groups, struct plan **out, struct error *err)
{
	struct plan *p = mem_calloc(1, sizeof(*p));
	struct ctx c = { g, src, p, forced };
	struct graph_key_sources fwd = { fwd_source, fwd_toolkit,
					 reused_digest, &c, reused_group };
	size_t *order = NULL, *starts = NULL, n_levels = 0, i;
	int rc = 0;

	*out = NULL;
	if (!p)
		return error_set(err, ERROR_NOMEM, "out of memory");
	arena_init(&p->arena);
	p->n = g->n_nodes;
	p->items = arena_alloc(&p->arena, (p->n + 1) * sizeof(*p->items));
	p->in_closure = arena_alloc(&p->arena, p->n + 1);
	if (!p->items || !p->in_closure) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < p->n; i++)
		p->in_closure[i] = closure ? closure[i] : 1;
	rc = plan_groups_link(g, p, err);
	if (rc >= 0) {
		*groups = rc;
		rc = graph_keys_new(g, &p->keys, err);
	}
	for (i = 0; !rc && i < p->n; i++) {
		struct plan_item *it = &p->items[i];

		it->node = i;
		it->cause = it->root_cause = -1;
		it->selected = selected ? selected[i] : 1;
		if (!p->in_closure[i]) {
			it->decision = PLAN_SKIP;
			it->reason = PLAN_REASON_NOT_SELECTED;
		}
	}
	if (!rc)
		rc = levels(g, p->in_closure, &order, &starts, &n_levels, err);
	for (i = 0; !rc && i < n_levels; i++)
		rc = decide_level(&c, &fwd, hist, opts, order + starts[i],
				  starts[i + 1] - starts[i], err);
	/* After every decision: a group's cause may come later in order. */
	for (i = 0; !rc && i < p->n; i++) {
		const struct plan_item *it = &p->items[i];

		if (p->in_closure[i] && plan_item_follows(it))
			chain_root(p, i);
		else if (p->in_closure[i] && it->decision != PLAN_REUSE &&
			 it->reason != PLAN_REASON_BASELINE_DEFERRED)
			p->root_causes++;
		p->counts[it->decision]++;
	}
done:
	mem_free(order);
	mem_free(starts);
	if (rc) {
		plan_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

/*
 * Passes until version groups are settled: each pass forces the reused
 * members of groups that must rebuild, and the next recomputes their
 * users. Forcing only grows, so at most one pass per node.
 */
int
plan_compute(const struct graph *g, const unsigned char *selected,
	     const unsigned char *closure,
	     const struct graph_key_sources *src,
	     const struct plan_history *hist,
	     const struct plan_options *opts, struct plan **out,
	     struct error *err)
{
	struct plan *p = NULL;
	long *forced = NULL;
	size_t i;
	int rc, groups = 0;

	*out = NULL;
	rc = compute_pass(g, selected, closure, src, hist, opts, NULL,
			  &groups, &p, err);
	if (rc || !groups)
		goto done;
	forced = mem_calloc(g->n_nodes + 1, sizeof(*forced));
	if (!forced) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < g->n_nodes; i++)
		forced[i] = -1;
	while (plan_groups_force(g, p, forced, opts->versions,
				 opts->n_versions)) {
		plan_free(p);
		p = NULL;
		rc = compute_pass(g, selected, closure, src, hist, opts,
				  forced, &groups, &p, err);
		if (rc)
			goto done;
	}
done:
	mem_free(forced);
	if (!rc)
		rc = plan_predict_cutoff(g, p, hist, opts, err);
	if (rc) {
		plan_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void
plan_free(struct plan *p)
{
	if (!p)
		return;
	graph_keys_free(p->keys);
	arena_release(&p->arena);
	mem_free(p);
}
