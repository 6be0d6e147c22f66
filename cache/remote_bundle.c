/*
 * A run's bundle in the remote cache: the records a run published at one
 * commit, in one CAS blob named by an AC entry of the run's trust domain
 * (node REMOTE_BUNDLE_NODE, key remote_bundle_key(commit)), so a plan of
 * that commit or of a child asks one request where it asked one per node.
 * Each record is the record blob's document without its key components
 * (read only to explain a miss: they stay in the record blob, which the
 * entry names), with its AC entry's outputs and the source-key memo ids
 * its writer computed (docs/remote-cache.md, "Bundles and the source-key
 * memo"). Read back as hostile data, with the checks an AC entry and a
 * record blob get.
 */
#include "cache/remote.h"

#include <jansson.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/strv.h"
#include "cache/cache.h"
#include "cache/internal.h"
#include "cache/remote_int.h"
#include "base/banned.h"

#define FORMAT_NAME "ripple-bundle"
#define FORMAT_VERSION 1
#define BAD(err, ...) error_set(err, ERROR_CORRUPT, "bundle: " __VA_ARGS__)

int
remote_bundle_key(const char *commit, char *out, struct error *err)
{
	struct remote_digest d;
	struct buf b;
	int rc;

	if (!commit || !commit[0] || strlen(commit) > 64)
		return error_set(err, ERROR_INVALID, "no commit for a bundle");
	buf_init(&b, 0);
	rc = buf_addstr(&b, "ripple-bundle-v1", err);
	if (!rc)
		rc = buf_add(&b, "", 1, err);
	if (!rc)
		rc = buf_addstr(&b, commit, err);
	if (!rc)
		rc = remote_digest_buf(b.data, b.len, &d, err);
	buf_release(&b);
	if (!rc) {
		memcpy(out, d.hash, CACHE_KEY_LEN);
		out[CACHE_KEY_LEN] = '\0';
	}
	return rc;
}

static json_t *
outputs_json(const struct remote_action *a)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; arr && i < a->n; i++)
		if (json_array_append_new(arr, json_pack("[o, s, I, b]",
				cache_json_text(a->outputs[i].path),
				a->outputs[i].digest.hash,
				(json_int_t)a->outputs[i].digest.size,
				a->outputs[i].executable))) {
			json_decref(arr);
			arr = NULL;
		}
	return arr;
}

/* The index of e's provenance in runs, added once; -1 out of memory. */
static json_int_t
run_index(const struct remote_bundle_entry *e, json_t *runs)
{
	json_t *doc = remote_record_json(&e->rec.rec, NULL, 0, &e->rec.run,
					 e->rec.runner), *prov, *r;
	size_t i;

	prov = doc ? json_object_get(doc, "provenance") : NULL;
	json_array_foreach(runs, i, r)
		if (prov && json_equal(r, prov))
			break;
	if (!prov || (i == json_array_size(runs) &&
		      json_array_append(runs, prov)))
		i = (size_t)-1;
	json_decref(doc);
	return i == (size_t)-1 ? -1 : (json_int_t)i;
}

static json_t *
strv_json(const struct strv *v, int relative_only)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; arr && i < v->n; i++) {
		if (relative_only && v->v[i][0] == '/')
			continue;	/* a file of this machine: never sent */
		if (json_array_append_new(arr, cache_json_text(v->v[i]))) {
			json_decref(arr);
			arr = NULL;
		}
	}
	return arr;
}

/*
 * Record e as a bundle's array (docs/remote-cache.md, "Bundles"): node,
 * key, version, output digest, artifacts, metadata ("K=V"), duration and
 * recorded ms, the index of its provenance in `runs` (shared by the
 * records of one run), outputs, record blob hash and size, sources. An
 * array, not an object: a bundle is read on every plan, and jansson
 * reads values without names faster.
 */
static json_t *
entry_json(const struct remote_bundle_entry *e, json_t *runs)
{
	const struct cache_record *r = &e->rec.rec;
	json_int_t run = run_index(e, runs);

	if (run < 0)
		return NULL;
	return json_pack("[o, s, o, o, o, o, I, I, I, o, s, I, o]",
			 cache_json_text(r->node_id), r->key,
			 r->version ? cache_json_text(r->version) : json_null(),
			 r->output_digest ? cache_json_text(r->output_digest)
					  : json_null(),
			 strv_json(&r->artifacts, 1),
			 strv_json(&r->metadata, 0),
			 (json_int_t)r->duration_ms,
			 (json_int_t)r->recorded_ms, run,
			 outputs_json(&e->action), e->action.record.hash,
			 (json_int_t)e->action.record.size,
			 strv_json(&e->sources, 0));
}

int
remote_bundle_encode(const struct remote_bundle_entry *items, size_t n,
		     const char *commit, char **out, size_t *len,
		     struct error *err)
{
	json_t *arr = json_array(), *runs = json_array(), *doc = NULL;
	size_t i;
	int rc;

	*out = NULL;
	*len = 0;
	for (i = 0; arr && runs && i < n; i++)
		if (json_array_append_new(arr, entry_json(&items[i], runs))) {
			json_decref(arr);
			arr = NULL;
		}
	if (arr && runs)
		doc = json_pack("{s:s, s:i, s:s, s:O, s:O}", "format",
				FORMAT_NAME, "format_version", FORMAT_VERSION,
				"commit", commit, "runs", runs, "records",
				arr);
	json_decref(arr);
	json_decref(runs);
	rc = cache_json_dump(doc, out, err);
	if (!rc)
		*len = strlen(*out);
	return rc;
}

void
remote_bundle_entry_release(struct remote_bundle_entry *e)
{
	if (!e)
		return;
	remote_record_release(&e->rec);
	remote_action_release(&e->action);
	strv_release(&e->sources);
	strv_init(&e->sources, 1);
}

void
remote_bundle_release(struct remote_bundle *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->n; i++)
		remote_bundle_entry_release(&b->items[i]);
	mem_free(b->items);
	b->items = NULL;
	b->n = 0;
}

/* A digest [hash, size] or the members of an output into d. */
static int
read_digest(json_t *hash, json_t *size, struct remote_digest *d)
{
	if (!json_is_string(hash) || !json_is_integer(size) ||
	    !remote_hash_valid(json_string_value(hash)) ||
	    json_integer_value(size) < 0)
		return -1;
	memcpy(d->hash, json_string_value(hash), REMOTE_HASH_SIZE);
	d->size = json_integer_value(size);
	return 0;
}

static int
read_outputs(json_t *arr, struct remote_action *a, struct error *err)
{
	size_t i, k, n;
	json_t *o;
	int rc;

	if (!json_is_array(arr) || json_array_size(arr) > REMOTE_OUTPUTS_MAX)
		return BAD(err, "'outputs' is not a list of outputs");
	n = json_array_size(arr);
	a->outputs = mem_calloc(n + 1, sizeof(*a->outputs));
	if (!a->outputs)
		return error_nomem(err);
	json_array_foreach(arr, i, o) {
		json_t *path = json_array_get(o, 0);
		struct remote_output *out = &a->outputs[i];

		if (!json_is_array(o) || json_array_size(o) != 4 ||
		    !json_is_string(path) ||
		    read_digest(json_array_get(o, 1), json_array_get(o, 2),
				&out->digest) ||
		    !json_is_boolean(json_array_get(o, 3)))
			return BAD(err, "output %zu is not [path, sha256, "
				   "size, executable]", i);
		rc = remote_output_path_check(json_string_value(path),
					      json_string_length(path), err);
		if (rc)
			return rc == ERROR_NOMEM ? rc
			       : (err->code = ERROR_CORRUPT);
		for (k = 0; k < i; k++)
			if (!strcmp(a->outputs[k].path,
				    json_string_value(path)))
				return BAD(err, "output '%s' is listed twice",
					   a->outputs[k].path);
		out->path = mem_strdup(json_string_value(path));
		if (!out->path)
			return error_nomem(err);
		out->executable = json_is_true(json_array_get(o, 3));
		a->n++;
	}
	return 0;
}

static int
read_sources(json_t *arr, struct strv *out, struct error *err)
{
	size_t i;
	json_t *s;
	int rc;

	if (!json_is_array(arr) || json_array_size(arr) % 2)
		return BAD(err, "'sources' is not a list of memo id and key "
			   "pairs");
	json_array_foreach(arr, i, s) {
		if (!json_is_string(s) || !cache_key_valid(json_string_value(s)))
			return BAD(err, "source %zu is not 32 lowercase hex "
				   "digits", i / 2);
		rc = strv_push(out, json_string_value(s), err);
		if (rc)
			return rc;
	}
	return 0;
}

/* A one-line string (ids, versions, digests) or, optional, null. */
static int
line(json_t *v, int optional, char **out, const char *what,
     struct error *err)
{
	const char *t;
	size_t i, n;

	*out = NULL;
	if (optional && json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return BAD(err, "a record's %s is not a string", what);
	t = json_string_value(v);
	n = json_string_length(v);
	for (i = 0; i < n; i++)
		if ((unsigned char)t[i] < 0x20 || t[i] == 0x7f)
			return BAD(err, "a record's %s holds a control "
				   "character", what);
	*out = mem_strdup(t);
	return *out ? 0 : error_nomem(err);
}

static int
read_artifacts(json_t *arr, struct strv *out, struct error *err)
{
	struct error pe;
	json_t *v;
	size_t i;
	int rc;

	if (!json_is_array(arr))
		return BAD(err, "a record's artifacts are not a list");
	json_array_foreach(arr, i, v) {
		error_init(&pe);
		/* Repository paths, as an AC entry's outputs (no absolute
		 * locator, no "..", no control byte). */
		if (!json_is_string(v) ||
		    remote_output_path_check(json_string_value(v),
					     json_string_length(v), &pe))
			return BAD(err, "artifact %zu: %s", i,
				   pe.msg[0] ? pe.msg : "not a string");
		rc = strv_push(out, json_string_value(v), err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Metadata "K=V" entries (K not empty), as the record holds them. */
static int
read_metadata(json_t *arr, struct strv *out, struct error *err)
{
	const char *t;
	size_t i;
	json_t *v;
	int rc;

	if (!json_is_array(arr))
		return BAD(err, "a record's metadata is not a list");
	json_array_foreach(arr, i, v) {
		t = json_string_value(v);
		if (!t || !strchr(t, '=') || t[0] == '=')
			return BAD(err, "metadata %zu is not K=V", i);
		rc = strv_push(out, t, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int
read_run(json_t *p, struct remote_record *out, struct error *err)
{
	struct cache_run *run = &out->run;
	json_t *started = json_object_get(p, "run_started_ms");
	int rc;

	if (!json_is_object(p) || !json_is_integer(started))
		return BAD(err, "a run is not a provenance object");
	rc = line(json_object_get(p, "run"), 0, &run->id, "run", err);
	if (!rc)
		rc = line(json_object_get(p, "commit"), 1, &run->commit,
			  "commit", err);
	if (!rc)
		rc = line(json_object_get(p, "ref"), 1, &run->ref, "ref", err);
	if (!rc)
		rc = line(json_object_get(p, "tag"), 1, &run->tag, "tag", err);
	if (!rc)
		rc = line(json_object_get(p, "rules_digest"), 1,
			  &run->rules_digest, "rules digest", err);
	if (!rc)
		rc = line(json_object_get(p, "runner"), 1, &out->runner,
			  "runner", err);
	run->started_ms = json_integer_value(started);
	return rc;
}

static int
read_entry(json_t *a, json_t *runs, struct remote_bundle_entry *e,
	   struct error *err)
{
	struct cache_record *r = &e->rec.rec;
	json_t *run = json_array_get(a, 8);
	char *key = NULL;
	int rc;

	if (!json_is_array(a) || json_array_size(a) != 13 ||
	    !json_is_integer(json_array_get(a, 6)) ||
	    !json_is_integer(json_array_get(a, 7)) ||
	    !json_is_integer(run) || json_integer_value(run) < 0 ||
	    (size_t)json_integer_value(run) >= json_array_size(runs))
		return BAD(err, "a record is not the 13 values of one");
	r->status = CACHE_RECORD_STATUS_OK;
	rc = line(json_array_get(a, 0), 0, &r->node_id, "node", err);
	if (!rc)
		rc = line(json_array_get(a, 1), 0, &key, "key", err);
	if (!rc && !cache_key_valid(key))
		rc = BAD(err, "the key of %s is not 32 lowercase hex digits",
			 r->node_id);
	if (!rc) {
		memcpy(r->key, key, CACHE_KEY_SIZE);
		memcpy(e->rec.manifest.key, key, CACHE_KEY_SIZE);
		rc = line(json_array_get(a, 2), 1, &r->version, "version",
			  err);
	}
	mem_free(key);
	if (!rc)
		rc = line(json_array_get(a, 3), 1, &r->output_digest,
			  "output digest", err);
	if (!rc)
		rc = read_artifacts(json_array_get(a, 4), &r->artifacts, err);
	if (!rc)
		rc = read_metadata(json_array_get(a, 5), &r->metadata, err);
	r->duration_ms = json_integer_value(json_array_get(a, 6));
	r->recorded_ms = json_integer_value(json_array_get(a, 7));
	if (!rc)
		rc = read_run(json_array_get(runs,
					     (size_t)json_integer_value(run)),
			      &e->rec, err);
	if (!rc && !(r->run = mem_strdup(e->rec.run.id)))
		rc = error_nomem(err);
	if (!rc)
		rc = read_outputs(json_array_get(a, 9), &e->action, err);
	if (!rc && read_digest(json_array_get(a, 10), json_array_get(a, 11),
			       &e->action.record))
		rc = BAD(err, "the record blob of %s is no sha256 and size",
			 r->node_id);
	if (!rc)
		rc = read_sources(json_array_get(a, 12), &e->sources, err);
	if (!rc && e->rec.runner &&
	    !(e->action.worker = mem_strdup(e->rec.runner)))
		rc = error_nomem(err);
	return rc;
}

int
remote_bundle_decode(const char *text, size_t len, struct remote_bundle *out,
		     struct error *err)
{
	json_error_t je;
	json_t *doc, *v, *arr, *runs;
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (len > REMOTE_RECORD_MAX)
		return BAD(err, "%zu bytes, past the %u allowed", len,
			   REMOTE_RECORD_MAX);
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc)
		return BAD(err, "not JSON: %s (line %d, column %d)", je.text,
			   je.line, je.column);
	v = json_object_get(doc, "format_version");
	arr = json_object_get(doc, "records");
	runs = json_object_get(doc, "runs");
	if (!json_is_object(doc) || !json_is_array(runs) ||
	    !json_is_string(json_object_get(doc, "format")) ||
	    strcmp(json_string_value(json_object_get(doc, "format")),
		   FORMAT_NAME) || !json_is_integer(v) ||
	    json_integer_value(v) < 1 || !json_is_array(arr)) {
		rc = BAD(err, "not a '%s' document", FORMAT_NAME);
		goto done;
	}
	if (json_integer_value(v) > FORMAT_VERSION) {
		rc = error_set(err, ERROR_UNSUPPORTED, "bundle format version "
			       "%lld is newer than this ripple's %d",
			       (long long)json_integer_value(v),
			       FORMAT_VERSION);
		goto done;
	}
	out->items = mem_calloc(json_array_size(arr) + 1,
				sizeof(*out->items));
	if (!out->items) {
		rc = error_nomem(err);
		goto done;
	}
	json_array_foreach(arr, i, v) {
		struct remote_bundle_entry *e = &out->items[i];

		memset(e, 0, sizeof(*e));
		cache_record_init(&e->rec.rec);
		strv_init(&e->sources, 1);
		out->n++;
		rc = read_entry(v, runs, e, err);
		if (rc)
			break;
	}
done:
	json_decref(doc);
	if (rc)
		remote_bundle_release(out);
	return rc;
}

struct remote_bundle_builder {
	json_t *records;
	json_t *runs;
	size_t n;
};

int
remote_bundle_builder_new(struct remote_bundle_builder **out,
			  struct error *err)
{
	struct remote_bundle_builder *b = mem_calloc(1, sizeof(*b));

	*out = NULL;
	if (!b || !(b->records = json_array()) || !(b->runs = json_array())) {
		if (b)
			json_decref(b->records);
		mem_free(b);
		return error_nomem(err);
	}
	*out = b;
	return 0;
}

int
remote_bundle_builder_add(struct remote_bundle_builder *b,
			  const struct cache_record *rec,
			  const struct cache_run *run, const char *runner,
			  const struct remote_action *a,
			  const struct strv *sources, struct error *err)
{
	struct remote_bundle_entry e;

	if (!cache_key_valid(rec->key) || rec->status != CACHE_RECORD_STATUS_OK)
		return 0;	/* only ok records travel in a bundle */
	memset(&e, 0, sizeof(e));
	e.rec.rec = *rec;	/* borrowed: never released here */
	if (run)
		e.rec.run = *run;
	e.rec.runner = (char *)runner;
	e.action = *a;
	if (sources)
		e.sources = *sources;
	if (json_array_append_new(b->records, entry_json(&e, b->runs)))
		return error_nomem(err);
	b->n++;
	return 0;
}

size_t
remote_bundle_builder_count(const struct remote_bundle_builder *b)
{
	return b ? b->n : 0;
}

int
remote_bundle_builder_finish(struct remote_bundle_builder *b,
			     const char *commit, char **out, size_t *len,
			     struct error *err)
{
	json_t *doc;
	int rc;

	*out = NULL;
	*len = 0;
	doc = json_pack("{s:s, s:i, s:s, s:O, s:O}", "format", FORMAT_NAME,
			"format_version", FORMAT_VERSION, "commit", commit,
			"runs", b->runs, "records", b->records);
	rc = cache_json_dump(doc, out, err);
	if (!rc)
		*len = strlen(*out);
	return rc;
}

void
remote_bundle_builder_free(struct remote_bundle_builder *b)
{
	if (!b)
		return;
	json_decref(b->records);
	json_decref(b->runs);
	mem_free(b);
}
