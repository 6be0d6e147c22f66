/*
 * The rules model and the graph as one memo row (graph/model_memo.h): the
 * graph's field tables, the row's header and the checks of a graph read
 * back. The model's tables are rules/model_image.c's; the walk is
 * base/image.c's.
 */
#include "graph/model_memo.h"

#include <string.h>
#include <xxhash.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/image.h"
#include "base/mem.h"
#include "graph/graph.h"
#include "rules/model_image.h"
#include "rules/rules.h"
#include "base/banned.h"

#define MAGIC_LEN 16
#define KEY_LEN 32
#define HEADER_LEN (MAGIC_LEN + KEY_LEN + 2 * 8)
/* Images larger than this are built every time. */
#define MAX_BYTES (256u << 20)

#define POD(T, f) IMAGE_POD_F(T, f)
#define STR(T, f) IMAGE_STR_F(T, f)
#define STRS(T, f, n) IMAGE_STRS_F(T, f, n)

/* An array of node indices. */
struct idx {
	size_t i;
};
static const struct image_field idx_f[] = { POD(struct idx, i) };
static const struct image_type idx_t =
	IMAGE_TYPE(struct idx, "size_t", idx_f, 0);

#define T struct graph_binding
static const struct image_field binding_f[] = { STR(T, axis), STR(T, value) };
#undef T
static const struct image_type binding_t =
	IMAGE_TYPE(struct graph_binding, "graph_binding", binding_f, 0);

#define T struct graph_input
static const struct image_field input_f[] = {
	STR(T, name), STRS(T, include, n_include), POD(T, n_include),
	STRS(T, exclude, n_exclude), POD(T, n_exclude),
};
#undef T
static const struct image_type input_t =
	IMAGE_TYPE(struct graph_input, "graph_input", input_f, 0);

#define T struct graph_node
static const struct image_field node_f[] = {
	POD(T, index), IMAGE_ENUM_F(T, kind, GRAPH_NODE_RELEASE),
	STR(T, id), STR(T, name),
	IMAGE_REF_F(T, rule, rules_image_node),
	IMAGE_REF_F(T, release, rules_image_release),
	IMAGE_ARRAY_F(T, axes, binding_t, n_axes), POD(T, n_axes),
	IMAGE_REF_F(T, root, rules_image_root),
	IMAGE_REF_F(T, toolkit, rules_image_toolkit),
	STRS(T, argv, argc), POD(T, argc),
	IMAGE_ARRAY_F(T, env, rules_image_kv, n_env), POD(T, n_env),
	STR(T, cwd), STRS(T, outputs, n_outputs), POD(T, n_outputs),
	STR(T, version),
	IMAGE_ARRAY_F(T, meta, rules_image_kv, n_meta), POD(T, n_meta),
	STR(T, version_group), STR(T, container_image),
	STR(T, container_options), STRS(T, rewrites, n_rewrites),
	POD(T, n_rewrites),
	IMAGE_ARRAY_F(T, inputs, input_t, n_inputs), POD(T, n_inputs),
	IMAGE_ARRAY_F(T, deps, idx_t, n_deps), POD(T, n_deps),
	/* parallel to deps, NULL when no dependency names a group */
	IMAGE_F_(T, dep_groups, IMAGE_STRS, NULL, offsetof(T, n_deps), 0, 1),
	IMAGE_ARRAY_F(T, rdeps, idx_t, n_rdeps), POD(T, n_rdeps),
};
#undef T
static const struct image_type node_t =
	IMAGE_TYPE(struct graph_node, "graph_node", node_f, 0);

#define T struct graph
static const struct image_field graph_f[] = {
	IMAGE_ARRAY_F(T, nodes, node_t, n_nodes), POD(T, n_nodes),
	IMAGE_ARRAY_F(T, by_id, idx_t, n_nodes),
	IMAGE_ZERO_F(T, rules), IMAGE_ZERO_F(T, arena),
};
#undef T
static const struct image_type graph_t =
	IMAGE_TYPE(struct graph, "graph", graph_f, 0);

static const struct image_type *const roots[] = {
	&rules_image_rules, &graph_t,
};

uint64_t
graph_model_layout(void)
{
	return image_types_digest(roots, 2);
}

int
graph_model_check(char *why, size_t n)
{
	if (image_type_check(&rules_image_rules, why, n))
		return -1;
	return image_type_check(&graph_t, why, n);
}

static void
put_u64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t
get_u64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

int
graph_model_encode(const struct rules *r, const struct graph *g,
		   const char *key, struct buf *out)
{
	struct image_writer w;
	unsigned char head[HEADER_LEN];
	size_t start = out->len;
	char why[160];
	int rc;

	if (strlen(key) != KEY_LEN || graph_model_check(why, sizeof(why)))
		return ERROR_INVALID;
	memset(head, 0, sizeof(head));
	memcpy(head, GRAPH_MODEL_FORMAT, sizeof(GRAPH_MODEL_FORMAT));
	memcpy(head + MAGIC_LEN, key, KEY_LEN);
	image_writer_init(&w);
	rc = image_write(&w, &rules_image_rules, r);
	if (!rc)
		rc = image_write(&w, &graph_t, g);
	if (!rc)
		rc = buf_add(out, head, sizeof(head), NULL);
	if (!rc)
		rc = image_finish(&w, out);
	image_writer_release(&w);
	if (!rc && out->len - start - HEADER_LEN > MAX_BYTES)
		rc = ERROR_INVALID;
	if (rc) {
		out->len = start;
		if (out->cap)
			out->data[start] = '\0';
		return rc;
	}
	put_u64((unsigned char *)out->data + start + MAGIC_LEN + KEY_LEN,
		out->len - start - HEADER_LEN);
	put_u64((unsigned char *)out->data + start + MAGIC_LEN + KEY_LEN + 8,
		XXH3_64bits(out->data + start + HEADER_LEN,
			    out->len - start - HEADER_LEN));
	return 0;
}

/* What the walk cannot see: indices inside the graph, rules bound. */
static int
graph_ok(const struct graph *g)
{
	size_t i, k;

	for (i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];

		if (n->index != i || g->by_id[i] >= g->n_nodes ||
		    (n->kind == GRAPH_NODE_RELEASE ? !n->release : !n->rule))
			return 0;
		for (k = 0; k < n->n_deps; k++)
			if (n->deps[k] >= g->n_nodes)
				return 0;
		for (k = 0; k < n->n_rdeps; k++)
			if (n->rdeps[k] >= g->n_nodes)
				return 0;
	}
	return 1;
}

int
graph_model_decode(const void *row, size_t len, const char *key,
		   const char *display, struct rules **r, struct graph **g)
{
	const unsigned char *p = row;
	struct image_reader rd;
	struct rules *nr = NULL;
	struct graph *ng = NULL;
	struct arena arena;
	void *vr, *vg;
	uint64_t n;
	char why[160];
	int rc;

	*r = NULL;
	*g = NULL;
	if (len < HEADER_LEN || memcmp(p, GRAPH_MODEL_FORMAT,
				       sizeof(GRAPH_MODEL_FORMAT)) ||
	    strlen(key) != KEY_LEN || memcmp(p + MAGIC_LEN, key, KEY_LEN))
		return 1;
	n = get_u64(p + MAGIC_LEN + KEY_LEN);
	if (n != len - HEADER_LEN || n > MAX_BYTES ||
	    get_u64(p + MAGIC_LEN + KEY_LEN + 8) !=
	    XXH3_64bits(p + HEADER_LEN, (size_t)n) ||
	    graph_model_check(why, sizeof(why)))
		return 1;
	nr = mem_calloc(1, sizeof(*nr));
	ng = mem_calloc(1, sizeof(*ng));
	if (!nr || !ng)
		goto nomem;
	arena_init(&nr->arena);
	rc = image_unpack(&rd, p + HEADER_LEN, (size_t)n, &nr->arena);
	if (rc == ERROR_NOMEM)
		goto nomem;
	if (rc || image_read(&rd, &rules_image_rules, &vr) ||
	    image_read(&rd, &graph_t, &vg) || image_read_end(&rd) ||
	    !graph_ok(vg))
		goto miss;
	arena = nr->arena;
	memcpy(nr, vr, sizeof(*nr));
	nr->arena = arena;
	nr->file = arena_strdup(&nr->arena, display ? display : "ripple.yml");
	memcpy(ng, vg, sizeof(*ng));
	arena_init(&ng->arena);
	ng->rules = nr;
	/* Not indexed (rules_index_names, 0.33 M at 500 rules): with the
	 * graph made, nothing looks names up in bulk; a lookup scans. */
	if (!nr->file)
		goto nomem;
	*r = nr;
	*g = ng;
	return 0;
miss:
	mem_free(ng);
	rules_free(nr);
	return 1;
nomem:
	mem_free(ng);
	rules_free(nr);
	return ERROR_NOMEM;
}
