/*
 * Moving runs between machines, the sending side: one run, its records,
 * the imported copies that conflict with them, and every manifest they
 * name, as a stable JSON document (import.c reads it back).
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

#define FORMAT_NAME "ripple-cache-export"
#define FORMAT_VERSION 1
#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")

/*
 * A JSON string or null for a string that may be absent; bytes that are
 * not UTF-8 (a tag is any bytes git allows) are written as \xHH
 * (cache_json_text), so an export never fails on them. Such a text does
 * not come back byte for byte on import.
 */
static json_t *
str_or_null(const char *s)
{
	return s ? cache_json_text(s) : json_null();
}

static json_t *
run_to_json(const struct cache_run *run)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:s, s:o, s:I, s:I}",
			 "id", str_or_null(run->id),
			 "commit", str_or_null(run->commit),
			 "ref", str_or_null(run->ref),
			 "tag", str_or_null(run->tag),
			 "status", cache_run_status_name(run->status),
			 "rules_digest", str_or_null(run->rules_digest),
			 "started_ms", (json_int_t)run->started_ms,
			 "ended_ms", (json_int_t)run->ended_ms);
}

static json_t *
record_to_json(const struct cache_record *rec)
{
	json_t *arts = json_array(), *meta = json_object();
	size_t i;

	for (i = 0; arts && i < rec->artifacts.n; i++)
		json_array_append_new(arts,
				      cache_json_text(rec->artifacts.v[i]));
	for (i = 0; meta && i < rec->metadata.n; i++) {
		const char *kv = rec->metadata.v[i];
		const char *eq = strchr(kv, '=');
		char *key = NULL;

		/* the key as stored: '=' in it is %3D in memory */
		if (!eq)
			continue;
		if (cache_metadata_key(kv, &key, NULL) ||
		    json_object_set_new(meta, key, cache_json_text(eq + 1))) {
			json_decref(meta);
			meta = NULL;
		}
		mem_free(key);
	}
	if (!arts || !meta) {
		json_decref(arts);
		json_decref(meta);
		return NULL;
	}
	return json_pack("{s:o, s:s, s:s, s:o, s:o, s:o, s:o, s:I, s:I}",
			 "node_id", str_or_null(rec->node_id), "key", rec->key,
			 "status", cache_record_status_name(rec->status),
			 "output_digest", str_or_null(rec->output_digest),
			 "artifacts", arts,
			 "version", str_or_null(rec->version),
			 "metadata", meta,
			 "duration_ms", (json_int_t)rec->duration_ms,
			 "recorded_ms", (json_int_t)rec->recorded_ms);
}

/*
 * Add the manifest of `key`, if stored and not added yet, to `manifests`;
 * with depth > 0, also the manifests its components name by digest (a
 * key's inputs: their file lists, which `why` shows on the other side).
 */
static int
add_manifest(struct cache *c, const char *key, int depth, json_t *manifests,
	     struct error *err)
{
	struct cache_manifest m;
	struct error probe;
	char *text = NULL;
	json_t *j;
	size_t i;
	int rc;

	if (json_object_get(manifests, key))
		return 0;
	error_init(&probe);
	rc = cache_manifest_get(c, key, &m, &probe);
	if (rc == ERROR_NOT_FOUND)
		return 0;
	if (rc) {
		if (err && !err->code)
			*err = probe;
		return rc;
	}
	rc = cache_components_encode(&m, &text, err);
	if (rc)
		goto done;
	j = json_loads(text, 0, NULL);
	if (!j || json_object_set_new(manifests, key, j)) {
		rc = OOM(err);
		goto done;
	}
	for (i = 0; depth > 0 && i < m.n; i++) {
		if (!cache_key_valid(m.items[i].digest))
			continue;
		rc = add_manifest(c, m.items[i].digest, depth - 1, manifests,
				  err);
		if (rc)
			goto done;
	}
done:
	mem_free(text);
	cache_manifest_release(&m);
	return rc;
}

/* Append each record of `recs` to `arr` and its manifests to `manifests`. */
static int
add_records(struct cache *c, const struct cache_record_list *recs,
	    json_t *arr, json_t *manifests, struct error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < recs->n; i++) {
		if (json_array_append_new(arr, record_to_json(&recs->items[i])))
			return OOM(err);
		rc = add_manifest(c, recs->items[i].key, 1, manifests, err);
		if (rc)
			return rc;
	}
	return 0;
}

int
cache_run_export(struct cache *c, const char *id, char **out, size_t *len,
		 struct error *err)
{
	struct cache_run run;
	struct cache_record_list recs = { NULL, 0 }, conf = { NULL, 0 };
	json_t *doc = NULL, *arr, *manifests, *carr;
	char *s = NULL;
	size_t n;
	int rc;

	*out = NULL;
	rc = cache_run_get(c, id, &run, err);
	if (rc)
		return rc;
	rc = cache_record_list(c, id, &recs, err);
	if (!rc)
		rc = cache_record_conflicts(c, id, NULL, &conf, err);
	if (rc)
		goto done;
	arr = json_array();
	manifests = json_object();
	doc = json_pack("{s:s, s:i, s:o, s:o, s:o}", "format", FORMAT_NAME,
			"version", FORMAT_VERSION, "run", run_to_json(&run),
			"records", arr, "manifests", manifests);
	if (!doc) {
		rc = OOM(err);
		goto done;
	}
	rc = add_records(c, &recs, arr, manifests, err);
	if (rc)
		goto done;
	/* Only when there are some: documents without stay as they were. */
	if (conf.n) {
		carr = json_array();
		if (!carr || json_object_set_new(doc, "conflicts", carr)) {
			rc = OOM(err);
			goto done;
		}
		rc = add_records(c, &conf, carr, manifests, err);
		if (rc)
			goto done;
	}
	s = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (!s) {
		rc = OOM(err);
		goto done;
	}
	n = strlen(s);
	*out = mem_alloc(n + 2);
	if (!*out) {
		rc = OOM(err);
		goto done;
	}
	memcpy(*out, s, n);
	(*out)[n] = '\n';
	(*out)[n + 1] = '\0';
	if (len)
		*len = n + 1;
done:
	free(s);
	json_decref(doc);
	cache_record_list_release(&conf);
	cache_record_list_release(&recs);
	cache_run_release(&run);
	return rc;
}

