/*
 * Release checks 6 and 7: the release notes of the node, resolved in the
 * tagged tree, and the declared metadata checks (`require-meta`) against
 * the run's records.
 */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "engine/release/internal.h"
#include "graph/graph.h"
#include "graph/repo.h"
#include "graph/template.h"
#include "rules/rules.h"
#include "base/banned.h"

static int
expand(struct release_ctx *x, const char *tmpl, const char **out,
       struct error *err)
{
	struct template_env env;
	struct buf b;
	const char *p;
	int rc;

	buf_init(&b, 0);
	for (p = tmpl; *p; p++) {
		if (!strncmp(p, "$$", 2)) {
			buf_add(&b, p, 2, NULL);
			p++;
		} else if (!strncmp(p, "${tag}", 6)) {
			const char *t;

			/* A '$' in the tag is literal: escape it as "$$". */
			for (t = x->opt->tag; *t; t++) {
				if (*t == '$')
					buf_addch(&b, '$', NULL);
				buf_addch(&b, *t, NULL);
			}
			p += 5;
		} else {
			buf_addch(&b, *p, NULL);
		}
	}
	memset(&env, 0, sizeof(env));
	env.axes = x->node->axes;
	env.n_axes = x->node->n_axes;
	env.root = x->node->root;
	env.toolkit = x->node->toolkit;
	env.version = x->r->version;
	rc = template_expand(x->a, b.data, &env, out, err);
	/* Without a '$' template_expand hands back its input: b's, freed
	 * below; the result must live in the arena like an expanded one. */
	if (!rc && *out && *out == b.data) {
		*out = arena_strdup(x->a, b.data);
		if (!*out)
			rc = error_set(err, ERROR_NOMEM, "out of memory");
	}
	buf_release(&b);
	return rc;
}

static int
blank(const struct buf *b)
{
	size_t i;

	for (i = 0; i < b->len; i++)
		if (!strchr(" \t\r\n\f\v", b->data[i]))
			return 0;
	return 1;
}

/*
 * The commit of branch `name` (notes-from): the local branch, else the
 * remote-tracking origin/NAME a CI clone has. Non-zero when neither.
 */
static int
notes_branch(struct graph_repo *repo, const char *name, struct graph_oid *out)
{
	char ref[600];
	struct error e;

	error_init(&e);
	snprintf(ref, sizeof(ref), "refs/heads/%s", name);
	if (!graph_repo_resolve(repo, ref, out, &e))
		return 0;
	error_init(&e);
	snprintf(ref, sizeof(ref), "refs/remotes/origin/%s", name);
	return graph_repo_resolve(repo, ref, out, &e);
}

/*
 * Check 6: the release notes exist where the line keeps them (the tagged
 * tree, else the branches of notes-from, in order) and are not empty.
 */
int
release_check_notes(struct release_ctx *x, struct error *err)
{
	const struct rules_release *rel = x->node->release;
	const char *const *from = rel->notes_from;
	size_t n_from = from ? rel->n_notes_from : 1, i;
	const char *path, *found = NULL;
	struct buf b, where;
	struct error e;
	int rc;

	if (!rel->notes) {
		release_set(x, RELEASE_CHECK_NOTES, RELEASE_STATUS_OK,
			    "no notes declared");
		return 0;
	}
	if (rel->notes_skip_post && x->ver.has_post) {
		release_set(x, RELEASE_CHECK_NOTES, RELEASE_STATUS_OK,
			    "post-release: notes not required "
			    "(notes-skip-post)");
		return 0;
	}
	error_init(&e);
	rc = expand(x, rel->notes, &path, &e);
	if (rc == ERROR_NOMEM)
		return error_set(err, rc, "out of memory");
	if (rc) {
		release_set(x, RELEASE_CHECK_NOTES, RELEASE_STATUS_FAIL,
			    "notes path: %s", e.msg);
		return 0;
	}
	while (!strncmp(path, "./", 2))	/* a root at "." */
		path += 2;
	buf_init(&b, 0);
	buf_init(&where, 0);
	rc = ERROR_NOT_FOUND;
	for (i = 0; rc == ERROR_NOT_FOUND && i < n_from; i++) {
		struct graph_oid at;
		const char *place = from ? from[i] : "tag";

		error_init(&e);
		buf_addf(&where, NULL, "%s%s%s", i ? (i + 1 == n_from
						       ? " nor " : ", ") : "",
			 i && strcmp(place, "tag") ? "in " : "",
			 strcmp(place, "tag") ? place : "the tagged tree");
		if (!strcmp(place, "tag")) {
			at = x->commit;
		} else if (notes_branch(x->repo, place, &at)) {
			continue;	/* no such branch here: not there */
		}
		buf_reset(&b);
		rc = graph_repo_read_blob(x->repo, &at, path, &b, &e);
		if (!rc)
			found = place;
	}
	if (rc == ERROR_NOT_FOUND)
		release_set(x, RELEASE_CHECK_NOTES, RELEASE_STATUS_FAIL,
			    "missing: %s is not in %s", path,
			    where.data ? where.data : "the tagged tree");
	else if (rc)
		release_set(x, RELEASE_CHECK_NOTES, RELEASE_STATUS_FAIL,
			    "%s: %s", path, e.msg);
	else if (blank(&b))
		release_set(x, RELEASE_CHECK_NOTES, RELEASE_STATUS_FAIL,
			    "empty: %s has %s", path,
			    b.len ? "only whitespace" : "zero bytes");
	else if (found && strcmp(found, "tag"))
		release_set(x, RELEASE_CHECK_NOTES, RELEASE_STATUS_OK,
			    "%s (%zu bytes, from %s)", path, b.len, found);
	else
		release_set(x, RELEASE_CHECK_NOTES, RELEASE_STATUS_OK,
			    "%s (%zu bytes)", path, b.len);
	buf_release(&where);
	buf_release(&b);
	return rc == ERROR_NOMEM ? error_set(err, rc, "out of memory") : 0;
}

/* Does `have` equal `want`, or hold it as one comma-separated item? */
static int
meta_matches(const char *have, const char *want)
{
	size_t wn = strlen(want);
	const char *p = have;

	if (!strcmp(have, want))
		return 1;
	while (*p) {
		size_t n;

		p += strspn(p, " ");
		n = strcspn(p, ",");
		while (n && p[n - 1] == ' ')
			n--;
		if (n == wn && !strncmp(p, want, n))
			return 1;
		p += strcspn(p, ",");
		if (*p)
			p++;
	}
	return 0;
}

static const char *
meta_get(const struct cache_record *rec, const char *key)
{
	size_t i, n = strlen(key);

	for (i = 0; i < rec->metadata.n; i++)
		if (!strncmp(rec->metadata.v[i], key, n) &&
		    rec->metadata.v[i][n] == '=')
			return rec->metadata.v[i] + n + 1;
	return NULL;
}

static int
check_one_meta(struct release_ctx *x, const struct rules_meta_check *mc,
	       int final, size_t *n_checked, struct error *err)
{
	const char *root = x->node->root ? x->node->root->name : NULL;
	const char *tmpl = final ? mc->final : mc->dev;
	const char *want;
	size_t i, found = 0;
	struct error e;

	if (!tmpl)
		tmpl = mc->value;
	if (!tmpl)
		return 0;
	error_init(&e);
	if (expand(x, tmpl, &want, &e))
		return release_problem(x, RELEASE_CHECK_METADATA,
				       "%s.%s: %s", mc->artifact, mc->key,
				       e.msg);
	for (i = 0; i < x->recs.n; i++) {
		const struct cache_record *rec = &x->recs.items[i];
		struct release_parsed_id p;
		const char *have, *rv;

		if (release_parse_id(x->a, rec->node_id, &p) ||
		    strcmp(p.kind, "artifact") || strcmp(p.name, mc->artifact))
			continue;
		rv = release_parsed_axis(&p, "root");
		if (root && rv && strcmp(rv, root))
			continue;
		if (rec->status != CACHE_RECORD_STATUS_OK)
			continue;
		found++;
		(*n_checked)++;
		have = meta_get(rec, mc->key);
		if (!have) {
			if (release_problem(x, RELEASE_CHECK_METADATA,
					    "%s has no metadata '%s' (want "
					    "'%s')", rec->node_id, mc->key,
					    want))
				return error_set(err, ERROR_NOMEM,
						 "out of memory");
		} else if (!meta_matches(have, want) &&
			   release_problem(x, RELEASE_CHECK_METADATA,
					   "%s: %s is '%s', want '%s' (%s "
					   "release)", rec->node_id, mc->key,
					   have, want, final ? "final" : "pre"
					   "/dev")) {
			return error_set(err, ERROR_NOMEM, "out of memory");
		}
	}
	if (!found && release_problem(x, RELEASE_CHECK_METADATA,
				      "no successful record of artifact '%s' "
				      "in run %s (needed for '%s')",
				      mc->artifact, x->r->run, mc->key))
		return error_set(err, ERROR_NOMEM, "out of memory");
	return 0;
}

/* Check 7: require-meta entries of the release hold in the run. */
int
release_check_metadata(struct release_ctx *x, struct error *err)
{
	const struct rules_release *rel = x->node->release;
	int final = x->ver.pre_kind == PEP440_PRE_NONE && !x->ver.has_dev;
	size_t i, n_checked = 0;
	int rc;

	if (!rel->n_require_meta) {
		release_set(x, RELEASE_CHECK_METADATA, RELEASE_STATUS_OK,
			    "none declared");
		return 0;
	}
	for (i = 0; i < rel->n_require_meta; i++) {
		rc = check_one_meta(x, &rel->require_meta[i], final,
				    &n_checked, err);
		if (rc)
			return rc;
	}
	if (x->problems[RELEASE_CHECK_METADATA].n)
		release_set(x, RELEASE_CHECK_METADATA, RELEASE_STATUS_FAIL,
			    "%zu metadata problems",
			    x->problems[RELEASE_CHECK_METADATA].n);
	else
		release_set(x, RELEASE_CHECK_METADATA, RELEASE_STATUS_OK,
			    "%zu records checked (%s release)", n_checked,
			    final ? "final" : "pre/dev");
	return 0;
}
