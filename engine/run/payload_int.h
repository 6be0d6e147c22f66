/*
 * Inside engine/run: what the payload digests of wheels (payload.c) and
 * conda packages (payload_conda.c) share. The package's own version as
 * its bytes spell it is left out of a payload (issue 25: a version group
 * re-versions a member without changing what its users get): the version
 * itself, its local label ("gcb56ab9f9") and its dev segment ("dev560"),
 * as setuptools-scm's _version.py writes them apart in version_tuple,
 * each read as "{version}".
 */
#ifndef RIPPLE_ENGINE_RUN_PAYLOAD_INT_H
#define RIPPLE_ENGINE_RUN_PAYLOAD_INT_H

#include <stddef.h>

struct buf;
struct digest_state;
struct error;

/* The largest entry read whole (bytes): a payload digest of a package
 * with a larger one fails, and its users are not cut off. */
#define PAYLOAD_ENTRY_MAX (1u << 30)

#define PAYLOAD_TOKENS 3

/* The spellings of one version to mask, longest first. */
struct payload_tokens {
	char text[PAYLOAD_TOKENS][160];
	size_t len[PAYLOAD_TOKENS];
	size_t n;	/* 0: mask nothing */
};

/* The tokens of version v (n bytes, not NUL-terminated) into *t; a token
 * shorter than 3 bytes is left out. */
void payload_tokens_of(struct payload_tokens *t, const char *v, size_t n);

/* Append `len` bytes at p to b with every token spelled "{version}".
 * Returns 0 or ERROR_NOMEM. */
int payload_masked(struct buf *b, const struct payload_tokens *t,
		   const char *p, size_t len, struct error *err);

/* digest_add_str of s with the version masked. Returns 0 or
 * ERROR_NOMEM. */
int payload_add_name(struct digest_state *st, const struct payload_tokens *t,
		     const char *s, struct error *err);

/*
 * A METADATA file's header fields without `Description:` (folded lines
 * included) and without the body (the long description), appended to b;
 * the Version header's value into *ver, *ver_len (NULL, 0 when none;
 * pointing into text). Returns 0 or ERROR_NOMEM.
 */
int payload_metadata_headers(const char *text, size_t len, struct buf *b,
			     const char **ver, size_t *ver_len,
			     struct error *err);

/*
 * Add the conda package at `path` (.conda or .tar.bz2) to st: its name
 * from info/index.json, then, sorted, one "NAME\nHEX" per file and link
 * (payload_conda.c says what counts). Returns 0; 1 when it cannot be
 * seen through (no archive, no info/index.json, no libarchive, an entry
 * over the limit: the caller hashes the file whole, which never cuts off
 * wrongly); ERROR_NOMEM.
 */
int payload_add_conda(struct digest_state *st, const char *path,
		      struct error *err);

#endif
