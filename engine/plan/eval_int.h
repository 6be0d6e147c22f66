/*
 * Internal to engine/plan/eval*.c: the step of eval_open that reads the
 * rules (eval_rules.c).
 */
#ifndef RIPPLE_ENGINE_PLAN_EVAL_INT_H
#define RIPPLE_ENGINE_PLAN_EVAL_INT_H

#include <stddef.h>

struct error;
struct error_list;
struct eval;
struct eval_claims;
struct graph_input;
struct pattern_set;

/*
 * Load ev->rules: from `rules_file` (or the working tree's ripple.yml with
 * ev->worktree), else from ev->commit's ripple.yml, taking and (with
 * ev->memo_write) leaving its parsed tree in ev->memo. Rule errors go to
 * `errors` (the first also to err); the hint names --rules and
 * --worktree when the commit has no ripple.yml. Returns 0 or an error.
 */
int eval_load_rules(struct eval *ev, const char *rules_file,
		    struct error_list *errors, struct error *err);

/*
 * 1 when ev (a commit's evaluation, no rules file) would load exactly the
 * rules `like` holds: like read them from a commit's ripple.yml and no
 * other file (not a rules file, the working tree or a matrix), under the
 * same limits, and ev's commit has the same ripple.yml bytes.
 * 0 otherwise (an unreadable blob included: the load reports it).
 */
int eval_rules_same(const struct eval *like, struct eval *ev,
		    const char *rules_file);

/*
 * Fill ev->own with ripple's own paths as output globs (issue 25): its
 * state folder, an untracked rules file in the tree (rules_file, or
 * ripple.yml at the root when NULL), and every node's declared outputs;
 * sorted and unique. Returns 0 or ERROR_NOMEM.
 */
int eval_own_paths(struct eval *ev, const char *rules_file,
		   struct error *err);

/*
 * The compiled pattern set of input `in`, compiled on first use and kept
 * by name in ev (borrowed into *out). Returns 0 or an error (a pattern
 * that does not compile, ERROR_NOMEM).
 */
int eval_input_set(struct eval *ev, const struct graph_input *in,
		   const struct pattern_set **out, struct error *err);

/* One input under the fixed prefix of one of its patterns. */
struct eval_claim {
	const char *prefix;		/* in eval_claims.text; "" for
					   anywhere */
	const struct graph_input *in;	/* the graph's */
};

/* ev->claims: the inputs by their patterns' fixed prefixes, built by
 * eval_claim.c, owned and freed by the evaluation (eval.c). */
struct eval_claims {
	struct eval_claim *v;		/* sorted by prefix, then position */
	size_t n, cap;
	char *text;			/* owned: the prefixes, NUL-separated
					   (each claim's points into it) */
};

/* Free ev->claims. Accepts NULL. */
void eval_claims_free(struct eval_claims *c);

#endif
