/*
 * Bundles in the plans' remote cache index: a run publishes the records
 * it made at its commit as one blob (cache/remote_bundle.c) in its trust
 * domain; a plan fetches the bundles of a few commits (the head, its
 * parent, the merge base) in one batch and takes records from them as it
 * would from per-node lookups, with the same checks (node, key, status,
 * outputs, the writer's ref for the domain), asking the server only for
 * what they lack. Their records also carry the source-key memo ids their
 * writer computed: the memo (plan_remote_memo) a plan may take source
 * keys from, each use confirmed by the record it reuses or by a walk
 * (engine/plan/memo_check.c), so a forged or stale memo entry costs a
 * miss and a walk, never a wrong reuse.
 */
#include "engine/plan/remote.h"
#include "engine/plan/remote_int.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

struct remote_bundle_entry *
plan_remote_bundle_find(struct plan_remote *pr, const char *id,
			const char *key, int own)
{
	struct strmap *m = own ? &pr->own_bundle : &pr->trusted_bundle;
	struct remote_bundle_entry *be;
	char name[1024];

	if (!m->n || (size_t)snprintf(name, sizeof(name), "%s %s", id, key) >=
	    sizeof(name))
		return NULL;
	be = strmap_get(m, name);
	return be && be->rec.rec.node_id ? be : NULL;
}

int
plan_remote_settle_bundle(struct plan_remote *pr,
			  struct plan_remote_entry *e,
			  struct remote_bundle_entry *be, const char *id,
			  const char *key, int own, struct error *err)
{
	struct plan_remote_hit *h = mem_calloc(1, sizeof(*h));

	if (!h)
		return error_nomem(err);
	/* Taken: the entry keeps nothing (node_id NULL marks it). */
	h->rec = be->rec;
	h->action = be->action;
	h->sources = be->sources;
	h->bundled = 1;
	h->domain = own ? pr->own_domain : NULL;	/* its blobs' CAS */
	memset(be, 0, sizeof(*be));
	cache_record_init(&be->rec.rec);
	strv_init(&be->sources, 1);
	return plan_remote_settle_hit(pr, e, h, id, key, own, err);
}

/* Remember the memo pairs of a record that may be reused from its domain. */
static int
memo_add(struct plan_remote *pr, const struct strv *src, struct error *err)
{
	size_t i;

	for (i = 0; i + 1 < src->n; i += 2) {
		const char *have = strmap_get(&pr->memo, src->v[i]);
		char *k, *v;

		if (have) {
			if (strcmp(have, src->v[i + 1]))	/* disagree */
				strmap_put(&pr->memo, src->v[i], "", NULL);
			continue;
		}
		k = arena_strdup(&pr->arena, src->v[i]);
		v = arena_strdup(&pr->arena, src->v[i + 1]);
		if (!k || !v || strmap_put(&pr->memo, k, v, err))
			return error_nomem(err);
		pr->n_memo++;
	}
	return 0;
}

/* Index a decoded bundle of the own (own 1) or trusted domain. */
static int
index_bundle(struct plan_remote *pr, struct remote_bundle *b, int own,
	     struct error *err)
{
	struct strmap *m = own ? &pr->own_bundle : &pr->trusted_bundle;
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < b->n; i++) {
		struct remote_bundle_entry *be = &b->items[i];
		size_t a = strlen(be->rec.rec.node_id);
		size_t k = strlen(be->rec.rec.key);
		/* "NODE KEY", put together without a printf (500 a plan) */
		char *name = arena_alloc(&pr->arena, a + k + 2);

		if (!name)
			return error_nomem(err);
		memcpy(name, be->rec.rec.node_id, a);
		name[a] = ' ';
		memcpy(name + a + 1, be->rec.rec.key, k + 1);
		if (strmap_get(m, name))
			continue;	/* a newer commit's came first */
		rc = strmap_put(m, name, be, err);
		if (!rc && plan_remote_ref_trusted(pr, be->rec.run.ref, own))
			rc = memo_add(pr, &be->sources, err);
	}
	return rc;
}

/* Take lookup l of a bundle: decode and index it, or tell its fault. */
static int
take_bundle(struct plan_remote *pr, struct remote_lookup *l,
	    const char *commit, struct error *err)
{
	struct remote_bundle b;
	struct remote_bundle *v;
	struct error fe;
	int rc;

	error_init(&fe);
	if (l->found == 0)
		return 0;
	if (l->found < 0) {
		fe = l->err;
	} else {
		rc = remote_bundle_decode(l->record, l->record_len, &b, &fe);
		if (rc == ERROR_NOMEM)
			return error_nomem(err);
		if (!rc) {
			unsigned char *own;

			v = mem_realloc(pr->bundles, (pr->n_bundles + 1) *
					sizeof(*v));
			if (v)
				pr->bundles = v;
			own = v ? mem_realloc(pr->bundle_own,
					      pr->n_bundles + 1) : NULL;
			if (own)
				pr->bundle_own = own;
			if (!v || !own ||
			    strv_push(&pr->bundle_from, commit, err)) {
				remote_bundle_release(&b);
				return error_nomem(err);
			}
			own[pr->n_bundles] = l->domain != NULL;
			v[pr->n_bundles++] = b;
			return index_bundle(pr, &v[pr->n_bundles - 1],
					    l->domain != NULL, err);
		}
		error_prefix(&fe, "remote cache %s", remote_url(pr->r));
	}
	error_prefix(&fe, "the bundle of commit %.12s", commit);
	error_hint(&fe, "its records are looked up one by one");
	return plan_remote_fault(pr, &fe, err);
}

int
plan_remote_bundles(struct plan_remote *pr, const char *const *commits,
		    size_t n, struct error *err)
{
	struct remote_lookup items[8];
	const char *of[8];
	char keys[4][CACHE_KEY_SIZE];
	size_t i, k, m = 0, c = 0;
	int rc = 0, d;

	memset(items, 0, sizeof(items));
	for (i = 0; i < n && c < 4; i++) {
		if (!commits[i] || !commits[i][0])
			continue;
		for (k = 0; k < pr->bundle_commits.n; k++)
			if (!strcmp(pr->bundle_commits.v[k], commits[i]))
				break;
		if (k < pr->bundle_commits.n)
			continue;
		rc = strv_push(&pr->bundle_commits, commits[i], err);
		if (!rc)
			rc = remote_bundle_key(commits[i], keys[c], err);
		if (rc)
			return rc;
		/* The own domain first: index_bundle keeps the first. */
		for (d = pr->own_domain ? 0 : 1; d < 2; d++) {
			items[m].node_id = REMOTE_BUNDLE_NODE;
			items[m].key = keys[c];
			items[m].domain = d ? NULL : pr->own_domain;
			of[m++] = commits[i];
		}
		c++;
	}
	if (pr->down || !m)
		return 0;
	rc = remote_node_lookup(pr->r, items, m, err);
	if (!rc && plan_remote_all_unreachable(items, m))
		rc = plan_remote_went_down(pr, items, err);
	else
		for (i = 0; !rc && i < m; i++)
			rc = take_bundle(pr, &items[i], of[i], err);
	for (i = 0; i < m; i++)
		remote_lookup_release(&items[i]);
	return rc;
}

const struct strmap *
plan_remote_memo(const struct plan_remote *pr)
{
	return pr->n_memo ? &pr->memo : NULL;
}

int
plan_remote_attests(const struct plan_remote_hit *h, const char *memo,
		    const char *key)
{
	size_t i;

	for (i = 0; h && i + 1 < h->sources.n; i += 2)
		if (!strcmp(h->sources.v[i], memo) &&
		    !strcmp(h->sources.v[i + 1], key))
			return 1;
	return 0;
}

int
plan_remote_components(struct plan_remote *pr,
		       const struct plan_remote_hit *ch, struct error *err)
{
	struct plan_remote_hit *h = (struct plan_remote_hit *)ch;
	struct remote_record full;
	struct error fe;
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (!h->bundled || pr->down)
		return 0;
	h->bundled = 0;		/* asked once */
	error_init(&fe);
	rc = remote_cas_get_buf_in(pr->r, h->domain, &h->action.record,
				   REMOTE_RECORD_MAX, &text, &len, &fe);
	if (rc == 0)
		rc = error_set(&fe, ERROR_NOT_FOUND, "its record blob %.12s "
			       "is gone", h->action.record.hash);
	else if (rc == 1 && !(rc = remote_record_decode(text, len, &full,
						       &fe))) {
		if (!full.rec.node_id || strcmp(full.rec.node_id, h->node_id) ||
		    strcmp(full.rec.key, h->key)) {
			rc = error_set(&fe, ERROR_CORRUPT, "its record blob "
				       "is of another node or key");
		} else {
			cache_manifest_release(&h->rec.manifest);
			h->rec.manifest = full.manifest;
			memset(&full.manifest, 0, sizeof(full.manifest));
		}
		remote_record_release(&full);
	}
	mem_free(text);
	if (rc == ERROR_NOMEM)
		return error_nomem(err);
	if (rc) {
		error_prefix(&fe, "remote cache %s: the key components of "
			     "%s", remote_url(pr->r), h->node_id);
		error_hint(&fe, "the plan explains the node without them");
		return plan_remote_fault(pr, &fe, err);
	}
	return 0;
}

int
plan_remote_bundle_add(struct plan_remote *pr, const struct cache_record *rec,
		       const struct cache_run *run, const char *runner,
		       const struct remote_action *a,
		       const struct strv *sources, struct error *err)
{
	int rc;

	if (!rec->node_id || strmap_get(&pr->built, rec->node_id))
		return 0;
	if (!pr->builder) {
		rc = remote_bundle_builder_new(&pr->builder, err);
		if (rc)
			return rc;
	}
	rc = remote_bundle_builder_add(pr->builder, rec, run, runner, a,
				       sources, err);
	if (!rc) {
		char *id = arena_strdup(&pr->arena, rec->node_id);

		rc = id ? strmap_put(&pr->built, id, id, err) : error_nomem(err);
	}
	return rc;
}

/*
 * Fetch the commit's bundle (key) in the domain this run writes as the
 * server holds it now, and add to the builder its records of that domain
 * that this run did not replace: another run at this commit may have
 * published since this one planned. *held is 1 when that bundle already
 * lists every record of the builder. A bundle that is missing, cannot be
 * read or is damaged adds nothing (ours replaces it). Returns 0 or an
 * error (out of memory).
 */
/* Whether tags a and b (NULL or "" for none) are one. */
static int
same_tag(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static int
merge_current(struct plan_remote *pr, const char *key, const char *tag,
	      int *held, struct error *err)
{
	struct remote_lookup l;
	struct remote_bundle b;
	struct error fe;
	size_t i, have = 0;
	int rc;

	*held = 0;
	memset(&l, 0, sizeof(l));
	l.node_id = REMOTE_BUNDLE_NODE;
	l.key = key;
	l.domain = pr->own_domain;
	error_init(&fe);
	rc = remote_node_lookup(pr->r, &l, 1, err);
	if (rc || l.found != 1) {
		remote_lookup_release(&l);
		return rc;
	}
	rc = remote_bundle_decode(l.record, l.record_len, &b, &fe);
	remote_lookup_release(&l);
	if (rc)
		return rc == ERROR_NOMEM ? error_nomem(err) : 0;
	for (i = 0; !rc && i < b.n; i++) {
		struct remote_bundle_entry *be = &b.items[i];

		if (strmap_get(&pr->built, be->rec.rec.node_id)) {
			have++;
			continue;
		}
		/* Only what a run of this domain wrote (its writer's ref),
		 * at this run's tag (another tag's versions are not ours). */
		if (!plan_remote_ref_trusted(pr, be->rec.run.ref,
					     pr->own_domain != NULL) ||
		    !same_tag(be->rec.run.tag, tag))
			continue;
		rc = plan_remote_bundle_add(pr, &be->rec.rec, &be->rec.run,
					    be->rec.runner, &be->action,
					    &be->sources, err);
	}
	remote_bundle_release(&b);
	*held = have >= remote_bundle_builder_count(pr->builder);
	return rc;
}

/*
 * How many times a run PUTs the commit's bundle at most: after each PUT
 * it reads the bundle back, and when another run's PUT replaced it, it
 * merges that one and PUTs again.
 */
#define BUNDLE_PUTS 3

int
plan_remote_bundle_publish(struct plan_remote *pr, const char *commit,
			   const char *tag, const char *runner,
			   struct error *err)
{
	char key[CACHE_KEY_SIZE], *text = NULL;
	size_t len = 0, i, k;
	int rc = 0, held = 0, puts;

	/* A run that planned without bundles (a small job) leaves the
	 * commit's bundle to the runs that did. */
	if (!pr->bundle_commits.n || !plan_remote_may_write(pr))
		return 0;
	/* What the commit's bundle in this domain held and this run did
	 * not take or replace stays in it. */
	for (i = 0; !rc && i < pr->n_bundles; i++) {
		if (strcmp(pr->bundle_from.v[i], commit) ||
		    pr->bundle_own[i] != (pr->own_domain != NULL))
			continue;
		for (k = 0; !rc && k < pr->bundles[i].n; k++) {
			struct remote_bundle_entry *be =
				&pr->bundles[i].items[k];

			if (be->rec.rec.node_id &&
			    same_tag(be->rec.run.tag, tag))
				rc = plan_remote_bundle_add(pr, &be->rec.rec,
							    &be->rec.run,
							    be->rec.runner,
							    &be->action,
							    &be->sources, err);
		}
	}
	if (rc || !remote_bundle_builder_count(pr->builder))
		return rc;
	rc = remote_bundle_key(commit, key, err);
	/* The name is the commit's, so two runs at one commit (two jobs,
	 * a rerun) write one entry: each merges what the other published
	 * since it planned, so neither's records are lost (the last PUT
	 * of a plain read-modify-write would drop the other's). */
	for (puts = 0; !rc && puts < BUNDLE_PUTS; puts++) {
		rc = merge_current(pr, key, tag, &held, err);
		if (rc || (puts && held))
			break;
		rc = remote_bundle_builder_finish(pr->builder, commit, &text,
						  &len, err);
		if (!rc)
			rc = remote_node_put(pr->r, REMOTE_BUNDLE_NODE, key,
					     NULL, 0, text, len, 0, runner,
					     err);
		mem_free(text);
		text = NULL;
	}
	return rc;
}

void
plan_remote_bundles_release(struct plan_remote *pr)
{
	size_t i;

	for (i = 0; i < pr->n_bundles; i++)
		remote_bundle_release(&pr->bundles[i]);
	mem_free(pr->bundles);
	mem_free(pr->bundle_own);
	strv_release(&pr->bundle_from);
	strmap_release(&pr->own_bundle);
	strmap_release(&pr->trusted_bundle);
	strmap_release(&pr->memo);
	strmap_release(&pr->built);
	strv_release(&pr->bundle_commits);
	remote_bundle_builder_free(pr->builder);
}
