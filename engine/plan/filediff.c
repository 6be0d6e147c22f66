/*
 * File-list differences: one merge walk over two path-sorted lists of file
 * identities, from stored source manifests or live source states.
 */
#include "engine/plan/filediff.h"

#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "cache/cache.h"
#include "engine/plan/plan.h"
#include "engine/plan/record.h"
#include "graph/source.h"
#include "base/banned.h"

struct from_cache {
	struct arena *a;
	struct filediff_entry *v;
	size_t n;
};

/* cache_manifest_each's component_fn: the "file" entries into the arena. */
static int
take_file(void *payload, size_t i, size_t n, const struct cache_component *it)
{
	struct from_cache *f = payload;
	struct filediff_entry *e;

	if (!i) {
		f->v = arena_alloc(f->a, (n + 1) * sizeof(*f->v));
		if (!f->v)
			return ERROR_NOMEM;
	}
	if (strcmp(it->kind, "file"))
		return 0;
	e = &f->v[f->n++];
	e->path = arena_strdup(f->a, it->name);
	e->digest = arena_strdup(f->a, it->digest);
	e->detail = arena_strdup(f->a, it->detail);
	return e->path && e->digest && e->detail ? 0 : ERROR_NOMEM;
}

int
filediff_from_cache(struct cache *c, struct arena *a, const char *key,
		    struct filediff_entry **out, size_t *n, struct error *err)
{
	struct from_cache f = { a, NULL, 0 };
	struct error e2;
	int rc;

	*out = NULL;
	*n = 0;
	error_init(&e2);
	if (!c)
		return 0;
	rc = cache_manifest_each(c, key, take_file, &f, &e2);
	if (rc == ERROR_NOMEM)
		return error_set(err, ERROR_NOMEM, "out of memory");
	if (rc)
		return 0;	/* not stored: file detail unknown */
	if (!f.v && !(f.v = arena_alloc(a, sizeof(*f.v))))
		return error_set(err, ERROR_NOMEM, "out of memory");
	*out = f.v;
	*n = f.n;
	return 1;
}

int
filediff_from_state(struct arena *a, const struct graph_source_state *st,
		    struct filediff_entry **out, size_t *n, struct error *err)
{
	struct filediff_entry *v = arena_alloc(a, (st->n_files + 1) *
						  sizeof(*v));
	char digest[128], detail[4200];
	size_t i;

	*out = NULL;
	*n = 0;
	if (!v)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; i < st->n_files; i++) {
		const struct graph_source_file *f = &st->files[i];

		v[i].path = f->path;
		/* A plain file of mode 644 or 755, most of a set: the texts
		 * record_file_identity writes ("%s" of the blob id, "%o"
		 * of the mode), without printf or a copy (the state
		 * outlives the comparison; explanations copy what they
		 * keep). 1,500 instructions a file before. */
		if ((f->kind != GRAPH_FILE_SYMLINK || !f->target_id[0]) &&
		    !f->link_target &&
		    (f->mode == 0100644 || f->mode == 0100755)) {
			v[i].digest = f->id;
			v[i].detail = f->mode == 0100644 ? "100644" : "100755";
			continue;
		}
		record_file_identity(f, digest, sizeof(digest), detail,
				     sizeof(detail));
		v[i].digest = arena_strdup(a, digest);
		v[i].detail = arena_strdup(a, detail);
		if (!v[i].digest || !v[i].detail)
			return error_set(err, ERROR_NOMEM, "out of memory");
	}
	*out = v;
	*n = st->n_files;
	return 0;
}

static const char *
link_text(const char *detail)
{
	const char *arrow = detail ? strstr(detail, " -> ") : NULL;

	return arrow ? arrow + 4 : NULL;
}

int
filediff_compare(struct arena *a, const struct filediff_entry *o, size_t no,
		 const struct filediff_entry *n, size_t nn,
		 struct plan_file_diff **out, size_t *count,
		 struct error *err)
{
	struct plan_file_diff *d = arena_alloc(a, (no + nn + 1) * sizeof(*d));
	size_t x = 0, y = 0, k = 0;

	if (!d)
		return error_set(err, ERROR_NOMEM, "out of memory");
	memset(d, 0, (no + nn + 1) * sizeof(*d));
	while (x < no || y < nn) {
		int c = x >= no ? 1 : y >= nn ? -1 : strcmp(o[x].path, n[y].path);

		if (c < 0) {
			d[k].path = o[x].path;
			d[k].status = PLAN_FILE_REMOVED;
			d[k].old_id = o[x].digest;
			k++;
			x++;
			continue;
		}
		if (c > 0) {
			d[k].path = n[y].path;
			d[k].status = PLAN_FILE_ADDED;
			d[k].new_id = n[y].digest;
			k++;
			y++;
			continue;
		}
		if (strcmp(o[x].digest, n[y].digest) ||
		    strcmp(o[x].detail, n[y].detail)) {
			const char *lo = link_text(o[x].detail),
				   *ln = link_text(n[y].detail);

			d[k].path = n[y].path;
			d[k].old_id = o[x].digest;
			d[k].new_id = n[y].digest;
			if (lo && ln && strcmp(lo, ln)) {
				d[k].status = PLAN_FILE_RETARGETED;
				d[k].old_id = lo;
				d[k].new_id = ln;
			} else if (!strcmp(o[x].digest, n[y].digest)) {
				d[k].status = PLAN_FILE_MODE;
				d[k].old_id = o[x].detail;
				d[k].new_id = n[y].detail;
			} else {
				d[k].status = PLAN_FILE_MODIFIED;
			}
			k++;
		}
		x++;
		y++;
	}
	*out = d;
	*count = k;
	return 0;
}
