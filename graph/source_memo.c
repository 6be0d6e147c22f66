/*
 * Memo ids for source-set keys. A set's claimed files all lie under its
 * include patterns' fixed prefixes, and git names each prefix's content by
 * one object id (a subtree's id hashes everything below it). So the ids at
 * the prefixes, with the patterns, determine the key, unless a symlink
 * inside reaches outside them at any hop of its resolution (a link to a
 * link outside that points back in): such states are not memoized.
 */
#include "graph/source.h"

#include <string.h>

#include "base/error.h"
#include "base/strv.h"
#include "graph/digest.h"
#include "graph/pattern.h"
#include "graph/repo_git.h"
#include "base/banned.h"

int
graph_source_memo_id(struct graph_repo *repo, const struct graph_oid *commit,
		     const struct pattern_set *set, char *out,
		     struct error *err)
{
	struct strv prefixes = STRV_INIT;
	struct digest_state st = { NULL, NULL };
	struct digest d;
	git_tree *tree = NULL;
	size_t i;
	int rc;

	rc = pattern_set_prefixes(set, &prefixes, err);
	if (!rc)
		rc = graph_repo_commit_tree(repo, commit, &tree, err);
	if (!rc)
		rc = digest_begin(&st, "ripple-source-memo-v2", err);
	if (rc)
		goto done;
	digest_add(&st, pattern_set_digest(set), 16);
	for (i = 0; i < prefixes.n; i++) {
		git_tree_entry *e = NULL;
		char hex[GRAPH_OID_HEX] = "-";

		if (!prefixes.v[i][0]) {
			git_oid_tostr(hex, sizeof(hex), git_tree_id(tree));
		} else if (git_tree_entry_bypath(&e, tree, prefixes.v[i]) == 0) {
			git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(e));
			git_tree_entry_free(e);
		}
		digest_add_str(&st, prefixes.v[i]);
		digest_add_str(&st, hex);
	}
	digest_end(&st, &d);
	memcpy(out, d.hex, 33);
done:
	digest_abort(&st);
	git_tree_free(tree);
	strv_release(&prefixes);
	return rc;
}

static int
under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	return !n || (!strncmp(path, prefix, n) && path[n] == '/');
}

int
graph_source_state_memoizable(const struct pattern_set *set,
			      const struct graph_source_state *st)
{
	struct strv prefixes = STRV_INIT;
	size_t i, k;
	int ok = 1;

	if (pattern_set_prefixes(set, &prefixes, NULL))
		return 0;
	/* Every path a resolution looked up must lie under a prefix: what
	 * it found there (a link's text, a blob, nothing) is then named by
	 * the prefix's object id. */
	for (i = 0; ok && i < st->n_files; i++) {
		const struct graph_source_file *f = &st->files[i];
		size_t h;

		if (f->kind != GRAPH_FILE_SYMLINK)
			continue;
		for (h = 0; ok && h < f->n_link_hops; h++) {
			ok = 0;
			for (k = 0; k < prefixes.n; k++)
				if (under(f->link_hops[h], prefixes.v[k]) ||
				    !strcmp(f->link_hops[h], prefixes.v[k]))
					ok = 1;
		}
	}
	strv_release(&prefixes);
	return ok;
}
