/*
 * The loader's entry points and the plain sections of ripple.yml:
 * version, toolkits, roots, sources, axes and policy. Rule sections live
 * in node.c, targets and drift checks in refs.c, whole-model checks in
 * check.c.
 */
#include "rules/rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/spell.h"
#include "rules/load.h"
#include "rules/yaml.h"
#include "base/banned.h"

#define RULES_FILE_MAX (64u * 1024 * 1024)

static const char *const top_keys[] = {
	"version", "toolkits", "roots", "sources", "axes", "artifacts",
	"tests", "releases", "targets", "checks", "runners", "policy", NULL,
};

static void
load_toolkit(struct rules_load *L, const struct rules_ynode *k,
	     const struct rules_ynode *v, struct rules_toolkit *t)
{
	static const char *const keys[] = { "version", "home", NULL };
	const struct rules_ynode *f;
	char what[160];

	snprintf(what, sizeof(what), "toolkit '%s'", k->str);
	t->name = k->str;
	t->pos = rules_load_pos(k);
	if (rules_load_keys(L, v, what, keys))
		return;
	f = rules_ynode_get(v, "version");
	if (!f)
		rules_load_error(L, k, "add version: MAJOR.MINOR.PATCH, e.g. 12.9.1",
				 "toolkit '%s' has no 'version'", k->str);
	else if (!rules_load_string(L, f, "version", &t->version) &&
		 rules_syntax_triple(t->version, &t->major, &t->minor,
				     &t->patch))
		rules_load_error(L, f, "write MAJOR.MINOR.PATCH, e.g. 12.9.1",
				 "malformed toolkit version '%s'", t->version);
	f = rules_ynode_get(v, "home");
	if (f)
		rules_load_string(L, f, "home", &t->home);
}

/* Normalize a root path in place into the arena: no trailing '/'. */
static const char *
root_path(struct rules_load *L, const struct rules_ynode *n, const char *s)
{
	size_t len = strlen(s);
	const char *p;

	while (len > 1 && s[len - 1] == '/')
		len--;
	if (!len || s[0] == '/')
		goto bad;
	if (len == 1 && s[0] == '.')
		return ".";
	for (p = s; p < s + len;) {
		size_t c = strcspn(p, "/");

		if (c > (size_t)(s + len - p))
			c = (size_t)(s + len - p);
		if (!c || (c == 1 && p[0] == '.') ||
		    (c == 2 && p[0] == '.' && p[1] == '.') ||
		    memchr(p, '*', c) || memchr(p, '?', c) || memchr(p, '[', c))
			goto bad;
		p += c + 1;
	}
	{
		char *d = arena_strndup(&L->r->arena, s, len);

		if (!d)
			rules_load_nomem(L);
		return d;
	}
bad:
	rules_load_error(L, n,
			 "write a directory relative to the repository root, "
			 "e.g. cuda_bindings",
			 "malformed root path '%s'", s);
	return NULL;
}

static void
load_patterns(struct rules_load *L, const struct rules_ynode *n,
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

static void
load_globs(struct rules_load *L, const struct rules_ynode *n,
	   const char *field, const char ***out, size_t *n_out)
{
	size_t i;

	if (rules_load_strings(L, n, field, 1, out, n_out))
		return;
	for (i = 0; i < *n_out; i++)
		rules_syntax_glob(L, n->kind == RULES_YNODE_SEQ ? n->items[i] : n,
				  (*out)[i]);
}

static const char *const root_default_exclude[] = { "tests/**", "docs/**" };
static const char *const root_default_tests[] = { "tests/**" };

static const char *
derive_prefix(struct rules_load *L, const char *tag)
{
	size_t n = strcspn(tag, "0123456789*?[\\");
	char *d = arena_strndup(&L->r->arena, tag, n);

	if (!d)
		rules_load_nomem(L);
	return d;
}

static void
load_root(struct rules_load *L, const struct rules_ynode *k,
	  const struct rules_ynode *v, struct rules_root *root)
{
	static const char *const keys[] = {
		"path", "role", "toolkit", "tags", "exclude-tags",
		"tag-prefix", "fallback-version", "fallback-pretend",
		"node-length", "exclude", "tests", NULL,
	};
	static const char *const roles[] = { "current", "maintenance" };
	const struct rules_ynode *f;
	const char *s;
	unsigned long long u;
	char what[160];
	size_t i;

	snprintf(what, sizeof(what), "root '%s'", k->str);
	root->name = k->str;
	root->pos = rules_load_pos(k);
	root->node_length = 9;
	root->exclude = (const char **)root_default_exclude;
	root->n_exclude = 2;
	root->tests = (const char **)root_default_tests;
	root->n_tests = 1;
	if (rules_load_keys(L, v, what, keys))
		return;
	f = rules_ynode_get(v, "path");
	if (!f)
		rules_load_error(L, k, "add path: DIRECTORY",
				 "root '%s' has no 'path'", k->str);
	else if (!rules_load_string(L, f, "path", &s))
		root->path = root_path(L, f, s);
	f = rules_ynode_get(v, "role");
	if (f && !rules_load_string(L, f, "role", &s)) {
		if (!strcmp(s, "current"))
			root->role = RULES_ROLE_CURRENT;
		else if (!strcmp(s, "maintenance"))
			root->role = RULES_ROLE_MAINTENANCE;
		else
			rules_load_unknown(L, f, "role", s, roles, 2);
	}
	f = rules_ynode_get(v, "toolkit");
	if (f && !rules_load_string(L, f, "toolkit", &root->toolkit) &&
	    !rules_find_toolkit(L->r, root->toolkit)) {
		const char *c[256];
		size_t n = 0;

		for (i = 0; i < L->r->n_toolkits && n < 256; i++)
			c[n++] = L->r->toolkits[i].name;
		rules_load_unknown(L, f, "toolkit", root->toolkit, c, n);
	}
	f = rules_ynode_get(v, "tags");
	if (f)
		load_globs(L, f, "tags", &root->tags, &root->n_tags);
	f = rules_ynode_get(v, "exclude-tags");
	if (f)
		load_globs(L, f, "exclude-tags", &root->exclude_tags,
			   &root->n_exclude_tags);
	f = rules_ynode_get(v, "tag-prefix");
	if (f)
		rules_load_string(L, f, "tag-prefix", &root->tag_prefix);
	else if (root->n_tags)
		root->tag_prefix = derive_prefix(L, root->tags[0]);
	f = rules_ynode_get(v, "fallback-version");
	if (f && !rules_load_string(L, f, "fallback-version",
				    &root->fallback_version) &&
	    rules_syntax_pep440(root->fallback_version))
		rules_load_error(L, f,
				 "write a PEP 440 version, e.g. 12.9.10.dev0",
				 "malformed fallback version '%s'",
				 root->fallback_version);
	f = rules_ynode_get(v, "fallback-pretend");
	if (f)
		rules_load_bool(L, f, "fallback-pretend", &root->fallback_pretend);
	f = rules_ynode_get(v, "node-length");
	if (f && !rules_load_uint(L, f, "node-length", 4, 40, &u))
		root->node_length = (unsigned)u;
	f = rules_ynode_get(v, "exclude");
	if (f)
		load_patterns(L, f, "exclude", &root->exclude, &root->n_exclude);
	f = rules_ynode_get(v, "tests");
	if (f)
		load_patterns(L, f, "tests", &root->tests, &root->n_tests);
}

static void
load_source(struct rules_load *L, const struct rules_ynode *k,
	    const struct rules_ynode *v, struct rules_source *src)
{
	static const char *const keys[] = { "paths", "exclude", NULL };
	const struct rules_ynode *f;
	char what[160];

	snprintf(what, sizeof(what), "source '%s'", k->str);
	src->name = k->str;
	src->pos = rules_load_pos(k);
	if (rules_load_keys(L, v, what, keys))
		return;
	f = rules_ynode_get(v, "paths");
	if (!f)
		rules_load_error(L, k, "add paths: [PATTERN, ...]",
				 "source '%s' has no 'paths'", k->str);
	else
		load_patterns(L, f, "paths", &src->paths, &src->n_paths);
	if (f && src->n_paths == 0 && f->kind == RULES_YNODE_SEQ)
		rules_load_error(L, f, NULL, "source '%s' has no paths", k->str);
	f = rules_ynode_get(v, "exclude");
	if (f)
		load_patterns(L, f, "exclude", &src->exclude, &src->n_exclude);
}

static int
value_ok(const char *s)
{
	if (!s[0])
		return 0;
	for (; *s; s++)
		if (*s == ',' || *s == '=' || *s == '[' || *s == ']' ||
		    *s == ' ' || *s == '\t' || *s == '\n' || *s == '*' ||
		    *s == '?')
			return 0;
	return 1;
}

static void
load_axis(struct rules_load *L, const struct rules_ynode *k,
	  const struct rules_ynode *v, struct rules_axis *ax)
{
	static const char *const keys[] = { "values", "experimental", NULL };
	const struct rules_ynode *vals = v, *exp = NULL;
	char what[160];
	size_t i, j;

	ax->name = k->str;
	ax->pos = rules_load_pos(k);
	if (!strcmp(k->str, "root") || strchr(k->str, '.')) {
		rules_load_error(L, k,
				 "'root' is the axis of roots; axis names "
				 "have no '.'",
				 "reserved or invalid axis name '%s'", k->str);
		return;
	}
	snprintf(what, sizeof(what), "axis '%s'", k->str);
	if (v->kind == RULES_YNODE_MAP) {
		rules_load_keys(L, v, what, keys);
		vals = rules_ynode_get(v, "values");
		exp = rules_ynode_get(v, "experimental");
		if (!vals) {
			rules_load_error(L, k, "add values: [VALUE, ...]",
					 "axis '%s' has no 'values'", k->str);
			return;
		}
	}
	if (rules_load_strings(L, vals, "values", 0, &ax->values,
			       &ax->n_values))
		return;
	if (!ax->n_values)
		rules_load_error(L, vals, NULL, "axis '%s' has no values", k->str);
	for (i = 0; i < ax->n_values; i++) {
		if (!value_ok(ax->values[i]))
			rules_load_error(L, vals->items[i],
					 "values have no spaces, ',', '=', "
					 "'[', ']', '*' or '?'",
					 "invalid value '%s' of axis '%s'",
					 ax->values[i], k->str);
		for (j = 0; j < i; j++)
			if (!strcmp(ax->values[i], ax->values[j]))
				rules_load_error(L, vals->items[i], NULL,
						 "duplicate value '%s' of axis '%s'",
						 ax->values[i], k->str);
	}
	if (exp && !rules_load_strings(L, exp, "experimental", 0,
				       &ax->experimental, &ax->n_experimental))
		for (i = 0; i < ax->n_experimental; i++) {
			for (j = 0; j < ax->n_values; j++)
				if (!strcmp(ax->experimental[i], ax->values[j]))
					break;
			if (j == ax->n_values)
				rules_load_unknown(L, exp->items[i], "value",
						   ax->experimental[i],
						   ax->values, ax->n_values);
		}
}

static void
load_policy(struct rules_load *L, const struct rules_ynode *v)
{
	static const char *const keys[] = {
		"unclaimed-paths", "ignore", "reuse", "trusted-refs", NULL,
	};
	static const char *const unclaimed[] = { "rebuild-all", "ignore" };
	static const char *const reuse[] = { "baseline", "any", "none" };
	struct rules_policy *p = &L->r->policy;
	const struct rules_ynode *f;
	const char *s;
	size_t i;

	p->pos = rules_load_pos(v);
	if (rules_load_keys(L, v, "policy", keys))
		return;
	f = rules_ynode_get(v, "unclaimed-paths");
	if (f && !rules_load_string(L, f, "unclaimed-paths", &s)) {
		for (i = 0; i < 2 && strcmp(s, unclaimed[i]); i++)
			;
		if (i == 2)
			rules_load_unknown(L, f, "unclaimed-paths policy", s,
					   unclaimed, 2);
		else
			p->unclaimed_paths = (enum rules_unclaimed)i;
	}
	f = rules_ynode_get(v, "ignore");
	if (f)
		load_patterns(L, f, "ignore", &p->ignore, &p->n_ignore);
	f = rules_ynode_get(v, "reuse");
	if (f && !rules_load_string(L, f, "reuse", &s)) {
		for (i = 0; i < 3 && strcmp(s, reuse[i]); i++)
			;
		if (i == 3)
			rules_load_unknown(L, f, "reuse policy", s, reuse, 3);
		else
			p->reuse = (enum rules_reuse)i;
	}
	f = rules_ynode_get(v, "trusted-refs");
	if (f)
		load_globs(L, f, "trusted-refs", &p->trusted_refs,
			   &p->n_trusted_refs);
}

/* A section's map (NULL when absent or null); reports other shapes. */
static const struct rules_ynode *
section(struct rules_load *L, const struct rules_ynode *doc, const char *key)
{
	const struct rules_ynode *v = rules_ynode_get(doc, key);

	if (!v || rules_ynode_is_null(v))
		return NULL;
	if (v->kind != RULES_YNODE_MAP) {
		rules_load_error(L, v, NULL, "'%s': expected a map, got %s", key,
				 rules_ynode_kind_name(v));
		return NULL;
	}
	return v;
}

#define LOAD_SECTION(L, doc, key, arr, count, fn, what)                           \
	do {                                                                  \
		const struct rules_ynode *m_ = section(L, doc, key);          \
		size_t i_;                                                    \
		if (!m_ || !m_->n)                                            \
			break;                                                \
		arr = rules_load_alloc(L, m_->n * sizeof(*(arr)));            \
		if (!(arr))                                                   \
			return;                                               \
		count = m_->n;                                                \
		for (i_ = 0; i_ < m_->n; i_++) {                              \
			rules_load_name(L, m_->items[2 * i_], what);          \
			fn(L, m_->items[2 * i_], m_->items[2 * i_ + 1],       \
			   &(arr)[i_]);                                       \
			if (rules_load_failed_nomem(L))                       \
				return;                                       \
		}                                                             \
	} while (0)

static void
collect_names(struct rules_load *L, const struct rules_ynode *doc,
	      const char *key, const char ***out, size_t *n_out)
{
	const struct rules_ynode *m = rules_ynode_get(doc, key);
	size_t i;

	if (!m || m->kind != RULES_YNODE_MAP || !m->n)
		return;
	*out = rules_load_alloc(L, m->n * sizeof(**out));
	if (!*out)
		return;
	for (i = 0; i < m->n; i++)
		(*out)[i] = m->items[2 * i]->str;
	*n_out = m->n;
}

static void
load_doc(struct rules_load *L, const struct rules_ynode *doc)
{
	struct rules *r = L->r;
	const struct rules_ynode *f;
	unsigned long long u;

	if (doc->kind != RULES_YNODE_MAP) {
		rules_load_error(L, doc, "start with `version: 1`",
				 "expected a map of sections at the top level, "
				 "got %s", rules_ynode_kind_name(doc));
		return;
	}
	rules_load_keys(L, doc, "the rules file", top_keys);
	f = rules_ynode_get(doc, "version");
	if (!f) {
		rules_load_error(L, doc, "start the file with `version: 1`",
				 "missing 'version'");
	} else if (f->kind == RULES_YNODE_SCALAR && f->plain &&
		   !strcmp(f->str, "1")) {
		r->version = RULES_SCHEMA_VERSION;
	} else if (f->kind == RULES_YNODE_SCALAR && !rules_ynode_is_null(f)) {
		rules_load_error(L, f, "this ripple reads `version: 1`",
				 "unsupported rules version '%s'", f->str);
	} else {
		rules_load_uint(L, f, "version", 1, 1, &u);
	}
	LOAD_SECTION(L, doc, "toolkits", r->toolkits, r->n_toolkits,
		     load_toolkit, "toolkit");
	LOAD_SECTION(L, doc, "roots", r->roots, r->n_roots, load_root, "root");
	LOAD_SECTION(L, doc, "sources", r->sources, r->n_sources, load_source,
		     "source");
	LOAD_SECTION(L, doc, "axes", r->axes, r->n_axes, load_axis, "axis");
	collect_names(L, doc, "artifacts", &L->art_names, &L->n_art_names);
	collect_names(L, doc, "tests", &L->test_names, &L->n_test_names);
	if (rules_load_failed_nomem(L))
		return;
	f = section(L, doc, "artifacts");
	if (f)
		rules_load_nodes(L, f, RULES_NODE_ARTIFACT);
	f = section(L, doc, "tests");
	if (f && !rules_load_failed_nomem(L))
		rules_load_nodes(L, f, RULES_NODE_TEST);
	f = section(L, doc, "releases");
	if (f && !rules_load_failed_nomem(L))
		rules_load_releases(L, f);
	f = section(L, doc, "targets");
	if (f && !rules_load_failed_nomem(L))
		rules_load_targets(L, f);
	f = section(L, doc, "checks");
	if (f && !rules_load_failed_nomem(L))
		rules_load_checks(L, f);
	f = section(L, doc, "runners");
	if (f && !rules_load_failed_nomem(L))
		rules_load_runners(L, f);
	f = rules_ynode_get(doc, "policy");
	if (f && !rules_ynode_is_null(f) && !rules_load_failed_nomem(L))
		load_policy(L, f);
	if (!rules_load_failed_nomem(L))
		rules_check_model(L);
}

static void
merge_errors(struct rules_load *L, struct error_list *errors)
{
	size_t i;

	error_list_sort(&L->errors);
	if (errors) {
		for (i = 0; i < L->errors.n; i++)
			error_list_add(errors, &L->errors.items[i]);
		errors->dropped += L->errors.dropped;
	}
	error_list_release(&L->errors);
}

int
rules_load_buffer(const char *display, const char *text, size_t len,
		  struct rules **out, struct error_list *errors)
{
	struct rules_load L;
	struct rules_ynode *doc = NULL;
	struct rules *r;
	char *copy;

	*out = NULL;
	memset(&L, 0, sizeof(L));
	L.file = display ? display : "ripple.yml";
	error_list_init(&L.errors, errors ? errors->limit : 0);
	r = mem_calloc(1, sizeof(*r));
	if (!r) {
		rules_load_nomem(&L);
		merge_errors(&L, errors);
		return ERROR_NOMEM;
	}
	arena_init(&r->arena);
	L.r = r;
	r->file = rules_load_strdup(&L, L.file);
	copy = arena_alloc(&r->arena, len + 1);
	if (!copy)
		rules_load_nomem(&L);
	if (!L.code) {
		memcpy(copy, text, len);
		r->text = copy;
		r->text_len = len;
		rules_yaml_parse(&L, copy, len, &doc);
	}
	if (!L.code && !doc)
		rules_load_error_at(&L, 1, 1, "start the file with `version: 1`",
				    "empty rules file");
	else if (doc && !rules_load_failed_nomem(&L))
		load_doc(&L, doc);
	if (L.code) {
		int code = L.code;

		merge_errors(&L, errors);
		rules_free(r);
		return code;
	}
	merge_errors(&L, errors);
	*out = r;
	return 0;
}

int
rules_load_file(const char *path, const char *display, struct rules **out,
		struct error_list *errors)
{
	struct error e;
	FILE *f;
	char *data = NULL;
	size_t len = 0, cap = 0, got;
	int rc, code;

	*out = NULL;
	if (!display)
		display = path;
	error_init(&e);
	f = fopen(path, "rb");
	if (!f) {
		code = errno == ENOENT ? ERROR_NOT_FOUND : ERROR_IO;
		error_at(&e, code, display, 0, 0, "cannot open: %s",
			 strerror(errno));
		if (code == ERROR_NOT_FOUND)
			error_hint(&e, "write a ripple.yml or pass --rules FILE");
		goto fail;
	}
	for (;;) {
		if (cap - len < 65536) {
			char *d;

			cap = cap ? cap * 2 : 65536;
			d = mem_realloc(data, cap);
			if (!d) {
				code = error_set(&e, ERROR_NOMEM, "out of memory");
				goto fail;
			}
			data = d;
		}
		got = fread(data + len, 1, cap - len, f);
		len += got;
		if (len > RULES_FILE_MAX) {
			code = error_at(&e, ERROR_INVALID, display, 0, 0,
					"rules file larger than %u MiB",
					RULES_FILE_MAX >> 20);
			goto fail;
		}
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		code = error_at(&e, ERROR_IO, display, 0, 0, "cannot read: %s",
				strerror(errno));
		goto fail;
	}
	fclose(f);
	rc = rules_load_buffer(display, data, len, out, errors);
	mem_free(data);
	return rc;
fail:
	if (f)
		fclose(f);
	mem_free(data);
	if (errors)
		error_list_add(errors, &e);
	return code;
}

void
rules_free(struct rules *r)
{
	if (!r)
		return;
	arena_release(&r->arena);
	mem_free(r);
}
