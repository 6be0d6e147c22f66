/*
 * Node keys and their components. The canonical text of each rule field is
 * JSON-like (quoted strings, arrays) so explanations can show old and new
 * values as people read them.
 */
#include "graph/key.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "graph/graph.h"
#include "rules/rules.h"
#include "base/banned.h"

/* GRAPH_KEY_SCHEMA as the text "%d" gives. */
#define TEXT_OF(x) #x
#define TEXT_OF_VALUE(x) TEXT_OF(x)
#define SCHEMA_TEXT TEXT_OF_VALUE(GRAPH_KEY_SCHEMA)

static const char *const comp_names[] = {
	[GRAPH_COMP_INPUT] = "input",
	[GRAPH_COMP_NODE] = "node",
	[GRAPH_COMP_RULE] = "rule",
	[GRAPH_COMP_SCHEMA] = "schema",
	[GRAPH_COMP_TOOLKIT] = "toolkit",
	[GRAPH_COMP_UPSTREAM] = "upstream",
};

const char *
graph_comp_kind_name(enum graph_comp_kind kind)
{
	return comp_names[kind];
}

int
graph_comp_kind_parse(const char *name, enum graph_comp_kind *kind)
{
	size_t i;

	for (i = 0; i < sizeof(comp_names) / sizeof(comp_names[0]); i++)
		if (!strcmp(comp_names[i], name)) {
			*kind = (enum graph_comp_kind)i;
			return 0;
		}
	return ERROR_INVALID;
}

/* The add_* helpers return nonzero when any append failed (out of memory). */
static int
add_quoted(struct buf *b, const char *s)
{
	int bad = buf_addch(b, '"', NULL) != 0;
	unsigned char c;
	size_t n;

	while (s && *s) {
		/* A run that needs no escape, copied at once. */
		for (n = 0; (c = (unsigned char)s[n]) && c >= 0x20 &&
			    c != '"' && c != '\\'; n++)
			;
		if (n) {
			bad |= buf_add(b, s, n, NULL) != 0;
			s += n;
			continue;
		}
		if (c == '"' || c == '\\')
			bad |= buf_addf(b, NULL, "\\%c", c) != 0;
		else
			bad |= buf_addf(b, NULL, "\\u%04x", c) != 0;
		s++;
	}
	bad |= buf_addch(b, '"', NULL) != 0;
	return bad;
}

static int
add_list(struct buf *b, const char *const *v, size_t n)
{
	size_t i;
	int bad = buf_addch(b, '[', NULL) != 0;

	for (i = 0; i < n; i++) {
		if (i)
			bad |= buf_addch(b, ',', NULL) != 0;
		bad |= add_quoted(b, v[i]);
	}
	bad |= buf_addch(b, ']', NULL) != 0;
	return bad;
}

static int
add_kvs(struct buf *b, const struct rules_kv *kv, size_t n)
{
	size_t i;
	int bad = buf_addch(b, '{', NULL) != 0;

	for (i = 0; i < n; i++) {
		if (i)
			bad |= buf_addch(b, ',', NULL) != 0;
		bad |= add_quoted(b, kv[i].key);
		bad |= buf_addch(b, ':', NULL) != 0;
		bad |= add_quoted(b, kv[i].value);
	}
	bad |= buf_addch(b, '}', NULL) != 0;
	return bad;
}

struct comps {
	struct graph_component *v;
	size_t n, cap;
	struct arena *arena;
	struct graph_key_text *last;	/* the keys' texts by field slot */
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

static void
push(struct comps *c, enum graph_comp_kind kind, const char *name,
     const char *digest_hex, const char *detail)
{
	struct graph_component *x = add_comp(c, kind, digest_hex);

	if (!x)
		return;
	x->name = arena_strdup(c->arena, name);
	x->detail = detail ? arena_strdup(c->arena, detail) : NULL;
	if (!x->name || (detail && !x->detail))
		c->failed = 1;
}

/*
 * A component whose digest is the XXH3-128 of text, for a field kept by
 * slot (name: a literal): the text and digest of the last node are
 * taken when the text is the same, shared in the keys' arena rather
 * than copied. 500 nodes of the bench hashed and copied 5,500 texts, a
 * few hundred of them different.
 */
static void
push_field(struct comps *c, size_t slot, enum graph_comp_kind kind,
	   const char *name, const char *text)
{
	struct graph_key_text *t = &c->last[slot];
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
	x = add_comp(c, kind, t->hex);
	if (x) {
		x->name = name;
		x->detail = t->text;
	}
}

/* A component whose digest is the XXH3-128 of its text. */
static void
push_text(struct comps *c, enum graph_comp_kind kind, const char *name,
	  const char *text)
{
	struct digest d;

	digest_bytes(text, strlen(text), &d);
	push(c, kind, name, d.hex, text);
}

/* Field slots of push_buf (GRAPH_KEY_FIELDS in all, with the schema). */
enum {
	F_COMMAND, F_ENV, F_CWD, F_OUTPUTS, F_SHELL, F_BUILTIN, F_TIMEOUT,
	F_GPU, F_META, F_PASS_ENV, F_REWRITES, F_CONTAINER, F_TAG,
	F_ARTIFACTS, F_EXCLUDE, F_NOTES, F_SCHEMA,
};

static void
push_buf(struct comps *c, size_t slot, const char *field, struct buf *b)
{
	push_field(c, slot, GRAPH_COMP_RULE, field, b->data);
	buf_reset(b);
}

/*
 * The rule's fields, pushed in the order sort_comps leaves them (by
 * name), so that it moves none: each text is the same as before.
 */
static void
rule_components(struct comps *c, const struct graph_node *n)
{
	struct buf b;
	int bad = 0;

	buf_init(&b, 0);
	if (n->rule) {
		const struct rules_node *r = n->rule;

		bad |= add_quoted(&b, r->builtin ? r->builtin : "");
		push_buf(c, F_BUILTIN, "builtin", &b);
		bad |= add_list(&b, n->argv, n->argc);
		push_buf(c, F_COMMAND, "command", &b);
		/* container: the image reference as written once expanded
		 * (a digest pins the bytes; a tag is keyed as text). The
		 * options (--shm-size, --ulimit) are how, not what. Fields
		 * of issue 26 (container, pass-env, rewrites) enter only
		 * when set, so every key of rules without them stays what
		 * it was. */
		if (n->container_image) {
			bad |= add_quoted(&b, n->container_image);
			push_buf(c, F_CONTAINER, "container", &b);
		}
		bad |= add_quoted(&b, n->cwd ? n->cwd : "");
		push_buf(c, F_CWD, "cwd", &b);
		bad |= add_kvs(&b, n->env, n->n_env);
		push_buf(c, F_ENV, "env", &b);
		/* {"count":%u,"min-cc":"%u.%u","min-memory-mb":%llu} */
		bad |= buf_addstr(&b, "{\"count\":", NULL) != 0;
		bad |= buf_addu64(&b, r->gpu.count, NULL) != 0;
		bad |= buf_addstr(&b, ",\"min-cc\":\"", NULL) != 0;
		bad |= buf_addu64(&b, r->gpu.min_cc_major, NULL) != 0;
		bad |= buf_addch(&b, '.', NULL) != 0;
		bad |= buf_addu64(&b, r->gpu.min_cc_minor, NULL) != 0;
		bad |= buf_addstr(&b, "\",\"min-memory-mb\":", NULL) != 0;
		bad |= buf_addu64(&b, r->gpu.min_memory_mb, NULL) != 0;
		bad |= buf_addch(&b, '}', NULL) != 0;
		push_buf(c, F_GPU, "gpu", &b);
		bad |= add_kvs(&b, r->meta, r->n_meta);
		push_buf(c, F_META, "meta", &b);
		bad |= add_list(&b, n->outputs, n->n_outputs);
		push_buf(c, F_OUTPUTS, "outputs", &b);
		/* pass-env: the names, never a value. */
		if (r->n_pass_env) {
			bad |= add_list(&b, r->pass_env, r->n_pass_env);
			push_buf(c, F_PASS_ENV, "pass-env", &b);
		}
		if (n->n_rewrites) {
			bad |= add_list(&b, n->rewrites, n->n_rewrites);
			push_buf(c, F_REWRITES, "rewrites", &b);
		}
		bad |= buf_addstr(&b, r->shell ? "true" : "false", NULL) != 0;
		push_buf(c, F_SHELL, "shell", &b);
		bad |= buf_addu64(&b, r->timeout_ms, NULL) != 0;
		push_buf(c, F_TIMEOUT, "timeout-ms", &b);
	} else if (n->release) {
		const struct rules_release *r = n->release;

		bad |= add_list(&b, r->artifacts, r->n_artifacts);
		push_buf(c, F_ARTIFACTS, "artifacts", &b);
		bad |= add_list(&b, r->exclude, r->n_exclude);
		push_buf(c, F_EXCLUDE, "exclude", &b);
		bad |= add_quoted(&b, r->notes ? r->notes : "");
		push_buf(c, F_NOTES, "notes", &b);
		bad |= add_quoted(&b, r->tag);
		push_buf(c, F_TAG, "tag", &b);
	}
	if (bad)
		c->failed = 1;
	buf_release(&b);
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
 * while the fields came in the rules' order.
 */
static void
sort_comps(struct graph_component *v, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct graph_component x = v[i];

		for (j = i; j > 0 && cmp_comp(&v[j - 1], &x) > 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

int
graph_key_from_components(const struct graph_component *c, size_t n,
			  struct digest *out, struct error *err)
{
	struct digest_state st;
	size_t i;
	int rc;

	/* No key at all rather than a made-up one: two nodes given the
	 * same all-zero key would reuse each other's outputs. */
	rc = digest_begin(&st, "ripple-key-v1", err);
	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		digest_add_str(&st, comp_names[c[i].kind]);
		digest_add_str(&st, c[i].name);
		digest_add_str(&st, c[i].digest);
	}
	digest_end(&st, out);
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
	struct graph_node_key *k = &keys->keys[n->index];
	struct comps c = { NULL, 0, 0, &keys->arena, keys->last, 0 };
	const char *ident = NULL;
	size_t i;
	int rc = 0;

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
		push(&c, GRAPH_COMP_INPUT, n->inputs[i].name, d.hex, d.hex);
	}
	push_text(&c, GRAPH_COMP_NODE, "id", n->id);
	rule_components(&c, n);
	push_field(&c, F_SCHEMA, GRAPH_COMP_SCHEMA, "key-schema", SCHEMA_TEXT);
	if (n->toolkit)
		push_text(&c, GRAPH_COMP_TOOLKIT, n->toolkit->name, ident);
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
				push(&c, GRAPH_COMP_UPSTREAM, up->id, d.hex,
				     detail);
				k->cutoff = 1;
			} else {
				push(&c, GRAPH_COMP_UPSTREAM, up->id,
				     keys->keys[up->index].key.hex, "key");
			}
		} else if (src->output_digest &&
		    src->output_digest(src->payload, up, &d) == 1) {
			push(&c, GRAPH_COMP_UPSTREAM, up->id, d.hex, "output");
			k->cutoff = 1;
		} else {
			push(&c, GRAPH_COMP_UPSTREAM, up->id,
			     keys->keys[up->index].key.hex, "key");
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
	rc = graph_key_from_components(k->components, c.n, &k->key, err);
	if (rc)
		goto done;
	k->computed = 1;
done:
	mem_free(c.v);
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
	if (!keys->keys) {
		graph_keys_free(keys);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
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
	arena_release(&k->arena);
	mem_free(k);
}
