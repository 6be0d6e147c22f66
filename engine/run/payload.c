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
#include "engine/run/payload_int.h"
#include "base/banned.h"

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
	     struct payload_tokens *t, struct error *err)
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
		rc = payload_metadata_headers(raw.data, raw.len, &hdr, &ver, &ver_len,
				      err);
	if (!rc && ver)
		payload_tokens_of(t, ver, ver_len);
	buf_release(&hdr);
	buf_release(&raw);
	return rc;
}

static int
add_entry(struct digest_state *st, zip_t *z, const struct entry *e,
	  const char *path, const struct payload_tokens *t, struct error *err)
{
	struct buf raw, out;
	const char *ver;
	size_t ver_len;
	int rc;

	buf_init(&raw, 0);
	buf_init(&out, 0);
	rc = payload_add_name(st, t, e->name, err);
	if (!rc)
		rc = read_entry(z, e->index, e->name, path, &raw, err);
	if (!rc && ends_with(e->name, ".dist-info/METADATA")) {
		struct buf hdr;

		buf_init(&hdr, 0);
		rc = payload_metadata_headers(raw.data, raw.len, &hdr, &ver, &ver_len,
				      err);
		if (!rc)
			rc = payload_masked(&out, t, hdr.data, hdr.len, err);
		buf_release(&hdr);
	} else if (!rc) {
		rc = payload_masked(&out, t, raw.data, raw.len, err);
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
	struct payload_tokens t;
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
		rc = payload_add_name(st, &t, base, err);
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
	struct digest_state st = DIGEST_STATE_INIT;
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
		   : ends_with(v[i], ".conda") || ends_with(v[i], ".tar.bz2")
			? payload_add_conda(&st, full, err)
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
