/*
 * Run diffs: a merge walk over two runs' records by node id; for each key
 * that differs, explain_components over the two stored key manifests with
 * file lists from the stored source manifests; then cascade chains.
 */
#include "engine/plan/rundiff.h"

#include <string.h>

#include "base/error.h"
#include "base/fnmatch.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "engine/plan/explain.h"
#include "engine/plan/filediff.h"
#include "engine/plan/history.h"
#include "engine/plan/source.h"
#include "graph/key.h"
#include "base/banned.h"

static const char *const status_names[] = {
	[RUNDIFF_STATUS_CHANGED] = "changed",
	[RUNDIFF_STATUS_ADDED] = "added",
	[RUNDIFF_STATUS_REMOVED] = "removed",
};

const char *
rundiff_status_name(enum rundiff_status s)
{
	return status_names[s];
}

/* input_diff for explain_components: both file lists from the cache. */
static int
stored_input_diff(void *payload, struct arena *a, const char *name,
		  const char *old_key, const char *new_key,
		  struct plan_file_diff **out, size_t *n, struct error *err)
{
	struct cache *c = payload;
	struct filediff_entry *o, *nv;
	size_t no, nn;
	int rc;

	(void)name;
	rc = filediff_from_cache(c, a, old_key, &o, &no, err);
	if (rc <= 0)
		return rc;
	rc = filediff_from_cache(c, a, new_key, &nv, &nn, err);
	if (rc <= 0)
		return rc;
	rc = filediff_compare(a, o, no, nv, nn, out, n, err);
	return rc ? rc : 1;
}

/* The components stored for `key`: 1 and *v, *n; 0 when not stored. */
static int
stored_components(struct cache *c, struct arena *a, const char *key,
		  const struct graph_component **v, size_t *n,
		  struct error *err)
{
	struct cache_manifest m;
	struct error e2;
	int rc;

	memset(&m, 0, sizeof(m));
	error_init(&e2);
	if (cache_manifest_get(c, key, &m, &e2))
		return 0;
	rc = record_source_components(a, &m, v, n);
	cache_manifest_release(&m);
	return rc ? error_set(err, ERROR_NOMEM, "out of memory") : 1;
}

static int
explain_node(struct cache *c, struct rundiff *d, struct rundiff_node *x,
	     struct error *err)
{
	struct plan_history h;
	const struct graph_component *ov, *nv;
	struct explain_diff e;
	size_t on, nn;
	int rc;

	x->reason = PLAN_REASON_KEY_CHANGED;
	rc = stored_components(c, &d->arena, x->old_key, &ov, &on, err);
	if (rc <= 0)
		return rc;
	rc = stored_components(c, &d->arena, x->new_key, &nv, &nn, err);
	if (rc <= 0)
		return rc;
	memset(&h, 0, sizeof(h));
	h.input_diff = stored_input_diff;
	h.payload = c;
	rc = explain_components(&d->arena, ov, on, nv, nn, &h, &e, err);
	if (rc) {
		error_node(err, x->id);
		return rc;
	}
	x->reason = e.reason;
	x->changes = e.changes;
	x->n_changes = e.n_changes;
	return 0;
}

static struct rundiff_node *
find(struct rundiff_node *v, size_t n, const char *id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v[mid].id, id);

		if (!c)
			return &v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* cascade_of: the first differing upstream in the diff, else the first. */
static void
link_cascades(struct rundiff_node *v, size_t n)
{
	size_t i, k, guard;

	for (i = 0; i < n; i++) {
		struct rundiff_node *x = &v[i];

		if (x->status != RUNDIFF_STATUS_CHANGED ||
		    x->reason != PLAN_REASON_UPSTREAM_REBUILT)
			continue;
		for (k = 0; k < x->n_changes && !x->cascade_of; k++)
			if (x->changes[k].kind == PLAN_CHANGE_UPSTREAM &&
			    find(v, n, x->changes[k].name))
				x->cascade_of = x->changes[k].name;
		for (k = 0; k < x->n_changes && !x->cascade_of; k++)
			if (x->changes[k].kind == PLAN_CHANGE_UPSTREAM)
				x->cascade_of = x->changes[k].name;
	}
	for (i = 0; i < n; i++) {
		const struct rundiff_node *at = &v[i];

		if (!v[i].cascade_of)
			continue;
		for (guard = 0; at && at->cascade_of && guard <= n; guard++) {
			const struct rundiff_node *up =
				find(v, n, at->cascade_of);

			v[i].root_cause = at->cascade_of;
			at = up;
		}
	}
}

/* Both built ok with one key, yet their outputs differ. */
static int
output_differs(const struct cache_record *o, const struct cache_record *n)
{
	return o->status == CACHE_RECORD_STATUS_OK &&
	       n->status == CACHE_RECORD_STATUS_OK && o->output_digest &&
	       n->output_digest && strcmp(o->output_digest, n->output_digest);
}

/*
 * The cause nothing in the key shows: the action made other bytes from
 * the same inputs. Users of the node then differ as cascades of it.
 */
static int
same_key_other_output(struct rundiff *d, struct rundiff_node *v,
		      const struct cache_record *o,
		      const struct cache_record *n)
{
	struct plan_change *c = arena_alloc(&d->arena, sizeof(*c));

	if (!c)
		return ERROR_NOMEM;
	v->reason = PLAN_REASON_NOT_REPRODUCIBLE;
	c->kind = PLAN_CHANGE_OTHER;
	c->name = "output-digest";
	c->old_value = arena_strdup(&d->arena, o->output_digest);
	c->new_value = arena_strdup(&d->arena, n->output_digest);
	if (!c->old_value || !c->new_value)
		return ERROR_NOMEM;
	v->changes = c;
	v->n_changes = 1;
	return 0;
}

static int
matches(const char *id, const char *const *globs, size_t n)
{
	size_t i;

	if (!n)
		return 1;
	for (i = 0; i < n; i++)
		if (fnmatch_match(globs[i], id))
			return 1;
	return 0;
}

static int
check_run(struct cache *c, const char *id, struct error *err)
{
	struct cache_run run;
	int rc;

	memset(&run, 0, sizeof(run));
	rc = cache_run_get(c, id, &run, err);
	if (rc == ERROR_NOT_FOUND)
		error_hint(err, "`ripple runs` lists the recorded runs");
	cache_run_release(&run);
	return rc;
}

/* Every node either run recorded, with keys, before explanation. */
static int
merge(struct rundiff *d, const struct cache_record_list *a,
      const struct cache_record_list *b, struct error *err)
{
	size_t x = 0, y = 0;

	d->nodes = arena_alloc(&d->arena, (a->n + b->n + 1) *
					  sizeof(*d->nodes));
	if (!d->nodes)
		return error_set(err, ERROR_NOMEM, "out of memory");
	while (x < a->n || y < b->n) {
		const struct cache_record *o = NULL, *n = NULL;
		int c = x >= a->n ? 1 : y >= b->n ? -1
			: strcmp(a->items[x].node_id, b->items[y].node_id);
		struct rundiff_node *v = &d->nodes[d->n];

		if (c <= 0)
			o = &a->items[x++];
		if (c >= 0)
			n = &b->items[y++];
		if (o && n && !strcmp(o->key, n->key) &&
		    !output_differs(o, n))
			continue;
		memset(v, 0, sizeof(*v));
		v->id = arena_strdup(&d->arena, (o ? o : n)->node_id);
		v->old_key = o ? arena_strdup(&d->arena, o->key) : NULL;
		v->new_key = n ? arena_strdup(&d->arena, n->key) : NULL;
		v->status = !o ? RUNDIFF_STATUS_ADDED
			: !n ? RUNDIFF_STATUS_REMOVED : RUNDIFF_STATUS_CHANGED;
		if (!v->id || (o && !v->old_key) || (n && !v->new_key))
			return error_set(err, ERROR_NOMEM, "out of memory");
		if (o && n && !strcmp(o->key, n->key) &&
		    same_key_other_output(d, v, o, n))
			return error_set(err, ERROR_NOMEM, "out of memory");
		d->n++;
	}
	return 0;
}

int
rundiff_compute(struct cache *c, const char *run_a, const char *run_b,
		const char *const *globs, size_t n_globs,
		struct rundiff **out, struct error *err)
{
	struct cache_record_list la = { NULL, 0 }, lb = { NULL, 0 };
	struct rundiff *d = mem_calloc(1, sizeof(*d));
	size_t i, k;
	int rc;

	*out = NULL;
	if (!d)
		return error_set(err, ERROR_NOMEM, "out of memory");
	arena_init(&d->arena);
	d->run_a = arena_strdup(&d->arena, run_a);
	d->run_b = arena_strdup(&d->arena, run_b);
	rc = check_run(c, run_a, err);
	if (!rc)
		rc = check_run(c, run_b, err);
	if (!rc)
		rc = cache_record_list(c, run_a, &la, err);
	if (!rc)
		rc = cache_record_list(c, run_b, &lb, err);
	if (!rc)
		rc = merge(d, &la, &lb, err);
	for (i = 0; !rc && i < d->n; i++)
		if (d->nodes[i].status == RUNDIFF_STATUS_CHANGED &&
		    d->nodes[i].reason != PLAN_REASON_NOT_REPRODUCIBLE)
			rc = explain_node(c, d, &d->nodes[i], err);
	if (rc)
		goto done;
	link_cascades(d->nodes, d->n);
	for (i = k = 0; i < d->n; i++) {
		struct rundiff_node *x = &d->nodes[i];

		if (!matches(x->id, globs, n_globs))
			continue;
		d->nodes[k++] = *x;
		if (x->status == RUNDIFF_STATUS_ADDED)
			d->n_added++;
		else if (x->status == RUNDIFF_STATUS_REMOVED)
			d->n_removed++;
		else if (x->cascade_of)
			d->n_cascades++;
		else
			d->n_root_causes++;
	}
	d->n = k;
done:
	cache_record_list_release(&la);
	cache_record_list_release(&lb);
	if (rc) {
		rundiff_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void
rundiff_free(struct rundiff *d)
{
	if (!d)
		return;
	arena_release(&d->arena);
	mem_free(d);
}
