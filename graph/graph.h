/*
 * District graph/: may use rules/ and base/. Inside, node.c (node
 * accessors) is the lowest file; expand.c calls deps.c, never the reverse.
 *
 * The build graph: every artifact, test and release rule expanded over its
 * `each:` axes into nodes with canonical ids, templates substituted, matrix
 * dependencies resolved, and nodes ordered topologically (dependencies
 * first, ties broken by id). The graph depends only on the rules model; the
 * repository and keys come in graph/key.h.
 *
 * Node ids: `KIND:NAME[axis=value,...]`, axes sorted by name, e.g.
 * `artifact:bindings-wheel[platform=linux-64,python=3.12,root=bindings-12]`;
 * a rule without axes has the id `KIND:NAME`.
 */
#ifndef RIPPLE_GRAPH_GRAPH_H
#define RIPPLE_GRAPH_GRAPH_H

#include <stddef.h>

#include "base/arena.h"

struct error;
struct error_list;
struct rules;
struct rules_node;
struct rules_release;
struct rules_root;
struct rules_toolkit;
struct rules_kv;

enum graph_node_kind {
	GRAPH_NODE_ARTIFACT,
	GRAPH_NODE_TEST,
	GRAPH_NODE_RELEASE,
};

struct graph_binding {
	const char *axis;
	const char *value;
};

/* A source input of a node: a named path set, already rooted. */
struct graph_input {
	const char *name;	/* "source:core-src", "root.sources:bindings-12" */
	const char **include;	/* patterns from the repository root */
	size_t n_include;
	const char **exclude;
	size_t n_exclude;
};

struct graph_node {
	size_t index;			/* position in graph->nodes */
	enum graph_node_kind kind;
	const char *id;			/* canonical id */
	const char *name;		/* the rule's name */
	const struct rules_node *rule;		/* artifacts and tests */
	const struct rules_release *release;	/* releases */
	struct graph_binding *axes;	/* sorted by axis name */
	size_t n_axes;
	const struct rules_root *root;	/* bound by the root axis, or NULL */
	const struct rules_toolkit *toolkit;	/* resolved, or NULL */
	/* Fields with templates substituted: */
	const char **argv;
	size_t argc;
	struct rules_kv *env;		/* sorted by key */
	size_t n_env;
	const char *cwd;		/* repository-relative, or NULL */
	const char **outputs;
	size_t n_outputs;
	const char *version;		/* template kept: ${root.version} is
					   resolved at run time, outside keys */
	struct rules_kv *meta;		/* the rule's meta:, sorted by key,
					   ${root.version} kept as version */
	size_t n_meta;
	const char *version_group;	/* artifacts: the rule's version-group
					   expanded (nodes with equal names
					   rebuild together), or NULL */
	const char *container_image;	/* the rule's container: image
					   expanded (keyed), or NULL */
	const char *container_options;	/* its options expanded, or NULL */
	const char **rewrites;		/* the rule's rewrites: expanded,
					   repository-relative, sorted */
	size_t n_rewrites;
	struct graph_input *inputs;	/* sorted by name */
	size_t n_inputs;
	size_t *deps;			/* upstream node indices, sorted by id */
	size_t n_deps;
	const char **dep_groups;	/* parallel to deps: the output
					   groups of that upstream this node
					   needs (`needs: [libfoo.lib]`),
					   sorted, ','-joined ("lib,tests"),
					   NULL for its whole output; NULL
					   when no dependency names a group */
	size_t *rdeps;			/* downstream node indices, by id */
	size_t n_rdeps;
};

struct graph {
	struct graph_node *nodes;	/* topological: deps before users */
	size_t n_nodes;
	size_t *by_id;			/* node indices in id order */
	const struct rules *rules;	/* borrowed; must outlive the graph */
	struct arena arena;		/* owns everything above */
};

/*
 * Ceilings on a graph's size that the rules cannot raise (issue 22): the
 * rules' `policy: {max-nodes, max-edges}` may only lower them; a command's
 * --max-nodes / --max-edges raises them. 100,000 nodes plan in seconds
 * (about 2 KB each); an edge (one node needing another) costs about 130
 * bytes in a plan, so 10^6 edges stay near 130 MB where 36 M edges took
 * 4.7 GB. Nodes are bounded before expansion (the product of axis sizes)
 * and edges while they are resolved, so a graph past either never takes
 * the memory it would need.
 */
#define GRAPH_MAX_NODES_DEFAULT 100000ULL
#define GRAPH_MAX_EDGES_DEFAULT 1000000ULL

struct graph_limits {
	unsigned long long max_nodes;	/* 0: GRAPH_MAX_NODES_DEFAULT */
	unsigned long long max_edges;	/* 0: GRAPH_MAX_EDGES_DEFAULT */
};

/*
 * Expand `rules` into a graph. The graph borrows `rules` (keep it alive).
 * On success *out is a new graph (free with graph_free). Errors:
 * ERROR_INVALID with the rule's file:line:col for a template naming an
 * unknown variable, a `where:` selecting nothing it can bind, a toolkit
 * expression that is not exactly one toolkit, a dependency cycle (the
 * message lists the cycle's ids in order); ERROR_NOMEM.
 */
int graph_build(const struct rules *rules, struct graph **out,
		struct error *err);

/*
 * graph_build under `limits` (NULL: the default ceilings), each lowered
 * to the rules' policy max-nodes / max-edges where those are lower. Past
 * a limit: ERROR_INVALID at the rule that fans out most, naming the
 * count, the limit and, for a ceiling, the flag that raises it
 * (--max-nodes, --max-edges). Nodes are counted from the axis sizes
 * before any is made; edges as they are resolved, before they are
 * stored. graph_build is graph_build_limited with NULL.
 */
int graph_build_limited(const struct rules *rules,
			const struct graph_limits *limits, struct graph **out,
			struct error *err);

/*
 * graph_build_limited for `ripple check`: an expansion error does not stop
 * the other rules' expansion. The first error of each rule that fails to
 * expand (file:line:col of the value or the rule, node id) goes to
 * `errors`, or the one error that stops the build (out of memory, a
 * limit, a cycle); the list is then sorted (error_list_sort). Returns 0
 * with *out, or the code: ERROR_INVALID when only rules failed to expand.
 */
int graph_build_errors(const struct rules *rules,
		       const struct graph_limits *limits, struct graph **out,
		       struct error_list *errors);

/* Free a graph. Accepts NULL. */
void graph_free(struct graph *g);

/* The node with this exact id, or NULL (binary search over a sorted index). */
const struct graph_node *graph_find(const struct graph *g, const char *id);

/* The value bound to `axis` on the node, or NULL. */
const char *graph_node_axis(const struct graph_node *n, const char *axis);

/*
 * Select nodes for targets: each of `targets` (n of them) is a declared
 * target name (rules `targets:`), "artifacts", "tests", "releases",
 * "releases@TAG" (the release nodes whose tag family claims TAG, as `ripple
 * release TAG` finds them), a rule name, or a glob over node ids (fnmatch). With n == 0: every artifact and
 * test node. `selected` (g->n_nodes bytes, caller-owned) is set to 1 for
 * selected nodes and `closure` likewise for them plus everything they
 * depend on; either may be NULL. Errors: ERROR_NOT_FOUND for a target that
 * selects nothing, with a did-you-mean hint.
 */
int graph_select(const struct graph *g, const char *const *targets, size_t n,
		 unsigned char *selected, unsigned char *closure,
		 struct error *err);

struct version_params;

/*
 * The tag family of release node n: its root's family (narrowed to the
 * release's `tag:` glob in *narrow when that is not root.tags), else the
 * glob alone with the text before its first digit or glob character as
 * the prefix (written into prefix, size bytes). p borrows from n.
 */
void graph_release_family(const struct graph_node *n,
			  struct version_params *p, const char **narrow,
			  char *prefix, size_t size);

/*
 * 1 when release node n's tag family claims `tag`, 0 when not (or n is no
 * release node), or a negative ERROR_* with *err set (a tag-regex past its
 * PCRE2 limits: version_tag_claims; ERROR_NOMEM).
 */
int graph_release_claims(const struct graph *g, const struct graph_node *n,
			 const char *tag, struct error *err);

/*
 * The outputs of group `group` of artifact node n (`outputs: {lib: [...]}`
 * of its rule): *first and *count index n->outputs. Returns 0, or -1 when
 * the rule declares no such group.
 */
int graph_node_group_outputs(const struct graph_node *n, const char *group,
			     size_t *first, size_t *count);

/*
 * 1 when a container image reference is pinned by digest (ends in
 * "@sha256:" and 64 lowercase hex digits), else 0: a tag such as
 * "rapidsai/ci-conda:26.06-cuda12.9" may move to other bytes.
 */
int graph_image_pinned(const char *image);

/* "artifact", "test" or "release". */
const char *graph_node_kind_name(enum graph_node_kind kind);

#endif
