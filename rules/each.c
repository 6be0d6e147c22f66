/*
 * Matrix declarations: `each:` maps (axes given as lists, `axes.NAME` or
 * `roots`, with include/exclude combinations) and selector values such as
 * "roots[toolkit.major=${cuda}]" used by `where:` and `toolkit:`.
 */
#include "rules/load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/yaml.h"
#include "base/banned.h"

int
rules_each_has(const struct rules_each *e, const char *axis)
{
	size_t i;

	for (i = 0; i < e->n_axes; i++)
		if (!strcmp(e->axes[i].axis, axis))
			return 1;
	return 0;
}

/* The values an axis may take: a defined axis's, or the root names. */
static int
axis_domain(struct rules_load *L, const char *axis, const char ***vals,
	    size_t *n)
{
	const struct rules_axis *ax;
	size_t i;

	if (!strcmp(axis, "root")) {
		*vals = rules_load_alloc(L, (L->r->n_roots + 1) * sizeof(**vals));
		if (!*vals)
			return -1;
		for (i = 0; i < L->r->n_roots; i++)
			(*vals)[i] = L->r->roots[i].name;
		*n = L->r->n_roots;
		return 0;
	}
	ax = rules_find_axis(L->r, axis);
	if (!ax)
		return -1;
	*vals = ax->values;
	*n = ax->n_values;
	return 0;
}

static int
in_domain(const char *v, const char *const *vals, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(vals[i], v))
			return 1;
	return 0;
}

static void
unknown_axis(struct rules_load *L, const struct rules_ynode *k)
{
	const char *c[257];
	size_t i, n = 0;

	c[n++] = "root";
	for (i = 0; i < L->r->n_axes && n < 257; i++)
		c[n++] = L->r->axes[i].name;
	rules_load_unknown(L, k, "axis", k->str, c, n);
}

static void
load_axis_values(struct rules_load *L, const struct rules_ynode *k,
		 const struct rules_ynode *v, struct rules_each_axis *ea)
{
	const char **dom = NULL;
	size_t n_dom = 0, i;
	char want[160];

	ea->axis = k->str;
	ea->pos = rules_load_pos(k);
	if (axis_domain(L, k->str, &dom, &n_dom)) {
		if (!rules_load_failed_nomem(L))
			unknown_axis(L, k);
		return;
	}
	if (v->kind == RULES_YNODE_SCALAR && !rules_ynode_is_null(v)) {
		if (!strcmp(k->str, "root") && !strcmp(v->str, "roots")) {
			ea->ref = "roots";
			ea->values = dom;
			ea->n_values = n_dom;
			return;
		}
		if (!strncmp(v->str, "axes.", 5)) {
			const struct rules_axis *ax = rules_find_axis(L->r, v->str + 5);

			if (!ax) {
				const char *c[256];
				size_t n = 0;

				for (i = 0; i < L->r->n_axes && n < 256; i++)
					c[n++] = L->r->axes[i].name;
				rules_load_unknown(L, v, "axis", v->str + 5, c, n);
				return;
			}
			if (strcmp(ax->name, k->str)) {
				snprintf(want, sizeof(want), "write %s: axes.%s",
					 k->str, k->str);
				rules_load_error(L, v, want,
						 "axis '%s' cannot take the values "
						 "of '%s'", k->str, v->str);
				return;
			}
			ea->ref = v->str;
			ea->values = ax->values;
			ea->n_values = ax->n_values;
			return;
		}
		if (!strcmp(v->str, "roots")) {
			rules_load_error(L, v, "write root: roots",
					 "only the 'root' axis takes 'roots', "
					 "not '%s'", k->str);
			return;
		}
		snprintf(want, sizeof(want), "write a list, e.g. %s: [%s], or %s",
			 k->str, v->str,
			 strcmp(k->str, "root") ? "axes.NAME" : "roots");
		rules_load_error(L, v, want,
				 "'%s': expected a list of values, got '%s'",
				 k->str, v->str);
		return;
	}
	if (rules_load_strings(L, v, k->str, 0, &ea->values, &ea->n_values))
		return;
	if (!ea->n_values)
		rules_load_error(L, v, NULL, "axis '%s' has no values here",
				 k->str);
	for (i = 0; i < ea->n_values; i++)
		if (!in_domain(ea->values[i], dom, n_dom))
			rules_load_unknown(L, v->items[i],
					   strcmp(k->str, "root") ? "value" : "root",
					   ea->values[i], dom, n_dom);
}

static int
cmp_kv(const void *a, const void *b)
{
	return strcmp(((const struct rules_kv *)a)->key,
		      ((const struct rules_kv *)b)->key);
}

static int
cmp_each_axis(const void *a, const void *b)
{
	return strcmp(((const struct rules_each_axis *)a)->axis,
		      ((const struct rules_each_axis *)b)->axis);
}

static void
load_combos(struct rules_load *L, const struct rules_ynode *v,
	    const char *field, const struct rules_each *e,
	    struct rules_combo **out, size_t *n_out)
{
	size_t i, j;

	if (v->kind != RULES_YNODE_SEQ) {
		rules_load_error(L, v, NULL, "'%s': expected a list of maps, got %s",
				 field, rules_ynode_kind_name(v));
		return;
	}
	*out = rules_load_alloc(L, (v->n ? v->n : 1) * sizeof(**out));
	if (!*out)
		return;
	*n_out = v->n;
	for (i = 0; i < v->n; i++) {
		const struct rules_ynode *m = v->items[i];
		struct rules_combo *c = &(*out)[i];

		c->pos = rules_load_pos(m);
		if (m->kind != RULES_YNODE_MAP || !m->n) {
			rules_load_error(L, m, "write {AXIS: VALUE, ...}",
					 "'%s': expected a map of axis values, got %s",
					 field, m->kind == RULES_YNODE_MAP
						 ? "an empty map"
						 : rules_ynode_kind_name(m));
			continue;
		}
		c->pairs = rules_load_alloc(L, m->n * sizeof(*c->pairs));
		if (!c->pairs)
			return;
		c->n_pairs = m->n;
		for (j = 0; j < m->n; j++) {
			const struct rules_ynode *k = m->items[2 * j];
			const struct rules_ynode *val = m->items[2 * j + 1];
			const char **dom;
			size_t n_dom;

			c->pairs[j].key = k->str;
			c->pairs[j].pos = rules_load_pos(k);
			if (!rules_each_has(e, k->str)) {
				char hint[160];

				snprintf(hint, sizeof(hint),
					 "'%s' entries name axes of this 'each'",
					 field);
				rules_load_error(L, k, hint,
						 "'%s' is not an axis of this 'each'",
						 k->str);
				continue;
			}
			if (rules_load_string(L, val, k->str, &c->pairs[j].value))
				continue;
			if (!axis_domain(L, k->str, &dom, &n_dom) &&
			    !in_domain(c->pairs[j].value, dom, n_dom))
				rules_load_unknown(L, val,
						   strcmp(k->str, "root") ? "value" : "root",
						   c->pairs[j].value, dom, n_dom);
		}
		qsort(c->pairs, c->n_pairs, sizeof(*c->pairs), cmp_kv);
	}
}

void
rules_load_each(struct rules_load *L, const struct rules_ynode *v,
		const char *what, struct rules_each *e)
{
	size_t i, n = 0;
	const struct rules_ynode *inc = NULL, *exc = NULL;

	if (rules_ynode_is_null(v))
		return;
	if (v->kind != RULES_YNODE_MAP) {
		rules_load_error(L, v, "write {AXIS: [VALUE, ...], ...}",
				 "'each' of %s: expected a map, got %s", what,
				 rules_ynode_kind_name(v));
		return;
	}
	e->axes = rules_load_alloc(L, (v->n ? v->n : 1) * sizeof(*e->axes));
	if (!e->axes)
		return;
	for (i = 0; i < v->n; i++) {
		const struct rules_ynode *k = v->items[2 * i];

		if (!strcmp(k->str, "include")) {
			inc = v->items[2 * i + 1];
			continue;
		}
		if (!strcmp(k->str, "exclude")) {
			exc = v->items[2 * i + 1];
			continue;
		}
		if (!strcmp(k->str, "from")) {
			if (v->n != 1) {
				rules_load_error(L, k, "the file's entries are "
						 "the matrix: map every axis "
						 "in from: {axes:}",
						 "'from' must be the only key "
						 "of 'each'");
				return;
			}
			rules_load_each_from(L, v->items[1], what, e);
			return;
		}
		load_axis_values(L, k, v->items[2 * i + 1], &e->axes[n]);
		if (rules_load_failed_nomem(L))
			return;
		if (e->axes[n].axis)
			n++;
	}
	e->n_axes = n;
	qsort(e->axes, n, sizeof(*e->axes), cmp_each_axis);
	if (inc)
		load_combos(L, inc, "include", e, &e->include, &e->n_include);
	if (exc && !rules_load_failed_nomem(L))
		load_combos(L, exc, "exclude", e, &e->exclude, &e->n_exclude);
}

int
rules_load_selector(struct rules_load *L, const struct rules_ynode *n,
		    const char *s, const struct rules_tvars *vars)
{
	static const char *const root_fields[] = {
		"name", "path", "role", "toolkit", "toolkit.major",
		"toolkit.minor", "toolkit.version",
	};
	static const char *const tk_fields[] = {
		"name", "version", "major", "minor",
	};
	const char *const *fields;
	size_t n_fields, klen, i;
	const char *open, *eq;
	char field[64];

	if (strncmp(s, "roots[", 6) && strncmp(s, "toolkits[", 9))
		return rules_syntax_template(L, n, s, vars);
	open = strchr(s, '[');
	klen = strlen(s);
	eq = strchr(open, '=');
	if (s[klen - 1] != ']' || !eq || (size_t)(eq - open - 1) >= sizeof(field)) {
		rules_load_error(L, n, "write roots[FIELD=VALUE] or toolkits[FIELD=VALUE]",
				 "malformed selector '%s'", s);
		return -1;
	}
	memcpy(field, open + 1, (size_t)(eq - open - 1));
	field[eq - open - 1] = '\0';
	if (s[0] == 'r') {
		fields = root_fields;
		n_fields = sizeof(root_fields) / sizeof(root_fields[0]);
	} else {
		fields = tk_fields;
		n_fields = sizeof(tk_fields) / sizeof(tk_fields[0]);
	}
	for (i = 0; i < n_fields && strcmp(field, fields[i]); i++)
		;
	if (i == n_fields) {
		rules_load_unknown(L, n, "selector field", field, fields, n_fields);
		return -1;
	}
	{
		char val[256];
		size_t vlen = klen - 1 - (size_t)(eq + 1 - s);

		if (vlen >= sizeof(val) || !vlen) {
			rules_load_error(L, n, NULL, "malformed selector '%s'", s);
			return -1;
		}
		memcpy(val, eq + 1, vlen);
		val[vlen] = '\0';
		return rules_syntax_template(L, n, val, vars);
	}
}
