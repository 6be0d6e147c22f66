/*
 * Internal to the scheduler (engine/run/run.c, engine/run/start.c): its state,
 * and the steps the two files share.
 */
#ifndef RIPPLE_ENGINE_RUN_SCHED_H
#define RIPPLE_ENGINE_RUN_SCHED_H

#include <stddef.h>

#include "engine/run/run.h"

struct error;
struct exec_runner;
struct graph;
struct plan;

struct sched {
	const struct graph *g;
	const struct plan *p;
	const struct exec_runner *ex;
	const struct run_store *st;
	const struct run_options *o;
	struct run_result *r;
	size_t running;
	unsigned long long gpu_busy;
	int halted;		/* a failure without --keep-going */
	int stopping;		/* the stop flag was seen */
	size_t done, total;
};

/* Actions without a timeout of their own: 30 min (ms). */
#define RUN_DEFAULT_TIMEOUT_MS (30LL * 60 * 1000)

/* Tell the progress observer (if any) about node i. */
void run_emit(struct sched *s, enum run_event_kind kind, size_t i);

/*
 * Give node i its final state: record it through the store (recorded
 * states), unblock or block its users. Returns 0 or the store's error.
 */
int run_settle(struct sched *s, size_t i, enum run_state state,
	       struct error *err);

/*
 * Start node i's action with the GPUs in `mask` (bit k: o->gpus[k]): its
 * environment (allow-list, the rule's env, RIPPLE_*, CUDA_VISIBLE_DEVICES),
 * argv with ${root.version} filled in, log file, stale outputs removed,
 * deadline. Returns 0 when started, RUN_START_FAILED when the node could
 * not start (rn->message says why; the caller settles it as failed and the
 * run goes on), or a negative error code for the run's own failures (out
 * of memory). Settling and progress events stay with the caller, so this
 * file calls nothing in run.c.
 */
#define RUN_START_FAILED 1

int run_start(struct sched *s, size_t i, unsigned long long mask,
	      struct error *err);

#endif
