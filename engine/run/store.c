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

/* Remove the files the node's outputs match now: stale from earlier runs. */
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
	if (!rec.ok || rec.artifact_missing || rec.conflict)
		return 0;
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
run_store_cache(struct run_cache_store *s, struct run_store *out)
{
	out->prepare = prepare;
	out->cutoff = cutoff;
	out->record = record;
	out->payload = s;
}
