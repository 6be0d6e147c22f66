/*
 * The ceilings graph_build_limited applies (graph/graph.h): the caps a
 * build runs under, the node count checked from axis sizes before
 * expansion, and the message for an edge count past its cap, naming the
 * rule that fans out most. deps.c counts the edges as it resolves them.
 */
#include "graph/limits.h"

#include <limits.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "graph/graph.h"
#include "rules/rules.h"
#include "base/banned.h"

void
graph_caps_init(struct graph_caps *c, const struct rules *r,
		const struct graph_limits *l)
{
	memset(c, 0, sizeof(*c));
	c->nodes_ceiling = l && l->max_nodes ? l->max_nodes
					     : GRAPH_MAX_NODES_DEFAULT;
	c->edges_ceiling = l && l->max_edges ? l->max_edges
					     : GRAPH_MAX_EDGES_DEFAULT;
	c->nodes = c->nodes_ceiling;
	c->edges = c->edges_ceiling;
	/* The rules may lower a ceiling, never raise it. */
	if (r->policy.max_nodes && r->policy.max_nodes < c->nodes) {
		c->nodes = r->policy.max_nodes;
		c->nodes_policy = 1;
	}
	if (r->policy.max_edges && r->policy.max_edges < c->edges) {
		c->edges = r->policy.max_edges;
		c->edges_policy = 1;
	}
}

/* One rule that expands to nodes: its kind, name, each and position. */
struct rule_ref {
	const char *kind;
	const char *name;
	const struct rules_each *each;
	struct rules_pos pos;
};

static size_t
rule_count(const struct rules *r)
{
	return r->n_artifacts + r->n_tests + r->n_releases;
}

static struct rule_ref
rule_at(const struct rules *r, size_t i)
{
	struct rule_ref x;

	if (i < r->n_artifacts) {
		x.kind = "artifact";
		x.name = r->artifacts[i].name;
		x.each = &r->artifacts[i].each;
		x.pos = r->artifacts[i].pos;
		return x;
	}
	i -= r->n_artifacts;
	if (i < r->n_tests) {
		x.kind = "test";
		x.name = r->tests[i].name;
		x.each = &r->tests[i].each;
		x.pos = r->tests[i].pos;
		return x;
	}
	i -= r->n_tests;
	x.kind = "release";
	x.name = r->releases[i].name;
	x.each = &r->releases[i].each;
	x.pos = r->releases[i].pos;
	return x;
}

/*
 * "the ceiling of N nodes" or "policy max-nodes N", into the message;
 * `what` is plural ("nodes"), cut to the singular for a ceiling of 1.
 */
static void
limit_text(struct buf *b, int policy, const char *what,
	   unsigned long long cap)
{
	if (policy)
		buf_addf(b, NULL, "policy max-%s %llu", what, cap);
	else
		buf_addf(b, NULL, "the ceiling of %llu %.*s", cap,
			 (int)strlen(what) - (cap == 1), what);
}

/* `asked`: the rules' policy value (0: none); narrow: NULL for none. */
static void
limit_hint(struct error *err, int policy, const char *what,
	   unsigned long long ceiling, unsigned long long asked,
	   const char *narrow)
{
	const char *sep = narrow ? ", or r" : "r";

	if (!narrow)
		narrow = "";
	if (policy)
		error_hint(err, "%s%saise policy: {max-%s: N} (up to the "
			   "ceiling, %llu; --max-%s N raises that)", narrow,
			   sep, what, ceiling, what);
	else if (asked)
		error_hint(err, "%s%saise the ceiling with --max-%s N "
			   "(the rules' policy max-%s: %llu cannot raise it)",
			   narrow, sep, what, what, asked);
	else
		error_hint(err, "%s%saise the ceiling with --max-%s N "
			   "(the rules' policy max-%s can only lower it)",
			   narrow, sep, what, what);
}

/* "KIND 'NAME', ... and N more" of the first rules, into the message. */
static void
rule_names(struct buf *b, const struct rules *r)
{
	size_t i, n = rule_count(r), shown = n > 4 ? 4 : n;

	for (i = 0; i < shown; i++) {
		struct rule_ref x = rule_at(r, i);

		buf_addf(b, NULL, "%s%s '%s'", i ? ", " : "", x.kind, x.name);
	}
	if (n > shown)
		buf_addf(b, NULL, " and %zu more", n - shown);
}

int
graph_caps_check_nodes(const struct graph_caps *c, const struct rules *r,
		       struct error *err)
{
	unsigned long long total = 0, n, most = 0;
	struct rule_ref top = { NULL, NULL, NULL, { 0, 0 } };
	struct buf msg;
	size_t i;

	for (i = 0; i < rule_count(r); i++) {
		struct rule_ref x = rule_at(r, i);

		n = rules_each_size(x.each);
		total = n > ULLONG_MAX - total ? ULLONG_MAX : total + n;
		if (!top.kind || n > most) {
			top = x;
			most = n;
		}
	}
	if (total <= c->nodes)
		return 0;
	buf_init(&msg, 0);
	buf_addf(&msg, NULL, "the rules expand to %s%llu nodes, more than ",
		 total == ULLONG_MAX ? "more than " : "", total);
	limit_text(&msg, c->nodes_policy, "nodes", c->nodes);
	if (most > 1) {
		buf_addf(&msg, NULL, "; %s '%s' fans out most (%llu nodes: ",
			 top.kind, top.name, most);
		rules_each_describe(top.each, &msg, NULL);
		buf_addch(&msg, ')', NULL);
	} else {
		/* Nothing to narrow: say which rules there are. */
		buf_addstr(&msg, "; no rule fans out (one node each): ", NULL);
		rule_names(&msg, r);
	}
	error_at(err, ERROR_INVALID, r->file ? r->file : "", top.pos.line,
		 top.pos.col, "%s", msg.data);
	buf_release(&msg);
	limit_hint(err, c->nodes_policy, "nodes", c->nodes_ceiling,
		   r->policy.max_nodes, most > 1 ? "narrow its each:" : NULL);
	return ERROR_INVALID;
}

void
graph_edge_tally_add(struct graph_edge_tally *t, const struct graph_node *n,
		     unsigned long long edges)
{
	const void *rule = n->rule ? (const void *)n->rule
				   : (const void *)n->release;

	/* Nodes are in id order, so a rule's nodes come together. */
	if (rule != t->cur) {
		t->cur = rule;
		t->cur_node = n;
		t->cur_edges = 0;
		t->cur_nodes = 0;
	}
	t->cur_edges += edges;
	t->cur_nodes++;
	if (!t->top || t->cur_edges > t->top_edges) {
		t->top = t->cur_node;
		t->top_edges = t->cur_edges;
		t->top_nodes = t->cur_nodes;
	}
}

int
graph_caps_edges_error(const struct graph_caps *c, const struct rules *r,
		       const struct graph_edge_tally *t,
		       const struct graph_node *at, struct error *err)
{
	const struct graph_node *top = t->top ? t->top : at;
	struct rules_pos pos = top->rule ? top->rule->pos : top->release->pos;
	struct buf msg;

	buf_init(&msg, 0);
	buf_addstr(&msg, "the graph has more edges (one node needing "
		   "another) than ", NULL);
	limit_text(&msg, c->edges_policy, "edges", c->edges);
	buf_addf(&msg, NULL, "; %s '%s' fans out most (%llu edge%s from %zu "
		 "of its node%s before the count stopped)",
		 graph_node_kind_name(top->kind), top->name, t->top_edges,
		 t->top_edges == 1 ? "" : "s", t->top_nodes,
		 t->top_nodes == 1 ? "" : "s");
	error_at(err, ERROR_INVALID, r->file ? r->file : "", pos.line, pos.col,
		 "%s", msg.data);
	buf_release(&msg);
	error_node(err, at->id);
	limit_hint(err, c->edges_policy, "edges", c->edges_ceiling,
		   r->policy.max_edges,
		   "narrow its needs: with where: or shared axes");
	return ERROR_INVALID;
}
