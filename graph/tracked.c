/*
 * Which tracked files the working tree changed since a snapshot, by stat
 * data first and content second (see graph/restore.h for why not
 * `git status`).
 */
#include "graph/restore.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/fsys.h"
#include "base/mem.h"
#include "base/strv.h"
#include "graph/repo_git.h"
#include "base/banned.h"

struct entry {
	const char *path;	/* arena */
	git_oid ref;		/* the content it is compared with */
	unsigned ref_mode;	/* git mode of ref; 0: the file was absent */
	int exists;		/* lstat at the snapshot or last change: */
	struct fsys_stat st;
};

struct graph_tracked {
	struct arena arena;
	struct entry *v;
	size_t n;
};

void
graph_tracked_free(struct graph_tracked *t)
{
	if (!t)
		return;
	arena_release(&t->arena);
	mem_free(t->v);
	mem_free(t);
}

static int
same_stat(const struct fsys_stat *a, const struct fsys_stat *b)
{
	return a->kind == b->kind && a->mode == b->mode &&
	       a->size == b->size && a->ino == b->ino && a->dev == b->dev &&
	       a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
	       a->ctime_s == b->ctime_s && a->ctime_ns == b->ctime_ns;
}

/* A regular file's executable bit: the file's, or on a file system
 * without one (Windows) the index's, as git's core.filemode false. */
static unsigned
exec_bit(const struct fsys_stat *st, unsigned index_mode)
{
	return fsys_exec_bits() ? st->mode & 0100 : index_mode & 0100;
}

/* The git mode and blob id of what is at full now; mode 0: absent or
 * unreadable (then the id is zero). index_mode: the index's mode. */
static void
content_id(const char *full, const struct fsys_stat *st, int exists,
	   unsigned index_mode, unsigned *mode, git_oid *id)
{
	char target[4096];
	size_t n;

	memset(id, 0, sizeof(*id));
	*mode = 0;
	if (!exists)
		return;
	if (st->kind == FSYS_LNK) {
		if (!fsys_readlink(full, target, sizeof(target), &n) &&
		    !git_odb_hash(id, target, n, GIT_OBJECT_BLOB))
			*mode = GIT_FILEMODE_LINK;
		return;
	}
	if (st->kind != FSYS_REG)
		return;
	if (!git_odb_hashfile(id, full, GIT_OBJECT_BLOB))
		*mode = exec_bit(st, index_mode) ? GIT_FILEMODE_BLOB_EXECUTABLE
					   : GIT_FILEMODE_BLOB;
}

/* The index's mode as a file's kind and executable bit ("100664" is
 * still a plain file). */
static unsigned
norm_mode(unsigned mode)
{
	if ((mode & 0170000) == 0120000)
		return GIT_FILEMODE_LINK;
	return mode & 0100 ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
}

static int
index_stat_matches(const git_index_entry *ie, const struct fsys_stat *st)
{
	return (uint32_t)st->size == ie->file_size &&
	       (int32_t)st->mtime_s == ie->mtime.seconds &&
	       (uint32_t)st->mtime_ns == ie->mtime.nanoseconds &&
	       norm_mode(ie->mode) == (st->kind == FSYS_LNK
				       ? GIT_FILEMODE_LINK
				       : exec_bit(st, ie->mode)
				       ? GIT_FILEMODE_BLOB_EXECUTABLE
				       : GIT_FILEMODE_BLOB);
}

int
graph_tracked_snapshot(struct graph_repo *repo, const struct strv *only,
		       struct graph_tracked **out, struct error *err)
{
	const char *root = graph_repo_root(repo);
	struct graph_tracked *t = mem_calloc(1, sizeof(*t));
	git_index *idx = NULL;
	size_t i, n;
	int grc, rc = 0;

	*out = NULL;
	if (!t)
		return error_set(err, ERROR_NOMEM, "out of memory");
	arena_init(&t->arena);
	grc = git_repository_index(&idx, graph_repo_git(repo));
	if (grc < 0) {
		rc = graph_repo_git_error(repo, grc, err, "reading the index");
		goto done;
	}
	n = git_index_entrycount(idx);
	t->v = mem_calloc(n + 1, sizeof(*t->v));
	if (!t->v) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < n; i++) {
		const git_index_entry *ie = git_index_get_byindex(idx, i);
		struct entry *e = &t->v[t->n];
		char full[4096];

		if (!ie || git_index_entry_stage(ie) ||
		    (ie->mode & 0170000) == 0160000 ||
		    (only && (!only->n || !bsearch(&ie->path, only->v,
						   only->n, sizeof(char *),
						   sort_cmp_str))))
			continue;
		e->path = arena_strdup(&t->arena, ie->path);
		if (!e->path) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			goto done;
		}
		snprintf(full, sizeof(full), "%s/%s", root, ie->path);
		e->exists = !fsys_lstat(full, &e->st);
		if (e->exists && index_stat_matches(ie, &e->st)) {
			e->ref = ie->id;
			e->ref_mode = norm_mode(ie->mode);
		} else {
			/* Differs from the index already: compare with
			 * what it holds now. */
			content_id(full, &e->st, e->exists, ie->mode,
				   &e->ref_mode, &e->ref);
			if (e->exists && e->ref_mode == norm_mode(ie->mode) &&
			    !git_oid_cmp(&e->ref, &ie->id))
				e->ref = ie->id;
		}
		t->n++;
	}
done:
	git_index_free(idx);
	if (rc) {
		graph_tracked_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int
graph_tracked_changed(struct graph_repo *repo, struct graph_tracked *t,
		      struct strv *out, struct error *err)
{
	const char *root = graph_repo_root(repo);
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < t->n; i++) {
		struct entry *e = &t->v[i];
		char full[4096];
		struct fsys_stat st;
		unsigned mode;
		git_oid id;
		int exists;

		snprintf(full, sizeof(full), "%s/%s", root, e->path);
		exists = !fsys_lstat(full, &st);
		if (exists == e->exists && (!exists || same_stat(&st, &e->st)))
			continue;
		e->exists = exists;
		if (exists)
			e->st = st;
		content_id(full, &st, exists, e->ref_mode, &mode, &id);
		if (mode == e->ref_mode && (!mode || !git_oid_cmp(&id, &e->ref)))
			continue;	/* touched, same content */
		e->ref = id;
		e->ref_mode = mode;
		rc = strv_push(out, e->path, err);
	}
	return rc;
}
