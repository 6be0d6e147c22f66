/*
 * Root and node versions for plans and runs: computed once per plan at
 * the head, compared with recorded versions, filled into templates.
 */
#include "engine/plan/versions.h"

#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "graph/graph.h"
#include "graph/version.h"
#include "rules/rules.h"
#include "base/banned.h"

int
plan_root_versions(struct graph_repo *repo, const struct rules *r,
		   const char *commit_hex, int worktree, long long date_epoch,
		   struct arena *a, struct rules_kv *out, size_t *n,
		   struct error *err)
{
	size_t i;

	*n = 0;
	for (i = 0; i < r->n_roots; i++) {
		const struct rules_root *root = &r->roots[i];
		struct version_params p;
		struct version_result res;
		struct error e2;

		version_params_from_root(root, &p);
		p.regex_file = r->file;
		p.worktree = worktree;
		p.date_epoch = date_epoch;
		error_init(&e2);
		memset(&res, 0, sizeof(res));
		if (version_compute_root_at(repo, commit_hex, &p, &res, &e2)) {
			/* A root may have no version (no tag yet); a fault of
			 * the rules themselves (a tag-regex past PCRE2's
			 * limits, reported at its file:line:col) is an
			 * error, never "no version". */
			if (e2.file[0] || e2.code == ERROR_NOMEM) {
				*err = e2;
				return e2.code;
			}
			continue;
		}
		memset(&out[*n], 0, sizeof(out[*n]));
		out[*n].key = root->name;
		out[*n].value = arena_strdup(a, res.version);
		version_result_release(&res);
		if (!out[*n].value)
			return error_set(err, ERROR_NOMEM, "out of memory");
		(*n)++;
	}
	return 0;
}

const char *
plan_root_version(const struct rules_kv *versions, size_t n_v,
		  const struct graph_node *n)
{
	size_t i;

	if (!n->root)
		return NULL;
	for (i = 0; i < n_v; i++)
		if (!strcmp(versions[i].key, n->root->name))
			return versions[i].value;
	return NULL;
}

int
plan_fill_version(struct buf *b, const char *text, const char *ver,
		  struct error *err)
{
	const char *at;
	int rc = 0;

	while (!rc && (at = strstr(text, "${root.version}"))) {
		rc = buf_add(b, text, (size_t)(at - text), err);
		if (!rc)
			rc = buf_addstr(b, ver ? ver : "", err);
		text = at + strlen("${root.version}");
	}
	return rc ? rc : buf_addstr(b, text, err);
}

int
plan_node_version(const struct graph_node *n,
		  const struct rules_kv *versions, size_t n_v,
		  struct buf *b, struct error *err)
{
	if (!n->version)
		return 0;
	return plan_fill_version(b, n->version,
				 plan_root_version(versions, n_v, n), err);
}

int
plan_version_matches(const struct graph_node *n,
		     const struct rules_kv *versions, size_t n_v,
		     const char *recorded, struct buf *b, struct error *err)
{
	int rc;

	if (!n->version)
		return 1;
	rc = plan_node_version(n, versions, n_v, b, err);
	if (rc)
		return rc;
	if (!recorded)
		recorded = "";
	return !strcmp(recorded, b->data);
}
