/*
 * Folder markers for entries read from the working tree: the folders a set
 * claims whole get the tree id git would write for their content, so a
 * clean working tree gives the commit's key (docs/patterns.md).
 */
#include "graph/source.h"
#include "graph/source_int.h"

#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "graph/pattern.h"
#include "graph/repo_git.h"
#include "base/banned.h"

static int
under(const char *path, const char *dir, size_t dlen)
{
	return !strncmp(path, dir, dlen) && path[dlen] == '/';
}

static int
folded_push(struct graph_source_folded *f, const struct graph_source_raw *r,
	    struct error *err)
{
	struct graph_source_raw *nv;

	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 256;

		nv = mem_realloc(f->v, cap * sizeof(*nv));
		if (!nv)
			return error_set(err, ERROR_NOMEM, "out of memory");
		f->v = nv;
		f->cap = cap;
	}
	f->v[f->n++] = *r;
	return 0;
}

/* A tree entry's mode as git writes it ("%o " of the mode), without
 * printf for the modes an index holds. */
static int
add_mode(struct buf *obj, unsigned mode, struct error *err)
{
	switch (mode) {
	case 0100644: return buf_add(obj, "100644 ", 7, err);
	case 0100755: return buf_add(obj, "100755 ", 7, err);
	case 0120000: return buf_add(obj, "120000 ", 7, err);
	case 0160000: return buf_add(obj, "160000 ", 7, err);
	default: return buf_addf(obj, err, "%o ", mode);
	}
}

/*
 * Push the marker of folder `dir` (dlen bytes of raw[i].path), then the
 * entries raw[i, j) below it with the markers of the folders among them,
 * and set the marker's id to the tree id git gives that content (the
 * tree object "MODE NAME\0ID" per entry, in path order, which is git's
 * tree order, hashed by libgit2 without writing it), into *id.
 */
static int
fold_dir(struct graph_source_folded *f, const struct graph_source_raw *raw, size_t i,
	 size_t j, size_t dlen, git_oid *id, struct error *err)
{
	struct graph_source_raw mark;
	struct buf obj = BUF_INIT;
	const char *rest, *slash;
	size_t at = f->n, k = i, m, sub;
	git_oid child;
	int rc, grc;

	memset(&mark, 0, sizeof(mark));
	mark.mode = 040000;
	mark.path = arena_strndup(&f->arena, raw[i].path, dlen);
	if (!mark.path)
		return error_set(err, ERROR_NOMEM, "out of memory");
	rc = folded_push(f, &mark, err);
	while (!rc && k < j) {
		rest = raw[k].path + dlen + 1;
		slash = strchr(rest, '/');
		if (!slash) {
			rc = add_mode(&obj, raw[k].mode, err);
			if (!rc)
				rc = buf_add(&obj, rest, strlen(rest) + 1, err);
			if (!rc)
				rc = buf_add(&obj, (const char *)raw[k].oid,
					     20, err);
			if (!rc)
				rc = folded_push(f, &raw[k], err);
			k++;
			continue;
		}
		sub = (size_t)(slash - raw[k].path);
		for (m = k + 1; m < j && under(raw[m].path, raw[k].path, sub);
		     m++)
			;
		rc = fold_dir(f, raw, k, m, sub, &child, err);
		if (!rc)
			rc = buf_add(&obj, "40000 ", 6, err);
		if (!rc)
			rc = buf_add(&obj, rest, (size_t)(slash - rest), err);
		if (!rc)
			rc = buf_add(&obj, "", 1, err);
		if (!rc)
			rc = buf_add(&obj, (const char *)child.id, 20, err);
		k = m;
	}
	if (!rc) {
		grc = git_odb_hash(id, obj.data ? obj.data : "", obj.len,
				   GIT_OBJECT_TREE);
		if (grc < 0)
			rc = error_set(err, ERROR_INTERNAL,
				       "hashing a tree: libgit2 error %d", grc);
	}
	if (!rc)
		memcpy(f->v[at].oid, id->id, 20);
	buf_release(&obj);
	return rc;
}

/*
 * The claimed entries raw[0, n) (path order) with the folder markers the
 * commit walk puts there: before the entries of every folder the set
 * claims whole (pattern_set_claims_all_below of it or of a folder above
 * it), with the tree id of its content here. So a clean working tree
 * gives the commit's key. Every entry under such a folder is claimed,
 * so the claimed entries are its whole content.
 */
int
graph_source_add_markers(const struct pattern_set *set,
			 const struct graph_source_raw *raw, size_t n,
			 struct graph_source_folded *f, struct error *err)
{
	struct buf dir = BUF_INIT;
	const char *p, *slash, *plain = NULL;
	size_t i = 0, j, len, plain_len = 0;
	git_oid id;
	int rc = 0, all;

	while (!rc && i < n) {
		p = raw[i].path;
		slash = strrchr(p, '/');
		if (plain && slash && (size_t)(slash - p) == plain_len &&
		    !strncmp(p, plain, plain_len)) {
			/* In the folder of the entry before, which lies in no
			 * folder claimed whole: neither does this one. */
			rc = folded_push(f, &raw[i++], err);
			continue;
		}
		all = 0;
		for (slash = strchr(p, '/'); !rc && slash && !all;
		     slash = strchr(slash + 1, '/')) {
			buf_reset(&dir);
			rc = buf_add(&dir, p, (size_t)(slash - p), err);
			all = !rc && pattern_set_claims_all_below(set, dir.data);
		}
		if (rc)
			break;
		if (!all) {
			slash = strrchr(p, '/');
			plain = slash ? p : NULL;
			plain_len = slash ? (size_t)(slash - p) : 0;
			rc = folded_push(f, &raw[i++], err);
			continue;
		}
		len = dir.len;
		for (j = i + 1; j < n && under(raw[j].path, p, len); j++)
			;
		rc = fold_dir(f, raw, i, j, len, &id, err);
		i = j;
	}
	buf_release(&dir);
	return rc;
}

void
graph_source_folded_release(struct graph_source_folded *f)
{
	mem_free(f->v);
	arena_release(&f->arena);
	memset(f, 0, sizeof(*f));
	arena_init(&f->arena);
}
