/*
 * The scheduler: node states, readiness in topological-index order, the CPU
 * slots and the GPU pool, timeouts (SIGTERM, then SIGKILL after a grace
 * period), stopping on a signal flag, and each action's environment.
 */
#include "engine/run/run.h"
#include "engine/run/sched.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/fnmatch.h"
#include "base/host.h"
#include "base/mem.h"
#include "engine/plan/plan.h"
#include "graph/graph.h"
#include "rules/rules.h"
#include "base/banned.h"

#define DEFAULT_GRACE_MS 5000LL
#define POLL_MS 100

static const char *const state_names[RUN_STATE_COUNT] = {
	[RUN_STATE_NONE] = "none", [RUN_STATE_PENDING] = "pending",
	[RUN_STATE_RUNNING] = "running", [RUN_STATE_REUSED] = "reused",
	[RUN_STATE_CUTOFF] = "cutoff", [RUN_STATE_OK] = "ok",
	[RUN_STATE_FAILED] = "failed", [RUN_STATE_TIMEOUT] = "timeout",
	[RUN_STATE_INTERRUPTED] = "interrupted",
	[RUN_STATE_BLOCKED] = "blocked", [RUN_STATE_DEFERRED] = "deferred",
	[RUN_STATE_REMOTE] = "remote", [RUN_STATE_SKIPPED] = "skipped",
};

const char *
run_state_name(enum run_state s)
{
	return (unsigned)s < RUN_STATE_COUNT ? state_names[s] : "?";
}

const char *
run_host_platform(void)
{
	return host_platform();
}


static int
terminal(enum run_state s)
{
	return s != RUN_STATE_PENDING && s != RUN_STATE_RUNNING;
}

static int
success(enum run_state s)
{
	return s == RUN_STATE_REUSED || s == RUN_STATE_CUTOFF ||
	       s == RUN_STATE_OK || s == RUN_STATE_NONE;
}

static int
failure(enum run_state s)
{
	return s == RUN_STATE_FAILED || s == RUN_STATE_TIMEOUT ||
	       s == RUN_STATE_INTERRUPTED || s == RUN_STATE_BLOCKED;
}

void
run_emit(struct sched *s, enum run_event_kind kind, size_t i)
{
	struct run_event ev;

	if (!s->o->progress)
		return;
	ev.kind = kind;
	ev.node = i;
	ev.rn = &s->r->nodes[i];
	ev.done = s->done;
	ev.total = s->total;
	s->o->progress(s->o->progress_payload, &ev);
}

/* Final state; records it when the store keeps such outcomes. */
int
run_settle(struct sched *s, size_t i, enum run_state state, struct error *err)
{
	struct run_node *rn = &s->r->nodes[i];
	int was_action = rn->state == RUN_STATE_RUNNING ||
			 state == RUN_STATE_CUTOFF;
	int rc = 0;

	rn->state = state;
	switch (state) {
	case RUN_STATE_REUSED: case RUN_STATE_CUTOFF: case RUN_STATE_OK:
	case RUN_STATE_FAILED: case RUN_STATE_TIMEOUT:
	case RUN_STATE_INTERRUPTED:
		rc = s->st->record(s->st->payload, i, rn, err);
		break;
	default:
		break;
	}
	if (rc)
		return rc;
	if (was_action)
		s->done++;
	if (failure(rn->state) && rn->state != RUN_STATE_BLOCKED &&
	    !s->o->keep_going)
		s->halted = 1;
	run_emit(s, RUN_EVENT_END, i);
	return 0;
}

static int
platform_here(const struct sched *s, const struct graph_node *n)
{
	const char *pf = graph_node_axis(n, "platform");

	return !pf || (s->o->host_platform &&
		       !strcmp(pf, s->o->host_platform));
}

static int
gpu_fits(const struct rules_gpu *want, const struct run_gpu *gpu)
{
	if (want->min_cc_major &&
	    (gpu->cc_major < (int)want->min_cc_major ||
	     (gpu->cc_major == (int)want->min_cc_major &&
	      gpu->cc_minor < (int)want->min_cc_minor)))
		return 0;
	if (want->min_memory_mb && gpu->memory_mib < want->min_memory_mb)
		return 0;
	return 1;
}

/*
 * GPUs for node n: 1 and *mask when free devices fit now, 0 when they
 * must wait, -1 when no set of devices here ever fits (deferred).
 */
static int
gpu_pick(const struct sched *s, const struct rules_gpu *want,
	 unsigned long long *mask)
{
	size_t i, fit = 0, free_fit = 0;

	*mask = 0;
	for (i = 0; i < s->o->n_gpus && i < 64; i++) {
		if (!gpu_fits(want, &s->o->gpus[i]))
			continue;
		fit++;
		if (!(s->gpu_busy & (1ULL << i)) && free_fit < want->count) {
			free_fit++;
			*mask |= 1ULL << i;
		}
	}
	if (fit < want->count)
		return -1;
	return free_fit == want->count ? 1 : 0;
}







/* Whether node n has an action this runner can start. */
static int
runnable_here(const struct sched *s, const struct graph_node *n)
{
	return n->rule && (n->argc || n->rule->builtin) && platform_here(s, n);
}

/*
 * Node i cannot get the bytes of its reused dependency d (`why`): a cache
 * gap. Unless --strict-cache, or d cannot run here, d is rebuilt here
 * (its state back to pending, reported as a gap rebuild) and i waits for
 * it; else i fails with the reason, as a node whose input is missing.
 */
static int
gap(struct sched *s, size_t i, size_t d, const struct error *why,
    struct error *err)
{
	struct run_node *rn = &s->r->nodes[i], *dn = &s->r->nodes[d];
	int reused = dn->state == RUN_STATE_REUSED ||
		     dn->state == RUN_STATE_CUTOFF;

	if (s->o->stop && *s->o->stop) {
		/* A transfer cut short by Ctrl-C or SIGTERM is no gap. */
		snprintf(rn->message, sizeof(rn->message), "interrupted");
		rn->state = RUN_STATE_RUNNING;
		return run_settle(s, i, RUN_STATE_INTERRUPTED, err);
	}
	if (s->o->strict_cache || dn->gap || !reused ||
	    !runnable_here(s, &s->g->nodes[d])) {
		snprintf(rn->message, sizeof(rn->message), "%s", why->msg);
		rn->state = RUN_STATE_RUNNING;	/* counted as an action */
		return run_settle(s, i, RUN_STATE_FAILED, err);
	}
	dn->state = RUN_STATE_PENDING;
	dn->gap = 1;
	dn->cause = -1;
	snprintf(dn->message, sizeof(dn->message), RUN_GAP_PREFIX "%.460s",
		 why->msg);
	s->total++;
	return 0;
}

/*
 * 1 when a running node declares a `rewrites:` file node i declares too:
 * i waits, so one action's rewritten file is restored before another
 * rewrites it (both lists are sorted).
 */
static int
rewrite_busy(const struct sched *s, size_t i)
{
	const struct graph_node *n = &s->g->nodes[i];
	size_t j, a, b;

	for (j = 0; j < s->g->n_nodes; j++) {
		const struct graph_node *o = &s->g->nodes[j];

		if (j == i || !o->n_rewrites ||
		    s->r->nodes[j].state != RUN_STATE_RUNNING)
			continue;
		for (a = b = 0; a < n->n_rewrites && b < o->n_rewrites;) {
			int c = strcmp(n->rewrites[a], o->rewrites[b]);

			if (!c)
				return 1;
			if (c < 0)
				a++;
			else
				b++;
		}
	}
	return 0;
}

/*
 * Decide node i if its dependencies are all final: settle it, start it, or
 * leave it waiting. *changed is set when its state moved.
 */
static int
consider(struct sched *s, size_t i, int *changed, struct error *err)
{
	const struct graph_node *n = &s->g->nodes[i];
	const struct plan_item *it = &s->p->items[i];
	struct run_node *rn = &s->r->nodes[i];
	unsigned long long mask = 0;
	size_t k;
	int rc;

	for (k = 0; k < n->n_deps; k++)
		if (!terminal(s->r->nodes[n->deps[k]].state))
			return 0;
	if (it->decision == PLAN_REUSE && !rn->gap) {
		*changed = 1;
		return run_settle(s, i, RUN_STATE_REUSED, err);
	}
	for (k = 0; k < n->n_deps; k++) {
		const struct run_node *up = &s->r->nodes[n->deps[k]];
		enum run_state why;

		if (success(up->state))
			continue;
		why = up->state == RUN_STATE_REMOTE ? RUN_STATE_REMOTE
		    : up->state == RUN_STATE_DEFERRED ? RUN_STATE_DEFERRED
		    : up->state == RUN_STATE_SKIPPED ? RUN_STATE_SKIPPED
		    : RUN_STATE_BLOCKED;
		rn->cause = (long)n->deps[k];
		snprintf(rn->message, sizeof(rn->message), "needs %s (%s)",
			 s->g->nodes[n->deps[k]].id,
			 run_state_name(up->state));
		*changed = 1;
		return run_settle(s, i, why, err);
	}
	if (s->stopping || s->halted) {
		snprintf(rn->message, sizeof(rn->message), "%s",
			 s->stopping ? "not started: interrupted"
				     : "not started: stopped after a failure "
				       "(--keep-going runs the rest)");
		*changed = 1;
		return run_settle(s, i, RUN_STATE_SKIPPED, err);
	}
	if (it->reason == PLAN_REASON_UPSTREAM_REBUILT && !rn->gap) {
		rc = s->st->cutoff(s->st->payload, i, err);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			long at = it->cause;

			while (at >= 0 &&
			       s->r->nodes[at].state == RUN_STATE_CUTOFF &&
			       s->r->nodes[at].cause >= 0)
				at = s->r->nodes[at].cause;
			rn->cause = at;
			*changed = 1;
			return run_settle(s, i, RUN_STATE_CUTOFF, err);
		}
	}
	if (n->rule->gpu.count) {
		rc = gpu_pick(s, &n->rule->gpu, &mask);
		if (rc < 0) {
			snprintf(rn->message, sizeof(rn->message),
				 "no GPU here matches (needs %u%s)",
				 n->rule->gpu.count,
				 s->o->n_gpus ? ", with the declared compute "
						"capability and memory"
					      : "; none found");
			*changed = 1;
			return run_settle(s, i, RUN_STATE_DEFERRED, err);
		}
		if (rc == 0)
			return 0;	/* waits, holding no CPU slot */
	}
	if (s->running >= (s->o->jobs ? s->o->jobs : 1) ||
	    (n->n_rewrites && rewrite_busy(s, i)))
		return 0;
	*changed = 1;
	if (s->st->fetch) {
		struct error why;
		size_t d = 0;

		error_init(&why);
		rc = s->st->fetch(s->st->payload, i, &d, &why);
		if (rc < 0) {
			*err = why;
			return rc;
		}
		if (rc == RUN_FETCH_GAP)
			return gap(s, i, d, &why, err);
	}
	rc = run_start(s, i, mask, err);
	if (rc == RUN_START_FAILED)
		return run_settle(s, i, RUN_STATE_FAILED, err);
	if (!rc)
		run_emit(s, RUN_EVENT_START, i);
	return rc;
}

static void
ended(struct sched *s, size_t i, const struct exec_status *es)
{
	struct run_node *rn = &s->r->nodes[i];

	rn->duration_ms = s->ex->now_ms(s->ex->payload) - rn->started_ms;
	rn->exit_code = es->exited ? es->code : -1;
	rn->signal = es->exited ? 0 : es->signal;
	s->gpu_busy &= ~rn->gpu_mask;
	s->running--;
}

static enum run_state
ended_state(struct sched *s, size_t i, const struct exec_status *es)
{
	struct run_node *rn = &s->r->nodes[i];

	if (rn->timed_out) {
		snprintf(rn->message, sizeof(rn->message),
			 "timed out after %lld ms",
			 (long long)(rn->deadline_ms - rn->started_ms));
		return RUN_STATE_TIMEOUT;
	}
	if (rn->stopped) {
		snprintf(rn->message, sizeof(rn->message), "interrupted");
		return RUN_STATE_INTERRUPTED;
	}
	if (es->exited && es->code == 0)
		return RUN_STATE_OK;
	if (es->exited && es->code == 4 && s->g->nodes[i].rule->builtin) {
		snprintf(rn->message, sizeof(rn->message),
			 "%s: built, but no GPU to launch on",
			 s->g->nodes[i].rule->builtin);
		return RUN_STATE_DEFERRED;
	}
	if (es->exited)
		snprintf(rn->message, sizeof(rn->message), "exit status %d",
			 es->code);
	else
		snprintf(rn->message, sizeof(rn->message),
			 "killed by signal %d", es->signal);
	return RUN_STATE_FAILED;
}

static long
find_handle(const struct sched *s, long handle)
{
	size_t i;

	for (i = 0; i < s->r->n; i++)
		if (s->r->nodes[i].state == RUN_STATE_RUNNING &&
		    s->r->nodes[i].handle == handle)
			return (long)i;
	return -1;
}

/* Timeouts and stops: SIGTERM first, SIGKILL after the grace period. */
static int64_t
enforce(struct sched *s)
{
	int64_t now = s->ex->now_ms(s->ex->payload), next = -1;
	int64_t grace = s->o->grace_ms > 0 ? s->o->grace_ms
					   : DEFAULT_GRACE_MS;
	size_t i;

	for (i = 0; i < s->r->n; i++) {
		struct run_node *rn = &s->r->nodes[i];
		int64_t at;

		if (rn->state != RUN_STATE_RUNNING)
			continue;
		if (!rn->kill_ms && (s->stopping || now >= rn->deadline_ms)) {
			if (s->stopping && now < rn->deadline_ms)
				rn->stopped = 1;
			else
				rn->timed_out = 1;
			s->ex->kill(s->ex->payload, rn->handle, EXEC_SIGTERM);
			rn->kill_ms = now + grace;
		} else if (rn->kill_ms && now >= rn->kill_ms) {
			s->ex->kill(s->ex->payload, rn->handle, EXEC_SIGKILL);
			rn->kill_ms = now + grace;
		}
		at = rn->kill_ms ? rn->kill_ms : rn->deadline_ms;
		if (next < 0 || at < next)
			next = at;
	}
	return next < 0 ? -1 : (next > now ? next - now : 0);
}

static void
init_states(struct sched *s)
{
	size_t i;

	for (i = 0; i < s->r->n; i++) {
		const struct graph_node *n = &s->g->nodes[i];
		const struct plan_item *it = &s->p->items[i];
		struct run_node *rn = &s->r->nodes[i];

		rn->cause = -1;
		rn->exit_code = -1;
		rn->state = RUN_STATE_NONE;
		if (!s->p->in_closure[i] || it->decision == PLAN_SKIP)
			continue;
		if (it->decision == PLAN_REUSE) {
			rn->state = RUN_STATE_PENDING;
			continue;
		}
		if (!n->rule || (!n->argc && !n->rule->builtin)) {
			snprintf(rn->message, sizeof(rn->message),
				 "nothing to run here");
			continue;
		}
		if (!platform_here(s, n)) {
			rn->state = RUN_STATE_REMOTE;
			snprintf(rn->message, sizeof(rn->message),
				 "platform %s runs elsewhere (job group "
				 "%s:%s)", graph_node_axis(n, "platform"),
				 graph_node_kind_name(n->kind), n->name);
			continue;
		}
		if (s->o->only && !fnmatch_match(s->o->only, n->id)) {
			rn->state = RUN_STATE_SKIPPED;
			snprintf(rn->message, sizeof(rn->message),
				 "not matched by --only %s", s->o->only);
			continue;
		}
		if (s->o->gap && s->o->gap[i]) {
			rn->gap = 1;
			snprintf(rn->message, sizeof(rn->message),
				 RUN_GAP_PREFIX "a selected node needs it and "
				 "it has no usable record of its key");
		}
		if (s->o->select && !s->o->select[i]) {
			rn->state = RUN_STATE_SKIPPED;
			snprintf(rn->message, sizeof(rn->message), "%s",
				 s->o->select_note ? s->o->select_note
						   : "not selected");
			continue;
		}
		rn->state = RUN_STATE_PENDING;
		s->total++;
	}
}

static void
stop_all(struct sched *s)
{
	size_t i;

	for (i = 0; i < s->r->n; i++)
		if (s->r->nodes[i].state == RUN_STATE_RUNNING)
			s->ex->kill(s->ex->payload, s->r->nodes[i].handle,
				    EXEC_SIGKILL);
}

static int
loop(struct sched *s, struct error *err)
{
	struct exec_status es;
	long handle, at;
	int64_t wait_ms;
	size_t i;
	int changed, rc;

	for (;;) {
		if (s->o->stop && *s->o->stop && !s->stopping) {
			s->stopping = 1;
			s->r->interrupted = 1;
		}
		do {
			changed = 0;
			for (i = 0; i < s->r->n; i++) {
				if (s->r->nodes[i].state != RUN_STATE_PENDING)
					continue;
				rc = consider(s, i, &changed, err);
				if (rc)
					return rc;
			}
		} while (changed);
		if (!s->running)
			break;
		wait_ms = enforce(s);
		if (wait_ms < 0 || wait_ms > POLL_MS)
			wait_ms = POLL_MS;
		rc = s->ex->wait(s->ex->payload, wait_ms, &handle, &es, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		at = find_handle(s, handle);
		if (at < 0)
			continue;
		ended(s, (size_t)at, &es);
		rc = run_settle(s, (size_t)at, ended_state(s, (size_t)at, &es),
			    err);
		if (rc)
			return rc;
	}
	return 0;
}

int
run_execute(const struct graph *g, const struct plan *p,
	    const struct exec_runner *ex, const struct run_store *st,
	    const struct run_options *o, struct run_result *out,
	    struct error *err)
{
	struct sched s;
	int64_t t0;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	out->nodes = mem_calloc(g->n_nodes + 1, sizeof(*out->nodes));
	if (!out->nodes)
		return error_set(err, ERROR_NOMEM, "out of memory");
	out->n = g->n_nodes;
	memset(&s, 0, sizeof(s));
	s.g = g;
	s.p = p;
	s.ex = ex;
	s.st = st;
	s.o = o;
	s.r = out;
	t0 = ex->now_ms(ex->payload);
	init_states(&s);
	rc = loop(&s, err);
	/* A stop seen only by the last node's work (a transfer it cut
	 * short) still makes the run interrupted. */
	if (o->stop && *o->stop)
		out->interrupted = 1;
	if (rc) {
		stop_all(&s);
		while (s.running) {
			struct exec_status es;
			long h;
			struct error ignore;

			error_init(&ignore);
			if (ex->wait(ex->payload, 1000, &h, &es, &ignore) != 1)
				break;
			s.running--;
		}
	}
	out->elapsed_ms = ex->now_ms(ex->payload) - t0;
	for (i = 0; i < out->n; i++) {
		out->counts[out->nodes[i].state]++;
		out->gaps += out->nodes[i].gap != 0;
		if (out->nodes[i].state == RUN_STATE_OK) {
			if (g->nodes[i].kind == GRAPH_NODE_TEST)
				out->tested++;
			else
				out->built++;
		}
	}
	return rc;
}

void
run_result_release(struct run_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++)
		mem_free(r->nodes[i].log_path);
	mem_free(r->nodes);
	memset(r, 0, sizeof(*r));
}
