/*
 * libyaml events into a tree of rules_ynode with positions: an explicit
 * stack (no recursion over the input), a depth limit, aliases sharing the
 * anchored nodes within a node budget, `<<` merge keys, and duplicate-key
 * reports.
 */
#include "rules/yaml.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "rules/load.h"
#include "rules/rules.h"
#include "base/banned.h"

struct frame {
	struct rules_ynode *node;
	struct rules_ynode **items;	/* temporary, mem_realloc'd */
	size_t n, cap;
	const char *anchor;		/* arena, or NULL */
};

struct builder {
	struct rules_load *L;
	const char *text;
	size_t len;
	struct frame stack[RULES_YAML_MAX_DEPTH + 1];
	size_t depth;
	struct strmap anchors;		/* name -> node; a later one wins */
	struct rules_ynode *root;
	int docs;
};

static struct rules_ynode *
new_node(struct builder *b, enum rules_ynode_kind kind, const yaml_mark_t *m)
{
	struct rules_ynode *n;

	if (b->L->n_nodes >= RULES_YAML_MAX_NODES) {
		rules_load_error_at(b->L, (unsigned)m->line + 1,
				    (unsigned)m->column + 1,
				    "aliases may expand exponentially; use fewer",
				    "more than %d YAML nodes", RULES_YAML_MAX_NODES);
		return NULL;
	}
	n = rules_load_alloc(b->L, sizeof(*n));
	if (!n)
		return NULL;
	b->L->n_nodes++;
	n->kind = kind;
	n->line = (unsigned)m->line + 1;
	n->col = (unsigned)m->column + 1;
	return n;
}

static int
push_item(struct rules_load *L, struct frame *f, struct rules_ynode *n)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		struct rules_ynode **v = mem_realloc(f->items, cap * sizeof(*v));

		if (!v)
			return rules_load_nomem(L);
		f->items = v;
		f->cap = cap;
	}
	f->items[f->n++] = n;
	return 0;
}

static int
add_anchor(struct builder *b, const char *name, struct rules_ynode *n)
{
	if (strmap_put(&b->anchors, name, n, NULL))
		return rules_load_nomem(b->L);
	return 0;
}

static struct rules_ynode *
find_anchor(const struct builder *b, const char *name)
{
	return strmap_get(&b->anchors, name);
}

/*
 * Count what an alias stands for against the node budget and the depth
 * limit, as copying it would, node by node in the same order (so the same
 * error comes first). 0, or -1 after reporting.
 */
static int
count_node(struct builder *b, const struct rules_ynode *src, size_t depth,
	   const yaml_mark_t *m)
{
	size_t i, k;

	if (src->kind != RULES_YNODE_SCALAR && depth >= RULES_YAML_MAX_DEPTH) {
		rules_load_error_at(b->L, (unsigned)m->line + 1,
				    (unsigned)m->column + 1, NULL,
				    "nesting deeper than %d levels",
				    RULES_YAML_MAX_DEPTH);
		return -1;
	}
	if (b->L->n_nodes >= RULES_YAML_MAX_NODES) {
		rules_load_error_at(b->L, (unsigned)m->line + 1,
				    (unsigned)m->column + 1,
				    "aliases may expand exponentially; use fewer",
				    "more than %d YAML nodes", RULES_YAML_MAX_NODES);
		return -1;
	}
	b->L->n_nodes++;
	if (src->kind == RULES_YNODE_SCALAR)
		return 0;
	k = src->kind == RULES_YNODE_MAP ? 2 * src->n : src->n;
	for (i = 0; i < k; i++)
		if (count_node(b, src->items[i], depth + 1, m))
			return -1;
	return 0;
}

/*
 * An alias: a new node (for the alias's position) over the anchored
 * node's children, shared, not copied: the tree is read-only once built,
 * as `<<` merges already share. The budget still counts every node the
 * alias stands for, so an alias bomb stops at the same limit, after
 * counting a million nodes rather than allocating them (1.5 s).
 */
static struct rules_ynode *
copy_node(struct builder *b, const struct rules_ynode *src, size_t depth,
	  const yaml_mark_t *m)
{
	struct rules_ynode *n;

	if (count_node(b, src, depth, m))
		return NULL;
	n = rules_load_alloc(b->L, sizeof(*n));
	if (!n)
		return NULL;
	*n = *src;
	return n;
}

static int
cmp_key(const void *pa, const void *pb)
{
	const struct rules_ynode *a = *(const struct rules_ynode *const *)pa;
	const struct rules_ynode *b = *(const struct rules_ynode *const *)pb;
	int c = strcmp(a->str, b->str);

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->col < b->col ? -1 : a->col > b->col;
}

static int
is_merge_key(const struct rules_ynode *k)
{
	return k->kind == RULES_YNODE_SCALAR && k->plain && !strcmp(k->str, "<<");
}

/*
 * Append the pairs of map src not yet present in f (merge keys); `keys`
 * holds f's keys (a map, not a scan per key: merging two maps of 30,000
 * keys took 7 s).
 */
static int
merge_from(struct builder *b, struct frame *f, const struct rules_ynode *src,
	   const struct rules_ynode *at, struct strmap *keys)
{
	size_t i;

	if (src->kind != RULES_YNODE_MAP) {
		rules_load_error(b->L, at, NULL,
				 "'<<' merges a map or a list of maps, got %s",
				 rules_ynode_kind_name(src));
		return 0;
	}
	for (i = 0; i < src->n; i++) {
		struct rules_ynode *k = src->items[2 * i];

		if (k->kind == RULES_YNODE_SCALAR && strmap_get(keys, k->str))
			continue;
		if (push_item(b->L, f, k) || push_item(b->L, f, src->items[2 * i + 1]))
			return -1;
		if (k->kind == RULES_YNODE_SCALAR &&
		    strmap_put(keys, k->str, k, NULL))
			return rules_load_nomem(b->L);
	}
	return 0;
}

/* Close a map: apply merges, drop and report duplicate keys. */
static int
cmp_ptr(const void *pa, const void *pb)
{
	uintptr_t a = (uintptr_t)*(void *const *)pa;
	uintptr_t b = (uintptr_t)*(void *const *)pb;

	return a < b ? -1 : a > b;
}

static int
finish_map(struct builder *b, struct frame *f)
{
	struct rules_ynode **keys = NULL, **merges = NULL;
	struct strmap have = STRMAP_INIT;
	size_t i, j, first, n_pairs = f->n / 2, n_merges = 0;
	int rc = 0;

	/* Take merge pairs out, keep explicit pairs in order. */
	merges = mem_calloc(n_pairs ? n_pairs : 1, sizeof(*merges));
	if (!merges)
		return rules_load_nomem(b->L);
	for (i = j = 0; i < n_pairs; i++) {
		struct rules_ynode *k = f->items[2 * i];

		if (is_merge_key(k)) {
			merges[n_merges++] = f->items[2 * i + 1];
			continue;
		}
		if (k->kind != RULES_YNODE_SCALAR) {
			rules_load_error(b->L, k, NULL,
					 "mapping keys must be strings, got %s",
					 rules_ynode_kind_name(k));
			continue;
		}
		f->items[2 * j] = k;
		f->items[2 * j + 1] = f->items[2 * i + 1];
		j++;
	}
	f->n = 2 * j;
	n_pairs = j;
	/* Duplicates among the explicit keys: report the later ones. */
	if (n_pairs > 1) {
		struct rules_ynode **dups;
		size_t n_dups = 0;

		keys = mem_calloc(2 * n_pairs, sizeof(*keys));
		if (!keys) {
			rc = rules_load_nomem(b->L);
			goto done;
		}
		for (i = 0; i < n_pairs; i++)
			keys[i] = f->items[2 * i];
		qsort(keys, n_pairs, sizeof(*keys), cmp_key);
		dups = keys + n_pairs;	/* the second half */
		for (i = 1, first = 0; i < n_pairs; i++) {
			if (strcmp(keys[i]->str, keys[i - 1]->str)) {
				first = i;
				continue;
			}
			rules_load_error(b->L, keys[i], NULL,
					 "duplicate key '%s' (first at line %u)",
					 keys[i]->str, keys[first]->line);
			dups[n_dups++] = keys[i];
		}
		if (n_dups) {
			/* Sorted by address: one search per pair, not a scan
			 * (a map repeating one key 30,000 times took 2.5 s). */
			qsort(dups, n_dups, sizeof(*dups), cmp_ptr);
			for (i = j = 0; i < n_pairs; i++) {
				if (bsearch(&f->items[2 * i], dups, n_dups,
					    sizeof(*dups), cmp_ptr))
					continue;
				f->items[2 * j] = f->items[2 * i];
				f->items[2 * j + 1] = f->items[2 * i + 1];
				j++;
			}
			f->n = 2 * j;
		}
	}
	for (i = 0; n_merges && i < f->n / 2; i++)
		if (strmap_put(&have, f->items[2 * i]->str, f->items[2 * i],
			       NULL)) {
			rc = rules_load_nomem(b->L);
			goto done;
		}
	for (i = 0; i < n_merges; i++) {
		const struct rules_ynode *m = merges[i];

		if (m->kind == RULES_YNODE_SEQ) {
			for (j = 0; j < m->n; j++)
				if (merge_from(b, f, m->items[j], m->items[j],
					       &have)) {
					rc = ERROR_NOMEM;
					goto done;
				}
		} else if (merge_from(b, f, m, m, &have)) {
			rc = ERROR_NOMEM;
			goto done;
		}
	}
done:
	strmap_release(&have);
	mem_free(keys);
	mem_free(merges);
	return rc;
}

/* Attach a finished node to its parent (or make it the document). */
static int
attach(struct builder *b, struct rules_ynode *n, const char *anchor)
{
	if (anchor && add_anchor(b, anchor, n))
		return ERROR_NOMEM;
	if (!b->depth) {
		b->root = n;
		return 0;
	}
	return push_item(b->L, &b->stack[b->depth - 1], n);
}

static const char *
anchor_dup(struct builder *b, const yaml_char_t *a)
{
	return a ? rules_load_strdup(b->L, (const char *)a) : NULL;
}

static int
open_container(struct builder *b, enum rules_ynode_kind kind,
	       const yaml_event_t *ev, const yaml_char_t *anchor)
{
	struct frame *f;
	struct rules_ynode *n;

	if (b->depth >= RULES_YAML_MAX_DEPTH) {
		rules_load_error_at(b->L, (unsigned)ev->start_mark.line + 1,
				    (unsigned)ev->start_mark.column + 1,
				    "flatten the structure",
				    "nesting deeper than %d levels",
				    RULES_YAML_MAX_DEPTH);
		return ERROR_INVALID;
	}
	n = new_node(b, kind, &ev->start_mark);
	if (!n)
		return b->L->code ? b->L->code : ERROR_NOMEM;
	f = &b->stack[b->depth++];
	memset(f, 0, sizeof(*f));
	f->node = n;
	if (anchor) {
		f->anchor = anchor_dup(b, anchor);
		if (!f->anchor)
			return ERROR_NOMEM;
	}
	return 0;
}

static int
close_container(struct builder *b)
{
	struct frame *f = &b->stack[b->depth - 1];
	struct rules_ynode *n = f->node;
	int rc;

	if (n->kind == RULES_YNODE_MAP) {
		rc = finish_map(b, f);
		if (rc)
			return rc;
		n->n = f->n / 2;
	} else {
		n->n = f->n;
	}
	n->items = rules_load_alloc(b->L, (f->n ? f->n : 1) * sizeof(*n->items));
	if (!n->items)
		return ERROR_NOMEM;
	if (f->n)
		memcpy(n->items, f->items, f->n * sizeof(*n->items));
	mem_free(f->items);
	f->items = NULL;
	b->depth--;
	return attach(b, n, f->anchor);
}

static int
on_scalar(struct builder *b, const yaml_event_t *ev)
{
	struct rules_ynode *n = new_node(b, RULES_YNODE_SCALAR, &ev->start_mark);
	const char *anchor = NULL;
	char *s;

	if (!n)
		return b->L->code ? b->L->code : ERROR_NOMEM;
	n->len = ev->data.scalar.length;
	s = rules_load_alloc(b->L, n->len + 1);
	if (!s)
		return ERROR_NOMEM;
	memcpy(s, ev->data.scalar.value, n->len);
	n->str = s;
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	if (memchr(s, '\0', n->len))
		rules_load_error(b->L, n, NULL, "NUL character in a string");
	if (ev->data.scalar.anchor) {
		anchor = anchor_dup(b, ev->data.scalar.anchor);
		if (!anchor)
			return ERROR_NOMEM;
	}
	return attach(b, n, anchor);
}

static int
on_alias(struct builder *b, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	struct rules_ynode *src = find_anchor(b, name), *n;

	if (!src) {
		rules_load_error_at(b->L, (unsigned)ev->start_mark.line + 1,
				    (unsigned)ev->start_mark.column + 1,
				    "define it with '&NAME' before use",
				    "unknown anchor '%s'", name);
		return ERROR_INVALID;
	}
	n = copy_node(b, src, b->depth, &ev->start_mark);
	if (!n)
		return b->L->code ? b->L->code : ERROR_NOMEM;
	n->line = (unsigned)ev->start_mark.line + 1;
	n->col = (unsigned)ev->start_mark.column + 1;
	return attach(b, n, NULL);
}

/* Line and column (1-based) of a byte offset. */
static void
offset_pos(const char *text, size_t len, size_t off, unsigned *line,
	   unsigned *col)
{
	size_t i, bol = 0;
	unsigned l = 1;

	if (off > len)
		off = len;
	for (i = 0; i < off; i++)
		if (text[i] == '\n') {
			l++;
			bol = i + 1;
		}
	*line = l;
	*col = (unsigned)(off - bol) + 1;
}

static int
report_parser(struct builder *b, const yaml_parser_t *p)
{
	unsigned line, col;
	const char *prob = p->problem ? p->problem : "unknown problem";

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return rules_load_nomem(b->L);
	case YAML_READER_ERROR:
		offset_pos(b->text, b->len, p->problem_offset, &line, &col);
		if (strstr(prob, "UTF") || strstr(prob, "octet") ||
		    strstr(prob, "Unicode"))
			rules_load_error_at(b->L, line, col,
					    "save the file as UTF-8",
					    "not valid UTF-8 (%s, byte 0x%02x at offset %zu)",
					    prob, (unsigned)p->problem_value & 0xffu,
					    p->problem_offset);
		else
			rules_load_error_at(b->L, line, col,
					    "remove the character or quote it escaped",
					    "cannot read the file: %s (0x%02x at offset %zu)",
					    prob, (unsigned)p->problem_value,
					    p->problem_offset);
		return ERROR_INVALID;
	default:
		line = (unsigned)p->problem_mark.line + 1;
		col = (unsigned)p->problem_mark.column + 1;
		if (p->context)
			rules_load_error_at(b->L, line, col,
					    "check the indentation, colons and quotes",
					    "invalid YAML: %s (%s at line %u)",
					    prob, p->context,
					    (unsigned)p->context_mark.line + 1);
		else
			rules_load_error_at(b->L, line, col,
					    "check the indentation, colons and quotes",
					    "invalid YAML: %s", prob);
		return ERROR_INVALID;
	}
}

static int
on_event(struct builder *b, const yaml_event_t *ev, int *end)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++b->docs > 1) {
			rules_load_error_at(b->L, (unsigned)ev->start_mark.line + 1,
					    (unsigned)ev->start_mark.column + 1,
					    "keep one document; remove the '---'",
					    "more than one YAML document");
			return ERROR_INVALID;
		}
		return 0;
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev);
	case YAML_ALIAS_EVENT:
		return on_alias(b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return open_container(b, RULES_YNODE_SEQ, ev,
				      ev->data.sequence_start.anchor);
	case YAML_MAPPING_START_EVENT:
		return open_container(b, RULES_YNODE_MAP, ev,
				      ev->data.mapping_start.anchor);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return close_container(b);
	case YAML_STREAM_END_EVENT:
		*end = 1;
		return 0;
	default:
		return 0;
	}
}

int
rules_yaml_parse(struct rules_load *L, const char *text, size_t len,
		 struct rules_ynode **out)
{
	struct builder b;
	yaml_parser_t parser;
	yaml_event_t ev;
	int rc = 0, end = 0;
	size_t i;

	*out = NULL;
	memset(&b, 0, sizeof(b));
	b.L = L;
	b.text = text;
	b.len = len;
	if (!yaml_parser_initialize(&parser))
		return rules_load_nomem(L);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!end) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = report_parser(&b, &parser);
			break;
		}
		rc = on_event(&b, &ev, &end);
		yaml_event_delete(&ev);
		if (rc)
			break;
	}
	yaml_parser_delete(&parser);
	for (i = 0; i < b.depth; i++)
		mem_free(b.stack[i].items);
	strmap_release(&b.anchors);
	if (rc)
		return rc;
	*out = b.root;
	return L->code ? L->code : 0;
}

int
rules_ynode_is_null(const struct rules_ynode *n)
{
	if (!n || n->kind != RULES_YNODE_SCALAR || !n->plain)
		return 0;
	if (n->len > 4)
		return 0;	/* most scalars: no compare */
	return !n->len || !strcmp(n->str, "~") || !strcmp(n->str, "null") ||
	       !strcmp(n->str, "Null") || !strcmp(n->str, "NULL");
}

const char *
rules_ynode_kind_name(const struct rules_ynode *n)
{
	if (!n || rules_ynode_is_null(n))
		return "null";
	switch (n->kind) {
	case RULES_YNODE_SEQ:
		return "a list";
	case RULES_YNODE_MAP:
		return "a map";
	default:
		return "a string";
	}
}

struct rules_ynode *
rules_ynode_get(const struct rules_ynode *m, const char *key)
{
	size_t i;

	if (!m || m->kind != RULES_YNODE_MAP)
		return NULL;
	/* The first byte first: a loader asks each map for some twenty
	 * keys it mostly lacks. */
	for (i = 0; i < m->n; i++)
		if (m->items[2 * i]->str[0] == key[0] &&
		    !strcmp(m->items[2 * i]->str, key))
			return m->items[2 * i + 1];
	return NULL;
}

const char *
rules_parser_version(void)
{
	return yaml_get_version_string();
}
