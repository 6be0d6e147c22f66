/*
 * Early cutoff foreseen by the plan (issue 25): which of a plan's
 * cascades the run will cut off, or may. A plan keys an upstream that
 * builds by its key, so its users differ from their records and are
 * planned to build; the run cuts them off when the rebuilt output turns
 * out equal (engine/run: reason upstream-rebuilt). Where the plan already
 * knows the rebuilt output's digest, it says so:
 *
 *  - expected: every upstream a node differs by is a version-group member
 *    rebuilt only to take a new version (its key is its record's) whose
 *    users see its `cutoff: payload` digest, which leaves the version out
 *    (engine/run/payload.h), or a node itself expected to be cut off;
 *  - if payload unchanged: some of them rebuild for changed inputs, with
 *    `cutoff: payload`: the node is cut off if their payload digests stay
 *    the recorded ones (a README edit changes only the long description).
 *
 * Decisions stay as they are: the run decides, from the bytes it built,
 * so a wrong foresight costs a build, never a wrong reuse.
 */
#ifndef RIPPLE_ENGINE_PLAN_PREDICT_H
#define RIPPLE_ENGINE_PLAN_PREDICT_H

struct error;
struct graph;
struct plan;
struct plan_history;
struct plan_options;

/*
 * Set expect, expect_on and output_expect on every item of p's closure
 * (nodes in index order are topological: deps come first), and
 * p->expected[]. `h` is the history the plan was decided against.
 * Returns 0, or a negative code from the history's callbacks.
 */
int plan_predict_cutoff(const struct graph *g, struct plan *p,
			const struct plan_history *h,
			const struct plan_options *o, struct error *err);

#endif
