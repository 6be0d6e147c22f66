/*
 * The kernel cache: compiled GPU code (cubins) stored by the caller's
 * content key, with the architecture it was linked for; and the memos a
 * plan reads instead of recomputing: source-set keys by memo id, parsed
 * rules trees by their text's digest.
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <limits.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

void
cache_kernel_release(struct cache_kernel *k)
{
	if (!k)
		return;
	mem_free(k->key);
	mem_free(k->arch);
	mem_free(k->cubin);
	memset(k, 0, sizeof(*k));
}

int
cache_kernel_put(struct cache *c, const struct cache_kernel *k,
		 struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (!k->key || !k->key[0])
		return error_set(err, ERROR_INVALID, "empty kernel key");
	if (!k->arch || !k->arch[0])
		return error_set(err, ERROR_INVALID,
				 "kernel '%s' has no architecture", k->key);
	if (k->size > (size_t)0x7fffffff)
		return error_set(err, ERROR_INVALID,
				 "kernel '%s' is too large (%zu bytes)",
				 k->key, k->size);
	st = cache_stmt_get(c, CACHE_STMT_KERNEL_PUT, err);
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	if ((rc = cache_bind_text(c, st, 1, k->key, err)) ||
	    (rc = cache_bind_text(c, st, 2, k->arch, err)) ||
	    (rc = cache_bind_int(c, st, 4, k->created_ms, err)))
		return rc;
	rc = sqlite3_bind_blob(st, 3, k->size ? (const void *)k->cubin : "",
			       (int)k->size, SQLITE_TRANSIENT);
	if (rc != SQLITE_OK)
		return cache_sqlite_error(c, rc, err);
	rc = cache_stmt_step(c, st, err);
	return rc < 0 ? rc : 0;
}

int
cache_kernel_get(struct cache *c, const char *key, struct cache_kernel *out,
		 struct error *err)
{
	sqlite3_stmt *st;
	const void *blob;
	int rc, n;

	memset(out, 0, sizeof(*out));
	st = cache_stmt_get(c, CACHE_STMT_KERNEL_GET, err);
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	rc = cache_bind_text(c, st, 1, key, err);
	if (rc)
		return rc;
	rc = cache_stmt_step(c, st, err);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return error_set(err, ERROR_NOT_FOUND, "no kernel '%s' in the "
				 "cache", key);
	blob = sqlite3_column_blob(st, 2);
	n = sqlite3_column_bytes(st, 2);
	if ((rc = cache_column_dup(st, 0, &out->key, err)) ||
	    (rc = cache_column_dup(st, 1, &out->arch, err)))
		goto done;
	out->cubin = mem_alloc(n > 0 ? (size_t)n : 1);
	if (!out->cubin) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	if (n > 0)
		memcpy(out->cubin, blob, (size_t)n);
	out->size = (size_t)n;
	out->created_ms = sqlite3_column_int64(st, 3);
done:
	sqlite3_reset(st);
	if (rc)
		cache_kernel_release(out);
	return rc;
}

int
cache_source_key_get(struct cache *c, const char *memo, char *key,
		     struct error *err)
{
	sqlite3_stmt *st;
	const unsigned char *text;
	int rc;

	if (!cache_key_valid(memo))
		return error_set(err, ERROR_INVALID, "bad memo id '%s'", memo);
	st = cache_stmt_get(c, CACHE_STMT_SOURCE_KEY_GET, err);
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	rc = cache_bind_text(c, st, 1, memo, err);
	if (rc)
		return rc;
	rc = cache_stmt_step(c, st, err);
	if (rc <= 0)
		return rc;
	text = sqlite3_column_text(st, 0);
	rc = 0;
	if (text && cache_key_valid((const char *)text)) {
		memcpy(key, text, CACHE_KEY_SIZE);
		rc = 1;
	}
	sqlite3_reset(st);
	return rc;
}

int
cache_source_key_put(struct cache *c, const char *memo, const char *key,
		     struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (!cache_key_valid(memo) || !cache_key_valid(key))
		return error_set(err, ERROR_INVALID, "bad source memo entry "
				 "'%s' -> '%s'", memo, key);
	st = cache_stmt_get(c, CACHE_STMT_SOURCE_KEY_PUT, err);
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	rc = cache_bind_text(c, st, 1, memo, err);
	if (!rc)
		rc = cache_bind_text(c, st, 2, key, err);
	if (!rc)
		rc = cache_stmt_step(c, st, err);
	return rc < 0 ? rc : 0;
}

int
cache_rules_tree_get(struct cache *c, const char *digest, struct buf *out,
		     struct error *err)
{
	sqlite3_stmt *st;
	const void *blob;
	int rc, n;

	if (!cache_key_valid(digest))
		return error_set(err, ERROR_INVALID, "bad rules digest '%s'",
				 digest);
	if (c->version < 6)
		return 0;
	st = cache_stmt_get(c, CACHE_STMT_RULES_TREE_GET, err);
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	rc = cache_bind_text(c, st, 1, digest, err);
	if (rc)
		return rc;
	rc = cache_stmt_step(c, st, err);
	if (rc <= 0)
		return rc;
	blob = sqlite3_column_blob(st, 0);
	n = sqlite3_column_bytes(st, 0);
	rc = blob && n > 0 ? buf_add(out, blob, (size_t)n, err) : 0;
	sqlite3_reset(st);
	return rc ? rc : blob && n > 0;
}

int
cache_rules_tree_put(struct cache *c, const char *digest, const void *tree,
		     size_t len, struct error *err)
{
	sqlite3_stmt *st;
	int rc, own;

	if (!cache_key_valid(digest) || len > INT_MAX)
		return error_set(err, ERROR_INVALID, "bad rules tree entry "
				 "'%s'", digest);
	if (c->readonly || c->version < 6)
		return 0;
	/* Inside the caller's transaction, or in one of its own. */
	own = sqlite3_get_autocommit(c->db);
	rc = own ? cache_txn_begin(c, err) : 0;
	if (rc)
		return rc;
	st = cache_stmt_get(c, CACHE_STMT_RULES_TREE_PUT, err);
	rc = st ? cache_bind_text(c, st, 1, digest, err)
		: (err ? err->code : ERROR_INTERNAL);
	if (!rc && sqlite3_bind_blob(st, 2, tree, (int)len,
				     SQLITE_TRANSIENT) != SQLITE_OK)
		rc = cache_sqlite_error(c, SQLITE_ERROR, err);
	if (!rc && sqlite3_bind_int64(st, 3, cache_clock_ms()) != SQLITE_OK)
		rc = cache_sqlite_error(c, SQLITE_ERROR, err);
	if (!rc)
		rc = cache_stmt_step(c, st, err);
	if (rc >= 0) {
		st = cache_stmt_get(c, CACHE_STMT_RULES_TREE_TRIM, err);
		rc = st ? 0 : (err ? err->code : ERROR_INTERNAL);
		if (!rc && sqlite3_bind_int(st, 1, CACHE_RULES_TREES_KEPT) !=
			   SQLITE_OK)
			rc = cache_sqlite_error(c, SQLITE_ERROR, err);
		if (!rc)
			rc = cache_stmt_step(c, st, err);
	}
	if (rc < 0) {
		if (own)
			cache_txn_rollback(c);
		return rc;
	}
	return own ? cache_txn_commit(c, err) : 0;
}
