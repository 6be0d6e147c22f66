/*
 * Declared outputs on disk: glob expansion, every match resolved under the
 * repository root before it is hashed or removed, and file identities so a
 * file the action left untouched is not taken for its output. Which files
 * are removed as stale, and what is recorded, is store.c's business.
 */
#include "engine/run/outputs.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/fnmatch.h"
#include "base/fsys.h"
#include "base/path.h"
#include "base/place.h"
#include "base/strv.h"
#include "graph/outputs.h"
#include "base/banned.h"

/* ERROR_INVALID when root/rel resolves outside root; 0 inside. */
static int
inside(const char *root, const char *pattern, const char *rel,
       struct error *err)
{
	char where[PATH_RESOLVED_MAX];
	int rc = path_resolve_under(root, rel, 1, where, sizeof(where), err);

	if (rc < 0)
		return rc;
	if (rc == 1)
		return 0;
	error_set(err, ERROR_INVALID, "outputs '%s': '%s' resolves to '%s', "
		  "outside the repository", pattern, rel, where);
	error_hint(err, "outputs may not go through a symlink that leaves "
		   "the repository: remove the link or write the files "
		   "elsewhere");
	return ERROR_INVALID;
}

/* The pattern's folder before its first wildcard ("" for the root). */
static void
fixed_folder(const char *pattern, char *out, size_t n)
{
	size_t cut = strcspn(pattern, "*?[\\");
	char *slash;

	snprintf(out, n, "%.*s", (int)cut, pattern);
	slash = strrchr(out, '/');
	if (slash)
		*slash = '\0';
	else
		out[0] = '\0';
}

static int
walk(const char *root, const char *rel, const char *pattern,
     struct strv *out, struct error *err)
{
	char path[4096];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	d = opendir(path);
	if (!d)
		return 0;
	while (!rc && (de = readdir(d))) {
		char child[4096];
		struct fsys_stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(child, sizeof(child), "%s%s%s", rel,
			     rel[0] ? "/" : "", de->d_name) >=
			    (int)sizeof(child) ||
		    snprintf(path, sizeof(path), "%s/%s", root, child) >=
			    (int)sizeof(path) ||
		    fsys_lstat(path, &st))
			continue;
		if (st.kind == FSYS_DIR)
			rc = walk(root, child, pattern, out, err);
		else if (st.kind == FSYS_REG &&
			 graph_glob_match(pattern, child))
			rc = strv_push(out, child, err);
	}
	closedir(d);
	return rc;
}

/* Matches of one pattern (unchecked, repository-relative); dirs counted. */
static int
match(const char *root, const char *pattern, struct strv *out, size_t *dirs,
      struct error *err)
{
	struct strv gl = STRV_INIT;
	size_t i;
	char full[4096];
	int rc;

	if (strstr(pattern, "**")) {
		fixed_folder(pattern, full, sizeof(full));
		return walk(root, full, pattern, out, err);
	}
	rc = fnmatch_glob(root, pattern, &gl, err);
	for (i = 0; !rc && i < gl.n; i++) {
		struct fsys_stat st;

		if ((size_t)snprintf(full, sizeof(full), "%s/%s", root,
				     gl.v[i]) >= sizeof(full) ||
		    fsys_stat(full, &st))
			continue;
		if (st.kind == FSYS_DIR)
			(*dirs)++;
		if (st.kind != FSYS_REG)
			continue;
		rc = strv_push(out, gl.v[i], err);
	}
	strv_release(&gl);
	return rc;
}

static int
in_before(const struct strv *before, const char *line)
{
	size_t lo = 0, hi = before ? before->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(before->v[mid], line);

		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int
collect_one(const char *root, const char *pattern, const struct strv *before,
	    int allow_empty, struct strv *out, struct error *err)
{
	struct strv m = STRV_INIT;
	char folder[4096], line[4400];
	const char *untouched = NULL;
	size_t i, dirs = 0, kept = 0;
	int rc;

	fixed_folder(pattern, folder, sizeof(folder));
	rc = inside(root, pattern, folder[0] ? folder : ".", err);
	if (!rc)
		rc = match(root, pattern, &m, &dirs, err);
	for (i = 0; !rc && i < m.n; i++)
		rc = inside(root, pattern, m.v[i], err);
	for (i = 0; !rc && i < m.n; i++) {
		if (before && !run_output_identity(root, m.v[i], line,
						   sizeof(line)) &&
		    in_before(before, line)) {
			untouched = untouched ? untouched : m.v[i];
			continue;
		}
		kept++;
		rc = strv_push(out, m.v[i], err);
	}
	if (rc || kept || allow_empty)
		goto done;
	if (untouched) {
		rc = error_set(err, ERROR_NOT_FOUND, "declared output '%s' "
			       "matches no file the action wrote: '%s' was "
			       "there before it ran and is unchanged",
			       pattern, untouched);
		error_hint(err, "no earlier record of this node lists it, so "
			   "it was kept: remove it, or have the action "
			   "rewrite it");
	} else if (dirs) {
		rc = error_set(err, ERROR_NOT_FOUND, "declared output '%s' "
			       "is a directory: outputs name files, such as "
			       "'%s/**'", pattern, pattern);
	} else {
		rc = error_set(err, ERROR_NOT_FOUND, "declared output '%s' "
			       "matches no file", pattern);
		error_hint(err, "outputs are globs relative to the repository "
			   "root; the action must write them");
	}
done:
	strv_release(&m);
	return rc;
}

int
run_outputs_collect(const char *root, const char *const *patterns,
		    size_t n, const struct strv *before, int allow_empty,
		    struct strv *out, struct error *err)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < n; i++)
		rc = collect_one(root, patterns[i], before, allow_empty, out,
				 err);
	if (!rc)
		strv_sort_unique(out);
	return rc;
}

void
run_outputs_sweep(const char *root, const char *const *patterns, size_t n)
{
	char folder[4096];
	struct error e;
	size_t i;

	for (i = 0; i < n; i++) {
		const char *rest;

		fixed_folder(patterns[i], folder, sizeof(folder));
		rest = patterns[i] + strlen(folder) + (folder[0] ? 1 : 0);
		error_init(&e);
		/* Below the folder too when the wildcard part spans folders
		 * (dist/STARSTAR, dist/STAR/x.whl): a killed fetch of any entry
		 * of the node may have left files there. */
		place_sweep(root, folder, strchr(rest, '/') ||
			    strstr(rest, "**"), &e);
	}
}

int
run_output_identity(const char *root, const char *rel, char *out, size_t n)
{
	char full[4096];
	struct fsys_stat st;
	int len;

	len = snprintf(full, sizeof(full), "%s/%s", root, rel);
	if (len < 0 || (size_t)len >= sizeof(full) || fsys_stat(full, &st))
		return -1;
	len = snprintf(out, n, "%s\t%llu:%llu:%lld:%lld.%09ld:%lld.%09ld",
		       rel, (unsigned long long)st.dev,
		       (unsigned long long)st.ino, (long long)st.size,
		       (long long)st.mtime_s, st.mtime_ns,
		       (long long)st.ctime_s, st.ctime_ns);
	return len < 0 || (size_t)len >= n ? -1 : 0;
}
