/*
 * ripple's record blob in the remote cache: one node's record, its key's
 * components and its provenance as a JSON document (sorted keys, compact),
 * stored in the CAS and named by the node's ActionResult. Reading one back
 * treats it as hostile: types, the key, the status and metadata names are
 * checked. Field list: docs/remote-cache.md.
 */
#include "cache/remote.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/path.h"
#include "base/mem.h"
#include "base/strv.h"
#include "cache/cache.h"
#include "cache/internal.h"
#include "cache/remote_int.h"
#include "base/banned.h"

#define FORMAT_NAME "ripple-record"
#define FORMAT_VERSION 1
#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")
#define BAD(err, ...) error_set(err, ERROR_CORRUPT, "record blob: " __VA_ARGS__)

static json_t *
text_or_null(const char *s)
{
	return s ? cache_json_text(s) : json_null();
}

static json_t *
metadata_json(const struct strv *md)
{
	json_t *meta = json_object();
	size_t i;

	for (i = 0; meta && i < md->n; i++) {
		const char *kv = md->v[i], *eq = strchr(kv, '=');

		if (eq && json_object_setn_new(meta, kv, (size_t)(eq - kv),
					       cache_json_text(eq + 1))) {
			json_decref(meta);
			meta = NULL;
		}
	}
	return meta;
}

static json_t *
components_json(const struct cache_manifest *m)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; arr && m && i < m->n; i++) {
		const struct cache_component *c = &m->items[i];

		if (json_array_append_new(arr, json_pack("{s:o, s:o, s:o, s:o}",
			"kind", cache_json_text(c->kind),
			"name", cache_json_text(c->name),
			"digest", cache_json_text(c->digest),
			"detail", cache_json_text(c->detail)))) {
			json_decref(arr);
			arr = NULL;
		}
	}
	return arr;
}

static json_t *
provenance_json(const struct cache_record *rec, const struct cache_run *run,
		const char *runner)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:I}",
			 "run", text_or_null(run && run->id ? run->id
							    : rec->run),
			 "commit", text_or_null(run ? run->commit : NULL),
			 "ref", text_or_null(run ? run->ref : NULL),
			 "tag", text_or_null(run ? run->tag : NULL),
			 "rules_digest",
			 text_or_null(run ? run->rules_digest : NULL),
			 "runner", text_or_null(runner),
			 "run_started_ms",
			 (json_int_t)(run ? run->started_ms : 0));
}

json_t *
remote_record_json(const struct cache_record *rec,
		   const struct cache_manifest *manifest, int components,
		   const struct cache_run *run, const char *runner)
{
	json_t *arts = json_array(), *doc;
	size_t i;

	for (i = 0; arts && i < rec->artifacts.n; i++) {
		/* A locator outside the repository names a file of this
		 * machine: it never travels (and is refused on reading). */
		if (rec->artifacts.v[i][0] == '/')
			continue;
		if (json_array_append_new(arts,
				cache_json_text(rec->artifacts.v[i]))) {
			json_decref(arts);
			arts = NULL;
		}
	}
	doc = json_pack("{s:s, s:i, s:o, s:s, s:s, s:o, s:o, s:o?, s:o?, "
			"s:I, s:I, s:o?}",
			"format", FORMAT_NAME, "format_version", FORMAT_VERSION,
			"node", text_or_null(rec->node_id), "key", rec->key,
			"status", cache_record_status_name(rec->status),
			"version", text_or_null(rec->version),
			"output_digest", text_or_null(rec->output_digest),
			"artifacts", arts, "metadata", metadata_json(&rec->metadata),
			"duration_ms", (json_int_t)rec->duration_ms,
			"recorded_ms", (json_int_t)rec->recorded_ms,
			"provenance", provenance_json(rec, run, runner));
	/* json_pack's "o?" takes NULL as null: a NULL part is out of memory. */
	if (doc && (!json_is_array(json_object_get(doc, "artifacts")) ||
		    !json_is_object(json_object_get(doc, "metadata")) ||
		    !json_is_object(json_object_get(doc, "provenance")) ||
		    (components &&
		     json_object_set_new(doc, "components",
					 components_json(manifest))) ||
		    (components &&
		     !json_is_array(json_object_get(doc, "components"))))) {
		json_decref(doc);
		doc = NULL;
	}
	return doc;
}

int
remote_record_encode(const struct cache_record *rec,
		     const struct cache_manifest *manifest,
		     const struct cache_run *run, const char *runner,
		     char **out, size_t *len, struct error *err)
{
	int rc;

	*out = NULL;
	*len = 0;
	if (!cache_key_valid(rec->key))
		return error_set(err, ERROR_INVALID, "record key '%s' is not "
				 "32 lowercase hex digits", rec->key);
	rc = cache_json_dump(remote_record_json(rec, manifest, 1, run, runner),
			     out, err);
	if (!rc)
		*len = strlen(*out);
	return rc;
}

void
remote_record_release(struct remote_record *r)
{
	if (!r)
		return;
	cache_record_release(&r->rec);
	cache_manifest_release(&r->manifest);
	cache_run_release(&r->run);
	mem_free(r->runner);
	memset(r, 0, sizeof(*r));
	cache_record_init(&r->rec);
}

/*
 * Member `name` of obj as an owned string; null or absent gives NULL.
 * These are one-line fields (ids, refs, versions, digests) that reach
 * logs and terminals: a control byte in one (a newline forging a log
 * line or a GitHub "::" command, an escape sequence) makes the record
 * corrupt.
 */
static int
opt_str(json_t *obj, const char *name, int required, char **out,
	struct error *err)
{
	json_t *v = json_object_get(obj, name);
	const char *s;
	size_t len;

	*out = NULL;
	if ((!v || json_is_null(v)) && !required)
		return 0;
	if (!json_is_string(v))
		return BAD(err, "'%s' is not a string", name);
	s = json_string_value(v);
	len = json_string_length(v);
	if (path_bad_char(s, len, NULL))
		return BAD(err, "'%s' holds a control character", name);
	*out = mem_strdup(s);
	return *out ? 0 : OOM(err);
}

static int
req_int(json_t *obj, const char *name, int64_t *out, struct error *err)
{
	json_t *v = json_object_get(obj, name);

	if (!json_is_integer(v))
		return BAD(err, "'%s' is not an integer", name);
	*out = json_integer_value(v);
	return 0;
}

static int
read_artifacts(json_t *arr, struct strv *out, struct error *err)
{
	json_t *it;
	size_t i;
	int rc;

	if (!json_is_array(arr))
		return BAD(err, "'artifacts' is not an array");
	json_array_foreach(arr, i, it) {
		struct error pe;
		const char *a;
		size_t len;

		if (!json_is_string(it))
			return BAD(err, "artifact %zu is not a string", i);
		a = json_string_value(it);
		len = json_string_length(it);
		/*
		 * A repository path, as an AC entry's outputs: an absolute
		 * locator (a file of the recording machine) or one with ".."
		 * would put a file from anywhere into a release's manifest,
		 * and a control byte (a newline) would forge a line of
		 * SHA256SUMS.
		 */
		error_init(&pe);
		if (remote_output_path_check(a, len, &pe))
			return BAD(err, "artifact %zu: %s", i, pe.msg);
		rc = strv_push(out, a, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Metadata {K: V} into "K=V" entries sorted by K. */
static int
read_metadata(json_t *obj, struct strv *out, struct error *err)
{
	const char **keys = NULL, *k;
	json_t *v;
	size_t n = 0, i;
	char *kv = NULL;
	int rc = 0;

	if (!json_is_object(obj))
		return BAD(err, "'metadata' is not an object");
	keys = mem_calloc(json_object_size(obj) + 1, sizeof(*keys));
	if (!keys)
		return OOM(err);
	json_object_foreach(obj, k, v) {
		if (!json_is_string(v) || !k[0] || strchr(k, '=') ||
		    path_bad_char(k, strlen(k), NULL)) {
			rc = BAD(err, "a metadata entry is not a name and a "
				 "string");
			goto done;
		}
		/* Printed by release's checks, exported to actions: a
		 * newline would forge a line, an escape drive a terminal. */
		if (path_bad_char(json_string_value(v), json_string_length(v),
				  NULL)) {
			rc = BAD(err, "metadata value of a key holds a "
				 "control character");
			goto done;
		}
		keys[n++] = k;
	}
	sort_strings(keys, n);
	for (i = 0; i < n; i++) {
		const char *val = json_string_value(json_object_get(obj, keys[i]));
		size_t kl = strlen(keys[i]), vl = strlen(val);

		kv = mem_alloc(kl + vl + 2);
		if (!kv) {
			rc = OOM(err);
			goto done;
		}
		memcpy(kv, keys[i], kl);
		kv[kl] = '=';
		memcpy(kv + kl + 1, val, vl + 1);
		rc = strv_push_ref(out, kv, err);
		if (rc)
			goto done;
		kv = NULL;
	}
done:
	mem_free(kv);
	mem_free(keys);
	return rc;
}

static int
read_components(json_t *arr, struct cache_manifest *m, struct error *err)
{
	json_t *it;
	size_t i;
	int rc;

	if (!json_is_array(arr))
		return BAD(err, "'components' is not an array");
	json_array_foreach(arr, i, it) {
		const char *kind, *name, *digest, *detail;

		if (json_unpack(it, "{s:s, s:s, s:s, s:s}", "kind", &kind,
				"name", &name, "digest", &digest, "detail",
				&detail))
			return BAD(err, "component %zu lacks kind, name, "
				   "digest or detail", i);
		rc = cache_manifest_add(m, kind, name, digest, detail, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int
read_provenance(json_t *p, struct remote_record *out, struct error *err)
{
	struct cache_run *run = &out->run;
	int rc;

	if (!json_is_object(p))
		return BAD(err, "'provenance' is not an object");
	rc = opt_str(p, "run", 1, &run->id, err);
	if (!rc)
		rc = opt_str(p, "commit", 0, &run->commit, err);
	if (!rc)
		rc = opt_str(p, "ref", 0, &run->ref, err);
	if (!rc)
		rc = opt_str(p, "tag", 0, &run->tag, err);
	if (!rc)
		rc = opt_str(p, "rules_digest", 0, &run->rules_digest, err);
	if (!rc)
		rc = opt_str(p, "runner", 0, &out->runner, err);
	if (!rc)
		rc = req_int(p, "run_started_ms", &run->started_ms, err);
	return rc;
}

/* The fields of a parsed document into *out. */
int
remote_record_read(json_t *doc, int components, struct remote_record *out,
		   struct error *err)
{
	struct cache_record *rec = &out->rec;
	json_t *v;
	char *s = NULL;
	int rc;

	rc = opt_str(doc, "node", 1, &rec->node_id, err);
	if (!rc)
		rc = opt_str(doc, "key", 1, &s, err);
	if (rc)
		goto done;
	if (!cache_key_valid(s)) {
		rc = BAD(err, "key is not 32 lowercase hex digits");
		goto done;
	}
	memcpy(rec->key, s, CACHE_KEY_SIZE);
	memcpy(out->manifest.key, s, CACHE_KEY_SIZE);
	mem_free(s);
	s = NULL;
	v = json_object_get(doc, "status");
	if (!json_is_string(v) ||
	    cache_record_status_parse(json_string_value(v), &rec->status,
				      NULL)) {
		rc = BAD(err, "'status' is not a record status");
		goto done;
	}
	rc = opt_str(doc, "version", 0, &rec->version, err);
	if (!rc)
		rc = opt_str(doc, "output_digest", 0, &rec->output_digest,
			     err);
	if (!rc)
		rc = read_artifacts(json_object_get(doc, "artifacts"),
				    &rec->artifacts, err);
	if (!rc)
		rc = read_metadata(json_object_get(doc, "metadata"),
				   &rec->metadata, err);
	if (!rc)
		rc = req_int(doc, "duration_ms", &rec->duration_ms, err);
	if (!rc)
		rc = req_int(doc, "recorded_ms", &rec->recorded_ms, err);
	if (!rc && components)
		rc = read_components(json_object_get(doc, "components"),
				     &out->manifest, err);
	if (!rc)
		rc = read_provenance(json_object_get(doc, "provenance"), out,
				     err);
	if (!rc && !(rec->run = mem_strdup(out->run.id)))
		rc = OOM(err);
done:
	mem_free(s);
	return rc;
}

int
remote_record_decode(const char *text, size_t len, struct remote_record *out,
		     struct error *err)
{
	json_error_t je;
	json_t *doc = NULL, *v;
	int rc;

	memset(out, 0, sizeof(*out));
	cache_record_init(&out->rec);
	if (len > REMOTE_RECORD_MAX)
		return BAD(err, "%zu bytes, past the %u allowed", len,
			   REMOTE_RECORD_MAX);
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc)
		return BAD(err, "not JSON: %s (line %d, column %d)", je.text,
			   je.line, je.column);
	if (!json_is_object(doc) ||
	    !json_is_string(v = json_object_get(doc, "format")) ||
	    strcmp(json_string_value(v), FORMAT_NAME)) {
		rc = BAD(err, "not a '%s' document", FORMAT_NAME);
		goto done;
	}
	v = json_object_get(doc, "format_version");
	if (!json_is_integer(v) || json_integer_value(v) < 1) {
		rc = BAD(err, "'format_version' is not a positive integer");
		goto done;
	}
	if (json_integer_value(v) > FORMAT_VERSION) {
		rc = error_set(err, ERROR_UNSUPPORTED, "record blob format "
			       "version %lld is newer than this ripple's %d",
			       (long long)json_integer_value(v),
			       FORMAT_VERSION);
		goto done;
	}
	rc = remote_record_read(doc, 1, out, err);
done:
	json_decref(doc);
	if (rc)
		remote_record_release(out);
	return rc;
}
