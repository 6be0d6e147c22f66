/*
 * What a remote cache entry may write: only its node's declared outputs.
 * The entry and its record come from whoever can write to the cache, so
 * each path they list is matched against the node's `outputs:` globs as
 * the rules being planned expand them (engine/plan/remote.h).
 */
#include "engine/plan/remote.h"

#include <string.h>

#include "base/error.h"
#include "graph/outputs.h"
#include "base/banned.h"

/* Whether path matches one of the n globs. */
static int
declared(const char *path, const char *const *patterns, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (graph_glob_match(patterns[i], path))
			return 1;
	return 0;
}

/* ERROR_CORRUPT: h lists `path`, which the node does not declare. */
static int
undeclared(const struct plan_remote_hit *h, const char *path,
	   const char *const *patterns, size_t n, struct error *err)
{
	error_set(err, ERROR_CORRUPT, "remote cache %s: the entry of %s key "
		  "%s lists '%s', not one of the node's outputs (%s%s)",
		  h->url ? h->url : "?", h->node_id ? h->node_id : "?",
		  h->key ? h->key : "?", path, n ? patterns[0] : "none",
		  n > 1 ? ", ..." : "");
	error_hint(err, "a corrupt or hostile entry: the node is rebuilt and "
		   "nothing of the entry is written");
	return ERROR_CORRUPT;
}

int
plan_remote_outputs_check(const struct plan_remote_hit *h,
			  const char *const *patterns, size_t n,
			  struct error *err)
{
	const struct strv *a = &h->rec.rec.artifacts;
	size_t i;

	for (i = 0; i < h->action.n; i++)
		if (!declared(h->action.outputs[i].path, patterns, n))
			return undeclared(h, h->action.outputs[i].path,
					  patterns, n, err);
	for (i = 0; i < a->n; i++)
		if (a->v[i][0] != '/' && !declared(a->v[i], patterns, n))
			return undeclared(h, a->v[i], patterns, n, err);
	return 0;
}
