/*
 * A changed source set's files named from the tree diff of its prefixes
 * (eval_input_changes), for explanations: the stored file list of the
 * baseline's key and the head's walk of the whole set, each as long as
 * the set, are read only where the diff cannot be trusted to say the
 * same (engine/plan/history.c falls back to them).
 */
#include "engine/plan/eval.h"
#include "engine/plan/eval_int.h"

#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "engine/plan/plan.h"
#include "graph/source.h"
#include "base/banned.h"

static const char *
hex_in(struct arena *a, const struct graph_oid *id)
{
	char hex[GRAPH_OID_HEX];

	graph_oid_hex(id, hex);
	return arena_strdup(a, hex);
}

static const char *
mode_text(unsigned mode)
{
	return mode == 0100755 ? "100755" : "100644";
}

/*
 * ch's changes as filediff_compare words them for two lists of plain
 * files (digest: the blob id, detail: the mode), into *out.
 */
static int
to_file_diffs(struct arena *a, const struct graph_change_list *ch,
	      struct plan_file_diff **out, size_t *n, struct error *err)
{
	struct plan_file_diff *d = arena_alloc(a, (ch->n + 1) * sizeof(*d));
	size_t i, k = 0;

	if (!d)
		return error_nomem(err);
	memset(d, 0, (ch->n + 1) * sizeof(*d));
	for (i = 0; i < ch->n; i++) {
		const struct graph_change *c = &ch->items[i];
		struct plan_file_diff *f = &d[k];

		f->path = arena_strdup(a, c->path);
		if (!c->old_mode) {
			f->status = PLAN_FILE_ADDED;
			f->new_id = hex_in(a, &c->new_id);
		} else if (!c->new_mode) {
			f->status = PLAN_FILE_REMOVED;
			f->old_id = hex_in(a, &c->old_id);
		} else if (memcmp(c->old_id.id, c->new_id.id, 20)) {
			f->status = PLAN_FILE_MODIFIED;
			f->old_id = hex_in(a, &c->old_id);
			f->new_id = hex_in(a, &c->new_id);
		} else if (c->old_mode != c->new_mode) {
			f->status = PLAN_FILE_MODE;
			f->old_id = mode_text(c->old_mode);
			f->new_id = mode_text(c->new_mode);
		} else {
			continue;	/* raw mode bits git does not keep */
		}
		if (!f->path || (!f->old_id && f->status != PLAN_FILE_ADDED) ||
		    (!f->new_id && f->status != PLAN_FILE_REMOVED))
			return error_nomem(err);
		k++;
	}
	*out = d;
	*n = k;
	return 0;
}

/* The commit of run `run_id` in c into *out: 1, or 0 when it has none
 * this repository holds; ERROR_NOMEM. */
static int
run_commit_read(struct eval *ev, struct cache *c, const char *run_id,
		struct graph_oid *out, struct error *err)
{
	struct cache_run run;
	struct error e2;
	int rc;

	memset(&run, 0, sizeof(run));
	error_init(&e2);
	rc = cache_run_get(c, run_id, &run, &e2);
	if (!rc && run.commit)
		rc = graph_repo_resolve(ev->repo, run.commit, out, &e2);
	else if (!rc)
		rc = ERROR_NOT_FOUND;
	cache_run_release(&run);
	if (rc == ERROR_NOMEM)
		*err = e2;
	return rc == ERROR_NOMEM ? rc : !rc;
}

/* Keep found (1: *commit is run_id's commit, 0: it has none here) for
 * run_id in c; nothing is kept when its id cannot be copied. */
static void
keep(struct eval *ev, const struct cache *c, const char *run_id, int found,
     const struct graph_oid *commit)
{
	char *id = mem_strdup(run_id);

	if (!id)
		return;
	mem_free(ev->base_run);
	ev->base_run = id;
	ev->base_cache = c;
	ev->base_found = found;
	if (found)
		ev->base_commit = *commit;
}

/* run_commit_read's answer, kept for the next set of the same run (the
 * changed sets of a plan share its baseline run), or the planner's
 * (eval_base_run). */
static int
run_commit(struct eval *ev, struct cache *c, const char *run_id,
	   struct graph_oid *out, struct error *err)
{
	int rc;

	if (ev->base_run && ev->base_cache == c &&
	    !strcmp(ev->base_run, run_id)) {
		*out = ev->base_commit;
		return ev->base_found;
	}
	rc = run_commit_read(ev, c, run_id, out, err);
	if (rc >= 0)
		keep(ev, c, run_id, rc, out);
	return rc;
}

void
eval_base_run(struct eval *ev, const struct cache *c, const char *run_id,
	      const char *commit)
{
	struct graph_oid oid;
	struct error e2;
	int rc = ERROR_NOT_FOUND;

	if (!ev || !c || !run_id)
		return;
	error_init(&e2);
	if (commit)
		rc = graph_repo_resolve(ev->repo, commit, &oid, &e2);
	if (rc != ERROR_NOMEM)
		keep(ev, c, run_id, !rc, &oid);
}

int
eval_input_changes(struct eval *ev, const char *name, struct cache *c,
		   const char *run_id, const char *base_key,
		   struct arena *a, struct plan_file_diff **out, size_t *n,
		   struct error *err)
{
	struct graph_change_list ch = { NULL, 0 };
	struct eval_input *x = eval_find_input(ev, name);
	struct graph_oid base;
	char id[33], key[33];
	struct error e2;
	int rc;

	*out = NULL;
	*n = 0;
	/* An evaluation without a memo of its own is the reference path
	 * (RIPPLE_FULL_WALK): it compares the lists. */
	if (ev->worktree || !ev->memo || !c || !x || !x->set ||
	    !x->link_free)
		return 0;
	rc = run_commit(ev, c, run_id, &base, err);
	if (rc != 1)
		return rc;
	/* The baseline's key is the set's at base (the memo was written
	 * for that state): its stored list is base's, and the diff from
	 * base is the difference of the two lists. */
	error_init(&e2);
	rc = graph_source_memo_id(ev->repo, &base, x->set, id, &e2);
	if (!rc)
		rc = cache_source_key_get(c, id, key, &e2);
	if (rc == 1 && strcmp(key, base_key))
		rc = 0;
	if (rc == 1)
		rc = cache_manifest_stored(c, base_key, &e2);
	if (rc == 1)
		rc = graph_source_diff(ev->repo, &base, &ev->commit, x->set,
				       &ch, &e2);
	if (rc == 1)
		rc = to_file_diffs(a, &ch, out, n, err) ? ERROR_NOMEM : 1;
	else if (rc == ERROR_NOMEM)
		*err = e2;
	else
		rc = 0;
	graph_change_list_release(&ch);
	return rc;
}
