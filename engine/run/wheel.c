/*
 * Core metadata of a built wheel: the header fields of
 * NAME.dist-info/METADATA (an RFC 822 style header block ending at the
 * first empty line), read with libzip. Only Version and Requires-Dist
 * are kept: what release checks compare.
 */
#include "engine/run/wheel.h"

#include <string.h>

#include <zip.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/strv.h"
#include "base/banned.h"

/* The index of TOP.dist-info/METADATA, or -1. */
static zip_int64_t
find_metadata(zip_t *z)
{
	zip_int64_t i, n = zip_get_num_entries(z, 0);
	static const char tail[] = ".dist-info/METADATA";
	size_t lt = sizeof(tail) - 1;

	for (i = 0; i < n; i++) {
		const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
		size_t len = name ? strlen(name) : 0;

		if (len > lt && !strcmp(name + len - lt, tail) &&
		    memchr(name, '/', len - lt) == NULL)
			return i;
	}
	return -1;
}

/* Header lines of METADATA: Version and Requires-Dist. */
static int
parse(const char *text, size_t len, struct strv *meta, struct error *err)
{
	struct buf req, line;
	const char *p = text, *end = text + len;
	int rc = 0;

	buf_init(&req, 0);
	buf_init(&line, 0);
	while (!rc && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n && p[n - 1] == '\r')
			n--;
		if (!n)
			break;	/* the body (the description) follows */
		buf_reset(&line);
		if (n > 9 && !strncmp(p, "Version: ", 9)) {
			rc = buf_addf(&line, err, "Version=%.*s", (int)(n - 9),
				      p + 9);
			if (!rc)
				rc = strv_push(meta, line.data, err);
		} else if (n > 15 && !strncmp(p, "Requires-Dist: ", 15)) {
			rc = buf_addf(&req, err, "%s%.*s", req.len ? ", " : "",
				      (int)(n - 15), p + 15);
		}
		p += nl ? (size_t)(nl - p) + 1 : n;
	}
	if (!rc && req.len) {
		buf_reset(&line);
		rc = buf_addf(&line, err, "Requires-Dist=%s", req.data);
		if (!rc)
			rc = strv_push(meta, line.data, err);
	}
	buf_release(&req);
	buf_release(&line);
	return rc;
}

int
run_wheel_metadata(const char *path, struct strv *meta, struct error *err)
{
	zip_t *z;
	zip_file_t *f = NULL;
	zip_stat_t st;
	zip_int64_t idx, got;
	char *text = NULL;
	int zerr = 0, rc = 1;

	rc = run_wheel_libs_require(err);
	if (rc)
		return rc;
	rc = 1;
	z = zip_open(path, ZIP_RDONLY, &zerr);
	if (!z)
		return 1;	/* not a zip: a placeholder, not a wheel */
	idx = find_metadata(z);
	if (idx < 0)
		goto done;
	zip_stat_init(&st);
	if (zip_stat_index(z, (zip_uint64_t)idx, 0, &st) ||
	    !(st.valid & ZIP_STAT_SIZE)) {
		rc = error_set(err, ERROR_INVALID, "wheel '%s': cannot read "
			       "its METADATA", path);
		goto done;
	}
	if (st.size > RUN_WHEEL_METADATA_MAX) {
		rc = error_set(err, ERROR_INVALID, "wheel '%s': METADATA is "
			       "larger than %u bytes", path,
			       RUN_WHEEL_METADATA_MAX);
		goto done;
	}
	text = mem_alloc((size_t)st.size + 1);
	f = zip_fopen_index(z, (zip_uint64_t)idx, 0);
	if (!text || !f) {
		rc = text ? error_set(err, ERROR_INVALID, "wheel '%s': cannot "
				      "open its METADATA", path)
			  : error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	got = zip_fread(f, text, st.size);
	if (got < 0 || (zip_uint64_t)got != st.size) {
		rc = error_set(err, ERROR_INVALID, "wheel '%s': cannot read "
			       "its METADATA", path);
		goto done;
	}
	rc = parse(text, (size_t)got, meta, err);
done:
	if (f)
		zip_fclose(f);
	mem_free(text);
	zip_discard(z);
	return rc;
}
