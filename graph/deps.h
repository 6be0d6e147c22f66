/*
 * Internal to graph/: the second and third stages of graph_build, after
 * nodes exist sorted by id (index == position): resolve each node's source
 * inputs and upstream nodes, then order the nodes topologically.
 */
#ifndef RIPPLE_GRAPH_DEPS_H
#define RIPPLE_GRAPH_DEPS_H

#include <stddef.h>

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

struct graph_limits;

/* The caps one build runs under (graph/limits.c). */
struct graph_caps {
	unsigned long long nodes, edges;	/* in force */
	unsigned long long nodes_ceiling, edges_ceiling;
	int nodes_policy, edges_policy;	/* 1: the rules' policy lowered it */
};

/* The ceilings of `l` (NULL: the defaults) lowered by r's policy. */
void graph_caps_init(struct graph_caps *c, const struct rules *r,
		     const struct graph_limits *l);

/*
 * 0 when every rule's matrix together (rules_each_size) stays within
 * c->nodes; else ERROR_INVALID at the largest rule, with the count, the
 * cap and a hint naming --max-nodes or policy max-nodes.
 */
int graph_caps_check_nodes(const struct graph_caps *c, const struct rules *r,
			   struct error *err);

/* Edges per rule while they are resolved, to name the widest fan-out. */
struct graph_edge_tally {
	const void *cur;		/* the rule being counted */
	const struct graph_node *cur_node;	/* its first node */
	unsigned long long cur_edges;
	size_t cur_nodes;
	const struct graph_node *top;	/* first node of the widest rule */
	unsigned long long top_edges;
	size_t top_nodes;
};

/* Count `edges` needed by node n (nodes come in id order). */
void graph_edge_tally_add(struct graph_edge_tally *t,
			  const struct graph_node *n, unsigned long long edges);

/*
 * The error for a graph past c->edges, found while resolving node `at`:
 * ERROR_INVALID at the widest rule's position, naming the cap, that rule
 * and the flag or policy that raises the cap.
 */
int graph_caps_edges_error(const struct graph_caps *c, const struct rules *r,
			   const struct graph_edge_tally *t,
			   const struct graph_node *at, struct error *err);

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

#endif
