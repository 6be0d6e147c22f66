/*
 * The cache-backed run store: reuse and cutoff records copied from the
 * baseline record, stale outputs removed before an action (only files an
 * earlier record of the node lists), finished nodes with their outputs
 * hashed (outputs.c finds and resolves them).
 */
#include "engine/run/store.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "engine/plan/eval.h"
#include "engine/plan/group.h"
#include "engine/run/payload.h"
#include "engine/plan/plan.h"
#include "engine/plan/record.h"
#include "engine/run/outputs.h"
#include "engine/plan/versions.h"
#include "engine/plan/remote.h"
#include "engine/plan/source.h"
#include "engine/run/remote.h"
#include "engine/run/rewrite.h"
#include "engine/run/run.h"
#include "engine/run/wheel.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "rules/rules.h"
#include "base/banned.h"

/* The bytes of reused upstream `dep`, as this run recorded it. */
static int
fetch_dep(struct run_cache_store *s, size_t dep, struct error *err)
{
	struct cache_record rec;
	int rc;

	if (!s->reused[dep])
		return 0;
	cache_record_init(&rec);
	rc = cache_record_get(s->cache, s->run_id,
			      s->ev->graph->nodes[dep].id, &rec, err);
	if (!rc)
		rc = run_remote_fetch(s->remote, s->root, &rec,
				      (const char *const *)
				      s->ev->graph->nodes[dep].outputs,
				      s->ev->graph->nodes[dep].n_outputs, NULL,
				      err);
	cache_record_release(&rec);
	return rc;
}

/*
 * Before the action: remove the node's stale outputs. A file its outputs
 * match is removed only when an earlier record of this node lists it (so
 * another node's files, or the user's, are never touched); the others are
 * kept and their identities remembered, so that what the action leaves
 * untouched is not recorded as its output. Every match is resolved inside
 * the repository before anything is removed.
 */
static int
prepare(void *payload, size_t node, struct error *err)
{
	struct run_cache_store *s = payload;
	const struct graph_node *n = &s->ev->graph->nodes[node];
	struct strv now = STRV_INIT, listed = STRV_INIT, *before;
	char path[4096], line[4400];
	size_t i;
	int rc = 0;

	if (!s->rewrites) {
		rc = run_rewrites_begin(s->ev, s->plan, &s->rewrites, err);
		if (rc)
			return rc;
	}
	if (!n->n_outputs)
		return 0;
	if (!s->before) {
		s->before = mem_calloc(s->ev->graph->n_nodes + 1,
				       sizeof(*s->before));
		if (!s->before)
			return error_set(err, ERROR_NOMEM, "out of memory");
		/* Owned: each identity is made in `line`, on this stack. */
		for (i = 0; i < s->ev->graph->n_nodes; i++)
			strv_init(&s->before[i], 1);
	}
	before = &s->before[node];
	strv_release(before);
	/* A killed fetch's temp files must not pass for outputs. */
	run_outputs_sweep(s->root, (const char *const *)n->outputs,
			  n->n_outputs);
	rc = run_outputs_collect(s->root, (const char *const *)n->outputs,
				 n->n_outputs, NULL, 1, &now, err);
	if (!rc)
		rc = cache_record_node_artifacts(s->cache, n->id, &listed,
						 err);
	for (i = 0; !rc && i < now.n; i++) {
		if (strv_find(&listed, now.v[i]) >= 0)
			continue;
		if (run_output_identity(s->root, now.v[i], line,
					sizeof(line)))
			continue;	/* gone meanwhile */
		rc = strv_push(before, line, err);
	}
	if (!rc)
		strv_sort_unique(before);
	for (i = 0; !rc && i < now.n; i++) {
		if (strv_find(&listed, now.v[i]) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->root, now.v[i]);
		if (unlink(path) && errno != ENOENT)
			rc = error_set(err, ERROR_IO, "cannot remove the stale "
				       "output '%s': %s", now.v[i],
				       strerror(errno));
	}
	strv_release(&now);
	strv_release(&listed);
	return rc;
}

/*
 * The server failed a fetch after its retries (err): one warning, and it
 * counts as down for the rest of the run (later fetches and publishes send
 * nothing); the gap is rebuilt. Required: the fault stops the run.
 */
static int
went_down(struct run_cache_store *s, struct error *err)
{
	struct error e = *err;
	int rc;

	plan_remote_set_down(s->remote);
	e.node[0] = '\0';
	e.hint[0] = '\0';
	error_hint(&e, "running without the remote cache: what a node here "
		   "needs from it is built here (slower), nothing is "
		   "published");
	rc = plan_remote_fault(s->remote, &e, err);
	return rc ? rc : RUN_FETCH_GAP;
}

/*
 * Before the action: the outputs of its reused dependencies, from the
 * remote cache (a node without outputs too). A dependency whose bytes
 * cannot be had for any reason but memory is a cache gap: the scheduler
 * rebuilds it (or fails the node under --strict-cache).
 */
static int
fetch(void *payload, size_t node, size_t *gap, struct error *err)
{
	struct run_cache_store *s = payload;
	const struct graph_node *n = &s->ev->graph->nodes[node];
	size_t i;
	int rc = 0;

	for (i = 0; !rc && s->remote && s->reused && i < n->n_deps; i++) {
		rc = fetch_dep(s, n->deps[i], err);
		if (!rc || rc == ERROR_NOMEM)
			continue;
		*gap = n->deps[i];
		if (rc == ERROR_IO && plan_remote_up(s->remote))
			return went_down(s, err);
		return RUN_FETCH_GAP;
	}
	return rc;
}

static int
cutoff(void *payload, size_t node, struct error *err)
{
	struct run_cache_store *s = payload;
	const struct graph_node *n = &s->ev->graph->nodes[node];
	struct graph_keys *keys = NULL;
	struct plan_record rec;
	int rc;

	if (!s->hist || !s->hist->has_baseline || !s->hist->baseline_record)
		return 0;
	memset(&rec, 0, sizeof(rec));
	rc = s->hist->baseline_record(s->hist->payload, n->id, &rec, err);
	if (rc <= 0)
		return rc;
	if (!rec.ok || rec.artifact_missing || rec.conflict)
		return 0;
	/* Its version group builds: reusing it would split the versions,
	 * unless its record already has the version it has now. */
	if (plan_group_builds(s->plan, node) &&
	    !plan_group_member_current(n, rec.version, s->versions,
				       s->n_versions))
		return 0;
	if (s->check_versions) {
		struct buf now;

		buf_init(&now, 0);
		rc = plan_version_matches(n, s->versions, s->n_versions,
					  rec.version, &now, err);
		buf_release(&now);
		if (rc <= 0)
			return rc;
	}
	rc = record_node_key(s->cache, s->ev, s->run_id, node, &keys, err);
	if (!rc)
		rc = !strcmp(keys->keys[node].key.hex, rec.key);
	graph_keys_free(keys);
	return rc;
}

/*
 * Record the node as reused from `src` (a record of its key: the
 * baseline's, another run's, or the remote cache's, then `remote` names
 * it and `domain` is the ref's own trust domain it came from, or NULL
 * for the trusted one) into this run.
 */
static int
record_reused(struct run_cache_store *s, size_t node,
	      const struct cache_record *src, const char *remote,
	      const char *domain, const char *cut_at, struct error *err)
{
	struct record_outcome o;
	struct strv meta = STRV_INIT;
	char line[4200];
	size_t i;
	int rc = 0;

	/* A gap rebuild is news of the run that made it, and of no other. */
	for (i = 0; !rc && i < src->metadata.n; i++)
		if (strncmp(src->metadata.v[i], "reused-from", 11) &&
		    strncmp(src->metadata.v[i], "cutoff-at=", 10) &&
		    (strncmp(src->metadata.v[i], "cache-gap=", 10) ||
		     (src->run && !strcmp(src->run, s->run_id))) &&
		    /* a remote record's claim is not where it came from */
		    (!remote || strncmp(src->metadata.v[i],
					RECORD_SOURCE_DOMAIN_META,
					strlen(RECORD_SOURCE_DOMAIN_META))))
			rc = strv_push(&meta, src->metadata.v[i], err);
	snprintf(line, sizeof(line), "reused-from=%s", src->run);
	if (!rc)
		rc = strv_push(&meta, line, err);
	if (!rc && remote) {
		snprintf(line, sizeof(line), "reused-from-remote=%s", remote);
		rc = strv_push(&meta, line, err);
	}
	/* From a ref's own domain: only that domain may reuse it here
	 * (record_source_allows); a local copy keeps the line. */
	if (!rc && remote && domain) {
		snprintf(line, sizeof(line), "%s%s",
			 RECORD_SOURCE_DOMAIN_META, domain);
		rc = strv_push(&meta, line, err);
	}
	if (!rc && cut_at) {
		snprintf(line, sizeof(line), "cutoff-at=%s", cut_at);
		rc = strv_push(&meta, line, err);
	}
	if (rc)
		goto done;
	memset(&o, 0, sizeof(o));
	o.status = "ok";
	o.artifacts = (const char *const *)src->artifacts.v;
	o.n_artifacts = src->artifacts.n;
	o.meta = (const char *const *)meta.v;
	o.n_meta = meta.n;
	o.version = src->version;
	o.duration_ms = 0;
	o.output_digest = src->output_digest;
	/* An unchanged record without outputs has no digest to copy. */
	if (!o.output_digest)
		o.n_artifacts = 0;
	rc = record_node(s->cache, s->ev, s->run_id, node, &o, err);
	if (!rc && s->reused)
		s->reused[node] = 1;
done:
	strv_release(&meta);
	return rc;
}

/* Reused from plan record r: the remote one, or run r->run_id's. */
static int
record_from(struct run_cache_store *s, size_t node,
	    const struct plan_remote_hit *hit, const char *run,
	    const char *cut_at, struct error *err)
{
	struct cache_record rec;
	int rc;

	if (hit)
		return record_reused(s, node, &hit->rec.rec, hit->label,
				     hit->domain, cut_at, err);
	cache_record_init(&rec);
	rc = cache_record_get(s->cache, run, s->ev->graph->nodes[node].id,
			      &rec, err);
	if (!rc)
		rc = record_reused(s, node, &rec, NULL, NULL, cut_at, err);
	cache_record_release(&rec);
	return rc;
}

/*
 * What the record says about the artifact: the rule's meta: (with
 * ${root.version} filled in), then what the first wheel among the
 * outputs says about itself (Version, Requires-Dist). A wheel whose
 * METADATA cannot be read fails the node.
 */
static int
node_meta(const struct run_cache_store *s, const struct graph_node *n,
	  const struct strv *arts, struct run_node *rn, struct strv *meta,
	  struct error *err)
{
	const char *ver = plan_root_version(s->versions, s->n_versions, n);
	struct buf b;
	char path[4096];
	size_t i, len;
	int rc = 0;

	buf_init(&b, 0);
	for (i = 0; !rc && i < n->n_meta; i++) {
		buf_reset(&b);
		rc = buf_addf(&b, err, "%s=", n->meta[i].key);
		if (!rc)
			rc = plan_fill_version(&b, n->meta[i].value, ver, err);
		if (!rc)
			rc = strv_push(meta, b.data, err);
	}
	buf_release(&b);
	for (i = 0; !rc && i < arts->n; i++) {
		struct error werr;

		len = strlen(arts->v[i]);
		if (len < 4 || strcmp(arts->v[i] + len - 4, ".whl"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->root, arts->v[i]);
		error_init(&werr);
		rc = run_wheel_metadata(path, meta, &werr);
		if (rc == ERROR_NOMEM) {
			*err = werr;
		} else if (rc < 0) {
			snprintf(rn->message, sizeof(rn->message), "%s",
				 werr.msg);
			rn->state = RUN_STATE_FAILED;
			rc = 0;
		} else if (rc == 0) {
			break;	/* the first wheel read speaks for the node */
		} else {
			rc = 0;
		}
	}
	return rc;
}

/*
 * "toolkit-identity=NAME PAIRS" for a node built with a toolkit probed
 * here (its pin checked before the run started), so the record says what
 * the build ran against; nothing when the home was not here.
 */
static int
toolkit_meta(const struct run_cache_store *s, const struct graph_node *n,
	     struct strv *meta, struct error *err)
{
	struct buf line;
	size_t i;
	int rc = 0;

	for (i = 0; i < s->n_toolkit_ids; i++) {
		if (strcmp(s->toolkit_ids[i].key, n->toolkit->name))
			continue;
		buf_init(&line, 0);
		rc = buf_addf(&line, err, "toolkit-identity=%s %s",
			      n->toolkit->name, s->toolkit_ids[i].value);
		if (!rc)
			rc = strv_push(meta, line.data, err);
		buf_release(&line);
		break;
	}
	return rc;
}

/* A failed publish of node `node`: a fault of the remote cache. */
static int
publish_fault(struct run_cache_store *s, size_t node, int rc,
	      struct error *e, struct error *err)
{
	if (rc == ERROR_NOMEM) {
		*err = *e;
		return rc;
	}
	if (rc == ERROR_UNSUPPORTED) {
		/* 401/403: the server says this runner may not write there. */
		plan_remote_refuse_writes(s->remote);
		e->hint[0] = '\0';
		error_hint(e, "this run is read-only from here on (nothing "
			   "more is published): writing %s needs a credential "
			   "in RIPPLE_REMOTE_CACHE_HEADER",
			   plan_remote_domain(s->remote)
			   ? "this ref's trust domain"
			   : "the trusted domain");
		return plan_remote_fault(s->remote, e, err);
	}
	error_node(e, s->ev->graph->nodes[node].id);
	error_hint(e, "the node is recorded here but not published%s",
		   rc == ERROR_IO ? "; publishing stops for this run" : "");
	if (rc == ERROR_IO)
		plan_remote_set_down(s->remote);
	return plan_remote_fault(s->remote, e, err);
}

/*
 * Publish an ok node (one it built; or, for a tag's run, one it reused,
 * from the remote cache when `from`); a failure is a fault of the remote
 * cache.
 */
static int
publish(struct run_cache_store *s, size_t node, int reused,
	const struct plan_remote_hit *from, struct error *err)
{
	struct error e;
	int rc;

	struct strv src = STRV_INIT;

	if (!s->remote || (reused && !s->tag))
		return 0;	/* only a tag's run publishes what it reused */
	error_init(&e);
	rc = run_remote_sources(s->ev, node, &src, &e);
	if (!rc)
		rc = run_remote_publish(s->remote, s->cache, s->root,
					s->run_id,
					s->ev->graph->nodes[node].id,
					s->runner, reused, from, &src, &e);
	strv_release(&src);
	return rc ? publish_fault(s, node, rc, &e, err) : 0;
}

/*
 * Local and remote agree on a reused node: one from the remote cache is
 * marked as held there; one from a local record (run `run`) that never
 * reached the server (its upload died) is published now.
 */
static int
agree(struct run_cache_store *s, size_t node,
      const struct plan_remote_hit *hit, const char *run, struct error *err)
{
	const char *id = s->ev->graph->nodes[node].id;
	struct error e;
	int rc;

	if (!s->remote)
		return 0;
	error_init(&e);
	if (hit) {
		rc = cache_published_mark(s->cache, id, hit->key,
					  plan_remote_write_server(s->remote),
					  &e);
		if (!rc)
			rc = run_remote_bundle_reused(s->remote, s->ev, node,
						      hit, &e);
	} else
		rc = run_remote_publish_pending(s->remote, s->cache, s->root,
						run, id, s->runner, &e);
	return rc ? publish_fault(s, node, rc, &e, err) : 0;
}

static int
record_finished(struct run_cache_store *s, size_t node, struct run_node *rn,
		struct error *err)
{
	const struct graph_node *n = &s->ev->graph->nodes[node];
	struct strv arts = STRV_INIT, meta = STRV_INIT;
	struct record_outcome o;
	struct buf ver;
	char line[600];
	int rc = 0;

	buf_init(&ver, 0);
	if (s->rewrites) {
		/* Declared files back as committed; others named. */
		char why[sizeof(rn->message)];
		struct error rerr;

		error_init(&rerr);
		rc = run_rewrites_end(s->rewrites, s->ev, node, why,
				      sizeof(why), &rerr);
		if (rc == ERROR_INVALID || rc == ERROR_NOT_FOUND) {
			/* A file it cannot put back is the node's failure:
			 * a link or a non-folder the action left on the
			 * way is never written through. */
			snprintf(why, sizeof(why), "%s", rerr.msg);
			rc = 1;
		} else if (rc < 0) {
			*err = rerr;
			goto done;
		}
		if (rc == 1 && (rn->state == RUN_STATE_OK ||
				!rn->message[0])) {
			memcpy(rn->message, why, sizeof(why));
			if (rn->state == RUN_STATE_OK)
				rn->state = RUN_STATE_FAILED;
		}
		rc = 0;
	}
	if (rn->state == RUN_STATE_OK && n->n_outputs) {
		struct error oerr;

		error_init(&oerr);
		rc = run_outputs_collect(s->root,
					 (const char *const *)n->outputs,
					 n->n_outputs, s->before
					 ? &s->before[node] : NULL, 0, &arts,
					 &oerr);
		if (rc == ERROR_NOT_FOUND || rc == ERROR_INVALID) {
			snprintf(rn->message, sizeof(rn->message), "%s",
				 oerr.msg);
			rn->state = RUN_STATE_FAILED;
			strv_release(&arts);
			strv_init(&arts, 1);
			rc = 0;
		} else if (rc) {
			*err = oerr;
			goto done;
		}
	}
	if (rn->state == RUN_STATE_OK)
		rc = plan_node_version(n, s->versions, s->n_versions, &ver,
				       err);
	if (!rc && rn->state == RUN_STATE_OK)
		rc = node_meta(s, n, &arts, rn, &meta, err);
	if (!rc && rn->state == RUN_STATE_OK)
		rc = record_group_meta(s->root, n, &arts, &meta, err);
	if (!rc && rn->state == RUN_STATE_OK && n->rule &&
	    n->rule->cutoff_payload && arts.n) {
		struct error perr;

		error_init(&perr);
		rc = run_payload_meta(s->root, &arts, &meta, &perr);
		if (rc && rc != ERROR_NOMEM) {	/* unreadable: the node fails */
			snprintf(rn->message, sizeof(rn->message), "%s",
				 perr.msg);
			rn->state = RUN_STATE_FAILED;
			rc = 0;
		} else if (rc) {
			*err = perr;
		}
	}
	if (!rc && rn->gpus[0]) {
		snprintf(line, sizeof(line), "gpus=%s", rn->gpus);
		rc = strv_push(&meta, line, err);
	}
	if (!rc && n->toolkit)
		rc = toolkit_meta(s, n, &meta, err);
	if (!rc && rn->gap) {
		const char *why = rn->message;

		if (!strncmp(why, RUN_GAP_PREFIX, strlen(RUN_GAP_PREFIX)))
			why += strlen(RUN_GAP_PREFIX);
		snprintf(line, sizeof(line), "cache-gap=%s", why);
		rc = strv_push(&meta, line, err);
	}
	if (!rc && rn->message[0] && rn->state != RUN_STATE_OK) {
		snprintf(line, sizeof(line), "message=%s", rn->message);
		rc = strv_push(&meta, line, err);
	}
	if (rc)
		goto done;
	memset(&o, 0, sizeof(o));
	o.status = rn->state == RUN_STATE_OK ? "ok"
		 : rn->state == RUN_STATE_TIMEOUT ? "timeout"
		 : rn->state == RUN_STATE_INTERRUPTED ? "interrupted"
		 : "failed";
	o.artifacts = (const char *const *)arts.v;
	o.n_artifacts = arts.n;
	o.meta = (const char *const *)meta.v;
	o.n_meta = meta.n;
	o.version = ver.len ? ver.data : NULL;
	o.duration_ms = rn->duration_ms;
	rc = record_node(s->cache, s->ev, s->run_id, node, &o, err);
done:
	buf_release(&ver);
	strv_release(&arts);
	strv_release(&meta);
	return rc;
}

static int
record(void *payload, size_t node, struct run_node *rn, struct error *err)
{
	struct run_cache_store *s = payload;
	const struct plan_item *it = &s->plan->items[node];
	int rc;

	if (s->remote && !s->reused) {
		s->reused = mem_calloc(s->plan->n + 1, 1);
		if (!s->reused)
			return error_set(err, ERROR_NOMEM, "out of memory");
	}
	if (rn->state == RUN_STATE_REUSED) {
		rc = record_from(s, node, it->remote, it->reused_run, NULL,
				 err);
		if (!rc)
			rc = agree(s, node, it->remote, it->reused_run, err);
		return rc ? rc : publish(s, node, 1, it->remote, err);
	}
	if (rn->state == RUN_STATE_CUTOFF) {
		struct plan_record rec;
		const struct graph *g = s->ev->graph;

		memset(&rec, 0, sizeof(rec));
		rc = s->hist->baseline_record(s->hist->payload,
					      g->nodes[node].id, &rec, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return error_set(err, ERROR_INTERNAL, "baseline record "
					 "of '%s' vanished", g->nodes[node].id);
		rc = record_from(s, node, rec.remote, rec.run_id,
				 rn->cause >= 0 ? g->nodes[rn->cause].id
						: "?", err);
		if (!rc)
			rc = agree(s, node, rec.remote, rec.run_id, err);
		return rc ? rc : publish(s, node, 1, rec.remote, err);
	}
	if (s->reused)
		s->reused[node] = 0;	/* rebuilt here: its files are */
	rc = record_finished(s, node, rn, err);
	if (!rc && rn->state == RUN_STATE_OK)
		rc = publish(s, node, 0, NULL, err);
	return rc;
}

void
run_store_cache_release(struct run_cache_store *s)
{
	size_t i;

	if (!s)
		return;
	mem_free(s->reused);
	s->reused = NULL;
	run_rewrites_free(s->rewrites);
	s->rewrites = NULL;
	if (!s->before)
		return;
	for (i = 0; i < s->ev->graph->n_nodes; i++)
		strv_release(&s->before[i]);
	mem_free(s->before);
	s->before = NULL;
}

void
run_store_cache(struct run_cache_store *s, struct run_store *out)
{
	out->prepare = prepare;
	out->fetch = fetch;
	out->cutoff = cutoff;
	out->record = record;
	out->payload = s;
}
