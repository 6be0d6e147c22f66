/*
 * Plan histories: baseline records from the cache, or keys of a base
 * commit; records by key from the record sources (engine/plan/source.h:
 * the local cache, then the remote one), in order; key components and
 * input file lists converted for explanations.
 */
#include "engine/plan/history.h"

#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "cache/remote.h"
#include "engine/plan/eval.h"
#include "engine/plan/filediff.h"
#include "engine/plan/plan.h"
#include "engine/plan/record.h"
#include "engine/plan/remote.h"
#include "engine/plan/source.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "graph/repo.h"
#include "graph/source.h"
#include "base/banned.h"

struct history {
	struct plan_history ph;
	struct cache *cache;
	struct plan_remote *remote;	/* borrowed, or NULL */
	struct record_source *src[2];	/* records by key, in order */
	size_t n_src;
	struct record_source *local;	/* src's local cache, or NULL */
	char reader[REMOTE_DOMAIN_SIZE];	/* trust domain read for,
						   "": the trusted one */
	char *run;
	struct cache_record_list run_recs;	/* run's records, by node id
						   (read on first use) */
	int run_recs_read;
	int by_node;		/* 1: records read one by one instead */
	const char *rules_file;	/* the planner's --rules, or NULL */
	struct eval *base, *head;
	struct eval *run_eval;	/* the baseline run's commit, owned */
	const struct graph *run_graph;	/* its graph (or head's), NULL */
	int run_graph_tried;
	struct graph_keys *base_keys;
	struct plan *base_plan;	/* remote baseline: the base's reuse */
	const struct graph *planning;	/* the graph being planned when not
					   head's (the remote baseline's) */
	struct arena arena;	/* records and components handed out */
};

int
history_set_reader(struct history *h, const char *domain, struct error *err)
{
	if (domain && domain[0] && !remote_domain_valid(domain))
		return error_set(err, ERROR_INVALID, "'%.80s' is not a trust "
				 "domain id", domain);
	snprintf(h->reader, sizeof(h->reader), "%s", domain ? domain : "");
	if (h->local && record_source_local_reader(h->local, h->reader))
		return error_set(err, ERROR_INVALID, "'%.80s' is not a trust "
				 "domain id", h->reader);
	return 0;
}

/* Components of a record, from the source that handed it out. */
static int
run_components(void *payload, struct plan_record *rec, struct error *err)
{
	struct history *h = payload;

	if (!rec->source)
		return 0;
	return rec->source->ops->components(rec->source, &h->arena, rec,
					    err);
}

/* run_record for one node, read alone (history_records_by_node). */
static int
run_record_one(struct history *h, const char *id, struct plan_record *out,
	       struct error *err)
{
	struct cache_record rec;
	struct error e2;
	int rc, ok;

	error_init(&e2);
	rc = cache_record_get(h->cache, h->run, id, &rec, &e2);
	if (rc && rc != ERROR_NOT_FOUND)
		*err = e2;
	if (rc)
		return rc == ERROR_NOT_FOUND ? 0 : rc;
	ok = record_source_allows(h->reader, &rec);	/* 0: not this
							   reader's to reuse */
	rc = ok ? record_source_fill(h->cache, &h->arena, &rec, out, err) : 0;
	out->source = h->local;
	cache_record_release(&rec);
	return rc ? rc : ok;
}

/*
 * The baseline run's record of node `id`: the run's records are read in
 * one query on first use (ordered by node id, as SQLite's binary
 * collation orders bytes) and searched, instead of one query a node.
 */
static int
run_record(void *payload, const char *id, struct plan_record *out,
	   struct error *err)
{
	struct history *h = payload;
	const struct cache_record_list *l = &h->run_recs;
	size_t lo = 0, hi, mid;
	int rc, c;

	if (h->by_node && !h->run_recs_read)
		return run_record_one(h, id, out, err);
	if (!h->run_recs_read) {
		rc = cache_record_list(h->cache, h->run, &h->run_recs, err);
		if (rc)
			return rc;
		h->run_recs_read = 1;
	}
	for (hi = l->n; lo < hi;) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(l->items[mid].node_id, id);
		if (!c && !record_source_allows(h->reader, &l->items[mid]))
			return 0;	/* not this reader's to reuse */
		if (!c) {
			rc = record_source_fill(h->cache, &h->arena,
						&l->items[mid], out, err);
			out->source = h->local;
			return rc ? rc : 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * 1 when remote hit `hit` lists only outputs its node declares in the
 * rules being planned (head's, or the merge base's for a remote
 * baseline); else source `s`, which handed it out, drops it, and it is
 * reported as a fault: 0 (a miss, the node rebuilds) or, with
 * --remote-required, the error.
 */
static int
writes_only_outputs(struct history *h, struct record_source *s,
		    const struct plan_remote_hit *hit, const char *key,
		    struct error *err)
{
	const struct graph *g = h->planning ? h->planning
			      : h->head ? h->head->graph : h->run_graph;
	const struct graph_node *n = g ? graph_find(g, hit->node_id) : NULL;
	struct error e;

	/*
	 * A history made without rules (no head: a library caller's) has
	 * nothing to check against; whoever places the hit's bytes checks
	 * them again (engine/run/remote.c, fetch).
	 */
	if (!g)
		return 1;
	error_init(&e);
	if (n && !plan_remote_outputs_check(hit, (const char *const *)
					    n->outputs, n->n_outputs, &e))
		return 1;
	if (!n)
		error_set(&e, ERROR_CORRUPT, "remote cache %s: the entry of %s "
			  "key %s names a node the rules do not have",
			  hit->url, hit->node_id, key);
	error_node(&e, hit->node_id);
	if (s->ops->drop)
		s->ops->drop(s, key);
	return plan_remote_fault(h->remote, &e, err);
}

/*
* The planner asks for the nth record of one key in turn (0: the newest):
 * those of the first source (the local cache, newest first), then the
 * next (the remote cache's one).
 */
static int
any_record(void *payload, const char *key, size_t nth,
	   struct plan_record *out, struct error *err)
{
	struct history *h = payload;
	size_t i, base = 0, n;
	int rc;

	for (i = 0; i < h->n_src; i++) {
		struct record_source *s = h->src[i];

		rc = s->ops->count(s, key, &n, err);
		if (rc)
			return rc;
		if (nth < base + n) {
			rc = s->ops->get(s, &h->arena, key, nth - base, out,
					 err);
			if (rc)
				return rc;
			return out->remote ? writes_only_outputs(h, s,
								 out->remote,
								 key, err) : 1;
		}
		base += n;
	}
	return 0;
}

/*
 * One level's keys: each source that looks up ahead (the remote cache)
 * gets, in one batch, the keys no source before it holds a record of.
 */
static int
any_prefetch(void *payload, const char *const *ids, const char *const *keys,
	     size_t n, struct error *err)
{
	struct history *h = payload;
	const char **want_id = mem_calloc(n + 1, sizeof(*want_id));
	const char **want_key = mem_calloc(n + 1, sizeof(*want_key));
	size_t i, k, m, have;
	int rc = 0;

	if (!want_id || !want_key) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	for (k = 0; !rc && k < h->n_src; k++) {
		if (!h->src[k]->ops->prefetch)
			continue;
		for (i = 0, m = 0; !rc && i < n; i++) {
			size_t j;

			for (j = 0, have = 0; !rc && !have && j < k; j++)
				rc = h->src[j]->ops->count(h->src[j], keys[i],
							   &have, err);
			if (!have) {
				want_id[m] = ids[i];
				want_key[m++] = keys[i];
			}
		}
		if (!rc)
			rc = h->src[k]->ops->prefetch(h->src[k], want_id,
						      want_key, m, err);
	}
done:
	mem_free(want_id);
	mem_free(want_key);
	return rc;
}

static int
new_side(struct history *h, struct arena *a, const char *name,
	 struct filediff_entry **v, size_t *n, struct error *err)
{
	const struct graph_source_state *st;
	int rc = eval_input_by_name(h->head, name, &st, err);

	if (rc <= 0)
		return rc;
	rc = filediff_from_state(a, st, v, n, err);
	return rc ? rc : 1;
}

static int
run_input_diff(void *payload, struct arena *a, const char *name,
	       const char *old_key, const char *new_key,
	       struct plan_file_diff **out, size_t *n, struct error *err)
{
	struct history *h = payload;
	struct filediff_entry *o, *nv = NULL;
	size_t no, nn = 0;
	int rc;

	(void)new_key;
	/* From the tree diff since the run's commit where that is sure. */
	rc = h->run && h->head ? eval_input_changes(h->head, name, h->cache,
						    h->run, old_key, a, out,
						    n, err) : 0;
	if (rc)
		return rc;
	rc = filediff_from_cache(h->cache, a, old_key, &o, &no, err);
	if (rc <= 0)
		return rc;
	rc = new_side(h, a, name, &nv, &nn, err);
	if (rc <= 0)
		return rc;
	rc = filediff_compare(a, o, no, nv, nn, out, n, err);
	return rc ? rc : 1;
}

/*
 * The graph at the baseline run's commit, evaluated once: the head's own
 * when the run is at the head's commit. Left NULL when it cannot be told
 * (no commit recorded, rules that do not load there): the caller then
 * keeps `new-node`, as before. Only running out of memory is an error.
 */
static int
load_run_graph(struct history *h, struct error *err)
{
	struct error_list errors;
	struct cache_run run;
	struct error e2;
	int rc;

	h->run_graph_tried = 1;
	memset(&run, 0, sizeof(run));
	error_init(&e2);
	rc = cache_run_get(h->cache, h->run, &run, &e2);
	if (rc || !run.commit) {
		cache_run_release(&run);
		if (rc != ERROR_NOMEM)
			return 0;
		*err = e2;
		return rc;
	}
	if (!h->head->worktree && !strcmp(run.commit, h->head->commit_hex)) {
		h->run_graph = h->head->graph;
		cache_run_release(&run);
		return 0;
	}
	error_list_init(&errors, 1);
	rc = eval_open(h->head->repo, run.commit, 0, h->rules_file,
		       &h->head->limits, &errors, &h->run_eval, &e2);
	error_list_release(&errors);
	cache_run_release(&run);
	if (rc == ERROR_NOMEM) {
		*err = e2;
		return rc;
	}
	if (!rc)
		h->run_graph = h->run_eval->graph;
	return 0;
}

static int
hidden(void *payload, const char *id, const char *key, const char **run,
       const char **domain, const char **reader, struct error *err)
{
	struct history *h = payload;

	*reader = h->reader;
	return record_source_local_hidden(h->local, h->run, id, key, run,
					  domain, err);
}

static int
run_declared(void *payload, const char *id, struct error *err)
{
	struct history *h = payload;
	int rc;

	if (!h->run_graph_tried) {
		rc = load_run_graph(h, err);
		if (rc)
			return rc;
	}
	return h->run_graph && graph_find(h->run_graph, id) ? 1 : 0;
}

int
history_from_run(struct cache *c, struct plan_remote *remote,
		 const char *run_id, const char *label, const char *rules_file,
		 struct eval *head, struct history **out, struct error *err)
{
	struct history *h = mem_calloc(1, sizeof(*h));

	*out = NULL;
	if (!h)
		return error_set(err, ERROR_NOMEM, "out of memory");
	arena_init(&h->arena);
	h->cache = c;
	h->remote = remote;
	h->head = head;
	h->ph.payload = h;
	if ((c && record_source_local(c, &h->src[h->n_src++], err)) ||
	    (remote && record_source_remote(remote, NULL, &h->src[h->n_src++],
					    err))) {
		history_free(h);
		return ERROR_NOMEM;
	}
	h->local = c ? h->src[0] : NULL;
	if (c)
		h->ph.hidden_record = hidden;
	if (h->n_src) {
		h->ph.record_by_key = any_record;
		h->ph.record_components = run_components;
	}
	if (remote)
		h->ph.prefetch = any_prefetch;
	if (c)
		h->ph.input_diff = run_input_diff;
	if (c && run_id) {
		h->run = arena_strdup(&h->arena, run_id);
		h->rules_file = rules_file;
		h->ph.baseline_record = run_record;
		h->ph.baseline_declared = run_declared;
		h->ph.has_baseline = 1;
		h->ph.baseline_label = arena_strdup(&h->arena,
						    label ? label : run_id);
		if (!h->run || !h->ph.baseline_label) {
			history_free(h);
			return error_set(err, ERROR_NOMEM, "out of memory");
		}
	}
	*out = h;
	return 0;
}

static int
base_record(void *payload, const char *id, struct plan_record *out,
	    struct error *err)
{
	struct history *h = payload;
	const struct graph_node *n = graph_find(h->base->graph, id);
	const struct graph_node_key *k;
	int rc;

	if (!n)
		return 0;
	if (!h->base_keys) {
		rc = eval_prefetch(h->base, NULL, err);
		if (!rc)
			rc = graph_keys_compute(h->base->graph, NULL,
						&h->base->sources,
						&h->base_keys, err);
		if (rc)
			return rc;
	}
	k = &h->base_keys->keys[n->index];
	memset(out, 0, sizeof(*out));
	out->run_id = "base";
	out->key = k->key.hex;
	out->ok = 1;
	out->components = k->components;
	out->n_components = k->n_components;
	return 1;
}

static int
base_input_diff(void *payload, struct arena *a, const char *name,
		const char *old_key, const char *new_key,
		struct plan_file_diff **out, size_t *n, struct error *err)
{
	struct history *h = payload;
	const struct graph_source_state *st;
	struct filediff_entry *o, *nv = NULL;
	size_t no, nn = 0;
	int rc;

	(void)old_key;
	(void)new_key;
	rc = eval_input_by_name(h->base, name, &st, err);
	if (rc <= 0)
		return rc;
	rc = filediff_from_state(a, st, &o, &no, err);
	if (rc)
		return rc;
	rc = new_side(h, a, name, &nv, &nn, err);
	if (rc <= 0)
		return rc;
	rc = filediff_compare(a, o, no, nv, nn, out, n, err);
	return rc ? rc : 1;
}

int
history_from_eval(struct eval *base, struct eval *head, struct history **out,
		  struct error *err)
{
	struct history *h = mem_calloc(1, sizeof(*h));

	*out = NULL;
	if (!h)
		return error_set(err, ERROR_NOMEM, "out of memory");
	arena_init(&h->arena);
	h->base = base;
	h->head = head;
	h->ph.payload = h;
	h->ph.baseline_record = base_record;
	h->ph.input_diff = base_input_diff;
	h->ph.has_baseline = 1;
	h->ph.baseline_label = arena_printf(&h->arena,
					    "base commit %.9s (assumed built)",
					    base->commit_hex);
	if (!h->ph.baseline_label) {
		history_free(h);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	*out = h;
	return 0;
}

static int
remote_base_record(void *payload, const char *id, struct plan_record *out,
		   struct error *err)
{
	struct history *h = payload;
	const struct graph_node *n = graph_find(h->base->graph, id);
	const struct graph_node_key *k;
	const struct plan_item *it;

	(void)err;
	if (!n || h->base_plan->items[n->index].decision != PLAN_REUSE)
		return 0;
	it = &h->base_plan->items[n->index];
	k = &h->base_plan->keys->keys[n->index];
	memset(out, 0, sizeof(*out));
	out->run_id = it->reused_run;
	out->key = k->key.hex;
	out->ok = 1;
	out->output_digest = it->output_digest;
	out->key_digest = it->key_digest;
	out->output_groups = it->output_groups;
	out->components = k->components;
	out->n_components = k->n_components;
	out->remote = it->remote;
	return 1;
}

int
history_from_remote_base(struct cache *c, struct plan_remote *remote,
			 struct eval *base, struct eval *head,
			 const char *const *targets, size_t n_targets,
			 size_t *found, struct history **out,
			 struct error *err)
{
	struct plan_options po = { .reuse = PLAN_REUSE_SCOPE_ANY };
	size_t nn = base->graph->n_nodes, i;
	unsigned char *sel = NULL, *clo = NULL;
	struct history *h;
	struct error e2;
	int rc;

	*found = 0;
	rc = history_from_run(c, remote, NULL, NULL, NULL, head, out, err);
	if (rc)
		return rc;
	h = *out;
	h->base = base;
	sel = mem_calloc(nn + 1, 1);
	clo = mem_calloc(nn + 1, 1);
	if (!sel || !clo) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	error_init(&e2);
	/* A target the base does not have yet: look up the whole base. */
	if (graph_select(base->graph, targets, n_targets, sel, clo, &e2))
		memset(clo, 1, nn);
	h->planning = base->graph;
	rc = eval_prefetch(base, clo, err);
	if (!rc)
		rc = plan_compute(base->graph, NULL, clo, &base->sources,
				  &h->ph, &po, &h->base_plan, err);
	h->planning = NULL;
	if (rc)
		goto done;
	for (i = 0; i < nn; i++)
		*found += h->base_plan->items[i].decision == PLAN_REUSE;
	h->ph.baseline_record = remote_base_record;
	h->ph.input_diff = base_input_diff;
	h->ph.has_baseline = 1;
	h->ph.baseline_label = arena_printf(&h->arena, "records of merge base "
					    "%.9s's keys in %s",
					    base->commit_hex,
					    plan_remote_url(remote));
	if (!h->ph.baseline_label)
		rc = error_set(err, ERROR_NOMEM, "out of memory");
done:
	mem_free(sel);
	mem_free(clo);
	if (rc) {
		h->base = NULL;
		history_free(h);
		*out = NULL;
	}
	return rc;
}

int
history_remote_only(struct history *h, const char *ns, struct error *err)
{
	size_t i;

	for (i = 0; i < h->n_src; i++)
		record_source_free(h->src[i]);
	h->n_src = 0;
	h->local = NULL;
	h->cache = NULL;
	h->ph.input_diff = NULL;
	if (!h->remote)
		return 0;
	if (record_source_remote(h->remote, ns, &h->src[0], err))
		return ERROR_NOMEM;
	h->n_src = 1;
	return 0;
}

void
history_records_by_node(struct history *h)
{
	if (h && h->run && !h->run_recs_read)
		h->by_node = 1;
}

void
history_give_run_records(struct history *h, struct cache_record_list *recs)
{
	if (h && h->run && !h->run_recs_read) {
		h->run_recs = *recs;
		h->run_recs_read = 1;
		recs->items = NULL;
		recs->n = 0;
		return;
	}
	cache_record_list_release(recs);
}

const struct plan *
history_base_plan(const struct history *h)
{
	return h ? h->base_plan : NULL;
}

const struct plan_history *
history_plan(struct history *h)
{
	return &h->ph;
}

void
history_free(struct history *h)
{
	if (!h)
		return;
	graph_keys_free(h->base_keys);
	cache_record_list_release(&h->run_recs);
	while (h->n_src)
		record_source_free(h->src[--h->n_src]);
	eval_free(h->run_eval);
	plan_free(h->base_plan);
	arena_release(&h->arena);
	mem_free(h);
}
