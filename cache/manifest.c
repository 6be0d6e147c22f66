/*
 * Key manifests: the components of a content key, stored once per distinct
 * key as JSON text, and the key syntax check shared with records.
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
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

/* Skip JSON white space. */
static const char *
ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static int
hex4(const char *p, unsigned *out)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/*
 * The JSON string at p, unescaped into *out (emptied first), and the
 * position after it; NULL for what this reader leaves to jansson: a raw
 * control byte, bytes that are not UTF-8, \u0000, a surrogate escape
 * (pairs included), an unknown escape, or no string at all. Out of memory
 * gives NULL with *nomem set.
 */
static const char *
json_string_at(const char *p, struct buf *out, int *nomem)
{
	const char *run;
	unsigned cp;
	char u[3];
	int rc = 0;

	buf_reset(out);
	if (*p != '"')
		return NULL;
	for (run = ++p; !rc && *p != '"'; ) {
		unsigned char c = (unsigned char)*p;
		size_t n;

		if (c >= 0x20 && c < 0x80 && c != '\\') {
			p++;
			continue;
		}
		rc = buf_add(out, run, (size_t)(p - run), NULL);
		if (c >= 0x80) {
			n = utf8_sequence_len((const unsigned char *)p,
					      strnlen(p, 4));
			if (!n)
				return NULL;
			if (!rc)
				rc = buf_add(out, p, n, NULL);
			p += n;
		} else if (c != '\\') {
			return NULL;	/* raw control byte, or the end */
		} else {
			const char *e = strchr("\"\\/bfnrt", p[1]);

			if (p[1] && e) {
				rc = rc ? rc : buf_addch(out,
					"\"\\/\b\f\n\r\t"[e - "\"\\/bfnrt"],
					NULL);
				p += 2;
			} else if (p[1] == 'u' && !hex4(p + 2, &cp) && cp &&
				   (cp < 0xd800 || cp > 0xdfff)) {
				n = 0;
				if (cp < 0x80) {
					u[n++] = (char)cp;
				} else if (cp < 0x800) {
					u[n++] = (char)(0xc0 | (cp >> 6));
					u[n++] = (char)(0x80 | (cp & 0x3f));
				} else {
					u[n++] = (char)(0xe0 | (cp >> 12));
					u[n++] = (char)(0x80 |
							((cp >> 6) & 0x3f));
					u[n++] = (char)(0x80 | (cp & 0x3f));
				}
				rc = rc ? rc : buf_add(out, u, n, NULL);
				p += 6;
			} else {
				return NULL;
			}
		}
		run = p;
	}
	if (!rc)
		rc = buf_add(out, run, (size_t)(p - run), NULL);
	if (rc) {
		*nomem = 1;
		return NULL;
	}
	return p + 1;
}

/*
 * A manifest read without building a JSON tree: an array of objects of
 * exactly the four string members kind, name, digest and detail (what
 * the encoder writes). 1 when read (components added to m), 0 when the
 * text is anything else (even valid JSON: jansson then reads it and
 * reports what is wrong), or ERROR_NOMEM. A manifest of 200 files costs
 * a tenth of json_loads and json_unpack.
 */
static int
decode_plain(const char *p, struct cache_manifest *m, struct error *err)
{
	static const char *const names[4] = { "kind", "name", "digest",
					      "detail" };
	struct buf key = BUF_INIT, v[4] = { BUF_INIT, BUF_INIT, BUF_INIT,
					    BUF_INIT };
	size_t k, start = m->n;
	int rc = 0, nomem = 0;

	p = ws(p);
	if (*p++ != '[')
		goto no;
	p = ws(p);
	if (*p == ']') {
		rc = *ws(p + 1) ? 0 : 1;
		goto done;
	}
	for (;;) {
		unsigned seen = 0;

		if (*p++ != '{')
			goto no;
		for (;;) {
			p = json_string_at(ws(p), &key, &nomem);
			if (!p)
				goto no;
			for (k = 0; k < 4 && strcmp(names[k], key.data); k++)
				;
			if (k == 4 || (seen & (1u << k)) ||
			    strlen(key.data) != key.len)
				goto no;
			seen |= 1u << k;
			p = ws(p);
			if (*p++ != ':')
				goto no;
			p = json_string_at(ws(p), &v[k], &nomem);
			if (!p)
				goto no;
			p = ws(p);
			if (*p == '}')
				break;
			if (*p++ != ',')
				goto no;
		}
		if (seen != 15)
			goto no;
		rc = cache_manifest_add(m, v[0].data, v[1].data, v[2].data,
					v[3].data, err);
		if (rc)
			goto fail;
		p = ws(p + 1);
		if (*p == ']')
			break;
		if (*p++ != ',')
			goto no;
		p = ws(p);
	}
	if (*ws(p + 1))
		goto no;
	rc = 1;
	goto done;
no:
	rc = nomem ? OOM(err) : 0;
fail:
	/* Leave m as it was: jansson reads it again from the start. */
	while (m->n > start) {
		struct cache_component *it = &m->items[--m->n];

		mem_free(it->kind);
		mem_free(it->name);
		mem_free(it->digest);
		mem_free(it->detail);
	}
done:
	buf_release(&key);
	for (k = 0; k < 4; k++)
		buf_release(&v[k]);
	return rc;
}

int
cache_components_decode(struct cache *c, const char *text,
			struct cache_manifest *m, struct error *err)
{
	json_t *arr, *it;
	size_t i;
	int rc = decode_plain(text, m, err);

	if (rc)
		return rc < 0 ? rc : 0;
	arr = json_loads(text, 0, NULL);

	if (!json_is_array(arr)) {
		rc = error_at(err, ERROR_CORRUPT, c ? c->path : NULL, 0, 0,
			      "manifest of key '%s' is not a JSON array",
			      m->key);
		goto done;
	}
	json_array_foreach(arr, i, it) {
		const char *kind, *name, *digest, *detail;

		if (json_unpack(it, "{s:s, s:s, s:s, s:s}", "kind", &kind,
				"name", &name, "digest", &digest, "detail",
				&detail)) {
			rc = error_at(err, ERROR_CORRUPT, c ? c->path : NULL,
				      0, 0, "manifest of key '%s': component "
				      "%zu lacks kind, name, digest or detail",
				      m->key, i);
			goto done;
		}
		rc = cache_manifest_add(m, kind, name, digest, detail, err);
		if (rc)
			goto done;
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
