/*
 * Sections that refer to the rest of the model: `targets:` (rule names,
 * "artifacts", "tests", id globs) and drift `checks:` (values read from
 * these rules, YAML or JSON keys, regex groups, literals; only their shape
 * is checked here).
 */
#include "rules/load.h"

#include <stdio.h>
#include <string.h>

#include "base/regex.h"
#include "rules/yaml.h"
#include "base/banned.h"

static int
is_rule_name(const struct rules *r, const char *s)
{
	return rules_find_artifact(r, s) || rules_find_test(r, s) ||
	       rules_find_release(r, s);
}

static void
load_target(struct rules_load *L, const struct rules_ynode *k,
	    const struct rules_ynode *v, const struct rules_ynode *all,
	    struct rules_target *t)
{
	size_t i, j, n = 0;
	const char **c;

	t->name = k->str;
	t->pos = rules_load_pos(k);
	if (rules_load_strings(L, v, "targets", 0, &t->refs, &t->n_refs))
		return;
	c = rules_load_alloc(L, (L->r->n_artifacts + L->r->n_tests +
				 L->r->n_releases + all->n + 2) * sizeof(*c));
	if (!c)
		return;
	c[n++] = "artifacts";
	c[n++] = "tests";
	for (j = 0; j < L->r->n_artifacts; j++)
		c[n++] = L->r->artifacts[j].name;
	for (j = 0; j < L->r->n_tests; j++)
		c[n++] = L->r->tests[j].name;
	for (j = 0; j < L->r->n_releases; j++)
		c[n++] = L->r->releases[j].name;
	for (j = 0; j < all->n; j++)
		if (strcmp(all->items[2 * j]->str, k->str))
			c[n++] = all->items[2 * j]->str;
	for (i = 0; i < t->n_refs; i++) {
		const char *s = t->refs[i];

		if (strpbrk(s, "*?[:")) {
			rules_syntax_glob(L, v->items[i], s);
			continue;
		}
		for (j = 0; j < n && strcmp(c[j], s); j++)
			;
		if (j == n && !is_rule_name(L->r, s))
			rules_load_unknown(L, v->items[i], "target entry", s, c, n);
	}
}

void
rules_load_targets(struct rules_load *L, const struct rules_ynode *m)
{
	size_t i;

	if (!m->n)
		return;
	L->r->targets = rules_load_alloc(L, m->n * sizeof(*L->r->targets));
	if (!L->r->targets)
		return;
	L->r->n_targets = m->n;
	for (i = 0; i < m->n && !rules_load_failed_nomem(L); i++) {
		rules_load_name(L, m->items[2 * i], "target");
		load_target(L, m->items[2 * i], m->items[2 * i + 1], m,
			    &L->r->targets[i]);
	}
}

/*
 * "roots.NAME.FIELD", "toolkits.NAME.FIELD", "sources.NAME.FIELD" or
 * "axes.NAME".
 */
static void
check_rule_path(struct rules_load *L, const struct rules_ynode *n,
		const char *s)
{
	static const char *const root_fields[] = {
		"path", "role", "toolkit", "tags", "exclude-tags", "tag-prefix",
		"fallback-version", "fallback-pretend", "node-length",
	};
	static const char *const tk_fields[] = {
		"version", "home", "major", "minor", "patch", "major.minor",
	};
	static const char *const src_fields[] = { "paths", "exclude" };
	static const char *const kinds[] = {
		"roots", "toolkits", "sources", "axes",
	};
	char kind[32], name[160];
	const char *dot = strchr(s, '.'), *dot2, *field;
	size_t i;

	if (!dot || (size_t)(dot - s) >= sizeof(kind))
		goto bad;
	memcpy(kind, s, (size_t)(dot - s));
	kind[dot - s] = '\0';
	dot2 = strchr(dot + 1, '.');
	if (!strcmp(kind, "axes")) {
		if (dot2)
			goto bad;
		if (!rules_find_axis(L->r, dot + 1)) {
			const char *c[256];
			size_t k = 0;

			for (i = 0; i < L->r->n_axes && k < 256; i++)
				c[k++] = L->r->axes[i].name;
			rules_load_unknown(L, n, "axis", dot + 1, c, k);
		}
		return;
	}
	if (!dot2 || (size_t)(dot2 - dot - 1) >= sizeof(name) || dot2 == dot + 1)
		goto bad;
	memcpy(name, dot + 1, (size_t)(dot2 - dot - 1));
	name[dot2 - dot - 1] = '\0';
	field = dot2 + 1;
	if (!strcmp(kind, "roots")) {
		if (!rules_find_root(L->r, name)) {
			const char *c[256];
			size_t k = 0;

			for (i = 0; i < L->r->n_roots && k < 256; i++)
				c[k++] = L->r->roots[i].name;
			rules_load_unknown(L, n, "root", name, c, k);
			return;
		}
		for (i = 0; i < 9 && strcmp(root_fields[i], field); i++)
			;
		if (i == 9)
			rules_load_unknown(L, n, "root field", field, root_fields, 9);
		return;
	}
	if (!strcmp(kind, "toolkits")) {
		if (!rules_find_toolkit(L->r, name)) {
			const char *c[256];
			size_t k = 0;

			for (i = 0; i < L->r->n_toolkits && k < 256; i++)
				c[k++] = L->r->toolkits[i].name;
			rules_load_unknown(L, n, "toolkit", name, c, k);
			return;
		}
		for (i = 0; i < 6 && strcmp(tk_fields[i], field); i++)
			;
		if (i == 6)
			rules_load_unknown(L, n, "toolkit field", field, tk_fields, 6);
		return;
	}
	if (!strcmp(kind, "sources")) {
		if (!rules_find_source(L->r, name)) {
			const char *c[256];
			size_t k = 0;

			for (i = 0; i < L->r->n_sources && k < 256; i++)
				c[k++] = L->r->sources[i].name;
			rules_load_unknown(L, n, "source", name, c, k);
			return;
		}
		if (strcmp(field, "paths") && strcmp(field, "exclude"))
			rules_load_unknown(L, n, "source field", field,
					   src_fields, 2);
		return;
	}
	rules_load_unknown(L, n, "rules section", kind, kinds, 4);
	return;
bad:
	rules_load_error(L, n,
			 "write roots.NAME.FIELD, toolkits.NAME.FIELD, "
			 "sources.NAME.FIELD or axes.NAME",
			 "malformed rule reference '%s'", s);
}

static void
load_value(struct rules_load *L, const struct rules_ynode *m,
	   struct rules_value_ref *ref)
{
	static const char *const keys[] = {
		"rule", "file", "key", "regex", "value", NULL,
	};
	const struct rules_ynode *rule, *file, *key, *re, *val;
	int kinds;

	ref->pos = rules_load_pos(m);
	if (rules_load_keys(L, m, "check value", keys))
		return;
	rule = rules_ynode_get(m, "rule");
	file = rules_ynode_get(m, "file");
	key = rules_ynode_get(m, "key");
	re = rules_ynode_get(m, "regex");
	val = rules_ynode_get(m, "value");
	kinds = !!rule + !!file + !!val;
	if (kinds != 1) {
		rules_load_error(L, m, "write {rule: ...}, {file: F, key: K}, "
				 "{file: F, regex: RE} or {value: V}",
				 "a check value needs exactly one of 'rule', "
				 "'file' and 'value'");
		return;
	}
	if (rule) {
		ref->kind = RULES_VALUE_RULE;
		if (!rules_load_string(L, rule, "rule", &ref->path))
			check_rule_path(L, rule, ref->path);
	} else if (val) {
		ref->kind = RULES_VALUE_LITERAL;
		rules_load_string(L, val, "value", &ref->literal);
	}
	if ((rule || val) && (key || re)) {
		rules_load_error(L, key ? key : re, NULL,
				 "'%s' goes with 'file'", key ? "key" : "regex");
		return;
	}
	if (!file)
		return;
	if (rules_load_string(L, file, "file", &ref->file))
		return;
	rules_syntax_pattern(L, file, ref->file);
	if (!!key + !!re != 1) {
		rules_load_error(L, m, "add key: a.b.c (YAML, JSON) or regex: 'x = \"([^\"]+)\"'",
				 "'file' needs exactly one of 'key' and 'regex'");
		return;
	}
	if (key) {
		size_t len = strlen(ref->file);

		if (rules_load_string(L, key, "key", &ref->path))
			return;
		if (len > 5 && !strcmp(ref->file + len - 5, ".json"))
			ref->kind = RULES_VALUE_JSON;
		else if ((len > 4 && !strcmp(ref->file + len - 4, ".yml")) ||
			 (len > 5 && !strcmp(ref->file + len - 5, ".yaml")))
			ref->kind = RULES_VALUE_YAML;
		else
			rules_load_error(L, file, "use 'regex' for other files",
					 "'key' reads .json, .yml and .yaml files, "
					 "not '%s'", ref->file);
		return;
	}
	ref->kind = RULES_VALUE_REGEX;
	if (!rules_load_string(L, re, "regex", &ref->regex)) {
		char msg[160];
		size_t groups = 0;

		if (regex_group1(ref->regex, 0, NULL, &groups, NULL, NULL,
				 msg, sizeof(msg)) < 0) {
			rules_load_error(L, re, "write a POSIX extended regex",
					 "invalid regex '%s': %s", ref->regex, msg);
			return;
		}
		if (groups != 1)
			rules_load_error(L, re, "mark the value with one (...) group",
					 "regex '%s' has %zu groups, not 1",
					 ref->regex, groups);
	}
}

/* `NAME: {same-content: [PATH...], roots: [ROOT...]}`. */
static void
load_same_content(struct rules_load *L, const struct rules_ynode *k,
		  const struct rules_ynode *v, struct rules_check *c)
{
	static const char *const keys[] = { "same-content", "roots", NULL };
	const struct rules_ynode *f;
	char what[160];
	size_t i;

	rules_load_what(what, sizeof(what), "check", k->str);
	c->same_content = 1;
	if (rules_load_keys(L, v, what, keys))
		return;
	f = rules_ynode_get(v, "roots");
	if (f && !rules_load_strings(L, f, "roots", 0, &c->same_roots,
				     &c->n_same_roots)) {
		if (c->n_same_roots < 2)
			rules_load_error(L, f, "name at least two roots",
					 "check '%s' compares fewer than two "
					 "roots", k->str);
		for (i = 0; i < c->n_same_roots; i++)
			if (!rules_find_root(L->r, c->same_roots[i]))
				rules_load_error(L, f->items[i], NULL,
						 "check '%s': unknown root "
						 "'%s'", k->str,
						 c->same_roots[i]);
	}
	f = rules_ynode_get(v, "same-content");
	if (!f) {
		rules_load_error(L, k, "add same-content: [PATH, ...]",
				 "check '%s' has no 'same-content'", k->str);
		return;
	}
	if (rules_load_strings(L, f, "same-content", 0, &c->same_paths,
			       &c->n_same_paths))
		return;
	if (!c->n_same_roots && c->n_same_paths < 2)
		rules_load_error(L, f, "list at least two paths, or add roots: "
				 "[A, B] to compare root-relative paths",
				 "check '%s' compares fewer than two files",
				 k->str);
	for (i = 0; i < c->n_same_paths; i++) {
		const char *p = c->same_paths[i];

		if (rules_syntax_pattern(L, f->items[i], p))
			continue;
		if (strpbrk(p, "*?[\\"))
			rules_load_error(L, f->items[i], "list each file",
					 "check '%s': '%s' is a pattern; "
					 "same-content takes paths", k->str,
					 p);
	}
}

void
rules_load_checks(struct rules_load *L, const struct rules_ynode *m)
{
	size_t i, j;

	if (!m->n)
		return;
	L->r->checks = rules_load_alloc(L, m->n * sizeof(*L->r->checks));
	if (!L->r->checks)
		return;
	L->r->n_checks = m->n;
	for (i = 0; i < m->n && !rules_load_failed_nomem(L); i++) {
		const struct rules_ynode *k = m->items[2 * i];
		const struct rules_ynode *v = m->items[2 * i + 1];
		struct rules_check *c = &L->r->checks[i];

		rules_load_name(L, k, "check");
		c->name = k->str;
		c->pos = rules_load_pos(k);
		if (v->kind == RULES_YNODE_MAP) {
			load_same_content(L, k, v, c);
			continue;
		}
		if (v->kind != RULES_YNODE_SEQ) {
			rules_load_error(L, v, "write [{rule: ...}, {file: ...}]",
					 "check '%s': expected a list of values, got %s",
					 k->str, rules_ynode_kind_name(v));
			continue;
		}
		if (v->n < 2)
			rules_load_error(L, k, "list at least two values to compare",
					 "check '%s' compares fewer than two values",
					 k->str);
		c->values = rules_load_alloc(L, (v->n ? v->n : 1) * sizeof(*c->values));
		if (!c->values)
			return;
		c->n_values = v->n;
		for (j = 0; j < v->n; j++)
			load_value(L, v->items[j], &c->values[j]);
	}
}
