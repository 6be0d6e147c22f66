/*
 * Internal to graph/: the rule fields of a node's key (graph/key_fields.c)
 * as a table that graph/key.c walks. Each field says how its canonical
 * text is written and when two nodes give the same text, so that a node
 * whose values equal the last node's takes that node's text and digest
 * without writing it (500 nodes of the bench wrote 5,000 texts, a few
 * hundred of them different).
 */
#ifndef RIPPLE_GRAPH_KEY_INT_H
#define RIPPLE_GRAPH_KEY_INT_H

#include <stddef.h>

struct buf;
struct graph_node;

/* Slots of the rule fields and the key schema (KEY_SLOTS in all). */
enum key_slot {
	KEY_SLOT_COMMAND, KEY_SLOT_ENV, KEY_SLOT_CWD, KEY_SLOT_OUTPUTS,
	KEY_SLOT_SHELL, KEY_SLOT_BUILTIN, KEY_SLOT_TIMEOUT, KEY_SLOT_GPU,
	KEY_SLOT_META, KEY_SLOT_PASS_ENV, KEY_SLOT_REWRITES,
	KEY_SLOT_CONTAINER, KEY_SLOT_TAG, KEY_SLOT_ARTIFACTS,
	KEY_SLOT_EXCLUDE, KEY_SLOT_NOTES, KEY_SLOT_SCHEMA, KEY_SLOTS
};

struct key_field {
	enum key_slot slot;
	const char *name;	/* the component's name (a literal) */
	/* 1 when n keys this field; NULL: every node of the kind does */
	int (*has)(const struct graph_node *n);
	/*
	 * 1 when a and b give the same text: every value text() reads is
	 * equal (NULL strings read as ""). 0 proves nothing.
	 */
	int (*same)(const struct graph_node *a, const struct graph_node *b);
	/* Append n's canonical text to b; nonzero when an append failed. */
	int (*text)(struct buf *b, const struct graph_node *n);
};

/*
 * The fields of n's key in the order of their names (the order the key
 * sorts them in): a rule's or a release's, with *count set; NULL and 0
 * for a node with neither.
 */
const struct key_field *graph_key_fields(const struct graph_node *n,
					 size_t *count);

#endif
