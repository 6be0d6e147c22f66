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

#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "cache/remote.h"
#include "engine/plan/record.h"
#include "engine/plan/remote.h"
#include "graph/digest.h"
#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")

/* Whether `dir` (existing) resolves to `root_real` or below it. */
static int
inside(const char *root_real, const char *dir)
{
	char real[PATH_MAX];
	size_t n = strlen(root_real);

	if (!realpath(dir, real))
		return 0;
	return !strncmp(real, root_real, n) && (!real[n] || real[n] == '/');
}

/* mkdir -p of dest's folder (under root), which must stay inside root. */
static int
make_parent(const char *root_real, const char *dest, const char *name,
	    struct error *err)
{
	char dir[PATH_MAX], *p;
	char *slash;

	if (snprintf(dir, sizeof(dir), "%s", dest) >= (int)sizeof(dir))
		return error_set(err, ERROR_INVALID, "output path '%s' is too "
				 "long", name);
	slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	for (p = dir + strlen(root_real) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0777) && errno != EEXIST)
			return error_set(err, ERROR_IO, "cannot make '%s': %s",
					 dir, strerror(errno));
		*p = '/';
	}
	if (mkdir(dir, 0777) && errno != EEXIST)
		return error_set(err, ERROR_IO, "cannot make '%s': %s", dir,
				 strerror(errno));
	if (!inside(root_real, dir))
		return error_set(err, ERROR_INVALID, "output '%s' would be "
				 "written outside the repository (a folder on "
				 "its path is a link that leaves it)", name);
	return 0;
}

/* Do the repository's files already make the record's output digest? */
static int
present(const char *root, const struct cache_record *rec,
	const char *const *rel, size_t n)
{
	struct digest d;
	struct error e;

	error_init(&e);
	return rec->output_digest &&
	       !record_output_digest(root, rel, n, &d, &e) &&
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

/* Destinations of h's outputs: under root, or TO_DIR/BASENAME. */
static int
destinations(const char *root_real, const struct plan_remote_hit *h,
	     const char *to_dir, char **dest, struct error *err)
{
	size_t i, k;
	int rc = 0;

	for (i = 0; !rc && i < h->action.n; i++) {
		const char *path = h->action.outputs[i].path;
		const char *base = strrchr(path, '/');
		size_t len;

		base = base ? base + 1 : path;
		for (k = 0; to_dir && k < i; k++) {
			const char *o = strrchr(h->action.outputs[k].path, '/');

			if (!strcmp(o ? o + 1 : h->action.outputs[k].path,
				    base))
				return error_set(err, ERROR_INVALID, "outputs "
						 "'%s' and '%s' share the file "
						 "name '%s' in --to",
						 h->action.outputs[k].path,
						 path, base);
		}
		len = strlen(to_dir ? to_dir : root_real) + strlen(path) + 2;
		dest[i] = mem_alloc(len);
		if (!dest[i])
			return OOM(err);
		snprintf(dest[i], len, "%s/%s", to_dir ? to_dir : root_real,
			 to_dir ? base : path);
		if (!to_dir)
			rc = make_parent(root_real, dest[i], path, err);
	}
	return rc;
}

/* Fetch what is not there yet; count it. */
static int
download(struct plan_remote *pr, const struct plan_remote_hit *h,
	 char *const *dest, struct error *err)
{
	struct remote_fetch *f = mem_calloc(h->action.n + 1, sizeof(*f));
	struct plan_remote_stats *st = plan_remote_stats(pr);
	size_t i, m = 0;
	int rc;

	if (!f)
		return OOM(err);
	for (i = 0; i < h->action.n; i++) {
		const struct remote_output *o = &h->action.outputs[i];
		struct remote_digest have;
		struct error e;

		error_init(&e);
		if (!remote_digest_file(dest[i], &have, &e) &&
		    have.size == o->digest.size &&
		    !strcmp(have.hash, o->digest.hash))
			continue;	/* already the right bytes */
		f[m].digest = o->digest;
		f[m].dest = dest[i];
		f[m].mode = o->executable ? 0755 : 0644;
		m++;
	}
	rc = remote_cas_get_files(plan_remote_client(pr), f, m, err);
	for (i = 0; !rc && i < m; i++) {
		if (f[i].result == 1) {
			st->fetched_files++;
			st->fetched_bytes += f[i].digest.size;
			continue;
		}
		rc = error_set(err, ERROR_NOT_FOUND, "remote cache %s has no "
			       "blob %s (%lld bytes)", plan_remote_url(pr),
			       f[i].digest.hash,
			       (long long)f[i].digest.size);
	}
	mem_free(f);
	return rc;
}

/* The fetched files must make the record's output digest. */
static int
verify(const struct cache_record *rec, const struct plan_remote_hit *h,
       char *const *dest, struct error *err)
{
	const char **names = mem_calloc(h->action.n + 1, sizeof(*names));
	struct digest d;
	size_t i;
	int rc;

	if (!names)
		return OOM(err);
	for (i = 0; i < h->action.n; i++)
		names[i] = h->action.outputs[i].path;
	rc = record_output_digest_files(names, (const char *const *)dest,
					h->action.n, &d, err);
	if (!rc && (!rec->output_digest || strcmp(d.hex, rec->output_digest)))
		rc = error_set(err, ERROR_CORRUPT, "the files fetched for %s "
			       "make output digest %s, not the record's %s",
			       rec->node_id, d.hex, rec->output_digest
			       ? rec->output_digest : "(none)");
	mem_free(names);
	return rc;
}

int
run_remote_fetch(struct plan_remote *pr, const char *root,
		 const struct cache_record *rec, const char *to_dir,
		 struct error *err)
{
	const struct plan_remote_hit *h = NULL;
	char root_real[PATH_MAX];
	const char **rel = mem_calloc(rec->artifacts.n + 1, sizeof(*rel));
	char **dest = NULL;
	size_t i, n = 0;
	int rc = 0;

	if (!rel)
		return OOM(err);
	for (i = 0; i < rec->artifacts.n; i++)
		if (rec->artifacts.v[i][0] != '/')
			rel[n++] = rec->artifacts.v[i];
	if (!n || (!to_dir && present(root, rec, rel, n)))
		goto done;
	if (!realpath(root, root_real)) {
		rc = error_set(err, ERROR_IO, "cannot resolve '%s': %s", root,
			       strerror(errno));
		goto done;
	}
	h = find_hit(pr, rec, err);
	if (!h) {
		rc = err->code ? err->code : ERROR_NOT_FOUND;
		goto done;
	}
	dest = mem_calloc(h->action.n + 1, sizeof(*dest));
	if (!dest) {
		rc = OOM(err);
		goto done;
	}
	rc = destinations(root_real, h, to_dir, dest, err);
	if (!rc)
		rc = download(pr, h, dest, err);
	if (!rc)
		rc = verify(rec, h, dest, err);
done:
	if (rc && !strstr(err->msg, "cannot get the bytes"))
		error_prefix(err, "cannot get the bytes of %s", rec->node_id);
	if (rc)
		error_node(err, rec->node_id);
	for (i = 0; dest && h && i < h->action.n; i++)
		mem_free(dest[i]);
	mem_free(dest);
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

int
run_remote_publish(struct plan_remote *pr, struct cache *c, const char *root,
		   const char *run_id, const char *node_id, const char *runner,
		   int reused, const struct plan_remote_hit *from,
		   struct error *err)
{
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
		rc = remote_node_put(plan_remote_client(pr), node_id, rec.key,
				     files, n, blob, len, 0, runner, err);
	if (!rc && !from && run.tag)
		rc = remote_node_put(plan_remote_client(pr), tagged, rec.key,
				     files, n, blob, len, 0, runner, err);
	if (!rc)
		plan_remote_stats(pr)->uploaded++;
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
	return rc;
}
