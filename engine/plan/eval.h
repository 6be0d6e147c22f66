/*
 * One evaluation: the rules of a repository state (a commit's tree, or the
 * working tree), their graph, and the source states of every input the
 * graph uses, computed on demand and remembered by input name. This is the
 * glue the planner, `keys`, `why` and `record` share.
 */
#ifndef RIPPLE_ENGINE_PLAN_EVAL_H
#define RIPPLE_ENGINE_PLAN_EVAL_H

#include <stddef.h>

#include "base/strmap.h"
#include "base/strv.h"
#include "graph/graph.h"
#include "graph/repo.h"
#include "graph/key.h"
#include "rules/rules.h"

struct error;
struct error_list;
struct graph;
struct graph_input;
struct graph_repo;
struct graph_source_state;
struct eval_claims;
struct rules;

struct eval {
	struct graph_repo *repo;	/* borrowed */
	int worktree;			/* 1: the working tree */
	struct graph_oid commit;	/* the commit (HEAD for worktree) */
	char commit_hex[GRAPH_OID_HEX];
	struct rules *rules;		/* owned */
	struct graph_oid rules_blob;	/* the commit's ripple.yml, when
					   rules_blob_known */
	int rules_blob_known;		/* 1: the rules are that blob's
					   (a commit's evaluation) */
	struct graph *graph;		/* owned */
	struct graph_limits limits;	/* the ceilings its graph was built
					   under (evaluations of other
					   commits take the same) */
	struct graph_worktree *wt;	/* owned, worktree mode */
	struct eval_input **inputs;	/* memo, in the order first seen;
					   each owned */
	size_t n_inputs, cap_inputs;
	struct strmap by_name;		/* input name -> its eval_input */
	struct eval_claims *claims;	/* owned: the inputs by the fixed
					   prefixes of their patterns, for
					   eval_path_claimed; built on first
					   use, or NULL */
	struct graph_key_sources sources;	/* callbacks over this eval */
	struct strv own;		/* output globs of ripple's own paths:
					   .ripple/ and every node's declared
					   outputs; never source inputs */
	char *own_rules;		/* an untracked rules file in the
					   tree (its path), or NULL: never a
					   source input either */
	struct cache *memo;		/* source-key memo, borrowed, or NULL */
	int memo_write;			/* 1: remember keys it computes */
	struct strmap *key_memo;	/* memo id -> key hex, shared by the
					   evaluations of one plan, borrowed,
					   or NULL (eval_share_key_memo) */
	struct arena *key_memo_arena;	/* holds key_memo's strings */
	const struct strmap *remote_memo;	/* memo id -> key hex from
					   the remote cache's bundles,
					   borrowed, or NULL */
	size_t memo_hits, memo_misses;	/* inputs whose key a memo had or
					   lacked, each input once (its
					   last answer); for benchmarks
					   and tests */
	int stream;			/* 1: drop a set's files once keyed
					   (eval_set_stream) */
	int rules_read_files;		/* 1: the rules are not a commit's
					   ripple.yml alone (a rules file,
					   the working tree, a matrix file
					   went into them) */
	int borrowed;			/* 1: rules and graph are another
					   evaluation's (eval_open_like) */
	struct eval_scans *scans;	/* owned: the tree-scan store
					   (eval_scans.c) */
	struct eval_pool *pool;		/* keys source sets ahead on
					   threads (eval_set_pool), borrowed,
					   or NULL: one thread */
	/* The commit of the run eval_input_changes last diffed from, read
	 * once: each changed set asked the cache for it again (a run's
	 * row counts its records: 250,000 instructions at 500). */
	struct arena arena;		/* what lives as long as the
					   evaluation: the inputs' prefixes */
	const struct cache *base_cache;	/* whose run, or NULL: none */
	char *base_run;			/* owned: its id */
	int base_found;			/* 1: base_commit is its commit */
	struct graph_oid base_commit;
};

/*
 * Evaluate the repository at `rev` (any revision; NULL with worktree 1: the
 * working tree over HEAD). The rules come from `rules_file` on disk when
 * given, else from `ripple.yml` in the commit's tree (or the working tree).
 * The graph is built under `limits` (NULL: the default ceilings;
 * graph_build_limited). Rule errors go to `errors` (every one found);
 * other errors to err. On
 * success *out is a new evaluation (eval_free). Errors: ERROR_NOT_FOUND
 * (revision, or no ripple.yml at that commit: the hint names --rules),
 * ERROR_INVALID (rules), those of graph_build and the repository view.
 */
int eval_open(struct graph_repo *repo, const char *rev, int worktree,
	      const char *rules_file, const struct graph_limits *limits,
	      struct error_list *errors, struct eval **out,
	      struct error *err);

/*
 * The memo of ripple.yml's parsed tree (rules_tree_memo) over cache `c`
 * (NULL: none), keyed by the file's git blob id: `blob`, or when NULL the
 * id git gives the bytes a load reads (key_of), so a working tree's
 * unchanged ripple.yml finds the tree a plan of its commit left. Trees
 * are left only with `write`. `m` must outlive the loads using &m->memo.
 */
struct cache;
struct eval_rules_memo {
	struct rules_tree_memo memo;
	struct cache *cache;		/* borrowed, or NULL */
	char key[33];
};
void eval_rules_memo_init(struct eval_rules_memo *m, struct cache *c,
			  int write, const struct graph_oid *blob);

/*
 * As eval_open, with the cache's memos on from the start (eval_set_memo:
 * `memo` borrowed, or NULL; `write` to remember what is computed): the
 * rules of a commit are taken from the parsed trees remembered by the
 * blob id of its ripple.yml (rules_tree_memo), so an unchanged ripple.yml
 * is neither read nor parsed again.
 */
struct cache;
int eval_open_memo(struct graph_repo *repo, const char *rev, int worktree,
		   const char *rules_file, const struct graph_limits *limits,
		   struct cache *memo, int write, struct error_list *errors,
		   struct eval **out, struct error *err);

/*
 * As eval_open_memo, but when `like` (an evaluation of another commit,
 * borrowed, or NULL) read its rules from the same ripple.yml text under the
 * same limits and no other file (a matrix) went into them, the new
 * evaluation borrows like's rules and graph instead of parsing and
 * expanding them again: the same text gives the same rules (a remote-only
 * `plan --base` parses the merge base's rules once, with no cache to
 * remember the parse in). `like` must outlive *out; messages about the
 * borrowed rules name like's commit. Anything else loads as
 * eval_open_memo does. Errors: those of eval_open_memo.
 */
int eval_open_like(const struct eval *like, struct graph_repo *repo,
		   const char *rev, const char *rules_file,
		   const struct graph_limits *limits, struct cache *memo,
		   int write, struct error_list *errors, struct eval **out,
		   struct error *err);

/*
 * Take source keys from the cache's memo when the objects at a set's
 * prefixes are ones seen before (graph_source_memo_id), and, with
 * `write`, remember the keys computed here. Commits only: the working
 * tree is always read. `c` is borrowed; NULL turns the memo off.
 */
struct cache;
void eval_set_memo(struct eval *ev, struct cache *c, int write);

/*
 * Ask the cache's memo (eval_set_memo) for the keys of every input of the
 * nodes whose byte in `mask` is set, in a few statements
 * (cache_source_keys_get), before they are keyed one by one: the answers
 * are those each lookup would give, so only for a plan that does not
 * write the memo while it keys. Best effort: an input whose memo id or
 * lookup fails here is looked up, and its error reported, when its key
 * is needed.
 */
void eval_prefetch_memo(struct eval *ev, const unsigned char *mask);

/*
 * Share source keys between the evaluations of one plan (the merge base
 * and the head): a set whose memo id (graph_source_memo_id: its patterns
 * and the tree ids at its prefixes) one evaluation has keyed takes that
 * key in the other without a walk, exactly as the cache's memo would,
 * so a plan with no cache walks only what changed in its second
 * commit. `map` and `arena` (which holds its strings) are borrowed and
 * outlive `ev`; NULL turns this off. Commits only.
 */
struct strmap;
struct arena;
void eval_share_key_memo(struct eval *ev, struct strmap *map,
			 struct arena *arena);

/*
 * With `stream` 1, a source set's file list is dropped as soon as its key
 * is known (the key is kept), so a plan's memory does not grow with the
 * tree; eval_input_state walks the set again when an explanation asks for
 * its files. For plans and why, which explain few sets; not for a run or
 * a record, which store every input's files.
 */
void eval_set_stream(struct eval *ev, int stream);

/*
 * Take source keys from `map` (memo id -> key hex, plan_remote_memo:
 * what records of the remote cache's bundles attest) after the shared
 * and local memos miss. Each such key is a claim: eval_remote_memo_verify
 * settles them after the plan. NULL turns it off. Commits only.
 */
void eval_set_remote_memo(struct eval *ev, const struct strmap *map);

/*
 * Whether input `name`'s key was taken from the remote memo and is not
 * confirmed yet: 1 with *memo and *key (32 hex; owned by ev), else 0.
 */
int eval_input_remote_claim(struct eval *ev, const char *name,
			    const char **memo, const char **key);

/* Input `name`'s key from the remote memo is confirmed (by a record). */
void eval_input_confirm(struct eval *ev, const char *name);

/*
 * The memo id (graph_source_memo_id) and key of input `in` at this
 * commit, each 32 hex digits and a NUL into memo and key (33 bytes): 1
 * when its key may be remembered by that id (graph_source_state_
 * memoizable), 0 when not or in the working tree, or an error.
 */
int eval_input_memo(struct eval *ev, const struct graph_input *in, char *memo,
		    char *key, struct error *err);

/*
 * Cold plans in parallel (engine/plan/eval_ahead.c picks the sets,
 * eval_pool.c keys them): a pool keys the source sets that no memo
 * knows on up to `jobs` threads before the nodes are keyed, and the
 * single-threaded keying takes each result where it would have walked
 * the set, so keys, memo rows, records, plans and errors are those of
 * one thread. Sets of a commit only (not the working tree); an
 * evaluation that keeps its sets' files (a run) gets them walked whole.
 * At least EVAL_POOL_SETS_PER_THREAD sets a thread: a thread opens its
 * own handle and reads the trees above its sets again (measured: with
 * fewer sets that costs more than it saves), so fewer than twice that
 * many are left to the one thread.
 */
#define EVAL_POOL_MAX_JOBS 8
#define EVAL_POOL_SETS_PER_THREAD 4
struct eval_pool;

/*
 * A pool of `jobs` threads (the calling thread one of them; more than
 * EVAL_POOL_MAX_JOBS count as that many) into *out. jobs 0 or 1, or a
 * libgit2 built without threads: *out is NULL, which is one thread, the
 * path of old. Errors: ERROR_NOMEM.
 */
int eval_pool_new(size_t jobs, struct eval_pool **out, struct error *err);

/* Close the pool's handles and free it (after the evaluations that use
 * it are done with it). Accepts NULL. */
void eval_pool_free(struct eval_pool *pool);

/*
 * Key ev's source sets ahead on `pool` (borrowed; NULL: one thread).
 * The evaluations of one plan share one pool: a set one of them keyed
 * ahead serves the others as the shared memo would
 * (eval_share_key_memo). Commits only.
 */
void eval_set_pool(struct eval *ev, struct eval_pool *pool);

/*
 * Key ahead, on ev's pool, the source sets of the nodes whose byte in
 * `mask` is set (NULL: every node) that no memo knows, so that keying
 * those nodes later (graph_keys_compute, plan_compute) walks none of
 * them; a no-op without a pool. Each set's key or error is the one the
 * keying would have computed, and it is met where the keying asks for
 * it. Returns 0, or ERROR_NOMEM.
 */
int eval_prefetch(struct eval *ev, const unsigned char *mask,
		  struct error *err);

/*
 * As eval_prefetch for two evaluations of one plan on one pool, keyed in
 * one batch, a's sets first: a plan's head and the merge base it compares
 * keys with (--assume-base-built), so that the few sets that differ at
 * the base share the threads with the head's. A set the batch holds for
 * a under the same memo id is not keyed again for b: b takes a's key if
 * it may be memoized (eval_pool_shared), else walks it. b may be NULL.
 */
int eval_prefetch_pair(struct eval *a, const unsigned char *mask_a,
		       struct eval *b, const unsigned char *mask_b,
		       struct error *err);

/* Free an evaluation. Accepts NULL. */
void eval_free(struct eval *ev);

/*
 * The source state of `in` at this evaluation (policy.ignore patterns are
 * excluded too), computed once per input name. The state is owned by the
 * evaluation. Errors: pattern and repository errors.
 */
int eval_input_state(struct eval *ev, const struct graph_input *in,
		     const struct graph_source_state **out, struct error *err);

/*
 * The compiled patterns of `in` (its excludes and policy.ignore left
 * out), owned by the evaluation. Errors: pattern errors, ERROR_NOMEM.
 */
struct pattern_set;
int eval_input_patterns(struct eval *ev, const struct graph_input *in,
			const struct pattern_set **out, struct error *err);

/*
 * 1 when any input of any node, or policy.ignore, claims `path`, or it
 * lies in the folder of a root whose root.sources some node uses (a path
 * the root's exclude: leaves out is the root's choice, not unclaimed: a
 * root at '.' claims every path, as `ripple check` says); sets *ignored
 * when policy.ignore claims it. Returns a negative error code on
 * failure (pattern compilation).
 */
int eval_path_claimed(struct eval *ev, const char *path, int *ignored,
		      struct error *err);

/*
 * 1 when `path` (repository-relative) is ripple's own: under .ripple/, the
 * rules file when the commit does not track it, or a declared output of
 * some node. Such a path is never an input, nor a changed path of a plan.
 */
int eval_path_own(const struct eval *ev, const char *path);

/*
 * What the planner knows of run `run_id` in cache c: its commit (hex,
 * NULL: none), so that eval_input_changes does not read the run again.
 * Resolved in ev's repository as eval_input_changes would; out of memory
 * keeps nothing. ev, c or run_id NULL: nothing.
 */
void eval_base_run(struct eval *ev, const struct cache *c, const char *run_id,
		   const char *commit);

/*
 * The files of input `name` that differ between the commit of baseline
 * run `run_id` in cache `c`, where the set's key is `base_key`, and ev's
 * commit, named from the tree diff under the set's prefixes
 * (graph_source_diff) instead of both whole file lists: 1 with *out (n
 * entries in path order, allocated in `a`, as filediff_compare gives
 * them for the two lists) when that is sure: ev is a commit's evaluation
 * with a memo that walked the set for its key and found no symlink, and
 * c's source-key memo holds base_key for the set at the run's commit, so
 * the stored file list of base_key (which must be stored) is that
 * commit's. 0 when not: the caller compares the lists. Errors:
 * ERROR_NOMEM only (a repository or cache error is a 0, and the caller's
 * comparison meets it).
 */
struct plan_file_diff;
int eval_input_changes(struct eval *ev, const char *name, struct cache *c,
		       const char *run_id, const char *base_key,
		       struct arena *a, struct plan_file_diff **out,
		       size_t *n, struct error *err);

/*
 * The state of the input called `name` (as in graph_input.name) if some
 * node of this evaluation uses it: 1 and *out set, 0 when no node does.
 */
int eval_input_by_name(struct eval *ev, const char *name,
		       const struct graph_source_state **out,
		       struct error *err);

/* The name to show for the state: short commit id or "worktree". */
const char *eval_label(const struct eval *ev);

#endif
