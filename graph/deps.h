/*
 * Internal to graph/: the second and third stages of graph_build, after
 * nodes exist sorted by id (index == position): resolve each node's source
 * inputs and upstream nodes, then order the nodes topologically.
 */
#ifndef RIPPLE_GRAPH_DEPS_H
#define RIPPLE_GRAPH_DEPS_H

#include <stddef.h>

#include "graph/limits.h"
#include "rules/rules.h"

struct error;
struct graph;
struct graph_node;

/*
 * Give a set error the position of a rule (file from the rules, line and
 * col from pos) unless it has one, and the node id unless it has one.
 * Returns `code`, so failing reads `return graph_error_at(...)`.
 */
int graph_error_at(struct error *err, const struct rules *r,
		   struct rules_pos pos, const char *node, int code);

/*
 * Fill inputs and deps of every node (n of them, sorted by id). Matrix
 * rule: shared axes agree, `where:` entries narrow or map, other axes fan
 * in. At most `max_edges` deps in all (after duplicates merge), counted
 * before they are stored. Errors: ERROR_INVALID with file:line:col of the
 * dependency when no instance matches, or past max_edges
 * (graph_caps_edges_error); ERROR_NOMEM.
 */
int graph_deps_resolve(struct graph *g, struct graph_node *nodes, size_t n,
		       const struct graph_caps *caps, struct error *err);

/*
 * Copy the nodes into g->nodes in topological order (dependencies first,
 * visiting in id order, so the order is deterministic), remap indices and
 * fill rdeps. A cycle is ERROR_INVALID listing its ids in order.
 */
int graph_topo_sort(struct graph *g, struct graph_node *nodes, size_t n,
		    struct error *err);

/*
 * graph/groups.c: after the topological sort, set n->dep_groups of every
 * node whose rule needs an output group. Returns 0 or ERROR_NOMEM.
 */
int graph_dep_groups(struct graph *g, struct error *err);

#endif
