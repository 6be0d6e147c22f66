/*
 * Versions of a plan: every root's version at the head (from its tags and
 * fallback, graph/version.c), a node's version (its `version:` template
 * with ${root.version} filled in), and whether a recorded version is the
 * one a node would have now. Versions change with every commit, so they
 * stay out of keys; the planner compares them instead where the rules or
 * a tag run ask for it (docs/plan.md, reason version-differs), and the
 * run fills them into actions and records. One computation for both, so a
 * run never stamps another version than the plan compared.
 */
#ifndef RIPPLE_ENGINE_PLAN_VERSIONS_H
#define RIPPLE_ENGINE_PLAN_VERSIONS_H

#include <stddef.h>

struct arena;
struct buf;
struct error;
struct graph_node;
struct graph_repo;
struct rules;
struct rules_kv;

/*
 * Every root of `r` whose version at commit `commit_hex` can be computed,
 * into out[] (room for r->n_roots; keys borrowed from r, values in `a`),
 * *n of them, in root order. `worktree` 1 makes the version dirty with
 * the working tree's tracked changes (with .dYYYYMMDD from `date_epoch`,
 * seconds since the epoch: the caller's clock or SOURCE_DATE_EPOCH). A
 * root with no reachable tag and no fallback is left out (its nodes get
 * no version). Errors: ERROR_NOMEM only.
 */
int plan_root_versions(struct graph_repo *repo, const struct rules *r,
		       const char *commit_hex, int worktree,
		       long long date_epoch, struct arena *a,
		       struct rules_kv *out, size_t *n, struct error *err);

/*
 * The version of node n's root in `versions` (root name -> version, n_v
 * of them), or NULL when the node has no root or its root no version.
 */
const char *plan_root_version(const struct rules_kv *versions, size_t n_v,
			      const struct graph_node *n);

/*
 * Append `text` to b with every `${root.version}` replaced by `ver` (""
 * when NULL). Returns 0 or ERROR_NOMEM.
 */
int plan_fill_version(struct buf *b, const char *text, const char *ver,
		      struct error *err);

/*
 * Node n's version now, as a run records it: its `version:` template
 * filled in, into b (left empty for a node without `version:`, or when
 * the filled text is empty). Returns 0 or ERROR_NOMEM.
 */
int plan_node_version(const struct graph_node *n,
		      const struct rules_kv *versions, size_t n_v,
		      struct buf *b, struct error *err);

/*
 * 1 when a record of node n carrying version `recorded` (NULL: none) has
 * the version n would have now (both none counts as equal; a node without
 * `version:` always matches), 0 when not, with the version now in *now
 * (in b; "" for none). Negative on out of memory.
 */
int plan_version_matches(const struct graph_node *n,
			 const struct rules_kv *versions, size_t n_v,
			 const char *recorded, struct buf *b,
			 struct error *err);

#endif
