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

#endif
