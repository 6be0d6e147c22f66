/*
 * Release check 3 from the remote cache alone (a fresh clone, an empty
 * local cache): the release node's closure is planned at the tag's commit
 * over the records the tag's own run published (namespace "tag/TAG/",
 * engine/run/remote.h), so keys follow that run's outputs level by level;
 * every artifact of the closure needs such a record, written at the tag's
 * commit, and every output blob it names must be in the CAS, downloaded
 * and hashed (a HEAD with --artifacts DIR, whose files are read). The records
 * then feed the artifact, version and metadata checks as a local run's do.
 */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "engine/plan/eval.h"
#include "engine/plan/history.h"
#include "engine/plan/plan.h"
#include "engine/plan/remote.h"
#include "engine/release/internal.h"
#include "graph/graph.h"
#include "rules/rules.h"
#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")

static char *
dup_or_null(const char *s, int *bad)
{
	char *d = s ? mem_strdup(s) : NULL;

	if (s && !d)
		*bad = 1;
	return d;
}

/* A deep copy of src appended to x->recs. */
static int
add_record(struct release_ctx *x, const struct cache_record *src,
	   struct error *err)
{
	struct cache_record_list *l = &x->recs;
	struct cache_record *v, *d;
	size_t i;
	int bad = 0;

	v = mem_realloc(l->items, (l->n + 1) * sizeof(*v));
	if (!v)
		return OOM(err);
	l->items = v;
	d = &v[l->n++];
	cache_record_init(d);
	d->run = dup_or_null(src->run, &bad);
	d->node_id = dup_or_null(src->node_id, &bad);
	memcpy(d->key, src->key, sizeof(d->key));
	d->status = src->status;
	d->output_digest = dup_or_null(src->output_digest, &bad);
	d->version = dup_or_null(src->version, &bad);
	d->duration_ms = src->duration_ms;
	d->recorded_ms = src->recorded_ms;
	for (i = 0; !bad && i < src->artifacts.n; i++)
		bad = strv_push(&d->artifacts, src->artifacts.v[i], NULL) != 0;
	for (i = 0; !bad && i < src->metadata.n; i++)
		bad = strv_push(&d->metadata, src->metadata.v[i], NULL) != 0;
	return bad ? OOM(err) : 0;
}

/* A node the tag's run must have recorded: an artifact with an action. */
static int
judged(const struct graph_node *n)
{
	return n->rule && n->kind == GRAPH_NODE_ARTIFACT;
}

/* The plan of the release closure over the tag's published records. */
static int
plan_tag(struct release_ctx *x, const char *ns, unsigned char *sel,
	 unsigned char *clo, struct history **h, struct plan **p,
	 struct error *err)
{
	struct plan_options po = { .reuse = PLAN_REUSE_SCOPE_ANY };
	const char *target = x->node->id;
	int rc;

	rc = graph_select(x->ev->graph, &target, 1, sel, clo, err);
	if (!rc)
		rc = history_from_run(NULL, x->opt->remote, NULL, NULL, NULL,
				      x->ev, h, err);
	if (!rc)
		rc = history_remote_only(*h, ns, err);
	if (!rc)
		rc = plan_compute(x->ev->graph, sel, clo, &x->ev->sources,
				  history_plan(*h), &po, p, err);
	return rc;
}

/* Each hit's record (at the tag's commit) into x->recs; count the rest. */
static int
take_records(struct release_ctx *x, const struct plan *p, size_t *missing,
	     const char **run, struct error *err)
{
	const struct graph *g = x->ev->graph;
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < g->n_nodes; i++) {
		const struct plan_item *it = &p->items[i];
		const struct plan_remote_hit *h = it->remote;

		if (!p->in_closure[i] || !judged(&g->nodes[i]))
			continue;
		if (it->decision != PLAN_REUSE || !h) {
			(*missing)++;
			rc = release_problem(x, RELEASE_CHECK_RUN, "%s: no "
					     "record of its key %.12s by a "
					     "run of tag %s",
					     g->nodes[i].id, it->key.hex,
					     x->opt->tag);
			continue;
		}
		/* A release vouches for bytes: only a trusted ref's record.
		 * Another ref's domain (--ref, RIPPLE_REF) is written by any
		 * pull request's credential (docs/security.md). */
		if (h->domain) {
			(*missing)++;
			rc = release_problem(x, RELEASE_CHECK_RUN, "%s: the "
					     "record is in the trust domain of "
					     "%s, which the tagged rules do "
					     "not trust (any pull request may "
					     "write there); add its ref to "
					     "policy: trusted-refs (e.g. "
					     "\"refs/tags/*\")",
					     g->nodes[i].id,
					     h->rec.run.ref ? h->rec.run.ref
							    : "another ref");
			continue;
		}
		if (!h->rec.run.commit ||
		    strcmp(h->rec.run.commit, x->r->commit)) {
			(*missing)++;
			rc = release_problem(x, RELEASE_CHECK_RUN, "%s: the "
					     "record was written at commit "
					     "%.12s, not the tag's",
					     g->nodes[i].id,
					     h->rec.run.commit
					     ? h->rec.run.commit : "-");
			continue;
		}
		if (!*run)
			*run = h->rec.run.id;
		rc = add_record(x, &h->rec.rec, err);
	}
	return rc == ERROR_NOMEM ? OOM(err) : rc;
}

/*
 * Whether each blob is in the CAS: with --artifacts DIR the release reads
 * the files there (release_verify_bytes), so a HEAD each is enough; else
 * the release vouches for the server's bytes, so each blob is downloaded
 * and hashed (nothing is kept): a blob damaged after it was uploaded
 * (garbage of the right size PUT over it) looks present to a HEAD.
 */
static int
ask_blobs(struct release_ctx *x, struct remote_check *c, size_t n,
	  struct error *err)
{
	struct remote *r = plan_remote_client(x->opt->remote);
	struct remote_digest *d;
	const char **dom;
	unsigned char *have;
	size_t i;
	int rc;

	if (!x->opt->artifacts_dir)
		return remote_cas_verify(r, c, n, err);
	d = mem_calloc(n + 1, sizeof(*d));
	dom = mem_calloc(n + 1, sizeof(*dom));
	have = mem_calloc(n + 1, 1);
	rc = d && dom && have ? 0 : OOM(err);
	for (i = 0; !rc && i < n; i++) {
		d[i] = c[i].digest;
		dom[i] = c[i].domain;
	}
	if (!rc)
		rc = remote_cas_has(r, d, n, dom, have, err);
	for (i = 0; !rc && i < n; i++)
		c[i].result = have[i];
	mem_free(d);
	mem_free(dom);
	mem_free(have);
	return rc;
}

/* Every output blob of every record taken must be in the CAS, intact. */
static int
check_blobs(struct release_ctx *x, const struct plan *p, size_t *missing,
	    size_t *damaged, struct error *err)
{
	const struct graph *g = x->ev->graph;
	struct remote_check *c = NULL;
	const char **what = NULL, **node = NULL;
	size_t i, k, n = 0, cap = 0;
	int rc = 0;

	for (i = 0; i < g->n_nodes; i++)
		if (p->in_closure[i] && p->items[i].remote &&
		    judged(&g->nodes[i]))
			cap += p->items[i].remote->action.n;
	c = mem_calloc(cap + 1, sizeof(*c));
	what = mem_calloc(cap + 1, sizeof(*what));
	node = mem_calloc(cap + 1, sizeof(*node));
	if (!c || !what || !node) {
		rc = OOM(err);
		goto done;
	}
	for (i = 0; i < g->n_nodes; i++) {
		const struct plan_remote_hit *h = p->items[i].remote;

		if (!p->in_closure[i] || !h || !judged(&g->nodes[i]))
			continue;
		for (k = 0; k < h->action.n; k++) {
			c[n].digest = h->action.outputs[k].digest;
			c[n].domain = h->domain;
			node[n] = g->nodes[i].id;
			what[n++] = h->action.outputs[k].path;
		}
	}
	rc = ask_blobs(x, c, n, err);
	for (i = 0; !rc && i < n; i++) {
		if (c[i].result == 1)
			continue;
		(*missing)++;
		if (!c[i].result)
			rc = release_problem(x, RELEASE_CHECK_RUN, "%s: blob "
					     "%.12s is not in the remote cache",
					     what[i], c[i].digest.hash);
		else if (c[i].result == ERROR_CORRUPT) {
			(*damaged)++;
			rc = release_problem(x, RELEASE_CHECK_RUN, "%s of %s: "
					     "blob %s is damaged in the remote "
					     "cache (%lld bytes; the server's "
					     "bytes do not hash to it)",
					     what[i], node[i], c[i].digest.hash,
					     (long long)c[i].digest.size);
		} else
			rc = release_problem(x, RELEASE_CHECK_RUN, "%s: blob "
					     "%.12s cannot be read: %s",
					     what[i], c[i].digest.hash,
					     c[i].err.msg);
	}
done:
	mem_free(c);
	mem_free(what);
	mem_free(node);
	return rc;
}

int
release_check_remote(struct release_ctx *x, struct error *err)
{
	const char *url = plan_remote_url(x->opt->remote), *run = NULL;
	size_t n = x->ev->graph->n_nodes, missing = 0, damaged = 0;
	unsigned char *sel = mem_calloc(n + 1, 1), *clo = mem_calloc(n + 1, 1);
	struct history *h = NULL;
	struct plan *p = NULL;
	char ns[1100];
	int rc;

	if (!sel || !clo) {
		rc = OOM(err);
		goto done;
	}
	snprintf(ns, sizeof(ns), "tag/%s/", x->opt->tag);
	x->problems[RELEASE_CHECK_RUN].n = 0;	/* local near misses */
	/* The tagged rules say whose records count. */
	rc = plan_remote_trust(x->opt->remote,
			       x->ev->rules->policy.trusted_refs,
			       x->ev->rules->policy.n_trusted_refs,
			       x->opt->default_branch, x->opt->ref, err);
	if (!rc)
		rc = plan_tag(x, ns, sel, clo, &h, &p, err);
	if (!rc)
		rc = take_records(x, p, &missing, &run, err);
	if (!rc && plan_remote_up(x->opt->remote))
		rc = check_blobs(x, p, &missing, &damaged, err);
	if (rc)
		goto done;
	if (!plan_remote_up(x->opt->remote)) {
		release_set(x, RELEASE_CHECK_RUN, RELEASE_STATUS_FAIL,
			    "no successful run for tag '%s' here, and remote "
			    "cache %s is unreachable", x->opt->tag, url);
	} else if (damaged) {
		release_set(x, RELEASE_CHECK_RUN, RELEASE_STATUS_FAIL,
			    "remote cache %s: %zu problem%s with the records "
			    "of tag %s at %.12s (below), %zu damaged blob%s: "
			    "a run of tag %s that builds the node again "
			    "(`ripple run --tag %s --reuse none`, with a "
			    "credential that writes the trusted domain) "
			    "uploads the true bytes over them", url, missing,
			    missing == 1 ? "" : "s", x->opt->tag, x->r->commit,
			    damaged, damaged == 1 ? "" : "s", x->opt->tag,
			    x->opt->tag);
	} else if (missing || !run) {
		release_set(x, RELEASE_CHECK_RUN, RELEASE_STATUS_FAIL,
			    "remote cache %s: %zu problem%s with the records "
			    "of tag %s at %.12s (below)", url, missing,
			    missing == 1 ? "" : "s", x->opt->tag,
			    x->r->commit);
	} else {
		x->r->run = arena_strdup(x->a, run);
		x->have_run = 1;
		x->from_remote = 1;
		release_set(x, RELEASE_CHECK_RUN, RELEASE_STATUS_OK,
			    "remote cache %s: %zu records of tag %s at %.12s "
			    "(run %s), every output blob present%s", url,
			    x->recs.n, x->opt->tag, x->r->commit, run,
			    x->opt->artifacts_dir ? ""
						  : ", read and intact");
	}
done:
	plan_free(p);
	history_free(h);
	mem_free(sel);
	mem_free(clo);
	return rc;
}
