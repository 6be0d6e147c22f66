/*
 * Output globs: patterns as tokens, matching a path, the product search
 * over two patterns, and the check over a graph's nodes (see
 * graph/outputs.h for the dialect and the design).
 */
#include "graph/outputs.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "graph/graph.h"
#include "rules/rules.h"
#include "base/banned.h"

/* One position of a pattern: a set of bytes, taken once or repeated. */
struct tok {
	unsigned char set[32];	/* bit c: byte c matches */
	int star;		/* 1: any number of bytes from set */
};

static void
set_all(unsigned char *set, int slash)
{
	memset(set, 0xff, 32);
	set[0] &= (unsigned char)~1u;		/* never NUL */
	if (!slash)
		set['/' >> 3] &= (unsigned char)~(1u << ('/' & 7));
}

static void
set_add(unsigned char *set, unsigned c)
{
	set[c >> 3] |= (unsigned char)(1u << (c & 7));
}

/* Parse a class at p[0] == '['; returns bytes used, 0 if unterminated. */
static size_t
parse_class(const unsigned char *p, unsigned char *set, int slash)
{
	unsigned char in[32];
	size_t i = 1, k;
	int neg = 0;

	memset(in, 0, sizeof(in));
	if (p[i] == '!' || p[i] == '^') {
		neg = 1;
		i++;
	}
	for (k = 0; p[i] && (p[i] != ']' || k == 0); k++) {
		unsigned lo = p[i], hi;

		if (lo == '\\' && p[i + 1])
			lo = p[++i];
		i++;
		hi = lo;
		if (p[i] == '-' && p[i + 1] && p[i + 1] != ']') {
			i++;
			if (p[i] == '\\' && p[i + 1])
				i++;
			hi = p[i++];
		}
		for (; lo <= hi && lo < 256; lo++)
			set_add(in, lo);
	}
	if (p[i] != ']')
		return 0;
	for (k = 0; k < 32; k++)
		set[k] = neg ? (unsigned char)~in[k] : in[k];
	set[0] &= (unsigned char)~1u;
	if (!slash)
		set['/' >> 3] &= (unsigned char)~(1u << ('/' & 7));
	return i + 1;
}

/* The pattern as tokens (caller frees); *n their count. NULL: no memory. */
static struct tok *
tokenize(const char *pattern, size_t *n)
{
	const unsigned char *p = (const unsigned char *)pattern;
	struct tok *t = mem_calloc(strlen(pattern) + 1, sizeof(*t));
	size_t i = 0, k = 0, used;

	if (!t)
		return NULL;
	while (p[i]) {
		struct tok *x = &t[k];

		if (p[i] == '*') {
			size_t run = 0;

			while (p[i] == '*')
				i++, run++;
			set_all(x->set, run > 1);
			x->star = 1;
			if (k && t[k - 1].star) {
				/* "*" next to "**" adds nothing. */
				for (run = 0; run < 32; run++)
					t[k - 1].set[run] |= x->set[run];
				memset(x, 0, sizeof(*x));
				continue;
			}
		} else if (p[i] == '?') {
			set_all(x->set, 0);
			i++;
		} else if (p[i] == '[' &&
			   (used = parse_class(p + i, x->set, 0))) {
			i += used;
		} else {
			if (p[i] == '\\' && p[i + 1])
				i++;
			set_add(x->set, p[i++]);
		}
		k++;
	}
	*n = k;
	return t;
}

static int
meet(const struct tok *a, const struct tok *b)
{
	size_t k;

	for (k = 0; k < 32; k++)
		if (a->set[k] & b->set[k])
			return 1;
	return 0;
}

/* Add position i, and those a star there lets through, to `on`. */
static void
enter(const struct tok *t, size_t n, unsigned char *on, size_t i)
{
	for (; i <= n && !on[i]; i++) {
		on[i] = 1;
		if (i == n || !t[i].star)
			break;
	}
}

int
graph_glob_match(const char *pattern, const char *path)
{
	size_t n = 0, i;
	struct tok *t = tokenize(pattern, &n);
	unsigned char *on = t ? mem_calloc(2 * (n + 1), 1) : NULL, *next;
	const unsigned char *c;
	int found = 0;

	if (!on)
		goto done;
	next = on + n + 1;
	enter(t, n, on, 0);
	for (c = (const unsigned char *)path; *c; c++) {
		int any = 0;

		memset(next, 0, n + 1);
		for (i = 0; i < n; i++)
			if (on[i] && (t[i].set[*c >> 3] >> (*c & 7)) & 1) {
				enter(t, n, next, t[i].star ? i : i + 1);
				any = 1;
			}
		memcpy(on, next, n + 1);
		if (!any)
			goto done;
	}
	found = on[n];
done:
	mem_free(t);
	mem_free(on);
	return found;
}

int
graph_glob_overlap(const char *a, const char *b)
{
	size_t na = 0, nb = 0, w, top = 0, *stack = NULL;
	struct tok *ta = tokenize(a, &na), *tb = tokenize(b, &nb);
	unsigned char *seen = NULL;
	int found = 1;		/* out of memory: say they may overlap */

	w = nb + 1;
	if (ta && tb) {
		seen = mem_calloc((na + 1) * w, 1);
		stack = mem_calloc((na + 1) * w + 1, sizeof(*stack));
	}
	if (!seen || !stack)
		goto done;
	found = 0;
	seen[0] = 1;
	stack[top++] = 0;
	while (top && !found) {
		size_t s = stack[--top], i = s / w, j = s % w, next[3], m = 0;

		if (i == na && j == nb) {
			found = 1;
			break;
		}
		if (i < na && ta[i].star)
			next[m++] = (i + 1) * w + j;
		if (j < nb && tb[j].star)
			next[m++] = i * w + j + 1;
		if (i < na && j < nb && meet(&ta[i], &tb[j]))
			next[m++] = (ta[i].star ? i : i + 1) * w +
				    (tb[j].star ? j : j + 1);
		while (m--)
			if (!seen[next[m]]) {
				seen[next[m]] = 1;
				stack[top++] = next[m];
			}
	}
done:
	mem_free(ta);
	mem_free(tb);
	mem_free(seen);
	mem_free(stack);
	return found;
}

struct entry {
	const char *pattern;
	const struct graph_node *node;
	size_t prefix;		/* bytes before the first special byte */
	size_t suffix;		/* bytes after the last special byte */
};

static size_t
literal_suffix(const char *p)
{
	size_t n = strlen(p), k = 0;

	while (k < n && !strchr("*?[]\\", p[n - 1 - k]))
		k++;
	return k;
}

static int
cmp_prefix(const char *a, size_t na, const char *b, size_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);

	return c ? c : na < nb ? -1 : na > nb;
}

static int
cmp_entry(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int c = cmp_prefix(a->pattern, a->prefix, b->pattern, b->prefix);

	if (!c)
		c = strcmp(a->pattern, b->pattern);
	return c ? c : strcmp(a->node->id, b->node->id);
}

/* Could the two entries' nodes run on one runner? */
static int
one_runner(const struct entry *a, const struct entry *b)
{
	const char *pa = graph_node_axis(a->node, "platform");
	const char *pb = graph_node_axis(b->node, "platform");

	return a->node != b->node && !(pa && pb && strcmp(pa, pb));
}

static int
suffixes_meet(const struct entry *a, const struct entry *b)
{
	size_t k = a->suffix < b->suffix ? a->suffix : b->suffix;

	return !memcmp(a->pattern + strlen(a->pattern) - k,
		       b->pattern + strlen(b->pattern) - k, k);
}

static int
report(const struct graph *g, const struct entry *x, const struct entry *y,
       struct error_list *errors)
{
	const struct rules_node *rule = y->node->rule;
	struct error e;

	error_init(&e);
	if (!strcmp(x->pattern, y->pattern))
		error_at(&e, ERROR_INVALID, g->rules->file, rule->pos.line,
			 rule->pos.col, "output '%s' of %s is also declared "
			 "by %s", y->pattern, y->node->id, x->node->id);
	else
		error_at(&e, ERROR_INVALID, g->rules->file, rule->pos.line,
			 rule->pos.col, "output '%s' of %s can match the "
			 "same files as output '%s' of %s", y->pattern,
			 y->node->id, x->pattern, x->node->id);
	error_node(&e, y->node->id);
	error_hint(&e, "nodes that can run on one runner need outputs of "
		   "their own (each removes and records what its outputs "
		   "match): put the node's axes in the path, e.g. "
		   "dist/${python}/*.whl");
	return error_list_add(errors, &e);
}

/* First entry whose prefix is exactly p[0..n), or `count`. */
static size_t
lower_bound(const struct entry *v, size_t count, const char *p, size_t n)
{
	size_t lo = 0, hi = count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_prefix(v[mid].pattern, v[mid].prefix, p, n) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of group `which`'s first glob among the node's outputs. */
static size_t
group_first(const struct rules_node *rule, size_t which)
{
	size_t i, at = 0;

	for (i = 0; i < which; i++)
		at += rule->groups[i].n_outputs;
	return at;
}

/* 1 with a glob of each of groups a and b in *x, *y that can meet. */
static int
groups_meet(const struct graph_node *n, size_t a, size_t b, const char **x,
	    const char **y)
{
	const struct rules_node *rule = n->rule;
	size_t i, k, fa = group_first(rule, a), fb = group_first(rule, b);

	for (i = 0; i < rule->groups[a].n_outputs; i++)
		for (k = 0; k < rule->groups[b].n_outputs; k++)
			if (graph_glob_overlap(n->outputs[fa + i],
					       n->outputs[fb + k])) {
				*x = n->outputs[fa + i];
				*y = n->outputs[fb + k];
				return 1;
			}
	return 0;
}

/*
 * Two output groups of node n whose globs can match one file: that file
 * is in both groups' digests, so a change to it rebuilds the users of
 * each and `needs: [A.GROUP]` cuts off nothing. Reports every such pair
 * (at the later group's name); returns 1 when there was one, 0 when none,
 * or ERROR_NOMEM.
 */
static int
group_overlaps(const struct graph *g, const struct graph_node *n,
	       struct error_list *errors)
{
	const struct rules_node *rule = n->rule;
	const struct rules_output_group *ga, *gb;
	const char *x, *y;
	size_t a, b;
	struct error e;
	int found = 0;

	for (a = 0; a < rule->n_groups; a++)
		for (b = a + 1; b < rule->n_groups; b++) {
			if (!groups_meet(n, a, b, &x, &y))
				continue;
			ga = &rule->groups[a];
			gb = &rule->groups[b];
			error_init(&e);
			error_at(&e, ERROR_INVALID, g->rules->file,
				 gb->pos.line, gb->pos.col, "output group '%s' "
				 "of artifact '%s' can match the same files "
				 "as group '%s' (%u:%u): '%s' and '%s'",
				 gb->name, rule->name, ga->name, ga->pos.line,
				 ga->pos.col, y, x);
			error_node(&e, n->id);
			error_hint(&e, "a file in two groups is in both "
				   "digests, so a change to it rebuilds the "
				   "users of each: make the globs disjoint "
				   "(NAME-[0-9]*.conda beside "
				   "NAME-tests-*.conda)");
			if (error_list_add(errors, &e))
				return ERROR_NOMEM;
			found = 1;
		}
	return found;
}

/* group_overlaps for each artifact rule, at its first such node. */
static int
check_groups(const struct graph *g, struct error_list *errors,
	     size_t *found)
{
	const struct rules_node **done;
	size_t i, k, n_done = 0;
	int rc = 0;

	done = mem_calloc(g->n_nodes + 1, sizeof(*done));
	if (!done)
		return ERROR_NOMEM;
	for (i = 0; !rc && i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];

		if (!n->rule || n->rule->n_groups < 2)
			continue;
		for (k = 0; k < n_done && done[k] != n->rule; k++)
			;
		if (k < n_done)
			continue;
		rc = group_overlaps(g, n, errors);
		if (rc == 1) {
			done[n_done++] = n->rule;
			(*found)++;
			rc = 0;
		}
	}
	mem_free(done);
	return rc;
}

int
graph_outputs_check(const struct graph *g, struct error_list *errors)
{
	struct entry *v;
	size_t i, k, n = 0, cap = 0, found = 0;
	int rc = 0;

	for (i = 0; i < g->n_nodes; i++)
		cap += g->nodes[i].n_outputs;
	v = mem_calloc(cap + 1, sizeof(*v));
	if (!v)
		return ERROR_NOMEM;
	for (i = 0; i < g->n_nodes; i++)
		for (k = 0; k < g->nodes[i].n_outputs; k++) {
			const char *p = g->nodes[i].outputs[k];

			v[n].pattern = p;
			v[n].node = &g->nodes[i];
			v[n].prefix = strcspn(p, "*?[\\");
			v[n++].suffix = literal_suffix(p);
		}
	qsort(v, n, sizeof(*v), cmp_entry);
	for (i = 0; !rc && i < n && found < 50; i++) {
		const struct entry *y = &v[i];
		size_t len;

		for (len = 0; !rc && len <= y->prefix && found < 50; len++) {
			size_t j = lower_bound(v, n, y->pattern, len);

			for (; !rc && j < n && found < 50 &&
			       !cmp_prefix(v[j].pattern, v[j].prefix,
					   y->pattern, len); j++) {
				/* Equal prefixes: each pair once. */
				if (len == y->prefix && j >= i)
					break;
				if (!one_runner(&v[j], y) ||
				    !suffixes_meet(&v[j], y) ||
				    !graph_glob_overlap(v[j].pattern,
							y->pattern))
					continue;
				found++;
				rc = report(g, &v[j], y, errors);
			}
		}
	}
	mem_free(v);
	if (!rc)
		rc = check_groups(g, errors, &found);
	if (rc)
		return rc;
	return found ? ERROR_INVALID : 0;
}
