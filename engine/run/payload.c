/*
 * Payload digests of artifacts (engine/run/payload.h): wheels read with
 * libzip, entry by entry, METADATA without its long description, the
 * wheel's own version masked in names and bytes.
 */
#include "engine/run/payload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zip.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/strv.h"
#include "graph/digest.h"
#include "base/banned.h"

/* The largest wheel entry read (bytes): a payload digest of a wheel with
 * a larger one fails, and its users are not cut off. */
#define PAYLOAD_ENTRY_MAX (1u << 30)

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/*
 * The package's own version as its bytes spell it, left out of the
 * payload (issue 25: a version group re-versions a member without
 * changing what its users get): the version itself, its dev segment
 * ("dev560") and its local label ("gcb56ab9f9"), as setuptools-scm's
 * _version.py writes them apart in version_tuple. Longest first.
 */
#define N_TOKENS 3

struct tokens {
	char text[N_TOKENS][160];
	size_t len[N_TOKENS];
	size_t n;
};

static void
token_add(struct tokens *t, const char *s, size_t n)
{
	if (n < 3 || n >= sizeof(t->text[0]) || t->n == N_TOKENS)
		return;
	memcpy(t->text[t->n], s, n);
	t->text[t->n][n] = '\0';
	t->len[t->n++] = n;
}

static void
tokens_of(struct tokens *t, const char *v, size_t n)
{
	const char *plus = memchr(v, '+', n), *dev;
	size_t pub = plus ? (size_t)(plus - v) : n;

	t->n = 0;
	token_add(t, v, n);
	if (plus)
		token_add(t, plus + 1, n - pub - 1);
	for (dev = v; dev + 3 < v + pub; dev++)
		if (!memcmp(dev, "dev", 3) && dev[3] >= '0' && dev[3] <= '9') {
			size_t k = 3;

			while (dev + k < v + pub && dev[k] >= '0' &&
			       dev[k] <= '9')
				k++;
			token_add(t, dev, k);
			break;
		}
}

/* Digest `len` bytes with every token spelled "{version}" instead. */
/* The first `tn` bytes `tok` in p[0..n), or NULL (memmem is not C11 and
 * not on Windows). */
static const char *
find(const char *p, size_t n, const char *tok, size_t tn)
{
	const char *end = p + n;

	while (tn && (size_t)(end - p) >= tn) {
		const char *at = memchr(p, tok[0], (size_t)(end - p) - tn + 1);

		if (!at)
			return NULL;
		if (!memcmp(at, tok, tn))
			return at;
		p = at + 1;
	}
	return NULL;
}

/* Append `len` bytes to b with every token spelled "{version}". */
static int
masked(struct buf *b, const struct tokens *t, const char *p, size_t len,
       struct error *err)
{
	const char *end = p + len;
	int rc = 0;

	while (!rc && p < end) {
		const char *best = NULL;
		size_t k, best_len = 0;

		for (k = 0; k < t->n; k++) {
			const char *at = find(p, (size_t)(end - p),
					      t->text[k], t->len[k]);

			if (at && (!best || at < best)) {
				best = at;
				best_len = t->len[k];
			}
		}
		if (!best)
			return buf_add(b, p, (size_t)(end - p), err);
		rc = buf_add(b, p, (size_t)(best - p), err);
		if (!rc)
			rc = buf_add(b, "{version}", 9, err);
		p = best + best_len;
	}
	return rc;
}

/* digest_add_str of s with the version masked. */
static int
add_name(struct digest_state *st, const struct tokens *t, const char *s,
	 struct error *err)
{
	struct buf b;
	int rc;

	buf_init(&b, 0);
	rc = masked(&b, t, s, strlen(s), err);
	if (!rc)
		rc = buf_addch(&b, '\0', err);
	if (!rc)
		digest_add_str(st, b.data);
	buf_release(&b);
	return rc;
}

/* METADATA's headers without Description: (folded lines included), into
 * b; the Version header's value into *ver (NULL when none). */
static int
metadata_headers(const char *text, size_t len, struct buf *b,
		 const char **ver, size_t *ver_len, struct error *err)
{
	const char *p = text, *end = text + len;
	int skipping = 0, rc = 0;

	*ver = NULL;
	*ver_len = 0;
	while (!rc && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		size_t k = n;

		while (k && (p[k - 1] == '\n' || p[k - 1] == '\r'))
			k--;
		if (!k)
			break;	/* the body: the long description */
		if (p[0] != ' ' && p[0] != '\t')
			skipping = k >= 12 && !strncmp(p, "Description:", 12);
		if (!*ver && k > 8 && !strncmp(p, "Version:", 8)) {
			*ver = p + 8;
			*ver_len = k - 8;
			while (*ver_len && (**ver == ' ' || **ver == '\t')) {
				(*ver)++;
				(*ver_len)--;
			}
		}
		if (!skipping)
			rc = buf_add(b, p, k, err);
		p += n;
	}
	return rc;
}

/* An entry's bytes, whole (the version may straddle any chunk). */
static int
read_entry(zip_t *z, zip_uint64_t i, const char *name, const char *path,
	   struct buf *b, struct error *err)
{
	zip_stat_t zs;
	zip_file_t *f;
	zip_int64_t got;
	int rc;

	zip_stat_init(&zs);
	if (zip_stat_index(z, i, 0, &zs) || !(zs.valid & ZIP_STAT_SIZE))
		return error_set(err, ERROR_INVALID, "wheel '%s': cannot read "
				 "entry '%s'", path, name);
	if (zs.size > PAYLOAD_ENTRY_MAX)
		return error_set(err, ERROR_INVALID, "wheel '%s': entry '%s' "
				 "is over %u MiB", path, name,
				 PAYLOAD_ENTRY_MAX >> 20);
	rc = buf_grow(b, (size_t)zs.size + 1, err);
	if (rc)
		return rc;
	f = zip_fopen_index(z, i, 0);
	if (!f)
		return error_set(err, ERROR_INVALID, "wheel '%s': cannot open "
				 "entry '%s'", path, name);
	got = zs.size ? zip_fread(f, b->data, zs.size) : 0;
	zip_fclose(f);
	if (got < 0 || (zip_uint64_t)got != zs.size)
		return error_set(err, ERROR_INVALID, "wheel '%s': cannot read "
				 "entry '%s'", path, name);
	b->len = (size_t)got;
	return 0;
}

/* An entry of a wheel: its name and index. */
struct entry {
	const char *name;
	zip_uint64_t index;
};

static int
cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name,
		      ((const struct entry *)b)->name);
}

/* The wheel's own version, from its METADATA, as tokens to mask. */
static int
wheel_tokens(zip_t *z, const struct entry *v, size_t n, const char *path,
	     struct tokens *t, struct error *err)
{
	struct buf raw, hdr;
	const char *ver;
	size_t i, ver_len;
	int rc = 0;

	t->n = 0;
	for (i = 0; i < n && !ends_with(v[i].name, ".dist-info/METADATA");
	     i++)
		;
	if (i == n)
		return 0;
	buf_init(&raw, 0);
	buf_init(&hdr, 0);
	rc = read_entry(z, v[i].index, v[i].name, path, &raw, err);
	if (!rc)
		rc = metadata_headers(raw.data, raw.len, &hdr, &ver, &ver_len,
				      err);
	if (!rc && ver)
		tokens_of(t, ver, ver_len);
	buf_release(&hdr);
	buf_release(&raw);
	return rc;
}

static int
add_entry(struct digest_state *st, zip_t *z, const struct entry *e,
	  const char *path, const struct tokens *t, struct error *err)
{
	struct buf raw, out;
	const char *ver;
	size_t ver_len;
	int rc;

	buf_init(&raw, 0);
	buf_init(&out, 0);
	rc = add_name(st, t, e->name, err);
	if (!rc)
		rc = read_entry(z, e->index, e->name, path, &raw, err);
	if (!rc && ends_with(e->name, ".dist-info/METADATA")) {
		struct buf hdr;

		buf_init(&hdr, 0);
		rc = metadata_headers(raw.data, raw.len, &hdr, &ver, &ver_len,
				      err);
		if (!rc)
			rc = masked(&out, t, hdr.data, hdr.len, err);
		buf_release(&hdr);
	} else if (!rc) {
		rc = masked(&out, t, raw.data, raw.len, err);
	}
	if (!rc)
		digest_add(st, out.data, out.len);
	buf_release(&out);
	buf_release(&raw);
	return rc;
}

/* A wheel's name and entries; 1 when the file is no zip (hash it whole,
 * name and all, as another file). */
static int
add_wheel(struct digest_state *st, const char *path, const char *base,
	  struct error *err)
{
	struct tokens t;
	zip_t *z;
	zip_int64_t n, i;
	struct entry *v = NULL;
	int zerr = 0, rc = 0;

	z = zip_open(path, ZIP_RDONLY, &zerr);
	if (!z)
		return 1;
	n = zip_get_num_entries(z, 0);
	v = mem_calloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*v));
	if (!v) {
		zip_discard(z);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	for (i = 0; !rc && i < n; i++) {
		v[i].name = zip_get_name(z, (zip_uint64_t)i, 0);
		v[i].index = (zip_uint64_t)i;
		if (!v[i].name)
			rc = error_set(err, ERROR_INVALID, "wheel '%s': an "
				       "entry has no name", path);
	}
	if (!rc)
		qsort(v, (size_t)n, sizeof(*v), cmp_entry);
	for (i = 1; !rc && i < n; i++)
		if (!strcmp(v[i].name, v[i - 1].name))
			rc = error_set(err, ERROR_INVALID, "wheel '%s': entry "
				       "'%s' named twice", path, v[i].name);
	if (!rc)
		rc = wheel_tokens(z, v, (size_t)(n > 0 ? n : 0), path, &t,
				  err);
	if (!rc)
		rc = add_name(st, &t, base, err);
	for (i = 0; !rc && i < n; i++)
		if (!ends_with(v[i].name, ".dist-info/RECORD") &&
		    !ends_with(v[i].name, "/"))
			rc = add_entry(st, z, &v[i], path, &t, err);
	mem_free(v);
	zip_discard(z);
	return rc;
}

static int
add_file(struct digest_state *st, const char *path, struct error *err)
{
	char buf[65536];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return error_set(err, errno == ENOENT ? ERROR_NOT_FOUND
						      : ERROR_IO,
				 "cannot read artifact '%s': %s", path,
				 strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		digest_add(st, buf, n);
	n = (size_t)ferror(f);
	fclose(f);
	return n ? error_set(err, ERROR_IO, "cannot read artifact '%s'",
			     path) : 0;
}

int
run_payload_digest(const char *root, const char *const *paths, size_t n,
		   struct digest *out, struct error *err)
{
	struct digest_state st = { NULL, NULL };
	const char **v = mem_calloc(n + 1, sizeof(*v));
	char full[4096];
	size_t i;
	int rc;

	if (!v)
		return error_set(err, ERROR_NOMEM, "out of memory");
	memcpy(v, paths, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_str);
	rc = digest_begin(&st, "ripple-payload-v2", err);
	for (i = 0; !rc && i < n; i++) {
		const char *base = strrchr(v[i], '/');

		base = base ? base + 1 : v[i];
		snprintf(full, sizeof(full), "%s%s%s",
			 v[i][0] == '/' ? "" : root,
			 v[i][0] == '/' ? "" : "/", v[i]);
		rc = ends_with(v[i], ".whl") ? add_wheel(&st, full, base, err)
					     : 1;
		if (rc == 1) {
			digest_add_str(&st, base);
			rc = add_file(&st, full, err);
		}
	}
	if (rc)
		digest_abort(&st);
	else
		digest_end(&st, out);
	mem_free(v);
	return rc;
}

int
run_payload_meta(const char *root, const struct strv *arts, struct strv *meta,
		 struct error *err)
{
	struct digest d;
	char line[64];
	int rc;

	rc = run_payload_digest(root, (const char *const *)arts->v, arts->n,
				&d, err);
	if (rc)
		return rc;
	snprintf(line, sizeof(line), "payload-digest=%s", d.hex);
	return strv_push(meta, line, err);
}
