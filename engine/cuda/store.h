/*
 * Where compiled cubins are kept between runs: a small interface (get/put
 * function pointers plus a payload) that the coordinator wires to the SQLite
 * cache's kernels table, and two implementations for tests and the CLI: in
 * memory, and one file per key in a directory.
 */
#ifndef RIPPLE_ENGINE_CUDA_STORE_H
#define RIPPLE_ENGINE_CUDA_STORE_H

#include <stddef.h>

struct error;

#define CUDA_KEY_BYTES 16	/* XXH3-128, canonical (big-endian) bytes */

struct cuda_kernel_store {
	void *payload;
	/*
	 * Look up `key`. Returns 1 and sets *data (mem_alloc'd, the caller
	 * frees with mem_free) and *len (bytes) on a hit, 0 on a miss, or a
	 * negative ERROR_* code.
	 */
	int (*get)(void *payload, const unsigned char key[CUDA_KEY_BYTES],
		   void **data, size_t *len, struct error *err);
	/*
	 * Store `len` bytes under `key` for architecture `arch` ("sm_90"),
	 * replacing any earlier value. The store copies the bytes. Returns 0
	 * or a negative ERROR_* code.
	 */
	int (*put)(void *payload, const unsigned char key[CUDA_KEY_BYTES],
		   const char *arch, const void *data, size_t len,
		   struct error *err);
};

/* Lowercase hex of a key into buf (at least 33 bytes); returns buf. */
char *cuda_key_hex(const unsigned char key[CUDA_KEY_BYTES], char *buf);

/*
 * An in-memory store: entries live until cuda_store_memory_free. On success
 * *out is a new store whose payload is owned by it. ERROR_NOMEM.
 */
int cuda_store_memory_new(struct cuda_kernel_store **out, struct error *err);

/* Free a store made by cuda_store_memory_new. Accepts NULL. */
void cuda_store_memory_free(struct cuda_kernel_store *store);

/*
 * A directory store: DIR/<hex key>.cubin per entry, written to a temporary
 * file then renamed (so readers never see half a cubin). The directory is
 * created (one level) if missing. *out owns a copy of `dir`; free with
 * cuda_store_dir_free. Errors: ERROR_IO when DIR cannot be made, ERROR_NOMEM.
 */
int cuda_store_dir_new(const char *dir, struct cuda_kernel_store **out,
		       struct error *err);

/* Free a store made by cuda_store_dir_new (the files stay). Accepts NULL. */
void cuda_store_dir_free(struct cuda_kernel_store *store);

/*
 * A store over the SQLite cache's kernels table (cache_kernel_get/put),
 * keyed by the hex of the key. `c` is borrowed and must outlive the store.
 * Free with cuda_store_cache_free. Errors: ERROR_NOMEM.
 */
struct cache;
int cuda_store_cache_new(struct cache *c, struct cuda_kernel_store **out,
			 struct error *err);

/* Free a store made by cuda_store_cache_new. Accepts NULL. */
void cuda_store_cache_free(struct cuda_kernel_store *store);

#endif
