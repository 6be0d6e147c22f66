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
#include <unistd.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/file.h"
#include "base/mem.h"
#include "base/path.h"
#include "base/spell.h"
#include "rules/load.h"
#include "rules/yaml.h"
#include "base/banned.h"

#define RULES_FILE_MAX (64u * 1024 * 1024)

static const char *const top_keys[] = {
	"version", "toolkits", "roots", "sources", "axes", "artifacts",
	"tests", "releases", "targets", "checks", "runners", "policy", NULL,
};

/* A string and where it was: sorting these keeps the first one first. */
struct named {
	const char *name;
	size_t pos;
};

static int
cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int
has_named(const struct named *v, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v[mid].name, name);

		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void
load_axis(struct rules_load *L, const struct rules_ynode *k,
	  const struct rules_ynode *v, struct rules_axis *ax)
{
	static const char *const keys[] = { "values", "experimental", NULL };
	const struct rules_ynode *vals = v, *exp = NULL;
	struct named *sorted;
	char what[160];
	size_t i;

	ax->name = k->str;
	ax->pos = rules_load_pos(k);
	if (!strcmp(k->str, "root") || strchr(k->str, '.')) {
		rules_load_error(L, k,
				 "'root' is the axis of roots; axis names "
				 "have no '.'",
				 "reserved or invalid axis name '%s'", k->str);
		return;
	}
	rules_load_what(what, sizeof(what), "axis", k->str);
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
		struct buf text = BUF_INIT;

		if (rules_load_value_ok(ax->values[i]))
			continue;
		if (path_escape_controls(&text, ax->values[i], NULL))
			rules_load_nomem(L);
		else
			rules_load_error(L, vals->items[i],
					 "values have no spaces, control "
					 "characters, ',', '=', '[', ']', '*' "
					 "or '?'",
					 "invalid value '%s' of axis '%s'",
					 text.data, k->str);
		buf_release(&text);
	}
	/* Sorted, not pairwise: an axis may have 100,000 values. */
	sorted = mem_alloc((ax->n_values + 1) * sizeof(*sorted));
	if (!sorted) {
		rules_load_nomem(L);
		return;
	}
	for (i = 0; i < ax->n_values; i++) {
		sorted[i].name = ax->values[i];
		sorted[i].pos = i;
	}
	qsort(sorted, ax->n_values, sizeof(*sorted), cmp_named);
	for (i = 1; i < ax->n_values; i++)
		if (!strcmp(sorted[i].name, sorted[i - 1].name))
			rules_load_error(L, vals->items[sorted[i].pos], NULL,
					 "duplicate value '%s' of axis '%s'",
					 sorted[i].name, k->str);
	if (exp && !rules_load_strings(L, exp, "experimental", 0,
				       &ax->experimental, &ax->n_experimental))
		for (i = 0; i < ax->n_experimental; i++)
			if (!has_named(sorted, ax->n_values,
				       ax->experimental[i]))
				rules_load_unknown(L, exp->items[i], "value",
						   ax->experimental[i],
						   ax->values, ax->n_values);
	mem_free(sorted);
}

static void
load_policy(struct rules_load *L, const struct rules_ynode *v)
{
	static const char *const keys[] = {
		"unclaimed-paths", "ignore", "reuse", "max-nodes",
		"max-edges", "reuse-versions", "trusted-refs", NULL,
	};
	static const char *const unclaimed[] = { "rebuild-all", "ignore" };
	static const char *const reuse[] = { "baseline", "any", "none" };
	static const char *const versions[] = { "tag", "exact" };
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
		rules_load_patterns(L, f, "ignore", &p->ignore, &p->n_ignore);
	f = rules_ynode_get(v, "reuse");
	if (f && !rules_load_string(L, f, "reuse", &s)) {
		for (i = 0; i < 3 && strcmp(s, reuse[i]); i++)
			;
		if (i == 3)
			rules_load_unknown(L, f, "reuse policy", s, reuse, 3);
		else
			p->reuse = (enum rules_reuse)i;
	}
	f = rules_ynode_get(v, "max-nodes");
	if (f)
		rules_load_uint(L, f, "max-nodes", 1, RULES_MAX_NODES_LIMIT,
				&p->max_nodes);
	f = rules_ynode_get(v, "max-edges");
	if (f)
		rules_load_uint(L, f, "max-edges", 1, RULES_MAX_EDGES_LIMIT,
				&p->max_edges);
	f = rules_ynode_get(v, "reuse-versions");
	if (f && !rules_load_string(L, f, "reuse-versions", &s)) {
		for (i = 0; i < 2 && strcmp(s, versions[i]); i++)
			;
		if (i == 2)
			rules_load_unknown(L, f, "reuse-versions policy", s,
					   versions, 2);
		else
			p->reuse_versions = (enum rules_reuse_versions)i;
	}
	f = rules_ynode_get(v, "trusted-refs");
	if (f)
		rules_load_globs(L, f, "trusted-refs", &p->trusted_refs,
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

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of section `key` in file order (*out) and sorted (*sorted). */
static void
collect_names(struct rules_load *L, const struct rules_ynode *doc,
	      const char *key, const char ***out, const char ***sorted,
	      size_t *n_out)
{
	const struct rules_ynode *m = rules_ynode_get(doc, key);
	size_t i;

	if (!m || m->kind != RULES_YNODE_MAP || !m->n)
		return;
	*out = rules_load_alloc(L, m->n * sizeof(**out));
	*sorted = rules_load_alloc(L, m->n * sizeof(**sorted));
	if (!*out || !*sorted)
		return;
	for (i = 0; i < m->n; i++)
		(*out)[i] = (*sorted)[i] = m->items[2 * i]->str;
	qsort(*sorted, m->n, sizeof(**sorted), cmp_str);
	*n_out = m->n;
}

/* Index the sections loaded so far (struct rules_index). */
static void
index_names(struct rules_load *L)
{
	if (!rules_load_failed_nomem(L) && rules_index_names(L->r))
		rules_load_nomem(L);
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
		     rules_load_toolkit, "toolkit");
	index_names(L);
	LOAD_SECTION(L, doc, "roots", r->roots, r->n_roots, rules_load_root, "root");
	index_names(L);
	LOAD_SECTION(L, doc, "sources", r->sources, r->n_sources, rules_load_source,
		     "source");
	index_names(L);
	LOAD_SECTION(L, doc, "axes", r->axes, r->n_axes, load_axis, "axis");
	index_names(L);
	collect_names(L, doc, "artifacts", &L->art_names, &L->art_sorted,
		      &L->n_art_names);
	collect_names(L, doc, "tests", &L->test_names, &L->test_sorted,
		      &L->n_test_names);
	if (rules_load_failed_nomem(L))
		return;
	f = section(L, doc, "artifacts");
	if (f)
		rules_load_nodes(L, f, RULES_NODE_ARTIFACT);
	index_names(L);
	f = section(L, doc, "tests");
	if (f && !rules_load_failed_nomem(L))
		rules_load_nodes(L, f, RULES_NODE_TEST);
	index_names(L);
	f = section(L, doc, "releases");
	if (f && !rules_load_failed_nomem(L))
		rules_load_releases(L, f);
	index_names(L);
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
	if (!rules_load_failed_nomem(L))
		rules_check_groups(L);
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

/*
 * The YAML tree of text: remembered (files->memo) under its key, else
 * parsed, and then remembered when it parsed without a problem. With
 * text NULL (rules_load_remembered) only the memo is asked: *doc NULL and
 * 1 when it has no tree. Returns 0 or 1.
 */
static int
parse(struct rules_load *L, const char *text, size_t len,
      struct rules_ynode **doc)
{
	const struct rules_tree_memo *memo = L->files ? L->files->memo : NULL;
	struct buf b = BUF_INIT;
	const char *key = memo ? memo->key : NULL;
	char made[33];

	*doc = NULL;
	if (memo && !key && text && memo->key_of &&
	    !memo->key_of(memo->payload, text, len, made))
		key = made;
	if (!key && text) {
		rules_yaml_parse(L, text, len, doc);
		return 0;
	}
	if (key && memo->get(memo->payload, key, &b) == 1 &&
	    rules_ytree_decode(L, b.data, b.len, key, doc) != 1) {
		buf_release(&b);
		return 0;	/* decoded, or out of memory (in L) */
	}
	if (!text) {
		buf_release(&b);
		return 1;
	}
	rules_yaml_parse(L, text, len, doc);
	if (memo->write && *doc && !L->code && !L->errors.n &&
	    !rules_ytree_encode(*doc, L->n_nodes, key, &b))
		memo->put(memo->payload, key, b.data, b.len);
	buf_release(&b);
	return 0;
}

int
rules_load_buffer(const char *display, const char *text, size_t len,
		  struct rules **out, struct error_list *errors)
{
	return rules_load_buffer_files(display, text, len, NULL, out, errors);
}

/* rules_load_buffer_files and rules_load_remembered (text NULL). */
static int
load(const char *display, const char *text, size_t len,
     const struct rules_files *files, struct rules **out,
     struct error_list *errors)
{
	struct rules_load L;
	struct rules_ynode *doc = NULL;
	struct rules *r;
	char *copy;

	*out = NULL;
	memset(&L, 0, sizeof(L));
	L.files = files;
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
	if (text) {
		copy = arena_alloc(&r->arena, len + 1);
		if (!copy) {
			rules_load_nomem(&L);
		} else {
			memcpy(copy, text, len);
			r->text = copy;
			r->text_len = len;
		}
	}
	if (!L.code && parse(&L, r->text, len, &doc) == 1) {
		/* nothing remembered: the caller reads the text */
		error_list_release(&L.errors);
		rules_free(r);
		return 1;
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
rules_load_buffer_files(const char *display, const char *text, size_t len,
			const struct rules_files *files, struct rules **out,
			struct error_list *errors)
{
	static const char empty[] = "";

	return load(display, text ? text : empty, text ? len : 0, files, out,
		    errors);
}

int
rules_load_remembered(const char *display, const struct rules_files *files,
		      struct rules **out, struct error_list *errors)
{
	*out = NULL;
	if (!files || !files->memo)
		return 1;
	return load(display, NULL, 0, files, out, errors);
}

int
rules_load_file(const char *path, const char *display, const char *root,
		struct rules **out, struct error_list *errors)
{
	return rules_load_file_memo(path, display, root, NULL, out, errors);
}

int
rules_load_file_memo(const char *path, const char *display, const char *root,
		     const struct rules_tree_memo *memo, struct rules **out,
		     struct error_list *errors)
{
	struct error e;
	FILE *f;
	char *data = NULL;
	size_t len = 0, cap = 0, got;
	int rc, code, fd;

	*out = NULL;
	if (!display)
		display = path;
	error_init(&e);
	fd = file_open_regular(path, display, &e);
	f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	if (!f) {
		if (fd >= 0) {
			close(fd);
			error_set(&e, ERROR_IO, "cannot open: %s",
				  strerror(errno));
		}
		code = e.code;
		if (code == ERROR_NOT_FOUND) {
			error_init(&e);
			error_at(&e, code, display, 0, 0, "cannot open: %s",
				 strerror(ENOENT));
			error_hint(&e, "write a ripple.yml or pass --rules FILE");
		} else {
			snprintf(e.file, sizeof(e.file), "%s", display);
		}
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
	f = NULL;
	{
		/* Matrix files (each: {from:}): repository paths. */
		char dir[4096];
		const char *slash = strrchr(path, '/');
		struct rules_files fs = { rules_files_read_dir, dir, memo };

		if (root && strlen(root) >= sizeof(dir)) {
			code = error_at(&e, ERROR_INVALID, display, 0, 0,
					"the repository's path is too long "
					"to read matrix files under it");
			goto fail;
		}
		if (root)
			snprintf(dir, sizeof(dir), "%s", root);
		else if (slash)
			snprintf(dir, sizeof(dir), "%.*s",
				 (int)(slash - path), path);
		else
			snprintf(dir, sizeof(dir), ".");
		rc = rules_load_buffer_files(display, data, len, &fs, out,
					     errors);
	}
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
	rules_index_release(r);
	arena_release(&r->arena);
	mem_free(r);
}
