/*
 * Conda packages' info/index.json (engine/run/conda.h), read with
 * libarchive: a .tar.bz2 directly, a .conda through its zip to the
 * info-*.tar.zst inside, which is read into memory and opened again.
 */
#include "engine/run/conda.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

/* libarchive's errno for "Unrecognized archive format"
 * (ARCHIVE_ERRNO_FILE_FORMAT, private to it: EFTYPE where the system has
 * one, else EILSEQ). */
#ifdef EFTYPE
#define NOT_AN_ARCHIVE EFTYPE
#else
#define NOT_AN_ARCHIVE EILSEQ
#endif

static int
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

static int
starts_with(const char *s, const char *head)
{
	return !strncmp(s, head, strlen(head));
}

static struct archive *
reader(int zip)
{
	struct archive *a = archive_read_new();

	if (!a)
		return NULL;
	if (archive_read_support_filter_all(a) != ARCHIVE_OK ||
	    (zip ? archive_read_support_format_zip(a)
		 : archive_read_support_format_tar(a)) != ARCHIVE_OK) {
		archive_read_free(a);
		return NULL;
	}
	return a;
}

/* The current entry's data, whole, into b (at most `max` bytes). */
static int
entry_data(struct archive *a, const char *path, const char *name,
	   size_t max, struct buf *b, struct error *err)
{
	char chunk[65536];
	la_ssize_t got;
	int rc = 0;

	while (!rc && (got = archive_read_data(a, chunk, sizeof(chunk))) > 0) {
		if (b->len + (size_t)got > max)
			return error_set(err, ERROR_INVALID, "conda package "
					 "'%s': '%s' is over %zu bytes", path,
					 name, max);
		rc = buf_add(b, chunk, (size_t)got, err);
	}
	if (!rc && got < 0)
		rc = error_set(err, ERROR_INVALID, "conda package '%s': cannot "
			       "read '%s': %s", path, name,
			       archive_error_string(a)
				       ? archive_error_string(a) : "?");
	return rc;
}

/*
 * The entry of archive a whose name `want` matches (exactly, or for
 * want_prefix a name starting with it and ending with want), into b.
 * 0 found, 1 not there, negative on error.
 */
static int
find_entry(struct archive *a, const char *path, const char *want,
	   const char *want_prefix, size_t max, struct buf *b,
	   struct error *err)
{
	struct archive_entry *e;
	int r;

	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN) {
		const char *name = archive_entry_pathname(e);

		if (!name)
			continue;
		if (want_prefix ? starts_with(name, want_prefix) &&
					  ends_with(name, want)
				: !strcmp(name, want))
			return entry_data(a, path, name, max, b, err);
	}
	if (r == ARCHIVE_EOF)
		return 1;
	return error_set(err, ERROR_INVALID, "conda package '%s': %s", path,
			 archive_error_string(a) ? archive_error_string(a)
						 : "unreadable archive");
}

/* name, version, build (strings, required) and subdir from the JSON. */
static int
parse_index(const char *path, const struct buf *json,
	    struct run_conda_index *out, struct error *err)
{
	static const char *const keys[] = { "name", "version", "build" };
	char *dst[3] = { out->name, out->version, out->build };
	json_error_t je;
	json_t *doc = json_loadb(json->data, json->len, 0, &je);
	const char *s;
	size_t k;
	int rc = 0;

	if (!json_is_object(doc)) {
		json_decref(doc);
		return error_set(err, ERROR_INVALID, "conda package '%s': "
				 "info/index.json is no JSON object (%s)", path,
				 doc ? "another JSON value" : je.text);
	}
	for (k = 0; !rc && k < 3; k++) {
		s = json_string_value(json_object_get(doc, keys[k]));
		if (!s || !*s || strlen(s) >= sizeof(out->name) ||
		    strpbrk(s, "/\\\n\r\t"))
			rc = error_set(err, ERROR_INVALID, "conda package "
				       "'%s': info/index.json has no usable "
				       "string '%s'", path, keys[k]);
		else
			snprintf(dst[k], sizeof(out->name), "%s", s);
	}
	s = json_string_value(json_object_get(doc, "subdir"));
	snprintf(out->subdir, sizeof(out->subdir), "%s",
		 s && strlen(s) < sizeof(out->subdir) ? s : "");
	json_decref(doc);
	return rc;
}

/* info/index.json of the tarball a (already open), into json. */
static int
index_of_tar(struct archive *a, const char *path, struct buf *json,
	     struct error *err)
{
	int rc = find_entry(a, path, "info/index.json", NULL,
			    RUN_CONDA_INDEX_MAX, json, err);

	if (rc == 1)
		rc = error_set(err, ERROR_INVALID, "conda package '%s' holds "
			       "no info/index.json", path);
	return rc;
}

int
run_conda_index_read(const char *path, struct run_conda_index *out,
		     struct error *err)
{
	int zip = ends_with(path, ".conda"), rc;
	struct buf info = BUF_INIT, json = BUF_INIT;
	struct archive *a = NULL, *inner = NULL;

	memset(out, 0, sizeof(*out));
	rc = run_conda_libs_require(err);
	if (rc)
		return rc;
	a = reader(zip);
	if (!a)
		return error_set(err, ERROR_NOMEM, "out of memory");
	if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
		/* No archive at all: a placeholder, not a package. */
		rc = archive_errno(a) == NOT_AN_ARCHIVE ? 1
		   : error_set(err, ERROR_IO, "cannot open conda package "
			       "'%s': %s", path, archive_error_string(a)
			       ? archive_error_string(a) : "?");
		goto done;
	}
	if (!zip) {
		rc = index_of_tar(a, path, &json, err);
	} else {
		rc = find_entry(a, path, ".tar.zst", "info-",
				RUN_CONDA_INFO_MAX, &info, err);
		if (rc == 1)
			rc = error_set(err, ERROR_INVALID, "conda package "
				       "'%s' holds no info-*.tar.zst", path);
		if (!rc) {
			inner = reader(0);
			if (!inner)
				rc = error_set(err, ERROR_NOMEM,
					       "out of memory");
			else if (archive_read_open_memory(inner, info.data,
							  info.len) !=
				 ARCHIVE_OK)
				rc = error_set(err, ERROR_INVALID, "conda "
					       "package '%s': its info "
					       "tarball: %s", path,
					       archive_error_string(inner)
					       ? archive_error_string(inner)
					       : "?");
		}
		if (!rc)
			rc = index_of_tar(inner, path, &json, err);
	}
	if (!rc)
		rc = parse_index(path, &json, out, err);
done:
	if (rc == 1 && err)
		error_init(err);
	if (inner)
		archive_read_free(inner);
	archive_read_free(a);
	buf_release(&info);
	buf_release(&json);
	return rc;
}

/* The .conda's zip, read as the source of a tarball inside it. */
struct outer {
	struct archive *zip;
	char chunk[65536];
};

static la_ssize_t
outer_read(struct archive *inner, void *client, const void **out)
{
	struct outer *o = client;

	(void)inner;
	*out = o->chunk;
	return archive_read_data(o->zip, o->chunk, sizeof(o->chunk));
}

/* Each regular file and link of tarball t, to fn. */
static int
walk_tar(struct archive *t, const char *path, run_conda_entry_fn fn,
	 void *payload, struct error *err)
{
	struct archive_entry *e;
	struct buf data = BUF_INIT;
	int r = ARCHIVE_OK, rc = 0;

	while (!rc && ((r = archive_read_next_header(t, &e)) == ARCHIVE_OK ||
		       r == ARCHIVE_WARN)) {
		const char *name = archive_entry_pathname(e);
		__LA_MODE_T ft = archive_entry_filetype(e);

		if (!name)
			continue;
		if (ft == AE_IFLNK) {
			const char *to = archive_entry_symlink(e);

			rc = fn(payload, name, to ? to : "", NULL, err);
			continue;
		}
		if (ft != AE_IFREG)
			continue;
		buf_reset(&data);
		rc = entry_data(t, path, name, RUN_CONDA_ENTRY_MAX, &data,
				err);
		if (!rc)
			rc = fn(payload, name, NULL, &data, err);
	}
	if (!rc && r != ARCHIVE_EOF)
		rc = error_set(err, ERROR_INVALID, "conda package '%s': %s",
			       path, archive_error_string(t)
			       ? archive_error_string(t) : "unreadable");
	buf_release(&data);
	return rc;
}

/* The info-*.tar.zst and pkg-*.tar.zst of the .conda open in zip. */
static int
walk_conda(struct archive *zip, const char *path, run_conda_entry_fn fn,
	   void *payload, struct error *err)
{
	struct outer *o = NULL;
	struct archive_entry *e;
	int r, rc = 0;

	while (!rc && ((r = archive_read_next_header(zip, &e)) == ARCHIVE_OK ||
		       r == ARCHIVE_WARN)) {
		const char *name = archive_entry_pathname(e);
		struct archive *inner;

		if (!name || !ends_with(name, ".tar.zst") ||
		    (!starts_with(name, "info-") && !starts_with(name, "pkg-")))
			continue;
		if (!o && !(o = mem_calloc(1, sizeof(*o))))
			return error_set(err, ERROR_NOMEM, "out of memory");
		o->zip = zip;
		inner = reader(0);
		if (!inner) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			break;
		}
		if (archive_read_open(inner, o, NULL, outer_read, NULL) !=
		    ARCHIVE_OK)
			rc = error_set(err, ERROR_INVALID, "conda package "
				       "'%s': '%s': %s", path, name,
				       archive_error_string(inner)
				       ? archive_error_string(inner) : "?");
		else
			rc = walk_tar(inner, path, fn, payload, err);
		archive_read_free(inner);
	}
	mem_free(o);
	if (!rc && r != ARCHIVE_EOF)
		rc = error_set(err, ERROR_INVALID, "conda package '%s': %s",
			       path, archive_error_string(zip)
			       ? archive_error_string(zip) : "unreadable");
	return rc;
}

int
run_conda_walk(const char *path, run_conda_entry_fn fn, void *payload,
	       struct error *err)
{
	int zip = ends_with(path, ".conda"), rc;
	struct archive *a;

	rc = run_conda_libs_require(err);
	if (rc)
		return rc;
	a = reader(zip);
	if (!a)
		return error_set(err, ERROR_NOMEM, "out of memory");
	if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK)
		rc = archive_errno(a) == NOT_AN_ARCHIVE ? 1
		   : error_set(err, ERROR_IO, "cannot open conda package "
			       "'%s': %s", path, archive_error_string(a)
			       ? archive_error_string(a) : "?");
	else
		rc = zip ? walk_conda(a, path, fn, payload, err)
			 : walk_tar(a, path, fn, payload, err);
	archive_read_free(a);
	return rc;
}


int
run_conda_file_name(const struct run_conda_index *ix, const char *ext,
		    char *out, size_t n, struct error *err)
{
	int len = snprintf(out, n, "%s-%s-%s%s", ix->name, ix->version,
			   ix->build, ext);

	if (len < 0 || (size_t)len >= n)
		return error_set(err, ERROR_INVALID, "conda package name "
				 "'%s-%s-%s%s' is too long", ix->name,
				 ix->version, ix->build, ext);
	return 0;
}
