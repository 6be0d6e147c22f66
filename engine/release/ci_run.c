/*
 * Release check 3: the successful CI run of exactly this tag at exactly
 * the tag's commit, looked up in the cache (read-only); runs of the same
 * commit under another ref, or of the tag at another commit, are near
 * misses and named in the report.
 */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "engine/release/internal.h"
#include "base/banned.h"

static void
near_miss(struct release_ctx *x, const struct cache_run *run, const char *why)
{
	struct release_near_miss *m;
	size_t n = x->r->n_near_misses;

	m = arena_alloc(x->a, (n + 1) * sizeof(*m));
	if (!m)
		return;
	if (n)
		memcpy(m, x->r->near_misses, n * sizeof(*m));
	m[n].run = arena_strdup(x->a, run->id);
	m[n].commit = run->commit ? arena_strdup(x->a, run->commit) : NULL;
	m[n].ref = run->ref ? arena_strdup(x->a, run->ref) : NULL;
	m[n].tag = run->tag ? arena_strdup(x->a, run->tag) : NULL;
	m[n].status = cache_run_status_name(run->status);
	m[n].why = why;
	x->r->near_misses = m;
	x->r->n_near_misses = n + 1;
}

/* Does run qualify? NULL when it does, else why not. */
static const char *
run_mismatch(const struct release_ctx *x, const struct cache_run *run)
{
	int same_commit = run->commit && !strcmp(run->commit, x->r->commit);
	int same_tag = run->tag && !strcmp(run->tag, x->opt->tag);

	if (same_commit && same_tag)
		return run->status == CACHE_RUN_STATUS_OK ? NULL
			: "not successful";
	if (same_commit)
		return "same commit under another ref";
	if (same_tag)
		return "the tag at another commit";
	return "another commit and tag";
}

static int
sort_miss(const void *a, const void *b)
{
	return strcmp(((const struct release_near_miss *)a)->run,
		      ((const struct release_near_miss *)b)->run);
}

/* Check 3: the successful run of exactly this tag and commit. */
int
release_check_run(struct release_ctx *x, struct error *err)
{
	struct cache_run_filter f = CACHE_RUN_FILTER_INIT;
	struct cache_run_list list = { NULL, 0 };
	size_t i, n_ok = 0;
	int rc = 0;

	if (!x->have_commit) {
		release_set(x, RELEASE_CHECK_RUN, RELEASE_STATUS_SKIP,
			    "the tag does not resolve");
		return 0;
	}
	if (!x->cache && x->opt->remote && x->node && !x->opt->run)
		return release_check_remote(x, err);
	if (!x->cache) {
		release_set(x, RELEASE_CHECK_RUN, RELEASE_STATUS_FAIL,
			    "no cache at %s: no run is recorded",
			    x->opt->cache_path ? x->opt->cache_path : "-");
		return 0;
	}
	if (x->opt->run) {
		struct cache_run one;
		const char *why;

		memset(&one, 0, sizeof(one));
		rc = cache_run_get(x->cache, x->opt->run, &one, err);
		if (rc == ERROR_NOT_FOUND) {
			error_init(err);
			release_set(x, RELEASE_CHECK_RUN, RELEASE_STATUS_FAIL,
				    "run '%s' is not in the cache",
				    x->opt->run);
			return 0;
		}
		if (rc)
			return rc;
		why = run_mismatch(x, &one);
		if (why) {
			near_miss(x, &one, why);
			release_set(x, RELEASE_CHECK_RUN, RELEASE_STATUS_FAIL,
				    "run '%s' does not qualify: %s (tag %s, "
				    "commit %.12s, status %s)", one.id, why,
				    one.tag ? one.tag : "-",
				    one.commit ? one.commit : "-",
				    cache_run_status_name(one.status));
			cache_run_release(&one);
			return 0;
		}
		x->r->run = arena_strdup(x->a, one.id);
		cache_run_release(&one);
		release_set(x, RELEASE_CHECK_RUN, RELEASE_STATUS_OK,
			    "run %s (given): tag %s at %.12s, ok", x->r->run,
			    x->opt->tag, x->r->commit);
		goto records;
	}
	/* Runs of the commit (any ref) and runs of the tag (any commit). */
	for (i = 0; i < 2; i++) {
		size_t k;

		f.commit = i ? NULL : x->r->commit;
		f.tag = i ? x->opt->tag : NULL;
		rc = cache_run_list(x->cache, &f, &list, err);
		if (rc)
			return rc;
		for (k = 0; k < list.n; k++) {
			const struct cache_run *run = &list.items[k];
			const char *why = run_mismatch(x, run);

			if (!why) {
				if (!i) {
					n_ok++;
					x->r->run = arena_strdup(x->a, run->id);
				}
			} else if (i == 0 || !run->commit ||
				   strcmp(run->commit, x->r->commit)) {
				near_miss(x, run, why);
			}
		}
		cache_run_list_release(&list);
	}
	if (x->r->n_near_misses > 1)
		qsort(x->r->near_misses, x->r->n_near_misses,
		      sizeof(*x->r->near_misses), sort_miss);
	for (i = 0; i < x->r->n_near_misses; i++) {
		const struct release_near_miss *m = &x->r->near_misses[i];

		if (release_problem(x, RELEASE_CHECK_RUN,
				    "near miss: run %s (%s): ref %s, tag %s, "
				    "commit %.12s, %s", m->run, m->why,
				    m->ref ? m->ref : "-", m->tag ? m->tag : "-",
				    m->commit ? m->commit : "-", m->status))
			return error_set(err, ERROR_NOMEM, "out of memory");
	}
	if (!n_ok && x->opt->remote && x->node)
		return release_check_remote(x, err);
	if (!n_ok) {
		release_set(x, RELEASE_CHECK_RUN, RELEASE_STATUS_FAIL,
			    "no successful run for tag '%s' at commit %.12s%s",
			    x->opt->tag, x->r->commit,
			    x->r->n_near_misses ? " (near misses below)"
			    : "; wait for the tag's CI run");
		return 0;
	}
	release_set(x, RELEASE_CHECK_RUN, RELEASE_STATUS_OK,
		    "run %s: tag %s at %.12s, ok%s", x->r->run, x->opt->tag,
		    x->r->commit, n_ok > 1 ? " (the newest of several)" : "");
records:
	rc = cache_record_list(x->cache, x->r->run, &x->recs, err);
	if (!rc)
		x->have_run = 1;
	return rc;
}

/* Expand a release template: ${tag} first, then template_expand. */
