/*
 * The loader's typed readers: scalars, lists, booleans, numbers and names
 * from YAML nodes, each saying what it expected (errors through report.c).
 */
#include "rules/load.h"

#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/spell.h"
#include "rules/yaml.h"
#include "base/banned.h"

int
rules_load_string(struct rules_load *L, const struct rules_ynode *n,
		  const char *field, const char **out)
{
	if (!n || n->kind != RULES_YNODE_SCALAR || rules_ynode_is_null(n)) {
		rules_load_error(L, n, NULL, "'%s': expected a string, got %s",
				 field, rules_ynode_kind_name(n));
		return -1;
	}
	*out = n->str;
	return 0;
}

int
rules_load_strings(struct rules_load *L, const struct rules_ynode *n,
		   const char *field, int one_ok, const char ***out,
		   size_t *n_out)
{
	const char **v;
	size_t i;
	int bad = 0;

	*out = NULL;
	*n_out = 0;
	if (one_ok && n && n->kind == RULES_YNODE_SCALAR &&
	    !rules_ynode_is_null(n)) {
		v = rules_load_alloc(L, sizeof(*v));
		if (!v)
			return -1;
		v[0] = n->str;
		*out = v;
		*n_out = 1;
		return 0;
	}
	if (!n || n->kind != RULES_YNODE_SEQ) {
		rules_load_error(L, n, NULL,
				 "'%s': expected a list of strings%s, got %s",
				 field, one_ok ? " or a string" : "",
				 rules_ynode_kind_name(n));
		return -1;
	}
	v = rules_load_alloc(L, (n->n ? n->n : 1) * sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < n->n; i++) {
		const struct rules_ynode *it = n->items[i];

		if (it->kind != RULES_YNODE_SCALAR || rules_ynode_is_null(it)) {
			rules_load_error(L, it, NULL,
					 "'%s': expected a list of strings, "
					 "got %s in the list", field,
					 rules_ynode_kind_name(it));
			bad = 1;
			continue;
		}
		v[i] = it->str;
	}
	if (bad)
		return -1;
	*out = v;
	*n_out = n->n;
	return 0;
}

struct rules_pos *
rules_load_item_pos(struct rules_load *L, const struct rules_ynode *n,
		    size_t count)
{
	struct rules_pos *pos = rules_load_alloc(L, (count ? count : 1) *
						    sizeof(*pos));
	size_t i;

	for (i = 0; pos && i < count; i++)
		pos[i] = rules_load_pos(n->kind == RULES_YNODE_SEQ
					? n->items[i] : n);
	return pos;
}

int
rules_load_bool(struct rules_load *L, const struct rules_ynode *n,
		const char *field, int *out)
{
	if (n && n->kind == RULES_YNODE_SCALAR && n->plain) {
		if (!strcmp(n->str, "true")) {
			*out = 1;
			return 0;
		}
		if (!strcmp(n->str, "false")) {
			*out = 0;
			return 0;
		}
	}
	if (n && n->kind == RULES_YNODE_SCALAR && !rules_ynode_is_null(n))
		rules_load_error(L, n, "write true or false",
				 "'%s': expected true or false, got '%s'",
				 field, n->str);
	else
		rules_load_error(L, n, NULL,
				 "'%s': expected true or false, got %s", field,
				 rules_ynode_kind_name(n));
	return -1;
}

int
rules_load_uint(struct rules_load *L, const struct rules_ynode *n,
		const char *field, unsigned long long lo,
		unsigned long long hi, unsigned long long *out)
{
	unsigned long long v = 0;
	size_t i;

	if (!n || n->kind != RULES_YNODE_SCALAR || rules_ynode_is_null(n)) {
		rules_load_error(L, n, NULL, "'%s': expected a number, got %s",
				 field, rules_ynode_kind_name(n));
		return -1;
	}
	for (i = 0; i < n->len; i++) {
		if (n->str[i] < '0' || n->str[i] > '9' || i >= 18) {
			rules_load_error(L, n, NULL,
					 "'%s': expected a number, got '%s'",
					 field, n->str);
			return -1;
		}
		v = v * 10 + (unsigned)(n->str[i] - '0');
	}
	if (!n->len || v < lo || v > hi) {
		rules_load_error(L, n, NULL,
				 "'%s': %s is out of range (%llu to %llu)",
				 field, n->str, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

int
rules_load_fields(struct rules_load *L, const struct rules_ynode *m,
		  const char *what, const char *const *keys,
		  const struct rules_ynode **vals)
{
	size_t i, n_keys = 0;

	while (keys[n_keys])
		n_keys++;
	for (i = 0; vals && i < n_keys; i++)
		vals[i] = NULL;
	if (!m || m->kind != RULES_YNODE_MAP) {
		rules_load_error(L, m, NULL, "%s: expected a map, got %s", what,
				 rules_ynode_kind_name(m));
		return -1;
	}
	for (i = 0; i < m->n; i++) {
		const struct rules_ynode *k = m->items[2 * i];
		size_t j;

		for (j = 0; j < n_keys; j++)
			if (k->str[0] == keys[j][0] && !strcmp(k->str, keys[j]))
				break;
		if (j < n_keys) {
			/* the first of a key, as rules_ynode_get */
			if (vals && !vals[j])
				vals[j] = m->items[2 * i + 1];
			continue;
		}
		{
			const char *s = spell_suggest(k->str, keys, n_keys);
			char hint[ERROR_HINT_MAX];

			if (s)
				snprintf(hint, sizeof(hint),
					 "did you mean '%s'?", s);
			rules_load_error(L, k, s ? hint : NULL,
					 "unknown key '%s' in %s", k->str, what);
		}
	}
	return 0;
}

int
rules_load_keys(struct rules_load *L, const struct rules_ynode *m,
		const char *what, const char *const *keys)
{
	return rules_load_fields(L, m, what, keys, NULL);
}

/* Append up to *left - 1 bytes of s at *p (cut, as snprintf cuts). */
static void
put_cut(char **p, size_t *left, const char *s, size_t len)
{
	if (len >= *left)
		len = *left - 1;
	memcpy(*p, s, len);
	*p += len;
	*left -= len;
}

void
rules_load_what(char *what, size_t n, const char *kind, const char *name)
{
	char *p = what;
	size_t left = n;

	put_cut(&p, &left, kind, strlen(kind));
	put_cut(&p, &left, " '", 2);
	put_cut(&p, &left, name, strlen(name));
	put_cut(&p, &left, "'", 1);
	*p = '\0';
}

int
rules_load_name(struct rules_load *L, const struct rules_ynode *n,
		const char *what)
{
	const char *s = n->str;
	size_t i;
	int ok = n->len > 0 && n->len <= 128 &&
		 ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
		  (s[0] >= '0' && s[0] <= '9'));

	for (i = 0; ok && i < n->len; i++) {
		char c = s[i];

		ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		     (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
	}
	if (!ok) {
		rules_load_error(L, n,
				 "use letters, digits, '.', '_' and '-', "
				 "starting with a letter or digit",
				 "invalid %s name '%s'", what, s);
		return -1;
	}
	return 0;
}

int
rules_load_has_name(const char *const *sorted, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(sorted[mid], name);

		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

void
rules_load_patterns(struct rules_load *L, const struct rules_ynode *n,
		    const char *field, const char ***out, size_t *n_out)
{
	size_t i;

	if (rules_load_strings(L, n, field, 0, out, n_out))
		return;
	for (i = 0; i < *n_out; i++) {
		const char *p = (*out)[i];

		/* A leading "/" anchors the pattern at its base, as in
		 * gitignore(5); what follows must be a relative pattern. */
		if (p[0] == '/' && p[1] && p[1] != '/')
			p++;
		rules_syntax_pattern(L, n->items[i], p);
	}
}

void
rules_load_globs(struct rules_load *L, const struct rules_ynode *n,
		 const char *field, const char ***out, size_t *n_out)
{
	size_t i;

	if (rules_load_strings(L, n, field, 1, out, n_out))
		return;
	for (i = 0; i < *n_out; i++)
		rules_syntax_glob(L, n->kind == RULES_YNODE_SEQ ? n->items[i] : n,
				  (*out)[i]);
}
