/*
 * The cubin store over the SQLite cache's kernels table, so compiled
 * kernels live with runs and records and move with them.
 */
#include "engine/cuda/store.h"

#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "base/banned.h"

struct sqlite_store {
	struct cuda_kernel_store store;	/* first: the handle we hand out */
	struct cache *cache;
};

static int
cache_get(void *payload, const unsigned char key[CUDA_KEY_BYTES], void **data,
	  size_t *len, struct error *err)
{
	struct sqlite_store *s = payload;
	struct cache_kernel k;
	char hex[33];
	int rc;

	memset(&k, 0, sizeof(k));
	rc = cache_kernel_get(s->cache, cuda_key_hex(key, hex), &k, err);
	if (rc == ERROR_NOT_FOUND) {
		error_init(err);
		return 0;
	}
	if (rc)
		return rc;
	*data = mem_alloc(k.size);
	if (!*data) {
		cache_kernel_release(&k);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	memcpy(*data, k.cubin, k.size);
	*len = k.size;
	cache_kernel_release(&k);
	return 1;
}

static int
cache_put(void *payload, const unsigned char key[CUDA_KEY_BYTES],
	  const char *arch, const void *data, size_t len, struct error *err)
{
	struct sqlite_store *s = payload;
	struct cache_kernel k;
	char hex[33];

	memset(&k, 0, sizeof(k));
	k.key = cuda_key_hex(key, hex);
	k.arch = (char *)arch;
	k.cubin = (unsigned char *)data;
	k.size = len;
	k.created_ms = cache_clock_ms();
	return cache_kernel_put(s->cache, &k, err);
}

int
cuda_store_cache_new(struct cache *c, struct cuda_kernel_store **out,
		     struct error *err)
{
	struct sqlite_store *s = mem_calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return error_set(err, ERROR_NOMEM, "out of memory");
	s->cache = c;
	s->store.payload = s;
	s->store.get = cache_get;
	s->store.put = cache_put;
	*out = &s->store;
	return 0;
}

void
cuda_store_cache_free(struct cuda_kernel_store *store)
{
	mem_free(store);
}
