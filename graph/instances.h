/*
 * Internal to graph/: where a rule's instances lie among nodes sorted by
 * id. Every id of rule NAME of kind KIND is "KIND:NAME" or starts with
 * "KIND:NAME[", so the instances form one run of the sorted array, and
 * those with given values on the leading axes (axes are in name order in
 * ids) one shorter run inside it. Dependency resolution scans that run,
 * not every node: two rules over a 10,000-value axis, one needing the
 * other, cost 10^8 comparisons when each dependency scanned the graph.
 */
#ifndef RIPPLE_GRAPH_INSTANCES_H
#define RIPPLE_GRAPH_INSTANCES_H

#include <stddef.h>

struct error;
struct graph_node;
struct rules_dep;

/*
 * The run [*lo, *hi) of `nodes` (n of them, sorted by id) holding every
 * instance of rule `name` of kind `kind` ("artifact", "test") that `node`
 * can depend on through `d` (NULL: no where:): all the rule's instances,
 * narrowed to those agreeing with `node` on the rule's leading axes that
 * `node` binds and `d` does not map. The run may hold instances that still
 * fail other axes; callers test each. Returns 0 or ERROR_NOMEM.
 */
int graph_instances_range(const struct graph_node *nodes, size_t n,
			  const char *kind, const char *name,
			  const struct graph_node *node,
			  const struct rules_dep *d, size_t *lo, size_t *hi,
			  struct error *err);

#endif
