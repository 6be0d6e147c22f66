/*
 * The remote cache as a record source: at most one record per key, the
 * checked hit its index (engine/plan/remote.c) found in this ref's trust
 * domain or the trusted one; lookups are batched a topological level at a
 * time (prefetch). The hit travels with the record (plan_record.remote)
 * for whoever needs its bytes and for the reason a plan reports.
 */
#include "engine/plan/source.h"

#include "base/arena.h"
#include "base/error.h"
#include "base/mem.h"
#include "engine/plan/plan.h"
#include "engine/plan/remote.h"
#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")

struct remote_src {
	struct record_source base;
	struct plan_remote *pr;		/* borrowed */
	char *ns;			/* or NULL */
};

static int
remote_count(struct record_source *s, const char *key, size_t *n,
	     struct error *err)
{
	struct remote_src *r = (struct remote_src *)s;

	(void)err;
	*n = plan_remote_find(r->pr, r->ns, key) ? 1 : 0;
	return 0;
}

static int
remote_get(struct record_source *s, struct arena *a, const char *key,
	   size_t i, struct plan_record *out, struct error *err)
{
	struct remote_src *r = (struct remote_src *)s;
	const struct plan_remote_hit *hit = plan_remote_find(r->pr, r->ns,
							     key);
	int rc;

	if (!hit || i)
		return error_set(err, ERROR_INTERNAL, "remote record %zu of "
				 "key %s asked, %d held", i, key, hit != NULL);
	rc = record_source_fill(NULL, a, &hit->rec.rec, out, err);
	out->remote = hit;
	out->source = s;
	return rc;
}

static int
remote_components(struct record_source *s, struct arena *a,
		  struct plan_record *rec, struct error *err)
{
	struct remote_src *r = (struct remote_src *)s;
	int rc;

	if (!rec->remote)
		return 0;
	/* A bundle's record left them in its record blob: read it now. */
	rc = plan_remote_components(r->pr, rec->remote, err);
	if (rc)
		return rc;
	return record_source_components(a, &rec->remote->rec.manifest,
				  &rec->components, &rec->n_components)
		? OOM(err) : 0;
}

static int
remote_prefetch(struct record_source *s, const char *const *ids,
		const char *const *keys, size_t n, struct error *err)
{
	struct remote_src *r = (struct remote_src *)s;

	return plan_remote_lookup(r->pr, r->ns, ids, keys, n, err);
}

static void
remote_drop(struct record_source *s, const char *key)
{
	struct remote_src *r = (struct remote_src *)s;

	plan_remote_drop(r->pr, r->ns, key);
}

static void
remote_free(struct record_source *s)
{
	struct remote_src *r = (struct remote_src *)s;

	mem_free(r->ns);
	mem_free(r);
}

static const struct record_source_ops remote_ops = {
	remote_count, remote_get, remote_components, remote_prefetch,
	remote_drop, remote_free,
};

int
record_source_remote(struct plan_remote *pr, const char *ns,
		     struct record_source **out, struct error *err)
{
	struct remote_src *r = mem_calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return OOM(err);
	r->base.ops = &remote_ops;
	r->pr = pr;
	if (ns && !(r->ns = mem_strdup(ns))) {
		mem_free(r);
		return OOM(err);
	}
	*out = &r->base;
	return 0;
}
