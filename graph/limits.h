/*
 * Internal to graph/: the ceilings graph_build_limited applies
 * (graph/graph.h), as caps lowered by the rules' policy, the node count
 * checked before expansion, and the tally and message for edges, which
 * deps.c counts as it resolves them (graph/limits.c).
 */
#ifndef RIPPLE_GRAPH_LIMITS_H
#define RIPPLE_GRAPH_LIMITS_H

#include <stddef.h>

struct error;
struct graph_node;
struct rules;
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

#endif
