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
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/strv.h"
#include "graph/repo_git.h"
#include "base/banned.h"

struct entry {
	const char *path;	/* arena */
	git_oid ref;		/* the content it is compared with */
	unsigned ref_mode;	/* git mode of ref; 0: the file was absent */
	int exists;		/* lstat at the snapshot or last change: */
	struct stat st;
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
same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_mode == b->st_mode && a->st_size == b->st_size &&
	       a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* The git mode and blob id of what is at full now; mode 0: absent or
 * unreadable (then the id is zero). */
static void
content_id(const char *full, const struct stat *st, int exists,
	   unsigned *mode, git_oid *id)
{
	char target[4096];
	ssize_t n;

	memset(id, 0, sizeof(*id));
	*mode = 0;
	if (!exists)
		return;
	if (S_ISLNK(st->st_mode)) {
		n = readlink(full, target, sizeof(target));
		if (n >= 0 && (size_t)n < sizeof(target) &&
		    !git_odb_hash(id, target, (size_t)n, GIT_OBJECT_BLOB))
			*mode = GIT_FILEMODE_LINK;
		return;
	}
	if (!S_ISREG(st->st_mode))
		return;
	if (!git_odb_hashfile(id, full, GIT_OBJECT_BLOB))
		*mode = st->st_mode & 0100 ? GIT_FILEMODE_BLOB_EXECUTABLE
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
index_stat_matches(const git_index_entry *ie, const struct stat *st)
{
	return (uint32_t)st->st_size == ie->file_size &&
	       (int32_t)st->st_mtim.tv_sec == ie->mtime.seconds &&
	       (uint32_t)st->st_mtim.tv_nsec == ie->mtime.nanoseconds &&
	       norm_mode(ie->mode) == (S_ISLNK(st->st_mode)
				       ? GIT_FILEMODE_LINK
				       : st->st_mode & 0100
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
		e->exists = !lstat(full, &e->st);
		if (e->exists && index_stat_matches(ie, &e->st)) {
			e->ref = ie->id;
			e->ref_mode = norm_mode(ie->mode);
		} else {
			/* Differs from the index already: compare with
			 * what it holds now. */
			content_id(full, &e->st, e->exists, &e->ref_mode,
				   &e->ref);
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
		struct stat st;
		unsigned mode;
		git_oid id;
		int exists;

		snprintf(full, sizeof(full), "%s/%s", root, e->path);
		exists = !lstat(full, &st);
		if (exists == e->exists && (!exists || same_stat(&st, &e->st)))
			continue;
		e->exists = exists;
		if (exists)
			e->st = st;
		content_id(full, &st, exists, &mode, &id);
		if (mode == e->ref_mode && (!mode || !git_oid_cmp(&id, &e->ref)))
			continue;	/* touched, same content */
		e->ref = id;
		e->ref_mode = mode;
		rc = strv_push(out, e->path, err);
	}
	return rc;
}
