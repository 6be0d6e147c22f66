/*
 * Release checks 4 and 5: the run's records matched against the release
 * node's expected artifacts (its dependencies under the rules in effect,
 * minus experimental axis values), giving missing, failed, extra,
 * duplicate and ignored rows; then every selected record's version.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/fnmatch.h"
#include "base/mem.h"
#include "engine/plan/eval.h"
#include "engine/release/internal.h"
#include "graph/distfile.h"
#include "graph/graph.h"
#include "rules/rules.h"
#include "base/banned.h"

static int
cmp_binding(const void *a, const void *b)
{
	return strcmp(((const struct graph_binding *)a)->axis,
		      ((const struct graph_binding *)b)->axis);
}

int
release_parse_id(struct arena *a, const char *id,
		 struct release_parsed_id *out)
{
	const char *colon = strchr(id, ':'), *br, *p;
	struct buf b;
	size_t n = 0, i;

	memset(out, 0, sizeof(*out));
	if (!colon || colon == id)
		return -1;
	br = strchr(colon, '[');
	out->kind = arena_strndup(a, id, (size_t)(colon - id));
	out->name = br ? arena_strndup(a, colon + 1, (size_t)(br - colon - 1))
		       : arena_strdup(a, colon + 1);
	if (!out->kind || !out->name)
		return ERROR_NOMEM;
	if (!out->name[0])
		return -1;
	if (br) {
		size_t len = strlen(br);

		if (len < 2 || br[len - 1] != ']')
			return -1;
		for (p = br + 1; *p && *p != ']'; p++)
			if (*p == ',')
				n++;
		n++;
		out->axes = arena_alloc(a, n * sizeof(*out->axes));
		if (!out->axes)
			return ERROR_NOMEM;
		for (p = br + 1, i = 0; i < n; i++) {
			size_t k = strcspn(p, ",]");
			const char *eq = memchr(p, '=', k);

			if (!eq || eq == p)
				return -1;
			out->axes[i].axis = arena_strndup(a, p,
							  (size_t)(eq - p));
			out->axes[i].value = arena_strndup(
				a, eq + 1, (size_t)(p + k - eq - 1));
			if (!out->axes[i].axis || !out->axes[i].value)
				return ERROR_NOMEM;
			p += k + 1;
		}
		out->n_axes = n;
		qsort(out->axes, n, sizeof(*out->axes), cmp_binding);
	}
	buf_init(&b, 0);
	for (i = 0; i < out->n_axes; i++)
		buf_addf(&b, NULL, "%s%s=%s", i ? "," : "", out->axes[i].axis,
			 out->axes[i].value);
	out->axes_text = arena_strdup(a, b.data);
	buf_reset(&b);
	buf_addf(&b, NULL, "%s:%s", out->kind, out->name);
	if (out->n_axes)
		buf_addf(&b, NULL, "[%s]", out->axes_text);
	out->canon = arena_strdup(a, b.data);
	buf_release(&b);
	return out->axes_text && out->canon ? 0 : ERROR_NOMEM;
}

const char *
release_parsed_axis(const struct release_parsed_id *p, const char *axis)
{
	size_t i;

	for (i = 0; i < p->n_axes; i++)
		if (!strcmp(p->axes[i].axis, axis))
			return p->axes[i].value;
	return NULL;
}

const char *
release_artifact_state_name(enum release_artifact_state s)
{
	switch (s) {
	case RELEASE_ARTIFACT_OK: return "ok";
	case RELEASE_ARTIFACT_MISSING: return "missing";
	case RELEASE_ARTIFACT_FAILED: return "failed";
	case RELEASE_ARTIFACT_DUPLICATE: return "duplicate";
	case RELEASE_ARTIFACT_EXTRA: return "extra";
	case RELEASE_ARTIFACT_IGNORED: return "ignored";
	}
	return "?";
}

/* "AXIS=VALUE" of the first experimental binding, or NULL. */
static const char *
experimental(struct arena *a, const struct rules *rules,
	     const struct graph_binding *axes, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		const struct rules_axis *ax = rules_find_axis(rules,
							      axes[i].axis);

		for (k = 0; ax && k < ax->n_experimental; k++)
			if (!strcmp(ax->experimental[k], axes[i].value))
				return arena_printf(a, "%s=%s", axes[i].axis,
						    axes[i].value);
	}
	return NULL;
}

/* The exclude pattern of the release matching rule `name`, or NULL. */
static const char *
excluded_by(const struct rules_release *rel, const char *name)
{
	size_t k;

	for (k = 0; k < rel->n_exclude; k++)
		if (fnmatch_match(rel->exclude[k], name))
			return rel->exclude[k];
	return NULL;
}

static int
listed(const struct rules_release *rel, const char *name)
{
	size_t k;

	for (k = 0; k < rel->n_artifacts; k++)
		if (!strcmp(rel->artifacts[k], name))
			return 1;
	return 0;
}

struct rows {
	struct release_artifact *v;
	size_t n, cap;
};

static struct release_artifact *
row_add(struct rows *rows)
{
	if (rows->n == rows->cap) {
		size_t cap = rows->cap ? rows->cap * 2 : 32;
		struct release_artifact *v = mem_realloc(rows->v,
							 cap * sizeof(*v));

		if (!v)
			return NULL;
		rows->v = v;
		rows->cap = cap;
	}
	memset(&rows->v[rows->n], 0, sizeof(rows->v[0]));
	return &rows->v[rows->n++];
}

/* Copy the record's fields into the arena (records are freed first). */
static int
row_record(struct arena *a, struct release_artifact *row,
	   const struct cache_record *rec)
{
	size_t i;

	row->record_id = arena_strdup(a, rec->node_id);
	row->version = rec->version ? arena_strdup(a, rec->version) : NULL;
	row->output_digest = rec->output_digest
		? arena_strdup(a, rec->output_digest) : NULL;
	row->locators = arena_alloc(a, (rec->artifacts.n + 1) *
				    sizeof(*row->locators));
	if (!row->record_id || !row->locators)
		return ERROR_NOMEM;
	for (i = 0; i < rec->artifacts.n; i++)
		if (!(row->locators[i] = arena_strdup(a, rec->artifacts.v[i])))
			return ERROR_NOMEM;
	row->n_locators = rec->artifacts.n;
	return 0;
}

static int
cmp_row(const void *a, const void *b)
{
	const struct release_artifact *x = a, *y = b;
	int c = strcmp(x->rule, y->rule);

	if (!c)
		c = strcmp(x->axes, y->axes);
	if (!c)
		c = strcmp(x->record_id ? x->record_id : "",
			   y->record_id ? y->record_id : "");
	return c;
}

/*
 * The name a file is published under: its base name, and for a conda
 * package its folder's too (a channel keeps one folder per subdir, and
 * packages of two platforms share a file name: linux-64/x-1.0-h0_0.conda
 * and linux-aarch64/x-1.0-h0_0.conda are two packages).
 */
static const char *
publish_name(const char *path)
{
	const char *s = strrchr(path, '/');
	char v[8];

	if (!s)
		return path;
	if (graph_dist_file_version(path, v, sizeof(v)) == GRAPH_DIST_CONDA) {
		const char *d = s;

		while (d > path && d[-1] != '/')
			d--;
		return d;
	}
	return s + 1;
}

/* Two ok rows publishing one file name: both are duplicates. */
static void
file_duplicates(struct release_ctx *x, struct rows *rows)
{
	size_t i, j, k, l;

	for (i = 0; i < rows->n; i++)
		for (j = i + 1; j < rows->n; j++) {
			struct release_artifact *p = &rows->v[i], *q = &rows->v[j];

			if ((p->state != RELEASE_ARTIFACT_OK &&
			     p->state != RELEASE_ARTIFACT_DUPLICATE) ||
			    (q->state != RELEASE_ARTIFACT_OK &&
			     q->state != RELEASE_ARTIFACT_DUPLICATE))
				continue;
			for (k = 0; k < p->n_locators; k++)
				for (l = 0; l < q->n_locators; l++) {
					const char *f = publish_name(p->locators[k]);

					if (strcmp(f, publish_name(q->locators[l])))
						continue;
					p->state = q->state =
						RELEASE_ARTIFACT_DUPLICATE;
					p->detail = arena_printf(
						x->a, "file '%s' also from %s",
						f, q->record_id);
					q->detail = arena_printf(
						x->a, "file '%s' also from %s",
						f, p->record_id);
				}
		}
}

static int expected_rows_of(struct release_ctx *x, size_t j,
			    struct rows *rows,
			    const struct release_parsed_id *ids,
			    unsigned char *used);

/* Is d a dependency of a claimant before x->node (already a row)? */
static int
seen_before(const struct release_ctx *x, size_t node, size_t dep)
{
	size_t i, k;

	for (i = 0; i < node; i++)
		for (k = 0; k < x->nodes[i]->n_deps; k++)
			if (x->nodes[i]->deps[k] == dep)
				return 1;
	return 0;
}

static int
expected_rows(struct release_ctx *x, struct rows *rows,
	      const struct release_parsed_id *ids, unsigned char *used)
{
	size_t j;
	int rc = 0;

	for (j = 0; j < x->n_nodes && !rc; j++) {
		x->node = x->nodes[j];
		rc = expected_rows_of(x, j, rows, ids, used);
	}
	return rc;
}

/* Rows of the j-th claimant's artifact dependencies (x->node). */
static int
expected_rows_of(struct release_ctx *x, size_t j, struct rows *rows,
		 const struct release_parsed_id *ids, unsigned char *used)
{
	const struct graph *g = x->ev->graph;
	size_t i, k;

	for (i = 0; i < x->node->n_deps; i++) {
		const struct graph_node *d = &g->nodes[x->node->deps[i]];
		struct release_artifact *row;
		size_t n_rec = 0, first = 0;
		struct buf b;

		if (d->kind != GRAPH_NODE_ARTIFACT ||
		    experimental(x->a, g->rules, d->axes, d->n_axes) ||
		    seen_before(x, j, x->node->deps[i]))
			continue;
		row = row_add(rows);
		if (!row)
			return ERROR_NOMEM;
		row->node_id = arena_strdup(x->a, d->id);
		row->rule = arena_strdup(x->a, d->name);
		buf_init(&b, 0);
		for (k = 0; k < d->n_axes; k++)
			buf_addf(&b, NULL, "%s%s=%s", k ? "," : "",
				 d->axes[k].axis, d->axes[k].value);
		row->axes = arena_strdup(x->a, b.data);
		buf_release(&b);
		for (k = 0; k < x->recs.n; k++)
			if (ids[k].canon && !strcmp(ids[k].canon, d->id)) {
				if (!n_rec++)
					first = k;
				used[k] = 1;
			}
		if (!n_rec) {
			row->state = RELEASE_ARTIFACT_MISSING;
			row->detail = "no record in the run";
			continue;
		}
		if (row_record(x->a, row, &x->recs.items[first]))
			return ERROR_NOMEM;
		if (n_rec > 1) {
			row->state = RELEASE_ARTIFACT_DUPLICATE;
			row->detail = arena_printf(x->a, "%zu records of one "
						   "artifact", n_rec);
		} else if (x->recs.items[first].status !=
			   CACHE_RECORD_STATUS_OK) {
			row->state = RELEASE_ARTIFACT_FAILED;
			row->detail = arena_printf(
				x->a, "recorded as %s",
				cache_record_status_name(
					x->recs.items[first].status));
		}
	}
	return 0;
}

/*
 * The claimant that publishes record p's rule at p's root, or NULL: a
 * record of another rule or root is another release's business.
 */
static const struct graph_node *
publisher(const struct release_ctx *x, const struct release_parsed_id *p)
{
	const char *rv = release_parsed_axis(p, "root");
	size_t i;

	for (i = 0; i < x->n_nodes; i++) {
		const struct graph_node *n = x->nodes[i];

		if (!listed(n->release, p->name))
			continue;
		if (n->root && rv && strcmp(rv, n->root->name))
			continue;
		return n;
	}
	return NULL;
}

static int
other_rows(struct release_ctx *x, struct rows *rows,
	   const struct release_parsed_id *ids, unsigned char *used)
{
	size_t k;

	for (k = 0; k < x->recs.n; k++) {
		const struct release_parsed_id *p = &ids[k];
		const struct rules_release *rel;
		const struct graph_node *n;
		struct release_artifact *row;
		const char *why;

		if (used[k] || !p->canon || strcmp(p->kind, "artifact") ||
		    !(n = publisher(x, p)))
			continue;
		rel = n->release;
		used[k] = 1;
		row = row_add(rows);
		if (!row)
			return ERROR_NOMEM;
		row->node_id = p->canon;
		row->rule = p->name;	/* both in the report's arena */
		row->axes = p->axes_text;
		if (row_record(x->a, row, &x->recs.items[k]))
			return ERROR_NOMEM;
		why = excluded_by(rel, p->name);
		if (why) {
			row->state = RELEASE_ARTIFACT_IGNORED;
			row->detail = arena_printf(x->a, "excluded by '%s'",
						   why);
		} else if ((why = experimental(x->a, x->ev->graph->rules,
					       p->axes, p->n_axes))) {
			row->state = RELEASE_ARTIFACT_IGNORED;
			row->detail = arena_printf(x->a, "experimental %s",
						   why);
		} else {
			row->state = RELEASE_ARTIFACT_EXTRA;
			row->detail = "not expected by the tagged rules";
		}
	}
	return 0;
}

int
release_check_artifacts(struct release_ctx *x, struct error *err)
{
	struct release_parsed_id *ids = NULL;
	unsigned char *used = NULL;
	struct rows rows = { NULL, 0, 0 };
	size_t k, count[RELEASE_ARTIFACT_IGNORED + 1];
	int rc = ERROR_NOMEM;

	memset(count, 0, sizeof(count));
	ids = mem_calloc(x->recs.n + 1, sizeof(*ids));
	used = mem_calloc(x->recs.n + 1, 1);
	if (!ids || !used)
		goto done;
	for (k = 0; k < x->recs.n; k++)
		if (release_parse_id(x->a, x->recs.items[k].node_id,
				     &ids[k]) == ERROR_NOMEM)
			goto done;
		else if (!ids[k].canon || !ids[k].kind)
			memset(&ids[k], 0, sizeof(ids[k]));
	if (expected_rows(x, &rows, ids, used) ||
	    other_rows(x, &rows, ids, used))
		goto done;
	file_duplicates(x, &rows);
	if (release_verify_bytes(x, rows.v, rows.n, err))
		goto done;
	if (rows.n > 1)
		qsort(rows.v, rows.n, sizeof(*rows.v), cmp_row);
	x->r->artifacts = rows.n ? arena_memdup(x->a, rows.v,
						rows.n * sizeof(*rows.v))
				 : NULL;
	if (rows.n && !x->r->artifacts)
		goto done;
	x->r->n_artifacts = rows.n;
	for (k = 0; k < rows.n; k++) {
		const struct release_artifact *row = &rows.v[k];

		count[row->state]++;
		if (row->state != RELEASE_ARTIFACT_OK &&
		    row->state != RELEASE_ARTIFACT_IGNORED &&
		    release_problem(x, RELEASE_CHECK_ARTIFACTS, "%s %s %s: %s",
				    release_artifact_state_name(row->state),
				    row->rule, row->axes[0] ? row->axes : "-",
				    row->detail))
			goto done;
	}
	if (x->problems[RELEASE_CHECK_ARTIFACTS].n)
		release_set(x, RELEASE_CHECK_ARTIFACTS, RELEASE_STATUS_FAIL,
			    "%zu missing, %zu failed, %zu extra, %zu duplicate "
			    "(%zu ok, %zu ignored)",
			    count[RELEASE_ARTIFACT_MISSING],
			    count[RELEASE_ARTIFACT_FAILED],
			    count[RELEASE_ARTIFACT_EXTRA],
			    count[RELEASE_ARTIFACT_DUPLICATE],
			    count[RELEASE_ARTIFACT_OK],
			    count[RELEASE_ARTIFACT_IGNORED]);
	else if (!count[RELEASE_ARTIFACT_OK])
		release_set(x, RELEASE_CHECK_ARTIFACTS, RELEASE_STATUS_FAIL,
			    "the release expects no artifacts");
	else
		release_set(x, RELEASE_CHECK_ARTIFACTS, RELEASE_STATUS_OK,
			    "%zu expected artifacts recorded ok (%zu ignored)",
			    count[RELEASE_ARTIFACT_OK],
			    count[RELEASE_ARTIFACT_IGNORED]);
	rc = 0;
done:
	mem_free(rows.v);
	mem_free(used);
	mem_free(ids);
	return rc ? error_set(err, rc, "out of memory") : 0;
}

/* Files whose names carry another version than the tag's (case 70). */
static int
check_file_names(struct release_ctx *x, const struct release_artifact *row)
{
	char text[256];
	struct pep440 v;
	size_t i;
	int kind;

	for (i = 0; i < row->n_locators; i++) {
		const char *loc = row->locators[i];

		kind = graph_dist_file_version(loc, text, sizeof(text));
		if (kind == GRAPH_DIST_OTHER)
			continue;
		if (kind < 0) {
			if (release_problem(x, RELEASE_CHECK_VERSIONS, "%s: "
					    "'%s' is not a valid wheel or "
					    "conda package name (PEP 427: "
					    "five or six dash-separated "
					    "fields; conda: NAME-VERSION-"
					    "BUILD)", row->node_id, loc))
				return -1;
		} else if (pep440_parse(text, &v, NULL) ||
			   pep440_compare(&v, &x->ver) || v.local[0]) {
			if (release_problem(x, RELEASE_CHECK_VERSIONS, "%s: "
					    "file '%s' carries version '%s', "
					    "not the tag's '%s'", row->node_id,
					    loc, text, x->r->version))
				return -1;
		}
	}
	return 0;
}

/*
 * What the built wheel says (its METADATA Version, recorded by run and
 * record) is the tag's version: always checked, with or without a
 * require-meta naming Version (issue 25).
 */
static int
check_meta_version(struct release_ctx *x, const struct release_artifact *row)
{
	const char *id = row->record_id ? row->record_id : row->node_id;
	struct pep440 v;
	size_t i, k, n = strlen("Version");

	for (i = 0; i < x->recs.n; i++) {
		const struct cache_record *rec = &x->recs.items[i];

		if (strcmp(rec->node_id, id))
			continue;
		for (k = 0; k < rec->metadata.n; k++) {
			const char *m = rec->metadata.v[k];

			if (strncmp(m, "Version", n) || m[n] != '=')
				continue;
			m += n + 1;
			if (!pep440_parse(m, &v, NULL) &&
			    !pep440_compare(&v, &x->ver) && !v.local[0])
				continue;
			if (release_problem(x, RELEASE_CHECK_VERSIONS, "%s: "
					    "METADATA Version '%s' is not "
					    "the tag's '%s'", row->node_id, m,
					    x->r->version))
				return -1;
		}
	}
	return 0;
}

int
release_check_versions(struct release_ctx *x, struct error *err)
{
	size_t k, n_checked = 0;

	if (x->ver.has_dev &&
	    release_problem(x, RELEASE_CHECK_VERSIONS, "the tag's version "
			    "'%s' is a dev release", x->r->version))
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (k = 0; k < x->r->n_artifacts; k++) {
		const struct release_artifact *row = &x->r->artifacts[k];
		const char *id = row->node_id;
		struct pep440 v;
		size_t before;
		int rc = 0;

		if (row->state != RELEASE_ARTIFACT_OK &&
		    row->state != RELEASE_ARTIFACT_DUPLICATE)
			continue;
		n_checked++;
		before = x->problems[RELEASE_CHECK_VERSIONS].n;
		if (!row->version)
			rc = release_problem(x, RELEASE_CHECK_VERSIONS,
					     "%s: no version recorded", id);
		else if (pep440_parse(row->version, &v, NULL))
			rc = release_problem(x, RELEASE_CHECK_VERSIONS,
					     "%s: '%s' is not a PEP 440 "
					     "version", id, row->version);
		else if (v.has_dev)
			rc = release_problem(x, RELEASE_CHECK_VERSIONS,
					     "%s: dev version '%s' refused",
					     id, row->version);
		else if (v.local[0])
			rc = release_problem(x, RELEASE_CHECK_VERSIONS,
					     "%s: local version '%s' refused",
					     id, row->version);
		else if (pep440_compare(&v, &x->ver))
			rc = release_problem(x, RELEASE_CHECK_VERSIONS,
					     "%s: version '%s' is not the "
					     "tag's '%s'", id, row->version,
					     x->r->version);
		/* A good recorded version: do the files say the same? */
		if (!rc && x->problems[RELEASE_CHECK_VERSIONS].n == before)
			rc = check_file_names(x, row);
		if (!rc && x->problems[RELEASE_CHECK_VERSIONS].n == before)
			rc = check_meta_version(x, row);
		if (rc)
			return error_set(err, ERROR_NOMEM, "out of memory");
	}
	if (x->problems[RELEASE_CHECK_VERSIONS].n)
		release_set(x, RELEASE_CHECK_VERSIONS, RELEASE_STATUS_FAIL,
			    "%zu version problems",
			    x->problems[RELEASE_CHECK_VERSIONS].n);
	else if (!n_checked)
		release_set(x, RELEASE_CHECK_VERSIONS, RELEASE_STATUS_SKIP,
			    "no recorded artifacts to check");
	else
		release_set(x, RELEASE_CHECK_VERSIONS, RELEASE_STATUS_OK,
			    "%zu artifacts at version %s", n_checked,
			    x->r->version);
	return 0;
}
