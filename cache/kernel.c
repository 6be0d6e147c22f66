/*
 * The kernel cache: compiled GPU code (cubins) stored by the caller's
 * content key, with the architecture it was linked for; and the memos a
 * plan reads instead of recomputing: source-set keys by memo id, parsed
 * rules trees by their text's digest.
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <limits.h>
#include <stdlib.h>
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
	rc = cache_stmt_lookup(c, CACHE_STMT_KERNEL_GET, &key, 1, &st, err);
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
	rc = cache_stmt_lookup(c, CACHE_STMT_SOURCE_KEY_GET, &memo, 1, &st,
			       err);
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

/* A memo id of one cache_source_keys_get and its position. */
struct memo_at {
	const char *memo;
	size_t pos;
};

static int
cmp_memo(const void *x, const void *y)
{
	const struct memo_at *a = x, *b = y;

	return strcmp(a->memo, b->memo);
}

/* key for every position of v (sorted, n) whose memo id is `memo`. */
static void
fill(const struct memo_at *v, size_t n, const char *memo, const char *key,
     char *keys)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid].memo, memo) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || strcmp(v[lo].memo, memo) || !cache_key_valid(key))
		return;
	for (; lo < n && !strcmp(v[lo].memo, memo); lo++)
		memcpy(keys + 33 * v[lo].pos, key, 33);
}

/* An upper bound on the memo's rows (nothing deletes them): O(log n). */
static int
memo_rows(struct cache *c, sqlite3_int64 *out, struct error *err)
{
	sqlite3_stmt *st = cache_stmt_get(c, CACHE_STMT_SOURCE_KEY_ROWS, err);
	int rc;

	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	rc = cache_stmt_step(c, st, err);
	if (rc < 0)
		return rc;
	*out = rc ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	return 0;
}

/* Every row of the memo, each matched against v. */
static int
scan(struct cache *c, const struct memo_at *v, size_t n, char *keys,
     struct error *err)
{
	sqlite3_stmt *st = cache_stmt_get(c, CACHE_STMT_SOURCE_KEY_ALL, err);
	const unsigned char *memo, *key;
	int rc;

	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	while ((rc = cache_stmt_step(c, st, err)) == 1) {
		memo = sqlite3_column_text(st, 0);
		key = sqlite3_column_text(st, 1);
		if (memo && key)
			fill(v, n, (const char *)memo, (const char *)key,
			     keys);
	}
	return rc < 0 ? rc : 0;
}

int
cache_source_keys_get(struct cache *c, const char *const *memos, size_t n,
		      char *keys, struct error *err)
{
	struct memo_at *v = NULL;
	sqlite3_int64 rows = 0;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		keys[33 * i] = '\0';
		if (!cache_key_valid(memos[i]))
			return error_set(err, ERROR_INVALID,
					 "bad memo id '%s'", memos[i]);
	}
	rc = n ? memo_rows(c, &rows, err) : 0;
	if (rc || !n || (sqlite3_uint64)rows > CACHE_SOURCE_KEYS_SCAN * n)
		return rc;
	v = mem_calloc(n, sizeof(*v));
	if (!v)
		return error_nomem(err);
	for (i = 0; i < n; i++) {
		v[i].memo = memos[i];
		v[i].pos = i;
	}
	qsort(v, n, sizeof(*v), cmp_memo);
	rc = scan(c, v, n, keys, err);
	mem_free(v);
	return rc ? rc : 1;
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
	rc = cache_stmt_lookup(c, CACHE_STMT_SOURCE_KEY_PUT,
			       (const char *const[]){ memo, key }, 2, &st, err);
	return rc < 0 ? rc : 0;
}

/* cache_rules_tree_get through cache_rules_tree_use: a copy. */
struct tree_copy {
	struct buf *out;
	struct error *err;
};

static int
tree_copy(void *payload, const void *tree, size_t len)
{
	struct tree_copy *t = payload;
	int rc = buf_add(t->out, tree, len, t->err);

	return rc ? rc : 1;
}

int
cache_rules_tree_get(struct cache *c, const char *digest, struct buf *out,
		     struct error *err)
{
	struct tree_copy t = { out, err };

	return cache_rules_tree_use(c, digest, tree_copy, &t, err);
}

int
cache_rules_tree_use(struct cache *c, const char *digest,
		     int (*use)(void *payload, const void *tree, size_t len),
		     void *payload, struct error *err)
{
	sqlite3_stmt *st;
	const void *blob;
	int rc, n;

	if (!cache_key_valid(digest))
		return error_set(err, ERROR_INVALID, "bad rules digest '%s'",
				 digest);
	if (c->version < 6)
		return 0;
	rc = cache_stmt_lookup(c, CACHE_STMT_RULES_TREE_GET, &digest, 1, &st,
			       err);
	if (rc <= 0)
		return rc;
	blob = sqlite3_column_blob(st, 0);
	n = sqlite3_column_bytes(st, 0);
	rc = blob && n > 0 ? use(payload, blob, (size_t)n) : 0;
	sqlite3_reset(st);
	return rc;
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
