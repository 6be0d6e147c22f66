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
#include "base/strv.h"
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

struct dir_walk {
	struct graph_tree_view *tv;
	XXH3_state_t h;
	struct strv *links;
	struct buf path;	/* the folder's repository path, then below */
	size_t base;		/* its length, and the '/' after it */
	struct error *err;
};

/*
 * Hash every non-tree entry below tree t (at dw->path) in git's tree
 * order, as a pre-order walk gives it, and note the links. Recursive,
 * within GRAPH_MAX_TREE_DEPTH: a hostile tree nested deeper is an error,
 * not a stack overflow (libgit2's git_tree_walk has no bound).
 */
static int
dir_walk(struct dir_walk *dw, git_tree *t, int depth)
{
	size_t i, n = git_tree_entrycount(t), len = dw->path.len;
	const git_tree_entry *e;
	git_tree *sub = NULL;
	unsigned mode;
	int rc = 0, grc;

	if (depth > GRAPH_MAX_TREE_DEPTH)
		return error_set(dw->err, ERROR_INVALID, "tree too deep: "
				 "folders nest more than %d deep under "
				 "'%.200s'", GRAPH_MAX_TREE_DEPTH,
				 dw->path.data);
	for (i = 0; !rc && i < n; i++) {
		e = git_tree_entry_byindex(t, i);
		mode = graph_git_entry_mode(e);
		rc = buf_addch(&dw->path, '/', dw->err);
		if (!rc)
			rc = buf_addstr(&dw->path, git_tree_entry_name(e),
					dw->err);
		if (rc)
			break;
		if (mode == 040000) {
			grc = git_tree_lookup(&sub, graph_repo_git(dw->tv->repo),
					      git_tree_entry_id(e));
			if (grc < 0)
				rc = graph_repo_git_error(dw->tv->repo, grc,
							  dw->err, "reading "
							  "a linked directory");
			else
				rc = dir_walk(dw, sub, depth + 1);
			git_tree_free(sub);
			sub = NULL;
		} else {
			/* The whole path, however long: a cut one could
			 * equal another's. */
			graph_source_dir_entry(&dw->h,
					       dw->path.data + dw->base, mode,
					       git_tree_entry_id(e)->id);
			if (mode == 0120000)
				rc = strv_push(dw->links, dw->path.data,
					       dw->err);
		}
		dw->path.len = len;
		dw->path.data[len] = '\0';
	}
	return rc;
}

static int
tv_dir_digest(void *ctx, const char *path, unsigned char d[16],
	      struct strv *links, struct error *err)
{
	struct graph_tree_view *tv = ctx;
	git_tree_entry *e = NULL;
	git_tree *t = NULL;
	struct dir_walk dw;
	XXH128_canonical_t c;
	int grc, rc;

	grc = git_tree_entry_bypath(&e, tv->root, path);
	if (grc == 0)
		grc = git_tree_lookup(&t, graph_repo_git(tv->repo),
				      git_tree_entry_id(e));
	git_tree_entry_free(e);
	if (grc < 0)
		return graph_repo_git_error(tv->repo, grc, err,
					    "reading a linked directory");
	XXH3_128bits_reset(&dw.h);
	XXH3_128bits_update(&dw.h, "ripple-dir-v1", 14);
	dw.tv = tv;
	dw.links = links;
	dw.err = err;
	dw.base = strlen(path) + 1;
	buf_init(&dw.path, 0);
	rc = buf_addstr(&dw.path, path, err);
	if (!rc)
		rc = dir_walk(&dw, t, 1);
	git_tree_free(t);
	buf_release(&dw.path);
	if (rc)
		return rc;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&dw.h));
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
