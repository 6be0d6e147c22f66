/*
 * Checks over the whole loaded model: `where:` keys name axes of the
 * dependency, no two roots claim overlapping paths, and sources,
 * artifacts and tests do not share names (a dependency would be ambiguous).
 */
#include "rules/load.h"

#include <stdio.h>
#include <string.h>

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

/* 1 when a is b or a directory above b (or the reverse). */
static int
paths_overlap(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (!strcmp(a, ".") || !strcmp(b, "."))
		return 1;
	if (la > lb)
		return paths_overlap(b, a);
	return !strncmp(a, b, la) && (b[la] == '\0' || b[la] == '/');
}

static void
check_roots(struct rules_load *L)
{
	size_t i, j;

	for (i = 0; i < L->r->n_roots; i++)
		for (j = 0; j < i; j++) {
			const struct rules_root *a = &L->r->roots[j];
			const struct rules_root *b = &L->r->roots[i];

			if (!a->path || !b->path || !paths_overlap(a->path, b->path))
				continue;
			at(L, b->pos, "each path belongs to at most one root",
			   "root '%s' overlaps root '%s' (path '%s')", b->name,
			   a->name, a->path);
		}
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
}
