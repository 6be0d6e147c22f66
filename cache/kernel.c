/*
 * The kernel cache: compiled GPU code (cubins) stored by the caller's
 * content key, with the architecture it was linked for.
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <string.h>

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
