/*
 * Dependency resolution and topological order for graph_build: source
 * inputs rooted at the repository, matrix selection of upstream nodes, and
 * an iterative depth-first order that reports cycles by their ids.
 */
#include "graph/deps.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/fnmatch.h"
#include "base/mem.h"
#include "graph/graph.h"
#include "graph/instances.h"
#include "graph/template.h"
#include "rules/rules.h"
#include "base/banned.h"

/*
 * One node's upstream indices while they are resolved: each at most once
 * (seen[] marks them), and no more than `limit` (the edges left under the
 * cap), so a fan-out past the cap stops before its memory is taken.
 */
struct list {
	size_t *v;
	size_t n, cap;
	unsigned char *seen;	/* one byte per node: already in v */
	unsigned long long limit;
	int over;		/* 1: a push passed limit */
};

static int
list_push(struct list *l, size_t x, struct error *err)
{
	if (l->seen[x])
		return 0;	/* named twice (two needs, overlapping where) */
	if (l->n >= l->limit) {
		l->over = 1;
		return ERROR_INVALID;	/* the caller words the error */
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		size_t *v = mem_realloc(l->v, cap * sizeof(*v));

		if (!v)
			return error_set(err, ERROR_NOMEM, "out of memory");
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = x;
	l->seen[x] = 1;
	return 0;
}

static int
cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

int
graph_error_at(struct error *err, const struct rules *r, struct rules_pos pos,
	       const char *node, int code)
{
	if (err && err->code && !err->file[0]) {
		size_t n = strlen(r->file ? r->file : "");

		if (n >= sizeof(err->file))
			n = sizeof(err->file) - 1;
		memcpy(err->file, r->file ? r->file : "", n);
		err->file[n] = '\0';
		err->line = pos.line;
		err->col = pos.col;
	}
	error_node(err, node);
	return code;
}

static const char *
join(struct arena *a, const char *dir, const char *pat)
{
	/* Patterns under a root are anchored there; a leading "/" says so
	 * explicitly and adds nothing. */
	if (pat[0] == '/')
		pat++;
	/* A root at the repository root: anchor the pattern there with a
	 * leading "/", or "pytest.ini" would match in every folder. */
	if (!strcmp(dir, "."))
		return arena_concat(a, "/", pat, NULL);
	return arena_concat(a, dir, "/", pat);
}

/* Keep in[*n_in] unless an input of that name is already there. */
static void
keep_input(struct graph_input *in, size_t *n_in)
{
	size_t i;

	for (i = 0; i < *n_in; i++)
		if (!strcmp(in[i].name, in[*n_in].name))
			return;	/* named twice: once is enough */
	(*n_in)++;
}

static int
source_input(struct graph *g, struct graph_node *node,
	     const struct rules_dep *d, struct graph_input *in,
	     struct error *err)
{
	const struct rules *r = g->rules;
	struct arena *a = &g->arena;
	const struct rules_root *root = node->root;
	size_t i;

	memset(in, 0, sizeof(*in));
	if (d->kind == RULES_DEP_SOURCE) {
		const struct rules_source *s = rules_find_source(r, d->name);

		if (!s)
			return graph_error_at(err, r, d->pos, node->id,
					 error_set(err, ERROR_INVALID,
						   "unknown source '%s'",
						   d->name));
		in->name = arena_concat(a, "source:", s->name, NULL);
		in->include = s->paths;
		in->n_include = s->n_paths;
		in->exclude = s->exclude;
		in->n_exclude = s->n_exclude;
		return in->name ? 0 : error_set(err, ERROR_NOMEM, "out of memory");
	}
	if (!root)
		return graph_error_at(err, r, d->pos, node->id,
				 error_set(err, ERROR_INVALID,
					   "'%s' needs a root axis", d->name));
	if (d->kind == RULES_DEP_ROOT_SOURCES) {
		in->name = arena_concat(a, "root.sources:", root->name, NULL);
		in->n_include = 1;
		in->include = arena_alloc(a, sizeof(char *));
		in->n_exclude = root->n_exclude;
		in->exclude = arena_alloc(a, (root->n_exclude + 1) *
					     sizeof(char *));
		if (!in->name || !in->include || !in->exclude)
			return error_set(err, ERROR_NOMEM, "out of memory");
		in->include[0] = join(a, root->path, "**");
		if (!in->include[0])
			return error_set(err, ERROR_NOMEM, "out of memory");
		for (i = 0; i < root->n_exclude; i++)
			if (!(in->exclude[i] = join(a, root->path,
						    root->exclude[i])))
				return error_set(err, ERROR_NOMEM,
						 "out of memory");
		return 0;
	}
	in->name = arena_concat(a, "root.tests:", root->name, NULL);
	in->n_include = root->n_tests;
	in->include = arena_alloc(a, (root->n_tests + 1) * sizeof(char *));
	if (!in->name || !in->include)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; i < root->n_tests; i++)
		if (!(in->include[i] = join(a, root->path, root->tests[i])))
			return error_set(err, ERROR_NOMEM, "out of memory");
	return 0;
}

/* Does instance m satisfy node's dependency d? */
static int
instance_matches(struct graph *g, const struct graph_node *node,
		 const struct rules_dep *d, const struct graph_node *m,
		 int *ok, struct error *err)
{
	struct template_env env = { node->axes, node->n_axes, node->root,
				    node->toolkit, NULL };
	size_t i, k;

	*ok = 0;
	for (i = 0; i < m->n_axes; i++) {
		const char *axis = m->axes[i].axis, *want;
		const struct rules_kv *w = NULL;

		for (k = 0; d && k < d->n_where; k++)
			if (!strcmp(d->where[k].key, axis))
				w = &d->where[k];
		if (w) {
			const char *expr, **names;
			size_t n;
			int rc = template_expand(&g->arena, w->value, &env,
						 &expr, err);

			if (!rc)
				rc = template_select(&g->arena, g->rules,
						     expr, &names, &n, err);
			if (rc < 0)
				return graph_error_at(err, g->rules, w->pos,
						 node->id, rc);
			if (rc == 1) {
				for (k = 0; k < n; k++)
					if (!strcmp(names[k], m->axes[i].value))
						break;
				if (k == n)
					return 0;
			} else if (strcmp(expr, m->axes[i].value)) {
				return 0;
			}
			continue;
		}
		want = graph_node_axis(node, axis);
		if (want && strcmp(want, m->axes[i].value))
			return 0;
	}
	*ok = 1;
	return 0;
}

static int
select_upstream(struct graph *g, struct graph_node *nodes, size_t n,
		struct graph_node *node, enum graph_node_kind kind,
		const char *name, const struct rules_dep *d,
		struct rules_pos pos, struct list *deps, struct error *err)
{
	size_t i, found = 0, lo, hi;
	int rc, ok;

	rc = graph_instances_range(nodes, n, graph_node_kind_name(kind), name,
				   node, d, &lo, &hi, err);
	if (rc)
		return rc;
	for (i = lo; i < hi; i++) {
		if (nodes[i].kind != kind || strcmp(nodes[i].name, name))
			continue;
		rc = instance_matches(g, node, d, &nodes[i], &ok, err);
		if (rc)
			return rc;
		if (!ok)
			continue;
		rc = list_push(deps, i, err);
		if (rc)
			return rc;
		found++;
	}
	if (!found) {
		error_set(err, ERROR_INVALID,
			  "no instance of %s '%s' matches this node's axes",
			  graph_node_kind_name(kind), name);
		error_hint(err, "add a where: entry mapping the axes, or "
				"widen the dependency's each:");
		return graph_error_at(err, g->rules, pos, node->id, ERROR_INVALID);
	}
	return 0;
}

static int
resolve_rule_node(struct graph *g, struct graph_node *nodes, size_t n,
		  struct graph_node *node, struct list *deps,
		  struct error *err)
{
	const struct rules_node *rule = node->rule;
	struct graph_input *in;
	size_t i, n_in = 0;
	int rc = 0;

	in = arena_alloc(&g->arena, (rule->n_deps + 1) * sizeof(*in));
	if (!in)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; !rc && i < rule->n_deps; i++) {
		const struct rules_dep *d = &rule->deps[i];

		switch (d->kind) {
		case RULES_DEP_SOURCE:
		case RULES_DEP_ROOT_SOURCES:
		case RULES_DEP_ROOT_TESTS:
			rc = source_input(g, node, d, &in[n_in], err);
			if (!rc)
				keep_input(in, &n_in);
			break;
		case RULES_DEP_ARTIFACT:
		case RULES_DEP_TEST:
			rc = select_upstream(g, nodes, n, node,
					     d->kind == RULES_DEP_TEST
						     ? GRAPH_NODE_TEST
						     : GRAPH_NODE_ARTIFACT,
					     d->name, d, d->pos, deps, err);
			break;
		}
	}
	node->inputs = in;
	node->n_inputs = n_in;
	return rc;
}

static int
cmp_input(const void *a, const void *b)
{
	return strcmp(((const struct graph_input *)a)->name,
		      ((const struct graph_input *)b)->name);
}

static int
resolve_release_node(struct graph *g, struct graph_node *nodes, size_t n,
		     struct graph_node *node, struct list *deps,
		     struct error *err)
{
	const struct rules_release *rel = node->release;
	size_t i, k;
	int rc;

	for (i = 0; i < rel->n_artifacts; i++) {
		int excluded = 0;

		for (k = 0; k < rel->n_exclude && !excluded; k++)
			excluded = fnmatch_match(rel->exclude[k],
					    rel->artifacts[i]);
		if (excluded)
			continue;
		rc = select_upstream(g, nodes, n, node, GRAPH_NODE_ARTIFACT,
				     rel->artifacts[i], NULL, rel->pos, deps,
				     err);
		if (rc)
			return rc;
	}
	for (i = 0; i < rel->n_tests; i++) {
		rc = select_upstream(g, nodes, n, node, GRAPH_NODE_TEST,
				     rel->tests[i], NULL, rel->pos, deps, err);
		if (rc)
			return rc;
	}
	return 0;
}

int
graph_deps_resolve(struct graph *g, struct graph_node *nodes, size_t n,
		   const struct graph_caps *caps, struct error *err)
{
	struct list deps = { NULL, 0, 0, NULL, 0, 0 };
	struct graph_edge_tally tally;
	unsigned long long edges = 0;
	size_t i, k;
	int rc = 0;

	memset(&tally, 0, sizeof(tally));
	deps.seen = mem_calloc(n + 1, 1);
	if (!deps.seen)
		return error_nomem(err);
	for (i = 0; !rc && i < n; i++) {
		struct graph_node *node = &nodes[i];

		for (k = 0; k < deps.n; k++)
			deps.seen[deps.v[k]] = 0;
		deps.n = 0;
		deps.limit = caps->edges - edges;
		if (node->rule)
			rc = resolve_rule_node(g, nodes, n, node, &deps, err);
		else
			rc = resolve_release_node(g, nodes, n, node, &deps,
						  err);
		graph_edge_tally_add(&tally, node, deps.n);
		if (deps.over) {
			rc = graph_caps_edges_error(caps, g->rules, &tally,
						    node, err);
			break;
		}
		if (rc)
			break;
		if (node->n_inputs > 1)
			qsort(node->inputs, node->n_inputs,
			      sizeof(*node->inputs), cmp_input);
		if (deps.n > 1)
			qsort(deps.v, deps.n, sizeof(*deps.v), cmp_size);
		edges += deps.n;
		node->n_deps = deps.n;
		node->deps = deps.n ? arena_memdup(&g->arena, deps.v,
						   deps.n * sizeof(size_t))
				    : arena_alloc(&g->arena, sizeof(size_t));
		if (!node->deps)
			rc = error_nomem(err);
	}
	mem_free(deps.seen);
	mem_free(deps.v);
	return rc;
}

static int
report_cycle(const struct graph *g, const struct graph_node *nodes,
	     const size_t *stack, size_t depth, size_t back, struct error *err)
{
	const struct graph_node *top = &nodes[stack[depth - 1]];
	struct rules_pos pos = { 0, 0 };
	struct buf b;
	size_t i;

	buf_init(&b, 4000);
	for (i = 0; i < depth; i++)
		if (stack[i] == back)
			break;
	for (; i < depth; i++)
		buf_addf(&b, NULL, "%s -> ", nodes[stack[i]].id);
	buf_addstr(&b, nodes[back].id, NULL);
	error_set(err, ERROR_INVALID, "dependency cycle: %s", b.data);
	error_hint(err, "a node cannot depend on itself, directly or "
			"through others");
	buf_release(&b);
	/* Point at the entry of the last node that closes the loop. */
	if (top->rule) {
		pos = top->rule->pos;
		for (i = 0; i < top->rule->n_deps; i++)
			if (!strcmp(top->rule->deps[i].name, nodes[back].name))
				pos = top->rule->deps[i].pos;
	} else if (top->release) {
		pos = top->release->pos;
	}
	return graph_error_at(err, g->rules, pos, top->id, ERROR_INVALID);
}

int
graph_topo_sort(struct graph *g, struct graph_node *nodes, size_t n,
		struct error *err)
{
	unsigned char *state = mem_calloc(n + 1, 1);	/* 0 new 1 open 2 done */
	size_t *stack = mem_calloc(n + 1, sizeof(size_t));
	size_t *next = mem_calloc(n + 1, sizeof(size_t));	/* dep cursor */
	size_t *order = mem_calloc(n + 1, sizeof(size_t));
	size_t *newpos = mem_calloc(n + 1, sizeof(size_t));
	size_t *rcount = mem_calloc(n + 1, sizeof(size_t));
	size_t i, k, placed = 0;
	int rc = 0;

	if (!state || !stack || !next || !order || !newpos || !rcount) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < n; i++) {
		size_t depth = 0;

		if (state[i])
			continue;
		stack[depth++] = i;
		state[i] = 1;
		next[i] = 0;
		while (depth) {
			size_t top = stack[depth - 1];

			if (next[top] < nodes[top].n_deps) {
				size_t d = nodes[top].deps[next[top]++];

				if (state[d] == 1) {
					rc = report_cycle(g, nodes, stack, depth,
							  d, err);
					goto done;
				}
				if (state[d] == 0) {
					state[d] = 1;
					next[d] = 0;
					stack[depth++] = d;
				}
				continue;
			}
			state[top] = 2;
			order[placed++] = top;
			depth--;
		}
	}
	g->nodes = arena_alloc(&g->arena, (n ? n : 1) * sizeof(*g->nodes));
	if (!g->nodes) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < n; i++)
		newpos[order[i]] = i;
	for (i = 0; i < n; i++) {
		struct graph_node *dst = &g->nodes[i];

		*dst = nodes[order[i]];
		dst->index = i;
		for (k = 0; k < dst->n_deps; k++) {
			dst->deps[k] = newpos[dst->deps[k]];
			rcount[dst->deps[k]]++;
		}
	}
	for (i = 0; i < n; i++) {
		g->nodes[i].rdeps = arena_alloc(&g->arena, (rcount[i] + 1) *
							   sizeof(size_t));
		if (!g->nodes[i].rdeps) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			goto done;
		}
	}
	/* Visiting users in id order keeps each rdeps list sorted by id. */
	for (i = 0; i < n; i++) {
		struct graph_node *user = &g->nodes[newpos[i]];

		for (k = 0; k < user->n_deps; k++) {
			struct graph_node *up = &g->nodes[user->deps[k]];

			up->rdeps[up->n_rdeps++] = user->index;
		}
	}
	g->by_id = arena_memdup(&g->arena, newpos, (n ? n : 1) * sizeof(size_t));
	if (!g->by_id) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	g->n_nodes = n;
done:
	mem_free(rcount);
	mem_free(newpos);
	mem_free(order);
	mem_free(next);
	mem_free(stack);
	mem_free(state);
	return rc;
}
