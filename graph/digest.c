/*
 * XXH3-128 through libxxhash: streaming, length-prefixed hashing for keys and
 * one-shot hashing for output digests. Hex is always lowercase.
 */
#include "graph/digest.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>

/* For XXH3_state_t's size: the state lives in memory we allocate. */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

/* Hand the staged bytes to XXH3. */
static void
flush(struct digest_state *st)
{
	assert(st->xxh);	/* digest_begin_short's bound kept */
	if (st->staged)
		XXH3_128bits_update(st->xxh, st->stage, st->staged);
	st->staged = 0;
}

/* Add n raw bytes through the stage. */
static void
stage(struct digest_state *st, const void *p, size_t n)
{
	if (st->staged + n > sizeof(st->stage)) {
		flush(st);
		if (n > sizeof(st->stage) / 2) {
			XXH3_128bits_update(st->xxh, p, n);
			return;
		}
	}
	memcpy(st->stage + st->staged, p, n);
	st->staged += n;
}

int
digest_begin(struct digest_state *st, const char *domain, struct error *err)
{
	/* XXH3_state_t wants 64-byte alignment (XXH3_createState uses an
	 * aligned malloc that bypasses the allocation seam). */
	unsigned char *raw = mem_alloc(sizeof(XXH3_state_t) + 64);
	XXH3_state_t *s;

	st->xxh = st->raw = NULL;
	st->staged = 0;
	if (!raw)
		return error_nomem(err);
	s = (XXH3_state_t *)(void *)(raw + (64 - (uintptr_t)raw % 64) % 64);
	XXH3_INITSTATE(s);
	XXH3_128bits_reset(s);
	st->xxh = s;
	st->raw = raw;
	digest_add_str(st, domain);
	return 0;
}

void
digest_begin_short(struct digest_state *st, const char *domain)
{
	st->xxh = st->raw = NULL;
	st->staged = 0;
	digest_add_str(st, domain);
}

void
digest_add_long(struct digest_state *st, const void *p, size_t n)
{
	unsigned char len[8];

	digest_put_u64le(len, (uint64_t)n);
	stage(st, len, sizeof(len));
	if (n)
		stage(st, p, n);
}

void
digest_add_raw(struct digest_state *st, const void *p, size_t n)
{
	if (n)
		stage(st, p, n);
}

void
digest_add_u64(struct digest_state *st, uint64_t v)
{
	unsigned char b[8];

	digest_put_u64le(b, v);
	stage(st, b, sizeof(b));
}

static void
from_hash(XXH128_hash_t h, struct digest *out)
{
	XXH128_canonical_t c;

	XXH128_canonicalFromHash(&c, h);
	memcpy(out->bytes, c.digest, sizeof(out->bytes));
	digest_to_hex(out);
}

void
digest_end(struct digest_state *st, struct digest *out)
{
	if (!st->xxh) {
		/* digest_begin_short's: everything is on the stage. */
		from_hash(XXH3_128bits(st->stage, st->staged), out);
		st->staged = 0;
		return;
	}
	flush(st);
	from_hash(XXH3_128bits_digest(st->xxh), out);
	mem_free(st->raw);
	st->xxh = st->raw = NULL;
}

void
digest_abort(struct digest_state *st)
{
	if (st) {
		mem_free(st->raw);
		st->xxh = st->raw = NULL;
		st->staged = 0;
	}
}

void
digest_bytes(const void *p, size_t n, struct digest *out)
{
	from_hash(XXH3_128bits(p, n), out);
}

void
digest_to_hex(struct digest *out)
{
	static const char hexd[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 16; i++) {
		out->hex[2 * i] = hexd[out->bytes[i] >> 4];
		out->hex[2 * i + 1] = hexd[out->bytes[i] & 15];
	}
	out->hex[32] = '\0';
}

/* A hex digit's value plus one, 0 for any other byte: a lookup a digit
 * (a warm plan reads 500 keys from the memo). */
static const unsigned char hexval1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
	['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14,
	['E'] = 15, ['F'] = 16,
};

int
digest_from_hex(const char *hex, struct digest *out, struct error *err)
{
	int i;

	if (!hex || strlen(hex) != 32)
		return error_set(err, ERROR_INVALID,
				 "digest '%s' is not 32 hex digits",
				 hex ? hex : "");
	for (i = 0; i < 16; i++) {
		int hi = hexval1[(unsigned char)hex[2 * i]] - 1;
		int lo = hexval1[(unsigned char)hex[2 * i + 1]] - 1;

		if (hi < 0 || lo < 0)
			return error_set(err, ERROR_INVALID,
					 "digest '%s' is not 32 hex digits",
					 hex);
		out->bytes[i] = (unsigned char)(hi << 4 | lo);
	}
	digest_to_hex(out);
	return 0;
}
