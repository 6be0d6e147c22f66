/*
 * The working tree as git status sees it: the index overlaid with unstaged
 * changes and untracked files that are not ignored, hashing only what
 * status reports changed; and source sets computed over that snapshot.
 */
#include "graph/source.h"
#include "graph/source_int.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/fsys.h"
#include "base/mem.h"
#include "base/strv.h"
#include "graph/pattern.h"
#include "graph/repo_git.h"
#include "base/banned.h"

struct wt_entry {
	struct graph_source_raw raw;
	char *link;	/* symlinks read from disk: their text; else NULL */
	int gone;
};

struct graph_worktree {
	struct graph_repo *repo;
	struct arena arena;
	struct wt_entry *v;
	size_t n, cap;
};

static int
cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct wt_entry *)a)->raw.path,
		      ((const struct wt_entry *)b)->raw.path);
}

static int
cmp_raw(const void *a, const void *b)
{
	return strcmp(((const struct graph_source_raw *)a)->path,
		      ((const struct graph_source_raw *)b)->path);
}

static struct wt_entry *
find(const struct graph_worktree *wt, const char *path)
{
	struct wt_entry key;

	key.raw.path = path;
	return bsearch(&key, wt->v, wt->n, sizeof(*wt->v), cmp_entry);
}

static int
push(struct graph_worktree *wt, struct error *err)
{
	struct wt_entry *nv;

	if (wt->n == wt->cap) {
		size_t cap = wt->cap ? wt->cap * 2 : 1024;

		nv = mem_realloc(wt->v, cap * sizeof(*nv));
		if (!nv)
			return error_set(err, ERROR_NOMEM, "out of memory");
		wt->v = nv;
		wt->cap = cap;
	}
	memset(&wt->v[wt->n], 0, sizeof(wt->v[0]));
	wt->n++;
	return 0;
}

/* Hash the working-tree file at path into e (mode, blob id, link text). */
static int
hash_path(struct graph_worktree *wt, const char *path, struct wt_entry *e,
	  struct error *err)
{
	struct buf full = BUF_INIT;
	struct fsys_stat sb;
	char link[4096];
	size_t n;
	git_oid oid;
	int rc = 0, grc, e_link;

	rc = buf_addf(&full, err, "%s/%s", graph_repo_root(wt->repo), path);
	if (rc)
		goto done;
	if (fsys_lstat(full.data, &sb)) {
		e->gone = 1;	/* vanished since status: treat as deleted */
		goto done;
	}
	if (sb.kind == FSYS_LNK) {
		e_link = fsys_readlink(full.data, link, sizeof(link), &n);
		if (e_link) {
			rc = error_set(err, ERROR_IO, "reading symlink '%s': %s",
				       path, strerror(e_link));
			goto done;
		}
		grc = git_odb_hash(&oid, link, n, GIT_OBJECT_BLOB);
		e->raw.mode = 0120000;
		e->link = arena_strndup(&wt->arena, link, n);
		if (!e->link) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			goto done;
		}
	} else if (sb.kind == FSYS_REG) {
		grc = git_repository_hashfile(&oid, graph_repo_git(wt->repo),
					      full.data, GIT_OBJECT_BLOB, path);
		/* No executable bit on Windows: the index's stays. */
		if (fsys_exec_bits() || (e->raw.mode & 0170000) != 0100000)
			e->raw.mode = (sb.mode & 0100) ? 0100755 : 0100644;
	} else {
		e->gone = 1;	/* a directory (e.g. a nested repo) or device */
		goto done;
	}
	if (grc < 0) {
		rc = graph_repo_git_error(wt->repo, grc, err, "hashing a file");
		goto done;
	}
	memcpy(e->raw.oid, oid.id, 20);
done:
	buf_release(&full);
	return rc;
}

static int
read_index(struct graph_worktree *wt, struct error *err)
{
	git_index *idx = NULL;
	const git_index_entry *ie;
	size_t i, n;
	int rc = 0, grc;

	grc = git_repository_index(&idx, graph_repo_git(wt->repo));
	if (grc < 0)
		return graph_repo_git_error(wt->repo, grc, err,
					    "reading the index");
	n = git_index_entrycount(idx);
	for (i = 0; i < n; i++) {
		ie = git_index_get_byindex(idx, i);
		if (GIT_INDEX_ENTRY_STAGE(ie) != 0)
			continue;	/* conflicts: status hashes the file */
		rc = push(wt, err);
		if (rc)
			break;
		wt->v[wt->n - 1].raw.path = arena_strdup(&wt->arena, ie->path);
		if (!wt->v[wt->n - 1].raw.path) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			break;
		}
		wt->v[wt->n - 1].raw.mode = ie->mode;
		memcpy(wt->v[wt->n - 1].raw.oid, ie->id.id, 20);
	}
	git_index_free(idx);
	return rc;
}

static int
overlay(struct graph_worktree *wt, struct error *err)
{
	git_status_options o;
	git_status_list *list = NULL;
	const git_status_entry *s;
	const char *path;
	struct wt_entry *e;
	size_t i, n, base = wt->n;
	int rc = 0, grc;

	git_status_options_init(&o, GIT_STATUS_OPTIONS_VERSION);
	o.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	o.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED |
		GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
		GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	grc = git_status_list_new(&list, graph_repo_git(wt->repo), &o);
	if (grc < 0)
		return graph_repo_git_error(wt->repo, grc, err,
					    "reading the working tree status");
	n = git_status_list_entrycount(list);
	for (i = 0; i < n && !rc; i++) {
		s = git_status_byindex(list, i);
		if (!(s->status & (GIT_STATUS_WT_NEW | GIT_STATUS_WT_MODIFIED |
				   GIT_STATUS_WT_DELETED |
				   GIT_STATUS_WT_TYPECHANGE |
				   GIT_STATUS_CONFLICTED)))
			continue;
		path = s->index_to_workdir ? s->index_to_workdir->new_file.path :
			s->head_to_index->new_file.path;
		e = base ? bsearch(&(struct wt_entry){ .raw.path = path },
				   wt->v, base, sizeof(*wt->v), cmp_entry) :
			NULL;
		if (s->status & GIT_STATUS_WT_DELETED) {
			if (e)
				e->gone = 1;
			continue;
		}
		if (!e) {
			rc = push(wt, err);
			if (rc)
				break;
			e = &wt->v[wt->n - 1];
			e->raw.path = arena_strdup(&wt->arena, path);
			if (!e->raw.path) {
				rc = error_set(err, ERROR_NOMEM, "out of memory");
				break;
			}
		}
		rc = hash_path(wt, e->raw.path, e, err);
	}
	git_status_list_free(list);
	return rc;
}

int
graph_worktree_read(struct graph_repo *repo, struct graph_worktree **out,
		    struct error *err)
{
	struct graph_worktree *wt;
	size_t i, j;
	int rc;

	*out = NULL;
	rc = graph_repo_need_worktree(repo, "--worktree", err);
	if (rc)
		return rc;
	wt = mem_calloc(1, sizeof(*wt));
	if (!wt)
		return error_set(err, ERROR_NOMEM, "out of memory");
	wt->repo = repo;
	arena_init(&wt->arena);
	rc = read_index(wt, err);
	if (!rc && wt->n)
		qsort(wt->v, wt->n, sizeof(*wt->v), cmp_entry);
	if (!rc)
		rc = overlay(wt, err);
	if (rc) {
		graph_worktree_free(wt);
		return rc;
	}
	for (i = j = 0; i < wt->n; i++)
		if (!wt->v[i].gone)
			wt->v[j++] = wt->v[i];
	wt->n = j;
	if (wt->n)
		qsort(wt->v, wt->n, sizeof(*wt->v), cmp_entry);
	*out = wt;
	return 0;
}

void
graph_worktree_free(struct graph_worktree *wt)
{
	if (!wt)
		return;
	mem_free(wt->v);
	arena_release(&wt->arena);
	mem_free(wt);
}

size_t
graph_worktree_count(const struct graph_worktree *wt)
{
	return wt->n;
}

/* First entry whose path is >= s. */
static size_t
lower_bound(const struct graph_worktree *wt, const char *s)
{
	size_t lo = 0, hi = wt->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(wt->v[mid].raw.path, s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int
under(const char *path, const char *dir, size_t dlen)
{
	return !strncmp(path, dir, dlen) && path[dlen] == '/';
}

static int
wv_lookup(void *ctx, const char *path, unsigned *mode, unsigned char oid[20],
	  struct error *err)
{
	const struct graph_worktree *wt = ctx;
	struct wt_entry *e = find(wt, path);
	size_t i, len = strlen(path);

	(void)err;
	if (e) {
		*mode = e->raw.mode;
		memcpy(oid, e->raw.oid, 20);
		return 0;
	}
	/* "a/x" sorts after "a-b" but before "a0": scan from "a/". */
	for (i = lower_bound(wt, path); i < wt->n; i++) {
		if (under(wt->v[i].raw.path, path, len)) {
			*mode = 040000;
			memset(oid, 0, 20);
			return 0;
		}
		if (strncmp(wt->v[i].raw.path, path, len))
			break;
	}
	return 1;
}

static int
wv_link_text(void *ctx, const char *path, const unsigned char oid[20],
	     struct buf *out, struct error *err)
{
	const struct graph_worktree *wt = ctx;
	struct wt_entry *e = find(wt, path);
	git_blob *b = NULL;
	char what[512];
	int grc, rc;

	if (e && e->link)
		return buf_addstr(out, e->link, err);
	grc = git_blob_lookup(&b, graph_repo_git(wt->repo),
			      (const git_oid *)oid);
	if (grc < 0) {
		snprintf(what, sizeof(what), "reading symlink '%s'", path);
		return graph_repo_git_error(wt->repo, grc, err, what);
	}
	rc = buf_add(out, git_blob_rawcontent(b), (size_t)git_blob_rawsize(b),
		     err);
	git_blob_free(b);
	return rc;
}

static int
wv_dir_digest(void *ctx, const char *path, unsigned char d[16],
	      struct error *err)
{
	const struct graph_worktree *wt = ctx;
	size_t i, len = strlen(path);
	XXH3_state_t h;
	XXH128_canonical_t c;

	(void)err;
	XXH3_128bits_reset(&h);
	XXH3_128bits_update(&h, "ripple-dir-v1", 14);
	for (i = lower_bound(wt, path); i < wt->n; i++) {
		if (strncmp(wt->v[i].raw.path, path, len))
			break;
		if (under(wt->v[i].raw.path, path, len))
			graph_source_dir_entry(&h, wt->v[i].raw.path + len + 1,
					       wt->v[i].raw.mode,
					       wt->v[i].raw.oid);
	}
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&h));
	memcpy(d, c.digest, 16);
	return 0;
}

/* Is [s, s + len) one of the prefixes (sorted by strcmp)? */
static int
has_prefix(const struct strv *pre, const char *s, size_t len)
{
	size_t lo = 0, hi = pre->n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strncmp(pre->v[mid], s, len);
		if (!c && pre->v[mid][len])
			c = 1;
		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * Is prefix p under another prefix (which then covers it)? Its ancestors
 * are looked up, not every other prefix: a set may have 50,000.
 */
static int
nested(const struct strv *pre, size_t p)
{
	const char *s = pre->v[p], *slash;

	for (slash = strchr(s, '/'); slash; slash = strchr(slash + 1, '/'))
		if (has_prefix(pre, s, (size_t)(slash - s)))
			return 1;
	return 0;
}

int
graph_source_compute_worktree(const struct graph_worktree *wt,
			      const struct pattern_set *set,
			      struct graph_source_state *out,
			      struct error *err)
{
	struct graph_source_view view = { (void *)wt, wv_lookup, wv_link_text,
					  wv_dir_digest };
	struct graph_source_raw *raw = NULL;
	struct strv pre = STRV_INIT;
	struct graph_source_folded f;
	size_t i, n = 0, p, len;
	int rc;

	memset(&f, 0, sizeof(f));
	arena_init(&f.arena);
	memset(out, 0, sizeof(*out));
	arena_init(&out->arena);
	rc = pattern_set_prefixes(set, &pre, err);
	if (rc)
		goto done;
	if (wt->n) {
		raw = mem_calloc(wt->n, sizeof(*raw));
		if (!raw) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			goto done;
		}
	}
	if (!pre.n || !pre.v[0][0]) {
		for (i = 0; i < wt->n; i++)
			if (pattern_set_match(set, wt->v[i].raw.path))
				raw[n++] = wt->v[i].raw;
	} else {
		for (p = 0; p < pre.n; p++) {
			if (nested(&pre, p))
				continue;
			len = strlen(pre.v[p]);
			for (i = lower_bound(wt, pre.v[p]); i < wt->n; i++) {
				const char *s = wt->v[i].raw.path;

				if (strncmp(s, pre.v[p], len))
					break;
				if ((s[len] == '/' || !s[len]) &&
				    pattern_set_match(set, s))
					raw[n++] = wt->v[i].raw;
			}
		}
		qsort(raw, n, sizeof(*raw), cmp_raw);
	}
	rc = graph_source_add_markers(set, raw, n, &f, err);
	if (!rc)
		rc = graph_source_finish(out, f.v, f.n, &view, err);
done:
	graph_source_folded_release(&f);
	mem_free(raw);
	strv_release(&pre);
	return rc;
}
