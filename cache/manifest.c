/*
 * Key manifests: the components of a content key, stored once per distinct
 * key as JSON text, and the key syntax check shared with records.
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/utf8.h"

#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")

int
cache_key_valid(const char *key)
{
	size_t i;

	if (!key)
		return 0;
	for (i = 0; i < CACHE_KEY_LEN; i++)
		if (!((key[i] >= '0' && key[i] <= '9') ||
		      (key[i] >= 'a' && key[i] <= 'f')))
			return 0;
	return key[CACHE_KEY_LEN] == '\0';
}

int
cache_key_error(const char *key, struct error *err)
{
	error_set(err, ERROR_INVALID,
		  "key '%s' is not 32 lowercase hex digits", key ? key : "");
	return ERROR_INVALID;
}

void
cache_manifest_release(struct cache_manifest *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		mem_free(m->items[i].kind);
		mem_free(m->items[i].name);
		mem_free(m->items[i].digest);
		mem_free(m->items[i].detail);
	}
	mem_free(m->items);
	memset(m, 0, sizeof(*m));
}

int
cache_manifest_add(struct cache_manifest *m, const char *kind,
		   const char *name, const char *digest, const char *detail,
		   struct error *err)
{
	struct cache_component *p, *it;

	p = mem_realloc(m->items, (m->n + 1) * sizeof(*p));
	if (!p)
		return OOM(err);
	m->items = p;
	it = &p[m->n];
	it->kind = mem_strdup(kind ? kind : "");
	it->name = mem_strdup(name ? name : "");
	it->digest = mem_strdup(digest ? digest : "");
	it->detail = mem_strdup(detail ? detail : "");
	m->n++;
	if (!it->kind || !it->name || !it->digest || !it->detail)
		return OOM(err);
	return 0;
}

json_t *
cache_json_text(const char *s)
{
	json_t *j = json_string(s);
	char *esc;

	if (j || !s)
		return j;
	esc = utf8_escape(s);
	j = esc ? json_string(esc) : NULL;
	mem_free(esc);
	return j;
}

int
cache_json_dump(json_t *j, char **out, struct error *err)
{
	char *s;

	*out = NULL;
	if (!j)
		return OOM(err);
	s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	if (!s || !(*out = mem_strdup(s))) {
		free(s);
		return OOM(err);
	}
	free(s);
	return 0;
}

int
cache_components_encode(const struct cache_manifest *m, char **out,
			struct error *err)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; arr && i < m->n; i++) {
		const struct cache_component *it = &m->items[i];

		if (json_array_append_new(arr, json_pack(
			"{s:o, s:o, s:o, s:o}", "kind",
			cache_json_text(it->kind), "name",
			cache_json_text(it->name), "digest",
			cache_json_text(it->digest), "detail",
			cache_json_text(it->detail)))) {
			json_decref(arr);
			arr = NULL;
		}
	}
	return cache_json_dump(arr, out, err);
}

/* The string member `name` of component object o, or NULL. */
static const char *
member(json_t *o, const char *name)
{
	return json_string_value(json_object_get(o, name));
}

int
cache_components_decode(struct cache *c, const char *text,
			struct cache_manifest *m, struct error *err)
{
	json_t *arr = json_loads(text, 0, NULL), *it;
	struct cache_component *items;
	size_t i, n;
	int rc = 0;

	if (!json_is_array(arr)) {
		rc = error_at(err, ERROR_CORRUPT, c ? c->path : NULL, 0, 0,
			      "manifest of key '%s' is not a JSON array",
			      m->key);
		goto done;
	}
	/* Room for all components at once, not one realloc each. */
	n = json_array_size(arr);
	items = n ? mem_realloc(m->items, (m->n + n) * sizeof(*items)) : NULL;
	if (n && !items) {
		rc = OOM(err);
		goto done;
	}
	if (items)
		m->items = items;
	json_array_foreach(arr, i, it) {
		/* What json_unpack "{s:s, s:s, s:s, s:s}" asked, without
		 * reading a format string per component. */
		const char *kind = member(it, "kind"), *name = member(it, "name"),
			   *digest = member(it, "digest"),
			   *detail = member(it, "detail");
		struct cache_component *to = &m->items[m->n];

		if (!kind || !name || !digest || !detail) {
			rc = error_at(err, ERROR_CORRUPT, c ? c->path : NULL,
				      0, 0, "manifest of key '%s': component "
				      "%zu lacks kind, name, digest or detail",
				      m->key, i);
			goto done;
		}
		to->kind = mem_strdup(kind);
		to->name = mem_strdup(name);
		to->digest = mem_strdup(digest);
		to->detail = mem_strdup(detail);
		m->n++;
		if (!to->kind || !to->name || !to->digest || !to->detail) {
			rc = OOM(err);
			goto done;
		}
	}
done:
	json_decref(arr);
	return rc;
}

int
cache_manifest_write(struct cache *c, const struct cache_manifest *m,
		     int *added, struct error *err)
{
	sqlite3_stmt *st;
	char *text = NULL;
	int rc;

	if (added)
		*added = 0;
	if (!cache_key_valid(m->key))
		return cache_key_error(m->key, err);
	rc = cache_components_encode(m, &text, err);
	if (rc)
		return rc;
	st = cache_stmt_get(c, CACHE_STMT_MANIFEST_PUT, err);
	if (!st) {
		rc = err ? err->code : ERROR_INTERNAL;
		goto done;
	}
	if ((rc = cache_bind_text(c, st, 1, m->key, err)) ||
	    (rc = cache_bind_text(c, st, 2, text, err)))
		goto done;
	rc = cache_stmt_step(c, st, err);
	if (rc < 0)
		goto done;
	if (added)
		*added = sqlite3_changes(c->db) > 0;
	rc = 0;
done:
	mem_free(text);
	return rc;
}

int
cache_manifest_put(struct cache *c, const struct cache_manifest *m,
		   struct error *err)
{
	int rc = cache_txn_begin(c, err);

	if (rc)
		return rc;
	rc = cache_manifest_write(c, m, NULL, err);
	if (rc) {
		cache_txn_rollback(c);
		return rc;
	}
	return cache_txn_commit(c, err);
}

int
cache_manifest_get(struct cache *c, const char *key,
		   struct cache_manifest *out, struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!cache_key_valid(key))
		return cache_key_error(key, err);
	memcpy(out->key, key, CACHE_KEY_SIZE);
	st = cache_stmt_get(c, CACHE_STMT_MANIFEST_GET, err);
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	rc = cache_bind_text(c, st, 1, key, err);
	if (rc)
		return rc;
	rc = cache_stmt_step(c, st, err);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return error_set(err, ERROR_NOT_FOUND,
				 "no manifest for key '%s'", key);
	rc = cache_components_decode(c,
				     (const char *)sqlite3_column_text(st, 0),
				     out, err);
	sqlite3_reset(st);
	if (rc)
		cache_manifest_release(out);
	return rc;
}
