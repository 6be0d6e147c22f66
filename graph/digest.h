/*
 * XXH3-128 digests as ripple uses them: a 16-byte value with its 32-digit
 * lowercase hex text, and a streaming hasher whose inputs are
 * length-prefixed so that ("ab","c") and ("a","bc") never collide.
 */
#ifndef RIPPLE_GRAPH_DIGEST_H
#define RIPPLE_GRAPH_DIGEST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct error;

struct digest {
	unsigned char bytes[16];	/* big-endian canonical XXH128 form */
	char hex[33];			/* lowercase hex, NUL-terminated */
};

/* Bytes added in small pieces are gathered here and handed to XXH3 in
 * one call (its streaming update costs some 80 instructions a call, more
 * than hashing a short string); the digest does not depend on it. */
#define DIGEST_STAGE 512

struct digest_state {
	void *xxh;	/* an XXH3_state_t (64-byte aligned) inside raw */
	void *raw;	/* owned: allocated through base/mem.h's seam */
	size_t staged;	/* bytes waiting in stage */
	unsigned char stage[DIGEST_STAGE];
};

/* A state that digest_abort accepts before digest_begin ran. */
#define DIGEST_STATE_INIT { NULL, NULL, 0, { 0 } }

/*
 * Start a hasher with a domain tag (e.g. "ripple-key-v1"), itself hashed
 * length-prefixed. The state is allocated through base/mem.h, so tests
 * can make it fail. Returns 0 or ERROR_NOMEM.
 */
int digest_begin(struct digest_state *st, const char *domain,
		 struct error *err);

/*
 * Start a hasher for at most DIGEST_STAGE bytes in all (the domain's and
 * every add's 8-byte prefix counted): it allocates nothing and cannot
 * fail, and digest_end hashes the stage in one call, to the value
 * digest_begin's stream gives. Adding past the bound is a programming
 * error (asserted). For short inputs asked many times (a plan's 500
 * memo ids), where the stream's state cost more than the hashing.
 */
void digest_begin_short(struct digest_state *st, const char *domain);

/* digest_add's way for what does not fit the stage (digest.c). */
void digest_add_long(struct digest_state *st, const void *p, size_t n);

/*
 * v as 8 little-endian bytes at d: the length prefix of digest_add's
 * framing, and every u64 digest.c adds. Written byte by byte so that the
 * compiler merges the stores into one (a loop cost 25 instructions a
 * call: 1.3 M of a warm plan).
 */
static inline void
digest_put_u64le(unsigned char *d, uint64_t v)
{
	d[0] = (unsigned char)v;
	d[1] = (unsigned char)(v >> 8);
	d[2] = (unsigned char)(v >> 16);
	d[3] = (unsigned char)(v >> 24);
	d[4] = (unsigned char)(v >> 32);
	d[5] = (unsigned char)(v >> 40);
	d[6] = (unsigned char)(v >> 48);
	d[7] = (unsigned char)(v >> 56);
}

/*
 * Add n bytes, prefixed with n as a little-endian u64. Inline: a warm
 * plan adds some 25,000 short strings (a node key's components, memo
 * ids), and the calls down to the stage cost more than the copies.
 */
static inline void
digest_add(struct digest_state *st, const void *p, size_t n)
{
	unsigned char *d = st->stage + st->staged;

	if (st->staged + 8 + n > sizeof(st->stage)) {
		digest_add_long(st, p, n);
		return;
	}
	digest_put_u64le(d, n);
	if (n)
		memcpy(d + 8, p, n);
	st->staged += 8 + n;
}

/*
 * Add n bytes without a prefix: the pieces of one value streamed after
 * digest_add_u64(st, total), which together hash as digest_add would.
 */
void digest_add_raw(struct digest_state *st, const void *p, size_t n);

/* Add a NUL-terminated string (length-prefixed; NULL adds as ""). */
static inline void
digest_add_str(struct digest_state *st, const char *s)
{
	digest_add(st, s ? s : "", s ? strlen(s) : 0);
}

/* Add an unsigned integer as a little-endian u64 (no prefix needed). */
void digest_add_u64(struct digest_state *st, uint64_t v);

/* Finish into *out and free the state (digest_begin's or
 * digest_begin_short's). */
void digest_end(struct digest_state *st, struct digest *out);

/* Free a state without a result (error paths). Accepts a zeroed state. */
void digest_abort(struct digest_state *st);

/* One-shot XXH3-128 of raw bytes (no prefix, no domain): output digests. */
void digest_bytes(const void *p, size_t n, struct digest *out);

/* Fill out->hex from out->bytes. */
void digest_to_hex(struct digest *out);

/* Parse 32 hex digits into *out. Returns 0 or ERROR_INVALID. */
int digest_from_hex(const char *hex, struct digest *out, struct error *err);

#endif
