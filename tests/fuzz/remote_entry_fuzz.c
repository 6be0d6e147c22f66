/*
 * libFuzzer target: the remote cache's hostile inputs, an AC entry (REAPI
 * ActionResult bytes, remote_action_decode) and a record blob (JSON,
 * remote_record_decode). The first byte picks the decoder ('a' the entry,
 * anything else the record); the rest is the input. Beyond crashes and
 * sanitizer reports (the `NULL + 0` of an output without a path was one),
 * it checks what the decoders promise their callers: a decoded entry's
 * paths pass remote_output_path_check (relative, no "..", no control
 * byte, not under .git/ or .ripple/), are sorted and unique, its digests
 * are well formed, an inline record (REAPI contents) is its digest's size,
 * and it encodes back to bytes that decode to the same outputs and inline
 * record; a decoded record's artifacts hold no control byte, and it
 * encodes back to a blob that decodes to the same node, key and artifacts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "cache/remote.h"
#include "tests/fuzz/cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
expect(int ok)
{
	if (!ok)
		abort();
}

static void
same_outputs(const struct remote_action *a, const struct remote_action *b)
{
	size_t i;

	expect(a->n == b->n && !strcmp(a->record.hash, b->record.hash) &&
	       a->record.size == b->record.size);
	/* An inline record was checked against its digest, and survives. */
	expect(!a->record_text == !b->record_text);
	expect(!a->record_text ||
	       ((int64_t)a->record_len == a->record.size &&
		a->record_len == b->record_len &&
		!memcmp(a->record_text, b->record_text, a->record_len)));
	for (i = 0; i < a->n; i++)
		expect(!strcmp(a->outputs[i].path, b->outputs[i].path) &&
		       !strcmp(a->outputs[i].digest.hash,
			       b->outputs[i].digest.hash) &&
		       a->outputs[i].digest.size == b->outputs[i].digest.size &&
		       a->outputs[i].executable == b->outputs[i].executable);
}

static void
entry(const uint8_t *p, size_t n)
{
	struct remote_action a, b;
	unsigned char *bytes = NULL;
	struct error err;
	size_t i, len = 0;

	error_init(&err);
	if (remote_action_decode(p, n, &a, &err)) {
		expect(err.code == ERROR_CORRUPT || err.code == ERROR_NOMEM);
		return;
	}
	for (i = 0; i < a.n; i++) {
		const char *path = a.outputs[i].path;

		error_init(&err);
		expect(!remote_output_path_check(path, strlen(path), &err));
		expect(remote_hash_valid(a.outputs[i].digest.hash) &&
		       a.outputs[i].digest.size >= 0);
		expect(!i || strcmp(a.outputs[i - 1].path, path) < 0);
	}
	error_init(&err);
	if (remote_action_encode(&a, &bytes, &len, &err)) {
		expect(err.code == ERROR_NOMEM);
		remote_action_release(&a);
		return;
	}
	error_init(&err);
	if (!remote_action_decode(bytes, len, &b, &err)) {
		same_outputs(&a, &b);
		remote_action_release(&b);
	} else {
		expect(err.code == ERROR_NOMEM);
	}
	mem_free(bytes);
	remote_action_release(&a);
}

static int
has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

static void
record(const uint8_t *p, size_t n)
{
	struct remote_record r, back;
	struct error err;
	char *text = NULL;
	size_t i, len = 0;

	memset(&r, 0, sizeof(r));
	memset(&back, 0, sizeof(back));
	error_init(&err);
	if (remote_record_decode((const char *)p, n, &r, &err)) {
		remote_record_release(&r);
		return;
	}
	for (i = 0; i < r.rec.artifacts.n; i++)
		expect(!has_control(r.rec.artifacts.v[i]));
	error_init(&err);
	if (!remote_record_encode(&r.rec, &r.manifest, &r.run, r.runner,
				  &text, &len, &err)) {
		error_init(&err);
		if (!remote_record_decode(text, len, &back, &err)) {
			expect(!strcmp(back.rec.key, r.rec.key));
			expect(!back.rec.node_id == !r.rec.node_id);
			expect(!r.rec.node_id ||
			       !strcmp(back.rec.node_id, r.rec.node_id));
			expect(back.rec.artifacts.n == r.rec.artifacts.n);
			for (i = 0; i < r.rec.artifacts.n; i++)
				expect(!strcmp(back.rec.artifacts.v[i],
					       r.rec.artifacts.v[i]));
		} else {
			expect(err.code == ERROR_NOMEM);
		}
	}
	mem_free(text);
	remote_record_release(&back);
	remote_record_release(&r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double start = fuzz_cpu_now();

	if (size < 1 || size > (1 << 20))
		return 0;
	if (data[0] == 'a')
		entry(data + 1, size - 1);
	else
		record(data + 1, size - 1);
	fuzz_cpu_check(start);
	return 0;
}
