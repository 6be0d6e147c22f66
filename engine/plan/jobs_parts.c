/*
 * The component graph of a CI cut (jobs.c): union-find over nodes, the
 * edges between components of one group, merging components on a circle
 * (iterative Tarjan), and stages by longest path (Kahn). Calls nothing in
 * jobs.c.
 */
#include "engine/plan/jobs_int.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "engine/plan/jobs.h"
#include "graph/graph.h"
#include "base/banned.h"

size_t
jobs_find(size_t *parent, size_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

void
jobs_unite(size_t *parent, size_t a, size_t b)
{
	a = jobs_find(parent, a);
	b = jobs_find(parent, b);
	/* The smaller (earlier) index stays the root: deterministic. */
	if (a < b)
		parent[b] = a;
	else if (b < a)
		parent[a] = b;
}

/* Number the union-find roots as components, in topological order. */
void
jobs_number(struct work *w)
{
	size_t i, n = w->g->n_nodes;

	w->n_comp = 0;
	for (i = 0; i < n; i++)
		w->comp[i] = (size_t)-1;
	for (i = 0; i < n; i++) {
		size_t r;

		if (w->in[i].group < 0)
			continue;
		r = jobs_find(w->parent, i);
		if (w->comp[r] == (size_t)-1) {
			w->comp_first[w->n_comp] = r;
			w->comp[r] = w->n_comp++;
		}
		w->comp[i] = w->comp[r];
	}
}

/*
 * Component edges (same group, different components) as CSR arrays:
 * successors of c are adj[off[c] .. off[c + 1]).
 */
int
jobs_edges(struct work *w, size_t **off_out, size_t **adj_out, struct error *err)
{
	const struct graph *g = w->g;
	size_t *off = mem_calloc(w->n_comp + 2, sizeof(size_t));
	size_t *adj = NULL, *fill = NULL, i, k, m = 0;

	if (!off)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; i < g->n_nodes; i++)
		for (k = 0; w->in[i].group >= 0 && k < g->nodes[i].n_deps;
		     k++) {
			size_t d = g->nodes[i].deps[k];

			if (w->in[d].group == w->in[i].group &&
			    w->comp[d] != w->comp[i]) {
				off[w->comp[d] + 2]++;
				m++;
			}
		}
	for (i = 2; i < w->n_comp + 2; i++)
		off[i] += off[i - 1];
	adj = mem_alloc((m ? m : 1) * sizeof(size_t));
	if (!adj) {
		mem_free(off);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	fill = off + 1;
	for (i = 0; i < g->n_nodes; i++)
		for (k = 0; w->in[i].group >= 0 && k < g->nodes[i].n_deps;
		     k++) {
			size_t d = g->nodes[i].deps[k];

			if (w->in[d].group == w->in[i].group &&
			    w->comp[d] != w->comp[i])
				adj[fill[w->comp[d]]++] = w->comp[i];
		}
	*off_out = off;
	*adj_out = adj;
	return 0;
}

/*
 * Merge components on a circle (a -> x -> b with a and b one component),
 * iterative Tarjan. Returns 1 when something merged, 0 when the component
 * graph is acyclic, or an error (two platforms or two containers on one
 * circle).
 */
int
jobs_merge_circles(struct work *w, const size_t *off, const size_t *adj,
	      struct error *err)
{
	size_t C = w->n_comp, next = 0, sp = 0, cs = 0, i;
	size_t *idx = mem_alloc((C + 1) * sizeof(size_t));
	size_t *low = mem_alloc((C + 1) * sizeof(size_t));
	size_t *stk = mem_alloc((C + 1) * sizeof(size_t));
	size_t *call = mem_alloc((C + 1) * sizeof(size_t));
	size_t *pos = mem_alloc((C + 1) * sizeof(size_t));
	unsigned char *on = mem_calloc(C + 1, 1);
	int rc = 0;

	if (!idx || !low || !stk || !call || !pos || !on) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < C; i++)
		idx[i] = (size_t)-1;
	for (i = 0; i < C && rc >= 0; i++) {
		if (idx[i] != (size_t)-1)
			continue;
		call[cs] = i;
		pos[cs++] = off[i];
		idx[i] = low[i] = next++;
		stk[sp++] = i;
		on[i] = 1;
		while (cs && rc >= 0) {
			size_t v = call[cs - 1];

			if (pos[cs - 1] < off[v + 1]) {
				size_t u = adj[pos[cs - 1]++];

				if (idx[u] == (size_t)-1) {
					idx[u] = low[u] = next++;
					stk[sp++] = u;
					on[u] = 1;
					call[cs] = u;
					pos[cs++] = off[u];
				} else if (on[u] && idx[u] < low[v]) {
					low[v] = idx[u];
				}
				continue;
			}
			cs--;
			if (cs && low[v] < low[call[cs - 1]])
				low[call[cs - 1]] = low[v];
			if (low[v] != idx[v])
				continue;
			{
				size_t top = sp, u, keep = w->comp_first[v];
				const char *pf = NULL, *pf_id = NULL;
				const char *ct = NULL, *ct_id = NULL;

				while (stk[--sp] != v)
					;
				for (u = sp; u < top; u++) {
					size_t c = stk[u], f = w->comp_first[c];
					const char *p = w->in[f].platform;

					on[c] = 0;
					if (ct && strcmp(ct, w->in[f].container)) {
						rc = error_set(err, ERROR_INVALID,
							"%s and %s need each "
							"other in one CI group "
							"across containers",
							ct_id, w->g->nodes[f].id);
						error_hint(err, "a job runs in "
							   "one container; "
							   "split the chain");
						break;
					}
					if (!ct) {
						ct = w->in[f].container;
						ct_id = w->g->nodes[f].id;
					}
					if (p && pf && strcmp(p, pf)) {
						rc = error_set(err, ERROR_INVALID,
							"%s (%s) and %s (%s) "
							"need each other in one "
							"CI group across "
							"platforms", pf_id, pf,
							w->g->nodes[f].id, p);
						error_hint(err, "no job can "
							   "run both; split "
							   "the chain");
						break;
					}
					if (p && !pf) {
						pf = p;
						pf_id = w->g->nodes[f].id;
						keep = f;
					}
				}
				if (rc < 0 || top - sp < 2)
					continue;
				/* One job: the platform member's bucket. */
				for (u = sp; u < top; u++)
					jobs_unite(w->parent, keep,
					      w->comp_first[stk[u]]);
				rc = 1;
			}
		}
	}
done:
	mem_free(idx);
	mem_free(low);
	mem_free(stk);
	mem_free(call);
	mem_free(pos);
	mem_free(on);
	return rc;
}

/* Longest-path stages over the (acyclic) component graph, by Kahn. */
int
jobs_stages(struct work *w, const size_t *off, const size_t *adj,
       struct error *err)
{
	size_t C = w->n_comp, *indeg = mem_calloc(C + 1, sizeof(size_t));
	size_t *queue = mem_alloc((C + 1) * sizeof(size_t));
	size_t head = 0, tail = 0, i, k;

	if (!indeg || !queue) {
		mem_free(indeg);
		mem_free(queue);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	for (i = 0; i < off[C]; i++)
		indeg[adj[i]]++;
	for (i = 0; i < C; i++) {
		w->stage[i] = 1;
		if (!indeg[i])
			queue[tail++] = i;
	}
	while (head < tail) {
		size_t c = queue[head++];

		for (k = off[c]; k < off[c + 1]; k++) {
			size_t u = adj[k];

			if (w->stage[u] < w->stage[c] + 1)
				w->stage[u] = w->stage[c] + 1;
			if (!--indeg[u])
				queue[tail++] = u;
		}
	}
	mem_free(indeg);
	mem_free(queue);
	return 0;
}
