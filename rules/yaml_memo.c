/*
 * The parsed YAML tree of a rules file as bytes, so a later load of the
 * same text skips libyaml (most of a warm plan's rules load: 24 M of 31 M
 * instructions on a 1,000-line file). The bytes are remembered under a key
 * the caller derives from what the text is (a commit's ripple.yml: its
 * blob id, rules_tree_memo); they are data from a file on disk, so reading
 * them checks every count and bound, and anything that does not decode is
 * a miss (the text is parsed).
 *
 * Encoding "ripple-ytree-v2": the magic, the key (32 hex digits: a row
 * stored under another key is a miss), the parse's node count (u32, its
 * alias budget, restored as it was), then the totals the nodes need (u32
 * each: nodes, scalar bytes with a NUL each, container items) so a load
 * makes three allocations, not one or two a node; then the nodes in
 * post-order (children before their container; an alias written out
 * again where it stands), each as kind (u8: 0 scalar, 1 sequence, 2 map),
 * line and column (u32 each), then for a scalar plain (u8), length (u32)
 * and the bytes, for a container its item count (u32: a map's pairs twice
 * over), and last the XXH3-64 of everything before it (8 bytes), so a
 * damaged row is a miss, never other rules. Integers are little-endian.
 * v1 (no key, no totals) rows are never read: the key's digest names the
 * format.
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
#define KEY_LEN 32
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

/* What the nodes under n need, for the header (struct totals). */
struct totals {
	size_t nodes, bytes, items;
};

static int
put_node(struct buf *b, const struct rules_ynode *n, struct totals *t)
{
	size_t i, items;
	unsigned char kind = (unsigned char)n->kind;
	int rc = 0;

	items = n->kind == RULES_YNODE_MAP ? 2 * n->n : n->n;
	if (n->kind != RULES_YNODE_SCALAR)
		for (i = 0; !rc && i < items; i++)
			rc = put_node(b, n->items[i], t);
	if (!rc && (b->len > MAX_BYTES || n->len > UINT32_MAX ||
		    items > UINT32_MAX))
		return ERROR_INVALID;
	t->nodes++;
	if (!rc)
		rc = buf_add(b, &kind, 1, NULL);
	if (!rc)
		rc = put_u32(b, n->line);
	if (!rc)
		rc = put_u32(b, n->col);
	if (rc || n->kind != RULES_YNODE_SCALAR) {
		t->items += items;
		return rc ? rc : put_u32(b, (uint32_t)items);
	}
	t->bytes += n->len + 1;
	kind = n->plain ? 1 : 0;
	rc = buf_add(b, &kind, 1, NULL);
	if (!rc)
		rc = put_u32(b, (uint32_t)n->len);
	if (!rc)
		rc = buf_add(b, n->str, n->len, NULL);
	return rc;
}

/* A u32 written over 4 bytes at `at` (the header's totals). */
static void
set_u32(struct buf *b, size_t at, uint32_t v)
{
	b->data[at] = (char)(v & 0xff);
	b->data[at + 1] = (char)((v >> 8) & 0xff);
	b->data[at + 2] = (char)((v >> 16) & 0xff);
	b->data[at + 3] = (char)(v >> 24);
}

int
rules_ytree_encode(const struct rules_ynode *root, size_t n_nodes,
		   const char *key, struct buf *out)
{
	struct totals t = { 0, 0, 0 };
	size_t at;
	int rc;

	buf_reset(out);
	if (!root || n_nodes > RULES_YAML_MAX_NODES || !key ||
	    strlen(key) != KEY_LEN)
		return ERROR_INVALID;
	rc = buf_add(out, MAGIC, MAGIC_LEN, NULL);
	if (!rc)
		rc = buf_add(out, key, KEY_LEN, NULL);
	if (!rc)
		rc = put_u32(out, (uint32_t)n_nodes);
	at = out->len;
	if (!rc)
		rc = buf_add(out, "\0\0\0\0\0\0\0\0\0\0\0\0", 12, NULL);
	if (!rc)
		rc = put_node(out, root, &t);	/* depth <= RULES_YAML_MAX_DEPTH */
	if (!rc && (t.nodes > RULES_YAML_MAX_NODES || t.bytes > MAX_BYTES ||
		    t.items > UINT32_MAX))
		rc = ERROR_INVALID;
	if (!rc) {
		uint64_t h;

		set_u32(out, at, (uint32_t)t.nodes);
		set_u32(out, at + 4, (uint32_t)t.bytes);
		set_u32(out, at + 8, (uint32_t)t.items);
		h = XXH3_64bits(out->data, out->len);
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

/* The three blocks the header's totals size, handed out in order. */
struct pools {
	struct rules_ynode *nodes;
	char *bytes;
	struct rules_ynode **items;
	size_t n_nodes, n_bytes, n_items;	/* left in each */
};

static int
pools_make(struct rules_load *L, struct reader *r, struct pools *p)
{
	uint32_t nodes, bytes, items;

	if (get_u32(r, &nodes) || get_u32(r, &bytes) || get_u32(r, &items))
		return 1;
	/* Every node takes at least 9 bytes of the row, every scalar byte
	 * one (its NUL is not stored), every item 4 bytes of some
	 * container's count... so totals past the row's size are lies. */
	if (!nodes || nodes > RULES_YAML_MAX_NODES ||
	    nodes > (size_t)(r->end - r->p) / 9 ||
	    bytes > (size_t)(r->end - r->p) + nodes || items >= nodes)
		return 1;
	p->nodes = rules_load_alloc(L, (size_t)nodes * sizeof(*p->nodes));
	p->bytes = rules_load_alloc(L, bytes ? bytes : 1);
	p->items = rules_load_alloc(L, (items ? items : 1) *
					       sizeof(*p->items));
	if (!p->nodes || !p->bytes || !p->items)
		return ERROR_NOMEM;
	p->n_nodes = nodes;
	p->n_bytes = bytes;
	p->n_items = items;
	return 0;
}

int
rules_ytree_decode(struct rules_load *L, const void *data, size_t len,
		   const char *key, struct rules_ynode **out)
{
	struct reader r = { data, (const unsigned char *)data + len };
	struct slot *stack = NULL;
	struct pools pool;
	size_t n = 0, cap = 0, i;
	uint32_t count, line, col, m;
	int rc = 1;

	*out = NULL;
	if (!key || strlen(key) != KEY_LEN ||
	    len < MAGIC_LEN + KEY_LEN + 16 + 8 ||
	    memcmp(data, MAGIC, MAGIC_LEN) ||
	    memcmp((const char *)data + MAGIC_LEN, key, KEY_LEN))
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
	r.p += MAGIC_LEN + KEY_LEN;
	if (get_u32(&r, &count) || count > RULES_YAML_MAX_NODES)
		return 1;
	rc = pools_make(L, &r, &pool);
	if (rc)
		goto done;
	rc = 1;
	while (r.p < r.end) {
		struct rules_ynode *node;
		unsigned char kind = *r.p++;
		unsigned depth = 1;

		if (kind > RULES_YNODE_MAP || get_u32(&r, &line) ||
		    get_u32(&r, &col) || !pool.n_nodes)
			goto done;
		node = pool.nodes++;
		pool.n_nodes--;
		node->kind = (enum rules_ynode_kind)kind;
		node->line = line;
		node->col = col;
		if (kind == RULES_YNODE_SCALAR) {
			if (r.p >= r.end || *r.p > 1)
				goto done;
			node->plain = *r.p++;
			if (get_u32(&r, &m) || (size_t)(r.end - r.p) < m ||
			    pool.n_bytes < (size_t)m + 1)
				goto done;
			memcpy(pool.bytes, r.p, m);
			pool.bytes[m] = '\0';
			node->str = pool.bytes;
			node->len = m;
			pool.bytes += m + 1;
			pool.n_bytes -= (size_t)m + 1;
			r.p += m;
		} else {
			if (get_u32(&r, &m) || m > n || m > pool.n_items ||
			    (kind == RULES_YNODE_MAP && m % 2))
				goto done;
			/* An empty container's items point at the pool
			 * and are never read (n is 0). */
			node->items = pool.items;
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
			pool.items += m;
			pool.n_items -= m;
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
	/* One tree, and the header's totals exactly spent. */
	if (n != 1 || pool.n_nodes || pool.n_bytes || pool.n_items)
		goto done;
	*out = stack[0].node;
	L->n_nodes = count;
	rc = 0;
done:
	mem_free(stack);
	return rc == ERROR_NOMEM ? rules_load_nomem(L) : rc;
}
