/*
 * Accessors of an expanded node that every graph file uses: its kind's
 * name and the value bound to one of its axes. The lowest file of graph/
 * after the repository view; it calls nothing else here.
 */
#include "graph/graph.h"

#include <string.h>

#include "base/banned.h"

const char *
graph_node_axis(const struct graph_node *n, const char *axis)
{
	size_t i;

	for (i = 0; i < n->n_axes; i++)
		if (!strcmp(n->axes[i].axis, axis))
			return n->axes[i].value;
	return NULL;
}

const char *
graph_node_kind_name(enum graph_node_kind kind)
{
	switch (kind) {
	case GRAPH_NODE_ARTIFACT: return "artifact";
	case GRAPH_NODE_TEST: return "test";
	case GRAPH_NODE_RELEASE: return "release";
	}
	return "node";
}
