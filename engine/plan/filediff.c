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

int
filediff_from_cache(struct cache *c, struct arena *a, const char *key,
		    struct filediff_entry **out, size_t *n, struct error *err)
{
	struct cache_manifest m;
	struct filediff_entry *v;
	struct error e2;
	size_t i, k = 0;

	*out = NULL;
	*n = 0;
	memset(&m, 0, sizeof(m));
	error_init(&e2);
	if (!c || cache_manifest_get(c, key, &m, &e2))
		return 0;	/* not stored: file detail unknown */
	v = arena_alloc(a, (m.n + 1) * sizeof(*v));
	if (!v) {
		cache_manifest_release(&m);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	for (i = 0; i < m.n; i++) {
		if (strcmp(m.items[i].kind, "file"))
			continue;
		v[k].path = arena_strdup(a, m.items[i].name);
		v[k].digest = arena_strdup(a, m.items[i].digest);
		v[k].detail = arena_strdup(a, m.items[i].detail);
		if (!v[k].path || !v[k].digest || !v[k].detail) {
			cache_manifest_release(&m);
			return error_set(err, ERROR_NOMEM, "out of memory");
		}
		k++;
	}
	cache_manifest_release(&m);
	*out = v;
	*n = k;
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
		record_file_identity(&st->files[i], digest, sizeof(digest),
				     detail, sizeof(detail));
		v[i].path = st->files[i].path;
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
