/*
 * The rules model and the graph of a rules file as one image (base/image.h)
 * for a memo: a warm plan or `why` of an unchanged ripple.yml reads them
 * with one copy and one checked walk instead of decoding its parsed tree,
 * loading, checking and expanding it (8.6 M instructions of why's 26 M at
 * 100k files, 500 rules).
 *
 * Encoding GRAPH_MODEL_FORMAT: the format name (16 bytes, NUL-padded),
 * the key (32 hex digits: a row stored under another key is a miss), the
 * packed image's length and its XXH3-64 (u64 each, little-endian), then
 * the image as image_finish packs it: struct rules, then struct graph,
 * each with all they reach, then the strings. A row that is cut, damaged, of
 * another key or format, or whose image does not read back (every offset
 * and count checked) is a miss: the caller loads and builds afresh.
 *
 * The image is of this build's struct layout: the key must name it
 * (graph_model_layout) and the build, as engine/plan/eval_rules.c's does.
 */
#ifndef RIPPLE_GRAPH_MODEL_MEMO_H
#define RIPPLE_GRAPH_MODEL_MEMO_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct graph;
struct rules;

/* Names the header and what the image holds: a change to the loader or
 * the expansion that gives other models or graphs from the same text
 * needs a new name (the layout is named apart, graph_model_layout). */
#define GRAPH_MODEL_FORMAT "ripple-model-v1"

/* The digest of the struct layout of the model and the graph. */
uint64_t graph_model_layout(void);

/*
 * 0 when every field table of the model and the graph lists its struct
 * whole (image_type_check), else -1 with the first problem in why (n
 * bytes). Until it is 0 nothing is remembered or read.
 */
int graph_model_check(char *why, size_t n);

/*
 * Append the memo row of r and g (g built from r) under `key` (32 hex
 * digits) to out. Returns 0, ERROR_NOMEM, or ERROR_INVALID when they
 * cannot be imaged (a pointer into neither: nothing to remember).
 */
int graph_model_encode(const struct rules *r, const struct graph *g,
		       const char *key, struct buf *out);

/*
 * The model and graph of a row written by graph_model_encode under `key`:
 * 0 with *r (named `display` in messages, its text NULL, its names not
 * indexed: rules_find_* scan until rules_index_names runs) and *g (which
 * borrows *r, its memory in *r's arena: free g first), 1 for a miss
 * (nothing made), or ERROR_NOMEM.
 */
int graph_model_decode(const void *row, size_t len, const char *key,
		       const char *display, struct rules **r,
		       struct graph **g);

#endif
