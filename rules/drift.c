/*
 * Drift checks: read every value of every check (rules fields here; file
 * values through drift_file.c), compare them as exact strings and report
 * each disagreement with both places and both values. Also the reader of
 * files from a directory.
 */
#include "rules/drift.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/file.h"
#include "rules/drift_file.h"
#include "rules/rules.h"
#include "base/banned.h"

int
rules_drift_read_dir(void *payload, const char *path, struct buf *out,
		     struct error *err)
{
	const char *dir = payload;
	char full[4096], chunk[65536];
	const char *p;
	struct error probe;
	FILE *f;
	size_t got;
	int n, fd, rc = 0;

	for (p = path; *p; p = strchr(p, '/') ? strchr(p, '/') + 1 : "")
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]))
			break;
	if (path[0] == '/' || *p)
		return error_set(err, ERROR_INVALID,
				 "path '%s' leaves the repository", path);
	error_init(&probe);
	n = snprintf(full, sizeof(full), "%s/%s", dir, path);
	if (n < 0 || (size_t)n >= sizeof(full))
		return error_set(err, ERROR_INVALID, "path '%s' is too long",
				 path);
	fd = file_open_regular(full, path, &probe);
	if (fd == ERROR_NOT_FOUND)
		return error_set(err, ERROR_NOT_FOUND, "no file '%s'", path);
	if (fd < 0) {
		if (err && !err->code)
			*err = probe;
		return fd;
	}
	f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return error_set(err, ERROR_IO, "cannot open '%s': %s", path,
				 strerror(errno));
	}
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (out->len + got > RULES_DRIFT_FILE_MAX) {
			rc = error_set(err, ERROR_INVALID, "'%s' is larger than "
				       "%u MiB", path, RULES_DRIFT_FILE_MAX >> 20);
			goto done;
		}
		rc = buf_add(out, chunk, got, err);
		if (rc)
			goto done;
	}
	if (ferror(f))
		rc = error_set(err, ERROR_IO, "cannot read '%s': %s", path,
			       strerror(errno));
done:
	fclose(f);
	return rc;
}

/* "a, b, c" (arena); "" for none. */
static const char *
join(struct arena *a, const char *const *v, size_t n)
{
	size_t i, len = 1;
	char *s, *q;

	for (i = 0; i < n; i++)
		len += strlen(v[i]) + 2;
	s = arena_alloc(a, len);
	if (!s)
		return NULL;
	q = s;
	for (i = 0; i < n; i++) {
		size_t l = strlen(v[i]);

		if (i) {
			memcpy(q, ", ", 2);
			q += 2;
		}
		memcpy(q, v[i], l);
		q += l;
	}
	*q = '\0';
	return s;
}

static const char *
role_name(enum rules_role role)
{
	switch (role) {
	case RULES_ROLE_CURRENT:
		return "current";
	case RULES_ROLE_MAINTENANCE:
		return "maintenance";
	default:
		return NULL;
	}
}

/* The text of a root's field; *unset when the field has no value. */
static const char *
root_field(struct arena *a, const struct rules_root *root, const char *f,
	   int *unset)
{
	const char *v = NULL;

	if (!strcmp(f, "path"))
		v = root->path;
	else if (!strcmp(f, "role"))
		v = role_name(root->role);
	else if (!strcmp(f, "toolkit"))
		v = root->toolkit;
	else if (!strcmp(f, "tags"))
		return join(a, root->tags, root->n_tags);
	else if (!strcmp(f, "exclude-tags"))
		return join(a, root->exclude_tags, root->n_exclude_tags);
	else if (!strcmp(f, "tag-prefix"))
		v = root->tag_prefix;
	else if (!strcmp(f, "fallback-version"))
		v = root->fallback_version;
	else if (!strcmp(f, "fallback-pretend"))
		return root->fallback_pretend ? "true" : "false";
	else if (!strcmp(f, "node-length"))
		return arena_printf(a, "%u", root->node_length);
	if (!v)
		*unset = 1;
	return v;
}

static const char *
toolkit_field(struct arena *a, const struct rules_toolkit *t, const char *f,
	      int *unset)
{
	if (!strcmp(f, "version"))
		return t->version;
	if (!strcmp(f, "home"))
		return t->home ? t->home
			       : arena_printf(a, "/usr/local/cuda-%u.%u",
					      t->major, t->minor);
	if (!strcmp(f, "major"))
		return arena_printf(a, "%u", t->major);
	if (!strcmp(f, "minor"))
		return arena_printf(a, "%u", t->minor);
	if (!strcmp(f, "major.minor"))
		return arena_printf(a, "%u.%u", t->major, t->minor);
	if (!t->has_patch) {
		*unset = 1;	/* a MAJOR.MINOR pin has no patch */
		return NULL;
	}
	return arena_printf(a, "%u", t->patch);
}

/*
 * A rules field "roots.NAME.FIELD", "toolkits.NAME.FIELD",
 * "sources.NAME.FIELD" or "axes.NAME": its text, and its position in the
 * rules file (the field's value where written, else the entry's).
 */
static int
read_rule(struct arena *a, const struct rules *r, const char *path,
	  struct rules_drift_value *out, struct error *err)
{
	char kind[32], name[160], key[512];
	const char *dot = strchr(path, '.'), *dot2, *field = "";
	struct rules_pos pos = { 0, 0 };
	int unset = 0;

	if (!dot || (size_t)(dot - path) >= sizeof(kind))
		goto bad;
	memcpy(kind, path, (size_t)(dot - path));
	kind[dot - path] = '\0';
	dot2 = strchr(dot + 1, '.');
	if (!strcmp(kind, "axes")) {
		const struct rules_axis *ax = rules_find_axis(r, dot + 1);

		if (!ax)
			goto bad;
		out->text = join(a, ax->values, ax->n_values);
		pos = ax->pos;
	} else {
		if (!dot2 || (size_t)(dot2 - dot - 1) >= sizeof(name))
			goto bad;
		memcpy(name, dot + 1, (size_t)(dot2 - dot - 1));
		name[dot2 - dot - 1] = '\0';
		field = dot2 + 1;
		if (!strcmp(kind, "roots") && rules_find_root(r, name)) {
			const struct rules_root *root = rules_find_root(r, name);

			out->text = root_field(a, root, field, &unset);
			pos = root->pos;
		} else if (!strcmp(kind, "toolkits") &&
			   rules_find_toolkit(r, name)) {
			const struct rules_toolkit *t = rules_find_toolkit(r, name);

			out->text = toolkit_field(a, t, field, &unset);
			pos = t->pos;
			if (!strcmp(field, "major") || !strcmp(field, "minor") ||
			    !strcmp(field, "patch") ||
			    !strcmp(field, "major.minor"))
				field = "version";
		} else if (!strcmp(kind, "sources") &&
			   rules_find_source(r, name) &&
			   (!strcmp(field, "paths") || !strcmp(field, "exclude"))) {
			const struct rules_source *s = rules_find_source(r, name);

			out->text = field[0] == 'p'
					    ? join(a, s->paths, s->n_paths)
					    : join(a, s->exclude, s->n_exclude);
			pos = s->pos;
		} else {
			goto bad;
		}
	}
	if (unset) {
		error_set(err, ERROR_NOT_FOUND, "%s is not set", path);
		error_hint(err, "set '%s' in %.*s '%s', or leave it out of "
			   "the check", field, (int)strlen(kind) - 1, kind,
			   name);
		return ERROR_NOT_FOUND;
	}
	if (!out->text)
		return error_set(err, ERROR_NOMEM, "out of memory");
	out->file = r->file;
	out->line = pos.line;
	out->col = pos.col;
	if (!strcmp(kind, "axes"))
		snprintf(key, sizeof(key), "%s", path);
	else
		snprintf(key, sizeof(key), "%s.%s.%s", kind, name, field);
	if (r->text)
		rules_drift_yaml_pos(r->text, r->text_len, key, &out->line,
				     &out->col);
	return 0;
bad:
	return error_set(err, ERROR_NOT_FOUND, "no rules field '%s'", path);
}

/* Read one value; on failure err is set (maybe without a position). */
static int
read_value(struct arena *a, const struct rules *r,
	   const struct rules_value_ref *v,
	   int (*read_file)(void *, const char *, struct buf *, struct error *),
	   void *payload, struct rules_drift_value *out, struct error *err)
{
	struct buf b;
	int rc;

	switch (v->kind) {
	case RULES_VALUE_RULE:
		return read_rule(a, r, v->path, out, err);
	case RULES_VALUE_LITERAL:
		out->text = v->literal;
		out->file = r->file;
		out->line = v->pos.line;
		out->col = v->pos.col;
		return 0;
	default:
		break;
	}
	buf_init(&b, RULES_DRIFT_FILE_MAX);
	rc = read_file(payload, v->file, &b, err);
	if (!rc && v->kind == RULES_VALUE_YAML)
		rc = rules_drift_read_yaml(a, v->file, b.data, b.len, v->path,
					   out, err);
	else if (!rc && v->kind == RULES_VALUE_JSON)
		rc = rules_drift_read_json(a, v->file, b.data, b.len, v->path,
					   out, err);
	else if (!rc)
		rc = rules_drift_read_regex(a, v->file, b.data, b.len,
					    v->regex, out, err);
	buf_release(&b);
	return rc;
}

/* "FILE:LINE:COL", "FILE:LINE" or "FILE" into out. */
static void
place(char *out, size_t n, const struct rules_drift_value *v)
{
	if (v->line && v->col)
		snprintf(out, n, "%s:%u:%u", v->file, v->line, v->col);
	else if (v->line)
		snprintf(out, n, "%s:%u", v->file, v->line);
	else
		snprintf(out, n, "%s", v->file);
}

/* What a value is, as the subject of "... is VALUE". */
static void
subject(char *out, size_t n, const struct rules_value_ref *v)
{
	switch (v->kind) {
	case RULES_VALUE_RULE:
		snprintf(out, n, "%s", v->path);
		break;
	case RULES_VALUE_YAML:
	case RULES_VALUE_JSON:
		snprintf(out, n, "key '%s'", v->path);
		break;
	case RULES_VALUE_REGEX:
		snprintf(out, n, "the regex match");
		break;
	default:
		snprintf(out, n, "the literal value");
		break;
	}
}

static int
report_conflict(const struct rules *r, const struct rules_check *c,
		const struct rules_value_ref *ra,
		const struct rules_drift_value *a,
		const struct rules_value_ref *rb,
		const struct rules_drift_value *b, struct error_list *errors)
{
	char sa[320], sb[320], pb[ERROR_PATH_MAX + 32];
	struct error e;

	subject(sa, sizeof(sa), ra);
	subject(sb, sizeof(sb), rb);
	place(pb, sizeof(pb), b);
	error_init(&e);
	error_at(&e, ERROR_CONFLICT, a->file, a->line, a->col,
		 "check '%s': %s is \"%s\" but %s (%s) is \"%s\"", c->name, sa,
		 a->text, pb, sb, b->text);
	error_hint(&e, "make them agree; the check is at %s:%u:%u", r->file,
		   c->pos.line, c->pos.col);
	error_list_add(errors, &e);
	return ERROR_CONFLICT;
}

int
rules_drift_evaluate_read(const struct rules *r,
			  int (*read_file)(void *payload, const char *path,
					   struct buf *out, struct error *err),
			  void *payload, size_t *n_ok,
			  struct error_list *errors)
{
	struct arena a;
	size_t i, j, ok = 0;
	int first = 0;

	arena_init(&a);
	for (i = 0; i < r->n_checks; i++) {
		const struct rules_check *c = &r->checks[i];
		struct rules_drift_value *vals;
		size_t ref = c->n_values;
		int bad = 0, rc;

		if (c->same_content)
			continue;	/* graph/same.c: blob ids */
		vals = arena_alloc(&a, (c->n_values + 1) * sizeof(*vals));
		if (!vals) {
			struct error e;

			error_init(&e);
			first = first ? first
				      : error_set(&e, ERROR_NOMEM, "out of memory");
			error_list_add(errors, &e);
			break;
		}
		memset(vals, 0, (c->n_values + 1) * sizeof(*vals));
		for (j = 0; j < c->n_values; j++) {
			const struct rules_value_ref *v = &c->values[j];
			struct error e;

			error_init(&e);
			rc = read_value(&a, r, v, read_file, payload, &vals[j],
					&e);
			if (!rc) {
				if (ref == c->n_values)
					ref = j;
				continue;
			}
			vals[j].text = NULL;
			bad = 1;
			first = first ? first : rc;
			if (!e.file[0]) {
				snprintf(e.file, sizeof(e.file), "%s", r->file);
				e.line = v->pos.line;
				e.col = v->pos.col;
			}
			error_prefix(&e, "check '%s'", c->name);
			error_list_add(errors, &e);
		}
		for (j = ref + 1; j < c->n_values; j++) {
			if (!vals[j].text || !strcmp(vals[j].text, vals[ref].text))
				continue;
			bad = 1;
			rc = report_conflict(r, c, &c->values[ref], &vals[ref],
					     &c->values[j], &vals[j], errors);
			first = first ? first : rc;
		}
		if (!bad)
			ok++;
	}
	arena_release(&a);
	if (n_ok)
		*n_ok = ok;
	return first;
}

int
rules_drift_evaluate(const struct rules *r, const char *root_dir,
		     size_t *n_ok, struct error_list *errors)
{
	return rules_drift_evaluate_read(r, rules_drift_read_dir,
					 (void *)root_dir, n_ok, errors);
}
