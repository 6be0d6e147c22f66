/*
 * The tree-scan memo (schema 8): what lies below a git tree that holds no
 * symlink, by the tree's id, so that a plan keying a changed folder reads
 * again only the subtrees whose ids changed (graph/tree_scan.c). Each row
 * carries a check sum of its fields: a row damaged on disk is a miss (the
 * tree is read again), never a wrong key.
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/error.h"
#include "base/banned.h"

#define SCAN_MAX_HEIGHT 4096	/* graph/source_int.h's GRAPH_MAX_TREE_DEPTH */

/* XXH3-64 of a versioned text, tree, height (4 bytes, little-endian) and
 * canon, as SQLite's signed 64-bit integer. */
static sqlite3_int64
scan_sum(const unsigned char tree[20], int height,
	 const unsigned char canon[20])
{
	unsigned char b[15 + 20 + 4 + 20];
	XXH64_hash_t h;
	sqlite3_int64 v;

	memcpy(b, "ripple-scan-v1\n", 15);
	memcpy(b + 15, tree, 20);
	b[35] = (unsigned char)(height & 0xff);
	b[36] = (unsigned char)((height >> 8) & 0xff);
	b[37] = (unsigned char)((height >> 16) & 0xff);
	b[38] = (unsigned char)((height >> 24) & 0xff);
	memcpy(b + 39, canon, 20);
	h = XXH3_64bits(b, sizeof(b));
	memcpy(&v, &h, sizeof(v));
	return v;
}

int
cache_tree_scan_get(struct cache *c, const unsigned char tree[20],
		    int *height, unsigned char canon[20], struct error *err)
{
	sqlite3_stmt *st;
	const void *blob;
	sqlite3_int64 h;
	int rc;

	if (c->version < 8)
		return 0;	/* a file opened read-only, not upgraded */
	st = cache_stmt_get(c, CACHE_STMT_TREE_SCAN_GET, err);
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	rc = sqlite3_bind_blob(st, 1, tree, 20, SQLITE_STATIC);
	if (rc != SQLITE_OK)
		return cache_sqlite_error(c, rc, err);
	rc = cache_stmt_step(c, st, err);
	if (rc <= 0)
		return rc;
	h = sqlite3_column_int64(st, 0);
	blob = sqlite3_column_blob(st, 1);
	rc = 0;
	if (h >= 0 && h < SCAN_MAX_HEIGHT && blob &&
	    sqlite3_column_bytes(st, 1) == 20 &&
	    sqlite3_column_int64(st, 2) == scan_sum(tree, (int)h, blob)) {
		*height = (int)h;
		memcpy(canon, blob, 20);
		rc = 1;
	}
	sqlite3_reset(st);
	return rc;
}

static int
put_one(struct cache *c, const struct cache_tree_scan *t, struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	st = cache_stmt_get(c, CACHE_STMT_TREE_SCAN_PUT, err);
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	rc = sqlite3_bind_blob(st, 1, t->tree, 20, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int(st, 2, t->height);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_blob(st, 3, t->canon, 20, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 4, scan_sum(t->tree, t->height,
							t->canon));
	if (rc != SQLITE_OK) {
		sqlite3_reset(st);
		return cache_sqlite_error(c, rc, err);
	}
	rc = cache_stmt_step(c, st, err);
	return rc < 0 ? rc : 0;
}

int
cache_tree_scans_put(struct cache *c, const struct cache_tree_scan *v,
		     size_t n, struct error *err)
{
	size_t i;
	int rc, own;

	if (c->readonly || c->version < 8 || !n)
		return 0;
	for (i = 0; i < n; i++)
		if (v[i].height < 0 || v[i].height >= SCAN_MAX_HEIGHT)
			return error_set(err, ERROR_INVALID, "tree scan "
					 "height %d out of range", v[i].height);
	/* Inside the caller's transaction, or in one of its own. */
	own = sqlite3_get_autocommit(c->db);
	rc = own ? cache_txn_begin(c, err) : 0;
	for (i = 0; !rc && i < n; i++)
		rc = put_one(c, &v[i], err);
	if (rc) {
		if (own)
			cache_txn_rollback(c);
		return rc;
	}
	return own ? cache_txn_commit(c, err) : 0;
}
