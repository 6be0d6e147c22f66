/*
 * same-content checks over the working tree: each file's git blob id
 * (libgit2 hashes the bytes as git stores them; a symlink hashes its
 * target text), compared within each group of files.
 */
#include "graph/same.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fsys.h"
#include "graph/repo_git.h"
#include "rules/rules.h"
#include "base/banned.h"

static int
add(struct error_list *errors, const struct rules *r,
    const struct rules_check *c, int code, const char *hint,
    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int
add(struct error_list *errors, const struct rules *r,
    const struct rules_check *c, int code, const char *hint,
    const char *fmt, ...)
{
	struct error e;
	char msg[ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error_init(&e);
	error_at(&e, code, r->file ? r->file : "", c->pos.line, c->pos.col,
		 "check '%s': %s", c->name, msg);
	if (hint)
		error_hint(&e, "%s", hint);
	return error_list_add(errors, &e) ? ERROR_NOMEM : code;
}

/* What one file of a group is: its blob id, and its target if a link. */
struct side {
	char hex[GIT_OID_HEXSZ + 1];
	char target[1024];	/* "" unless a symlink */
};

/* The blob id of working-tree file `rel`, or ERROR_NOT_FOUND/IO. */
static int
blob_id(git_repository *g, const char *workdir, const char *rel,
	struct side *out)
{
	char path[4096], target[4096];
	struct fsys_stat st;
	git_oid oid;
	size_t len;
	int n, rc;

	n = snprintf(path, sizeof(path), "%s%s", workdir, rel);
	if (n < 0 || (size_t)n >= sizeof(path))
		return ERROR_INVALID;	/* cut short, it names another file */
	rc = fsys_lstat(path, &st);
	if (rc)
		return rc == ENOENT || rc == ENOTDIR ? ERROR_NOT_FOUND
						     : ERROR_IO;
	if (st.kind == FSYS_LNK) {
		if (fsys_readlink(path, target, sizeof(target), &len))
			return ERROR_IO;
		rc = git_odb_hash(&oid, target, len, GIT_OBJECT_BLOB);
		snprintf(out->target, sizeof(out->target), "%.*s", (int)len,
			 target);
	} else if (st.kind == FSYS_REG) {
		rc = git_odb_hashfile(&oid, path, GIT_OBJECT_BLOB);
	} else {
		return ERROR_NOT_FOUND;
	}
	(void)g;
	if (rc < 0)
		return ERROR_IO;
	git_oid_tostr(out->hex, sizeof(out->hex), &oid);
	return 0;
}

/* Two sides differ: say how, naming a link as one. */
static int
differ(struct error_list *errors, const struct rules *r,
       const struct rules_check *c, const char *pa, const struct side *a,
       const char *pb, const struct side *b)
{
	const char *lp = a->target[0] ? pa : pb;
	const struct side *l = a->target[0] ? a : b;
	char hint[1200];

	if (!a->target[0] && !b->target[0])
		return add(errors, r, c, ERROR_CONFLICT, "make the files "
			   "identical (copy one over the other), or drop the "
			   "path from the check", "'%s' (blob %.12s) and '%s' "
			   "(blob %.12s) differ", pa, a->hex, pb, b->hex);
	if (a->target[0] && b->target[0])
		return add(errors, r, c, ERROR_CONFLICT, "point both links at "
			   "one target, or drop the path from the check",
			   "'%s' is a symlink to '%s' and '%s' a symlink to "
			   "'%s': git compares link targets, which differ",
			   pa, a->target, pb, b->target);
	snprintf(hint, sizeof(hint), "git stores a link as its target text, "
		 "so a link never has a file's content: make '%s' a regular "
		 "copy, or drop it from the check", lp);
	return add(errors, r, c, ERROR_CONFLICT, hint,
		   "'%s' is a symlink to '%s', '%s' a regular file: their "
		   "blobs (%.12s, %.12s) differ", lp, l->target,
		   lp == pa ? pb : pa, a->hex, b->hex);
}

/* Compare the group of files paths[0..n): 0, or the first problem. */
static int
compare(git_repository *g, const char *workdir, const struct rules *r,
	const struct rules_check *c, const char *const *paths, size_t n,
	struct error_list *errors)
{
	struct side ref, cur;
	size_t i, first = n;
	int rc = 0, one;

	memset(&ref, 0, sizeof(ref));
	for (i = 0; i < n; i++) {
		memset(&cur, 0, sizeof(cur));
		one = blob_id(g, workdir, paths[i], first == n ? &ref : &cur);
		if (one) {
			one = add(errors, r, c, one, "restore the file, or "
				  "drop it from the check",
				  one == ERROR_NOT_FOUND ? "no file '%s'"
				  : one == ERROR_INVALID ? "path '%s' is too long"
				  : "cannot read '%s'", paths[i]);
			rc = rc ? rc : one;
			continue;
		}
		if (first == n) {
			first = i;
			continue;
		}
		if (!strcmp(ref.hex, cur.hex))
			continue;
		one = differ(errors, r, c, paths[first], &ref, paths[i], &cur);
		rc = rc ? rc : one;
	}
	return rc;
}

/*
 * "ROOTPATH/rel" for each root of the check, into v (arena-free). A path
 * too long for buf is reported to errors: cut short, it would name
 * another file.
 */
static int
root_group(const struct rules *r, const struct rules_check *c,
	   const char *rel, char (*buf)[1024], const char **v,
	   struct error_list *errors)
{
	size_t k;
	int n;

	for (k = 0; k < c->n_same_roots; k++) {
		const struct rules_root *root = rules_find_root(r,
							c->same_roots[k]);

		if (!root)
			return add(errors, r, c, ERROR_INVALID, NULL,
				   "unknown root '%s'", c->same_roots[k]);
		if (!strcmp(root->path, "."))
			n = snprintf(buf[k], sizeof(buf[k]), "%s", rel);
		else
			n = snprintf(buf[k], sizeof(buf[k]), "%s/%s",
				     root->path, rel);
		if (n < 0 || (size_t)n >= sizeof(buf[k]))
			return add(errors, r, c, ERROR_INVALID, "shorten the "
				   "path", "path under root '%s' is too long "
				   "(%zu bytes): '%s'", root->name,
				   strlen(rel), rel);
		v[k] = buf[k];
	}
	return 0;
}

#define SAME_ROOTS_MAX 16

int
graph_same_content_evaluate(struct graph_repo *repo, const struct rules *r,
			    size_t *n_ok, struct error_list *errors)
{
	git_repository *g = graph_repo_git(repo);
	const char *workdir = git_repository_workdir(g);
	char buf[SAME_ROOTS_MAX][1024];
	const char *v[SAME_ROOTS_MAX];
	size_t i, j, ok = 0;
	int rc = 0, one;

	for (i = 0; i < r->n_checks; i++) {
		const struct rules_check *c = &r->checks[i];

		if (!c->same_content)
			continue;
		one = 0;
		if (!workdir)
			one = add(errors, r, c, ERROR_INVALID, NULL,
				  "the repository has no working tree");
		else if (c->n_same_roots > SAME_ROOTS_MAX)
			one = add(errors, r, c, ERROR_INVALID, NULL,
				  "more than %d roots", SAME_ROOTS_MAX);
		else if (!c->n_same_roots)
			one = compare(g, workdir, r, c, c->same_paths,
				      c->n_same_paths, errors);
		for (j = 0; workdir && c->n_same_roots &&
			    c->n_same_roots <= SAME_ROOTS_MAX &&
			    j < c->n_same_paths; j++) {
			int k = root_group(r, c, c->same_paths[j], buf, v,
					   errors);

			if (!k)
				k = compare(g, workdir, r, c, v,
					    c->n_same_roots, errors);
			one = one ? one : k;
			if (k == ERROR_NOMEM)
				break;
		}
		if (!one)
			ok++;
		rc = rc ? rc : one;
	}
	if (n_ok)
		*n_ok = ok;
	return rc;
}
