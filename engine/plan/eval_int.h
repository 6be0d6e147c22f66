/*
 * Internal to engine/plan/eval*.c: the step of eval_open that reads the
 * rules (eval_rules.c).
 */
#ifndef RIPPLE_ENGINE_PLAN_EVAL_INT_H
#define RIPPLE_ENGINE_PLAN_EVAL_INT_H

#include <stddef.h>

#include "base/strv.h"
#include "graph/digest.h"
#include "graph/source.h"

struct error;
struct error_list;
struct eval;
struct eval_claims;
struct graph_input;
struct pattern_set;
struct eval_pool;
struct graph;

/*
 * Load ev->rules: from `rules_file` (or the working tree's ripple.yml with
 * ev->worktree), else from ev->commit's ripple.yml, taking and (with
 * ev->memo_write) leaving its parsed tree in ev->memo; or with ev->graph
 * too, both read from the memo eval_model_remember left. Rule errors go to
 * `errors` (the first also to err); the hint names --rules and
 * --worktree when the commit has no ripple.yml. Returns 0 or an error.
 */
int eval_load_rules(struct eval *ev, const char *rules_file,
		    struct error_list *errors, struct error *err);

/*
 * Remember ev's rules and graph in ev->memo (with ev->memo_write) under
 * its ripple.yml's blob id (graph/model_memo.h), for the next
 * eval_load_rules of that blob to read instead of loading and building:
 * only a commit's ripple.yml and nothing else (no rules_file, working
 * tree or matrix file), loaded and built with no report in `errors`
 * beyond its first n_errors. Failures are ignored (the next load parses).
 */
void eval_model_remember(struct eval *ev, const char *rules_file,
			 const struct error_list *errors, size_t n_errors);

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

/* An input of the evaluation, by name: its compiled patterns, its state
 * or key once known (eval.c; eval_ahead.c and eval_pool.c key some
 * ahead). */
struct eval_input {
	char *name;		/* stored after the struct (one allocation) */
	const struct graph_input *in;	/* the first use's (the graph's) */
	struct pattern_set *set;	/* compiled on first use (eval.c's
					   input_set; eval_ensure_input) */
	int parts;		/* digest and prefixes known */
	unsigned char digest[16];	/* pattern_set_memo_parts */
	struct strv prefixes;
	char memo[33];		/* memo id at ev->commit, or "" */
	int fetched;		/* the local memo was asked for memo */
	char fetched_key[33];	/* its answer, "" for none */
	struct graph_source_state state;
	int computed;		/* state holds the files */
	int key_known;		/* key holds the set's key */
	struct digest key;
	int from_remote;		/* key taken from the remote memo,
					   not confirmed yet */
	char remote_memo[33], remote_key[33];
	int unmemoizable;	/* walked, and its key may not be remembered
				   (kept when stream drops the files) */
	int link_free;		/* walked for its key on this thread and no
				   symlink found (eval_stream_key): the
				   tree diff names its changed files
				   (eval_input_changes) */
	const struct eval_keyed *ahead;	/* keyed ahead (eval_pool.c) */
	int memo_counted;	/* in ev's memo counters as a hit (1), a
				   miss (-1), or not yet (0) */
};

/*
 * The evaluation's tree-scan store (eval_scans.c). eval_scans_new makes
 * ev->scans (ERROR_NOMEM). eval_walk walks `set` at ev->commit through
 * `repo` (ev's, or a thread's own handle on the same repository): the
 * files (graph_source_compute) or, with key_only, the key
 * (graph_source_compute_key), asking and telling the store where ev has
 * a cache; errors as those. eval_scans_free writes what the walks told
 * (an evaluation that writes memos only) and frees ev->scans.
 */
int eval_scans_new(struct eval *ev, struct error *err);
int eval_walk(const struct eval *ev, struct graph_repo *repo,
	      const struct pattern_set *set, int key_only,
	      struct graph_source_state *out, struct error *err);
void eval_scans_free(struct eval *ev);

/* eval.c's input table: the input called `name`, or NULL. */
struct eval_input *eval_find_input(struct eval *ev, const char *name);

/* eval.c's: the input of `in`, added (its patterns compiled) when new.
 * Errors: pattern errors, ERROR_NOMEM. */
int eval_ensure_input(struct eval *ev, const struct graph_input *in,
		      struct eval_input **out, struct error *err);

/* eval.c's: the input of `in`, added (nothing compiled) when new.
 * Errors: ERROR_NOMEM. */
int eval_add_input(struct eval *ev, const struct graph_input *in,
		   struct eval_input **out, struct error *err);

/* eval.c's: x's pattern digest and fixed prefixes (x->digest,
 * x->prefixes), once, from the texts (pattern_set_memo_parts). Errors:
 * pattern errors, ERROR_NOMEM. */
int eval_input_parts(struct eval *ev, struct eval_input *x,
		     struct error *err);

/*
 * eval.c's memo lookup: input x's memo id into memo (33 bytes), then 1
 * with *out when the shared, local or remote memo knows its key, 0 when
 * none does (or its state is known already: memo untouched), or an
 * error. x: eval_add_input's.
 */
int eval_memo_key(struct eval *ev, struct eval_input *x, char *memo,
		  struct digest *out, struct error *err);

/*
 * One source set keyed ahead by the pool (eval_pool.c), for the
 * single-threaded keying to take where it would walk the set
 * (source_key): the key and whether it may be memoized, or the walk's
 * error. Lives in the pool's arena as long as the pool.
 */
struct eval_keyed {
	const struct eval *owner;	/* whose input (its commit, and
					   whose error it is) */
	const struct pattern_set *set;	/* borrowed: the input's */
	char memo[33];			/* its memo id, or "" */
	int done;			/* walked: rc and key or err hold */
	int rc;				/* the walk's result */
	struct error *err;		/* rc's error (owned), not prefixed
					   with the input */
	struct digest key;		/* bytes only (hex: the taker's) */
	int memoizable;			/* graph_source_state_memoizable */
	int full;			/* the set's files are wanted (an
					   evaluation that keeps them: a
					   run): state holds them until the
					   input takes them */
	struct graph_source_state state;
};

/*
 * A slot for `set`, an input of `owner` (memo id `memo`, 33 bytes), in
 * the pool, or NULL with ERROR_NOMEM.
 */
struct eval_keyed *eval_pool_slot(struct eval_pool *pool,
				  const struct eval *owner,
				  const struct pattern_set *set,
				  const char *memo, struct error *err);

/*
 * For eval_input_state: the files of x's set when the pool walked them
 * ahead for this evaluation (a slot of ev's marked full): moved into
 * x->state, 1. 0 when there are none to take (the caller walks). The
 * walk's error (prefixed by the caller as its own would be) as a
 * negative code.
 */
int eval_pool_take_state(const struct eval *ev, struct eval_input *x,
			 struct error *err);

/*
 * Key the sets of items[0..n) (each at its owner's commit) on the pool's
 * threads, one
 * handle each (`repo` for the calling thread's share; each other thread
 * opens its own from it, once, and the pool keeps it), filling each
 * slot; a set whose walk fails sets its slot's error, and no set after
 * it is started. Fewer than 2 * EVAL_POOL_SETS_PER_THREAD sets: nothing
 * is done (the caller's keying walks them); a slot left undone (a handle
 * that would not open) likewise. Then each memoizable key is offered to
 * the plan's other evaluations by its memo id (eval_pool_shared).
 * Returns 0, or ERROR_NOMEM.
 */
struct graph_oid;
struct graph_repo;
int eval_pool_key(struct eval_pool *pool, struct graph_repo *repo,
		  struct eval_keyed **items, size_t n, struct error *err);

/*
 * The memoizable key some evaluation keyed ahead under memo id `memo`
 * (any evaluation of the plan may take it, as it would from the shared
 * memo), or NULL. pool may be NULL; memo "" finds nothing.
 */
const struct eval_keyed *eval_pool_shared(const struct eval_pool *pool,
					  const char *memo);

/*
 * The key of x's set (input `in`) alone, for source_key when its files
 * are not kept (eval_set_stream): what the pool keyed ahead for it or
 * under its memo id `memo` ("" for none), else a walk on this thread.
 * The same key, *memoizable and error text either way. x->state is
 * left empty or to be released by the caller.
 */
int eval_stream_key(struct eval *ev, const struct graph_input *in,
		    struct eval_input *x, const char *memo,
		    struct digest *out, int *memoizable, struct error *err);

#endif
