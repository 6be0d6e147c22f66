/*
 * Records: one node's outcome in one run, written with its key's manifest
 * in one transaction; the JSON text columns for artifact locators and
 * metadata are encoded and decoded here (manifests live in manifest.c).
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/utf8.h"
#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")

static const char *const record_status_names[] = {
	[CACHE_RECORD_STATUS_OK] = "ok",
	[CACHE_RECORD_STATUS_FAILED] = "failed",
	[CACHE_RECORD_STATUS_INTERRUPTED] = "interrupted",
	[CACHE_RECORD_STATUS_TIMEOUT] = "timeout",
};

#define N_RECORD_STATUS \
	(sizeof(record_status_names) / sizeof(record_status_names[0]))

const char *
cache_record_status_name(enum cache_record_status status)
{
	return (unsigned)status < N_RECORD_STATUS ? record_status_names[status]
						  : "?";
}

int
cache_record_status_parse(const char *name, enum cache_record_status *out,
			  struct error *err)
{
	size_t i;

	for (i = 0; name && i < N_RECORD_STATUS; i++) {
		if (!strcmp(name, record_status_names[i])) {
			*out = (enum cache_record_status)i;
			return 0;
		}
	}
	return error_set(err, ERROR_INVALID, "unknown record status '%s'",
			 name ? name : "(null)");
}

void
cache_record_init(struct cache_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	strv_init(&rec->artifacts, 1);
	strv_init(&rec->metadata, 1);
}

void
cache_record_release(struct cache_record *rec)
{
	if (!rec)
		return;
	mem_free(rec->run);
	mem_free(rec->node_id);
	mem_free(rec->output_digest);
	mem_free(rec->version);
	strv_release(&rec->artifacts);
	strv_release(&rec->metadata);
	cache_record_init(rec);
}

void
cache_record_list_release(struct cache_record_list *list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->n; i++)
		cache_record_release(&list->items[i]);
	mem_free(list->items);
	list->items = NULL;
	list->n = 0;
}

static int
encode_artifacts(const struct strv *sv, char **out, struct error *err)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; arr && i < sv->n; i++) {
		if (json_array_append_new(arr, cache_json_text(sv->v[i]))) {
			json_decref(arr);
			arr = NULL;
		}
	}
	return cache_json_dump(arr, out, err);
}

int
cache_metadata_entry(const char *key, const char *value, char **out,
		     struct error *err)
{
	size_t n = 0, i, vn = value ? strlen(value) : 0;
	char *p;

	*out = NULL;
	if (!key || !key[0])
		return error_set(err, ERROR_INVALID, "empty metadata key");
	for (i = 0; key[i]; i++)
		n += key[i] == '%' || key[i] == '=' ? 3 : 1;
	p = mem_alloc(n + vn + 2);
	if (!p)
		return OOM(err);
	*out = p;
	for (i = 0; key[i]; i++) {
		if (key[i] == '%' || key[i] == '=') {
			memcpy(p, key[i] == '%' ? "%25" : "%3D", 3);
			p += 3;
		} else {
			*p++ = key[i];
		}
	}
	*p++ = '=';
	memcpy(p, value ? value : "", vn);
	p[vn] = '\0';
	return 0;
}

int
cache_metadata_key(const char *entry, char **out, struct error *err)
{
	const char *eq = strchr(entry, '=');
	size_t n = eq ? (size_t)(eq - entry) : strlen(entry), i;
	char *p = mem_alloc(n + 1);

	*out = p;
	if (!p)
		return OOM(err);
	for (i = 0; i < n; i++) {
		if (entry[i] == '%' && i + 3 <= n &&
		    !strncmp(entry + i, "%25", 3)) {
			*p++ = '%';
			i += 2;
		} else if (entry[i] == '%' && i + 3 <= n &&
			   (!strncmp(entry + i, "%3D", 3) ||
			    !strncmp(entry + i, "%3d", 3))) {
			*p++ = '=';
			i += 2;
		} else {
			*p++ = entry[i];
		}
	}
	*p = '\0';
	return 0;
}

/* "K=V" entries into a JSON object; keys must be non-empty and unique. */
static int
encode_metadata(const struct strv *sv, char **out, struct error *err)
{
	json_t *obj = json_object();
	char *k;
	size_t i;

	*out = NULL;
	for (i = 0; obj && i < sv->n; i++) {
		const char *eq = strchr(sv->v[i], '=');

		if (!eq || eq == sv->v[i]) {
			json_decref(obj);
			return error_set(err, ERROR_INVALID, eq
					 ? "metadata entry '%s' has an empty key"
					 : "metadata entry '%s' is not KEY=VALUE",
					 sv->v[i]);
		}
		if (cache_metadata_key(sv->v[i], &k, err)) {
			json_decref(obj);
			return ERROR_NOMEM;
		}
		if (!utf8_is_valid(k)) {
			char *esc = utf8_escape(k);

			error_set(err, ERROR_INVALID, "metadata key '%s' is not "
				  "UTF-8", esc ? esc : "?");
			mem_free(esc);
			mem_free(k);
			json_decref(obj);
			return ERROR_INVALID;
		}
		if (json_object_get(obj, k)) {
			error_set(err, ERROR_INVALID,
				  "metadata key '%s' is repeated", k);
			mem_free(k);
			json_decref(obj);
			return ERROR_INVALID;
		}
		if (json_object_set_new(obj, k, cache_json_text(eq + 1))) {
			json_decref(obj);
			obj = NULL;
		}
		mem_free(k);
	}
	return cache_json_dump(obj, out, err);
}

static int
decode_artifacts(struct cache *c, const char *text, struct strv *sv,
		 struct error *err)
{
	json_t *arr, *it;
	size_t i;
	int rc = 0;

	/* Most records: no artifacts, no JSON parse. */
	if (!text || !strcmp(text, "[]"))
		return 0;
	arr = json_loads(text, 0, NULL);
	if (!json_is_array(arr)) {
		rc = error_at(err, ERROR_CORRUPT, c->path, 0, 0,
			      "stored artifacts are not a JSON array");
		goto done;
	}
	json_array_foreach(arr, i, it) {
		if (!json_is_string(it)) {
			rc = error_at(err, ERROR_CORRUPT, c->path, 0, 0,
				      "stored artifact %zu is not a string",
				      i);
			goto done;
		}
		rc = strv_push(sv, json_string_value(it), err);
		if (rc)
			goto done;
	}
done:
	json_decref(arr);
	return rc;
}

static int
decode_metadata(struct cache *c, const char *text, struct strv *sv,
		struct error *err)
{
	json_t *obj, *v;
	const char **keys = NULL;
	const char *k;
	size_t n = 0, i;
	int rc = 0;

	if (!text || !strcmp(text, "{}"))
		return 0;
	obj = json_loads(text, 0, NULL);
	if (!json_is_object(obj)) {
		rc = error_at(err, ERROR_CORRUPT, c->path, 0, 0,
			      "stored metadata is not a JSON object");
		goto done;
	}
	keys = mem_calloc(json_object_size(obj) + 1, sizeof(*keys));
	if (!keys) {
		rc = OOM(err);
		goto done;
	}
	json_object_foreach(obj, k, v) {
		if (!json_is_string(v)) {
			rc = error_at(err, ERROR_CORRUPT, c->path, 0, 0,
				      "stored metadata '%s' is not a string",
				      k);
			goto done;
		}
		keys[n++] = k;
	}
	sort_strings(keys, n);
	for (i = 0; i < n; i++) {
		const char *val = json_string_value(json_object_get(obj,
								   keys[i]));
		char *kv;

		rc = cache_metadata_entry(keys[i], val, &kv, err);
		if (rc) {
			if (rc == ERROR_INVALID)
				rc = error_at(err, ERROR_CORRUPT, c->path, 0, 0,
					      "stored metadata has an empty "
					      "key");
			goto done;
		}
		rc = strv_push_ref(sv, kv, err);
		if (rc) {
			mem_free(kv);
			goto done;
		}
	}
done:
	mem_free(keys);
	json_decref(obj);
	return rc;
}

int
cache_record_read_row(struct cache *c, sqlite3_stmt *st,
		      struct cache_record *rec, struct error *err)
{
	const char *key = (const char *)sqlite3_column_text(st, 2);
	int rc;

	cache_record_init(rec);
	if ((rc = cache_column_dup(st, 0, &rec->run, err)) ||
	    (rc = cache_column_dup(st, 1, &rec->node_id, err)) ||
	    (rc = cache_column_dup(st, 4, &rec->output_digest, err)) ||
	    (rc = cache_column_dup(st, 6, &rec->version, err)))
		goto fail;
	if (!cache_key_valid(key)) {
		rc = error_at(err, ERROR_CORRUPT, c->path, 0, 0,
			      "stored key '%s' is not 32 hex digits",
			      key ? key : "");
		goto fail;
	}
	memcpy(rec->key, key, CACHE_KEY_SIZE);
	rc = cache_record_status_parse(
		(const char *)sqlite3_column_text(st, 3), &rec->status, err);
	if (rc)
		goto fail;
	rc = decode_artifacts(c, (const char *)sqlite3_column_text(st, 5),
			      &rec->artifacts, err);
	if (rc)
		goto fail;
	rc = decode_metadata(c, (const char *)sqlite3_column_text(st, 7),
			     &rec->metadata, err);
	if (rc)
		goto fail;
	rec->duration_ms = sqlite3_column_int64(st, 8);
	rec->recorded_ms = sqlite3_column_int64(st, 9);
	rec->conflicts = (long)sqlite3_column_int64(st, 10);
	return 0;
fail:
	error_node(err, rec->node_id);
	cache_record_release(rec);
	return rc;
}

/* Bind and step one record row into RECORD_PUT or CONFLICT_PUT. */
static int
write_row(struct cache *c, enum cache_stmt id, const struct cache_record *rec,
	  struct error *err)
{
	sqlite3_stmt *st;
	char *arts = NULL, *meta = NULL;
	int rc;

	if (!rec->node_id || !rec->node_id[0])
		return error_set(err, ERROR_INVALID, "empty node id");
	if (!cache_key_valid(rec->key)) {
		rc = cache_key_error(rec->key, err);
		goto done;
	}
	if ((rc = encode_artifacts(&rec->artifacts, &arts, err)) ||
	    (rc = encode_metadata(&rec->metadata, &meta, err)))
		goto done;
	st = cache_stmt_get(c, id, err);
	if (!st) {
		rc = err ? err->code : ERROR_INTERNAL;
		goto done;
	}
	if ((rc = cache_bind_text(c, st, 1, rec->run, err)) ||
	    (rc = cache_bind_text(c, st, 2, rec->node_id, err)) ||
	    (rc = cache_bind_text(c, st, 3, rec->key, err)) ||
	    (rc = cache_bind_text(c, st, 4,
				  cache_record_status_name(rec->status),
				  err)) ||
	    (rc = cache_bind_text(c, st, 5, rec->output_digest, err)) ||
	    (rc = cache_bind_text(c, st, 6, arts, err)) ||
	    (rc = cache_bind_text(c, st, 7, rec->version, err)) ||
	    (rc = cache_bind_text(c, st, 8, meta, err)) ||
	    (rc = cache_bind_int(c, st, 9, rec->duration_ms, err)) ||
	    (rc = cache_bind_int(c, st, 10, rec->recorded_ms, err)))
		goto done;
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		rc = 0;
	} else if (sqlite3_extended_errcode(c->db) ==
		   SQLITE_CONSTRAINT_FOREIGNKEY) {
		rc = error_set(err, ERROR_NOT_FOUND, "no run '%s' in the cache",
			       rec->run ? rec->run : "");
	} else {
		rc = cache_sqlite_error(c, rc, err);
	}
	sqlite3_reset(st);
done:
	if (rc)
		error_node(err, rec->node_id);
	mem_free(meta);
	mem_free(arts);
	return rc;
}

int
cache_record_write(struct cache *c, const struct cache_record *rec,
		   struct error *err)
{
	return write_row(c, CACHE_STMT_RECORD_PUT, rec, err);
}

int
cache_conflict_write(struct cache *c, const struct cache_record *rec,
		     int *added, struct error *err)
{
	int rc = write_row(c, CACHE_STMT_CONFLICT_PUT, rec, err);

	if (added)
		*added = !rc && sqlite3_changes(c->db) > 0;
	return rc;
}

int
cache_conflict_clear(struct cache *c, const char *run, const char *node_id,
		     struct error *err)
{
	sqlite3_stmt *st;
	int rc = cache_stmt_lookup(c, CACHE_STMT_CONFLICT_CLEAR,
				   (const char *const[]){ run, node_id }, 2,
				   &st, err);

	return rc < 0 ? rc : 0;
}

int
cache_record_put_in(struct cache *c, const struct cache_run *run,
		    const struct cache_record *rec,
		    const struct cache_manifest *manifest, struct error *err)
{
	int rc;

	if (manifest && strcmp(manifest->key, rec->key)) {
		error_set(err, ERROR_INVALID, "manifest is for key '%s', the "
			  "record's key is '%s'", manifest->key, rec->key);
		error_node(err, rec->node_id);
		return ERROR_INVALID;
	}
	if (run && (!rec->run || strcmp(run->id ? run->id : "", rec->run)))
		return error_set(err, ERROR_INVALID, "record of run '%s' put "
				 "into run '%s'", rec->run ? rec->run : "",
				 run->id ? run->id : "");
	rc = cache_txn_begin(c, err);
	if (rc)
		return rc;
	if (run)
		rc = cache_run_join_in_txn(c, run, NULL, err);
	if (!rc && manifest)
		rc = cache_manifest_write(c, manifest, NULL, err);
	if (!rc)
		rc = cache_record_write(c, rec, err);
	/* a new outcome replaces the record an import disagreed with */
	if (!rc)
		rc = cache_conflict_clear(c, rec->run, rec->node_id, err);
	if (rc) {
		cache_txn_rollback(c);
		return rc;
	}
	return cache_txn_commit(c, err);
}

int
cache_record_put(struct cache *c, const struct cache_record *rec,
		 const struct cache_manifest *manifest, struct error *err)
{
	return cache_record_put_in(c, NULL, rec, manifest, err);
}

int
cache_record_get(struct cache *c, const char *run, const char *node_id,
		 struct cache_record *out, struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	cache_record_init(out);
	rc = cache_stmt_lookup(c, CACHE_STMT_RECORD_GET,
			       (const char *const[]){ run, node_id }, 2, &st,
			       err);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		error_set(err, ERROR_NOT_FOUND, "no record of '%s' in run '%s'",
			  node_id, run);
		error_node(err, node_id);
		return ERROR_NOT_FOUND;
	}
	rc = cache_record_read_row(c, st, out, err);
	sqlite3_reset(st);
	return rc;
}

/* Collect every row of a bound record statement. */
static int
collect(struct cache *c, sqlite3_stmt *st, struct cache_record_list *out,
	struct error *err)
{
	size_t cap = 0;
	int rc;

	while ((rc = cache_stmt_step(c, st, err)) == 1) {
		if (out->n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct cache_record *p = mem_realloc(
				out->items, ncap * sizeof(*p));

			if (!p) {
				rc = OOM(err);
				break;
			}
			out->items = p;
			cap = ncap;
		}
		rc = cache_record_read_row(c, st, &out->items[out->n], err);
		if (rc)
			break;
		out->n++;
	}
	if (rc == 0)
		return 0;
	sqlite3_reset(st);
	cache_record_list_release(out);
	return rc;
}

int
cache_record_list(struct cache *c, const char *run,
		  struct cache_record_list *out, struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	out->items = NULL;
	out->n = 0;
	rc = cache_stmt_bind_texts(c, CACHE_STMT_RECORD_LIST, &run, 1, &st,
				   err);
	return rc ? rc : collect(c, st, out, err);
}

int
cache_record_statuses(struct cache *c, const char *run, cache_status_fn fn,
		      void *payload, struct error *err)
{
	enum cache_record_status status;
	const char *id;
	sqlite3_stmt *st;
	int rc;

	rc = cache_stmt_bind_texts(c, CACHE_STMT_RECORD_STATUSES, &run, 1,
				   &st, err);
	while (!rc && (rc = cache_stmt_step(c, st, err)) == 1) {
		id = (const char *)sqlite3_column_text(st, 0);
		rc = cache_record_status_parse(
			(const char *)sqlite3_column_text(st, 1), &status,
			err);
		if (!rc)
			rc = fn(payload, id ? id : "", status);
	}
	if (rc) {
		sqlite3_reset(st);
		return rc < 0 ? rc : 0;
	}
	return 0;
}

int
cache_record_find(struct cache *c, const char *key, const char *run,
		  struct cache_record_list *out, struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	out->items = NULL;
	out->n = 0;
	if (!cache_key_valid(key))
		return cache_key_error(key, err);
	rc = cache_stmt_bind_texts(c, run ? CACHE_STMT_RECORD_FIND_RUN
					  : CACHE_STMT_RECORD_FIND_ANY,
				   (const char *const[]){ key, run },
				   run ? 2 : 1, &st, err);
	return rc ? rc : collect(c, st, out, err);
}

int
cache_record_node_artifacts(struct cache *c, const char *node_id,
			    struct strv *out, struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	rc = cache_stmt_bind_texts(c, CACHE_STMT_RECORD_NODE_ARTIFACTS,
				   &node_id, 1, &st, err);
	if (rc)
		return rc;
	while ((rc = cache_stmt_step(c, st, err)) == 1) {
		rc = decode_artifacts(c, (const char *)sqlite3_column_text(
					      st, 0), out, err);
		if (rc) {
			sqlite3_reset(st);
			return rc;
		}
	}
	if (!rc)
		strv_sort_unique(out);
	return rc;
}

int
cache_record_conflicts(struct cache *c, const char *run, const char *node_id,
		       struct cache_record_list *out, struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	out->items = NULL;
	out->n = 0;
	rc = cache_stmt_bind_texts(c, CACHE_STMT_CONFLICT_LIST,
				   (const char *const[]){ run, node_id }, 2,
				   &st, err);
	return rc ? rc : collect(c, st, out, err);
}
