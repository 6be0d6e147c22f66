/* Lookups in a loaded model by exact name (linear: models are small). */
#include "rules/rules.h"

#include <string.h>

#include "base/banned.h"

#define FIND(arr, n, name)                                                   \
	do {                                                                 \
		size_t i_;                                                   \
		if (!r || !name)                                             \
			return NULL;                                         \
		for (i_ = 0; i_ < r->n; i_++)                                \
			if (r->arr[i_].name && !strcmp(r->arr[i_].name, name)) \
				return &r->arr[i_];                          \
		return NULL;                                                 \
	} while (0)

const struct rules_toolkit *
rules_find_toolkit(const struct rules *r, const char *name)
{
	FIND(toolkits, n_toolkits, name);
}

const struct rules_root *
rules_find_root(const struct rules *r, const char *name)
{
	FIND(roots, n_roots, name);
}

const struct rules_source *
rules_find_source(const struct rules *r, const char *name)
{
	FIND(sources, n_sources, name);
}

const struct rules_axis *
rules_find_axis(const struct rules *r, const char *name)
{
	FIND(axes, n_axes, name);
}

const struct rules_node *
rules_find_artifact(const struct rules *r, const char *name)
{
	FIND(artifacts, n_artifacts, name);
}

const struct rules_node *
rules_find_test(const struct rules *r, const char *name)
{
	FIND(tests, n_tests, name);
}

const struct rules_release *
rules_find_release(const struct rules *r, const char *name)
{
	FIND(releases, n_releases, name);
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
