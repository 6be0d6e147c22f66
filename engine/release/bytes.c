/*
 * A release publishes bytes, so it reads them: every artifact file of an
 * ok row must exist and hash to the output digest its record holds (the
 * planner's check that a recorded artifact is still there, made strict:
 * the release reads every file it would upload). Also SHA256SUMS.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/path.h"
#include "engine/plan/record.h"
#include "engine/release/internal.h"
#include "graph/digest.h"
#include "graph/sha256.h"
#include "base/banned.h"

static int
is_url(const char *loc)
{
	return strstr(loc, "://") != NULL;
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Whether s holds a control character (C0 or C1, base/path.h). */
static int
has_control(const char *s)
{
	return path_bad_char(s, strlen(s), NULL) != NULL;
}

/*
 * Where locator loc's bytes are read: an absolute locator where it is; a
 * repository-relative one at DIR/LOC, or, with --artifacts DIR, at
 * DIR/NAME when DIR/LOC is missing (the file name it is published under,
 * as `ripple fetch --to DIR` writes it; a release has no two files of
 * one name). Arena string, or NULL when out of memory.
 */
static const char *
file_of(struct release_ctx *x, const char *dir, const char *loc)
{
	const char *path;
	struct stat st;

	if (loc[0] == '/')
		return loc;
	path = arena_printf(x->a, "%s/%s", dir, loc);
	if (!path || !x->opt->artifacts_dir || !lstat(path, &st) ||
	    !strchr(loc, '/'))
		return path;
	return arena_printf(x->a, "%s/%s", dir, base_name(loc));
}

/* Read one ok row's files; a problem turns it failed. */
static int
verify_row(struct release_ctx *x, const char *dir, struct release_artifact *row)
{
	struct digest d;
	struct error e;
	const char *path, **files;
	char sum[SHA256_HEX];
	size_t i, n_url = 0;
	int rc;

	row->sha256s = arena_alloc(x->a, (row->n_locators + 1) *
				   sizeof(*row->sha256s));
	files = arena_alloc(x->a, (row->n_locators + 1) * sizeof(*files));
	if (!row->sha256s || !files)
		return ERROR_NOMEM;
	for (i = 0; i < row->n_locators; i++) {
		const char *loc = row->locators[i];

		row->sha256s[i] = NULL;
		if (is_url(loc)) {
			n_url++;
			continue;
		}
		/* The whole locator (it comes from a record): a path cut to
		 * a buffer's size could name another file. */
		path = files[i] = file_of(x, dir, loc);
		if (!path)
			return ERROR_NOMEM;
		error_init(&e);
		rc = graph_sha256_file(path, sum, &e);
		if (rc == ERROR_NOMEM)
			return rc;
		if (rc) {
			row->state = RELEASE_ARTIFACT_FAILED;
			row->detail = rc == ERROR_NOT_FOUND
				? arena_printf(x->a, "artifact file missing: "
					       "%s", path)
				: arena_printf(x->a, "%s", e.msg);
			return row->detail ? 0 : ERROR_NOMEM;
		}
		row->sha256s[i] = arena_strdup(x->a, sum);
		if (!row->sha256s[i])
			return ERROR_NOMEM;
	}
	if (n_url) {
		row->detail = n_url == row->n_locators
			? "bytes not read: URL locators"
			: "bytes read for files; URL locators not read";
		if (n_url == row->n_locators || !row->output_digest)
			return 0;
		row->state = RELEASE_ARTIFACT_FAILED;
		row->detail = "files and URLs mixed: the recorded digest "
			      "cannot be checked";
		return 0;
	}
	if (!row->output_digest || !row->n_locators)
		return 0;
	error_init(&e);
	rc = record_output_digest_files(row->locators, files,
					row->n_locators, &d, &e);
	if (rc == ERROR_NOMEM)
		return rc;
	if (rc) {
		row->state = RELEASE_ARTIFACT_FAILED;
		row->detail = arena_printf(x->a, "%s", e.msg);
	} else if (strcmp(d.hex, row->output_digest)) {
		row->state = RELEASE_ARTIFACT_FAILED;
		row->detail = arena_printf(x->a, "the files' bytes differ from "
					   "the record: output digest %.12s "
					   "now, %.12s recorded", d.hex,
					   row->output_digest);
	}
	return row->detail || row->state == RELEASE_ARTIFACT_OK ? 0
								: ERROR_NOMEM;
}

int
release_verify_bytes(struct release_ctx *x, struct release_artifact *rows,
		     size_t n, struct error *err)
{
	const char *dir = x->opt->artifacts_dir ? x->opt->artifacts_dir
						: graph_repo_root(x->repo);
	size_t i;

	/* Records from the remote cache: their blobs were found there by
	 * digest (check 3) and `ripple fetch` verifies them; nothing is
	 * here to read unless --artifacts names where they were put. */
	if (x->from_remote && !x->opt->artifacts_dir)
		return 0;
	for (i = 0; i < n; i++)
		if (rows[i].state == RELEASE_ARTIFACT_OK &&
		    verify_row(x, dir, &rows[i]))
			return error_set(err, ERROR_NOMEM, "out of memory");
	return 0;
}

int
release_report_sha256sums(const struct release_report *r, char **out,
			  struct error *err)
{
	struct buf b;
	size_t i, k;
	int rc = 0;

	buf_init(&b, 0);
	rc = buf_add(&b, "", 0, err);
	for (i = 0; !rc && i < r->n_artifacts; i++) {
		const struct release_artifact *a = &r->artifacts[i];

		if (a->state != RELEASE_ARTIFACT_OK || !a->sha256s)
			continue;
		for (k = 0; !rc && k < a->n_locators; k++) {
			const char *name = base_name(a->locators[k]);

			if (!a->sha256s[k])
				continue;
			if (has_control(name)) {
				rc = error_set(err, ERROR_INVALID, "artifact "
					       "file name of %s holds a "
					       "control character: it would "
					       "forge a line of SHA256SUMS",
					       a->node_id);
				break;
			}
			rc = buf_addf(&b, err, "%s  %s\n", a->sha256s[k], name);
		}
	}
	*out = rc ? NULL : mem_strdup(b.data ? b.data : "");
	buf_release(&b);
	if (!rc && !*out)
		rc = error_set(err, ERROR_NOMEM, "out of memory");
	return rc;
}
