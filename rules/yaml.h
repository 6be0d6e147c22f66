/*
 * Internal to rules/: a YAML document read with libyaml's event API into a
 * small tree of nodes with positions. An alias shares the anchored node's
 * children (the tree is read-only once built), counting every node it
 * stands for against a node budget; `<<` merge keys are applied, and
 * duplicate mapping keys are reported. Building is iterative with a depth
 * limit, so no input can exhaust the C stack.
 */
#ifndef RIPPLE_RULES_YAML_H
#define RIPPLE_RULES_YAML_H

#include <stddef.h>

struct rules_load;

#define RULES_YAML_MAX_DEPTH 64
#define RULES_YAML_MAX_NODES 1000000

enum rules_ynode_kind {
	RULES_YNODE_SCALAR,
	RULES_YNODE_SEQ,
	RULES_YNODE_MAP,
};

struct rules_ynode {
	enum rules_ynode_kind kind;
	const char *str;	/* SCALAR: the text, NUL-terminated (arena) */
	size_t len;		/* SCALAR: bytes */
	int plain;		/* SCALAR: unquoted (so `~`, `null`, `` are null) */
	struct rules_ynode **items;	/* SEQ: n items; MAP: key, value pairs */
	size_t n;		/* SEQ: items; MAP: pairs (items holds 2n) */
	unsigned line, col;	/* 1-based */
};

/*
 * Parse `len` bytes of `text` into *out (nodes in L's arena). An empty
 * stream gives *out NULL and 0. Problems are reported through L (every
 * duplicate key; the first syntax error, which ends the parse). Returns 0,
 * ERROR_INVALID or ERROR_NOMEM.
 */
int rules_yaml_parse(struct rules_load *L, const char *text, size_t len,
		     struct rules_ynode **out);

/* 1 when n is a null scalar (plain `~`, `null`, `Null`, `NULL` or empty). */
int rules_ynode_is_null(const struct rules_ynode *n);

/* "a string", "a list", "a map", "null": for "expected X, got Y". */
const char *rules_ynode_kind_name(const struct rules_ynode *n);

/* The value of `key` in map m, or NULL. */
struct rules_ynode *rules_ynode_get(const struct rules_ynode *m,
				    const char *key);

struct buf;

/*
 * The tree under root as bytes (rules/yaml_memo.c), with n_nodes, the
 * parse's node budget count, and `key` (32 hex digits: what the bytes are
 * remembered under, rules_tree_memo) into *out (emptied first). Returns 0,
 * ERROR_INVALID for a tree too large to remember (16 MiB) or a key that
 * is not 32 characters, or ERROR_NOMEM.
 */
int rules_ytree_encode(const struct rules_ynode *root, size_t n_nodes,
		       const char *key, struct buf *out);

/*
 * The tree of bytes rules_ytree_encode wrote under `key`, rebuilt in L's
 * arena into *out with L->n_nodes restored. Every count and bound is
 * checked: bytes that are not such a tree, or another key's, give 1 (and
 * *out NULL), so a caller parses the text instead. Returns 0, 1, or
 * ERROR_NOMEM (reported through L).
 */
int rules_ytree_decode(struct rules_load *L, const void *data, size_t len,
		       const char *key, struct rules_ynode **out);

#endif
