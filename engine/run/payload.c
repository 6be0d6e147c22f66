/*
 * Payload digests of artifacts (engine/run/payload.h): wheels read with
 * libzip, entry by entry, METADATA without its long description.
 */
#include "engine/run/payload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zip.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/strv.h"
#include "graph/digest.h"
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

/* METADATA's headers without Description: (folded lines included). */
static void
add_metadata(struct digest_state *st, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int skipping = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		size_t k = n;

		while (k && (p[k - 1] == '\n' || p[k - 1] == '\r'))
			k--;
		if (!k)
			break;	/* the body: the long description */
		if (p[0] == ' ' || p[0] == '\t') {
			if (!skipping)
				digest_add(st, p, k);
		} else {
			skipping = k >= 12 && !strncmp(p, "Description:", 12);
			if (!skipping)
				digest_add(st, p, k);
		}
		p += n;
	}
}

static int
add_entry(struct digest_state *st, zip_t *z, zip_uint64_t i,
	  const char *name, const char *path, struct error *err)
{
	zip_stat_t zs;
	zip_file_t *f;
	char *buf;
	zip_int64_t got;
	int meta = ends_with(name, ".dist-info/METADATA");

	zip_stat_init(&zs);
	if (zip_stat_index(z, i, 0, &zs) || !(zs.valid & ZIP_STAT_SIZE))
		return error_set(err, ERROR_INVALID, "wheel '%s': cannot read "
				 "entry '%s'", path, name);
	f = zip_fopen_index(z, i, 0);
	buf = mem_alloc(65536);
	if (!f || !buf) {
		if (f)
			zip_fclose(f);
		mem_free(buf);
		return buf ? error_set(err, ERROR_INVALID, "wheel '%s': cannot "
				       "open entry '%s'", path, name)
			   : error_set(err, ERROR_NOMEM, "out of memory");
	}
	digest_add_str(st, name);
	if (meta) {
		char *text = zs.size < (1u << 24) ? mem_alloc(zs.size + 1)
						  : NULL;

		got = text ? zip_fread(f, text, zs.size) : -1;
		if (got >= 0 && (zip_uint64_t)got == zs.size)
			add_metadata(st, text, (size_t)got);
		mem_free(text);
		if (got < 0 || (zip_uint64_t)got != zs.size) {
			zip_fclose(f);
			mem_free(buf);
			return error_set(err, ERROR_INVALID, "wheel '%s': cannot "
					 "read its METADATA", path);
		}
	} else {
		while ((got = zip_fread(f, buf, 65536)) > 0)
			digest_add(st, buf, (size_t)got);
		if (got < 0) {
			zip_fclose(f);
			mem_free(buf);
			return error_set(err, ERROR_INVALID, "wheel '%s': cannot "
					 "read entry '%s'", path, name);
		}
	}
	zip_fclose(f);
	mem_free(buf);
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

/* A wheel's entries; 1 when the file is no zip (hash it whole). */
static int
add_wheel(struct digest_state *st, const char *path, struct error *err)
{
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
	for (i = 0; !rc && i < n; i++) {
		if (i && !strcmp(v[i].name, v[i - 1].name))
			rc = error_set(err, ERROR_INVALID, "wheel '%s': entry "
				       "'%s' named twice", path, v[i].name);
		else if (!ends_with(v[i].name, ".dist-info/RECORD") &&
			 !ends_with(v[i].name, "/"))
			rc = add_entry(st, z, v[i].index, v[i].name, path,
				       err);
	}
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
	rc = digest_begin(&st, "ripple-payload-v1", err);
	for (i = 0; !rc && i < n; i++) {
		const char *base = strrchr(v[i], '/');

		snprintf(full, sizeof(full), "%s%s%s",
			 v[i][0] == '/' ? "" : root,
			 v[i][0] == '/' ? "" : "/", v[i]);
		digest_add_str(&st, base ? base + 1 : v[i]);
		rc = ends_with(v[i], ".whl") ? add_wheel(&st, full, err) : 1;
		if (rc == 1)
			rc = add_file(&st, full, err);
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
