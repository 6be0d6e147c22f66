/*
 * The plans' remote cache index, judging what it finds: which refs are
 * trusted for which domain, whether a found record may be reused (node,
 * key, status, outputs, trust), taking it into an entry, and faults. Used
 * by the lookups (remote.c) and by bundles (remote_bundle.c); calls
 * neither.
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

/* Whether ref matches one of the trusted-refs globs. */
int
plan_remote_glob_trusted(const struct plan_remote *pr, const char *ref)
{
	size_t i;

	for (i = 0; ref && i < pr->n_globs; i++)
		if (fnmatch_match(pr->globs[i], ref))
			return 1;
	return 0;
}

int
plan_remote_may_write(const struct plan_remote *pr)
{
	return pr->own_ref && !pr->refused && !pr->local_only && !pr->down &&
	       !remote_read_only(pr->r);
}

int
plan_remote_fault(struct plan_remote *pr, const struct error *e,
		  struct error *err)
{
	/* A refused write (the run turned read-only) is the server's
	 * answer, reported once, not a fault of the cache. */
	if (!(pr->refused && e->code == ERROR_UNSUPPORTED))
		pr->stats.faults++;
	if (pr->o.required) {
		*err = *e;
		err->hint[0] = '\0';
		error_hint(err, "the remote cache is required "
			   "(--remote-required); without it a fault is a "
			   "warning and the node is rebuilt");
		return e->code ? e->code : ERROR_IO;
	}
	if (pr->o.warn)
		pr->o.warn(pr->o.payload, e);
	return 0;
}

/*
 * Whether a record found in the own domain (own: 1) or the trusted one
 * may be reused: in the own domain only records the own ref wrote; in the
 * trusted one only records of trusted refs (provenance as a second check
 * beside the server's credentials).
 */
int
plan_remote_ref_trusted(const struct plan_remote *pr, const char *ref, int own)
{
	if (!ref)
		return 0;
	if (own)
		return pr->own_ref && !strcmp(pr->own_ref, ref);
	return plan_remote_glob_trusted(pr, ref);
}

/* Every relative artifact of the record is an output, and the reverse. */
static int
outputs_match(const struct plan_remote_hit *h)
{
	const struct strv *a = &h->rec.rec.artifacts;
	size_t i, k, rel = 0;

	for (i = 0; i < a->n; i++) {
		if (a->v[i][0] == '/')
			continue;
		rel++;
		for (k = 0; k < h->action.n; k++)
			if (!strcmp(h->action.outputs[k].path, a->v[i]))
				break;
		if (k == h->action.n)
			return 0;
	}
	return rel == h->action.n;
}

/* a and b both NULL, or equal strings. */
static int
same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/*
 * The label of a hit written by `run` (in the arena, or NULL: out of
 * memory): the last one made when it was of the same run, commit, ref
 * and domain (a bundle's records mostly share one run), so a plan of 500
 * hits formats a few labels, not 500.
 */
static const char *
hit_label(struct plan_remote *pr, const struct cache_run *run, int own)
{
	const char *id = run->id ? run->id : "?";
	const char *commit = run->commit ? run->commit : "?";
	const char *ref = run->ref ? run->ref : "none";

	if (pr->label && pr->label_own == own && same(pr->label_run, id) &&
	    same(pr->label_commit, commit) && same(pr->label_ref, ref))
		return pr->label;
	pr->label = arena_printf(&pr->arena, "remote cache %s%s (run %s, "
				 "commit %.9s, ref %s)", remote_url(pr->r),
				 own ? ", this ref's domain" : "", id, commit,
				 ref);
	pr->label_run = arena_strdup(&pr->arena, id);
	pr->label_commit = arena_strdup(&pr->arena, commit);
	pr->label_ref = arena_strdup(&pr->arena, ref);
	pr->label_own = own;
	if (!pr->label_run || !pr->label_commit || !pr->label_ref) {
		const char *l = pr->label;

		pr->label = NULL;	/* never matched half-made */
		return l;
	}
	return pr->label;
}

/*
 * Check a found record: 1 a hit, 0 a miss (not ok, untrusted), or a fault
 * described in *e.
 */
static int
check_hit(struct plan_remote *pr, struct plan_remote_hit *h, const char *id,
	  const char *key, int own, struct error *e)
{
	const struct cache_record *rec = &h->rec.rec;
	const char *od = rec->output_digest;

	if (!rec->node_id || strcmp(rec->node_id, id) ||
	    strcmp(rec->key, key))
		return error_set(e, ERROR_CORRUPT, "remote cache %s: the "
				 "record found for %s key %s is of %s key %s",
				 remote_url(pr->r), id, key,
				 rec->node_id ? rec->node_id : "?", rec->key);
	if (rec->status != CACHE_RECORD_STATUS_OK || h->action.exit_code)
		return 0;
	if ((od && (strlen(od) != CACHE_KEY_LEN || !cache_key_valid(od))) ||
	    (!od && h->action.n) || !outputs_match(h))
		return error_set(e, ERROR_CORRUPT, "remote cache %s: the "
				 "record of %s key %s does not match its AC "
				 "entry's outputs", remote_url(pr->r), id, key);
	if (!plan_remote_ref_trusted(pr, h->rec.run.ref, own)) {
		pr->stats.untrusted++;
		return 0;
	}
	h->label = hit_label(pr, &h->rec.run, own);
	h->node_id = rec->node_id;
	h->key = rec->key;
	h->url = remote_url(pr->r);
	return h->label ? 1 : error_nomem(e);
}

void
plan_remote_hit_free(struct plan_remote_hit *h)
{
	if (!h)
		return;
	remote_action_release(&h->action);
	remote_record_release(&h->rec);
	strv_release(&h->sources);
	mem_free(h);
}

/* A fault with node id's entry: told (or the error when required). */
int
plan_remote_entry_fault(struct plan_remote *pr, struct error *fe, const char *id,
	    struct error *err)
{
	error_node(fe, id);
	if (!fe->hint[0])
		error_hint(fe, "the node is not reused from the remote cache");
	return plan_remote_fault(pr, fe, err);
}

int
plan_remote_settle_hit(struct plan_remote *pr, struct plan_remote_entry *e,
		       struct plan_remote_hit *h, const char *id,
		       const char *key, int own, struct error *err)
{
	struct error fe;
	int rc;

	error_init(&fe);
	rc = check_hit(pr, h, id, key, own, &fe);
	if (rc == 1) {
		e->state = 1;
		e->hit = h;
		pr->stats.hits++;
		return 0;
	}
	plan_remote_hit_free(h);
	e->state = rc ? -1 : 0;
	if (rc == ERROR_NOMEM)
		return error_nomem(err);
	return rc ? plan_remote_entry_fault(pr, &fe, id, err) : 0;
}

/* Every request failed to reach the server: one warning, then down. */
int
plan_remote_all_unreachable(const struct remote_lookup *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i].found >= 0 || l[i].err.code != ERROR_IO)
			return 0;
	return n > 0;
}

int
plan_remote_went_down(struct plan_remote *pr, const struct remote_lookup *l,
		      struct error *err)
{
	struct error e = l[0].err;

	pr->down = 1;
	e.node[0] = '\0';
	e.hint[0] = '\0';
	error_hint(&e, "planning without the remote cache: every node it "
		   "would have served is built here");
	return plan_remote_fault(pr, &e, err);
}
