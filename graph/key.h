/*
 * Node keys: XXH3-128 over a canonical, length-prefixed, versioned encoding
 * of a node's components, kept as a list so `why` and `diff` can name the
 * one component that differs:
 *
 *   schema   key-schema           the encoding's version (GRAPH_KEY_SCHEMA)
 *   node     id                   the canonical node id
 *   rule     FIELD                each expanded rule field (command, env,
 *                                 cwd, outputs, shell, builtin, timeout,
 *                                 gpu, meta; when set: pass-env (names
 *                                 only), container, rewrites; releases:
 *                                 tag, notes, ...)
 *   toolkit  NAME                 the toolkit's pin text, "NAME VERSION"
 *                                 (the CLI probes the toolkit and refuses
 *                                 a pin it disagrees with; the probe is
 *                                 not hashed: docs/keys.md)
 *   input    NAME                 a source input's key
 *   upstream ID                   an upstream node's key, or its output
 *                                 digest once known (early cutoff); for
 *                                 `needs: [NODE.GROUP]`, that group's
 *                                 digest (detail "output GROUP")
 *
 * Components are sorted by (kind, name); the key hashes, in that order,
 * each (kind, name, digest) length-prefixed after the domain tag
 * "ripple-key-v1". Nothing absolute (checkout path, user, time, locale,
 * environment) is hashed. Bump GRAPH_KEY_SCHEMA when the encoding or the
 * set of hashed fields changes; a test pins known vectors.
 */
#ifndef RIPPLE_GRAPH_KEY_H
#define RIPPLE_GRAPH_KEY_H

#include <stddef.h>

#include "base/arena.h"
#include "graph/digest.h"

struct error;
struct graph;
struct graph_input;
struct graph_node;
struct rules_toolkit;

#define GRAPH_KEY_SCHEMA 2	/* 2: source keys of version 2 (folders by tree id) */

enum graph_comp_kind {
	GRAPH_COMP_INPUT,
	GRAPH_COMP_NODE,
	GRAPH_COMP_RULE,
	GRAPH_COMP_SCHEMA,
	GRAPH_COMP_TOOLKIT,
	GRAPH_COMP_UPSTREAM,
};

struct graph_component {
	enum graph_comp_kind kind;
	const char *name;	/* field, toolkit, input name or upstream id */
	char digest[33];	/* hex of what is hashed for this component */
	const char *detail;	/* the value in text: rule field text,
				   toolkit identity, "key" or "output" */
};

struct graph_node_key {
	int computed;		/* 0 for nodes outside the mask */
	struct digest key;
	struct graph_component *components;	/* sorted by kind, name */
	size_t n_components;
	int cutoff;		/* 1: some upstream used its output digest */
};

/* Where keys get what is outside the rules: all callbacks take payload. */
struct graph_key_sources {
	/* Key of a source input at the evaluated state. Required. */
	int (*source_key)(void *payload, const struct graph_input *in,
			  struct digest *out, struct error *err);
	/*
	 * Identity text of a toolkit (NULL callback: "NAME VERSION" from the
	 * pin). The text is copied.
	 */
	int (*toolkit_identity)(void *payload, const struct rules_toolkit *tk,
				const char **identity, struct error *err);
	/*
	 * Output digest of an upstream node when known (reused or just
	 * built): return 1 and fill *out, or 0 when unknown. May be NULL.
	 */
	int (*output_digest)(void *payload, const struct graph_node *node,
			     struct digest *out);
	void *payload;
	/*
	 * Digest of output group `group` of an upstream node when known
	 * (the files its `outputs: {GROUP: [...]}` globs matched): return 1
	 * and fill *out, or 0 when unknown. Used for `needs: [NODE.GROUP]`
	 * edges, which otherwise key on the upstream's key. May be NULL.
	 */
	int (*group_digest)(void *payload, const struct graph_node *node,
			    const char *group, struct digest *out);
};

struct graph_key_scratch;	/* graph/key.c's, from node to node */

struct graph_keys {
	struct graph_node_key *keys;	/* indexed like graph->nodes */
	size_t n;
	struct arena arena;		/* owns components and texts */
	/* Owned: the last node's field texts (most nodes share most of
	 * them), the frame its key hashed, buffers kept for the next. */
	struct graph_key_scratch *scratch;
};

/*
 * Compute keys for the nodes whose byte in `mask` is set (NULL: all) and
 * everything they depend on, in topological order. On success *out owns
 * the keys (free with graph_keys_free). Errors from the callbacks are
 * returned with the node id attached; ERROR_NOMEM.
 */
int graph_keys_compute(const struct graph *g, const unsigned char *mask,
		       const struct graph_key_sources *src,
		       struct graph_keys **out, struct error *err);

/*
 * Incremental use, for planners that decide node by node: allocate empty
 * keys for g (graph_keys_new), then compute one node at a time in
 * topological order (graph_keys_node), its upstream nodes first. Same
 * errors as graph_keys_compute.
 */
int graph_keys_new(const struct graph *g, struct graph_keys **out,
		   struct error *err);
int graph_keys_node(const struct graph *g, struct graph_keys *keys,
		    size_t index, const struct graph_key_sources *src,
		    struct error *err);

/* Free keys. Accepts NULL. */
void graph_keys_free(struct graph_keys *k);

/*
 * Recompute one node's key from (possibly edited) components: the same
 * encoding graph_keys_compute uses. Components must be sorted. Returns 0
 * with *out set, or ERROR_NOMEM (the buffer of what is hashed could not
 * be allocated; *out is then untouched: never a made-up key).
 */
int graph_key_from_components(const struct graph_component *c, size_t n,
			      struct digest *out, struct error *err);

/* "input", "node", "rule", "schema", "toolkit", "upstream". */
const char *graph_comp_kind_name(enum graph_comp_kind kind);

/* Parse a kind name; returns 0 and sets *kind, or ERROR_INVALID. */
int graph_comp_kind_parse(const char *name, enum graph_comp_kind *kind);

#endif
