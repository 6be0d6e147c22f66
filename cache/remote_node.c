/*
 * The remote cache's action cache requests, and whole nodes: publishing a
 * node (outputs, then its record blob, then its AC entry) and looking up
 * many nodes in two parallel batches (AC entries, then record blobs).
 * Encoding lives in remote_ac.c, the CAS in remote_cas.c.
 */
#include "cache/remote.h"
#include "cache/remote_int.h"

#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")

int
remote_ac_put(struct remote *r, const char *ac_hash, const unsigned char *p,
	      size_t len, struct error *err)
{
	struct xfer x;
	int rc;

	if (r->opts.read_only)
		return remote_read_only_error(r, err);
	if (!remote_hash_valid(ac_hash))
		return error_set(err, ERROR_INVALID, "malformed AC key '%.64s'",
				 ac_hash);
	xfer_init(&x);
	x.method = XFER_PUT;
	x.space = r->ac_space;
	memcpy(x.hash, ac_hash, REMOTE_HASH_SIZE);
	x.src_mem = p;
	x.src_size = (int64_t)len;
	rc = remote_xfer_run(r, &x, 1, err);
	if (!rc)
		rc = remote_xfer_first_error(&x, 1, err);
	xfer_release(&x);
	return rc;
}

/* Set up x as the GET of AC entry `hash` in `space` into memory. */
static void
ac_get_xfer(struct xfer *x, const char *space, const char *hash)
{
	xfer_init(x);
	x->method = XFER_GET;
	x->space = space;
	memcpy(x->hash, hash, REMOTE_HASH_SIZE);
	x->sink = XFER_SINK_MEM;
	x->max = REMOTE_AC_MAX;
}

/* Decode a fetched AC entry; errors name the server and the entry. */
static int
ac_decode(struct remote *r, const struct xfer *x, struct remote_action *out,
	  struct error *err)
{
	int rc = remote_action_decode(x->mem ? x->mem : "", x->mem_len, out,
				      err);

	if (rc)
		error_prefix(err, "remote cache %s: GET %s/%s", r->url,
			     x->space, x->hash);
	return rc;
}

int
remote_ac_get(struct remote *r, const char *ac_hash,
	      struct remote_action *out, struct error *err)
{
	struct xfer x;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!remote_hash_valid(ac_hash))
		return error_set(err, ERROR_INVALID, "malformed AC key '%.64s'",
				 ac_hash);
	ac_get_xfer(&x, r->ac_space, ac_hash);
	rc = remote_xfer_run(r, &x, 1, err);
	if (!rc)
		rc = remote_xfer_first_error(&x, 1, err);
	if (!rc && x.result == 1) {
		rc = ac_decode(r, &x, out, err);
		if (!rc)
			rc = 1;
	}
	xfer_release(&x);
	return rc;
}

int
remote_node_put(struct remote *r, const char *node_id, const char *key,
		const struct remote_upload_file *files, size_t n,
		const char *record, size_t record_len, int exit_code,
		const char *worker, struct error *err)
{
	return remote_node_put_action(r, node_id, key, files, n, record,
				      record_len, exit_code, worker, NULL,
				      err);
}

/* Copy the entry a put wrote (strings borrowed from the caller's). */
static int
action_copy(const struct remote_action *a, struct remote_action *out,
	    struct error *err)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->outputs = mem_calloc(a->n + 1, sizeof(*out->outputs));
	if (!out->outputs)
		return OOM(err);
	for (i = 0; i < a->n; i++) {
		out->outputs[i] = a->outputs[i];
		out->outputs[i].path = mem_strdup(a->outputs[i].path);
		if (!out->outputs[i].path) {
			remote_action_release(out);
			return OOM(err);
		}
		out->n++;
	}
	out->record = a->record;
	out->exit_code = a->exit_code;
	if (a->worker && !(out->worker = mem_strdup(a->worker))) {
		remote_action_release(out);
		return OOM(err);
	}
	return 0;
}

int
remote_node_put_action(struct remote *r, const char *node_id,
		       const char *key,
		       const struct remote_upload_file *files, size_t n,
		       const char *record, size_t record_len, int exit_code,
		       const char *worker, struct remote_action *out,
		       struct error *err)
{
	struct remote_action a;
	const char **paths = NULL;
	unsigned char *bytes = NULL;
	struct remote_digest *d = NULL;
	char ac[REMOTE_HASH_SIZE];
	size_t len = 0, i;
	int rc;

	memset(&a, 0, sizeof(a));
	if (r->opts.read_only)
		return remote_read_only_error(r, err);
	rc = remote_ac_key(node_id, key, ac, err);
	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		rc = remote_output_path_check(files[i].name,
					      strlen(files[i].name), err);
		if (rc)
			return rc;
	}
	paths = mem_calloc(n + 1, sizeof(*paths));
	d = mem_calloc(n + 1, sizeof(*d));
	a.outputs = mem_calloc(n + 1, sizeof(*a.outputs));
	if (!paths || !d || !a.outputs) {
		rc = OOM(err);
		goto done;
	}
	for (i = 0; i < n; i++)
		paths[i] = files[i].path;
	/* 1. the outputs, 2. the record, 3. the AC entry naming both. */
	rc = remote_cas_put_files(r, paths, NULL, n, d, err);
	if (!rc)
		rc = remote_cas_put_buf(r, record, record_len, &a.record, err);
	if (rc)
		goto done;
	for (i = 0; i < n; i++) {
		a.outputs[i].path = (char *)files[i].name;
		a.outputs[i].digest = d[i];
		a.outputs[i].executable = files[i].executable;
	}
	a.n = n;
	a.exit_code = exit_code;
	a.worker = (char *)worker;
	a.record_text = (char *)record;	/* inline: a hit is one request */
	a.record_len = record_len;
	rc = remote_action_encode(&a, &bytes, &len, err);
	if (!rc)
		rc = remote_ac_put(r, ac, bytes, len, err);
	if (rc)
		error_node(err, node_id);
	else if (out)
		rc = action_copy(&a, out, err);
done:
	mem_free(bytes);
	mem_free(a.outputs);
	mem_free(d);
	mem_free(paths);
	return rc;
}

void
remote_lookup_release(struct remote_lookup *l)
{
	if (!l)
		return;
	remote_action_release(&l->action);
	mem_free(l->record);
	l->record = NULL;
	l->record_len = 0;
}

/* Phase 2: the record blobs of the m hits listed in idx. */
static int
fetch_records(struct remote *r, struct remote_lookup *items,
	      const size_t *idx, size_t m, struct error *err)
{
	struct xfer *x = mem_calloc(m ? m : 1, sizeof(*x));
	const char **dom = mem_calloc(m ? m : 1, sizeof(*dom));
	size_t i;
	int rc;

	if (!x || !dom) {
		mem_free(x);
		mem_free(dom);
		return OOM(err);
	}
	for (i = 0; i < m; i++) {
		const struct remote_digest *d = &items[idx[i]].action.record;

		xfer_init(&x[i]);
		dom[i] = items[idx[i]].domain;
		x[i].method = XFER_GET;
		memcpy(x[i].hash, d->hash, REMOTE_HASH_SIZE);
		x[i].sink = XFER_SINK_MEM;
		x[i].expect_size = d->size;
		x[i].max = REMOTE_RECORD_MAX;
		x[i].verify = 1;
	}
	rc = remote_cas_run(r, x, m, dom, err);
	for (i = 0; !rc && i < m; i++) {
		struct remote_lookup *l = &items[idx[i]];

		if (x[i].result == 1 && !x[i].mem)
			l->record = mem_strdup("");
		else if (x[i].result == 1)
			l->record = x[i].mem;
		if (x[i].result == 1) {
			x[i].mem = NULL;
			l->record_len = x[i].mem_len;
			if (!l->record)
				l->found = OOM(&l->err);
			continue;
		}
		/* An evicted record blob is a miss; a bad one an error. */
		l->found = x[i].result;
		if (x[i].result < 0)
			l->err = x[i].err;
		remote_lookup_release(l);
	}
	for (i = 0; i < m; i++)
		xfer_release(&x[i]);
	mem_free(x);
	mem_free(dom);
	return rc;
}

int
remote_node_lookup(struct remote *r, struct remote_lookup *items, size_t n,
		   struct error *err)
{
	struct xfer *x = NULL;
	char (*space)[REMOTE_SPACE_SIZE] = NULL;
	size_t *idx = NULL, m = 0, i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		items[i].found = 0;
		items[i].record = NULL;
		items[i].record_len = 0;
		memset(&items[i].action, 0, sizeof(items[i].action));
		error_init(&items[i].err);
	}
	x = mem_calloc(n ? n : 1, sizeof(*x));
	idx = mem_calloc(n ? n : 1, sizeof(*idx));
	space = mem_calloc(n ? n : 1, sizeof(*space));
	if (!x || !idx || !space) {
		rc = OOM(err);
		goto done;
	}
	for (i = 0; i < n; i++)
		xfer_init(&x[i]);
	for (i = 0; i < n; i++) {
		char ac[REMOTE_HASH_SIZE];

		rc = remote_ac_key(items[i].node_id, items[i].key, ac, err);
		if (!rc && items[i].domain &&
		    !remote_domain_valid(items[i].domain))
			rc = error_set(err, ERROR_INVALID, "'%.80s' is not a "
				       "trust domain id", items[i].domain);
		if (rc) {
			error_node(err, items[i].node_id);
			goto done;
		}
		remote_ac_space(items[i].domain, space[i]);
		ac_get_xfer(&x[i], space[i], ac);
	}
	rc = remote_xfer_run(r, x, n, err);
	if (rc)
		goto done;
	for (i = 0; i < n; i++) {
		struct remote_lookup *l = &items[i];

		l->found = x[i].result;
		if (x[i].result < 0)
			l->err = x[i].err;
		if (x[i].result != 1)
			continue;
		l->found = ac_decode(r, &x[i], &l->action, &l->err);
		if (l->found)
			continue;
		if (!l->action.record_text) {
			idx[m++] = i;	/* an older entry: fetch the record */
			continue;
		}
		l->record = l->action.record_text;
		l->record_len = l->action.record_len;
		l->action.record_text = NULL;
		l->action.record_len = 0;
		l->found = 1;
	}
	rc = fetch_records(r, items, idx, m, err);
	for (i = 0; i < m; i++)
		if (items[idx[i]].found == 0 && items[idx[i]].record)
			items[idx[i]].found = 1;
done:
	for (i = 0; x && i < n; i++)
		xfer_release(&x[i]);
	mem_free(x);
	mem_free(idx);
	mem_free(space);
	return rc;
}
