/*
 * Key manifests: the components of a content key, stored once per distinct
 * key as one row per component (schema 7: manifest_keys and
 * manifest_components; a plan reads the file list of a changed source set,
 * hundreds of components, without parsing text), their JSON form for
 * export and import (and for manifests stored before schema 7, still read
 * from the manifests table), and the key syntax check shared with records.
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/utf8.h"

#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")

/* strspn's scan of the digits (a warm plan checks some 1,500 keys: 200
 * instructions each by a lookup a byte, half that by strspn), which
 * stops at the NUL of a shorter text. */
int
cache_key_valid(const char *key)
{
	return key && strspn(key, "0123456789abcdef") == CACHE_KEY_LEN &&
	       key[CACHE_KEY_LEN] == '\0';
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

/*
 * Bind component text `s` to parameter idx as the JSON round trip of
 * schema 6 gave it back: as is when valid UTF-8, else with the bad bytes
 * written "\\xHH" (cache_json_text). *tmp holds an escaped copy until
 * the row is written; the caller frees it.
 */
static int
bind_component(struct cache *c, sqlite3_stmt *st, int idx, const char *s,
	       char **tmp, struct error *err)
{
	int rc;

	*tmp = NULL;
	if (!utf8_is_valid(s)) {
		*tmp = utf8_escape(s);
		if (!*tmp)
			return OOM(err);
		s = *tmp;
	}
	rc = sqlite3_bind_text(st, idx, s, -1, SQLITE_STATIC);
	return rc == SQLITE_OK ? 0 : cache_sqlite_error(c, rc, err);
}

/* Write component `pos` of manifest row `id`. */
static int
write_component(struct cache *c, sqlite3_int64 id, size_t pos,
		const struct cache_component *it, struct error *err)
{
	const char *text[4] = { it->kind, it->name, it->digest, it->detail };
	char *tmp[4] = { NULL, NULL, NULL, NULL };
	sqlite3_stmt *st;
	int rc, i;

	st = cache_stmt_get(c, CACHE_STMT_MANIFEST_COMP_PUT, err);
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	rc = cache_bind_int(c, st, 1, (int64_t)id, err);
	if (!rc)
		rc = cache_bind_int(c, st, 2, (int64_t)pos, err);
	for (i = 0; !rc && i < 4; i++)
		rc = bind_component(c, st, 3 + i, text[i] ? text[i] : "",
				    &tmp[i], err);
	if (!rc)
		rc = cache_stmt_step(c, st, err);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	for (i = 0; i < 4; i++)
		mem_free(tmp[i]);
	return rc < 0 ? rc : 0;
}

int
cache_manifest_write(struct cache *c, const struct cache_manifest *m,
		     int *added, struct error *err)
{
	sqlite3_stmt *st;
	sqlite3_int64 id;
	size_t i;
	int rc;

	if (added)
		*added = 0;
	if (!cache_key_valid(m->key))
		return cache_key_error(m->key, err);
	st = cache_stmt_get(c, CACHE_STMT_MANIFEST_KEY_PUT, err);
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	if ((rc = cache_bind_text(c, st, 1, m->key, err)) ||
	    (rc = cache_bind_int(c, st, 2, (int64_t)m->n, err)))
		return rc;
	rc = cache_stmt_step(c, st, err);
	if (rc < 0)
		return rc;
	/* Keys are content hashes: the first writer's components stand. */
	if (sqlite3_changes(c->db) == 0)
		return 0;
	id = sqlite3_last_insert_rowid(c->db);
	for (i = 0; i < m->n; i++) {
		rc = write_component(c, id, i, &m->items[i], err);
		if (rc)
			return rc;
	}
	if (added)
		*added = 1;
	return 0;
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

/*
 * Column `col` of the current row, borrowed until the next step, in *out:
 * ERROR_CORRUPT when it is NULL or holds a NUL byte (the text would be
 * cut short).
 */
static int
column_text(sqlite3_stmt *st, int col, char **out)
{
	const char *s = (const char *)sqlite3_column_text(st, col);
	size_t n = (size_t)sqlite3_column_bytes(st, col);

	*out = (char *)s;
	return !s || memchr(s, '\0', n) ? ERROR_CORRUPT : 0;
}

/*
 * fn over the components of manifest row `id`, which says it has `want`:
 * 0, fn's error, or ERROR_CORRUPT when the rows do not match that count
 * or the text rule above.
 */
static int
each_row(struct cache *c, const char *key, sqlite3_int64 id,
	 sqlite3_int64 want, cache_component_fn fn, void *payload,
	 struct error *err)
{
	struct cache_component it;
	sqlite3_stmt *st;
	size_t i = 0;
	int rc;

	if (want < 0 || (uint64_t)want > SIZE_MAX / sizeof(it))
		goto corrupt;
	st = cache_stmt_get(c, CACHE_STMT_MANIFEST_COMP_GET, err);
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	rc = cache_bind_int(c, st, 1, (int64_t)id, err);
	if (rc)
		return rc;
	while ((rc = cache_stmt_step(c, st, err)) == 1) {
		if ((sqlite3_int64)i >= want ||
		    column_text(st, 0, &it.kind) ||
		    column_text(st, 1, &it.name) ||
		    column_text(st, 2, &it.digest) ||
		    column_text(st, 3, &it.detail)) {
			sqlite3_reset(st);
			goto corrupt;
		}
		rc = fn(payload, i++, (size_t)want, &it);
		if (rc) {
			sqlite3_reset(st);
			return rc;
		}
	}
	if (rc < 0)
		return rc;
	if ((sqlite3_int64)i != want)
		goto corrupt;
	return 0;
corrupt:
	return error_at(err, ERROR_CORRUPT, c->path, 0, 0,
			"manifest of key '%s': its components do not match "
			"its count of %lld", key, (long long)want);
}

/* A manifest stored before schema 7: JSON text in the manifests table. */
static int
each_json(struct cache *c, const char *key, cache_component_fn fn,
	  void *payload, struct error *err)
{
	sqlite3_stmt *st;
	struct cache_manifest m;
	size_t i;
	int rc;

	rc = cache_stmt_lookup(c, CACHE_STMT_MANIFEST_GET, &key, 1, &st, err);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return error_set(err, ERROR_NOT_FOUND,
				 "no manifest for key '%s'", key);
	memset(&m, 0, sizeof(m));
	memcpy(m.key, key, CACHE_KEY_SIZE);
	rc = cache_components_decode(c,
				     (const char *)sqlite3_column_text(st, 0),
				     &m, err);
	sqlite3_reset(st);
	for (i = 0; !rc && i < m.n; i++)
		rc = fn(payload, i, m.n, &m.items[i]);
	cache_manifest_release(&m);
	return rc;
}

int
cache_manifest_each(struct cache *c, const char *key, cache_component_fn fn,
		    void *payload, struct error *err)
{
	sqlite3_stmt *st;
	sqlite3_int64 id, n;
	int rc;

	if (!cache_key_valid(key))
		return cache_key_error(key, err);
	rc = cache_stmt_lookup(c, CACHE_STMT_MANIFEST_KEY_GET, &key, 1, &st,
			       err);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return each_json(c, key, fn, payload, err);
	id = sqlite3_column_int64(st, 0);
	n = sqlite3_column_int64(st, 1);
	sqlite3_reset(st);
	return each_row(c, key, id, n, fn, payload, err);
}

/* 1 when statement `which`, bound to key, yields a row; 0 or an error. */
static int
has_row(struct cache *c, enum cache_stmt which, const char *key,
	struct error *err)
{
	sqlite3_stmt *st;
	int rc = cache_stmt_lookup(c, which, &key, 1, &st, err);

	if (rc == 1)
		sqlite3_reset(st);
	return rc;
}

int
cache_manifest_stored(struct cache *c, const char *key, struct error *err)
{
	int rc;

	if (!cache_key_valid(key))
		return cache_key_error(key, err);
	rc = has_row(c, CACHE_STMT_MANIFEST_KEY_GET, key, err);
	return rc ? rc : has_row(c, CACHE_STMT_MANIFEST_GET, key, err);
}

/* cache_manifest_get's component_fn: a copy of each into the manifest. */
static int
copy_component(void *payload, size_t i, size_t n,
	       const struct cache_component *it)
{
	struct cache_manifest *m = payload;
	struct cache_component *to;

	if (!i) {
		m->items = mem_calloc(n ? n : 1, sizeof(*m->items));
		if (!m->items)
			return ERROR_NOMEM;
	}
	to = &m->items[m->n++];
	to->kind = mem_strdup(it->kind);
	to->name = mem_strdup(it->name);
	to->digest = mem_strdup(it->digest);
	to->detail = mem_strdup(it->detail);
	if (!to->kind || !to->name || !to->digest || !to->detail)
		return ERROR_NOMEM;
	return 0;
}

int
cache_manifest_get(struct cache *c, const char *key,
		   struct cache_manifest *out, struct error *err)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (!cache_key_valid(key))
		return cache_key_error(key, err);
	memcpy(out->key, key, CACHE_KEY_SIZE);
	rc = cache_manifest_each(c, key, copy_component, out, err);
	if (rc == ERROR_NOMEM)
		error_set(err, ERROR_NOMEM, "out of memory");
	if (rc)
		cache_manifest_release(out);
	return rc;
}
