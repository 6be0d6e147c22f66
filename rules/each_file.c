/*
 * Matrices read from a repository file (issue 26): `each: {from: ...}`
 * takes a rule's combinations from a YAML or JSON matrix file that lives
 * elsewhere in the repository (RAPIDS keeps PR and nightly test matrices
 * in one YAML), selected by a key path and a filter, each entry's fields
 * mapped onto axes. The matrix is read, not copied into the rules.
 */
#include "rules/load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "base/fnmatch.h"
#include "base/fsys.h"
#include "base/mem.h"
#include "base/path.h"
#include "rules/yaml.h"
#include "base/banned.h"

#define MATRIX_FILE_MAX (64u * 1024 * 1024)

int
rules_files_read_dir(void *payload, const char *path, char **data,
		     size_t *len, struct error *err)
{
	char dir[PATH_RESOLVED_MAX], where[PATH_RESOLVED_MAX];
	char full[2 * PATH_RESOLVED_MAX + 8];
	size_t cap = 0, n = 0;
	char *buf = NULL, *real;
	ssize_t got;
	int fd, rc;

	*data = NULL;
	*len = 0;
	if (!path[0] || path_leaves(path))
		return error_set(err, ERROR_INVALID, "'%s' leaves the "
				 "repository", path);
	real = fsys_realpath((const char *)payload);
	if (!real)
		return error_set(err, ERROR_IO, "cannot resolve '%s': %s",
				 (const char *)payload, strerror(errno));
	rc = (size_t)snprintf(dir, sizeof(dir), "%s", real) >= sizeof(dir);
	free(real);
	if (rc)
		return error_set(err, ERROR_INVALID, "'%s' resolves to a path "
				 "too long", (const char *)payload);
	rc = path_resolve_under(dir, path, 1, where, sizeof(where), err);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return error_set(err, ERROR_INVALID, "'%s' resolves to '%s', "
				 "outside the repository", path, where);
	snprintf(full, sizeof(full), "%s/%s", dir, path);
	fd = file_open_regular(full, path, err);
	if (fd < 0) {
		if (!err->hint[0])
			error_hint(err, "matrix files are repository paths, "
				   "read from the repository's root, not "
				   "from the rules file's folder");
		return fd;
	}
	for (;;) {
		if (cap - n < 65536) {
			char *d;

			cap = cap ? cap * 2 : 65536;
			d = cap > MATRIX_FILE_MAX + 65536 ? NULL
							  : mem_realloc(buf, cap);
			if (!d) {
				rc = cap > MATRIX_FILE_MAX + 65536
					? error_set(err, ERROR_INVALID, "'%s' "
						    "is larger than 64 MiB",
						    path)
					: error_set(err, ERROR_NOMEM,
						    "out of memory");
				goto fail;
			}
			buf = d;
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = error_set(err, ERROR_IO, "cannot read '%s': %s",
				       path, strerror(errno));
			goto fail;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
fail:
	close(fd);
	mem_free(buf);
	return rc;
}

/* The node at key path `key` ("a.b.0": map keys, list indexes), or NULL. */
static const struct rules_ynode *
at_path(const struct rules_ynode *n, const char *key)
{
	char part[256];

	while (n && *key) {
		size_t len = strcspn(key, ".");

		if (len >= sizeof(part))
			return NULL;
		memcpy(part, key, len);
		part[len] = '\0';
		key += len + (key[len] == '.');
		if (n->kind == RULES_YNODE_MAP) {
			n = rules_ynode_get(n, part);
		} else if (n->kind == RULES_YNODE_SEQ) {
			char *end;
			unsigned long i = strtoul(part, &end, 10);

			n = *part && !*end && i < n->n ? n->items[i] : NULL;
		} else {
			n = NULL;
		}
	}
	return n;
}

/* One axis of the mapping: the entry field it takes and how much of it. */
struct field_map {
	const char *axis;
	const char *field;
	unsigned parts;		/* first N dot-separated parts; 0: all */
};

static int
cmp_map(const void *a, const void *b)
{
	return strcmp(((const struct field_map *)a)->axis,
		      ((const struct field_map *)b)->axis);
}

static int
load_map(struct rules_load *L, const struct rules_ynode *v,
	 struct field_map **out, size_t *n_out)
{
	static const char *const keys[] = { "field", "parts", NULL };
	struct field_map *m;
	size_t i;

	if (v->kind != RULES_YNODE_MAP || !v->n) {
		rules_load_error(L, v, "write {AXIS: FIELD, ...}",
				 "'axes': expected a map of axes to fields");
		return -1;
	}
	m = rules_load_alloc(L, v->n * sizeof(*m));
	if (!m)
		return -1;
	for (i = 0; i < v->n; i++) {
		const struct rules_ynode *k = v->items[2 * i];
		const struct rules_ynode *f = v->items[2 * i + 1];
		unsigned long long parts = 0;

		if (rules_load_name(L, k, "axis"))
			return -1;
		m[i].axis = k->str;
		if (f->kind == RULES_YNODE_MAP) {
			const struct rules_ynode *p;

			if (rules_load_keys(L, f, "axis mapping", keys))
				return -1;
			p = rules_ynode_get(f, "parts");
			if (p && rules_load_uint(L, p, "parts", 1, 16, &parts))
				return -1;
			f = rules_ynode_get(f, "field");
			if (!f) {
				rules_load_error(L, v->items[2 * i + 1],
						 "write {field: NAME, parts: N}",
						 "axis '%s' has no 'field'",
						 k->str);
				return -1;
			}
		}
		if (rules_load_string(L, f, "field", &m[i].field))
			return -1;
		m[i].parts = (unsigned)parts;
	}
	qsort(m, v->n, sizeof(*m), cmp_map);
	*out = m;
	*n_out = v->n;
	return 0;
}

/* 1 when entry e passes every `where` glob (fields compared as text). */
static int
passes(const struct rules_ynode *e, const struct rules_ynode *where)
{
	size_t i;

	for (i = 0; where && i < where->n; i++) {
		const struct rules_ynode *f = rules_ynode_get(
			e, where->items[2 * i]->str);
		const struct rules_ynode *want = where->items[2 * i + 1];

		if (!f || f->kind != RULES_YNODE_SCALAR ||
		    want->kind != RULES_YNODE_SCALAR ||
		    !fnmatch_match(want->str, f->str))
			return 0;
	}
	return 1;
}

/* The combination of entry e, or -1 after reporting (at the file). */
static int
entry_combo(struct rules_load *L, const struct rules_ynode *e,
	    const struct field_map *m, size_t n, struct rules_combo *c)
{
	size_t i;

	c->pos = rules_load_pos(e);
	c->pairs = rules_load_alloc(L, n * sizeof(*c->pairs));
	if (!c->pairs)
		return -1;
	for (i = 0; i < n; i++) {
		const struct rules_ynode *f = rules_ynode_get(e, m[i].field);
		unsigned k = 0;
		size_t len = 0;
		char *v;

		if (!f || f->kind != RULES_YNODE_SCALAR ||
		    rules_ynode_is_null(f)) {
			rules_load_error(L, e, "map an axis onto a field every "
					 "selected entry has, or narrow "
					 "'where'", "matrix entry has no "
					 "field '%s' (axis '%s')",
					 m[i].field, m[i].axis);
			return -1;
		}
		if (m[i].parts) {
			while (f->str[len] && (f->str[len] != '.' ||
					       ++k < m[i].parts))
				len++;
		} else {
			len = f->len;
		}
		v = rules_load_alloc(L, len + 1);
		if (!v)
			return -1;
		memcpy(v, f->str, len);
		v[len] = '\0';
		if (!rules_load_value_ok(v)) {
			rules_load_error(L, f, "axis values hold no spaces, "
					 "',', '=', '[', ']', '*' or '?'",
					 "bad value '%s' of axis '%s'", v,
					 m[i].axis);
			return -1;
		}
		c->pairs[i].key = m[i].axis;
		c->pairs[i].value = v;
		c->pairs[i].pos = rules_load_pos(f);
	}
	c->n_pairs = n;
	return 0;
}

static int
same_combo(const struct rules_combo *a, const struct rules_combo *b)
{
	size_t i;

	for (i = 0; i < a->n_pairs; i++)
		if (strcmp(a->pairs[i].value, b->pairs[i].value))
			return 0;
	return 1;
}

/*
 * The selected entries of the parsed file as e's combinations. Problems
 * with an entry are reported at the matrix file (L->file names it);
 * problems with the selection at the rules (`rules_file`).
 */
static void
select_entries(struct rules_load *L, const char *rules_file,
	       const struct rules_ynode *doc, const struct rules_ynode *sel,
	       const struct rules_ynode *where, const struct field_map *m,
	       size_t n_map, struct rules_each *e)
{
	const struct rules_ynode *list = sel ? at_path(doc, sel->str) : doc;
	const char *matrix = L->file;
	size_t i, k;

	if (!list || list->kind != RULES_YNODE_SEQ) {
		L->file = rules_file;
		rules_load_error(L, sel, "select a key path to a list of "
				 "entries: pull-request, nightly, a.b.0",
				 "'%s' is not a list in matrix file '%s'",
				 sel ? sel->str : "(the document)", matrix);
		L->file = matrix;
		return;
	}
	e->include = rules_load_alloc(L, (list->n ? list->n : 1) *
					 sizeof(*e->include));
	if (!e->include)
		return;
	for (i = 0; i < list->n; i++) {
		const struct rules_ynode *it = list->items[i];
		struct rules_combo *c = &e->include[e->n_include];

		if (it->kind != RULES_YNODE_MAP) {
			rules_load_error(L, it, NULL, "matrix entry: expected "
					 "a map, got %s",
					 rules_ynode_kind_name(it));
			return;
		}
		if (!passes(it, where))
			continue;
		if (entry_combo(L, it, m, n_map, c))
			return;
		for (k = 0; k < e->n_include; k++)
			if (same_combo(&e->include[k], c))
				break;
		if (k == e->n_include)	/* fields no axis maps differ */
			e->n_include++;
	}
	if (!e->n_include) {
		L->file = rules_file;
		rules_load_error(L, where ? where : sel ? sel : list,
				 "check 'select' and 'where'", "no entry of "
				 "matrix file '%s' is selected", matrix);
		L->file = matrix;
	}
}

/* The parsed matrix file `path` (once per load), or NULL (reported). */
static struct rules_ynode *
matrix_doc(struct rules_load *L, const struct rules_ynode *file,
	   const char *path)
{
	const char *saved = L->file;
	struct rules_ynode *doc = NULL;
	struct error err;
	char *data = NULL;
	size_t len = 0, i;

	for (i = 0; i < L->n_matrix; i++)
		if (!strcmp(L->matrix[i].path, path))
			return L->matrix[i].doc;
	error_init(&err);
	if (L->files->read(L->files->payload, path, &data, &len, &err)) {
		rules_load_error(L, file, err.hint[0] ? err.hint : NULL,
				 "matrix file: %s", err.msg);
	} else {
		/* Problems inside the file are reported at its lines. */
		L->file = rules_load_strdup(L, path);
		if (L->file && !rules_yaml_parse(L, data, len, &doc) && !doc)
			rules_load_error_at(L, 1, 1, NULL,
					    "empty matrix file");
		L->file = saved;
		mem_free(data);
	}
	if (L->n_matrix < sizeof(L->matrix) / sizeof(L->matrix[0])) {
		L->matrix[L->n_matrix].path = path;
		L->matrix[L->n_matrix++].doc = doc;
	}
	return doc;
}

void
rules_load_each_from(struct rules_load *L, const struct rules_ynode *v,
		     const char *what, struct rules_each *e)
{
	static const char *const keys[] = {
		"file", "select", "where", "axes", NULL,
	};
	const struct rules_ynode *file, *sel, *where, *axes;
	struct rules_ynode *doc;
	struct field_map *m = NULL;
	const char *path, *saved = L->file;
	size_t n_map = 0, i;

	(void)what;
	if (rules_load_keys(L, v, "from", keys))
		return;
	file = rules_ynode_get(v, "file");
	sel = rules_ynode_get(v, "select");
	where = rules_ynode_get(v, "where");
	axes = rules_ynode_get(v, "axes");
	if (!file || !axes) {
		rules_load_error(L, v, "write from: {file: PATH, select: KEY, "
				 "axes: {AXIS: FIELD}}", "'from' needs 'file' "
				 "and 'axes'");
		return;
	}
	if (rules_load_string(L, file, "file", &path) ||
	    (sel && rules_load_string(L, sel, "select", &(const char *){0})) ||
	    load_map(L, axes, &m, &n_map))
		return;
	if (where && (where->kind != RULES_YNODE_MAP)) {
		rules_load_error(L, where, "write {FIELD: GLOB, ...}",
				 "'where': expected a map, got %s",
				 rules_ynode_kind_name(where));
		return;
	}
	/* The axes first: templates naming them check even when the
	 * file cannot be read. No values: the entries are the matrix. */
	e->axes = rules_load_alloc(L, n_map * sizeof(*e->axes));
	if (!e->axes)
		return;
	for (i = 0; i < n_map; i++) {
		e->axes[i].axis = m[i].axis;
		e->axes[i].pos = rules_load_pos(axes);
	}
	e->n_axes = n_map;
	if (!L->files) {
		rules_load_error(L, file, "load the rules from a repository",
				 "cannot read matrix file '%s' here", path);
		return;
	}
	doc = matrix_doc(L, file, path);
	if (!doc)
		return;
	L->file = rules_load_strdup(L, path);
	if (L->file)
		select_entries(L, saved, doc, sel, where, m, n_map, e);
	L->file = saved;
}
