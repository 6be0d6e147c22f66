/*
 * Node keys and their components. The canonical text of each rule field is
 * JSON-like (quoted strings, arrays) so explanations can show old and new
 * values as people read them.
 */
#include "graph/key.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "graph/graph.h"
#include "graph/key_int.h"
#include "rules/rules.h"
#include "base/banned.h"

/* GRAPH_KEY_SCHEMA as the text "%d" gives. */
#define TEXT_OF(x) #x
#define TEXT_OF_VALUE(x) TEXT_OF(x)
#define SCHEMA_TEXT TEXT_OF_VALUE(GRAPH_KEY_SCHEMA)

/* A kind's name and its length (the key frames both). */
#define KIND_NAME(s) { s, sizeof(s) - 1 }

static const struct {
	const char *s;
	size_t len;
} comp_names[] = {
	[GRAPH_COMP_INPUT] = KIND_NAME("input"),
	[GRAPH_COMP_NODE] = KIND_NAME("node"),
	[GRAPH_COMP_RULE] = KIND_NAME("rule"),
	[GRAPH_COMP_SCHEMA] = KIND_NAME("schema"),
	[GRAPH_COMP_TOOLKIT] = KIND_NAME("toolkit"),
	[GRAPH_COMP_UPSTREAM] = KIND_NAME("upstream"),
};

const char *
graph_comp_kind_name(enum graph_comp_kind kind)
{
	return comp_names[kind].s;
}

int
graph_comp_kind_parse(const char *name, enum graph_comp_kind *kind)
{
	size_t i;

	for (i = 0; i < sizeof(comp_names) / sizeof(comp_names[0]); i++)
		if (!strcmp(comp_names[i].s, name)) {
			*kind = (enum graph_comp_kind)i;
			return 0;
		}
	return ERROR_INVALID;
}

/* A text of one field slot: the last node's, shared by the next nodes
 * whose values are the same. */
struct key_text {
	const char *text;	/* in the keys' arena, or NULL */
	size_t len;
	char hex[33];		/* XXH3-128 of text */
	const struct graph_node *node;	/* whose values gave text, or NULL */
};

/* What graph_keys keeps from node to node (graph_keys_new makes it). */
struct graph_key_scratch {
	const struct graph *graph;	/* the graph of the texts' nodes */
	struct key_text last[KEY_SLOTS];
	struct graph_component *v;	/* a node's components, gathered */
	size_t cap;
	struct buf text;		/* a field's text, being written */
	struct buf frame;		/* what a node's key hashes */
	/* The last framed rule and schema components and their frame:
	 * most nodes share them all (key_frame). */
	struct buf block;
	struct graph_component block_of[KEY_SLOTS];
	size_t block_n;			/* 0: block holds nothing */
};

struct comps {
	struct graph_component *v;
	size_t n, cap;
	struct arena *arena;
	struct graph_key_scratch *s;
	int failed;
};

/* A new component (NULL after a failure), its texts still unset. */
static struct graph_component *
add_comp(struct comps *c, enum graph_comp_kind kind, const char *digest_hex)
{
	struct graph_component *x;

	if (c->failed)
		return NULL;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct graph_component *v = mem_realloc(c->v, cap * sizeof(*v));

		if (!v) {
			c->failed = 1;
			return NULL;
		}
		c->v = v;
		c->cap = cap;
	}
	x = &c->v[c->n++];
	x->kind = kind;
	memcpy(x->digest, digest_hex, 32);
	x->digest[32] = '\0';
	return x;
}

/*
 * A component named name (copied unless it is a literal) with detail
 * (copied unless a literal or NULL: set by the caller).
 */
static void
push(struct comps *c, enum graph_comp_kind kind, const char *name,
     int name_literal, const char *digest_hex, const char *detail,
     int detail_literal)
{
	struct graph_component *x = add_comp(c, kind, digest_hex);

	if (!x)
		return;
	x->name = name_literal ? name : arena_strdup(c->arena, name);
	x->detail = detail && !detail_literal
		? arena_strdup(c->arena, detail) : detail;
	if (!x->name || (detail && !x->detail))
		c->failed = 1;
}

/*
 * A component whose digest is the XXH3-128 of text, for a field kept by
 * slot (name: a literal): the text and digest of the last node are
 * taken when the text is the same, shared in the keys' arena rather
 * than copied. node: whose values gave text (NULL: none to compare).
 */
static void
push_field(struct comps *c, size_t slot, enum graph_comp_kind kind,
	   const char *name, const char *text, const struct graph_node *node)
{
	struct key_text *t = &c->s->last[slot];
	struct graph_component *x;
	size_t len = strlen(text);
	struct digest d;

	if (c->failed)
		return;
	if (!t->text || t->len != len || memcmp(t->text, text, len)) {
		char *copy = arena_strndup(c->arena, text, len);

		if (!copy) {
			c->failed = 1;
			return;
		}
		digest_bytes(text, len, &d);
		t->text = copy;
		t->len = len;
		memcpy(t->hex, d.hex, 33);
	}
	t->node = node;
	x = add_comp(c, kind, t->hex);
	if (x) {
		x->name = name;
		x->detail = t->text;
	}
}

/* A component whose digest is the XXH3-128 of its text. */
static void
push_text(struct comps *c, enum graph_comp_kind kind, const char *name,
	  int name_literal, const char *text)
{
	struct digest d;

	digest_bytes(text, strlen(text), &d);
	push(c, kind, name, name_literal, d.hex, text, 0);
}

/*
 * The rule's fields, pushed in the order sort_comps leaves them (by
 * name), so that it moves none. A field whose values are those of the
 * node that gave its slot's text takes that text unwritten.
 */
static void
rule_components(struct comps *c, const struct graph_node *n)
{
	const struct key_field *f;
	struct buf *b = &c->s->text;
	size_t i, nf;

	f = graph_key_fields(n, &nf);
	for (i = 0; i < nf && !c->failed; i++) {
		struct key_text *t = &c->s->last[f[i].slot];
		struct graph_component *x;

		if (f[i].has && !f[i].has(n))
			continue;
		if (t->text && t->node && f[i].same(t->node, n)) {
			x = add_comp(c, GRAPH_COMP_RULE, t->hex);
			if (x) {
				x->name = f[i].name;
				x->detail = t->text;
			}
			continue;
		}
		buf_reset(b);
		if (f[i].text(b, n)) {
			c->failed = 1;
			break;
		}
		push_field(c, f[i].slot, GRAPH_COMP_RULE, f[i].name, b->data, n);
	}
}

static int
cmp_comp(const void *x, const void *y)
{
	const struct graph_component *a = x, *b = y;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * Sort by (kind, name), as qsort with cmp_comp would: insertion, stable.
 * The components arrive in order but for a node's own inputs and
 * upstreams (node_key pushes them by kind, the fields by name), where
 * qsort's merge sort cost 2,700 instructions a node, and this one 1,200
 * while the fields came in the rules' order; one in its place is not
 * copied.
 */
static void
sort_comps(struct graph_component *v, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct graph_component x;

		if (cmp_comp(&v[i - 1], &v[i]) <= 0)
			continue;
		x = v[i];
		for (j = i; j > 0 && cmp_comp(&v[j - 1], &x) > 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Append n bytes prefixed with n as a little-endian u64 (the framing of
 * graph/digest.h's digest_add) to b, whose room the caller made. */
static void
frame_str(struct buf *b, const char *s, size_t n)
{
	unsigned char *d = (unsigned char *)b->data + b->len;

	digest_put_u64le(d, n);
	memcpy(d + 8, s, n);
	b->len += 8 + n;
	b->data[b->len] = '\0';
}

/* Frame components v[0..n) into b: kind, name and digest of each. */
static int
frame_comps(struct buf *b, const struct graph_component *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		/* A NULL name frames as "", as digest_add_str(NULL) did. */
		const char *name = v[i].name ? v[i].name : "";
		size_t ln = strlen(name), ld = strlen(v[i].digest);
		size_t lk = comp_names[v[i].kind].len;

		if (buf_grow(b, 24 + lk + ln + ld, NULL))
			return ERROR_NOMEM;
		frame_str(b, comp_names[v[i].kind].s, lk);
		frame_str(b, name, ln);
		frame_str(b, v[i].digest, ld);
	}
	return 0;
}

/* The domain tag, framed: what every key's hash input starts with. */
static int
frame_begin(struct buf *b)
{
	static const char domain[] = "ripple-key-v1";

	buf_reset(b);
	if (buf_grow(b, 8 + sizeof(domain) - 1, NULL))
		return ERROR_NOMEM;
	frame_str(b, domain, sizeof(domain) - 1);
	return 0;
}

/*
 * The key hashes, in one call of XXH3-128, what a streaming hasher fed
 * digest_add(kind), digest_add(name), digest_add(digest) for each
 * component after the domain tag would: the same value (XXH3's stream
 * and one-shot forms agree), without the stream's per-call cost.
 */
int
graph_key_from_components(const struct graph_component *c, size_t n,
			  struct digest *out, struct error *err)
{
	struct buf b;
	int rc;

	/* No key at all rather than a made-up one: two nodes given the
	 * same all-zero key would reuse each other's outputs. */
	buf_init(&b, 0);
	rc = frame_begin(&b);
	if (!rc)
		rc = frame_comps(&b, c, n);
	if (rc) {
		buf_release(&b);
		return error_nomem(err);
	}
	digest_bytes(b.data, b.len, out);
	buf_release(&b);
	return 0;
}

/* Whether v[0..n) are the components s->block framed (same kind, name
 * and digest: all the frame holds). Names are literals (push_field). */
static int
block_same(const struct graph_key_scratch *s, const struct graph_component *v,
	   size_t n)
{
	size_t i;

	if (!s->block_n || n != s->block_n)
		return 0;
	for (i = 0; i < n; i++)
		if (v[i].kind != s->block_of[i].kind ||
		    v[i].name != s->block_of[i].name ||
		    memcmp(v[i].digest, s->block_of[i].digest, 32))
			return 0;
	return 1;
}

/*
 * A node's key from its sorted components v[0..n), as
 * graph_key_from_components gives it: the rule and schema components'
 * frame is the last node's when they are the same (most nodes share
 * every field), else framed and kept for the next node.
 */
static int
key_frame(struct graph_key_scratch *s, const struct graph_component *v,
	  size_t n, struct digest *out, struct error *err)
{
	size_t lo, hi;
	int rc;

	for (lo = 0; lo < n && v[lo].kind < GRAPH_COMP_RULE; lo++)
		;
	for (hi = lo; hi < n && v[hi].kind <= GRAPH_COMP_SCHEMA; hi++)
		;
	if (!block_same(s, v + lo, hi - lo)) {
		s->block_n = 0;
		buf_reset(&s->block);
		if (frame_comps(&s->block, v + lo, hi - lo))
			return error_nomem(err);
		if (hi - lo <= KEY_SLOTS) {
			memcpy(s->block_of, v + lo, (hi - lo) * sizeof(*v));
			s->block_n = hi - lo;
		}
	}
	rc = frame_begin(&s->frame);
	if (!rc)
		rc = frame_comps(&s->frame, v, lo);
	if (!rc)
		rc = buf_add(&s->frame, s->block.data, s->block.len, NULL);
	if (!rc)
		rc = frame_comps(&s->frame, v + hi, n - hi);
	if (rc)
		return error_nomem(err);
	digest_bytes(s->frame.data, s->frame.len, out);
	return 0;
}

/*
 * The digest of output groups `groups` ("lib" or "lib,tests") of up: the
 * group's own digest, or, for several, XXH3-128 of "GROUP=DIGEST\n" for
 * each. 1 when every one is known, else 0.
 */
static int
groups_digest(const struct graph_key_sources *src,
	      const struct graph_node *up, const char *groups,
	      struct digest *out)
{
	char name[256], text[4096];
	size_t len = 0;
	const char *p = groups;
	struct digest d;

	if (!src->group_digest)
		return 0;
	if (!strchr(groups, ','))
		return src->group_digest(src->payload, up, groups, out) == 1;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n >= sizeof(name) || len + n + 40 > sizeof(text))
			return 0;
		memcpy(name, p, n);
		name[n] = '\0';
		if (src->group_digest(src->payload, up, name, &d) != 1)
			return 0;
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%s=%s\n", name, d.hex);
		p += n + (p[n] == ',');
	}
	digest_bytes(text, len, out);
	return 1;
}

static int
node_key(const struct graph *g, const struct graph_node *n,
	 struct graph_keys *keys, const struct graph_key_sources *src,
	 struct error *err)
{
	struct graph_key_scratch *s = keys->scratch;
	struct graph_node_key *k = &keys->keys[n->index];
	struct comps c = { s->v, 0, s->cap, &keys->arena, s, 0 };
	const char *ident = NULL;
	size_t i;
	int rc = 0;

	if (s->graph != g) {
		/* The texts' nodes are compared by value: only in theirs. */
		for (i = 0; i < KEY_SLOTS; i++)
			s->last[i].node = NULL;
		s->graph = g;
	}
	/* Pushed by kind in sort_comps' order (input, node, rule, schema,
	 * toolkit, upstream); the callbacks asked in the order they were. */
	if (n->toolkit) {
		if (src->toolkit_identity) {
			rc = src->toolkit_identity(src->payload, n->toolkit,
						   &ident, err);
			if (rc)
				goto done;
		}
		if (!ident) {
			/* The whole pin, never a fixed buffer's worth (names
			 * are at most 128 bytes today; nothing here should
			 * depend on that). */
			ident = arena_printf(&keys->arena, "%s %s",
					     n->toolkit->name,
					     n->toolkit->version);
			if (!ident) {
				rc = error_nomem(err);
				goto done;
			}
		}
	}
	for (i = 0; i < n->n_inputs; i++) {
		struct digest d;

		rc = src->source_key(src->payload, &n->inputs[i], &d, err);
		if (rc)
			goto done;
		/* The detail, the digest's text, points at the kept
		 * component's own digest (below). */
		push(&c, GRAPH_COMP_INPUT, n->inputs[i].name, 0, d.hex, NULL,
		     1);
	}
	push_text(&c, GRAPH_COMP_NODE, "id", 1, n->id);
	rule_components(&c, n);
	push_field(&c, KEY_SLOT_SCHEMA, GRAPH_COMP_SCHEMA, "key-schema",
		   SCHEMA_TEXT, NULL);
	if (n->toolkit)
		push_text(&c, GRAPH_COMP_TOOLKIT, n->toolkit->name, 0, ident);
	for (i = 0; i < n->n_deps; i++) {
		const struct graph_node *up = &g->nodes[n->deps[i]];
		const char *group = n->dep_groups ? n->dep_groups[i] : NULL;
		struct digest d;
		char detail[300];

		if (group) {
			/* Only that part's bytes: no fallback to the whole
			 * output, which would key on the other parts. */
			snprintf(detail, sizeof(detail), "output %s", group);
			if (groups_digest(src, up, group, &d) == 1) {
				push(&c, GRAPH_COMP_UPSTREAM, up->id, 0, d.hex,
				     detail, 0);
				k->cutoff = 1;
			} else {
				push(&c, GRAPH_COMP_UPSTREAM, up->id, 0,
				     keys->keys[up->index].key.hex, "key", 1);
			}
		} else if (src->output_digest &&
		    src->output_digest(src->payload, up, &d) == 1) {
			push(&c, GRAPH_COMP_UPSTREAM, up->id, 0, d.hex,
			     "output", 1);
			k->cutoff = 1;
		} else {
			push(&c, GRAPH_COMP_UPSTREAM, up->id, 0,
			     keys->keys[up->index].key.hex, "key", 1);
		}
	}
	if (c.failed) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	sort_comps(c.v, c.n);
	k->components = arena_memdup(&keys->arena, c.v,
				     c.n * sizeof(*c.v));
	if (!k->components) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	k->n_components = c.n;
	for (i = 0; i < c.n && k->components[i].kind == GRAPH_COMP_INPUT; i++)
		k->components[i].detail = k->components[i].digest;
	rc = key_frame(s, k->components, c.n, &k->key, err);
	if (rc)
		goto done;
	k->computed = 1;
done:
	/* Kept for the next node (graph_keys_free frees it). */
	s->v = c.v;
	s->cap = c.cap;
	if (rc)
		error_node(err, n->id);
	return rc;
}

int
graph_keys_new(const struct graph *g, struct graph_keys **out,
	       struct error *err)
{
	struct graph_keys *keys = mem_calloc(1, sizeof(*keys));

	*out = NULL;
	if (!keys)
		return error_set(err, ERROR_NOMEM, "out of memory");
	arena_init(&keys->arena);
	keys->n = g->n_nodes;
	keys->keys = arena_alloc(&keys->arena,
				 (g->n_nodes + 1) * sizeof(*keys->keys));
	keys->scratch = mem_calloc(1, sizeof(*keys->scratch));
	if (!keys->keys || !keys->scratch) {
		graph_keys_free(keys);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	buf_init(&keys->scratch->text, 0);
	buf_init(&keys->scratch->frame, 0);
	buf_init(&keys->scratch->block, 0);
	*out = keys;
	return 0;
}

int
graph_keys_node(const struct graph *g, struct graph_keys *keys, size_t index,
		const struct graph_key_sources *src, struct error *err)
{
	const struct graph_node *n = &g->nodes[index];
	size_t i;

	for (i = 0; i < n->n_deps; i++)
		if (!keys->keys[n->deps[i]].computed)
			return error_set(err, ERROR_INTERNAL,
					 "key of '%s' needed before it is "
					 "computed", g->nodes[n->deps[i]].id);
	keys->keys[index].cutoff = 0;
	return node_key(g, n, keys, src, err);
}

int
graph_keys_compute(const struct graph *g, const unsigned char *mask,
		   const struct graph_key_sources *src,
		   struct graph_keys **out, struct error *err)
{
	struct graph_keys *keys = NULL;
	unsigned char *want = mem_calloc(g->n_nodes + 1, 1);
	size_t i, k;
	int rc = 0;

	*out = NULL;
	if (!want)
		return error_set(err, ERROR_NOMEM, "out of memory");
	rc = graph_keys_new(g, &keys, err);
	if (rc)
		goto done;
	for (i = 0; i < g->n_nodes; i++)
		want[i] = mask ? mask[i] : 1;
	for (i = g->n_nodes; i-- > 0;)
		if (want[i])
			for (k = 0; k < g->nodes[i].n_deps; k++)
				want[g->nodes[i].deps[k]] = 1;
	for (i = 0; !rc && i < g->n_nodes; i++)
		if (want[i])
			rc = graph_keys_node(g, keys, i, src, err);
done:
	mem_free(want);
	if (rc) {
		graph_keys_free(keys);
		return rc;
	}
	*out = keys;
	return 0;
}

void
graph_keys_free(struct graph_keys *k)
{
	if (!k)
		return;
	if (k->scratch) {
		mem_free(k->scratch->v);
		buf_release(&k->scratch->text);
		buf_release(&k->scratch->frame);
		buf_release(&k->scratch->block);
		mem_free(k->scratch);
	}
	arena_release(&k->arena);
	mem_free(k);
}
