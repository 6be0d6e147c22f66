/*
 * Shared helpers of the planner's end-to-end tests: a small two-root
 * repository, recording runs, and `ripple plan`/`why`/`diff` JSON parsed
 * with jansson.
 */
#ifndef RIPPLE_TESTS_E2E_PLAN_SUPPORT_H
#define RIPPLE_TESTS_E2E_PLAN_SUPPORT_H

#include <jansson.h>

/* Node ids of the small repository. */
#define W11A "artifact:wheel[python=3.11,root=a]"
#define W12A "artifact:wheel[python=3.12,root=a]"
#define W11B "artifact:wheel[python=3.11,root=b]"
#define W12B "artifact:wheel[python=3.12,root=b]"
#define UA "test:unit[root=a]"
#define UB "test:unit[root=b]"

/*
 * A new repository (branch main, one commit): roots a (pa/, toolkit tka)
 * and b (pb/, toolkit tkb), source set `shared`, artifact wheel per root x
 * python 3.11/3.12, test unit per root (needs the 3.12 wheel), docs/
 * ignored by policy, unclaimed file tox.ini, a symlink pa/link -> a.py.
 * `unclaimed` is the policy value. Returns the malloc'd directory.
 */
char *pt_repo(const char *unclaimed);

/* Run a shell command in dir; asserts exit 0; returns trimmed stdout. */
char *pt_sh(const char *dir, const char *cmd);

/* Record every node in `run` as ok (at HEAD), and finish the run ok. */
void pt_record_all(const char *dir, const char *run);

/* Record one node (exact id) with status in `run`; `extra` may be "". */
void pt_record(const char *dir, const char *run, const char *node,
	       const char *status, const char *extra);

/* Finish `run` with status ok. */
void pt_finish(const char *dir, const char *run);

/* Run ripple with argv (NULL-terminated) in dir; asserts exit 0; parses
 * stdout as JSON. Caller json_decref's. */
json_t *pt_json(const char *dir, const char *const *argv);

/* The node object with `id` in a ripple-plan-v1 document; asserts found. */
json_t *pt_node(json_t *plan, const char *id);

/* Assert node `id`'s decision and reason. */
void pt_expect(json_t *plan, const char *id, const char *decision,
	       const char *reason);

/* String member, or NULL when absent or null. */
const char *pt_str(json_t *o, const char *key);

#endif
