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
#include "base/strv.h"
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
 * The groups node `user` needs of upstream `up`, sorted and joined by ','
 * ("lib,tests"): those its `needs:` entries naming up's rule give; NULL
 * (the whole output) when one of them names no group.
 */
static int
edge_groups(struct graph *g, const struct graph_node *user,
	    const struct graph_node *up, const char **out, struct error *err)
{
	const char *names[64];
	size_t k, j, n = 0, len = 0;
	char *joined;

	*out = NULL;
	for (k = 0; k < user->rule->n_deps; k++) {
		const struct rules_dep *d = &user->rule->deps[k];

		if (d->kind != RULES_DEP_ARTIFACT || up->kind !=
		    GRAPH_NODE_ARTIFACT || strcmp(d->name, up->name))
			continue;
		if (!d->group || n == 64)
			return 0;
		for (j = 0; j < n && strcmp(names[j], d->group); j++)
			;
		if (j == n) {
			names[n++] = d->group;
			len += strlen(d->group) + 1;
		}
	}
	if (!n)
		return 0;
	sort_strings(names, n);
	joined = arena_alloc(&g->arena, len);
	if (!joined)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (j = 0, len = 0; j < n; j++) {
		size_t l = strlen(names[j]);

		if (j)
			joined[len++] = ',';
		memcpy(joined + len, names[j], l);
		len += l;
	}
	joined[len] = '\0';
	*out = joined;
	return 0;
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
		for (k = 0; k < n->n_deps; k++) {
			int rc = edge_groups(g, n, &g->nodes[n->deps[k]],
					     &n->dep_groups[k], err);

			if (rc)
				return rc;
		}
	}
	return 0;
}
