/*
 * Which records the remote cache is known to hold, by node, key and
 * server: marked by engine/run after a publish or a reuse from there, so
 * a record whose upload died is published by a later run (issue 23).
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include "base/error.h"
#include "base/banned.h"

static int
check(const char *node_id, const char *key, const char *server,
      struct error *err)
{
	if (!node_id || !node_id[0] || !server || !server[0])
		return error_set(err, ERROR_INVALID, "published: an empty "
				 "node id or server");
	if (!cache_key_valid(key))
		return error_set(err, ERROR_INVALID, "published: bad key "
				 "'%s'", key);
	return 0;
}

int
cache_published_has(struct cache *c, const char *node_id, const char *key,
		    const char *server, struct error *err)
{
	sqlite3_stmt *st;
	int rc = check(node_id, key, server, err);

	if (rc)
		return rc;
	rc = cache_stmt_lookup(c, CACHE_STMT_PUBLISHED_HAS,
			       (const char *const[]){ node_id, key, server }, 3,
			       &st, err);
	if (rc == 1)
		sqlite3_reset(st);
	return rc;
}

int
cache_published_mark(struct cache *c, const char *node_id, const char *key,
		     const char *server, struct error *err)
{
	sqlite3_stmt *st;
	int rc = check(node_id, key, server, err);

	if (rc)
		return rc;
	rc = cache_stmt_lookup(c, CACHE_STMT_PUBLISHED_MARK,
			       (const char *const[]){ node_id, key, server }, 3,
			       &st, err);
	return rc < 0 ? rc : 0;
}
