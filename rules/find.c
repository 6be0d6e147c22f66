/*
 * Lookups in a loaded model by exact name: a probe of each section's
 * name index (base/strmap.h, built by the loader), or a scan of a section
 * that has none (a model built by hand, or one still being loaded).
 */
#include "rules/rules.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/strmap.h"
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

static int
index_section(struct rules *r, enum rules_section which)
{
	struct rules_index *ix = &r->index[which];
	struct section s = section_of(r, which);
	size_t i;

	if (ix->built && ix->n_section == s.n)
		return 0;
	ix->built = 0;
	strmap_release(&ix->by_name);
	/* Last to first: the first entry of a name is the one kept. */
	for (i = s.n; i-- > 0;)
		if (name_at(&s, i) &&
		    strmap_put(&ix->by_name, name_at(&s, i),
			       (void *)(s.base + i * s.size), NULL)) {
			strmap_release(&ix->by_name);
			return ERROR_NOMEM;
		}
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

void
rules_index_release(struct rules *r)
{
	int w;

	for (w = 0; w < RULES_SECTION_COUNT; w++) {
		strmap_release(&r->index[w].by_name);
		r->index[w].built = 0;
	}
}

/* The position of the first entry named `name`, or (size_t)-1. */
static size_t
find(const struct rules *r, enum rules_section which, const char *name)
{
	const struct rules_index *ix = &r->index[which];
	struct section s = section_of(r, which);
	const char *at;
	size_t i;

	if (!ix->built || ix->n_section != s.n) {
		for (i = 0; i < s.n; i++)
			if (name_at(&s, i) && !strcmp(name_at(&s, i), name))
				return i;
		return (size_t)-1;
	}
	at = strmap_get(&ix->by_name, name);
	return at ? (size_t)(at - s.base) / s.size : (size_t)-1;
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
