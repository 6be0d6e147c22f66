/*
 * Lookups in a loaded model by exact name: a binary search over each
 * section's name index (built by the loader), or a scan of a section that
 * has none (a model built by hand, or one still being loaded).
 */
#include "rules/rules.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

/* A section's entries seen as names: base, count, stride, name field. */
struct section {
	const char *base;
	size_t n, size, off;
};

static const char *
name_at(const struct section *s, size_t i)
{
	const char *const *name;

	name = (const char *const *)(const void *)(s->base + i * s->size +
						   s->off);
	return *name;
}

static struct section
section_of(const struct rules *r, enum rules_section which)
{
	struct section s = { NULL, 0, 0, 0 };

#define S(arr, count, type) \
	s.base = (const char *)(const void *)r->arr; s.n = r->count; \
	s.size = sizeof(type); s.off = offsetof(type, name)
	switch (which) {
	case RULES_SECTION_TOOLKITS:
		S(toolkits, n_toolkits, struct rules_toolkit);
		break;
	case RULES_SECTION_ROOTS:
		S(roots, n_roots, struct rules_root);
		break;
	case RULES_SECTION_SOURCES:
		S(sources, n_sources, struct rules_source);
		break;
	case RULES_SECTION_AXES:
		S(axes, n_axes, struct rules_axis);
		break;
	case RULES_SECTION_ARTIFACTS:
		S(artifacts, n_artifacts, struct rules_node);
		break;
	case RULES_SECTION_TESTS:
		S(tests, n_tests, struct rules_node);
		break;
	case RULES_SECTION_RELEASES:
		S(releases, n_releases, struct rules_release);
		break;
	case RULES_SECTION_COUNT:
		break;
	}
#undef S
	if (!s.base)
		s.n = 0;
	return s;
}

/* qsort has no context argument: sort (name, position) pairs instead. */
struct pair {
	const char *name;
	size_t pos;
};

static int
cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int
index_section(struct rules *r, enum rules_section which)
{
	struct rules_index *ix = &r->index[which];
	struct section s = section_of(r, which);
	struct pair *v;
	size_t i, n = 0;

	if (ix->built && ix->n_section == s.n)
		return 0;
	ix->built = 0;
	if (!s.n) {
		ix->order = NULL;
		ix->n_order = 0;
		goto built;
	}
	v = mem_alloc(s.n * sizeof(*v));
	ix->order = arena_alloc(&r->arena, s.n * sizeof(*ix->order));
	if (!v || !ix->order) {
		mem_free(v);
		return ERROR_NOMEM;
	}
	for (i = 0; i < s.n; i++)
		if (name_at(&s, i)) {
			v[n].name = name_at(&s, i);
			v[n++].pos = i;
		}
	qsort(v, n, sizeof(*v), cmp_pair);
	for (i = 0; i < n; i++)
		ix->order[i] = v[i].pos;
	ix->n_order = n;
	mem_free(v);
built:
	ix->n_section = s.n;
	ix->built = 1;
	return 0;
}

int
rules_index_names(struct rules *r)
{
	int w, rc = 0;

	for (w = 0; w < RULES_SECTION_COUNT && !rc; w++)
		rc = index_section(r, (enum rules_section)w);
	return rc;
}

/* The position of the first entry named `name`, or (size_t)-1. */
static size_t
find(const struct rules *r, enum rules_section which, const char *name)
{
	const struct rules_index *ix = &r->index[which];
	struct section s = section_of(r, which);
	size_t lo = 0, hi, i;

	if (!ix->built || ix->n_section != s.n) {
		for (i = 0; i < s.n; i++)
			if (name_at(&s, i) && !strcmp(name_at(&s, i), name))
				return i;
		return (size_t)-1;
	}
	hi = ix->n_order;
	while (lo < hi) {	/* the first name >= name */
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(name_at(&s, ix->order[mid]), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->n_order && !strcmp(name_at(&s, ix->order[lo]), name))
		return ix->order[lo];
	return (size_t)-1;
}

#define FIND(arr, which)                                                     \
	do {                                                                 \
		size_t i_;                                                   \
		if (!r || !name)                                             \
			return NULL;                                         \
		i_ = find(r, which, name);                                   \
		return i_ == (size_t)-1 ? NULL : &r->arr[i_];                \
	} while (0)

const struct rules_toolkit *
rules_find_toolkit(const struct rules *r, const char *name)
{
	FIND(toolkits, RULES_SECTION_TOOLKITS);
}

const struct rules_root *
rules_find_root(const struct rules *r, const char *name)
{
	FIND(roots, RULES_SECTION_ROOTS);
}

const struct rules_source *
rules_find_source(const struct rules *r, const char *name)
{
	FIND(sources, RULES_SECTION_SOURCES);
}

const struct rules_axis *
rules_find_axis(const struct rules *r, const char *name)
{
	FIND(axes, RULES_SECTION_AXES);
}

const struct rules_node *
rules_find_artifact(const struct rules *r, const char *name)
{
	FIND(artifacts, RULES_SECTION_ARTIFACTS);
}

const struct rules_node *
rules_find_test(const struct rules *r, const char *name)
{
	FIND(tests, RULES_SECTION_TESTS);
}

const struct rules_release *
rules_find_release(const struct rules *r, const char *name)
{
	FIND(releases, RULES_SECTION_RELEASES);
}

const struct rules_runner *
rules_find_runner(const struct rules *r, const char *platform)
{
	size_t i;

	for (i = 0; platform && i < r->n_runners; i++)
		if (!strcmp(r->runners[i].platform, platform))
			return &r->runners[i];
	for (i = 0; i < r->n_runners; i++)
		if (!strcmp(r->runners[i].platform, "default"))
			return &r->runners[i];
	return NULL;
}
