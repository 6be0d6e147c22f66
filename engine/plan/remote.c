/*
 * The plans' index over the remote cache: batched lookups by node key,
 * each hit checked (node, key, status, outputs, trust) before it is kept;
 * faults reported to an observer and turned into misses; a server that
 * answered nothing counts as down. Downloads and uploads are engine/run's.
 */
#include "engine/plan/remote.h"
#include "engine/plan/remote_int.h"

#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/fnmatch.h"
#include "base/mem.h"
#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")

/* The default trusted refs: the default branch (or main and master), tags. */
static int
default_globs(struct plan_remote *pr, const char *default_branch,
	      struct error *err)
{
	size_t n = 0;

	pr->globs = arena_alloc(&pr->arena, 4 * sizeof(*pr->globs));
	if (!pr->globs)
		return OOM(err);
	if (default_branch && default_branch[0]) {
		pr->globs[n] = arena_strdup(&pr->arena, default_branch);
		if (!pr->globs[n++])
			return OOM(err);
	} else {
		pr->globs[n++] = "refs/heads/main";
		pr->globs[n++] = "refs/heads/master";
	}
	pr->globs[n++] = "refs/tags/*";
	pr->n_globs = n;
	return 0;
}

int
plan_trust_domain(const char *const *globs, size_t n,
		  const char *default_branch, const char *ref, char *out,
		  struct error *err)
{
	static const char *const dflt[] = {
		"refs/heads/main", "refs/heads/master", "refs/tags/*",
	};
	const char *own[2];
	size_t i;

	out[0] = '\0';
	if (!ref || !ref[0])
		return 0;
	if (!n && default_branch && default_branch[0]) {
		own[0] = default_branch;
		own[1] = "refs/tags/*";
		globs = own;
		n = 2;
	} else if (!n) {
		globs = dflt;
		n = sizeof(dflt) / sizeof(dflt[0]);
	}
	for (i = 0; i < n; i++)
		if (fnmatch_match(globs[i], ref))
			return 0;
	return remote_domain_id(ref, out, err);
}

int
plan_remote_new(struct remote *r, const struct plan_remote_options *o,
		struct plan_remote **out, struct error *err)
{
	struct plan_remote *pr = mem_calloc(1, sizeof(*pr));

	*out = NULL;
	if (!pr)
		return OOM(err);
	arena_init(&pr->arena);
	strv_init(&pr->bundle_commits, 1);
	strv_init(&pr->bundle_from, 1);
	pr->r = r;
	if (o)
		pr->o = *o;
	if (default_globs(pr, NULL, err)) {
		plan_remote_free(pr);
		return ERROR_NOMEM;
	}
	*out = pr;
	return 0;
}

void
plan_remote_free(struct plan_remote *pr)
{
	size_t i;

	if (!pr)
		return;
	for (i = 0; i < pr->cap; i++)
		plan_remote_hit_free(pr->tab[i].hit);
	mem_free(pr->tab);
	plan_remote_bundles_release(pr);
	arena_release(&pr->arena);
	mem_free(pr);
}

struct remote *
plan_remote_client(const struct plan_remote *pr)
{
	return pr->r;
}

const char *
plan_remote_url(const struct plan_remote *pr)
{
	return remote_url(pr->r);
}

int
plan_remote_up(const struct plan_remote *pr)
{
	return !pr->down;
}

void
plan_remote_set_down(struct plan_remote *pr)
{
	pr->down = 1;
}

struct plan_remote_stats *
plan_remote_stats(struct plan_remote *pr)
{
	return &pr->stats;
}

int
plan_remote_trust(struct plan_remote *pr, const char *const *globs, size_t n,
		  const char *default_branch, const char *own_ref,
		  struct error *err)
{
	char domain[REMOTE_DOMAIN_SIZE];
	size_t i;
	int rc;

	pr->own_ref = own_ref && own_ref[0]
		? arena_strdup(&pr->arena, own_ref) : NULL;
	pr->own_domain = NULL;
	if (own_ref && own_ref[0] && !pr->own_ref)
		return OOM(err);
	if (n) {
		pr->globs = arena_alloc(&pr->arena,
					(n + 1) * sizeof(*pr->globs));
		if (!pr->globs)
			return OOM(err);
		for (i = 0; i < n; i++)
			if (!(pr->globs[i] = arena_strdup(&pr->arena,
							  globs[i])))
				return OOM(err);
		pr->n_globs = n;
	} else {
		rc = default_globs(pr, default_branch, err);
		if (rc)
			return rc;
	}
	rc = plan_trust_domain((const char *const *)pr->globs, pr->n_globs,
			       NULL, pr->own_ref, domain, err);
	if (rc)
		return rc;
	if (domain[0]) {
		pr->own_domain = arena_strdup(&pr->arena, domain);
		if (!pr->own_domain)
			return OOM(err);
	}
	pr->write_server = pr->own_domain
		? arena_printf(&pr->arena, "%s/d/%s", remote_url(pr->r),
			       pr->own_domain)
		: NULL;
	if (pr->own_domain && !pr->write_server)
		return OOM(err);
	return remote_set_domain(pr->r, pr->own_domain, err);
}

const char *
plan_remote_own_ref(const struct plan_remote *pr)
{
	return pr->own_ref;
}

const char *
plan_remote_domain(const struct plan_remote *pr)
{
	return pr->own_domain;
}

const char *
plan_remote_write_server(const struct plan_remote *pr)
{
	return pr->write_server ? pr->write_server : remote_url(pr->r);
}

int
plan_remote_writes_for(const struct plan_remote *pr, const char *ref)
{
	if (!ref || !pr->own_ref)
		return 0;
	return pr->own_domain ? !strcmp(ref, pr->own_ref)
			      : plan_remote_glob_trusted(pr, ref);
}

void
plan_remote_refuse_writes(struct plan_remote *pr)
{
	pr->refused = 1;
}

int
plan_remote_writes_refused(const struct plan_remote *pr)
{
	return pr->refused;
}

void
plan_remote_keep_local(struct plan_remote *pr)
{
	pr->local_only = 1;
}

int
plan_remote_kept_local(const struct plan_remote *pr)
{
	return pr->local_only;
}

/* FNV-1a over the name: the table's hash. */
static size_t
hash(const char *s)
{
	size_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static struct plan_remote_entry *
slot(const struct plan_remote *pr, const char *name)
{
	size_t i = hash(name) & (pr->cap - 1);

	while (pr->tab[i].name && strcmp(pr->tab[i].name, name))
		i = (i + 1) & (pr->cap - 1);
	return &pr->tab[i];
}

static int
grow(struct plan_remote *pr, size_t want, struct error *err)
{
	struct plan_remote_entry *old = pr->tab;
	size_t cap = pr->cap ? pr->cap : 64, i, n = pr->cap;

	while (cap < 2 * want)
		cap *= 2;
	if (cap == pr->cap)
		return 0;
	pr->tab = mem_calloc(cap, sizeof(*pr->tab));
	if (!pr->tab) {
		pr->tab = old;
		return OOM(err);
	}
	pr->cap = cap;
	for (i = 0; i < n; i++)
		if (old[i].name)
			*slot(pr, old[i].name) = old[i];
	mem_free(old);
	return 0;
}

/* ns + key in the arena (without a printf: one per node a plan asks). */
static const char *
entry_name(struct plan_remote *pr, const char *ns, const char *key)
{
	size_t a = ns ? strlen(ns) : 0, k = strlen(key);
	char *name = arena_alloc(&pr->arena, a + k + 1);

	if (!name)
		return NULL;
	if (a)
		memcpy(name, ns, a);
	memcpy(name + a, key, k + 1);
	return name;
}

const struct plan_remote_hit *
plan_remote_find(const struct plan_remote *pr, const char *ns,
		 const char *key)
{
	char name[512];
	const struct plan_remote_entry *e;

	if (!pr->cap)
		return NULL;
	if ((size_t)snprintf(name, sizeof(name), "%s%s", ns ? ns : "", key) >=
	    sizeof(name))
		return NULL;
	e = slot(pr, name);
	return e->name && e->state == 1 ? e->hit : NULL;
}

/* Take item l's result into entry e: a checked hit, a miss or a fault. */
static int
settle(struct plan_remote *pr, struct plan_remote_entry *e,
       struct remote_lookup *l, const char *id, struct error *err)
{
	struct plan_remote_hit *h;
	struct error fe;
	int rc;

	e->state = -1;
	error_init(&fe);
	if (l->found < 0) {
		fe = l->err;
		return plan_remote_entry_fault(pr, &fe, id, err);
	}
	if (l->found == 0) {
		e->state = 0;
		return 0;
	}
	h = mem_calloc(1, sizeof(*h));
	if (!h)
		return OOM(err);
	strv_init(&h->sources, 1);
	h->action = l->action;
	h->domain = l->domain;	/* the index's own domain id, or NULL */
	memset(&l->action, 0, sizeof(l->action));
	rc = remote_record_decode(l->record, l->record_len, &h->rec, &fe);
	if (rc) {
		plan_remote_hit_free(h);
		if (rc == ERROR_NOMEM)
			return OOM(err);
		error_prefix(&fe, "remote cache %s: %s", remote_url(pr->r),
			     id);
		return plan_remote_entry_fault(pr, &fe, id, err);
	}
	return plan_remote_settle_hit(pr, e, h, id, l->key, l->domain != NULL,
				      err);
}

/*
 * The misses of the own domain, looked up again in the trusted one (one
 * more batch); each result replaces the miss in items.
 */
static int
lookup_trusted(struct plan_remote *pr, struct remote_lookup *items, size_t n,
	       struct remote_bundle_entry **from, struct error *err)
{
	struct remote_lookup *again = mem_calloc(n ? n : 1, sizeof(*again));
	size_t *idx = mem_calloc(n ? n : 1, sizeof(*idx));
	size_t i, m = 0;
	int rc = 0;

	if (!again || !idx) {
		rc = OOM(err);
		goto done;
	}
	for (i = 0; i < n; i++) {
		if (items[i].found != 0)
			continue;
		/* The trusted domain's bundle has it: no request. */
		from[i] = plan_remote_bundle_find(pr, items[i].node_id,
						  items[i].key, 0);
		if (from[i])
			continue;
		again[m].node_id = items[i].node_id;
		again[m].key = items[i].key;
		idx[m++] = i;
	}
	if (!m)
		goto done;
	rc = remote_node_lookup(pr->r, again, m, err);
	if (rc)
		goto done;
	if (plan_remote_all_unreachable(again, m)) {
		rc = plan_remote_went_down(pr, again, err);
		goto done;
	}
	for (i = 0; i < m; i++) {
		items[idx[i]] = again[i];
		memset(&again[i], 0, sizeof(again[i]));
	}
done:
	for (i = 0; again && i < m; i++)
		remote_lookup_release(&again[i]);
	mem_free(again);
	mem_free(idx);
	return rc;
}

int
plan_remote_lookup(struct plan_remote *pr, const char *ns,
		   const char *const *ids, const char *const *keys, size_t n,
		   struct error *err)
{
	struct remote_lookup *items = NULL;
	struct plan_remote_entry **at = NULL;
	struct remote_bundle_entry **from = NULL, *be;
	size_t i, m = 0;
	int rc;

	if (pr->down || !n)
		return 0;
	rc = grow(pr, pr->used + n, err);
	if (rc)
		return rc;
	items = mem_calloc(n, sizeof(*items));
	at = mem_calloc(n, sizeof(*at));
	from = mem_calloc(n, sizeof(*from));
	if (!items || !at || !from) {
		rc = OOM(err);
		goto done;
	}
	for (i = 0; i < n; i++) {
		const char *name = entry_name(pr, ns, keys[i]);
		struct plan_remote_entry *e;

		if (!name) {
			rc = OOM(err);
			goto done;
		}
		e = slot(pr, name);
		if (e->name)
			continue;	/* asked before (or twice here) */
		e->name = (char *)name;
		e->state = 0;
		pr->used++;
		pr->stats.asked++;
		/* A bundle of the domain read first has it: no request. */
		be = ns ? NULL : plan_remote_bundle_find(pr, ids[i], keys[i],
							 pr->own_domain != NULL);
		if (be) {
			rc = plan_remote_settle_bundle(pr, e, be, ids[i],
						       keys[i],
						       pr->own_domain != NULL,
						       err);
			if (rc)
				goto done;
			continue;
		}
		at[m] = e;
		items[m].node_id = ns ? arena_printf(&pr->arena, "%s%s", ns,
						     ids[i])
				      : ids[i];
		items[m].key = keys[i];
		if (!items[m].node_id) {
			rc = OOM(err);
			goto done;
		}
		m++;
	}
	if (!m)
		goto done;
	for (i = 0; i < m; i++)
		items[i].domain = pr->own_domain;
	rc = remote_node_lookup(pr->r, items, m, err);
	if (rc)
		goto done;
	if (plan_remote_all_unreachable(items, m)) {
		rc = plan_remote_went_down(pr, items, err);
		goto done;
	}
	if (pr->own_domain) {
		rc = lookup_trusted(pr, items, m, from, err);
		if (rc)
			goto done;
	}
	for (i = 0; !rc && i < m; i++)
		rc = from[i] ? plan_remote_settle_bundle(pr, at[i], from[i],
							 items[i].node_id,
							 items[i].key, 0, err)
			     : settle(pr, at[i], &items[i], items[i].node_id +
				      (ns ? strlen(ns) : 0), err);
done:
	for (i = 0; items && i < m; i++)
		remote_lookup_release(&items[i]);
	mem_free(items);
	mem_free(at);
	mem_free(from);
	return rc;
}

void
plan_remote_drop(struct plan_remote *pr, const char *ns, const char *key)
{
	char name[512];
	struct plan_remote_entry *e;

	if (!pr || !pr->cap ||
	    (size_t)snprintf(name, sizeof(name), "%s%s", ns ? ns : "", key) >=
	    sizeof(name))
		return;
	e = slot(pr, name);
	if (!e->name || e->state != 1)
		return;
	plan_remote_hit_free(e->hit);
	e->hit = NULL;
	e->state = -1;
	if (pr->stats.hits)
		pr->stats.hits--;
}
