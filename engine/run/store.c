/*
 * The cache-backed run store: reuse and cutoff records copied from the
 * baseline record, finished nodes with their outputs hashed, and output
 * glob expansion.
 */
#include "engine/run/store.h"

#include <dirent.h>
#include <errno.h>
#include <unistd.h>
#include <fnmatch.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "engine/plan/eval.h"
#include "engine/plan/plan.h"
#include "engine/plan/record.h"
#include "engine/plan/remote.h"
#include "engine/run/remote.h"
#include "engine/run/run.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "rules/rules.h"
#include "base/banned.h"

static int
walk(const char *root, const char *rel, const char *pattern, size_t *hits,
     struct strv *out, struct error *err)
{
	char path[4096];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	d = opendir(path);
	if (!d)
		return 0;
	while (!rc && (de = readdir(d))) {
		char child[4096];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(child, sizeof(child), "%s%s%s", rel,
			     rel[0] ? "/" : "", de->d_name) >=
			    (int)sizeof(child) ||
		    snprintf(path, sizeof(path), "%s/%s", root, child) >=
			    (int)sizeof(path) ||
		    lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			rc = walk(root, child, pattern, hits, out, err);
		else if (S_ISREG(st.st_mode) && !fnmatch(pattern, child, 0)) {
			(*hits)++;
			rc = strv_push(out, child, err);
		}
	}
	closedir(d);
	return rc;
}

static int
expand_one(const char *root, const char *pattern, struct strv *out,
	   struct error *err)
{
	size_t hits = 0, dirs = 0, i, rlen = strlen(root);
	char full[4096];
	glob_t gl;
	int rc = 0;

	if (strstr(pattern, "**")) {
		char base[4096];
		size_t cut = strcspn(pattern, "*?[");
		char *slash;

		snprintf(base, sizeof(base), "%.*s", (int)cut, pattern);
		slash = strrchr(base, '/');
		if (slash)
			*slash = '\0';
		else
			base[0] = '\0';
		rc = walk(root, base, pattern, &hits, out, err);
	} else {
		snprintf(full, sizeof(full), "%s/%s", root, pattern);
		memset(&gl, 0, sizeof(gl));
		if (!glob(full, 0, NULL, &gl)) {
			for (i = 0; !rc && i < gl.gl_pathc; i++) {
				struct stat st;
				const char *p = gl.gl_pathv[i];

				if (!stat(p, &st) && S_ISDIR(st.st_mode))
					dirs++;
				if (stat(p, &st) || !S_ISREG(st.st_mode))
					continue;
				if (!strncmp(p, root, rlen) && p[rlen] == '/')
					p += rlen + 1;
				hits++;
				rc = strv_push(out, p, err);
			}
		}
		globfree(&gl);
	}
	if (!rc && !hits && dirs) {
		rc = error_set(err, ERROR_NOT_FOUND, "declared output '%s' "
			       "is a directory: outputs name files, such as "
			       "'%s/**'", pattern, pattern);
	} else if (!rc && !hits) {
		rc = error_set(err, ERROR_NOT_FOUND, "declared output '%s' "
			       "matches no file", pattern);
		error_hint(err, "outputs are globs relative to the repository "
			   "root; the action must write them");
	}
	return rc;
}

int
run_outputs_expand(const char *root, const char *const *patterns, size_t n,
		   struct strv *out, struct error *err)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < n; i++)
		rc = expand_one(root, patterns[i], out, err);
	if (!rc)
		strv_sort_unique(out);
	return rc;
}

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
		rc = run_remote_fetch(s->remote, s->root, &rec, NULL, err);
	cache_record_release(&rec);
	return rc;
}

/*
 * Remove the files the node's outputs match now (stale from earlier
 * runs); with a remote cache, fetch the outputs of reused upstream nodes.
 */
static int
prepare(void *payload, size_t node, struct error *err)
{
	struct run_cache_store *s = payload;
	const struct graph_node *n = &s->ev->graph->nodes[node];
	struct strv old = STRV_INIT;
	char path[4096];
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < n->n_outputs; i++) {
		struct error e2;

		error_init(&e2);
		rc = expand_one(s->root, n->outputs[i], &old, &e2);
		if (rc == ERROR_NOT_FOUND)
			rc = 0;	/* nothing there yet */
		else if (rc)
			*err = e2;
	}
	for (i = 0; !rc && i < old.n; i++) {
		snprintf(path, sizeof(path), "%s/%s", s->root, old.v[i]);
		if (unlink(path) && errno != ENOENT)
			rc = error_set(err, ERROR_IO, "cannot remove the stale "
				       "output '%s': %s", old.v[i],
				       strerror(errno));
	}
	strv_release(&old);
	for (i = 0; !rc && s->remote && s->reused && i < n->n_deps; i++)
		rc = fetch_dep(s, n->deps[i], err);
	return rc;
}

/* The node's version template with ${root.version} substituted. */
static int
node_version(const struct run_cache_store *s, const struct graph_node *n,
	     struct buf *b, struct error *err)
{
	if (!n->version)
		return 0;
	return run_fill_version(b, n->version,
				run_root_version(s->versions, s->n_versions,
						 n), err);
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
	if (!rec.ok || rec.artifact_missing)
		return 0;
	rc = record_node_key(s->cache, s->ev, s->run_id, node, &keys, err);
	if (!rc)
		rc = !strcmp(keys->keys[node].key.hex, rec.key);
	graph_keys_free(keys);
	return rc;
}

/*
 * Record the node as reused from `src` (a record of its key: the
 * baseline's, another run's, or the remote cache's, then `remote` names
 * it) into this run.
 */
static int
record_reused(struct run_cache_store *s, size_t node,
	      const struct cache_record *src, const char *remote,
	      const char *cut_at, struct error *err)
{
	struct record_outcome o;
	struct strv meta = STRV_INIT;
	char line[4200];
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < src->metadata.n; i++)
		if (strncmp(src->metadata.v[i], "reused-from", 11) &&
		    strncmp(src->metadata.v[i], "cutoff-at=", 10))
			rc = strv_push(&meta, src->metadata.v[i], err);
	snprintf(line, sizeof(line), "reused-from=%s", src->run);
	if (!rc)
		rc = strv_push(&meta, line, err);
	if (!rc && remote) {
		snprintf(line, sizeof(line), "reused-from-remote=%s", remote);
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
				     cut_at, err);
	cache_record_init(&rec);
	rc = cache_record_get(s->cache, run, s->ev->graph->nodes[node].id,
			      &rec, err);
	if (!rc)
		rc = record_reused(s, node, &rec, NULL, cut_at, err);
	cache_record_release(&rec);
	return rc;
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

	if (!s->remote || (reused && !s->tag))
		return 0;	/* only a tag's run publishes what it reused */
	error_init(&e);
	rc = run_remote_publish(s->remote, s->cache, s->root, s->run_id,
				s->ev->graph->nodes[node].id, s->runner,
				reused, from, &e);
	if (!rc)
		return 0;
	if (rc == ERROR_NOMEM) {
		*err = e;
		return rc;
	}
	error_node(&e, s->ev->graph->nodes[node].id);
	error_hint(&e, "the node is recorded here but not published%s",
		   rc == ERROR_IO ? "; publishing stops for this run" : "");
	if (rc == ERROR_IO)
		plan_remote_set_down(s->remote);
	return plan_remote_fault(s->remote, &e, err);
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
		rc = run_outputs_expand(s->root,
					(const char *const *)n->outputs,
					n->n_outputs, &arts, &oerr);
		if (rc == ERROR_NOT_FOUND) {
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
		rc = node_version(s, n, &ver, err);
	if (!rc && rn->gpus[0]) {
		snprintf(line, sizeof(line), "gpus=%s", rn->gpus);
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
		return rc ? rc : publish(s, node, 1, rec.remote, err);
	}
	rc = record_finished(s, node, rn, err);
	if (!rc && rn->state == RUN_STATE_OK)
		rc = publish(s, node, 0, NULL, err);
	return rc;
}

void
run_store_cache(struct run_cache_store *s, struct run_store *out)
{
	out->prepare = prepare;
	out->cutoff = cutoff;
	out->record = record;
	out->payload = s;
}

void
run_store_cache_release(struct run_cache_store *s)
{
	if (!s)
		return;
	mem_free(s->reused);
	s->reused = NULL;
}
