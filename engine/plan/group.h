/*
 * Version groups (rules `version-group:`): artifacts whose versions pin
 * each other, such as a metapackage that requires `cuda-bindings==` its
 * own version, rebuild together: every node whose expanded version-group
 * (a template such as `bindings-${root}`) is equal. A plan links each group's
 * members into a ring, and after deciding every node forces the group's
 * reused members to build when one member builds, or when the reused
 * members' recorded versions disagree, unless a member's record already
 * has the version it has now (re-versioning is all a group rebuild is
 * for: issue 25). Forcing is decided over whole
 * passes of the planner (plan.c recomputes users of a forced node), so a
 * group never enters a key and never cascades by itself: the members'
 * users follow only through their rebuilt outputs (early cutoff).
 */
#ifndef RIPPLE_ENGINE_PLAN_GROUP_H
#define RIPPLE_ENGINE_PLAN_GROUP_H

#include <stddef.h>

struct error;
struct graph;
struct plan;

/*
 * Set p->items[i].group_next for every node of the closure with a version
 * group: a ring, in id order, of the nodes with the same expanded group
 * name. Returns 1 when some ring has two members or more, 0 when none
 * has, ERROR_NOMEM.
 */
int plan_groups_link(const struct graph *g, struct plan *p,
		     struct error *err);

/*
 * 1 when member n's record, carrying version `recorded`, already has the
 * version n has now (`versions`: root name -> version at the head, n_v of
 * them; NULL when unknown): rebuilding it for its group would only give
 * it the version it has, so it is not forced. 0 when the versions are
 * unknown, differ, or n declares no `version:`.
 */
struct rules_kv;
struct graph_node;
int plan_group_member_current(const struct graph_node *n,
			      const char *recorded,
			      const struct rules_kv *versions, size_t n_v);

/*
 * After a pass: mark in forced[] (n nodes, -1: not forced) each member
 * that reuses although its group must rebuild, with the member it
 * rebuilds with (>= 0), or -2 when the reused members' recorded versions
 * disagree; a member whose record is at its version now
 * (plan_group_member_current) is left reused. Returns the number newly
 * marked.
 */
size_t plan_groups_force(const struct graph *g, const struct plan *p,
			 long *forced, const struct rules_kv *versions,
			 size_t n_v);

/*
 * 1 when another member of node i's version group builds
 * in plan p: then i must build too and is never cut off to a record, or
 * the group's members would carry different versions.
 */
int plan_group_builds(const struct plan *p, size_t i);

#endif
