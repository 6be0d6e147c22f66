/*
 * Suite engine_run: the scheduler with a fake process runner (a simulated
 * clock; each node's duration and exit code come from a table) and a fake
 * store: blocking, --keep-going, deterministic order, the GPU pool, CPU
 * slots, timeouts, remote and deferred nodes, early cutoff, --only.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "engine/run/exec.h"
#include "engine/plan/plan.h"
#include "engine/run/run.h"
#include "graph/graph.h"
#include "rules/rules.h"

#define MAXP 64

struct behaviour {
	const char *id;
	int64_t duration;	/* < 0: hangs until killed */
	int code;
};

struct fake {
	int64_t now;
	const struct behaviour *table;
	size_t n_table;
	struct { long h; int64_t end; int code, sig; int gpu; char id[256]; }
		live[MAXP];
	size_t n_live;
	long next;
	char order[MAXP][256];	/* start order */
	size_t n_started;
	size_t max_running, max_gpu_users;
	int gpu_users[8];
	int signals_sent;
	char visible[MAXP][128];	/* CUDA_VISIBLE_DEVICES by start */
};

static const struct behaviour *
lookup(const struct fake *f, const char *id)
{
	size_t i;

	for (i = 0; i < f->n_table; i++)
		if (!strcmp(f->table[i].id, id))
			return &f->table[i];
	return NULL;
}

static int
fake_spawn(void *payload, const struct exec_spec *s, long *handle,
	   struct error *err)
{
	struct fake *f = payload;
	const struct behaviour *b;
	const char *id = NULL;
	size_t i;
	int gpu = -1;

	(void)err;
	for (i = 0; i < s->n_env; i++) {
		if (!strncmp(s->env[i], "RIPPLE_NODE=", 12))
			id = s->env[i] + 12;
		if (!strncmp(s->env[i], "CUDA_VISIBLE_DEVICES=", 21)) {
			gpu = atoi(s->env[i] + 21);
			snprintf(f->visible[f->n_started], 128, "%s",
				 s->env[i] + 21);
		}
	}
	cr_assert(id);
	b = lookup(f, id);
	snprintf(f->order[f->n_started++], 256, "%s", id);
	f->live[f->n_live].h = ++f->next;
	f->live[f->n_live].end = b && b->duration < 0 ? INT64_MAX
				 : f->now + (b ? b->duration : 10);
	f->live[f->n_live].code = b ? b->code : 0;
	f->live[f->n_live].sig = 0;
	f->live[f->n_live].gpu = gpu;
	snprintf(f->live[f->n_live].id, 256, "%s", id);
	*handle = f->next;
	f->n_live++;
	if (f->n_live > f->max_running)
		f->max_running = f->n_live;
	if (gpu >= 0) {
		size_t users = 0;

		for (i = 0; i < f->n_live; i++)
			if (f->live[i].gpu == gpu)
				users++;
		if (users > f->max_gpu_users)
			f->max_gpu_users = users;
	}
	return 0;
}

static int
fake_wait(void *payload, long timeout, long *handle, struct exec_status *st,
	  struct error *err)
{
	struct fake *f = payload;
	size_t i, best = 0;

	(void)err;
	if (!f->n_live)
		return 0;
	for (i = 1; i < f->n_live; i++)
		if (f->live[i].end < f->live[best].end)
			best = i;
	if (timeout >= 0 && f->live[best].end > f->now + timeout) {
		f->now += timeout;
		return 0;
	}
	if (f->live[best].end > f->now)
		f->now = f->live[best].end;
	*handle = f->live[best].h;
	memset(st, 0, sizeof(*st));
	if (f->live[best].sig) {
		st->signal = f->live[best].sig;
	} else {
		st->exited = 1;
		st->code = f->live[best].code;
	}
	f->live[best] = f->live[--f->n_live];
	return 1;
}

static int
fake_kill(void *payload, long handle, int sig)
{
	struct fake *f = payload;
	size_t i;

	f->signals_sent++;
	for (i = 0; i < f->n_live; i++)
		if (f->live[i].h == handle) {
			f->live[i].end = f->now;
			f->live[i].sig = sig;
		}
	return 0;
}

static int64_t
fake_now(void *payload)
{
	return ((struct fake *)payload)->now;
}

struct store {
	size_t records;
	int cut;		/* cutoff answer */
	size_t cutoff_asked;
	const char *gap_id;	/* fetch: this reused node's bytes are gone */
	const struct graph *g;
	size_t fetches;
};

/* The bytes of every reused dependency are here, except gap_id's until
 * that node has been rebuilt (recorded in a state other than reused). */
static int
store_fetch(void *payload, size_t node, size_t *gap, struct error *err)
{
	struct store *s = payload;
	const struct graph_node *n = &s->g->nodes[node];
	size_t k;

	s->fetches++;
	for (k = 0; s->gap_id && k < n->n_deps; k++) {
		if (strcmp(s->g->nodes[n->deps[k]].id, s->gap_id))
			continue;
		*gap = n->deps[k];
		error_set(err, ERROR_NOT_FOUND, "cannot get the bytes of %s: "
			  "remote cache has no blob", s->gap_id);
		return RUN_FETCH_GAP;
	}
	return 0;
}

static int
store_cutoff(void *payload, size_t node, struct error *err)
{
	struct store *s = payload;

	(void)node;
	(void)err;
	s->cutoff_asked++;
	return s->cut;
}

static int
store_record(void *payload, size_t node, struct run_node *rn,
	     struct error *err)
{
	struct store *s = payload;

	(void)err;
	s->records++;
	if (s->gap_id && rn->state != RUN_STATE_REUSED &&
	    !strcmp(s->g->nodes[node].id, s->gap_id))
		s->gap_id = NULL;	/* rebuilt: its bytes are here now */
	return 0;
}

struct fixture {
	struct rules *rules;
	struct graph *g;
	struct plan plan;
	struct fake f;
	struct store st;
	struct exec_runner ex;
	struct run_store rs;
	struct run_options o;
	struct run_result res;
};

static void
setup_fixture(struct fixture *x, const char *yaml,
	      const struct behaviour *table, size_t n)
{
	struct error_list errs;
	struct error err;
	size_t i;

	memset(x, 0, sizeof(*x));
	error_list_init(&errs, 10);
	error_init(&err);
	cr_assert_eq(rules_load_buffer("t.yml", yaml, strlen(yaml),
				       &x->rules, &errs), 0,
		     "%s", errs.n ? errs.items[0].msg : "");
	error_list_release(&errs);
	cr_assert_eq(graph_build(x->rules, &x->g, &err), 0, "%s", err.msg);
	x->plan.n = x->g->n_nodes;
	x->plan.items = calloc(x->plan.n, sizeof(*x->plan.items));
	x->plan.in_closure = calloc(x->plan.n, 1);
	for (i = 0; i < x->plan.n; i++) {
		x->plan.items[i].node = i;
		x->plan.items[i].decision =
			x->g->nodes[i].kind == GRAPH_NODE_TEST ? PLAN_TEST
							       : PLAN_BUILD;
		x->plan.items[i].reason = PLAN_REASON_NO_BASELINE;
		x->plan.items[i].cause = -1;
		x->plan.in_closure[i] = 1;
	}
	x->f.table = table;
	x->f.n_table = n;
	x->ex.spawn = fake_spawn;
	x->ex.wait = fake_wait;
	x->ex.kill = fake_kill;
	x->ex.now_ms = fake_now;
	x->ex.payload = &x->f;
	x->rs.cutoff = store_cutoff;
	x->rs.record = store_record;
	x->rs.fetch = store_fetch;
	x->st.g = x->g;
	x->rs.payload = &x->st;
	x->o.jobs = 4;
	x->o.root = "/nonexistent";
	x->o.log_dir = "/nonexistent/logs";
	x->o.run_id = "r1";
	x->o.host_platform = "linux-64";
}

static void
teardown_fixture(struct fixture *x)
{
	run_result_release(&x->res);
	free(x->plan.items);
	free(x->plan.in_closure);
	graph_free(x->g);
	rules_free(x->rules);
}

static enum run_state
state(struct fixture *x, const char *id)
{
	const struct graph_node *n = graph_find(x->g, id);

	cr_assert(n, "no node %s", id);
	return x->res.nodes[n->index].state;
}

static void
execute(struct fixture *x)
{
	struct error err;

	error_init(&err);
	cr_assert_eq(run_execute(x->g, &x->plan, &x->ex, &x->rs, &x->o,
				 &x->res, &err), 0, "%s", err.msg);
}

static const char chain[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [\"**\"]}\n"
	"artifacts:\n"
	"  a: {inputs: [src], command: [a]}\n"
	"  b: {needs: [a], command: [b]}\n"
	"  c: {inputs: [src], command: [c]}\n"
	"  d: {needs: [c], command: [d]}\n"
	"tests:\n"
	"  ta: {needs: [b], command: [ta]}\n"
	"  tc: {needs: [d], command: [tc]}\n";

Test(engine_run, failure_blocks_exactly_its_dependents_with_keep_going)
{
	static const struct behaviour t[] = { { "artifact:a", 10, 2 } };
	struct fixture x;

	setup_fixture(&x, chain, t, 1);
	x.o.keep_going = 1;
	execute(&x);
	cr_expect_eq(state(&x, "artifact:a"), RUN_STATE_FAILED);
	cr_expect_eq(state(&x, "artifact:b"), RUN_STATE_BLOCKED);
	cr_expect_eq(state(&x, "test:ta"), RUN_STATE_BLOCKED);
	cr_expect_eq(state(&x, "artifact:c"), RUN_STATE_OK);
	cr_expect_eq(state(&x, "artifact:d"), RUN_STATE_OK);
	cr_expect_eq(state(&x, "test:tc"), RUN_STATE_OK);
	cr_expect_eq(x.res.counts[RUN_STATE_BLOCKED], 2);
	cr_expect_eq(x.res.built, 2);
	cr_expect_eq(x.res.tested, 1);
	/* a failed, c, d, tc ok: four records; blocked nodes none. */
	cr_expect_eq(x.st.records, 4);
	teardown_fixture(&x);
}

Test(engine_run, without_keep_going_no_new_node_starts_after_a_failure)
{
	/* a fails at t=5 while c (t=0..50) still runs: c finishes, d never
	   starts. */
	static const struct behaviour t[] = {
		{ "artifact:a", 5, 1 }, { "artifact:c", 50, 0 },
	};
	struct fixture x;

	setup_fixture(&x, chain, t, 2);
	execute(&x);
	cr_expect_eq(state(&x, "artifact:a"), RUN_STATE_FAILED);
	cr_expect_eq(state(&x, "artifact:c"), RUN_STATE_OK);
	cr_expect_eq(state(&x, "artifact:d"), RUN_STATE_SKIPPED);
	cr_expect_eq(state(&x, "test:tc"), RUN_STATE_SKIPPED);
	cr_expect_eq(state(&x, "artifact:b"), RUN_STATE_BLOCKED);
	cr_expect_eq(x.f.n_started, 2);
	teardown_fixture(&x);
}

Test(engine_run, ready_nodes_start_in_topological_index_order)
{
	struct fixture x;
	size_t i;

	setup_fixture(&x, chain, NULL, 0);
	x.o.jobs = 1;
	execute(&x);
	cr_assert_eq(x.f.n_started, x.g->n_nodes);
	for (i = 0; i < x.g->n_nodes; i++)
		cr_expect_str_eq(x.f.order[i], x.g->nodes[i].id);
	cr_expect_eq(x.f.max_running, 1);
	teardown_fixture(&x);
}

Test(engine_run, jobs_bound_the_number_running_at_once)
{
	static const char wide[] =
		"version: 1\n"
		"axes:\n  n: [\"1\", \"2\", \"3\", \"4\", \"5\", \"6\"]\n"
		"artifacts:\n"
		"  w: {each: {n: axes.n}, command: [w]}\n";
	struct fixture x;

	setup_fixture(&x, wide, NULL, 0);
	x.o.jobs = 3;
	execute(&x);
	cr_expect_eq(x.f.n_started, 6);
	cr_expect_eq(x.f.max_running, 3);
	teardown_fixture(&x);
}

static const char gpu_yaml[] =
	"version: 1\n"
	"axes:\n  n: [\"1\", \"2\", \"3\"]\n"
	"artifacts:\n"
	"  cpu: {each: {n: axes.n}, command: [cpu]}\n"
	"tests:\n"
	"  g: {each: {n: axes.n}, command: [g], gpu: {count: 1}}\n"
	"  big: {command: [big], gpu: {count: 1, min-memory: 100GiB}}\n";

Test(engine_run, gpu_pool_is_never_oversubscribed_and_waiters_hold_no_cpu)
{
	static const struct behaviour t[] = {
		{ "test:g[n=1]", 100, 0 }, { "test:g[n=2]", 100, 0 },
		{ "test:g[n=3]", 100, 0 },
	};
	static const struct run_gpu gpus[] = { { 0, 9, 0, 80000 } };
	struct fixture x;
	size_t i, cpu_pos = 0, g2_pos = 0;

	setup_fixture(&x, gpu_yaml, t, 3);
	x.o.jobs = 2;
	x.o.gpus = gpus;
	x.o.n_gpus = 1;
	execute(&x);
	cr_expect_eq(x.f.max_gpu_users, 1);
	cr_expect_eq(state(&x, "test:g[n=3]"), RUN_STATE_OK);
	cr_expect_eq(state(&x, "test:big"), RUN_STATE_DEFERRED);
	/* GPU tests sort first (index order): g[n=1] takes the GPU, and
	   the CPU nodes run while g[n=2] and g[n=3] wait for it. */
	for (i = 0; i < x.f.n_started; i++) {
		if (!strcmp(x.f.order[i], "artifact:cpu[n=3]"))
			cpu_pos = i;
		if (!strcmp(x.f.order[i], "test:g[n=2]"))
			g2_pos = i;
	}
	cr_expect_lt(cpu_pos, g2_pos);
	teardown_fixture(&x);
}

/*
 * A runner restricted to some GPUs (CUDA_VISIBLE_DEVICES set for it) sees
 * them as ordinals 0.. in cudart; a child given the bare ordinal would
 * count from the machine's first GPU. It gets the runner's own entries.
 */
Test(engine_run, gpu_ordinals_map_through_the_runners_visible_devices)
{
	static const char y[] =
		"version: 1\n"
		"tests:\n"
		"  one: {command: [one], gpu: {count: 1}}\n"
		"  two: {needs: [one], command: [two], gpu: {count: 2}}\n";
	static const struct run_gpu gpus[] = { { 0, 9, 0, 80000 },
					       { 1, 9, 0, 80000 } };
	struct fixture x;

	setup_fixture(&x, y, NULL, 0);
	x.o.gpus = gpus;
	x.o.n_gpus = 2;
	x.o.visible_devices = "2, GPU-5a1c7e2f";
	execute(&x);
	cr_assert_eq(x.f.n_started, 2);
	cr_expect_str_eq(x.f.order[0], "test:one");
	cr_expect_str_eq(x.f.visible[0], "2");
	cr_expect_str_eq(x.f.visible[1], "2,GPU-5a1c7e2f");
	teardown_fixture(&x);
	/* without a restriction, the ordinals are the machine's */
	setup_fixture(&x, y, NULL, 0);
	x.o.gpus = gpus;
	x.o.n_gpus = 2;
	execute(&x);
	cr_expect_str_eq(x.f.visible[1], "0,1");
	teardown_fixture(&x);
	/* a list too short for the pool fails the node, never guesses */
	setup_fixture(&x, y, NULL, 0);
	x.o.gpus = gpus;
	x.o.n_gpus = 2;
	x.o.visible_devices = "7";
	execute(&x);
	cr_expect_eq(state(&x, "test:one"), RUN_STATE_OK);
	cr_expect_eq(state(&x, "test:two"), RUN_STATE_FAILED);
	teardown_fixture(&x);
}

Test(engine_run, gpu_tests_without_a_matching_device_are_deferred)
{
	struct fixture x;

	setup_fixture(&x, gpu_yaml, NULL, 0);
	execute(&x);
	cr_expect_eq(x.res.counts[RUN_STATE_DEFERRED], 4);
	cr_expect_eq(x.res.counts[RUN_STATE_FAILED], 0);
	cr_expect_eq(x.f.n_started, 3);
	teardown_fixture(&x);
}

Test(engine_run, a_timeout_kills_the_action_and_records_timeout)
{
	static const char y[] =
		"version: 1\n"
		"artifacts:\n"
		"  slow: {command: [slow], timeout: 2s}\n"
		"  after: {needs: [slow], command: [after]}\n";
	static const struct behaviour t[] = { { "artifact:slow", -1, 0 } };
	struct fixture x;

	setup_fixture(&x, y, t, 1);
	execute(&x);
	cr_expect_eq(state(&x, "artifact:slow"), RUN_STATE_TIMEOUT);
	cr_expect_eq(state(&x, "artifact:after"), RUN_STATE_BLOCKED);
	cr_expect_geq(x.f.signals_sent, 1);
	cr_expect_geq(x.f.now, 2000);
	cr_expect_eq(x.st.records, 1);
	teardown_fixture(&x);
}

Test(engine_run, timeout_option_overrides_the_rule)
{
	static const char y[] =
		"version: 1\n"
		"artifacts:\n"
		"  slow: {command: [slow]}\n";
	static const struct behaviour t[] = { { "artifact:slow", 5000, 0 } };
	struct fixture x;

	setup_fixture(&x, y, t, 1);
	x.o.timeout_ms = 1000;
	execute(&x);
	cr_expect_eq(state(&x, "artifact:slow"), RUN_STATE_TIMEOUT);
	teardown_fixture(&x);
}

Test(engine_run, other_platforms_are_remote_with_their_dependents)
{
	static const char y[] =
		"version: 1\n"
		"axes:\n  platform: [linux-64, win-64]\n"
		"artifacts:\n"
		"  w: {each: {platform: axes.platform}, command: [w]}\n"
		"  all: {needs: [w], command: [all]}\n";
	struct fixture x;

	setup_fixture(&x, y, NULL, 0);
	execute(&x);
	cr_expect_eq(state(&x, "artifact:w[platform=linux-64]"),
		     RUN_STATE_OK);
	cr_expect_eq(state(&x, "artifact:w[platform=win-64]"),
		     RUN_STATE_REMOTE);
	cr_expect_eq(state(&x, "artifact:all"), RUN_STATE_REMOTE);
	cr_expect_eq(x.f.n_started, 1);
	teardown_fixture(&x);
}

Test(engine_run, a_cascade_whose_key_matches_is_cut_off_not_run)
{
	struct fixture x;
	const struct graph_node *a, *b;

	setup_fixture(&x, chain, NULL, 0);
	a = graph_find(x.g, "artifact:a");
	b = graph_find(x.g, "artifact:b");
	x.plan.items[b->index].reason = PLAN_REASON_UPSTREAM_REBUILT;
	x.plan.items[b->index].cause = (long)a->index;
	x.st.cut = 1;
	execute(&x);
	cr_expect_eq(state(&x, "artifact:a"), RUN_STATE_OK);
	cr_expect_eq(state(&x, "artifact:b"), RUN_STATE_CUTOFF);
	cr_expect_eq(x.res.nodes[b->index].cause, (long)a->index);
	cr_expect_eq(x.st.cutoff_asked, 1);
	cr_expect_eq(state(&x, "test:ta"), RUN_STATE_OK);
	cr_expect_eq(x.f.n_started, x.g->n_nodes - 1);
	teardown_fixture(&x);
}

Test(engine_run, reused_nodes_are_recorded_and_never_started)
{
	struct fixture x;
	size_t i;

	setup_fixture(&x, chain, NULL, 0);
	for (i = 0; i < x.plan.n; i++)
		x.plan.items[i].decision = PLAN_REUSE;
	execute(&x);
	cr_expect_eq(x.f.n_started, 0);
	cr_expect_eq(x.st.records, x.g->n_nodes);
	cr_expect_eq(x.res.counts[RUN_STATE_REUSED], x.g->n_nodes);
	teardown_fixture(&x);
}

/*
 * A cache gap is a slowdown: b needs reused a, whose bytes cannot be had;
 * a is rebuilt here first (a gap rebuild, counted), then b runs. Under
 * --strict-cache b fails instead and a stays reused.
 */
Test(engine_run, a_reused_dependency_whose_bytes_are_gone_is_rebuilt)
{
	struct fixture x;
	const struct graph_node *a, *b;
	size_t i;

	setup_fixture(&x, chain, NULL, 0);
	a = graph_find(x.g, "artifact:a");
	b = graph_find(x.g, "artifact:b");
	x.plan.items[a->index].decision = PLAN_REUSE;
	x.plan.items[a->index].reason = PLAN_REASON_REUSED;
	x.st.gap_id = "artifact:a";
	execute(&x);
	cr_expect_eq(state(&x, "artifact:a"), RUN_STATE_OK);
	cr_expect(x.res.nodes[a->index].gap);
	cr_expect(strstr(x.res.nodes[a->index].message, "cache gap") != NULL,
		  "%s", x.res.nodes[a->index].message);
	cr_expect(strstr(x.res.nodes[a->index].message, "no blob") != NULL,
		  "%s", x.res.nodes[a->index].message);
	cr_expect_eq(state(&x, "artifact:b"), RUN_STATE_OK);
	cr_expect_eq(state(&x, "test:ta"), RUN_STATE_OK);
	cr_expect_eq(x.res.gaps, 1);
	cr_expect_eq(x.res.built, 4);
	for (i = 0; i < x.f.n_started; i++)
		if (!strcmp(x.f.order[i], "artifact:a") ||
		    !strcmp(x.f.order[i], "artifact:b"))
			break;
	cr_expect_str_eq(x.f.order[i], "artifact:a", "a is rebuilt first");
	teardown_fixture(&x);

	setup_fixture(&x, chain, NULL, 0);
	a = graph_find(x.g, "artifact:a");
	b = graph_find(x.g, "artifact:b");	/* the first graph is freed */
	x.plan.items[a->index].decision = PLAN_REUSE;
	x.plan.items[a->index].reason = PLAN_REASON_REUSED;
	x.st.gap_id = "artifact:a";
	x.o.strict_cache = 1;
	x.o.keep_going = 1;
	execute(&x);
	cr_expect_eq(state(&x, "artifact:a"), RUN_STATE_REUSED);
	cr_expect_eq(state(&x, "artifact:b"), RUN_STATE_FAILED);
	cr_expect(strstr(x.res.nodes[b->index].message, "no blob") != NULL,
		  "%s", x.res.nodes[b->index].message);
	cr_expect_eq(state(&x, "test:ta"), RUN_STATE_BLOCKED);
	cr_expect_eq(x.res.gaps, 0);
	teardown_fixture(&x);
}

/* A gap in a node that cannot run here (another platform): b fails. */
Test(engine_run, a_gap_that_cannot_be_rebuilt_here_fails_the_node)
{
	struct fixture x;
	const struct graph_node *a, *b;

	setup_fixture(&x, chain, NULL, 0);
	a = graph_find(x.g, "artifact:a");
	b = graph_find(x.g, "artifact:b");
	x.plan.items[a->index].decision = PLAN_REUSE;
	x.st.gap_id = "artifact:a";
	x.o.keep_going = 1;
	((struct graph_node *)a)->argc = 0;	/* nothing to run here */
	execute(&x);
	cr_expect_eq(state(&x, "artifact:a"), RUN_STATE_REUSED);
	cr_expect_eq(state(&x, "artifact:b"), RUN_STATE_FAILED);
	cr_expect(strstr(x.res.nodes[b->index].message, "no blob") != NULL,
		  "%s", x.res.nodes[b->index].message);
	teardown_fixture(&x);
}

/* Selected only because a selected node needs them: gap rebuilds. */
Test(engine_run, nodes_marked_as_gaps_are_counted)
{
	struct fixture x;
	const struct graph_node *a;
	unsigned char sel[16] = { 0 }, gap[16] = { 0 };
	size_t i;

	setup_fixture(&x, chain, NULL, 0);
	cr_assert(x.g->n_nodes <= 16);
	a = graph_find(x.g, "artifact:a");
	for (i = 0; i < x.g->n_nodes; i++)
		sel[i] = 1;
	gap[a->index] = 1;
	x.o.select = sel;
	x.o.gap = gap;
	execute(&x);
	cr_expect_eq(state(&x, "artifact:a"), RUN_STATE_OK);
	cr_expect(x.res.nodes[a->index].gap);
	cr_expect(strstr(x.res.nodes[a->index].message, "cache gap") != NULL,
		  "%s", x.res.nodes[a->index].message);
	cr_expect_eq(x.res.gaps, 1);
	teardown_fixture(&x);
}

Test(engine_run, only_runs_matching_nodes_and_skips_what_needs_others)
{
	struct fixture x;

	setup_fixture(&x, chain, NULL, 0);
	x.o.only = "artifact:*";
	execute(&x);
	cr_expect_eq(state(&x, "artifact:b"), RUN_STATE_OK);
	cr_expect_eq(state(&x, "test:ta"), RUN_STATE_SKIPPED);
	cr_expect_eq(x.f.n_started, 4);
	teardown_fixture(&x);
}

Test(engine_run, a_stop_request_interrupts_running_actions)
{
	static const struct behaviour t[] = { { "artifact:a", -1, 0 } };
	static volatile sig_atomic_t stop = 1;
	struct fixture x;

	setup_fixture(&x, chain, t, 1);
	x.o.jobs = 1;
	/* The flag is already set: nothing starts. */
	x.o.stop = &stop;
	execute(&x);
	cr_expect_eq(x.f.n_started, 0);
	cr_expect(x.res.interrupted);
	cr_expect_eq(state(&x, "artifact:a"), RUN_STATE_SKIPPED);
	teardown_fixture(&x);
}

Test(engine_run, node_ids_map_to_file_names_one_to_one)
{
	static const char *const ids[] = {
		"artifact:a[d=x:y]", "artifact:a[d=x_y]", "artifact:a[d=x%3Ay]",
		"artifact:a[d=../..]", "artifact:a[d=x/y]", ".hidden", "%2Ehidden",
	};
	char names[7][RUN_FILE_NAME_SIZE], longid[600], longer[600];
	char a[RUN_FILE_NAME_SIZE], b[RUN_FILE_NAME_SIZE];
	size_t i, k;

	for (i = 0; i < 7; i++) {
		run_file_name(ids[i], names[i]);
		cr_expect(!strchr(names[i], '/') && names[i][0] != '.' &&
			  !strchr(names[i], ':'), "%s -> %s", ids[i], names[i]);
		for (k = 0; k < i; k++)
			cr_expect_str_neq(names[i], names[k], "%s and %s", ids[i],
					  ids[k]);
	}
	cr_expect_str_eq(names[0], "artifact%3Aa[d=x%3Ay]");
	cr_expect_str_eq(names[1], "artifact%3Aa[d=x_y]");
	memset(longid, ':', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	memcpy(longer, longid, sizeof(longer));
	longer[sizeof(longer) - 2] = 'x';
	run_file_name(longid, a);
	run_file_name(longer, b);
	cr_expect_leq(strlen(a), 200);
	cr_expect_str_neq(a, b, "two long ids with one prefix");
	cr_expect(strchr(a, '~') != NULL, "%s", a);
}
