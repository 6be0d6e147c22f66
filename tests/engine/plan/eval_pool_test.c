/*
 * Suite engine_plan_eval_pool: source sets keyed ahead on threads
 * (engine/plan/eval_pool.c). The keys are those of one thread, the pool
 * did key the sets (each input's slot is done), and every allocation
 * that fails on the calling thread (the keying's, and worker 0's share of
 * the walks) comes back as ERROR_NOMEM or leaves the keys as they were.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "engine/plan/eval.h"
#include "engine/plan/eval_int.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "graph/repo.h"
#include "tests/support/support.h"

#define SETS 12

/* SETS packages p00.. (src/a.c, src/sub/b.c; p01's src/ln links into
 * p02's), a set and an artifact each, one commit. */
static char *
make_repo(void)
{
	char *dir = t_git_init();
	char rel[64], text[128];
	struct buf rules;
	int i;

	buf_init(&rules, 0);
	cr_assert_eq(buf_addstr(&rules, "version: 1\nsources:\n", NULL), 0);
	for (i = 0; i < SETS; i++) {
		snprintf(rel, sizeof(rel), "p%02d/src/a.c", i);
		snprintf(text, sizeof(text), "int a%d;\n", i);
		t_write(dir, rel, text);
		snprintf(rel, sizeof(rel), "p%02d/src/sub/b.c", i);
		t_write(dir, rel, text);
		snprintf(text, sizeof(text), "  p%02d-src: {paths: [p%02d/src/**]"
			 ", exclude: [p%02d/src/sub/x/**]}\n", i, i, i);
		cr_assert_eq(buf_addstr(&rules, text, NULL), 0);
	}
	cr_assert_eq(buf_addstr(&rules, "artifacts:\n", NULL), 0);
	for (i = 0; i < SETS; i++) {
		snprintf(text, sizeof(text), "  p%02d: {inputs: [p%02d-src], "
			 "command: [make]}\n", i, i);
		cr_assert_eq(buf_addstr(&rules, text, NULL), 0);
	}
	t_write(dir, "ripple.yml", rules.data);
	buf_release(&rules);
	free(t_sh_out(dir, "ln -s ../../p02/src/a.c p01/src/ln"));
	cr_assert_eq(t_git_commit(dir, "one"), 0);
	return dir;
}

/* Every node's key, in node order, one per line, into *out. */
static int
keys_text(struct eval *ev, struct buf *out, struct error *err)
{
	struct graph_keys *keys = NULL;
	size_t i;
	int rc;

	rc = eval_prefetch(ev, NULL, err);
	if (!rc)
		rc = graph_keys_compute(ev->graph, NULL, &ev->sources, &keys,
					err);
	for (i = 0; !rc && i < keys->n; i++) {
		rc = buf_addstr(out, keys->keys[i].key.hex, err);
		if (!rc)
			rc = buf_addch(out, '\n', err);
	}
	graph_keys_free(keys);
	return rc;
}

/* An evaluation of HEAD on `pool` (may be NULL), keyed for keys alone
 * (stream), or keeping its sets' files as a run does (stream 0). */
static struct eval *
open_eval_as(struct graph_repo *repo, struct eval_pool *pool, int stream)
{
	struct error_list errors;
	struct error err;
	struct eval *ev = NULL;

	error_init(&err);
	error_list_init(&errors, 4);
	cr_assert_eq(eval_open_memo(repo, "HEAD", 0, NULL, NULL, NULL, 0,
				    &errors, &ev, &err), 0, "%s", err.msg);
	error_list_release(&errors);
	eval_set_stream(ev, stream);
	eval_set_pool(ev, pool);
	return ev;
}

static struct eval *
open_eval(struct graph_repo *repo, struct eval_pool *pool)
{
	return open_eval_as(repo, pool, 1);
}

Test(engine_plan_eval_pool, keys_ahead_are_the_keys_of_one_thread)
{
	char *dir = make_repo();
	struct graph_repo *repo = NULL;
	struct eval_pool *pool = NULL;
	struct eval *one, *many;
	struct buf a, b;
	struct error err;
	size_t i, k, ahead = 0;

	error_init(&err);
	buf_init(&a, 0);
	buf_init(&b, 0);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	cr_assert_eq(eval_pool_new(4, &pool, &err), 0);
	cr_assert_not_null(pool, "libgit2 without threads?");
	one = open_eval(repo, NULL);
	many = open_eval(repo, pool);
	cr_assert_eq(keys_text(one, &a, &err), 0, "%s", err.msg);
	cr_assert_eq(keys_text(many, &b, &err), 0, "%s", err.msg);
	cr_expect_str_eq(b.data, a.data, "keys differ on threads");
	for (i = 0; i < many->graph->n_nodes; i++)
		for (k = 0; k < many->graph->nodes[i].n_inputs; k++) {
			const struct eval_input *x = eval_find_input(many,
				many->graph->nodes[i].inputs[k].name);

			ahead += x && x->ahead && x->ahead->done &&
				 !x->ahead->rc;
		}
	cr_expect_eq(ahead, SETS, "%zu of %d sets were keyed ahead", ahead,
		     SETS);
	eval_free(many);
	eval_free(one);
	eval_pool_free(pool);
	graph_repo_close(repo);
	buf_release(&a);
	buf_release(&b);
	t_rmtree(dir);
	free(dir);
}

/*
 * Allocation n of prefetch + keying fails, for every n until none is
 * left: ERROR_NOMEM or the keys `want`. With `memo`, the evaluation
 * shares a key memo (memo ids are named, and looked up, before a set is
 * keyed ahead); with stream 0 it keeps its sets' files. Returns how many
 * failures were reported.
 */
static int
sweep(struct graph_repo *repo, int memo, int stream, const char *want)
{
	struct eval_pool *pool;
	struct eval *ev;
	struct strmap map = STRMAP_INIT;
	struct arena arena;
	struct buf got;
	struct error err;
	long n;
	int rc, fired, failures = 0;

	for (n = 0; n < 200000; n++) {
		pool = NULL;
		error_init(&err);
		cr_assert_eq(eval_pool_new(4, &pool, &err), 0);
		ev = open_eval_as(repo, pool, stream);
		arena_init(&arena);
		if (memo)
			eval_share_key_memo(ev, &map, &arena);
		buf_init(&got, 0);
		mem_fault_after(n);
		rc = keys_text(ev, &got, &err);
		fired = mem_fault_fired();
		mem_fault_after(-1);
		if (!fired)
			cr_assert_eq(rc, 0, "n=%ld: %s", n, err.msg);
		if (rc) {
			cr_assert_eq(rc, ERROR_NOMEM, "n=%ld: %s", n, err.msg);
			failures++;
		} else {
			cr_assert_str_eq(got.data, want, "n=%ld: a failed "
					 "allocation changed a key", n);
		}
		buf_release(&got);
		eval_free(ev);
		eval_pool_free(pool);
		strmap_release(&map);
		arena_release(&arena);
		if (!fired)
			break;
	}
	return failures;
}

Test(engine_plan_eval_pool, every_allocation_failure_is_reported_or_harmless,
     .timeout = 300)
{
	char *dir = make_repo();
	struct graph_repo *repo = NULL;
	struct eval *ev;
	struct buf want;
	struct error err;

	error_init(&err);
	buf_init(&want, 0);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	ev = open_eval(repo, NULL);
	cr_assert_eq(keys_text(ev, &want, &err), 0, "%s", err.msg);
	eval_free(ev);
	cr_expect_gt(sweep(repo, 0, 1, want.data), 20);
	cr_expect_gt(sweep(repo, 1, 1, want.data), 20);
	/* Files kept (a run's evaluation): the sets walked whole ahead. */
	cr_expect_gt(sweep(repo, 0, 0, want.data), 20);
	graph_repo_close(repo);
	buf_release(&want);
	t_rmtree(dir);
	free(dir);
}

/*
 * The scan for sets to key ahead asks each memo before it compiles a set
 * (main's lazy compiling, perf-warm3): an evaluation whose keys the
 * shared memo holds compiles no pattern set for those, on threads as on
 * one, and gets the keys one thread keyed and remembered.
 */
Test(engine_plan_eval_pool, memo_hits_ahead_compile_nothing)
{
	char *dir = make_repo();
	struct graph_repo *repo = NULL;
	struct eval_pool *pool = NULL;
	struct strmap map = STRMAP_INIT;
	struct arena arena;
	struct eval *one, *many;
	struct buf a, b;
	struct error err;
	size_t i, k, compiled = 0, known = 0;

	error_init(&err);
	buf_init(&a, 0);
	buf_init(&b, 0);
	arena_init(&arena);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	cr_assert_eq(eval_pool_new(4, &pool, &err), 0);
	cr_assert_not_null(pool, "libgit2 without threads?");
	one = open_eval(repo, NULL);
	eval_share_key_memo(one, &map, &arena);
	cr_assert_eq(keys_text(one, &a, &err), 0, "%s", err.msg);
	/* p01's link leaves its set: that key is never remembered. */
	cr_assert_eq(map.n, SETS - 1, "one thread remembered %zu keys",
		     map.n);
	many = open_eval(repo, pool);
	eval_share_key_memo(many, &map, &arena);
	cr_assert_eq(keys_text(many, &b, &err), 0, "%s", err.msg);
	cr_expect_str_eq(b.data, a.data, "keys from the memo differ");
	for (i = 0; i < many->graph->n_nodes; i++)
		for (k = 0; k < many->graph->nodes[i].n_inputs; k++) {
			const struct eval_input *x = eval_find_input(many,
				many->graph->nodes[i].inputs[k].name);

			cr_assert_not_null(x);
			compiled += x->set != NULL;
			known += x->key_known && !x->ahead;
		}
	cr_expect_eq(compiled, 1, "%zu sets compiled, p01's alone wanted",
		     compiled);
	cr_expect_eq(known, SETS - 1, "%zu of %d keys from the memo", known,
		     SETS - 1);
	eval_free(many);
	eval_free(one);
	eval_pool_free(pool);
	graph_repo_close(repo);
	strmap_release(&map);
	arena_release(&arena);
	buf_release(&a);
	buf_release(&b);
	t_rmtree(dir);
	free(dir);
}

/*
 * --assume-base-built's batch (eval_prefetch_pair): a set of the base
 * whose memo id a head's slot holds already is not compiled by the scan
 * (the keying takes the head's key from the memo, or compiles it then).
 * The base here is the head's commit: every base set is in the batch.
 */
Test(engine_plan_eval_pool, base_sets_in_the_heads_batch_are_not_compiled)
{
	char *dir = make_repo();
	struct graph_repo *repo = NULL;
	struct eval_pool *pool = NULL;
	struct strmap map = STRMAP_INIT;
	struct arena arena;
	struct eval *head, *base;
	struct error err;
	size_t i, k, compiled = 0, batched = 0;

	error_init(&err);
	arena_init(&arena);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	cr_assert_eq(eval_pool_new(4, &pool, &err), 0);
	cr_assert_not_null(pool, "libgit2 without threads?");
	head = open_eval(repo, pool);
	base = open_eval(repo, pool);
	eval_share_key_memo(head, &map, &arena);
	eval_share_key_memo(base, &map, &arena);
	cr_assert_eq(eval_prefetch_pair(head, NULL, base, NULL, &err), 0,
		     "%s", err.msg);
	for (i = 0; i < base->graph->n_nodes; i++)
		for (k = 0; k < base->graph->nodes[i].n_inputs; k++) {
			const char *name = base->graph->nodes[i].inputs[k].name;
			const struct eval_input *x = eval_find_input(base, name);
			const struct eval_input *h = eval_find_input(head, name);

			cr_assert_not_null(x);
			cr_assert_not_null(h);
			compiled += x->set != NULL;
			batched += x->ahead && x->ahead == h->ahead;
		}
	cr_expect_eq(batched, SETS, "%zu of %d base sets share a head slot",
		     batched, SETS);
	cr_expect_eq(compiled, 0, "%zu base sets compiled by the scan",
		     compiled);
	eval_free(base);
	eval_free(head);
	eval_pool_free(pool);
	graph_repo_close(repo);
	strmap_release(&map);
	arena_release(&arena);
	t_rmtree(dir);
	free(dir);
}

/*
 * The memo counters count each set once: a cold evaluation asks the
 * memo once per set (the scan ahead on threads, or the keying on one)
 * and misses SETS times, not once in the scan and again in the keying;
 * a warm one hits SETS - 1 times (p01's key, whose link leaves its set,
 * is never remembered: it misses).
 */
Test(engine_plan_eval_pool, memo_counters_count_each_set_once)
{
	char *dir = make_repo();
	struct graph_repo *repo = NULL;
	struct eval_pool *pool = NULL;
	struct strmap map = STRMAP_INIT, map1 = STRMAP_INIT;
	struct arena arena;
	struct eval *one, *cold, *warm;
	struct buf a;
	struct error err;

	error_init(&err);
	buf_init(&a, 0);
	arena_init(&arena);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	cr_assert_eq(eval_pool_new(4, &pool, &err), 0);
	cr_assert_not_null(pool, "libgit2 without threads?");
	one = open_eval(repo, NULL);
	eval_share_key_memo(one, &map1, &arena);
	cr_assert_eq(keys_text(one, &a, &err), 0, "%s", err.msg);
	cr_expect_eq(one->memo_misses, SETS, "one thread: %zu misses",
		     one->memo_misses);
	cr_expect_eq(one->memo_hits, 0);
	cold = open_eval(repo, pool);
	eval_share_key_memo(cold, &map, &arena);
	cr_assert_eq(keys_text(cold, &a, &err), 0, "%s", err.msg);
	cr_expect_eq(cold->memo_misses, SETS, "keyed ahead: %zu misses",
		     cold->memo_misses);
	cr_expect_eq(cold->memo_hits, 0, "keyed ahead: %zu hits",
		     cold->memo_hits);
	warm = open_eval(repo, pool);
	eval_share_key_memo(warm, &map, &arena);
	cr_assert_eq(keys_text(warm, &a, &err), 0, "%s", err.msg);
	cr_expect_eq(warm->memo_hits, SETS - 1, "warm: %zu hits",
		     warm->memo_hits);
	cr_expect_eq(warm->memo_misses, 1, "warm: %zu misses",
		     warm->memo_misses);
	eval_free(warm);
	eval_free(cold);
	eval_free(one);
	eval_pool_free(pool);
	graph_repo_close(repo);
	strmap_release(&map);
	strmap_release(&map1);
	arena_release(&arena);
	buf_release(&a);
	t_rmtree(dir);
	free(dir);
}
