/*
 * The planner: head evaluation, targets, merge base, baseline run or base
 * evaluation, changed-path classification and the policy for unclaimed
 * paths, then plan_compute.
 */
#include "engine/plan/planner.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "cache/cache.h"
#include "engine/plan/eval.h"
#include "engine/plan/history.h"
#include "engine/plan/jobs.h"
#include "engine/plan/memo_check.h"
#include "engine/plan/versions.h"
#include "engine/plan/remote.h"
#include "engine/plan/scope.h"
#include "graph/graph.h"
#include "rules/rules.h"
#include "base/banned.h"

struct count {
	const struct planner *p;
	long covered;
};

static int
count_ok(void *payload, const char *node_id, enum cache_record_status st)
{
	struct count *c = payload;
	const struct graph_node *n = graph_find(c->p->head->graph, node_id);

	if (n && c->p->closure[n->index] && st == CACHE_RECORD_STATUS_OK)
		c->covered++;
	return 0;
}

/*
 * How many nodes of the closure run `id` holds a successful record of
 * (*covered), and how many the closure has (*total). The run's records
 * are left in *recs (release them), unless the plan has a scope (why,
 * --job): it needs the records of a few nodes, which the history reads
 * one by one (history_records_by_node), and the count needs only each
 * record's node and status.
 */
/*
 * graph_find for ids asked in byte order (a run's records come ordered
 * by node id, as the graph's by_id is): a walk along by_id from *at, the
 * last id asked `prev`. From an id out of order on, *at is past the end
 * and each id is found by bisection.
 */
static const struct graph_node *
find_in_order(const struct graph *g, size_t *at, const char *prev,
	      const char *id)
{
	const struct graph_node *n;
	int c;

	if (prev && strcmp(prev, id) > 0)
		*at = (size_t)-1;
	if (*at == (size_t)-1)
		return graph_find(g, id);
	for (; *at < g->n_nodes; ++*at) {
		n = &g->nodes[g->by_id[*at]];
		c = strcmp(n->id, id);
		if (c >= 0)
			return c ? NULL : n;
	}
	return NULL;
}

static int
coverage(struct planner *p, const char *id, long *covered, long *total,
	 struct cache_record_list *recs_out, struct error *err)
{
	struct cache_record_list recs = { NULL, 0 };
	const struct graph *g = p->head->graph;
	struct count cnt = { p, 0 };
	size_t i, at = 0;
	int rc;

	*covered = *total = 0;
	for (i = 0; i < g->n_nodes; i++)
		*total += p->closure[i] != 0;
	if (p->scope) {
		rc = cache_record_statuses(p->cache, id, count_ok, &cnt, err);
		*covered = cnt.covered;
		*recs_out = recs;
		return rc;
	}
	rc = cache_record_list(p->cache, id, &recs, err);
	for (i = 0; !rc && i < recs.n; i++) {
		const struct graph_node *n = find_in_order(g, &at,
			i ? recs.items[i - 1].node_id : NULL,
			recs.items[i].node_id);

		if (n && p->closure[n->index] &&
		    recs.items[i].status == CACHE_RECORD_STATUS_OK)
			(*covered)++;
	}
	*recs_out = recs;
	return rc;
}

/*
 * The baseline: --baseline-run, else of the successful runs recorded at
 * the merge base the one that covers the most of the targets' closure
 * (ties: the newest). A run that recorded one node must not hide the run
 * that recorded them all.
 */
static int
find_baseline(struct planner *p, const struct planner_options *o,
	      struct error *err)
{
	struct cache_run_filter f = CACHE_RUN_FILTER_INIT;
	struct cache_run_list runs = { NULL, 0 };
	struct cache_run run;
	long covered, total, best_covered = -1;
	size_t i, best = 0;
	int rc;

	if (o->baseline_run && strcmp(o->baseline_run, "auto")) {
		if (!p->cache)
			return error_set(err, ERROR_NOT_FOUND,
					 "baseline run '%s' not found: there "
					 "is no cache", o->baseline_run);
		memset(&run, 0, sizeof(run));
		rc = cache_run_get(p->cache, o->baseline_run, &run, err);
		if (rc) {
			error_hint(err, "`ripple runs` lists the recorded runs");
			return rc;
		}
		rc = coverage(p, run.id, &covered, &total, &p->run_recs, err);
		if (!rc) {
			snprintf(p->run_id, sizeof(p->run_id), "%s", run.id);
			snprintf(p->label, sizeof(p->label),
				 "run %s (commit %.9s, %s) covers %ld of %ld "
				 "nodes", run.id, run.commit ? run.commit : "?",
				 cache_run_status_name(run.status), covered,
				 total);
			p->meta.baseline_covered = covered;
			p->meta.baseline_nodes = total;
			eval_base_run(p->head, p->cache, p->run_id,
				      run.commit);
		}
		cache_run_release(&run);
		return rc;
	}
	if (!p->base_hex[0]) {
		snprintf(p->label, sizeof(p->label),
			 "none (no --base: nothing to compare with)");
		return 0;
	}
	if (!p->cache) {
		snprintf(p->label, sizeof(p->label),
			 "none (no cache; no run recorded for merge base %.9s)",
			 p->base_hex);
		return 0;
	}
	f.commit = p->base_hex;
	f.status = CACHE_RUN_STATUS_OK;
	rc = cache_run_list(p->cache, &f, &runs, err);
	/* Oldest first: ">=" lets the newest of equals win. */
	for (i = 0; !rc && i < runs.n; i++) {
		struct cache_record_list recs = { NULL, 0 };

		rc = coverage(p, runs.items[i].id, &covered, &total, &recs,
			      err);
		if (!rc && covered >= best_covered) {
			best_covered = covered;
			best = i;
			/* The baseline's records, read once. */
			cache_record_list_release(&p->run_recs);
			p->run_recs = recs;
			recs.items = NULL;
			recs.n = 0;
		}
		cache_record_list_release(&recs);
	}
	if (!rc && runs.n) {
		const struct cache_run *r = &runs.items[best];

		snprintf(p->run_id, sizeof(p->run_id), "%s", r->id);
		snprintf(p->label, sizeof(p->label),
			 "run %s (merge base %.9s) covers %ld of %ld nodes",
			 r->id, p->base_hex, best_covered, total);
		p->meta.baseline_covered = best_covered;
		p->meta.baseline_nodes = total;
		/* Its commit for the explanations (eval_input_changes). */
		eval_base_run(p->head, p->cache, p->run_id, r->commit);
	} else if (!rc) {
		snprintf(p->label, sizeof(p->label),
			 "none (no successful run recorded for merge base "
			 "%.9s)", p->base_hex);
	}
	cache_run_list_release(&runs);
	return rc;
}

static int
classify(struct planner *p, const struct planner_options *o,
	 struct error *err)
{
	struct graph_change_list ch = { NULL, 0 };
	struct graph_oid base;
	size_t i;
	int rc;

	rc = graph_repo_resolve(p->repo, p->base_hex, &base, err);
	if (rc)
		return rc;
	rc = o->worktree
		? graph_repo_diff_worktree_paths(p->repo, &base, &ch, err)
		: graph_repo_diff_paths(p->repo, &base, &p->head->commit, &ch,
					err);
	for (i = 0; !rc && i < ch.n; i++) {
		int ignored, claimed;

		/* ripple's state, an untracked rules file and the nodes'
		 * outputs are no change of the repository (issue 25). */
		if (eval_path_own(p->head, ch.items[i].path))
			continue;
		rc = strv_push(&p->changed, ch.items[i].path, err);
		if (rc)
			break;
		/* The rules file read from the commit is claimed by every
		 * key: its rule and toolkit fields are key components. */
		if (!o->rules_file && !strcmp(ch.items[i].path, "ripple.yml"))
			continue;
		claimed = eval_path_claimed(p->head, ch.items[i].path,
					    &ignored, err);
		if (claimed < 0) {
			rc = claimed;
			break;
		}
		if (ignored)
			rc = strv_push(&p->ignored, ch.items[i].path, err);
		else if (!claimed)
			rc = strv_push(&p->unclaimed, ch.items[i].path, err);
	}
	graph_change_list_release(&ch);
	if (rc)
		return rc;
	if (p->unclaimed.n &&
	    p->head->rules->policy.unclaimed_paths ==
		    RULES_UNCLAIMED_REBUILD_ALL)
		snprintf(p->forced, sizeof(p->forced),
			 "unclaimed path '%s'%s (policy unclaimed-paths: "
			 "rebuild-all)", p->unclaimed.v[0],
			 p->unclaimed.n > 1 ? " and others" : "");
	return 0;
}

/*
 * The roots' versions at the head, when a check or the run needs them:
 * versioned artifacts are compared by version in runs and plans with a
 * tag, and wherever policy reuse-versions is exact; version groups keep
 * members whose records already have the version they have now.
 */
static int
root_versions(struct planner *p, const struct planner_options *o,
	      struct error *err)
{
	const struct rules *r = p->head->rules;
	int groups = 0;
	size_t i;

	/* Version groups rebuild members only to give them the version
	 * they have now (group.c): they need it. */
	for (i = 0; i < p->head->graph->n_nodes && !groups; i++)
		groups = p->closure[i] &&
			 p->head->graph->nodes[i].version_group != NULL;
	p->check_versions = o->tag != NULL ||
		r->policy.reuse_versions == RULES_REUSE_VERSIONS_EXACT;
	if ((!p->check_versions && !o->want_versions && !groups) ||
	    !r->n_roots)
		return 0;
	p->versions = arena_alloc(&p->arena, r->n_roots * sizeof(*p->versions));
	if (!p->versions)
		return error_set(err, ERROR_NOMEM, "out of memory");
	return plan_root_versions(p->repo, r, p->head->commit_hex,
				  o->worktree, o->date_epoch, &p->arena,
				  p->versions, &p->n_versions, err);
}

/*
 * No local run at the merge base, but a remote cache: the records of the
 * base's keys there are the baseline. A base whose rules do not load
 * leaves the plan without one (as a missing run would).
 */
/*
 * The merge base and the head are both evaluated: a source set unchanged
 * between them is keyed once (eval_share_key_memo), unless the full walk
 * is asked for.
 */
static void
share_keys(struct planner *p, const struct planner_options *o)
{
	if (o->full_walk)
		return;
	eval_share_key_memo(p->base, &p->key_memo, &p->arena);
	eval_share_key_memo(p->head, &p->key_memo, &p->arena);
	eval_set_pool(p->base, p->pool);
}

static int
remote_baseline(struct planner *p, const struct planner_options *o,
		struct error *err)
{
	struct error_list base_errors;
	struct error e2;
	size_t found = 0;
	int rc;

	error_list_init(&base_errors, 1);
	error_init(&e2);
	/* The base's rules are the head's when its ripple.yml is the same
	 * text: parsed once, unless the full walk is asked for. */
	rc = eval_open_like(o->full_walk ? NULL : p->head, p->repo,
			    p->base_hex, o->rules_file, o->limits,
			    o->full_walk ? NULL : p->cache, 0, &base_errors,
			    &p->base, &e2);
	error_list_release(&base_errors);
	if (rc == ERROR_NOMEM)
		return error_set(err, rc, "out of memory");
	if (rc) {
		snprintf(p->label, sizeof(p->label), "none (the rules of "
			 "merge base %.9s do not load: %.160s)", p->base_hex,
			 e2.msg);
		return history_from_run(p->cache, o->remote, NULL, p->label,
					o->rules_file, p->head, &p->hist,
					err);
	}
	eval_set_stream(p->base, !o->full_walk);
	eval_set_remote_memo(p->base, p->remote_memo);
	share_keys(p, o);
	rc = history_from_remote_base(p->cache, o->remote, p->base, p->head,
				      o->targets, o->n_targets, &found,
				      &p->hist, err);
	if (!rc)
		snprintf(p->label, sizeof(p->label), "records of merge base "
			 "%.9s's keys in remote cache %s (%zu found)",
			 p->base_hex, plan_remote_url(o->remote), found);
	return rc;
}

/*
 * The trust domain the plan reads local records for: the remote index's
 * own (set by plan_remote_trust), or without one the same rules over
 * policy trusted-refs, so a record reused from a pull request's domain
 * serves that pull request only, with or without a remote cache.
 */
static int
set_reader(struct planner *p, const struct planner_options *o,
	   struct error *err)
{
	const struct rules_policy *pol = &p->head->rules->policy;
	char domain[REMOTE_DOMAIN_SIZE];
	int rc;

	if (o->remote)
		return history_set_reader(p->hist,
					  plan_remote_domain(o->remote), err);
	rc = plan_trust_domain(pol->trusted_refs, pol->n_trusted_refs,
			       o->default_branch, o->ref, domain, err);
	return rc ? rc : history_set_reader(p->hist, domain, err);
}

static int planner_run_once(struct graph_repo *repo, struct cache *cache,
			    const struct planner_options *o, int remote_memo,
			    struct error_list *errors, struct planner **out,
			    struct error *err);

/* Plans of fewer nodes look their records up one by one (a job). */
#define BUNDLE_MIN_NODES 16

/*
 * A remote cache and enough nodes to plan: fetch the bundles of the
 * head, its first parent and the merge base (one batch), and take source
 * keys from the memo their records attest (checked after the plan).
 */
static int
fetch_bundles(struct planner *p, const struct planner_options *o,
	      struct error *err)
{
	const unsigned char *in = p->scope ? p->scope : p->closure;
	const char *commits[3];
	char parent[GRAPH_OID_HEX], rev[GRAPH_OID_HEX + 2];
	struct graph_oid oid;
	struct error e2;
	size_t i, n = 0;
	int rc;

	if (!o->remote || o->full_walk)
		return 0;
	for (i = 0; i < p->head->graph->n_nodes; i++)
		n += in[i] != 0;
	if (n < BUNDLE_MIN_NODES)
		return 0;
	n = 0;
	commits[n++] = p->head->commit_hex;
	error_init(&e2);
	snprintf(rev, sizeof(rev), "%s^", p->head->commit_hex);
	if (!graph_repo_resolve(p->repo, rev, &oid, &e2)) {
		graph_oid_hex(&oid, parent);
		commits[n++] = parent;
	}
	if (p->base_hex[0])
		commits[n++] = p->base_hex;
	rc = plan_remote_bundles(o->remote, commits, n, err);
	if (rc)
		return rc;
	p->remote_memo = plan_remote_memo(o->remote);
	eval_set_remote_memo(p->head, p->remote_memo);
	return 0;
}

int
planner_run(struct graph_repo *repo, struct cache *cache,
	    const struct planner_options *o, struct error_list *errors,
	    struct planner **out, struct error *err)
{
	int rc, wrong = 0;

	rc = planner_run_once(repo, cache, o, 1, errors, out, err);
	if (rc || !(*out)->remote_memo)
		return rc;
	rc = plan_memo_check((*out)->head, (*out)->plan, (*out)->base,
			     history_base_plan((*out)->hist), &wrong, err);
	if (!rc && !wrong)
		return 0;
	/* A source key the memo gave is not the trees': plan again from
	 * the trees, so the memo costs time, never a decision. */
	planner_free(*out);
	*out = NULL;
	if (rc)
		return rc;
	return planner_run_once(repo, cache, o, 0, errors, out, err);
}

static int
planner_run_once(struct graph_repo *repo, struct cache *cache,
		 const struct planner_options *o, int remote_memo,
		 struct error_list *errors, struct planner **out,
		 struct error *err)
{
	struct planner *p = mem_calloc(1, sizeof(*p));
	struct plan_options po;
	size_t n;
	int rc, reading = 0;

	*out = NULL;
	if (!p)
		return error_set(err, ERROR_NOMEM, "out of memory");
	memset(&po, 0, sizeof(po));
	arena_init(&p->arena);
	p->repo = repo;
	p->cache = cache;
	p->meta.baseline_covered = p->meta.baseline_nodes = -1;
	/* One snapshot for every lookup, unless the plan writes memo keys. */
	if (cache && !o->memo_write && !cache_read_begin(cache, NULL))
		reading = 1;
	strv_init(&p->changed, 1);
	strv_init(&p->unclaimed, 1);
	strv_init(&p->ignored, 1);
	rc = eval_open_memo(repo, o->head, o->worktree, o->rules_file,
			    o->limits, o->full_walk ? NULL : cache,
			    o->memo_write, errors, &p->head, err);
	if (rc)
		goto done;
	/* A plan keeps keys, not file lists; a run records every input's
	 * files, so it keeps them. */
	eval_set_stream(p->head, !o->memo_write && !o->full_walk);
	/* The reference path stays one thread's (RIPPLE_FULL_WALK). */
	if (!o->full_walk)
		rc = eval_pool_new(o->jobs, &p->pool, err);
	if (rc)
		goto done;
	eval_set_pool(p->head, p->pool);
	if (o->remote) {
		const struct rules_policy *pol = &p->head->rules->policy;

		rc = plan_remote_trust(o->remote, pol->trusted_refs,
				       pol->n_trusted_refs, o->default_branch,
				       o->ref, err);
		if (rc)
			goto done;
	}
	n = p->head->graph->n_nodes;
	p->selected = mem_calloc(n + 1, 1);
	p->closure = mem_calloc(n + 1, 1);
	if (!p->selected || !p->closure) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	rc = graph_select(p->head->graph, o->targets, o->n_targets,
			  p->selected, p->closure, err);
	if (rc)
		goto done;
	rc = root_versions(p, o, err);
	if (!rc && o->job)
		rc = planner_job_scope(p, o->job, err);
	if (!rc && o->why_node && !p->scope)
		rc = planner_why_scope(p, o->why_node, err);
	if (rc)
		goto done;
	if (o->base) {
		struct graph_oid mb;

		rc = graph_repo_merge_base(repo, o->base,
					   p->head->commit_hex, &mb, err);
		if (rc)
			goto done;
		graph_oid_hex(&mb, p->base_hex);
		rc = classify(p, o, err);
		if (rc)
			goto done;
	}
	if (remote_memo)
		rc = fetch_bundles(p, o, err);
	if (rc)
		goto done;
	if (o->assume_base_built) {
		if (!o->base) {
			rc = error_set(err, ERROR_INVALID,
				       "--assume-base-built needs --base REV");
			goto done;
		}
		/* The base's rules are the head's when its ripple.yml is the
		 * same text: parsed once (as remote_baseline does), unless
		 * the full walk is asked for. */
		rc = eval_open_like(o->full_walk ? NULL : p->head, repo,
				    p->base_hex, o->rules_file, o->limits,
				    NULL, 0, errors, &p->base, err);
		if (!rc) {
			eval_set_stream(p->base, !o->full_walk);
			share_keys(p, o);
		}
		if (!rc)
			rc = history_from_eval(p->base, p->head, &p->hist,
					       err);
		if (!rc)
			snprintf(p->label, sizeof(p->label),
				 "base commit %.9s (assumed built)",
				 p->base_hex);
	} else {
		rc = find_baseline(p, o, err);
		if (!rc && !p->run_id[0] && p->base_hex[0] && o->remote &&
		    (!o->baseline_run || !strcmp(o->baseline_run, "auto")))
			rc = remote_baseline(p, o, err);
		else if (!rc)
			rc = history_from_run(cache, o->remote,
					      p->run_id[0] ? p->run_id : NULL,
					      p->label, o->rules_file, p->head,
					      &p->hist, err);
		if (!rc && p->run_id[0] && p->scope)
			history_records_by_node(p->hist);
		else if (!rc && p->run_id[0])
			history_give_run_records(p->hist, &p->run_recs);
	}
	if (!rc)
		rc = set_reader(p, o, err);
	if (rc)
		goto done;
	po.reuse = o->reuse >= 0 ? (enum plan_reuse)o->reuse
				 : (enum plan_reuse)p->head->rules->policy.reuse;
	po.forced_reason = p->forced[0] ? p->forced : NULL;
	po.check_versions = p->check_versions;
	po.versions = p->versions;
	po.n_versions = p->n_versions;
	po.assumed_base = o->assume_base_built;
	/* The memo's answers for every set of the head at once (a run
	 * writes memo keys as it goes, so it asks one by one; the base of
	 * --assume-base-built has no memo of its own), then the sets no memo
	 * knows keyed ahead on the pool's threads: with --assume-base-built
	 * every node of the base is keyed too (history.c base_record), its
	 * sets in the same batch. */
	if (reading)
		eval_prefetch_memo(p->head, p->scope ? p->scope : p->closure);
	rc = eval_prefetch_pair(p->head, p->scope ? p->scope : p->closure,
				o->assume_base_built ? p->base : NULL, NULL,
				err);
	if (!rc)
		rc = plan_compute(p->head->graph, p->selected,
				  p->scope ? p->scope : p->closure,
				  &p->head->sources, history_plan(p->hist),
				  &po, &p->plan, err);
	if (rc)
		goto done;
	p->meta.head = eval_label(p->head);
	p->meta.base = p->base_hex[0] ? p->base_hex : NULL;
	p->meta.baseline_run = p->run_id[0] ? p->run_id : NULL;
	p->meta.baseline_label = p->label[0] ? p->label : NULL;
	p->meta.forced_reason = po.forced_reason;
	p->meta.mode = o->assume_base_built ? "assume-base-built" : "baseline";
	p->meta.changed = (const char *const *)p->changed.v;
	p->meta.n_changed = p->changed.n;
	p->meta.unclaimed = (const char *const *)p->unclaimed.v;
	p->meta.n_unclaimed = p->unclaimed.n;
	p->meta.ignored = (const char *const *)p->ignored.v;
	p->meta.n_ignored = p->ignored.n;
done:
	if (reading)
		cache_read_end(cache);
	if (rc) {
		planner_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void
planner_free(struct planner *p)
{
	if (!p)
		return;
	plan_free(p->plan);
	history_free(p->hist);
	eval_free(p->base);
	eval_free(p->head);
	eval_pool_free(p->pool);
	mem_free(p->selected);
	mem_free(p->closure);
	mem_free(p->scope);
	strv_release(&p->changed);
	strv_release(&p->unclaimed);
	strv_release(&p->ignored);
	strmap_release(&p->key_memo);
	cache_record_list_release(&p->run_recs);
	arena_release(&p->arena);
	mem_free(p);
}
