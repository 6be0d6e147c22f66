/*
 * Memo ids for source-set keys. A set's claimed files all lie under its
 * include patterns' fixed prefixes, and git names each folder's content by
 * one object id (a subtree's id hashes everything below it). So the id of
 * the deepest folder holding every prefix (the cover; with no common
 * folder, the ids at each prefix), with the patterns, determines the key,
 * unless a symlink inside reaches outside the prefixes at any hop of its
 * resolution (a link to a link outside that points back in): such states
 * are not memoized. The cover's id sits in its parent's tree, so keying an
 * unchanged package reads no tree of that package: a plan pays for the
 * folders that changed.
 */
#include "graph/source.h"

#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/strv.h"
#include "graph/digest.h"
#include "graph/pattern.h"
#include "graph/repo_git.h"
#include "base/banned.h"

/*
 * The deepest folder (or the one path) every prefix lies at or under,
 * compared component by component ("a-b" is not under "a"), into *out:
 * "" when they share no first component. Returns 0 or ERROR_NOMEM.
 */
static int
cover_of(const struct strv *prefixes, struct buf *out, struct error *err)
{
	size_t i, n;
	int rc;

	buf_reset(out);
	if (!prefixes->n)
		return 0;
	rc = buf_addstr(out, prefixes->v[0], err);
	for (i = 1; !rc && i < prefixes->n && out->len; i++) {
		const char *p = prefixes->v[i];

		for (n = 0; n < out->len && p[n] == out->data[n]; n++)
			;
		if (n == out->len && (!p[n] || p[n] == '/'))
			continue;	/* p is at or under the cover */
		/* Back to the last whole component both share. */
		while (n > 0 && !(out->data[n] == '/' &&
				  (p[n] == '/' || !p[n])))
			n--;
		out->len = n;
		out->data[n] = '\0';
	}
	return rc;
}

/* git_oid_tostr's text of id, by graph_oid_hex's table (a plan names
 * 500 ids: libgit2's formatting cost three times as much). */
static void
oid_hex(const git_oid *id, char *hex)
{
	struct graph_oid o;

	memcpy(o.id, id->id, sizeof(o.id));
	graph_oid_hex(&o, hex);
}

/*
 * Add the hex id of the entry at `path` in `tree` ("" the tree) to st,
 * or "-" when absent. Absent below a submodule or a folder link, the set
 * reads that checkout or folder: "-", the gitlink's or link's path and
 * its id (a link that reaches outside the prefixes is not memoizable).
 */
static void
id_at(struct digest_state *st, git_tree *tree, const char *path)
{
	git_tree_entry *e = NULL;
	char hex[GRAPH_OID_HEX];
	size_t len;

	hex[0] = '-';
	hex[1] = '\0';
	if (!path[0]) {
		oid_hex(git_tree_id(tree), hex);
	} else if (git_tree_entry_bypath(&e, tree, path) == 0) {
		oid_hex(git_tree_entry_id(e), hex);
		git_tree_entry_free(e);
	} else if (graph_git_opaque_at_or_above(tree, path, &e, &len)) {
		digest_add_str(st, hex);
		digest_add(st, path, len);
		oid_hex(git_tree_entry_id(e), hex);
		git_tree_entry_free(e);
	}
	digest_add_str(st, hex);
}

int
graph_source_memo_id(struct graph_repo *repo, const struct graph_oid *commit,
		     const struct pattern_set *set, char *out,
		     struct error *err)
{
	struct strv prefixes = STRV_INIT;
	int rc;

	rc = pattern_set_prefixes(set, &prefixes, err);
	if (!rc)
		rc = graph_source_memo_id_parts(repo, commit,
						pattern_set_digest(set),
						&prefixes, out, err);
	strv_release(&prefixes);
	return rc;
}

/*
 * The folder last entered by a batch of memo ids (graph_source_memo_ids):
 * a plan names 500 covers below one packages/ folder, and finding each
 * from the root tree read that folder's tree again every time.
 */
struct folder {
	struct buf path;	/* the folder's path, "" none yet */
	int known;		/* path was looked up */
	git_tree *tree;		/* its tree, or NULL when not a folder */
};

/*
 * id_at for `path` below root, through the folder above it in f (looked
 * up when it is another folder than the last; NULL: id_at alone). Where
 * that folder or the entry is not found, id_at answers, as it would have
 * alone: an entry found this way is the one git_tree_entry_bypath finds
 * (it enters a folder's tree the same way, and looks its last part up
 * by name).
 */
static void
id_below(struct digest_state *st, git_tree *root, struct folder *f,
	 const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	git_tree_entry *pe = NULL;
	const git_tree_entry *e;
	char hex[GRAPH_OID_HEX];

	if (!f || !slash) {
		id_at(st, root, path);
		return;
	}
	if (!f->known || f->path.len != n || memcmp(f->path.data, path, n)) {
		git_tree_free(f->tree);
		f->tree = NULL;
		f->known = 0;
		buf_reset(&f->path);
		if (buf_add(&f->path, path, n, NULL)) {
			id_at(st, root, path);
			return;
		}
		if (git_tree_entry_bypath(&pe, root, f->path.data) == 0 &&
		    git_tree_entry_type(pe) == GIT_OBJECT_TREE &&
		    git_tree_lookup(&f->tree, git_tree_owner(root),
				    git_tree_entry_id(pe)) < 0)
			f->tree = NULL;
		git_tree_entry_free(pe);
		f->known = 1;
	}
	e = f->tree ? git_tree_entry_byname(f->tree, slash + 1) : NULL;
	if (!e) {
		id_at(st, root, path);
		return;
	}
	oid_hex(git_tree_entry_id(e), hex);
	digest_add_str(st, hex);
}

/* "ripple-source-memo-v5": the domain of memo ids. */
#define MEMO_DOMAIN "ripple-source-memo-v5"

/*
 * The most bytes memo_id hashes for these prefixes under cover: the
 * domain, the pattern digest, then "cover" and its path, or each
 * prefix, each named by an id_at at most (a hex id, or "-", the path up
 * to an opaque entry and its id), every piece with its 8-byte length.
 */
static size_t
memo_bound(const struct strv *prefixes, const struct buf *cover)
{
	size_t i, n = 8 + sizeof(MEMO_DOMAIN) - 1 + 8 + 16;
	size_t ids = 3 * 8 + 1 + 2 * GRAPH_OID_HEX;

	if (cover->len)
		return n + 8 + 5 + 2 * (8 + cover->len) + ids;
	for (i = 0; i < prefixes->n; i++)
		n += 2 * (8 + strlen(prefixes->v[i])) + ids;
	return n;
}

/* One memo id (graph_source_memo_id_parts) below root, through f (NULL:
 * each entry found from the root); cover: a buffer to use. Hashed in
 * one call where it fits the stage (all but very long paths): the same
 * id, without the stream's state. */
static int
memo_id(git_tree *root, struct folder *f,
	const unsigned char *digest, const struct strv *prefixes, char *out,
	struct buf *cover, struct error *err)
{
	struct digest_state st = DIGEST_STATE_INIT;
	struct digest d;
	size_t i;
	int rc;

	rc = cover_of(prefixes, cover, err);
	if (rc)
		goto done;
	if (memo_bound(prefixes, cover) <= DIGEST_STAGE)
		digest_begin_short(&st, MEMO_DOMAIN);
	else if ((rc = digest_begin(&st, MEMO_DOMAIN, err)))
		goto done;
	digest_add(&st, digest, 16);
	if (cover->len) {
		/* One id names everything below the prefixes: reading it
		 * reads no tree below the cover's parent, so an unchanged
		 * package costs no tree of its own. */
		digest_add_str(&st, "cover");
		digest_add_str(&st, cover->data);
		id_below(&st, root, f, cover->data);
	} else {
		for (i = 0; i < prefixes->n; i++) {
			digest_add_str(&st, prefixes->v[i]);
			id_below(&st, root, f, prefixes->v[i]);
		}
	}
	digest_end(&st, &d);
	memcpy(out, d.hex, 33);
done:
	digest_abort(&st);
	return rc;
}

int
graph_source_memo_id_parts(struct graph_repo *repo,
			   const struct graph_oid *commit,
			   const unsigned char *digest,
			   const struct strv *prefixes, char *out,
			   struct error *err)
{
	struct buf cover = BUF_INIT;
	git_tree *root = NULL;
	int rc;

	/* Each id from the root (id_at alone): the reference the batch's
	 * is checked against. */
	rc = graph_repo_commit_tree(repo, commit, &root, err);
	if (!rc)
		rc = memo_id(root, NULL, digest, prefixes, out, &cover, err);
	buf_release(&cover);
	git_tree_free(root);
	return rc;
}

int
graph_source_memo_ids(struct graph_repo *repo, const struct graph_oid *commit,
		      size_t n, const unsigned char *const *digests,
		      const struct strv *const *prefixes, char *const *out,
		      struct error *err)
{
	struct folder f = { BUF_INIT, 0, NULL };
	struct buf cover = BUF_INIT;
	git_tree *root = NULL;
	size_t i;
	int rc;

	rc = graph_repo_commit_tree(repo, commit, &root, err);
	for (i = 0; !rc && i < n; i++)
		rc = memo_id(root, &f, digests[i], prefixes[i], out[i],
			     &cover, err);
	buf_release(&cover);
	git_tree_free(f.tree);
	buf_release(&f.path);
	git_tree_free(root);
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
