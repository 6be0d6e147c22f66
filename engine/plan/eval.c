/*
 * Evaluations: rules read from a commit's tree (or the working tree or a
 * file), expanded into a graph, and source states computed on demand with
 * the repository view, remembered per input name.
 */
#include "engine/plan/eval.h"
#include "engine/plan/eval_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fsys.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "cache/cache.h"
#include "graph/family.h"
#include "graph/graph.h"
#include "graph/outputs.h"
#include "graph/pattern.h"
#include "graph/restore.h"
#include "graph/source.h"
#include "rules/rules.h"
#include "base/banned.h"

static struct eval_input *
find_input(struct eval *ev, const char *name)
{
	return strmap_get(&ev->by_name, name);
}

#define EXCLUDES_LOCAL 16	/* on the caller's stack (the bench's: 1) */

/* An input's excludes, then policy.ignore: *out and *n, in local
 * (EXCLUDES_LOCAL entries) when they fit, else allocated
 * (excludes_free). */
static int
excludes(const struct eval *ev, const struct graph_input *in,
	 const char **local, const char ***out, size_t *n,
	 struct error *err)
{
	const struct rules_policy *pol = &ev->rules->policy;
	size_t i, total = in->n_exclude + pol->n_ignore;
	const char **ex = total <= EXCLUDES_LOCAL
		? local : mem_calloc(total + 1, sizeof(*ex));

	*out = ex;
	*n = 0;
	if (!ex)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; i < in->n_exclude; i++)
		ex[(*n)++] = in->exclude[i];
	for (i = 0; i < pol->n_ignore; i++)
		ex[(*n)++] = pol->ignore[i];
	return 0;
}

static void
excludes_free(const char **ex, const char **local)
{
	if (ex != local)
		mem_free(ex);
}

static int
compile(struct eval *ev, const struct graph_input *in,
	struct pattern_set **out, struct error *err)
{
	const char *local[EXCLUDES_LOCAL], **ex;
	size_t n;
	int rc = excludes(ev, in, local, &ex, &n, err);

	if (!rc)
		rc = pattern_set_compile(in->include, in->n_include, ex, n,
					 out, err);
	excludes_free(ex, local);
	if (!rc)
		rc = pattern_set_exclude_globs(*out,
					       (const char *const *)ev->own.v,
					       ev->own.n, err);
	/* Not a glob: the commit walked does not hold it, so it must not
	 * cut a folder claimed whole (docs/patterns.md). */
	if (!rc && ev->own_rules)
		rc = pattern_set_exclude_absent(*out, ev->own_rules, err);
	return rc;
}

/* x's set, compiled on first use: keying a set from its memo needs only
 * its digest and prefixes (input_memo_id). */
static int
input_set(struct eval *ev, struct eval_input *x, struct error *err)
{
	return x->set ? 0 : compile(ev, x->in, &x->set, err);
}

/* x's pattern digest and prefixes, once (input_memo_id). */
static int
input_parts(struct eval *ev, struct eval_input *x, struct error *err)
{
	const char *local[EXCLUDES_LOCAL], **ex;
	size_t n;
	int rc;

	if (x->parts)
		return 0;
	rc = excludes(ev, x->in, local, &ex, &n, err);
	if (!rc)
		rc = pattern_set_memo_parts(
			x->in->include, x->in->n_include, ex, n,
			(const char *const *)ev->own.v, ev->own.n,
			ev->own_rules, x->digest, &ev->arena, &x->prefixes,
			err);
	excludes_free(ex, local);
	x->parts = !rc;
	return rc;
}

/* x's memo id at ev->commit into x->memo, once, from the set's parts:
 * the same bytes graph_source_memo_id gives for the compiled set. */
static int
input_memo_id(struct eval *ev, struct eval_input *x, struct error *err)
{
	int rc;

	if (x->memo[0])
		return 0;
	rc = input_parts(ev, x, err);
	return rc ? rc : graph_source_memo_id_parts(ev->repo, &ev->commit,
						    x->digest, &x->prefixes,
						    x->memo, err);
}

static int
ensure_input(struct eval *ev, const struct graph_input *in,
	     struct eval_input **out, struct error *err)
{
	struct eval_input *x = find_input(ev, in->name);
	size_t len;

	if (!x) {
		if (ev->n_inputs == ev->cap_inputs) {
			size_t cap = ev->cap_inputs ? ev->cap_inputs * 2 : 16;
			struct eval_input **v = mem_realloc(
				ev->inputs, cap * sizeof(*v));

			if (!v)
				return error_nomem(err);
			ev->inputs = v;
			ev->cap_inputs = cap;
		}
		/* The name lives after the struct: one allocation. */
		len = strlen(in->name);
		x = mem_calloc(1, sizeof(*x) + len + 1);
		if (!x)
			return error_nomem(err);
		x->name = (char *)(x + 1);
		memcpy(x->name, in->name, len + 1);
		x->in = in;
		strv_init(&x->prefixes, 0);	/* texts in ev->arena */
		if (strmap_put(&ev->by_name, x->name, x, err)) {
			mem_free(x);
			return err->code;
		}
		ev->inputs[ev->n_inputs++] = x;
	}
	*out = x;
	return 0;
}

int
eval_input_set(struct eval *ev, const struct graph_input *in,
	       const struct pattern_set **out, struct error *err)
{
	struct eval_input *x;
	int rc = ensure_input(ev, in, &x, err);

	if (!rc)
		rc = input_set(ev, x, err);
	*out = rc ? NULL : x->set;
	return rc;
}

int
eval_input_state(struct eval *ev, const struct graph_input *in,
		 const struct graph_source_state **out, struct error *err)
{
	struct eval_input *x;
	int rc = ensure_input(ev, in, &x, err);

	if (!rc)
		rc = input_set(ev, x, err);
	if (rc)
		return rc;
	if (!x->computed) {
		/* Walked ahead on the pool (a run's sets), else here. */
		rc = eval_pool_take_state(ev, x, err);
		if (rc > 0)
			rc = 0;
		else if (!rc)
			rc = ev->worktree
			? graph_source_compute_worktree(ev->wt, x->set,
							&x->state, err)
			: eval_walk(ev, ev->repo, x->set, 0, &x->state, err);
		if (rc) {
			error_prefix(err, "input '%s'", in->name);
			return rc;
		}
		x->computed = 1;
	}
	*out = &x->state;
	return 0;
}

int
eval_input_patterns(struct eval *ev, const struct graph_input *in,
		    const struct pattern_set **out, struct error *err)
{
	struct eval_input *x;
	int rc = ensure_input(ev, in, &x, err);

	if (!rc)
		rc = input_set(ev, x, err);
	if (!rc)
		*out = x->set;
	return rc;
}

/*
 * Count input x's memo answer once: the scan ahead asks before the
 * keying does, and a set it missed is asked again (another input with
 * its memo id may have filled the memo since): a miss then a hit counts
 * as the hit. Returns hit.
 */
static int
memo_count(struct eval *ev, struct eval_input *x, int hit)
{
	if (x->memo_counted == (hit ? 1 : -1))
		return hit;
	if (x->memo_counted < 0)
		ev->memo_misses--;
	if (hit)
		ev->memo_hits++;
	else
		ev->memo_misses++;
	x->memo_counted = hit ? 1 : -1;
	return hit;
}

/* eval_memo_key for input x. */
static int
memo_key(struct eval *ev, struct eval_input *x, char *memo,
	 struct digest *out, struct error *err)
{
	const char *shared, *v;
	char key[33];
	struct error e2;
	int rc;

	if (x->computed)
		return 0;	/* known already: no memo needed */
	rc = input_memo_id(ev, x, err);
	if (rc)
		return rc;
	memcpy(memo, x->memo, 33);
	shared = ev->key_memo ? strmap_get(ev->key_memo, memo) : NULL;
	if (shared && !digest_from_hex(shared, out, NULL)) {
		return memo_count(ev, x, 1);
	}
	error_init(&e2);
	if (x->fetched) {
		if (x->fetched_key[0] &&
		    !digest_from_hex(x->fetched_key, out, NULL)) {
			return memo_count(ev, x, 1);
		}
	} else if (ev->memo &&
		   cache_source_key_get(ev->memo, memo, key, &e2) == 1 &&
		   !digest_from_hex(key, out, NULL)) {
		return memo_count(ev, x, 1);
	}
	v = ev->remote_memo ? strmap_get(ev->remote_memo, memo) : NULL;
	if (v && v[0] && !digest_from_hex(v, out, NULL)) {
		/* A claim until a record or a walk confirms it. */
		x->from_remote = 1;
		memcpy(x->remote_memo, memo, 33);
		memcpy(x->remote_key, v, 33);
		return memo_count(ev, x, 1);
	}
	return memo_count(ev, x, 0);
}

/* Remember a key computed here under its memo id, where it is safe to. */
static int
memo_put(struct eval *ev, const struct graph_input *in, const char *memo,
	 int memoizable, const struct digest *key, struct error *err)
{
	struct eval_input *x = find_input(ev, in->name);
	char *k, *v;
	struct error e2;

	if (!x || !memoizable)
		return 0;
	if (ev->memo_write) {
		error_init(&e2);
		cache_source_key_put(ev->memo, memo, key->hex, &e2);
	}
	if (!ev->key_memo)
		return 0;
	k = arena_strdup(ev->key_memo_arena, memo);
	v = arena_strdup(ev->key_memo_arena, key->hex);
	if (!k || !v)
		return error_set(err, ERROR_NOMEM, "out of memory");
	return strmap_put(ev->key_memo, k, v, err);
}

void
eval_set_pool(struct eval *ev, struct eval_pool *pool)
{
	ev->pool = pool;
}

/* eval_int.h's names of five helpers, for eval_ahead.c and
 * eval_memo.c. */
struct eval_input *
eval_find_input(struct eval *ev, const char *name)
{
	return find_input(ev, name);
}

int
eval_ensure_input(struct eval *ev, const struct graph_input *in,
		  struct eval_input **out, struct error *err)
{
	int rc = ensure_input(ev, in, out, err);

	return rc ? rc : input_set(ev, *out, err);
}

int
eval_memo_key(struct eval *ev, struct eval_input *x, char *memo,
	      struct digest *out, struct error *err)
{
	return memo_key(ev, x, memo, out, err);
}

int
eval_add_input(struct eval *ev, const struct graph_input *in,
	       struct eval_input **out, struct error *err)
{
	return ensure_input(ev, in, out, err);
}

int
eval_input_parts(struct eval *ev, struct eval_input *x, struct error *err)
{
	return input_parts(ev, x, err);
}

static int
source_key(void *payload, const struct graph_input *in, struct digest *out,
	   struct error *err)
{
	struct eval *ev = payload;
	const struct graph_source_state *st;
	struct eval_input *x;
	char memo[33] = "";
	int rc, memoizable;

	rc = ensure_input(ev, in, &x, err);
	if (rc)
		return rc;
	if (x->key_known) {
		*out = x->key;
		return 0;
	}
	if ((ev->memo || ev->key_memo || ev->remote_memo) && !ev->worktree) {
		rc = memo_key(ev, x, memo, out, err);
		if (rc < 0)
			return rc;
		if (rc)
			goto known;
	}
	rc = input_set(ev, x, err);
	if (rc)
		return rc;
	if (ev->stream && !ev->worktree && !x->computed) {
		/* Only the key is kept: folders claimed whole are read for
		 * their modes alone (graph_source_compute_key); an
		 * explanation walks the set again (eval_input_state). */
		rc = eval_stream_key(ev, in, x, memo, out, &memoizable, err);
		if (rc)
			return rc;
	} else {
		rc = eval_input_state(ev, in, &st, err);
		if (rc)
			return rc;
		memcpy(out->bytes, st->key, sizeof(out->bytes));
		/* Asked only where it is used, as before. */
		memoizable = (memo[0] || ev->stream) &&
			     graph_source_state_memoizable(x->set, st);
	}
	digest_to_hex(out);
	if (memo[0])
		rc = memo_put(ev, in, memo, memoizable, out, err);
	if (rc)
		return rc;
	if (ev->stream) {
		/* Memory stays one set's files (or fewer). */
		x->unmemoizable = !memoizable;
		graph_source_state_release(&x->state);
		x->computed = 0;
	}
known:
	x->key = *out;
	x->key_known = 1;
	return 0;
}

void
eval_set_stream(struct eval *ev, int stream)
{
	ev->stream = stream;
}

void
eval_set_memo(struct eval *ev, struct cache *c, int write)
{
	ev->memo = c;
	ev->memo_write = c && write;
}

int
eval_input_memo(struct eval *ev, const struct graph_input *in, char *memo,
		char *key, struct error *err)
{
	struct eval_input *x;
	struct digest d;
	int rc;

	if (ev->worktree)
		return 0;
	rc = source_key(ev, in, &d, err);
	if (!rc)
		rc = ensure_input(ev, in, &x, err);
	if (!rc)
		rc = input_memo_id(ev, x, err);
	if (rc)
		return rc;
	memcpy(memo, x->memo, 33);
	/* A key from a memo was memoizable when it was stored. */
	if (x->unmemoizable ||
	    (x->computed && !graph_source_state_memoizable(x->set, &x->state)))
		return 0;
	memcpy(key, d.hex, 33);
	return 1;
}

void
eval_set_remote_memo(struct eval *ev, const struct strmap *map)
{
	ev->remote_memo = map;
}

int
eval_input_remote_claim(struct eval *ev, const char *name, const char **memo,
			const char **key)
{
	struct eval_input *x = find_input(ev, name);

	if (!x || !x->from_remote)
		return 0;
	*memo = x->remote_memo;
	*key = x->remote_key;
	return 1;
}

void
eval_input_confirm(struct eval *ev, const char *name)
{
	struct eval_input *x = find_input(ev, name);

	if (x)
		x->from_remote = 0;
}

void
eval_share_key_memo(struct eval *ev, struct strmap *map, struct arena *arena)
{
	ev->key_memo = map && arena ? map : NULL;
	ev->key_memo_arena = map && arena ? arena : NULL;
}

int
eval_open(struct graph_repo *repo, const char *rev, int worktree,
	  const char *rules_file, const struct graph_limits *limits,
	  struct error_list *errors, struct eval **out, struct error *err)
{
	return eval_open_memo(repo, rev, worktree, rules_file, limits, NULL,
			      0, errors, out, err);
}

static int
open_common(const struct eval *like, struct graph_repo *repo,
	    const char *rev, int worktree, const char *rules_file,
	    const struct graph_limits *limits, struct cache *memo, int write,
	    struct error_list *errors, struct eval **out, struct error *err)
{
	struct eval *ev = mem_calloc(1, sizeof(*ev));
	int rc;

	*out = NULL;
	if (!ev)
		return error_set(err, ERROR_NOMEM, "out of memory");
	strv_init(&ev->own, 1);
	arena_init(&ev->arena);
	eval_set_memo(ev, memo, write);
	ev->repo = repo;
	rc = eval_scans_new(ev, err);
	if (rc)
		goto done;
	ev->worktree = worktree;
	if (limits)
		ev->limits = *limits;
	ev->sources.source_key = source_key;
	ev->sources.payload = ev;
	rc = graph_repo_resolve(repo, rev ? rev : "HEAD", &ev->commit, err);
	if (rc)
		goto done;
	graph_oid_hex(&ev->commit, ev->commit_hex);
	if (worktree) {
		rc = graph_worktree_read(repo, &ev->wt, err);
		if (rc)
			goto done;
	}
	if (eval_rules_same(like, ev, rules_file)) {
		ev->rules = like->rules;
		ev->graph = like->graph;
		ev->borrowed = 1;
	} else {
		size_t n_errors = errors->n;

		rc = eval_load_rules(ev, rules_file, errors, err);
		if (rc || ev->graph)
			goto own;
		rc = graph_build_limited(ev->rules, &ev->limits, &ev->graph,
					 err);
		if (!rc)
			eval_model_remember(ev, rules_file, errors, n_errors);
	}
own:
	if (!rc)
		rc = eval_own_paths(ev, rules_file, err);
done:
	if (rc) {
		eval_free(ev);
		return rc;
	}
	*out = ev;
	return 0;
}

int
eval_open_memo(struct graph_repo *repo, const char *rev, int worktree,
	       const char *rules_file, const struct graph_limits *limits,
	       struct cache *memo, int write, struct error_list *errors,
	       struct eval **out, struct error *err)
{
	return open_common(NULL, repo, rev, worktree, rules_file, limits,
			   memo, write, errors, out, err);
}

int
eval_open_like(const struct eval *like, struct graph_repo *repo,
	       const char *rev, const char *rules_file,
	       const struct graph_limits *limits, struct cache *memo,
	       int write, struct error_list *errors, struct eval **out,
	       struct error *err)
{
	return open_common(like, repo, rev, 0, rules_file, limits, memo,
			   write, errors, out, err);
}

void
eval_free(struct eval *ev)
{
	size_t i;

	if (!ev)
		return;
	eval_scans_free(ev);
	for (i = 0; i < ev->n_inputs; i++) {
		pattern_set_free(ev->inputs[i]->set);
		strv_release(&ev->inputs[i]->prefixes);
		graph_source_state_release(&ev->inputs[i]->state);
		mem_free(ev->inputs[i]);
	}
	mem_free(ev->inputs);
	strmap_release(&ev->by_name);
	eval_claims_free(ev->claims);
	mem_free(ev->base_run);
	arena_release(&ev->arena);
	strv_release(&ev->own);
	mem_free(ev->own_rules);
	graph_worktree_free(ev->wt);
	if (!ev->borrowed) {
		graph_free(ev->graph);
		rules_free(ev->rules);
	}
	mem_free(ev);
}

void
eval_claims_free(struct eval_claims *c)
{
	if (!c)
		return;
	mem_free(c->v);
	mem_free(c->text);
	mem_free(c);
}

int
eval_input_by_name(struct eval *ev, const char *name,
		   const struct graph_source_state **out, struct error *err)
{
	size_t i, k;
	int rc;

	for (i = 0; i < ev->graph->n_nodes; i++) {
		const struct graph_node *n = &ev->graph->nodes[i];

		for (k = 0; k < n->n_inputs; k++) {
			if (strcmp(n->inputs[k].name, name))
				continue;
			rc = eval_input_state(ev, &n->inputs[k], out, err);
			return rc ? rc : 1;
		}
	}
	return 0;
}

const char *
eval_label(const struct eval *ev)
{
	return ev->worktree ? "worktree" : ev->commit_hex;
}
