/*
 * libFuzzer target: `ripple cache import` of a document into an empty,
 * temporary SQLite cache (in memory), then the same document again (it
 * must change nothing), once more with REPLACE, and an export of every run
 * the cache then holds. The input is the document. Crashes, sanitizer
 * reports, slow inputs and a second import that adds anything are
 * findings; rejected documents are not. A rejected import changes nothing
 * (one transaction), so the empty cache is kept until one succeeds:
 * opening a cache costs more than most inputs.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "tests/fuzz/cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
expect(int ok)
{
	if (!ok)
		abort();
}

static void
export_all(struct cache *c)
{
	struct cache_run_filter f = CACHE_RUN_FILTER_INIT;
	struct cache_run_list list = { NULL, 0 };
	struct error err;
	size_t i, len;
	char *out;

	error_init(&err);
	if (cache_run_list(c, &f, &list, &err))
		return;
	for (i = 0; i < list.n; i++) {
		out = NULL;
		error_init(&err);
		cache_run_export(c, list.items[i].id, &out, &len, &err);
		mem_free(out);
	}
	cache_run_list_release(&list);
}

static int
fuzz_one(const uint8_t *data, size_t size)
{
	static struct cache *c;	/* empty between inputs */
	const char *text = (const char *)data;
	struct cache_import_stats st;
	struct error err;

	if (size > 1 << 20)
		return 0;
	error_init(&err);
	if (!c && cache_open(":memory:", CACHE_OPEN_CREATE, &c, &err))
		abort();	/* the harness itself is broken */
	error_init(&err);
	if (cache_import(c, text, size, 0, &st, &err))
		return 0;
	error_init(&err);
	expect(!cache_import(c, text, size, 0, &st, &err));
	expect(!st.runs_added && !st.records_added && !st.records_replaced &&
	       !st.manifests_added);
	error_init(&err);
	cache_import(c, text, size, CACHE_IMPORT_REPLACE, &st, &err);
	export_all(c);
	cache_close(c);
	c = NULL;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double start = fuzz_cpu_now();

	fuzz_one(data, size);
	fuzz_cpu_check(start);
	return 0;
}
