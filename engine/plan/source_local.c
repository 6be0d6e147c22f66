/*
 * The local cache as a record source: the records of a key across every
 * run of the SQLite cache, newest first (the list of the key last asked
 * is kept), less those reused from a ref's own trust domain that the
 * reader's domain may not reuse; the manifests of their keys, and how a
 * stored record becomes a plan_record (shared with baselines in
 * history.c).
 */
#include "engine/plan/source.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "cache/remote.h"
#include "engine/plan/plan.h"
#include "engine/plan/record.h"
#include "graph/key.h"
#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")

struct local {
	struct record_source base;
	struct cache *c;			/* borrowed */
	struct cache_record_list list;		/* records of `key` the
						   reader may reuse */
	char key[CACHE_KEY_SIZE];		/* "" before the first */
	char reader[REMOTE_DOMAIN_SIZE];	/* the reader's domain, ""
						   the trusted one */
	int hidden;				/* 1: key's list left out
						   an ok record, this one: */
	char *hidden_run, *hidden_domain;	/* its run and domain */
};

/* The value of rec's metadata entry "NAME=", or NULL. */
static const char *
meta_value(const struct cache_record *rec, const char *name)
{
	size_t i, len = strlen(name);

	for (i = 0; i < rec->metadata.n; i++)
		if (!strncmp(rec->metadata.v[i], name, len))
			return rec->metadata.v[i] + len;
	return NULL;
}

const char *
record_source_domain(const struct cache_record *rec)
{
	const char *d = meta_value(rec, RECORD_SOURCE_DOMAIN_META);
	const char *from;

	if (d)
		return d;
	/* Reused from a ref's own domain before the domain was recorded:
	 * the label says so, the domain is unknown. */
	from = meta_value(rec, "reused-from-remote=");
	return from && strstr(from, ", this ref's domain (") ? "?" : NULL;
}

int
record_source_allows(const char *reader, const struct cache_record *rec)
{
	const char *d = record_source_domain(rec);

	if (!d)
		return 1;
	return reader && reader[0] && remote_domain_valid(d) &&
	       !strcmp(d, reader);
}

/*
 * The first recorded artifact stored at an absolute path that is gone, or
 * NULL. Only absolute locators name storage (a shared artifact folder);
 * a repository-relative one names where a run wrote its output in its own
 * checkout, which another clone (a CI runner) never has, and URLs are
 * checked by whoever fetches them. Checking those would defeat reuse on
 * every fresh clone.
 */
static const char *
artifact_missing(const struct cache_record *rec)
{
	size_t i;

	for (i = 0; i < rec->artifacts.n; i++) {
		const char *loc = rec->artifacts.v[i];
		struct stat st;

		if (loc[0] == '/' && stat(loc, &st))
			return loc;
	}
	return NULL;
}

/* "STATUS, output DIGEST" (or "none"), in the arena. */
static const char *
outcome_text(struct arena *a, const struct cache_record *rec)
{
	return arena_printf(a, "%s, output %s",
			    cache_record_status_name(rec->status),
			    rec->output_digest ? rec->output_digest : "none");
}

/* The first stored conflict of rec into out's conflict fields. */
static int
fill_conflict(struct cache *c, struct arena *a, const struct cache_record *rec,
	      struct plan_record *out, struct error *err)
{
	struct cache_record_list list = { NULL, 0 };
	int rc;

	out->conflict = 1;
	rc = cache_record_conflicts(c, rec->run, rec->node_id, &list, err);
	if (rc)
		return rc;
	out->conflict_have = outcome_text(a, rec);
	out->conflict_import = list.n ? outcome_text(a, &list.items[0]) : NULL;
	if (!out->conflict_have || (list.n && !out->conflict_import))
		rc = OOM(err);
	cache_record_list_release(&list);
	return rc;
}

int
record_source_fill(struct cache *c, struct arena *a,
		   const struct cache_record *rec, struct plan_record *out,
		   struct error *err)
{
	const char *gone = artifact_missing(rec);

	memset(out, 0, sizeof(*out));
	out->run_id = arena_strdup(a, rec->run);
	out->key = arena_strdup(a, rec->key);
	out->ok = rec->status == CACHE_RECORD_STATUS_OK;
	out->output_digest = rec->output_digest
		? arena_strdup(a, rec->output_digest) : NULL;
	out->key_digest = record_payload_digest(rec)
		? arena_strdup(a, record_payload_digest(rec)) : NULL;
	if (record_payload_digest(rec) && !out->key_digest)
		return OOM(err);
	out->version = rec->version ? arena_strdup(a, rec->version) : NULL;
	out->artifact_missing = gone != NULL;
	out->missing_artifact = gone ? arena_strdup(a, gone) : NULL;
	if (!out->run_id || !out->key || (rec->version && !out->version) ||
	    (rec->output_digest && !out->output_digest) ||
	    (gone && !out->missing_artifact))
		return OOM(err);
	{
		/* Output group digests (`needs: [NODE.GROUP]` keys). */
		struct buf groups;
		int grc;

		buf_init(&groups, 0);
		grc = record_groups_text(&rec->metadata, &groups, err);
		if (!grc && groups.len) {
			out->output_groups = arena_strdup(a, groups.data);
			if (!out->output_groups)
				grc = OOM(err);
		}
		buf_release(&groups);
		if (grc)
			return grc;
	}
	return c && rec->conflicts > 0 ? fill_conflict(c, a, rec, out, err)
				       : 0;
}

int
record_source_components(struct arena *a, const struct cache_manifest *m,
		   const struct graph_component **out, size_t *n)
{
	struct graph_component *v = arena_alloc(a, (m->n + 1) * sizeof(*v));
	size_t i, k = 0;

	if (!v)
		return ERROR_NOMEM;
	for (i = 0; i < m->n; i++) {
		enum graph_comp_kind kind;

		if (graph_comp_kind_parse(m->items[i].kind, &kind))
			continue;
		v[k].kind = kind;
		v[k].name = arena_strdup(a, m->items[i].name);
		v[k].detail = arena_strdup(a, m->items[i].detail);
		if (!v[k].name || !v[k].detail)
			return ERROR_NOMEM;
		snprintf(v[k].digest, sizeof(v[k].digest), "%s",
			 m->items[i].digest);
		k++;
	}
	*out = v;
	*n = k;
	return 0;
}

/* Remember rec as the record the reader may not reuse. */
static int
keep_hidden(struct local *l, const struct cache_record *rec,
	    struct error *err)
{
	const char *d = record_source_domain(rec);

	mem_free(l->hidden_run);
	mem_free(l->hidden_domain);
	l->hidden_run = mem_strdup(rec->run);
	l->hidden_domain = mem_strdup(d ? d : "?");
	l->hidden = l->hidden_run && l->hidden_domain;
	return l->hidden ? 0 : OOM(err);
}

/* Read the records of key into the kept list, unless they are there. */
static int
load(struct local *l, const char *key, struct error *err)
{
	size_t i, k;
	int rc;

	if (!strcmp(l->key, key))
		return 0;
	cache_record_list_release(&l->list);
	l->list.items = NULL;
	l->list.n = 0;
	l->key[0] = '\0';
	rc = cache_record_find(l->c, key, NULL, &l->list, err);
	if (rc)
		return rc;
	/* Keep the order (newest first) of the records the reader may
	 * reuse; the others are not there for it. */
	l->hidden = 0;
	for (i = 0, k = 0; i < l->list.n; i++) {
		struct cache_record *r = &l->list.items[i];

		if (record_source_allows(l->reader, r)) {
			if (k++ != i)
				l->list.items[k - 1] = *r;
			continue;
		}
		if (!rc && !l->hidden && r->status == CACHE_RECORD_STATUS_OK)
			rc = keep_hidden(l, r, err);
		cache_record_release(r);
	}
	l->list.n = k;
	if (rc)
		return rc;
	snprintf(l->key, sizeof(l->key), "%s", key);
	return 0;
}

static int
local_count(struct record_source *s, const char *key, size_t *n,
	    struct error *err)
{
	struct local *l = (struct local *)s;
	int rc = load(l, key, err);

	*n = rc ? 0 : l->list.n;
	return rc;
}

static int
local_get(struct record_source *s, struct arena *a, const char *key,
	  size_t i, struct plan_record *out, struct error *err)
{
	struct local *l = (struct local *)s;
	int rc = load(l, key, err);

	if (rc)
		return rc;
	if (i >= l->list.n)
		return error_set(err, ERROR_INTERNAL, "record %zu of key %s "
				 "asked, %zu held", i, key, l->list.n);
	rc = record_source_fill(l->c, a, &l->list.items[i], out, err);
	out->source = s;
	return rc;
}

/* cache_manifest_each's reader for local_components: each component
 * straight into the arena, as record_source_components copies them. */
struct comps_in {
	struct arena *a;
	struct graph_component *v;
	size_t n, k;
	int nomem;		/* 1: the arena ran out */
};

static int
comp_in(void *payload, size_t i, size_t n, const struct cache_component *it)
{
	struct comps_in *t = payload;
	struct graph_component *x;
	enum graph_comp_kind kind;

	if (!i) {
		t->v = arena_alloc(t->a, (n + 1) * sizeof(*t->v));
		t->n = n;
		if (!t->v) {
			t->nomem = 1;
			return ERROR_NOMEM;
		}
	}
	if (i >= t->n)
		return ERROR_CORRUPT;
	if (graph_comp_kind_parse(it->kind, &kind))
		return 0;
	x = &t->v[t->k];
	x->kind = kind;
	x->name = arena_strdup(t->a, it->name);
	x->detail = arena_strdup(t->a, it->detail);
	if (!x->name || !x->detail) {
		t->nomem = 1;
		return ERROR_NOMEM;
	}
	snprintf(x->digest, sizeof(x->digest), "%s", it->digest);
	t->k++;
	return 0;
}

/*
 * The components stored for rec's key, read into a without a copy of
 * the manifest between (cache_manifest_each): none when the manifest is
 * missing or cannot be read, ERROR_NOMEM when a runs out.
 */
static int
local_components(struct record_source *s, struct arena *a,
		 struct plan_record *rec, struct error *err)
{
	struct local *l = (struct local *)s;
	struct comps_in t = { a, NULL, 0, 0, 0 };
	struct error e2;

	error_init(&e2);
	if (cache_manifest_each(l->c, rec->key, comp_in, &t, &e2))
		return t.nomem ? OOM(err) : 0;
	if (!t.v && !(t.v = arena_alloc(a, sizeof(*t.v))))
		return OOM(err);
	rec->components = t.v;
	rec->n_components = t.k;
	return 0;
}

static void
local_free(struct record_source *s)
{
	struct local *l = (struct local *)s;

	cache_record_list_release(&l->list);
	mem_free(l->hidden_run);
	mem_free(l->hidden_domain);
	mem_free(l);
}

static const struct record_source_ops local_ops = {
	local_count, local_get, local_components, NULL, NULL, local_free,
};

int
record_source_local(struct cache *c, struct record_source **out,
		    struct error *err)
{
	struct local *l = mem_calloc(1, sizeof(*l));

	*out = NULL;
	if (!l)
		return OOM(err);
	l->base.ops = &local_ops;
	l->c = c;
	*out = &l->base;
	return 0;
}

int
record_source_local_reader(struct record_source *s, const char *domain)
{
	struct local *l = (struct local *)s;

	if (!s || s->ops != &local_ops)
		return 0;
	if (domain && strlen(domain) >= sizeof(l->reader))
		return ERROR_INVALID;
	snprintf(l->reader, sizeof(l->reader), "%s", domain ? domain : "");
	l->key[0] = '\0';	/* the kept list was the other reader's */
	cache_record_list_release(&l->list);
	return 0;
}

int
record_source_local_hidden(struct record_source *s, const char *run,
			   const char *id, const char *key,
			   const char **hidden_run, const char **domain,
			   struct error *err)
{
	struct local *l = (struct local *)s;
	struct cache_record rec;
	struct error e2;
	int rc = 0;

	if (!s || s->ops != &local_ops)
		return 0;
	if (run) {
		error_init(&e2);
		cache_record_init(&rec);
		l->key[0] = '\0';	/* hidden is no longer the key's */
		l->hidden = 0;
		rc = cache_record_get(l->c, run, id, &rec, &e2);
		if (rc == ERROR_NOT_FOUND)
			rc = 0;
		else if (rc)
			*err = e2;
		else if (!record_source_allows(l->reader, &rec))
			rc = keep_hidden(l, &rec, err);
		cache_record_release(&rec);
	}
	if (!rc && !l->hidden && key)
		rc = load(l, key, err);
	if (rc || !l->hidden)
		return rc;
	*hidden_run = l->hidden_run;
	*domain = l->hidden_domain;
	return 1;
}

void
record_source_free(struct record_source *s)
{
	if (s)
		s->ops->free(s);
}
