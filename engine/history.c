/*
 * Plan histories: baseline records from the cache, or keys of a base
 * commit; key components and input file lists converted for explanations.
 */
#include "engine/history.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "engine/eval.h"
#include "engine/plan.h"
#include "engine/record.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "graph/repo.h"
#include "graph/source.h"
#include "base/banned.h"

struct history {
	struct plan_history ph;
	struct cache *cache;
	char *run;
	struct eval *base, *head;
	struct graph_keys *base_keys;
	struct arena arena;	/* records and components handed out */
};

/* A file identity in the common form of both sides of a diff. */
struct fid {
	const char *path, *digest, *detail;
};

static int
comps_from_manifest(struct history *h, const struct cache_manifest *m,
		    const struct graph_component **out, size_t *n)
{
	struct graph_component *v = arena_alloc(&h->arena,
						(m->n + 1) * sizeof(*v));
	size_t i, k = 0;

	if (!v)
		return ERROR_NOMEM;
	for (i = 0; i < m->n; i++) {
		enum graph_comp_kind kind;

		if (graph_comp_kind_parse(m->items[i].kind, &kind))
			continue;
		v[k].kind = kind;
		v[k].name = arena_strdup(&h->arena, m->items[i].name);
		v[k].detail = arena_strdup(&h->arena, m->items[i].detail);
		snprintf(v[k].digest, sizeof(v[k].digest), "%s",
			 m->items[i].digest);
		k++;
	}
	*out = v;
	*n = k;
	return 0;
}

static int
artifact_missing(struct history *h, const struct cache_record *rec)
{
	size_t i;

	for (i = 0; i < rec->artifacts.n; i++) {
		const char *loc = rec->artifacts.v[i];
		char path[4096];
		struct stat st;

		if (strstr(loc, "://"))
			continue;	/* remote: not checked here */
		if (loc[0] == '/')
			snprintf(path, sizeof(path), "%s", loc);
		else if (h->head)
			snprintf(path, sizeof(path), "%s/%s",
				 graph_repo_root(h->head->repo), loc);
		else
			continue;
		if (stat(path, &st))
			return 1;
	}
	return 0;
}

static int
fill_record(struct history *h, const struct cache_record *rec,
	    struct plan_record *out, struct error *err)
{
	struct cache_manifest m;
	struct error e2;

	memset(out, 0, sizeof(*out));
	out->run_id = arena_strdup(&h->arena, rec->run);
	out->key = arena_strdup(&h->arena, rec->key);
	out->ok = rec->status == CACHE_RECORD_STATUS_OK;
	out->output_digest = rec->output_digest
		? arena_strdup(&h->arena, rec->output_digest) : NULL;
	out->artifact_missing = artifact_missing(h, rec);
	memset(&m, 0, sizeof(m));
	error_init(&e2);
	if (!cache_manifest_get(h->cache, rec->key, &m, &e2)) {
		if (comps_from_manifest(h, &m, &out->components,
					&out->n_components)) {
			cache_manifest_release(&m);
			return error_set(err, ERROR_NOMEM, "out of memory");
		}
	}
	cache_manifest_release(&m);
	return 0;
}

static int
run_record(void *payload, const char *id, struct plan_record *out,
	   struct error *err)
{
	struct history *h = payload;
	struct cache_record rec;
	struct error e2;
	int rc;

	cache_record_init(&rec);
	error_init(&e2);
	rc = cache_record_get(h->cache, h->run, id, &rec, &e2);
	if (rc == ERROR_NOT_FOUND) {
		cache_record_release(&rec);
		return 0;
	}
	if (rc) {
		*err = e2;
		cache_record_release(&rec);
		return rc;
	}
	rc = fill_record(h, &rec, out, err);
	cache_record_release(&rec);
	return rc ? rc : 1;
}

static int
any_record(void *payload, const char *key, struct plan_record *out,
	   struct error *err)
{
	struct history *h = payload;
	struct cache_record_list list = { NULL, 0 };
	int rc;

	rc = cache_record_find(h->cache, key, NULL, &list, err);
	if (rc)
		return rc;
	rc = 0;
	if (list.n)
		rc = fill_record(h, &list.items[0], out, err) ? -1 : 1;
	cache_record_list_release(&list);
	return rc < 0 ? err->code : rc;
}

static struct fid *
state_fids(struct arena *a, const struct graph_source_state *st, size_t *n)
{
	struct fid *v = arena_alloc(a, (st->n_files + 1) * sizeof(*v));
	char digest[128], detail[4200];
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < st->n_files; i++) {
		record_file_identity(&st->files[i], digest, sizeof(digest),
				     detail, sizeof(detail));
		v[i].path = st->files[i].path;
		v[i].digest = arena_strdup(a, digest);
		v[i].detail = arena_strdup(a, detail);
	}
	*n = st->n_files;
	return v;
}

static const char *
link_text(const char *detail)
{
	const char *arrow = detail ? strstr(detail, " -> ") : NULL;

	return arrow ? arrow + 4 : NULL;
}

static int
diff_fids(struct arena *a, const struct fid *o, size_t no,
	  const struct fid *n, size_t nn, struct plan_file_diff **out,
	  size_t *count)
{
	struct plan_file_diff *d = arena_alloc(a, (no + nn + 1) * sizeof(*d));
	size_t x = 0, y = 0, k = 0;

	if (!d)
		return ERROR_NOMEM;
	while (x < no || y < nn) {
		int c = x >= no ? 1 : y >= nn ? -1 : strcmp(o[x].path, n[y].path);

		if (c < 0) {
			d[k].path = o[x].path;
			d[k].status = PLAN_FILE_REMOVED;
			d[k].old_id = o[x].digest;
			k++;
			x++;
			continue;
		}
		if (c > 0) {
			d[k].path = n[y].path;
			d[k].status = PLAN_FILE_ADDED;
			d[k].new_id = n[y].digest;
			k++;
			y++;
			continue;
		}
		if (strcmp(o[x].digest, n[y].digest) ||
		    strcmp(o[x].detail, n[y].detail)) {
			const char *lo = link_text(o[x].detail),
				   *ln = link_text(n[y].detail);

			d[k].path = n[y].path;
			d[k].old_id = o[x].digest;
			d[k].new_id = n[y].digest;
			if (lo && ln && strcmp(lo, ln)) {
				d[k].status = PLAN_FILE_RETARGETED;
				d[k].old_id = arena_strdup(a, lo);
				d[k].new_id = arena_strdup(a, ln);
			} else if (!strcmp(o[x].digest, n[y].digest)) {
				d[k].status = PLAN_FILE_MODE;
				d[k].old_id = o[x].detail;
				d[k].new_id = n[y].detail;
			} else {
				d[k].status = PLAN_FILE_MODIFIED;
			}
			k++;
		}
		x++;
		y++;
	}
	*out = d;
	*count = k;
	return 0;
}

static int
new_side(struct history *h, struct arena *a, const char *name,
	 struct fid **v, size_t *n, struct error *err)
{
	const struct graph_source_state *st;
	int rc = eval_input_by_name(h->head, name, &st, err);

	if (rc <= 0)
		return rc;
	*v = state_fids(a, st, n);
	return *v ? 1 : error_set(err, ERROR_NOMEM, "out of memory");
}

static int
run_input_diff(void *payload, struct arena *a, const char *name,
	       const char *old_key, const char *new_key,
	       struct plan_file_diff **out, size_t *n, struct error *err)
{
	struct history *h = payload;
	struct cache_manifest m;
	struct fid *o, *nv = NULL;
	size_t i, no, nn = 0;
	struct error e2;
	int rc;

	(void)new_key;
	memset(&m, 0, sizeof(m));
	error_init(&e2);
	if (cache_manifest_get(h->cache, old_key, &m, &e2))
		return 0;	/* not stored: file detail unknown */
	o = arena_alloc(a, (m.n + 1) * sizeof(*o));
	if (!o) {
		cache_manifest_release(&m);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	for (i = no = 0; i < m.n; i++) {
		if (strcmp(m.items[i].kind, "file"))
			continue;
		o[no].path = arena_strdup(a, m.items[i].name);
		o[no].digest = arena_strdup(a, m.items[i].digest);
		o[no].detail = arena_strdup(a, m.items[i].detail);
		no++;
	}
	cache_manifest_release(&m);
	rc = new_side(h, a, name, &nv, &nn, err);
	if (rc <= 0)
		return rc;
	if (diff_fids(a, o, no, nv, nn, out, n))
		return error_set(err, ERROR_NOMEM, "out of memory");
	return 1;
}

int
history_from_run(struct cache *c, const char *run_id, const char *label,
		 struct eval *head, struct history **out, struct error *err)
{
	struct history *h = mem_calloc(1, sizeof(*h));

	*out = NULL;
	if (!h)
		return error_set(err, ERROR_NOMEM, "out of memory");
	arena_init(&h->arena);
	h->cache = c;
	h->head = head;
	h->ph.payload = h;
	if (c) {
		h->ph.record_by_key = any_record;
		h->ph.input_diff = run_input_diff;
	}
	if (c && run_id) {
		h->run = arena_strdup(&h->arena, run_id);
		h->ph.baseline_record = run_record;
		h->ph.has_baseline = 1;
		h->ph.baseline_label = arena_strdup(&h->arena,
						    label ? label : run_id);
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
		rc = graph_keys_compute(h->base->graph, NULL,
					&h->base->sources, &h->base_keys, err);
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
	struct fid *o, *nv = NULL;
	size_t no, nn = 0;
	int rc;

	(void)old_key;
	(void)new_key;
	rc = eval_input_by_name(h->base, name, &st, err);
	if (rc <= 0)
		return rc;
	o = state_fids(a, st, &no);
	if (!o)
		return error_set(err, ERROR_NOMEM, "out of memory");
	rc = new_side(h, a, name, &nv, &nn, err);
	if (rc <= 0)
		return rc;
	if (diff_fids(a, o, no, nv, nn, out, n))
		return error_set(err, ERROR_NOMEM, "out of memory");
	return 1;
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
	*out = h;
	return 0;
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
	arena_release(&h->arena);
	mem_free(h);
}
