/*
 * The scope of a plan that needs less than its target's closure
 * (engine/plan/scope.c).
 */
#ifndef RIPPLE_ENGINE_PLAN_SCOPE_H
#define RIPPLE_ENGINE_PLAN_SCOPE_H

#include "base/error.h"
#include "engine/plan/planner.h"

/*
 * --job NAME: set p->scope (g->n_nodes + 1 bytes, owned by p) to the
 * job's nodes, what they need and the members of their version groups
 * with what those need (a group decides together; issue 23). A name that
 * is no job, or a target that cuts into no jobs, leaves p->scope NULL:
 * the CLI's check names the problem. Returns 0 or ERROR_NOMEM.
 */
int planner_job_scope(struct planner *p, const char *name, struct error *err);

/*
 * why PAT: set p->scope to the node PAT names (planner_node), what it
 * needs and its version groups with what those need: every decision the
 * node's and its chain's depend on. No single node leaves p->scope NULL.
 * Returns 0 or ERROR_NOMEM.
 */
int planner_why_scope(struct planner *p, const char *pat, struct error *err);

#endif
