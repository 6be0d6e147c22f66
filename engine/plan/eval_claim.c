/*
 * Which changed paths an evaluation claims (eval_path_claimed) and which
 * are ripple's own (eval_path_own).
 *
 * A path is claimed when some node's input matches it. Every path a
 * pattern matches lies under the pattern's fixed prefix
 * (pattern_fixed_prefix: its leading components without a wildcard; ""
 * for an unanchored pattern), so the inputs are indexed once by those
 * prefixes, and a path is matched only against the inputs indexed under
 * one of its ancestor folders (or ""): a few, not all of them. Only
 * those inputs' patterns are compiled, so `why`, which keys one node's
 * scope, no longer compiles every input of the graph to classify ten
 * changed paths (500 inputs: 5.7 M instructions before, of a 40 M why).
 */
#include "engine/plan/eval.h"
#include "engine/plan/eval_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "graph/graph.h"
#include "graph/outputs.h"
#include "graph/pattern.h"
#include "rules/rules.h"
#include "base/banned.h"

static int
cmp_claim(const void *x, const void *y)
{
	const struct eval_claim *a = x, *b = y;
	int c = strcmp(a->prefix, b->prefix);

	if (c)
		return c;
	return a < b ? -1 : a > b;
}

/*
 * Sort v by prefix, claims of one prefix in the order they came (as
 * qsort with cmp_claim does): by insertion while they come nearly in
 * order (a node's few patterns, the nodes by name: the bench's 1,000
 * claims, which qsort's merge sort took 440,000 instructions to sort),
 * by qsort once a claim has to move far. Insertion keeps equal prefixes
 * in their order, and so does cmp_claim, so either sort, or both one
 * after the other, gives one order.
 */
static void
sort_claims(struct eval_claim *v, size_t n)
{
	size_t i, j, moves = 0;

	for (i = 1; i < n; i++) {
		struct eval_claim x = v[i];

		for (j = i; j > 0 && strcmp(v[j - 1].prefix, x.prefix) > 0;
		     j--)
			v[j] = v[j - 1];
		v[j] = x;
		moves += i - j;
		if (moves > 4 * n) {
			qsort(v, n, sizeof(*v), cmp_claim);
			return;
		}
	}
}

/* Claim `in`; its prefix is the next one in the text (build). */
static int
add(struct eval_claims *c, const struct graph_input *in, struct error *err)
{
	struct eval_claim *v;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;

		v = mem_realloc(c->v, cap * sizeof(*v));
		if (!v)
			return error_set(err, ERROR_NOMEM, "out of memory");
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n].prefix = NULL;
	c->v[c->n++].in = in;
	return 0;
}

/* Index every node's inputs by their include patterns' fixed prefixes
 * (gathered in one buffer: a copy of each cost a fifth of a why's
 * classifying). */
static int
build(struct eval *ev, struct error *err)
{
	struct eval_claims *c = mem_calloc(1, sizeof(*c));
	struct buf b = BUF_INIT;
	const char *p;
	size_t i, k, j, off, len;
	int rc = 0;

	if (!c)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; !rc && i < ev->graph->n_nodes; i++) {
		const struct graph_node *n = &ev->graph->nodes[i];

		for (k = 0; !rc && k < n->n_inputs; k++) {
			const struct graph_input *in = &n->inputs[k];

			for (j = 0; !rc && j < in->n_include; j++) {
				pattern_fixed_prefix_span(in->include[j], &off,
							  &len);
				/* The prefix and its NUL. */
				rc = buf_add(&b, in->include[j] + off, len + 1,
					     err);
				if (!rc) {
					b.data[b.len - 1] = '\0';
					rc = add(c, in, err);
				}
			}
		}
	}
	c->text = rc ? NULL : buf_detach(&b);
	if (!rc && !c->text)
		rc = error_set(err, ERROR_NOMEM, "out of memory");
	buf_release(&b);
	if (rc) {
		eval_claims_free(c);
		return rc;
	}
	for (i = 0, p = c->text; i < c->n; i++) {
		c->v[i].prefix = p;
		p += strlen(p) + 1;
	}
	sort_claims(c->v, c->n);
	ev->claims = c;
	return 0;
}

/* The first claim whose prefix is the n bytes at s, or c->n. */
static size_t
first_of(const struct eval_claims *c, const char *s, size_t n)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *p = c->v[mid].prefix;
		int d = strncmp(p, s, n);

		if (!d && p[n])
			d = 1;	/* longer: after */
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->n && !strncmp(c->v[lo].prefix, s, n) &&
	    !c->v[lo].prefix[n])
		return lo;
	return c->n;
}

/*
 * 1 when an input indexed under the folder path[0..n) ("" for n 0, or
 * the whole path) matches path; 0 when none; a (negative) error
 * compiling one.
 */
static int
match_under(struct eval *ev, const char *path, size_t n, struct error *err)
{
	const struct eval_claims *c = ev->claims;
	const struct pattern_set *set;
	size_t i;
	int rc;

	for (i = first_of(c, path, n); i < c->n; i++) {
		if (strncmp(c->v[i].prefix, path, n) || c->v[i].prefix[n])
			break;
		rc = eval_input_set(ev, c->v[i].in, &set, err);
		if (rc)
			return rc;
		if (pattern_set_match(set, path))
			return 1;
	}
	return 0;
}

int
eval_path_claimed(struct eval *ev, const char *path, int *ignored,
		  struct error *err)
{
	const struct rules_policy *pol = &ev->rules->policy;
	size_t i, k;
	int rc;

	*ignored = 0;
	for (i = 0; i < pol->n_ignore; i++)
		if (pattern_match(pol->ignore[i], path)) {
			*ignored = 1;
			return 1;
		}
	if (!ev->claims) {
		rc = build(ev, err);
		if (rc)
			return rc;
	}
	/* "", then every folder above path, then path itself. */
	for (i = 0;; i++) {
		if (!i || !path[i] || path[i] == '/') {
			rc = match_under(ev, path, i, err);
			if (rc)
				return rc < 0 ? rc : 1;
		}
		if (!path[i])
			break;
	}
	for (i = 0; i < ev->graph->n_nodes; i++) {
		const struct graph_node *n = &ev->graph->nodes[i];

		for (k = 0; k < n->n_inputs; k++)
			if (!strncmp(n->inputs[k].name, "root.sources:", 13) &&
			    pattern_match(n->inputs[k].include[0], path))
				return 1;
	}
	return 0;
}

int
eval_path_own(const struct eval *ev, const char *path)
{
	size_t i;

	if (ev->own_rules && !strcmp(path, ev->own_rules))
		return 1;
	for (i = 0; i < ev->own.n; i++)
		if (graph_glob_match(ev->own.v[i], path))
			return 1;
	return 0;
}
