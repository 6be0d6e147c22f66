/*
 * Matrix expansion: rules x `each:` axes into nodes, with canonical ids,
 * substituted fields, source inputs, matrix dependencies (shared axes agree,
 * `where:` narrows or maps, the rest fans in), and a topological order with
 * cycle reports. Selection of targets lives in graph/select.c.
 */
#include "graph/graph.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "graph/deps.h"
#include "graph/field_check.h"
#include "graph/template.h"
#include "rules/rules.h"
#include "base/banned.h"

/* A growable array of nodes during expansion. */
struct builder {
	const struct rules *rules;
	struct graph *g;
	struct graph_node *nodes;
	size_t n, cap;
	unsigned long long max;	/* nodes allowed (checked before, too) */
};

static struct graph_node *
new_node(struct builder *b, struct error *err)
{
	if (b->n >= b->max) {
		/* graph_caps_check_nodes counted every combination first;
		 * this keeps the bound should the two ever disagree. */
		error_set(err, ERROR_INTERNAL, "the rules expand to more than "
			  "%llu nodes, past the count made before expansion",
			  b->max);
		return NULL;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		struct graph_node *p =
			mem_realloc(b->nodes, cap * sizeof(*p));

		if (!p) {
			error_set(err, ERROR_NOMEM, "out of memory");
			return NULL;
		}
		b->nodes = p;
		b->cap = cap;
	}
	memset(&b->nodes[b->n], 0, sizeof(b->nodes[0]));
	return &b->nodes[b->n++];
}

static const char *
make_id(struct arena *a, const char *kind, const char *name,
	const struct graph_binding *axes, size_t n)
{
	struct buf b;
	const char *id;
	size_t i;
	int bad;

	buf_init(&b, 0);
	bad = buf_addstr(&b, kind, NULL) != 0;
	bad |= buf_addch(&b, ':', NULL) != 0;
	bad |= buf_addstr(&b, name, NULL) != 0;
	if (n) {
		bad |= buf_addch(&b, '[', NULL) != 0;
		for (i = 0; i < n; i++) {
			if (i)
				bad |= buf_addch(&b, ',', NULL) != 0;
			bad |= buf_addstr(&b, axes[i].axis, NULL) != 0;
			bad |= buf_addch(&b, '=', NULL) != 0;
			bad |= buf_addstr(&b, axes[i].value, NULL) != 0;
		}
		bad |= buf_addch(&b, ']', NULL) != 0;
	}
	id = !bad ? arena_strndup(a, b.data, b.len) : NULL;
	buf_release(&b);
	return id;
}

/* Does the partial assignment `c` agree with the full one in `axes`? */
static int
combo_matches(const struct rules_combo *c, const struct graph_binding *axes,
	      size_t n)
{
	size_t i, j;

	for (i = 0; i < c->n_pairs; i++) {
		for (j = 0; j < n; j++)
			if (!strcmp(axes[j].axis, c->pairs[i].key))
				break;
		if (j == n || strcmp(axes[j].value, c->pairs[i].value))
			return 0;
	}
	return 1;
}

static int
resolve_toolkit(struct builder *b, struct graph_node *node,
		const char *tmpl, struct rules_pos pos, struct error *err)
{
	const struct rules *r = b->rules;
	struct template_env env = { node->axes, node->n_axes, node->root,
				    NULL, NULL };
	const char *expr, **names;
	size_t n;
	int rc;

	if (!tmpl) {
		if (node->root && node->root->toolkit)
			node->toolkit =
				rules_find_toolkit(r, node->root->toolkit);
		return 0;
	}
	if (!strcmp(tmpl, "root.toolkit")) {
		if (!node->root || !node->root->toolkit) {
			error_set(err, ERROR_INVALID, "'root.toolkit' needs a "
				  "root with a toolkit");
			return graph_error_at(err, r, pos, node->id,
					      ERROR_INVALID);
		}
		node->toolkit = rules_find_toolkit(r, node->root->toolkit);
		return 0;
	}
	rc = template_expand(&b->g->arena, tmpl, &env, &expr, err);
	if (rc)
		return graph_error_at(err, r, pos, node->id, rc);
	rc = template_select(&b->g->arena, r, expr, &names, &n, err);
	if (rc < 0)
		return graph_error_at(err, r, pos, node->id, rc);
	if (rc == 0) {
		node->toolkit = rules_find_toolkit(r, expr);
		if (!node->toolkit) {
			error_set(err, ERROR_INVALID, "unknown toolkit '%s'",
				  expr);
			return graph_error_at(err, r, pos, node->id,
					      ERROR_INVALID);
		}
		return 0;
	}
	if (n != 1 || strncmp(expr, "toolkits[", 9)) {
		error_set(err, ERROR_INVALID, "toolkit '%s' selects %zu "
			  "toolkits, not exactly one", expr, n);
		return graph_error_at(err, r, pos, node->id, ERROR_INVALID);
	}
	node->toolkit = rules_find_toolkit(r, names[0]);
	return 0;
}

static int
expand_fields(struct builder *b, struct graph_node *node,
	      const struct rules_node *rule, struct error *err)
{
	struct arena *a = &b->g->arena;
	struct template_env env = { node->axes, node->n_axes, node->root,
				    node->toolkit, NULL };
	size_t i;
	int rc = 0;

	node->argc = rule->n_command;
	node->argv = arena_alloc(a, (rule->n_command + 1) * sizeof(char *));
	node->n_env = rule->n_env;
	node->env = arena_alloc(a, (rule->n_env + 1) * sizeof(*node->env));
	node->n_outputs = rule->n_outputs;
	node->outputs = arena_alloc(a, (rule->n_outputs + 1) * sizeof(char *));
	node->n_meta = rule->n_meta;
	node->meta = arena_alloc(a, (rule->n_meta + 1) * sizeof(*node->meta));
	if (!node->argv || !node->env || !node->outputs || !node->meta)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; !rc && i < rule->n_command; i++)
		rc = template_expand(a, rule->command[i], &env,
				     &node->argv[i], err);
	for (i = 0; !rc && i < rule->n_env; i++) {
		node->env[i] = rule->env[i];
		rc = template_expand(a, rule->env[i].value, &env,
				     &node->env[i].value, err);
	}
	for (i = 0; !rc && i < rule->n_outputs; i++) {
		rc = template_expand(a, rule->outputs[i], &env,
				     &node->outputs[i], err);
		if (!rc)
			rc = graph_field_path("outputs", rule->outputs[i],
					      node->outputs[i], err);
		if (!rc)
			rc = graph_field_names(node, rule->outputs[i],
					       node->outputs[i], err);
		if (rc)	/* at the output, not the rule's name */
			return graph_error_at(err, b->rules,
					      rule->output_pos[i], node->id,
					      rc);
	}
	for (i = 0; !rc && i < rule->n_meta; i++) {
		node->meta[i] = rule->meta[i];
		rc = template_expand(a, rule->meta[i].value, &env,
				     &node->meta[i].value, err);
	}
	if (!rc && rule->cwd) {
		rc = template_expand(a, rule->cwd, &env, &node->cwd, err);
		if (!rc)
			rc = graph_field_path("cwd", rule->cwd, node->cwd, err);
		if (rc)	/* at the cwd, not the rule's name */
			return graph_error_at(err, b->rules, rule->cwd_pos,
					      node->id, rc);
	}
	if (!rc)
		rc = template_expand(a, rule->version_group, &env,
				     &node->version_group, err);
	if (!rc && rule->container.image) {
		rc = template_expand(a, rule->container.image, &env,
				     &node->container_image, err);
		if (!rc)
			rc = graph_field_image(rule->container.image,
					       node->container_image, err);
		if (rc)	/* at the image, not the rule's name */
			return graph_error_at(err, b->rules,
					      rule->container.pos, node->id,
					      rc);
	}
	if (!rc)
		rc = template_expand(a, rule->container.options, &env,
				     &node->container_options, err);
	if (!rc && rule->n_rewrites) {
		node->n_rewrites = rule->n_rewrites;
		node->rewrites = arena_alloc(a, rule->n_rewrites *
						sizeof(char *));
		if (!node->rewrites)
			return error_set(err, ERROR_NOMEM, "out of memory");
	}
	for (i = 0; !rc && i < rule->n_rewrites; i++) {
		rc = template_expand(a, rule->rewrites[i], &env,
				     &node->rewrites[i], err);
		if (!rc)
			rc = graph_field_path("rewrites", rule->rewrites[i],
					      node->rewrites[i], err);
		if (rc)	/* at the entry, not the rule's name */
			return graph_error_at(err, b->rules,
					      rule->rewrite_pos[i], node->id,
					      rc);
	}
	node->version = rule->version;
	if (rc)
		return graph_error_at(err, b->rules, rule->pos, node->id,
				      rc);
	return 0;
}

/* Call fn for every combination of the rule's each (after include/exclude). */
static int
for_each_combo(struct builder *b, const struct rules_each *each,
	       int (*fn)(struct builder *, const struct graph_binding *,
			 size_t, const void *, struct error *),
	       const void *payload, struct error *err)
{
	/* A rule's few axes on the stack: two allocations a rule were a
	 * fifth of expanding 500 rules without axes. */
	size_t n = each->n_axes, i, k, idx_s[8] = { 0 };
	struct graph_binding axes_s[8];
	size_t *idx = n < 8 ? idx_s : mem_calloc(n + 1, sizeof(*idx));
	struct graph_binding *axes = n < 8 ? axes_s
					   : mem_calloc(n + 1, sizeof(*axes));
	int rc = 0;

	if (!idx || !axes) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < n; i++)
		if (!each->axes[i].n_values)
			goto includes;
	for (;;) {
		int dropped = 0;

		for (i = 0; i < n; i++) {
			axes[i].axis = each->axes[i].axis;
			axes[i].value = each->axes[i].values[idx[i]];
		}
		for (k = 0; k < each->n_exclude && !dropped; k++)
			dropped = combo_matches(&each->exclude[k], axes, n);
		if (!dropped) {
			rc = fn(b, axes, n, payload, err);
			if (rc)
				goto done;
		}
		for (i = n; i-- > 0;) {
			if (++idx[i] < each->axes[i].n_values)
				break;
			idx[i] = 0;
		}
		if (i == (size_t)-1 || n == 0)
			break;
	}
includes:
	for (k = 0; k < each->n_include; k++) {
		const struct rules_combo *c = &each->include[k];

		if (c->n_pairs != n)
			continue;	/* the loader reports incomplete ones */
		for (i = 0; i < n; i++) {
			axes[i].axis = each->axes[i].axis;
			axes[i].value = c->pairs[i].value;
		}
		rc = fn(b, axes, n, payload, err);
		if (rc)
			goto done;
	}
done:
	if (idx != idx_s)
		mem_free(idx);
	if (axes != axes_s)
		mem_free(axes);
	return rc;
}

static int
bind_root(struct builder *b, struct graph_node *node, struct error *err)
{
	const char *root = graph_node_axis(node, "root");

	if (!root)
		return 0;
	node->root = rules_find_root(b->rules, root);
	if (!node->root)
		return error_set(err, ERROR_INVALID, "unknown root '%s'", root);
	return 0;
}

static int
add_rule_node(struct builder *b, const struct graph_binding *axes, size_t n,
	      const void *payload, struct error *err)
{
	const struct rules_node *rule = payload;
	struct arena *a = &b->g->arena;
	struct graph_node *node;
	int rc;

	node = new_node(b, err);
	if (!node)
		return err ? err->code : ERROR_NOMEM;
	node->kind = rule->kind == RULES_NODE_TEST ? GRAPH_NODE_TEST
						   : GRAPH_NODE_ARTIFACT;
	node->name = rule->name;
	node->rule = rule;
	node->n_axes = n;
	node->axes = arena_memdup(a, axes, (n ? n : 1) * sizeof(*axes));
	node->id = make_id(a, graph_node_kind_name(node->kind), rule->name,
			   axes, n);
	if (!node->axes || !node->id)
		return error_set(err, ERROR_NOMEM, "out of memory");
	rc = bind_root(b, node, err);
	if (!rc)
		rc = resolve_toolkit(b, node, rule->toolkit, rule->pos, err);
	if (!rc)
		rc = expand_fields(b, node, rule, err);
	if (rc)
		return graph_error_at(err, b->rules, rule->pos, node->id,
				      rc);
	return 0;
}

static int
add_release_node(struct builder *b, const struct graph_binding *axes,
		 size_t n, const void *payload, struct error *err)
{
	const struct rules_release *rel = payload;
	struct arena *a = &b->g->arena;
	struct graph_node *node = new_node(b, err);

	if (!node)
		return err ? err->code : ERROR_NOMEM;
	node->kind = GRAPH_NODE_RELEASE;
	node->name = rel->name;
	node->release = rel;
	node->n_axes = n;
	node->axes = arena_memdup(a, axes, (n ? n : 1) * sizeof(*axes));
	node->id = make_id(a, "release", rel->name, axes, n);
	if (!node->axes || !node->id)
		return error_set(err, ERROR_NOMEM, "out of memory");
	if (bind_root(b, node, err))
		return graph_error_at(err, b->rules, rel->pos, node->id,
				      err->code);
	if (node->root && node->root->toolkit)
		node->toolkit = rules_find_toolkit(b->rules,
						   node->root->toolkit);
	return 0;
}

static int
cmp_node_id(const void *x, const void *y)
{
	return strcmp(((const struct graph_node *)x)->id,
		      ((const struct graph_node *)y)->id);
}

/* Expand rule i of the artifacts, then tests, then releases. */
static int
expand_rule(struct builder *b, size_t i, struct error *err)
{
	const struct rules *r = b->rules;

	if (i < r->n_artifacts)
		return for_each_combo(b, &r->artifacts[i].each, add_rule_node,
				      &r->artifacts[i], err);
	i -= r->n_artifacts;
	if (i < r->n_tests)
		return for_each_combo(b, &r->tests[i].each, add_rule_node,
				      &r->tests[i], err);
	i -= r->n_tests;
	return for_each_combo(b, &r->releases[i].each, add_release_node,
			      &r->releases[i], err);
}

/*
 * Expand every rule. Without `errors`, stop at the first error (in err).
 * With it, a rule that fails as ERROR_INVALID adds its first error there
 * and the others still expand; then ERROR_INVALID with err untouched.
 */
static int
expand_rules(struct builder *b, struct error_list *errors, struct error *err)
{
	const struct rules *r = b->rules;
	size_t i, n = r->n_artifacts + r->n_tests + r->n_releases;
	int rc, bad = 0;

	for (i = 0; i < n; i++) {
		struct error one;

		error_init(&one);
		rc = expand_rule(b, i, errors ? &one : err);
		if (rc && (!errors || rc != ERROR_INVALID)) {
			if (errors)
				*err = one;
			return rc;
		}
		if (rc) {
			error_list_add(errors, &one);
			bad = 1;
		}
	}
	return bad ? ERROR_INVALID : 0;
}

int
graph_build(const struct rules *rules, struct graph **out, struct error *err)
{
	return graph_build_limited(rules, NULL, out, err);
}

static int
build(const struct rules *rules, const struct graph_limits *limits,
      struct graph **out, struct error_list *errors, struct error *err)
{
	struct builder b = { rules, NULL, NULL, 0, 0, 0 };
	struct graph_caps caps;
	size_t i;
	int rc = 0;

	*out = NULL;
	graph_caps_init(&caps, rules, limits);
	rc = graph_caps_check_nodes(&caps, rules, err);
	if (rc)
		return rc;
	b.max = caps.nodes;
	b.g = mem_calloc(1, sizeof(*b.g));
	if (!b.g)
		return error_set(err, ERROR_NOMEM, "out of memory");
	arena_init(&b.g->arena);
	b.g->rules = rules;
	rc = expand_rules(&b, errors, err);
	if (rc)
		goto done;
	if (b.n > 1)
		qsort(b.nodes, b.n, sizeof(*b.nodes), cmp_node_id);
	for (i = 0; i + 1 < b.n; i++)
		if (!strcmp(b.nodes[i].id, b.nodes[i + 1].id)) {
			rc = error_set(err, ERROR_INVALID,
				       "node '%s' is defined twice (an "
				       "include repeats a combination)",
				       b.nodes[i].id);
			goto done;
		}
	for (i = 0; i < b.n; i++)
		b.nodes[i].index = i;
	rc = graph_deps_resolve(b.g, b.nodes, b.n, &caps, err);
	if (!rc)
		rc = graph_topo_sort(b.g, b.nodes, b.n, err);
	if (!rc)
		rc = graph_dep_groups(b.g, err);
done:
	mem_free(b.nodes);
	if (rc) {
		graph_free(b.g);
		return rc;
	}
	*out = b.g;
	return 0;
}

int
graph_build_limited(const struct rules *rules,
		    const struct graph_limits *limits, struct graph **out,
		    struct error *err)
{
	return build(rules, limits, out, NULL, err);
}

int
graph_build_errors(const struct rules *rules,
		   const struct graph_limits *limits, struct graph **out,
		   struct error_list *errors)
{
	struct error err;
	int rc;

	error_init(&err);
	rc = build(rules, limits, out, errors, &err);
	if (rc && err.code)
		error_list_add(errors, &err);
	error_list_sort(errors);
	return rc;
}

void
graph_free(struct graph *g)
{
	if (!g)
		return;
	arena_release(&g->arena);
	mem_free(g);
}
