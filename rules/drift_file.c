/*
 * Check values read from file bytes: YAML key paths (through the loader's
 * libyaml tree, so positions, aliases and merge keys behave as in
 * ripple.yml), JSON key paths (jansson for the value, a small scanner for
 * its position, which jansson does not keep) and regex groups.
 */
#include "rules/drift_file.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/regex.h"
#include "base/spell.h"
#include "rules/load.h"
#include "rules/yaml.h"
#include "base/banned.h"

#define SEG_MAX 256

static void
line_col(const char *s, size_t off, unsigned *line, unsigned *col)
{
	size_t i, start = 0;
	unsigned l = 1;

	for (i = 0; i < off; i++)
		if (s[i] == '\n') {
			l++;
			start = i + 1;
		}
	*line = l;
	*col = (unsigned)(off - start + 1);
}

/*
 * The next segment of key path *p into seg; advances *p (NULL after the
 * last) and sets *upto to the length of the key up to the segment's end.
 * Returns 0, or -1 when the segment is too long.
 */
static int
next_seg(const char *key, const char **p, char *seg, size_t *upto)
{
	const char *dot = strchr(*p, '.');
	size_t n = dot ? (size_t)(dot - *p) : strlen(*p);

	if (n >= SEG_MAX)
		return -1;
	memcpy(seg, *p, n);
	seg[n] = '\0';
	*upto = (size_t)(*p - key) + n;
	*p = dot ? dot + 1 : NULL;
	return 0;
}

/* Decimal index, or -1. */
static long
seg_index(const char *seg)
{
	long v = 0;
	size_t i;

	if (!seg[0] || strlen(seg) > 9)
		return -1;
	for (i = 0; seg[i]; i++) {
		if (seg[i] < '0' || seg[i] > '9')
			return -1;
		v = v * 10 + (seg[i] - '0');
	}
	return v;
}

/* Walk the YAML tree; on failure set err (no position) and return. */
static int
yaml_walk(const struct rules_ynode *doc, const char *file, const char *key,
	  const struct rules_ynode **out, struct error *err)
{
	const struct rules_ynode *n = doc;
	const char *p = key;
	char seg[SEG_MAX];
	size_t upto;

	if (!n)
		return error_set(err, ERROR_NOT_FOUND, "'%s' is empty", file);
	while (p) {
		const struct rules_ynode *child = NULL;

		if (next_seg(key, &p, seg, &upto))
			return error_set(err, ERROR_NOT_FOUND,
					 "'%s' has no key '%s'", file, key);
		if (n->kind == RULES_YNODE_MAP) {
			child = rules_ynode_get(n, seg);
			if (!child) {
				const char *c[64];
				const char *s;
				size_t i, k = 0;

				for (i = 0; i < n->n && k < 64; i++)
					c[k++] = n->items[2 * i]->str;
				s = spell_suggest(seg, c, k);
				error_set(err, ERROR_NOT_FOUND,
					  "'%s' has no key '%.*s'", file,
					  (int)upto, key);
				if (s)
					error_hint(err, "did you mean '%.*s%s'?",
						   (int)(upto - strlen(seg)), key, s);
				return ERROR_NOT_FOUND;
			}
		} else if (n->kind == RULES_YNODE_SEQ) {
			long i = seg_index(seg);

			if (i < 0 || (size_t)i >= n->n)
				return error_set(err, ERROR_NOT_FOUND,
						 "'%s' has no key '%.*s' (a list "
						 "of %zu)", file, (int)upto,
						 key, n->n);
			child = n->items[i];
		} else {
			return error_set(err, ERROR_NOT_FOUND,
					 "'%s' has no key '%.*s' (a single "
					 "value is above it)", file,
					 (int)upto, key);
		}
		n = child;
	}
	*out = n;
	return 0;
}

/* Parse YAML into a scratch model's arena; errors go to err. */
static int
yaml_parse(struct rules *tmp, const char *file, const char *data, size_t len,
	   struct rules_ynode **doc, struct error *err)
{
	struct rules_load L;
	int rc;

	memset(&L, 0, sizeof(L));
	L.r = tmp;
	L.file = file;
	error_list_init(&L.errors, 1);
	rules_yaml_parse(&L, data, len, doc);
	rc = L.code;
	if (rc && err && !err->code) {
		if (L.errors.n)
			*err = L.errors.items[0];
		else
			error_set(err, rc, "cannot parse '%s'", file);
	}
	error_list_release(&L.errors);
	return rc;
}

int
rules_drift_read_yaml(struct arena *a, const char *file, const char *data,
		      size_t len, const char *key,
		      struct rules_drift_value *out, struct error *err)
{
	struct rules tmp;
	struct rules_ynode *doc = NULL;
	const struct rules_ynode *n;
	int rc;

	memset(&tmp, 0, sizeof(tmp));
	arena_init(&tmp.arena);
	rc = yaml_parse(&tmp, file, data, len, &doc, err);
	if (rc)
		goto done;
	rc = yaml_walk(doc, file, key, &n, err);
	if (rc)
		goto done;
	if (n->kind != RULES_YNODE_SCALAR || rules_ynode_is_null(n)) {
		rc = error_set(err, ERROR_INVALID, "key '%s' in '%s' is %s, "
			       "not a value", key, file,
			       rules_ynode_kind_name(n));
		error_hint(err, "point the key at a single value");
		goto done;
	}
	out->text = arena_strndup(a, n->str, n->len);
	if (!out->text) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	out->file = file;
	out->line = n->line;
	out->col = n->col;
done:
	arena_release(&tmp.arena);
	return rc;
}

int
rules_drift_yaml_pos(const char *text, size_t len, const char *key,
		     unsigned *line, unsigned *col)
{
	struct rules tmp;
	struct rules_ynode *doc = NULL;
	const struct rules_ynode *n;
	struct error e;
	int rc;

	error_init(&e);
	memset(&tmp, 0, sizeof(tmp));
	arena_init(&tmp.arena);
	rc = yaml_parse(&tmp, "", text, len, &doc, &e);
	if (!rc)
		rc = yaml_walk(doc, "", key, &n, &e);
	if (!rc) {
		*line = n->line;
		*col = n->col;
	}
	arena_release(&tmp.arena);
	return rc ? -1 : 0;
}

/* --- JSON positions: a scanner over text jansson has already accepted --- */

static size_t
jws(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' ||
			   s[i] == '\n'))
		i++;
	return i;
}

/* i at an opening quote; the index after the closing one. */
static size_t
jstr_end(const char *s, size_t len, size_t i)
{
	for (i++; i < len && s[i] != '"'; i++)
		if (s[i] == '\\')
			i++;
	return i < len ? i + 1 : len;
}

/* i at a value; the index after it. */
static size_t
jskip(const char *s, size_t len, size_t i)
{
	size_t depth = 0;

	while (i < len) {
		if (s[i] == '"') {
			i = jstr_end(s, len, i);
		} else if (s[i] == '{' || s[i] == '[') {
			depth++;
			i++;
		} else if (s[i] == '}' || s[i] == ']') {
			depth--;
			i++;
		} else if (depth) {
			i++;
			continue;
		} else {
			while (i < len && !strchr(",}] \t\r\n", s[i]))
				i++;
			return i;
		}
		if (!depth)
			return i;
	}
	return i;
}

/* Find the value at key; 0 and its [start, end) offsets, or -1. */
static int
jfind(const char *s, size_t len, const char *key, size_t *start, size_t *end)
{
	size_t i = jws(s, len, 0), upto;
	const char *p = key;
	char seg[SEG_MAX];

	while (p) {
		int found = 0;

		if (next_seg(key, &p, seg, &upto) || i >= len)
			return -1;
		if (s[i] == '{') {
			size_t sl = strlen(seg);

			i = jws(s, len, i + 1);
			while (i < len && s[i] == '"') {
				size_t ks = i + 1, ke = jstr_end(s, len, i);
				int match = ke - 1 - ks == sl &&
					    !memcmp(s + ks, seg, sl);

				i = jws(s, len, ke);
				if (i < len && s[i] == ':')
					i = jws(s, len, i + 1);
				if (match) {
					found = 1;
					break;
				}
				i = jws(s, len, jskip(s, len, i));
				if (i < len && s[i] == ',')
					i = jws(s, len, i + 1);
			}
		} else if (s[i] == '[') {
			long want = seg_index(seg), k;

			i = jws(s, len, i + 1);
			for (k = 0; want >= 0 && i < len && s[i] != ']'; k++) {
				if (k == want) {
					found = 1;
					break;
				}
				i = jws(s, len, jskip(s, len, i));
				if (i < len && s[i] == ',')
					i = jws(s, len, i + 1);
			}
		}
		if (!found)
			return -1;
	}
	*start = i;
	*end = jskip(s, len, i);
	return 0;
}

static const char *
jkind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "a list";
	case JSON_NULL:
		return "null";
	default:
		return "a value";
	}
}

int
rules_drift_read_json(struct arena *a, const char *file, const char *data,
		      size_t len, const char *key,
		      struct rules_drift_value *out, struct error *err)
{
	json_error_t je;
	json_t *root, *n;
	const char *p = key;
	char seg[SEG_MAX];
	size_t upto, start = 0, end = 0;
	int rc = 0, pos;

	root = json_loadb(data, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES,
			  &je);
	if (!root)
		return error_at(err, ERROR_INVALID, file,
				je.line > 0 ? (unsigned)je.line : 0,
				je.column > 0 ? (unsigned)je.column : 0,
				"invalid JSON: %s", je.text);
	n = root;
	while (p) {
		json_t *child = NULL;

		if (next_seg(key, &p, seg, &upto)) {
			seg[0] = '\0';
			upto = strlen(key);
			p = NULL;
		}
		if (json_is_object(n)) {
			child = json_object_get(n, seg);
		} else if (json_is_array(n)) {
			long i = seg_index(seg);

			if (i >= 0)
				child = json_array_get(n, (size_t)i);
		}
		if (!child) {
			rc = error_set(err, ERROR_NOT_FOUND,
				       "'%s' has no key '%.*s'", file,
				       (int)upto, key);
			if (json_is_object(n)) {
				const char *c[64], *k, *s;
				size_t m = 0;
				json_t *v;

				json_object_foreach(n, k, v) {
					if (m < 64)
						c[m++] = k;
				}
				s = spell_suggest(seg, c, m);
				if (s)
					error_hint(err, "did you mean '%.*s%s'?",
						   (int)(upto - strlen(seg)),
						   key, s);
			}
			goto done;
		}
		n = child;
	}
	pos = jfind(data, len, key, &start, &end);
	if (json_is_string(n)) {
		out->text = arena_strndup(a, json_string_value(n),
					  json_string_length(n));
	} else if (json_is_number(n) || json_is_boolean(n)) {
		if (!pos)
			out->text = arena_strndup(a, data + start, end - start);
		else if (json_is_boolean(n))
			out->text = json_is_true(n) ? "true" : "false";
		else if (json_is_integer(n))
			out->text = arena_printf(a, "%lld",
						 (long long)json_integer_value(n));
		else
			out->text = arena_printf(a, "%.17g", json_real_value(n));
	} else {
		rc = error_set(err, ERROR_INVALID, "key '%s' in '%s' is %s, "
			       "not a value", key, file, jkind(n));
		error_hint(err, "point the key at a single value");
		goto done;
	}
	if (!out->text) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	out->file = file;
	out->line = out->col = 0;
	if (!pos)
		line_col(data, start, &out->line, &out->col);
done:
	json_decref(root);
	return rc;
}

int
rules_drift_read_regex(struct arena *a, const char *file, const char *data,
		       size_t len, const char *re,
		       struct rules_drift_value *out, struct error *err)
{
	char msg[128];
	size_t groups = 0, so = 0, eo = 0;
	int rc;

	(void)len;
	rc = regex_group1(re, 1, data, &groups, &so, &eo, msg, sizeof(msg));
	if (rc < 0)
		return error_set(err, ERROR_INVALID, "bad regex '%s': %s", re,
				 msg);
	if (groups < 1)
		return error_set(err, ERROR_INVALID, "regex '%s' has no group",
				 re);
	if (!rc) {
		error_set(err, ERROR_NOT_FOUND, "regex '%s' matches nothing in "
			  "'%s'", re, file);
		error_hint(err, "check the file's text, or fix the regex");
		return ERROR_NOT_FOUND;
	}
	out->text = arena_strndup(a, data + so, eo - so);
	if (!out->text)
		return error_set(err, ERROR_NOMEM, "out of memory");
	out->file = file;
	line_col(data, so, &out->line, &out->col);
	return 0;
}
