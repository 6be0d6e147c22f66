/*
 * Bytes on demand and publishing: a reused node's outputs fetched from the
 * remote cache into the repository (or a folder), verified twice (each
 * blob's SHA-256 while it streams, then the record's output digest over
 * all of them); a finished node's outputs, record blob and AC entry
 * uploaded in that order (cache/remote.h: remote_node_put).
 */
#include "engine/run/remote.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/place.h"
#include "cache/cache.h"
#include "cache/remote.h"
#include "engine/plan/record.h"
#include "engine/plan/remote.h"
#include "engine/run/outputs.h"
#include "graph/digest.h"
#include "graph/outputs.h"
#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")

/* Do the files at rel (no link, FIFO or device on the way) make rec's
 * output digest already? */
static int
present(const char *root, const struct cache_record *rec,
	const char *const *rel, size_t n)
{
	struct digest d;
	struct error e;
	size_t i;

	if (!rec->output_digest)
		return 0;
	for (i = 0; i < n; i++) {
		int fd;

		error_init(&e);
		fd = place_read_open(root, rel[i], &e);
		if (fd < 0)
			return 0;
		close(fd);
	}
	error_init(&e);
	return !record_output_digest(root, rel, n, &d, &e) &&
	       !strcmp(d.hex, rec->output_digest);
}

/* The checked AC entry of rec's key: found by the plan, or asked now. */
static const struct plan_remote_hit *
find_hit(struct plan_remote *pr, const struct cache_record *rec,
	 struct error *err)
{
	const struct plan_remote_hit *h = plan_remote_find(pr, NULL, rec->key);
	const char *id = rec->node_id, *key = rec->key;

	if (h)
		return h;
	if (plan_remote_lookup(pr, NULL, &id, &key, 1, err))
		return NULL;
	h = plan_remote_find(pr, NULL, rec->key);
	if (!h)
		error_set(err, ERROR_NOT_FOUND, "cannot get the bytes of %s: "
			  "remote cache %s %s", rec->node_id,
			  plan_remote_url(pr), plan_remote_up(pr)
			  ? "has no usable entry of its key" : "is unreachable");
	return h;
}

/* Where output i goes under the placement's root: its path, or (--to)
 * its base name, which no other output may share. */
static int
dest_name(const struct plan_remote_hit *h, size_t i, int to_dir,
	  const char **out, struct error *err)
{
	const char *path = h->action.outputs[i].path;
	const char *base = strrchr(path, '/');
	size_t k;

	base = base ? base + 1 : path;
	*out = to_dir ? base : path;
	for (k = 0; to_dir && k < i; k++) {
		const char *o = strrchr(h->action.outputs[k].path, '/');

		if (!strcmp(o ? o + 1 : h->action.outputs[k].path, base))
			return error_set(err, ERROR_INVALID, "outputs '%s' and "
					 "'%s' share the file name '%s' in "
					 "--to", h->action.outputs[k].path,
					 path, base);
	}
	return 0;
}

/*
 * Remove temp files a killed fetch left: in the node's declared output
 * folders (below them too where a pattern spans folders: any older entry
 * of the node may have put files there), or in the --to folder.
 */
static void
sweep(const char *root, const char *const *patterns, size_t n_patterns,
      const char *to_dir)
{
	struct error e;

	error_init(&e);
	if (to_dir)
		place_sweep(to_dir, "", 0, &e);
	else
		run_outputs_sweep(root, patterns, n_patterns);
}

/*
 * Staged files downloaded at once: each holds a descriptor while its
 * batch runs, so a node with thousands of outputs stays far below the
 * process's limit (1024 by default) whatever RIPPLE_REMOTE_PARALLEL says.
 */
#define FETCH_BATCH 64

/* The bytes of one fetch: a file per output, kept or staged. */
struct fetch_set {
	struct place pl;
	struct remote_fetch *f;		/* the staged ones, m */
	size_t *staged;			/* their place indexes, m */
	const char *domain;		/* the entry's trust domain, or NULL */
	size_t m;
	char **files;			/* where output i's bytes are now */
	size_t n;
};

static void
fetch_set_release(struct fetch_set *s)
{
	size_t i;

	place_close(&s->pl);
	for (i = 0; s->files && i < s->n; i++)
		mem_free(s->files[i]);
	mem_free(s->files);
	mem_free(s->f);
	mem_free(s->staged);
}

/* Keep output i when `base`/name holds its bytes already, else stage it. */
static int
keep_or_stage(struct fetch_set *s, const char *base,
	      const struct remote_output *o, const char *name, size_t i,
	      struct error *err)
{
	struct remote_digest have;
	struct error e;
	size_t len = strlen(base) + strlen(name) + 2;
	int fd, k;

	error_init(&e);
	fd = place_read_open(base, name, &e);
	if (fd == ERROR_INVALID) {
		*err = e;
		return fd;
	}
	if (fd >= 0) {
		int same = !remote_digest_fd(fd, name, &have, &e) &&
			   have.size == o->digest.size &&
			   !strcmp(have.hash, o->digest.hash);

		close(fd);
		if (same) {
			s->files[i] = mem_alloc(len);
			if (!s->files[i])
				return OOM(err);
			snprintf(s->files[i], len, "%s/%s", base, name);
			return 0;
		}
	}
	k = place_stage(&s->pl, name, o->executable ? 0755 : 0644, err);
	if (k < 0)
		return k;
	s->files[i] = place_tmp_path(&s->pl, (size_t)k);
	if (!s->files[i])
		return OOM(err);
	s->f[s->m].digest = o->digest;
	s->f[s->m].domain = s->domain;
	s->f[s->m].fd = -1;
	s->staged[s->m] = (size_t)k;
	s->m++;
	return 0;
}

/*
 * A blob of staged files [at, at + n) failed its digest or size: say
 * which output and blob, that the server holds damaged bytes, and what
 * repairs them (issue 22: garbage PUT over a blob after it was uploaded
 * is found here, never placed).
 */
static void
damaged(struct plan_remote *pr, const struct fetch_set *s, size_t at,
	size_t n, struct error *err)
{
	const char *why;
	char detail[sizeof(err->msg)];
	size_t i;

	for (i = at; i < at + n; i++)
		if (s->f[i].result == ERROR_CORRUPT)
			break;
	if (i == at + n)
		return;
	why = strstr(err->msg, s->f[i].digest.hash);
	why = why ? why + REMOTE_HASH_LEN + 2 : err->msg;
	snprintf(detail, sizeof(detail), "%s", why);
	error_init(err);
	error_set(err, ERROR_CORRUPT, "output '%s': blob %s (%lld bytes) is "
		  "damaged in remote cache %s: %s",
		  s->pl.files[s->staged[i]].rel, s->f[i].digest.hash,
		  (long long)s->f[i].digest.size, plan_remote_url(pr), detail);
	error_hint(err, "nothing was written; a run that builds the node "
		   "again uploads its true bytes over the damaged ones (`ripple "
		   "run --reuse none` of the node, with a credential that may "
		   "write), and a run that needs them rebuilds the node by "
		   "itself (a cache gap)");
}

/* Fetch staged files [at, at + n) with a descriptor each, then close. */
static int
download_batch(struct plan_remote *pr, struct fetch_set *s, size_t at,
	       size_t n, struct error *err)
{
	size_t i;
	int rc = 0;

	for (i = at; !rc && i < at + n; i++) {
		int fd = place_fd(&s->pl, s->staged[i], err);

		rc = fd < 0 ? fd : 0;
		s->f[i].fd = fd;
	}
	if (!rc)
		rc = remote_cas_get_files(plan_remote_client(pr), s->f + at, n,
					  err);
	if (rc == ERROR_CORRUPT)
		damaged(pr, s, at, n, err);
	for (i = at; i < at + n; i++) {
		int c = place_fd_close(&s->pl, s->staged[i], err);

		s->f[i].fd = -1;
		rc = rc ? rc : c;
	}
	return rc;
}

/* Fetch the staged files, FETCH_BATCH at a time; count them. */
static int
download(struct plan_remote *pr, struct fetch_set *s, struct error *err)
{
	struct plan_remote_stats *st = plan_remote_stats(pr);
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < s->m; i += FETCH_BATCH)
		rc = download_batch(pr, s, i, s->m - i < FETCH_BATCH
					      ? s->m - i : FETCH_BATCH, err);
	for (i = 0; !rc && i < s->m; i++) {
		if (s->f[i].result == 1) {
			st->fetched_files++;
			st->fetched_bytes += s->f[i].digest.size;
			continue;
		}
		rc = error_set(err, ERROR_NOT_FOUND, "remote cache %s has no "
			       "blob %s (%lld bytes)", plan_remote_url(pr),
			       s->f[i].digest.hash,
			       (long long)s->f[i].digest.size);
	}
	return rc;
}

/* The files, before they are placed, must make the record's digest. */
static int
verify(const struct cache_record *rec, const struct plan_remote_hit *h,
       char *const *files, struct error *err)
{
	const char **names = mem_calloc(h->action.n + 1, sizeof(*names));
	struct digest d;
	size_t i;
	int rc;

	if (!names)
		return OOM(err);
	for (i = 0; i < h->action.n; i++)
		names[i] = h->action.outputs[i].path;
	rc = record_output_digest_files(names, (const char *const *)files,
					h->action.n, &d, err);
	if (!rc && (!rec->output_digest || strcmp(d.hex, rec->output_digest)))
		rc = error_set(err, ERROR_CORRUPT, "the files fetched for %s "
			       "make output digest %s, not the record's %s "
			       "(nothing was written)", rec->node_id, d.hex,
			       rec->output_digest ? rec->output_digest
						  : "(none)");
	mem_free(names);
	return rc;
}

/* Stage, download, verify, then place every output of h: all or none. */
static int
fetch_all(struct plan_remote *pr, const char *base, int to_dir,
	  const struct cache_record *rec, const struct plan_remote_hit *h,
	  struct error *err)
{
	struct fetch_set s;
	size_t i;
	int rc;

	memset(&s, 0, sizeof(s));
	s.pl.root_fd = -1;
	s.n = h->action.n;
	s.domain = h->domain;
	s.f = mem_calloc(s.n + 1, sizeof(*s.f));
	s.files = mem_calloc(s.n + 1, sizeof(*s.files));
	s.staged = mem_calloc(s.n + 1, sizeof(*s.staged));
	if (!s.f || !s.files || !s.staged) {
		rc = OOM(err);
		goto done;
	}
	rc = place_open(&s.pl, base, err);
	for (i = 0; !rc && i < s.n; i++) {
		const char *name;

		rc = dest_name(h, i, to_dir, &name, err);
		if (!rc)
			rc = keep_or_stage(&s, base, &h->action.outputs[i],
					   name, i, err);
	}
	if (!rc)
		rc = download(pr, &s, err);
	if (!rc)
		rc = verify(rec, h, s.files, err);
	if (!rc)
		rc = place_commit(&s.pl, err);
done:
	fetch_set_release(&s);
	return rc;
}

/* Every relative artifact of rec is an output of node `patterns`. */
static int
declared(const struct cache_record *rec, const char *const *patterns,
	 size_t n_patterns, const struct plan_remote_hit *h, struct error *err)
{
	size_t i, k;

	for (i = 0; i < rec->artifacts.n; i++) {
		const char *a = rec->artifacts.v[i];

		if (a[0] == '/')
			continue;
		for (k = 0; k < n_patterns; k++)
			if (graph_glob_match(patterns[k], a))
				break;
		if (k == n_patterns)
			return error_set(err, ERROR_CORRUPT, "the record of "
					 "%s lists '%s', not one of its "
					 "outputs", rec->node_id, a);
	}
	return h ? plan_remote_outputs_check(h, patterns, n_patterns, err)
		 : 0;
}

int
run_remote_fetch(struct plan_remote *pr, const char *root,
		 const struct cache_record *rec, const char *const *patterns,
		 size_t n_patterns, const char *to_dir, struct error *err)
{
	const struct plan_remote_hit *h = NULL;
	const char **rel = mem_calloc(rec->artifacts.n + 1, sizeof(*rel));
	size_t i, n = 0;
	int rc = 0;

	if (!rel)
		return OOM(err);
	for (i = 0; i < rec->artifacts.n; i++)
		if (rec->artifacts.v[i][0] != '/')
			rel[n++] = rec->artifacts.v[i];
	rc = declared(rec, patterns, n_patterns, NULL, err);
	if (rc || !n || (!to_dir && present(root, rec, rel, n)))
		goto done;
	if (!plan_remote_up(pr)) {
		rc = error_set(err, ERROR_NOT_FOUND, "remote cache %s is "
			       "unreachable (an earlier request failed)",
			       plan_remote_url(pr));
		goto done;
	}
	h = find_hit(pr, rec, err);
	if (!h) {
		rc = err->code ? err->code : ERROR_NOT_FOUND;
		goto done;
	}
	rc = declared(rec, patterns, n_patterns, h, err);
	if (rc)
		goto done;
	sweep(root, patterns, n_patterns, to_dir);
	rc = fetch_all(pr, to_dir ? to_dir : root, to_dir != NULL, rec, h,
		       err);
done:
	if (rc && !strstr(err->msg, "cannot get the bytes"))
		error_prefix(err, "cannot get the bytes of %s", rec->node_id);
	if (rc)
		error_node(err, rec->node_id);
	mem_free(rel);
	return rc;
}

/*
 * An AC entry under id for outputs already in the CAS (those of the AC
 * entry `from`), naming a new record blob: a tag's run adopting a record
 * another run published.
 */
static int
put_adopted(struct plan_remote *pr, const char *id, const char *key,
	    const struct plan_remote_hit *from, const char *blob, size_t len,
	    const char *runner, struct error *err)
{
	struct remote *r = plan_remote_client(pr);
	struct remote_action a;
	unsigned char *bytes = NULL;
	char ac[REMOTE_HASH_SIZE];
	size_t n = 0;
	int rc;

	memset(&a, 0, sizeof(a));
	a.outputs = from->action.outputs;
	a.n = from->action.n;
	a.worker = (char *)runner;
	a.record_text = (char *)blob;	/* inline: one request a hit */
	a.record_len = len;
	rc = remote_ac_key(id, key, ac, err);
	if (!rc)
		rc = remote_cas_put_buf(r, blob, len, &a.record, err);
	if (!rc)
		rc = remote_action_encode(&a, &bytes, &n, err);
	if (!rc)
		rc = remote_ac_put(r, ac, bytes, n, err);
	mem_free(bytes);
	return rc;
}

/* The files of rec's repository-relative artifacts, for an upload. */
static int
upload_files(const char *root, const struct cache_record *rec,
	     struct remote_upload_file *files, char **paths, size_t *n,
	     struct error *err)
{
	size_t i;

	for (i = 0; i < rec->artifacts.n; i++) {
		const char *a = rec->artifacts.v[i];
		size_t plen = strlen(root) + strlen(a) + 2;
		struct stat st;

		if (a[0] == '/')
			continue;	/* a locator outside: not ours */
		paths[*n] = mem_alloc(plen);
		if (!paths[*n])
			return OOM(err);
		snprintf(paths[*n], plen, "%s/%s", root, a);
		files[*n].path = paths[*n];
		files[*n].name = a;
		files[*n].executable = !stat(paths[*n], &st) &&
				       (st.st_mode & 0111);
		(*n)++;
	}
	return 0;
}

/* The value of metadata key `k` ("k=" included) of rec, or NULL. */
static const char *
meta_value(const struct cache_record *rec, const char *k)
{
	size_t i, n = strlen(k);

	for (i = 0; i < rec->metadata.n; i++)
		if (!strncmp(rec->metadata.v[i], k, n))
			return rec->metadata.v[i] + n;
	return NULL;
}

/*
 * The record of node_id as the run that built it recorded it, into *rec
 * and *run: a run that reused a record recorded a copy naming its source
 * (metadata reused-from=RUN), so follow those (at most 16 hops). 1 found;
 * 0 when the chain leaves this cache or names the remote cache (a copy
 * of a record that is there already); or an error.
 */
static int
builder_record(struct cache *c, const char *run_id, const char *node_id,
	       struct cache_record *rec, struct cache_run *run,
	       struct error *err)
{
	char id[1024];
	const char *from;
	int hop, rc;

	snprintf(id, sizeof(id), "%s", run_id);
	for (hop = 0; hop < 16; hop++) {
		cache_record_release(rec);
		cache_record_init(rec);
		rc = cache_record_get(c, id, node_id, rec, err);
		if (rc)
			return rc == ERROR_NOT_FOUND ? 0 : rc;
		if (meta_value(rec, "reused-from-remote="))
			return 0;
		from = meta_value(rec, "reused-from=");
		if (!from)
			break;
		if (!strcmp(from, id) || strlen(from) >= sizeof(id))
			return 0;
		snprintf(id, sizeof(id), "%s", from);
	}
	if (hop == 16)
		return 0;
	rc = cache_run_get(c, id, run, err);
	return rc ? (rc == ERROR_NOT_FOUND ? 0 : rc) : 1;
}

int
run_remote_publish_pending(struct plan_remote *pr, struct cache *c,
			   const char *root, const char *run_id,
			   const char *node_id, const char *runner,
			   struct error *err)
{
	struct cache_record rec;
	struct cache_run run;
	const char **rel = NULL;
	size_t i, n = 0;
	int rc, here;

	if (!plan_remote_may_write(pr))
		return 0;
	cache_record_init(&rec);
	memset(&run, 0, sizeof(run));
	rc = builder_record(c, run_id, node_id, &rec, &run, err);
	/* Only a record of a ref whose domain this run writes is ours. */
	if (rc <= 0 || rec.status != CACHE_RECORD_STATUS_OK ||
	    !plan_remote_writes_for(pr, run.ref))
		goto done;
	rc = cache_published_has(c, node_id, rec.key,
				 plan_remote_write_server(pr), err);
	if (rc)
		goto done;	/* 1: published, or an error */
	rel = mem_calloc(rec.artifacts.n + 1, sizeof(*rel));
	if (!rel) {
		rc = OOM(err);
		goto done;
	}
	for (i = 0; i < rec.artifacts.n; i++)
		if (rec.artifacts.v[i][0] != '/')
			rel[n++] = rec.artifacts.v[i];
	/* Only the files the record names, as they were, can go up. */
	here = !n || present(root, &rec, rel, n);
	if (here)
		rc = run_remote_publish(pr, c, root, run.id, node_id, runner,
					0, NULL, NULL, err);
done:
	mem_free(rel);
	cache_run_release(&run);
	cache_record_release(&rec);
	return rc < 0 ? rc : 0;
}

int
run_remote_publish(struct plan_remote *pr, struct cache *c, const char *root,
		   const char *run_id, const char *node_id, const char *runner,
		   int reused, const struct plan_remote_hit *from,
		   const struct strv *sources, struct error *err)
{
	struct remote_action put;
	struct remote_upload_file *files = NULL;
	struct cache_record rec;
	struct cache_manifest m;
	struct cache_run run;
	char **paths = NULL, *blob = NULL, *tagged = NULL;
	size_t len = 0, n = 0, i, tlen;
	int rc, have_m;

	if (!plan_remote_may_write(pr))
		return 0;
	cache_record_init(&rec);
	memset(&m, 0, sizeof(m));
	memset(&run, 0, sizeof(run));
	memset(&put, 0, sizeof(put));
	rc = cache_record_get(c, run_id, node_id, &rec, err);
	if (!rc)
		rc = cache_run_get(c, run_id, &run, err);
	if (rc || rec.status != CACHE_RECORD_STATUS_OK || (reused && !run.tag))
		goto done;
	have_m = !cache_manifest_get(c, rec.key, &m, NULL);
	files = mem_calloc(rec.artifacts.n + 1, sizeof(*files));
	paths = mem_calloc(rec.artifacts.n + 1, sizeof(*paths));
	tlen = (run.tag ? strlen(run.tag) : 0) + strlen(node_id) + 8;
	tagged = mem_alloc(tlen);
	if (!files || !paths || !tagged) {
		rc = OOM(err);
		goto done;
	}
	snprintf(tagged, tlen, "tag/%s/%s", run.tag ? run.tag : "", node_id);
	rc = remote_record_encode(&rec, have_m ? &m : NULL, &run, runner,
				  &blob, &len, err);
	if (!rc && from && reused)
		rc = put_adopted(pr, tagged, rec.key, from, blob, len, runner,
				 err);
	else if (!rc)
		rc = upload_files(root, &rec, files, paths, &n, err);
	if (!rc && !from && !reused)
		rc = remote_node_put_action(plan_remote_client(pr), node_id,
					    rec.key, files, n, blob, len, 0,
					    runner, &put, err);
	/* The run's bundle lists what it published (docs/remote-cache.md). */
	if (!rc && !from && !reused)
		rc = plan_remote_bundle_add(pr, &rec, &run, runner, &put,
					    sources, err);
	if (!rc && !from && run.tag)
		rc = remote_node_put(plan_remote_client(pr), tagged, rec.key,
				     files, n, blob, len, 0, runner, err);
	if (!rc)
		plan_remote_stats(pr)->uploaded++;
	/* The plain entry is there now: later runs need not send it. */
	if (!rc && !from && !reused)
		rc = cache_published_mark(c, node_id, rec.key,
					  plan_remote_write_server(pr), err);
done:
	for (i = 0; paths && i < n; i++)
		mem_free(paths[i]);
	mem_free(paths);
	mem_free(files);
	mem_free(blob);
	mem_free(tagged);
	cache_manifest_release(&m);
	cache_run_release(&run);
	cache_record_release(&rec);
	remote_action_release(&put);
	return rc;
}
