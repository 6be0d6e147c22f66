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
#include "engine/plan/plan.h"
#include "engine/plan/record.h"
#include "engine/run/outputs.h"
#include "engine/plan/versions.h"
#include "engine/run/run.h"
#include "engine/run/wheel.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "rules/rules.h"
#include "base/banned.h"

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
	int rc;

	if (!n->n_outputs)
		return 0;
	if (!s->before) {
		s->before = mem_calloc(s->ev->graph->n_nodes + 1,
				       sizeof(*s->before));
		if (!s->before)
			return error_set(err, ERROR_NOMEM, "out of memory");
	}
	before = &s->before[node];
	strv_release(before);
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
	/* Its version group builds: reusing it would split the versions. */
	if (plan_group_builds(s->plan, node))
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

/* Copy the baseline's record of the node into this run. */
static int
record_reused(struct run_cache_store *s, size_t node, const char *from_run,
	      const char *cut_at, struct run_node *rn, struct error *err)
{
	const struct graph_node *n = &s->ev->graph->nodes[node];
	struct record_outcome o;
	struct cache_record rec;
	struct strv meta = STRV_INIT;
	char line[4200];
	size_t i;
	int rc;

	cache_record_init(&rec);
	rc = cache_record_get(s->cache, from_run, n->id, &rec, err);
	if (rc)
		goto done;
	for (i = 0; !rc && i < rec.metadata.n; i++)
		if (strncmp(rec.metadata.v[i], "reused-from=", 12) &&
		    strncmp(rec.metadata.v[i], "cutoff-at=", 10))
			rc = strv_push(&meta, rec.metadata.v[i], err);
	snprintf(line, sizeof(line), "reused-from=%s", from_run);
	if (!rc)
		rc = strv_push(&meta, line, err);
	if (!rc && cut_at) {
		snprintf(line, sizeof(line), "cutoff-at=%s", cut_at);
		rc = strv_push(&meta, line, err);
	}
	if (rc)
		goto done;
	memset(&o, 0, sizeof(o));
	o.status = "ok";
	o.artifacts = (const char *const *)rec.artifacts.v;
	o.n_artifacts = rec.artifacts.n;
	o.meta = (const char *const *)meta.v;
	o.n_meta = meta.n;
	o.version = rec.version;
	o.duration_ms = 0;
	o.output_digest = rec.output_digest;
	/* An unchanged record without outputs has no digest to copy. */
	if (!o.output_digest)
		o.n_artifacts = 0;
	rc = record_node(s->cache, s->ev, s->run_id, node, &o, err);
done:
	(void)rn;
	strv_release(&meta);
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
	if (!rc && rn->gpus[0]) {
		snprintf(line, sizeof(line), "gpus=%s", rn->gpus);
		rc = strv_push(&meta, line, err);
	}
	if (!rc && n->toolkit)
		rc = toolkit_meta(s, n, &meta, err);
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

	if (rn->state == RUN_STATE_REUSED)
		return record_reused(s, node, it->reused_run, NULL, rn, err);
	if (rn->state == RUN_STATE_CUTOFF) {
		struct plan_record rec;
		const struct graph *g = s->ev->graph;
		int rc;

		memset(&rec, 0, sizeof(rec));
		rc = s->hist->baseline_record(s->hist->payload,
					      g->nodes[node].id, &rec, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return error_set(err, ERROR_INTERNAL, "baseline record "
					 "of '%s' vanished", g->nodes[node].id);
		return record_reused(s, node, rec.run_id,
				     rn->cause >= 0 ? g->nodes[rn->cause].id
						    : "?", rn, err);
	}
	return record_finished(s, node, rn, err);
}

void
run_store_cache_release(struct run_cache_store *s)
{
	size_t i;

	if (!s || !s->before)
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
	out->cutoff = cutoff;
	out->record = record;
	out->payload = s;
}
