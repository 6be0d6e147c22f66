/*
 * Checks over the whole loaded model: `where:` keys name axes of the
 * dependency, no two roots claim overlapping paths, sources, artifacts
 * and tests do not share names (a dependency would be ambiguous), and the
 * matrix stays within policy max-nodes; rules_each_size and
 * rules_each_describe, which graph_build_limited shares.
 */
#include "rules/load.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/spell.h"
#include "base/banned.h"

static void
at(struct rules_load *L, struct rules_pos p, const char *hint,
   const char *fmt, const char *a, const char *b, const char *c)
{
	char msg[ERROR_MSG_MAX];

	snprintf(msg, sizeof(msg), fmt, a, b, c);
	rules_load_error_at(L, p.line, p.col, hint, "%s", msg);
}

static void
check_where(struct rules_load *L, const struct rules_node *node)
{
	size_t i, j, k;

	for (i = 0; i < node->n_deps; i++) {
		const struct rules_dep *d = &node->deps[i];
		const struct rules_node *dep;

		if (!d->n_where)
			continue;
		dep = d->kind == RULES_DEP_ARTIFACT
			      ? rules_find_artifact(L->r, d->name)
			      : rules_find_test(L->r, d->name);
		if (!dep)
			continue;
		for (j = 0; j < d->n_where; j++) {
			const char *c[64];
			const char *s;
			char hint[ERROR_HINT_MAX];
			size_t n = 0;

			if (rules_each_has(&dep->each, d->where[j].key))
				continue;
			for (k = 0; k < dep->each.n_axes && n < 64; k++)
				c[n++] = dep->each.axes[k].axis;
			s = spell_suggest(d->where[j].key, c, n);
			if (s)
				snprintf(hint, sizeof(hint), "did you mean '%s'?", s);
			else
				snprintf(hint, sizeof(hint),
					 "'where' keys name axes of '%s'", d->name);
			at(L, d->where[j].pos, hint,
			   "'%s' is not an axis of '%s'%s", d->where[j].key,
			   d->name, "");
		}
	}
}

/* 1 when directory a is b or above it. */
static int
at_or_above(const char *a, const char *b)
{
	size_t la = strlen(a);

	return !strncmp(a, b, la) && (b[la] == '\0' || b[la] == '/');
}

static void
report_overlap(struct rules_load *L, size_t i, size_t j)
{
	const struct rules_root *a = &L->r->roots[i < j ? i : j];
	const struct rules_root *b = &L->r->roots[i < j ? j : i];

	at(L, b->pos, "each path belongs to at most one root",
	   "root '%s' overlaps root '%s' (path '%s')", b->name, a->name,
	   a->path);
}

struct root_at {
	const char *path;
	size_t pos;	/* in r->roots */
};

/* Paths as git orders trees (each as if ending in '/'), so everything
 * under a directory directly follows it; ties by position. */
static int
cmp_root(const void *pa, const void *pb)
{
	const struct root_at *x = pa, *y = pb;
	const unsigned char *a = (const unsigned char *)x->path;
	const unsigned char *b = (const unsigned char *)y->path;
	unsigned ca, cb;

	for (;; a++, b++) {
		ca = *a ? *a : '/';
		cb = *b ? *b : '/';
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (!*a || !*b)
			break;
	}
	if (*a || *b)
		return !*a ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * Roots whose paths are equal or nested, each pair once. Sorted so that a
 * root's ancestors are the stack of roots above it: no pairwise scan
 * (100,000 roots compared 5 x 10^9 pairs). "." overlaps every root.
 */
static void
check_roots(struct rules_load *L)
{
	const struct rules *r = L->r;
	struct root_at *v, *stack;
	size_t n = 0, depth = 0, i, k;

	v = mem_alloc((r->n_roots + 1) * sizeof(*v));
	stack = mem_alloc((r->n_roots + 1) * sizeof(*stack));
	if (!v || !stack) {
		rules_load_nomem(L);
		goto done;
	}
	for (i = 0; i < r->n_roots; i++) {
		if (!r->roots[i].path)
			continue;
		if (strcmp(r->roots[i].path, ".")) {
			v[n].path = r->roots[i].path;
			v[n++].pos = i;
			continue;
		}
		for (k = 0; k < r->n_roots; k++)
			if (k != i && r->roots[k].path &&
			    (strcmp(r->roots[k].path, ".") || k < i))
				report_overlap(L, i, k);
	}
	qsort(v, n, sizeof(*v), cmp_root);
	for (i = 0; i < n; i++) {
		while (depth && !at_or_above(stack[depth - 1].path, v[i].path))
			depth--;
		for (k = 0; k < depth; k++)
			report_overlap(L, stack[k].pos, v[i].pos);
		stack[depth++] = v[i];
	}
done:
	mem_free(stack);
	mem_free(v);
}

static void
check_shared_names(struct rules_load *L)
{
	const struct rules *r = L->r;
	size_t i;

	for (i = 0; i < r->n_artifacts; i++) {
		const struct rules_node *a = &r->artifacts[i];

		if (a->name && rules_find_source(r, a->name))
			at(L, a->pos, "rename one; dependencies name them alike",
			   "'%s' names both a source and an %s%s", a->name,
			   "artifact", "");
	}
	for (i = 0; i < r->n_tests; i++) {
		const struct rules_node *t = &r->tests[i];

		if (!t->name)
			continue;
		if (rules_find_source(r, t->name))
			at(L, t->pos, "rename one; dependencies name them alike",
			   "'%s' names both a source and a %s%s", t->name,
			   "test", "");
		else if (rules_find_artifact(r, t->name))
			at(L, t->pos, "rename one; dependencies name them alike",
			   "'%s' names both an artifact and a %s%s", t->name,
			   "test", "");
	}
}

unsigned long long
rules_each_size(const struct rules_each *e)
{
	unsigned long long n = 1, v;
	size_t i;

	for (i = 0; i < e->n_axes; i++) {
		v = e->axes[i].n_values;
		if (v && n > ULLONG_MAX / v)
			return ULLONG_MAX;
		n *= v;
	}
	if (n > ULLONG_MAX - e->n_include)
		return ULLONG_MAX;
	return n + e->n_include;
}

int
rules_each_describe(const struct rules_each *e, struct buf *b,
		    struct error *err)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < e->n_axes; i++)
		rc = buf_addf(b, err, "%s%s %zu", i ? " x " : "",
			      e->axes[i].axis, e->axes[i].n_values);
	if (!rc && e->n_include)
		rc = buf_addf(b, err, " + %zu included", e->n_include);
	return rc;
}

/*
 * Bound the matrix before anything is expanded (issue 14, item 11): each
 * rule's node count is the product of its axis sizes, checked for
 * overflow, and all rules together may not pass policy max-nodes (or,
 * when the rules set none, RULES_MAX_NODES_LIMIT; graph_build_limited
 * applies the lower ceiling a command runs under).
 */
static void
check_one_size(struct rules_load *L, const char *kind, const char *name,
	       const struct rules_each *e, struct rules_pos pos,
	       unsigned long long *total)
{
	unsigned long long max = L->r->policy.max_nodes, n = rules_each_size(e);
	const char *hint = "narrow its each:, or raise policy: {max-nodes: N}";
	const char *what = "max-nodes";
	struct buf sizes;

	if (!max) {
		max = RULES_MAX_NODES_LIMIT;
		hint = "narrow its each:";
		what = "ripple's limit of";
	}
	if (*total > max)
		return;	/* reported once, at the rule that passed it */
	if (n > max) {
		buf_init(&sizes, 0);
		if (rules_each_describe(e, &sizes, NULL)) {
			rules_load_nomem(L);
			buf_release(&sizes);
			return;
		}
		if (n == ULLONG_MAX)
			rules_load_error_at(L, pos.line, pos.col, hint,
				"%s '%s' expands to more than %llu nodes (%s), "
				"more than %s %llu", kind, name, n,
				sizes.data ? sizes.data : "", what, max);
		else
			rules_load_error_at(L, pos.line, pos.col, hint,
				"%s '%s' expands to %llu nodes (%s), more than "
				"%s %llu", kind, name, n,
				sizes.data ? sizes.data : "", what, max);
		buf_release(&sizes);
		*total = ULLONG_MAX;
		return;
	}
	*total += n;
	if (*total > max)
		rules_load_error_at(L, pos.line, pos.col,
			L->r->policy.max_nodes ? "narrow some each:, or raise "
			"policy: {max-nodes: N}" : "narrow some each:",
			"with %s '%s' (%llu node%s) the rules expand to %llu "
			"nodes, more than %s %llu", kind, name, n,
			n == 1 ? "" : "s", *total, what, max);
}

static void
check_sizes(struct rules_load *L)
{
	const struct rules *r = L->r;
	unsigned long long total = 0;
	size_t i;

	for (i = 0; i < r->n_artifacts; i++)
		check_one_size(L, "artifact", r->artifacts[i].name,
			       &r->artifacts[i].each, r->artifacts[i].pos,
			       &total);
	for (i = 0; i < r->n_tests; i++)
		check_one_size(L, "test", r->tests[i].name, &r->tests[i].each,
			       r->tests[i].pos, &total);
	for (i = 0; i < r->n_releases; i++)
		check_one_size(L, "release", r->releases[i].name,
			       &r->releases[i].each, r->releases[i].pos,
			       &total);
}

void
rules_check_model(struct rules_load *L)
{
	size_t i;

	for (i = 0; i < L->r->n_artifacts; i++)
		check_where(L, &L->r->artifacts[i]);
	for (i = 0; i < L->r->n_tests; i++)
		check_where(L, &L->r->tests[i]);
	check_roots(L);
	check_shared_names(L);
	check_sizes(L);
}
