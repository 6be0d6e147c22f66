/*
 * libFuzzer target: the cache's memo rows a plan reads instead of
 * recomputing, as a damaged or hostile cache file could hold them. First
 * byte 'm': the rest is a key manifest's text, read by
 * cache_components_decode (jansson, members taken with json_object_get);
 * it must give what json_loads and json_unpack's member rules give (the
 * same components, or an error for both). Any other first byte: the
 * rest is a parsed rules tree (rules/yaml_memo.c) handed to a rules load
 * through its memo, with the row's checksum made right so the reader's
 * structure checks are what is fuzzed; the load may fail, never crash,
 * leak or run long.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "base/buf.h"
#include "base/error.h"
#include "cache/cache.h"
#include "cache/internal.h"
#include "rules/rules.h"
#include "tests/fuzz/cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The components jansson reads from text, or -1 where it refuses it. */
static int
oracle(const char *text, struct cache_manifest *m)
{
	json_t *arr = json_loads(text, 0, NULL), *it;
	size_t i;
	int rc = json_is_array(arr) ? 0 : -1;

	json_array_foreach(arr, i, it) {
		const char *kind, *name, *digest, *detail;

		if (rc || json_unpack(it, "{s:s, s:s, s:s, s:s}", "kind", &kind,
				      "name", &name, "digest", &digest,
				      "detail", &detail) ||
		    cache_manifest_add(m, kind, name, digest, detail, NULL)) {
			rc = -1;
			break;
		}
	}
	json_decref(arr);
	return rc;
}

static void
manifest(const char *p, size_t n)
{
	char *text = malloc(n + 1);
	struct cache_manifest got, want;
	struct error err;
	size_t i;
	int rc, wrc;

	if (!text)
		return;
	memcpy(text, p, n);
	text[n] = '\0';
	memset(&got, 0, sizeof(got));
	memset(&want, 0, sizeof(want));
	error_init(&err);
	rc = cache_components_decode(NULL, text, &got, &err);
	wrc = oracle(text, &want);
	if ((rc == 0) != (wrc == 0) || (!rc && got.n != want.n))
		abort();
	for (i = 0; !rc && i < got.n; i++)
		if (strcmp(got.items[i].kind, want.items[i].kind) ||
		    strcmp(got.items[i].name, want.items[i].name) ||
		    strcmp(got.items[i].digest, want.items[i].digest) ||
		    strcmp(got.items[i].detail, want.items[i].detail))
			abort();
	cache_manifest_release(&got);
	cache_manifest_release(&want);
	free(text);
}

struct row {
	const char *p;
	size_t n;
};

#define KEY "0123456789abcdef0123456789abcdef"

static int
row_get(void *payload, const char *key, struct buf *out)
{
	const struct row *r = payload;
	uint64_t h;
	unsigned char sum[8];
	int i;

	(void)key;
	if (buf_add(out, RULES_TREE_FORMAT, strlen(RULES_TREE_FORMAT), NULL) ||
	    buf_add(out, KEY, strlen(KEY), NULL) ||
	    buf_add(out, r->p, r->n, NULL))
		return 0;
	h = XXH3_64bits(out->data, out->len);
	for (i = 0; i < 8; i++)
		sum[i] = (unsigned char)(h >> (8 * i));
	return buf_add(out, sum, 8, NULL) ? 0 : 1;
}

static void
row_put(void *payload, const char *key, const void *tree, size_t tree_len)
{
	(void)payload;
	(void)key;
	(void)tree;
	(void)tree_len;
}

static int
no_files(void *payload, const char *path, char **data, size_t *len,
	 struct error *err)
{
	(void)payload;
	(void)data;
	(void)len;
	return error_set(err, ERROR_NOT_FOUND, "no file %s", path);
}

static void
tree(const char *p, size_t n)
{
	static const char text[] = "version: 1\n";
	struct row r = { p, n };
	struct rules_tree_memo memo = { row_get, row_put, NULL, &r, KEY, 0 };
	struct rules_files files = { no_files, NULL, &memo };
	struct error_list errs;
	struct rules *rules = NULL;

	error_list_init(&errs, 0);
	rules_load_buffer_files("fuzz.yml", text, sizeof(text) - 1, &files,
				&rules, &errs);
	rules_free(rules);
	error_list_release(&errs);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double start = fuzz_cpu_now();

	if (size && data[0] == 'm')
		manifest((const char *)data + 1, size - 1);
	else if (size)
		tree((const char *)data + 1, size - 1);
	fuzz_cpu_check(start);
	return 0;
}
