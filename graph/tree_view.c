/*
 * The view of a commit's tree that symlink resolution uses
 * (graph_source_view): entries looked up by path, a link's text read from
 * its blob, a linked folder's "ripple-dir-v1" digest.
 */
#include "graph/source.h"
#include "graph/source_int.h"

#include <stdio.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "base/buf.h"
#include "base/error.h"
#include "graph/repo_git.h"
#include "base/banned.h"


static int
tv_lookup(void *ctx, const char *path, unsigned *mode, unsigned char oid[20],
	  struct error *err)
{
	struct graph_tree_view *tv = ctx;
	git_tree_entry *e = NULL;
	int grc = git_tree_entry_bypath(&e, tv->root, path);

	if (grc == GIT_ENOTFOUND)
		return 1;
	if (grc < 0)
		return graph_repo_git_error(tv->repo, grc, err,
					    "reading a tree");
	*mode = graph_git_entry_mode(e);
	memcpy(oid, git_tree_entry_id(e)->id, 20);
	git_tree_entry_free(e);
	return 0;
}

static int
tv_link_text(void *ctx, const char *path, const unsigned char oid[20],
	     struct buf *out, struct error *err)
{
	struct graph_tree_view *tv = ctx;
	git_blob *b = NULL;
	char what[512];
	int grc, rc;

	grc = git_blob_lookup(&b, graph_repo_git(tv->repo),
			      (const git_oid *)oid);
	if (grc < 0) {
		snprintf(what, sizeof(what), "reading symlink '%s'", path);
		return graph_repo_git_error(tv->repo, grc, err, what);
	}
	rc = buf_add(out, git_blob_rawcontent(b), (size_t)git_blob_rawsize(b),
		     err);
	git_blob_free(b);
	return rc;
}

static int
dir_cb(const char *root, const git_tree_entry *e, void *payload)
{
	if (git_tree_entry_type(e) == GIT_OBJECT_TREE)
		return 0;
	/* The whole path, however long: a cut one could equal another's. */
	graph_source_dir_entry2(payload, root, git_tree_entry_name(e),
				graph_git_entry_mode(e),
				git_tree_entry_id(e)->id);
	return 0;
}

static int
tv_dir_digest(void *ctx, const char *path, unsigned char d[16],
	      struct error *err)
{
	struct graph_tree_view *tv = ctx;
	git_tree_entry *e = NULL;
	git_tree *t = NULL;
	XXH3_state_t h;
	XXH128_canonical_t c;
	int grc;

	grc = git_tree_entry_bypath(&e, tv->root, path);
	if (grc == 0)
		grc = git_tree_lookup(&t, graph_repo_git(tv->repo),
				      git_tree_entry_id(e));
	git_tree_entry_free(e);
	if (grc < 0)
		return graph_repo_git_error(tv->repo, grc, err,
					    "reading a linked directory");
	XXH3_128bits_reset(&h);
	XXH3_128bits_update(&h, "ripple-dir-v1", 14);
	grc = git_tree_walk(t, GIT_TREEWALK_PRE, dir_cb, &h);
	git_tree_free(t);
	if (grc < 0)
		return graph_repo_git_error(tv->repo, grc, err,
					    "reading a linked directory");
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&h));
	memcpy(d, c.digest, 16);
	return 0;
}

void
graph_tree_view_init(struct graph_tree_view *tv, struct graph_source_view *out)
{
	out->ctx = tv;
	out->lookup = tv_lookup;
	out->link_text = tv_link_text;
	out->dir_digest = tv_dir_digest;
}
