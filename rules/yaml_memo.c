/*
 * The parsed YAML tree of a rules file as bytes, so a later load of the
 * same text skips libyaml (most of a warm plan's rules load: 24 M of 31 M
 * instructions on a 1,000-line file). The bytes are remembered by the
 * text (rules_files.memo, the cache's rules_trees table); they
 * are data from a file on disk, so reading them checks every count and
 * bound, and anything that does not decode is a miss (the text is parsed).
 *
 * Encoding "ripple-ytree-v1": the magic, the parse's node count (u32,
 * its alias budget, restored as it was),
 * then the nodes in post-order (children before their container; an alias
 * written out again where it stands), each as kind (u8: 0 scalar, 1
 * sequence, 2 map), line and column (u32 each), then for a scalar plain
 * (u8), length (u32) and the bytes, for a container its item count (u32:
 * a map's pairs twice over), and last the XXH3-64 of everything before
 * it (8 bytes), so a damaged row is a miss, never other rules. Integers
 * are little-endian.
 */
#include "rules/yaml.h"

#include <stdint.h>
#include <string.h>
#include <xxhash.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "rules/load.h"
#include "rules/rules.h"
#include "base/banned.h"

#define MAGIC RULES_TREE_FORMAT
#define MAGIC_LEN 15
/* Trees larger than this are parsed every time (an alias-heavy file). */
#define MAX_BYTES (16u << 20)

static int
put_u32(struct buf *b, uint32_t v)
{
	unsigned char x[4];

	x[0] = (unsigned char)(v & 0xff);
	x[1] = (unsigned char)((v >> 8) & 0xff);
	x[2] = (unsigned char)((v >> 16) & 0xff);
	x[3] = (unsigned char)(v >> 24);
	return buf_add(b, x, 4, NULL);
}

static int
put_node(struct buf *b, const struct rules_ynode *n)
{
	size_t i, items;
	unsigned char kind = (unsigned char)n->kind;
	int rc = 0;

	items = n->kind == RULES_YNODE_MAP ? 2 * n->n : n->n;
	if (n->kind != RULES_YNODE_SCALAR)
		for (i = 0; !rc && i < items; i++)
			rc = put_node(b, n->items[i]);
	if (!rc && (b->len > MAX_BYTES || n->len > UINT32_MAX ||
		    items > UINT32_MAX))
		return ERROR_INVALID;
	if (!rc)
		rc = buf_add(b, &kind, 1, NULL);
	if (!rc)
		rc = put_u32(b, n->line);
	if (!rc)
		rc = put_u32(b, n->col);
	if (rc || n->kind != RULES_YNODE_SCALAR)
		return rc ? rc : put_u32(b, (uint32_t)items);
	kind = n->plain ? 1 : 0;
	rc = buf_add(b, &kind, 1, NULL);
	if (!rc)
		rc = put_u32(b, (uint32_t)n->len);
	if (!rc)
		rc = buf_add(b, n->str, n->len, NULL);
	return rc;
}

int
rules_ytree_encode(const struct rules_ynode *root, size_t n_nodes,
		   struct buf *out)
{
	int rc;

	buf_reset(out);
	if (!root || n_nodes > RULES_YAML_MAX_NODES)
		return ERROR_INVALID;
	rc = buf_add(out, MAGIC, MAGIC_LEN, NULL);
	if (!rc)
		rc = put_u32(out, (uint32_t)n_nodes);
	if (!rc)
		rc = put_node(out, root);	/* depth <= RULES_YAML_MAX_DEPTH */
	if (!rc) {
		uint64_t h = XXH3_64bits(out->data, out->len);

		rc = put_u32(out, (uint32_t)(h & 0xffffffffu));
		if (!rc)
			rc = put_u32(out, (uint32_t)(h >> 32));
	}
	return rc;
}

struct reader {
	const unsigned char *p, *end;
};

static int
get_u32(struct reader *r, uint32_t *v)
{
	if (r->end - r->p < 4)
		return -1;
	*v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 |
	     (uint32_t)r->p[2] << 16 | (uint32_t)r->p[3] << 24;
	r->p += 4;
	return 0;
}

struct slot {
	struct rules_ynode *node;
	unsigned depth;		/* levels of the subtree */
};

int
rules_ytree_decode(struct rules_load *L, const void *data, size_t len,
		   struct rules_ynode **out)
{
	struct reader r = { data, (const unsigned char *)data + len };
	struct slot *stack = NULL;
	size_t n = 0, cap = 0, made = 0, i;
	uint32_t count, line, col, m;
	int rc = 1;

	*out = NULL;
	if (len < MAGIC_LEN + 12 || memcmp(data, MAGIC, MAGIC_LEN))
		return 1;
	r.end -= 8;
	{
		uint64_t h = XXH3_64bits(data, len - 8);
		uint32_t lo, hi;
		struct reader t = { r.end, r.end + 8 };

		if (get_u32(&t, &lo) || get_u32(&t, &hi) ||
		    ((uint64_t)hi << 32 | lo) != h)
			return 1;
	}
	r.p += MAGIC_LEN;
	if (get_u32(&r, &count) || count > RULES_YAML_MAX_NODES)
		return 1;
	while (r.p < r.end) {
		struct rules_ynode *node;
		unsigned char kind = *r.p++;
		unsigned depth = 1;

		if (kind > RULES_YNODE_MAP || get_u32(&r, &line) ||
		    get_u32(&r, &col) || ++made > RULES_YAML_MAX_NODES)
			goto done;
		node = rules_load_alloc(L, sizeof(*node));
		if (!node) {
			rc = ERROR_NOMEM;
			goto done;
		}
		node->kind = (enum rules_ynode_kind)kind;
		node->line = line;
		node->col = col;
		if (kind == RULES_YNODE_SCALAR) {
			char *s;

			if (r.p >= r.end || *r.p > 1)
				goto done;
			node->plain = *r.p++;
			if (get_u32(&r, &m) || (size_t)(r.end - r.p) < m)
				goto done;
			s = rules_load_alloc(L, (size_t)m + 1);
			if (!s) {
				rc = ERROR_NOMEM;
				goto done;
			}
			memcpy(s, r.p, m);
			s[m] = '\0';
			r.p += m;
			node->str = s;
			node->len = m;
		} else {
			if (get_u32(&r, &m) || m > n ||
			    (kind == RULES_YNODE_MAP && m % 2))
				goto done;
			node->items = rules_load_alloc(
				L, (m ? m : 1) * sizeof(*node->items));
			if (!node->items) {
				rc = ERROR_NOMEM;
				goto done;
			}
			for (i = 0; i < m; i++) {
				struct slot *c = &stack[n - m + i];

				node->items[i] = c->node;
				if (c->depth + 1 > depth)
					depth = c->depth + 1;
				/* Map keys are scalars, as the parser makes
				 * them. */
				if (kind == RULES_YNODE_MAP && i % 2 == 0 &&
				    c->node->kind != RULES_YNODE_SCALAR)
					goto done;
			}
			n -= m;
			node->n = kind == RULES_YNODE_MAP ? m / 2 : m;
			if (depth > RULES_YAML_MAX_DEPTH + 1)
				goto done;
		}
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			struct slot *v = mem_realloc(stack, nc * sizeof(*v));

			if (!v) {
				rc = ERROR_NOMEM;
				goto done;
			}
			stack = v;
			cap = nc;
		}
		stack[n].node = node;
		stack[n].depth = depth;
		n++;
	}
	if (n != 1)
		goto done;
	*out = stack[0].node;
	L->n_nodes = count;
	rc = 0;
done:
	mem_free(stack);
	return rc == ERROR_NOMEM ? rules_load_nomem(L) : rc;
}
