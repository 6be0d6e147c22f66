/*
 * Tracked files a run's actions modify (issue 26). Files a node declares
 * in `rewrites:` are put back after its action (whatever its outcome): as
 * the run's commit holds them, or, in a --worktree run, as they were when
 * the run began; so later nodes and later runs see the committed content
 * (RAPIDS' `rapids-generate-version > ./VERSION` no longer makes the next
 * run refuse). Any other tracked file the working tree changes while a
 * node runs is named, and that node fails: its record would claim the
 * commit while later nodes build from other content.
 *
 * Design: a stat snapshot of the index's files when the run's first
 * action starts, and one lstat per tracked file after each action (a
 * changed one is compared by content: graph/restore.h says why not `git
 * status`); changes made before the run began, files some node declares
 * in `rewrites:`, and files matching some node's `outputs:` (a node
 * writes, and ripple removes, its own outputs, tracked or not) are never
 * blamed on a node. With
 * several actions at once a change is blamed on the first to end.
 */
#ifndef RIPPLE_ENGINE_RUN_REWRITE_H
#define RIPPLE_ENGINE_RUN_REWRITE_H

#include <stddef.h>

struct error;
struct eval;
struct plan;
struct run_rewrites;

/*
 * Begin watching (before the first action): the tracked files' stat
 * snapshot, every path the plan's build and test nodes declare in
 * `rewrites:`, and, in a --worktree run, those files' contents now. On
 * success *out is new (run_rewrites_free). Errors: repository errors,
 * ERROR_IO (a declared file cannot be read), ERROR_NOMEM.
 */
int run_rewrites_begin(struct eval *ev, const struct plan *p,
		       struct run_rewrites **out, struct error *err);

/*
 * After node `node`'s action: restore its `rewrites:` files, then list the
 * tracked files newly modified that nobody declared (each named once per
 * run). Returns 0 with msg empty, 1 with msg ("modified tracked file
 * 'VERSION' ...", msg_size bytes) naming them, or a negative error
 * (a restore that failed names the file).
 */
int run_rewrites_end(struct run_rewrites *rw, struct eval *ev, size_t node,
		     char *msg, size_t msg_size, struct error *err);

/* Free. Accepts NULL. */
void run_rewrites_free(struct run_rewrites *rw);

#endif
