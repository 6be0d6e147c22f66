/*
 * Settling the source keys a plan took from the remote cache's memo
 * (engine/plan/memo_check.c).
 */
#ifndef RIPPLE_ENGINE_PLAN_MEMO_CHECK_H
#define RIPPLE_ENGINE_PLAN_MEMO_CHECK_H

struct error;
struct eval;
struct plan;

/*
 * Settle the claims (source keys from the remote memo) of `head` against
 * `plan`, and of `base` (may be NULL) against `base_plan`: a claim stands
 * when the record reused for a node with that input attests the pair
 * (plan_remote_attests); every other one is walked (eval_input_state)
 * and *wrong is set to 1 at the first whose key is not the trees': the
 * plan must be made again without the memo. Returns 0 or the walk's
 * error.
 */
int plan_memo_check(struct eval *head, const struct plan *plan,
		    struct eval *base, const struct plan *base_plan,
		    int *wrong, struct error *err);

#endif
