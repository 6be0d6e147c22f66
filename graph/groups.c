/*
 * Output groups (issue 26): one conda build makes libfoo, libfoo-tests and
 * libfoo-examples; `outputs: {lib: [...], tests: [...]}` names the parts,
 * and `needs: [libfoo.lib]` makes a node key on that part's digest only
 * (graph/key.c), so a change to the tests part rebuilds its users alone.
 * Here: which group each dependency edge carries, and where a group's
 * globs sit among the node's outputs.
 */
#include "graph/graph.h"

#include <string.h>

#include "base/error.h"
#include "graph/deps.h"
#include "rules/rules.h"
#include "base/banned.h"

int
graph_node_group_outputs(const struct graph_node *n, const char *group,
			 size_t *first, size_t *count)
{
	size_t i, at = 0;

	for (i = 0; n->rule && i < n->rule->n_groups; i++) {
		const struct rules_output_group *g = &n->rule->groups[i];

		if (!strcmp(g->name, group)) {
			*first = at;
			*count = g->n_outputs;
			return at + g->n_outputs <= n->n_outputs ? 0 : -1;
		}
		at += g->n_outputs;
	}
	return -1;
}

/*
 * The group node `user` needs of upstream `up`: the one group every
 * `needs:` entry naming up's rule gives, or NULL (the whole output) when
 * one of them names none, or two name different groups.
 */
static const char *
edge_group(const struct graph_node *user, const struct graph_node *up)
{
	const char *group = NULL;
	size_t k;
	int seen = 0;

	for (k = 0; k < user->rule->n_deps; k++) {
		const struct rules_dep *d = &user->rule->deps[k];

		if (d->kind != RULES_DEP_ARTIFACT || up->kind !=
		    GRAPH_NODE_ARTIFACT || strcmp(d->name, up->name))
			continue;
		if (!d->group || (seen && (!group ||
					   strcmp(group, d->group))))
			return NULL;
		group = d->group;
		seen = 1;
	}
	return group;
}

int
graph_dep_groups(struct graph *g, struct error *err)
{
	size_t i, k;

	for (i = 0; i < g->n_nodes; i++) {
		struct graph_node *n = &g->nodes[i];
		int any = 0;

		for (k = 0; n->rule && !any && k < n->rule->n_deps; k++)
			any = n->rule->deps[k].group != NULL;
		if (!any || !n->n_deps)
			continue;
		n->dep_groups = arena_alloc(&g->arena,
					    n->n_deps * sizeof(char *));
		if (!n->dep_groups)
			return error_set(err, ERROR_NOMEM, "out of memory");
		for (k = 0; k < n->n_deps; k++)
			n->dep_groups[k] = edge_group(n,
						      &g->nodes[n->deps[k]]);
	}
	return 0;
}
