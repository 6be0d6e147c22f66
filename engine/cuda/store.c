/*
 * The cubin store implementations: a linked list in memory, and a directory
 * of <key>.cubin files. The SQLite-backed store lives with the cache and is
 * wired in by the caller through struct cuda_kernel_store.
 */
#include "engine/cuda/store.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fsys.h"
#include "base/mem.h"
#include "base/banned.h"

char *
cuda_key_hex(const unsigned char key[CUDA_KEY_BYTES], char *buf)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < CUDA_KEY_BYTES; i++) {
		buf[2 * i] = digits[key[i] >> 4];
		buf[2 * i + 1] = digits[key[i] & 15];
	}
	buf[2 * CUDA_KEY_BYTES] = '\0';
	return buf;
}

/* --- in memory --- */

struct mem_entry {
	unsigned char key[CUDA_KEY_BYTES];
	void *data;
	size_t len;
	struct mem_entry *next;
};

struct mem_store {
	struct cuda_kernel_store store;
	struct mem_entry *head;
};

static int
mem_get(void *payload, const unsigned char key[CUDA_KEY_BYTES], void **data,
	size_t *len, struct error *err)
{
	struct mem_store *m = payload;
	struct mem_entry *e;

	for (e = m->head; e; e = e->next) {
		if (memcmp(e->key, key, CUDA_KEY_BYTES))
			continue;
		*data = mem_alloc(e->len ? e->len : 1);
		if (!*data)
			return error_set(err, ERROR_NOMEM, "out of memory");
		memcpy(*data, e->data, e->len);
		*len = e->len;
		return 1;
	}
	return 0;
}

static int
mem_put(void *payload, const unsigned char key[CUDA_KEY_BYTES],
	const char *arch, const void *data, size_t len, struct error *err)
{
	struct mem_store *m = payload;
	struct mem_entry *e;
	void *copy = mem_alloc(len ? len : 1);

	(void)arch;	/* the key covers the architecture */

	if (!copy)
		return error_set(err, ERROR_NOMEM, "out of memory");
	memcpy(copy, data, len);
	for (e = m->head; e; e = e->next) {
		if (!memcmp(e->key, key, CUDA_KEY_BYTES)) {
			mem_free(e->data);
			e->data = copy;
			e->len = len;
			return 0;
		}
	}
	e = mem_calloc(1, sizeof(*e));
	if (!e) {
		mem_free(copy);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	memcpy(e->key, key, CUDA_KEY_BYTES);
	e->data = copy;
	e->len = len;
	e->next = m->head;
	m->head = e;
	return 0;
}

int
cuda_store_memory_new(struct cuda_kernel_store **out, struct error *err)
{
	struct mem_store *m = mem_calloc(1, sizeof(*m));

	*out = NULL;
	if (!m)
		return error_set(err, ERROR_NOMEM, "out of memory");
	m->store.payload = m;
	m->store.get = mem_get;
	m->store.put = mem_put;
	*out = &m->store;
	return 0;
}

void
cuda_store_memory_free(struct cuda_kernel_store *store)
{
	struct mem_store *m;
	struct mem_entry *e, *next;

	if (!store)
		return;
	m = store->payload;
	for (e = m->head; e; e = next) {
		next = e->next;
		mem_free(e->data);
		mem_free(e);
	}
	mem_free(m);
}

/* --- a directory of files --- */

struct dir_store {
	struct cuda_kernel_store store;
	char *dir;
};

static int
dir_get(void *payload, const unsigned char key[CUDA_KEY_BYTES], void **data,
	size_t *len, struct error *err)
{
	struct dir_store *d = payload;
	char hex[2 * CUDA_KEY_BYTES + 1], path[4096];
	struct stat st;
	FILE *f;
	void *p;

	snprintf(path, sizeof(path), "%s/%s.cubin", d->dir,
		 cuda_key_hex(key, hex));
	f = fopen(path, "rb");
	if (!f)
		return errno == ENOENT ? 0
				       : error_set(err, ERROR_IO,
						   "cannot open '%s': %s",
						   path, strerror(errno));
	if (fstat(fileno(f), &st) != 0) {
		fclose(f);
		return error_set(err, ERROR_IO, "cannot stat '%s': %s", path,
				 strerror(errno));
	}
	p = mem_alloc(st.st_size ? (size_t)st.st_size : 1);
	if (!p) {
		fclose(f);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	if (fread(p, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		fclose(f);
		mem_free(p);
		return error_set(err, ERROR_IO, "short read of '%s'", path);
	}
	fclose(f);
	*data = p;
	*len = (size_t)st.st_size;
	return 1;
}

static int
dir_put(void *payload, const unsigned char key[CUDA_KEY_BYTES],
	const char *arch, const void *data, size_t len, struct error *err)
{
	struct dir_store *d = payload;
	char hex[2 * CUDA_KEY_BYTES + 1], path[4096], tmp[4200];
	FILE *f;
	int ok;

	(void)arch;	/* the key covers the architecture */

	cuda_key_hex(key, hex);
	snprintf(path, sizeof(path), "%s/%s.cubin", d->dir, hex);
	snprintf(tmp, sizeof(tmp), "%s/.%s.%ld.tmp", d->dir, hex,
		 (long)getpid());
	f = fopen(tmp, "wb");
	if (!f)
		return error_set(err, ERROR_IO, "cannot write '%s': %s", tmp,
				 strerror(errno));
	ok = fwrite(data, 1, len, f) == len;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return error_set(err, ERROR_IO, "cannot write '%s': %s", path,
				 strerror(errno));
	}
	return 0;
}

int
cuda_store_dir_new(const char *dir, struct cuda_kernel_store **out,
		   struct error *err)
{
	struct dir_store *d;
	int e;

	*out = NULL;
	/* dir_get and dir_put join dir and a key into 4,096 bytes: a path
	 * cut short would drop part of the key, and two kernels would
	 * share one file. Room for "/.KEY.PID.tmp" is kept. */
	if (strlen(dir) + 2 * CUDA_KEY_BYTES + 32 >= 4096)
		return error_set(err, ERROR_INVALID, "kernel cache folder "
				 "'%.200s...' is too long", dir);
	e = fsys_mkdir(dir);
	if (e && e != EEXIST)
		return error_set(err, ERROR_IO, "cannot create '%s': %s", dir,
				 strerror(e));
	d = mem_calloc(1, sizeof(*d));
	if (!d)
		return error_set(err, ERROR_NOMEM, "out of memory");
	d->dir = mem_strdup(dir);
	if (!d->dir) {
		mem_free(d);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	d->store.payload = d;
	d->store.get = dir_get;
	d->store.put = dir_put;
	*out = &d->store;
	return 0;
}

void
cuda_store_dir_free(struct cuda_kernel_store *store)
{
	struct dir_store *d;

	if (!store)
		return;
	d = store->payload;
	mem_free(d->dir);
	mem_free(d);
}
