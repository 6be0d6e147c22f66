/*
 * The shallow boundary of a clone, read by ripple itself from the shallow
 * file of the common git folder, whatever libgit2 does with it: libgit2
 * up to 1.6 fails a walk that needs a missing parent, while 1.7 and later
 * read the file as grafts and end the walk there without a word, so a
 * count of commits from truncated history looks like a real one. Used by
 * version.c (counting commits to a tag) and repo.c (error messages).
 */
#include "graph/repo_git.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"
#include "base/mem.h"
#include "base/banned.h"

static int
oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

/* The shallow file's path, in the common git folder (worktrees share it). */
static int
shallow_path(git_repository *git, char *out, size_t size, struct error *err)
{
	const char *dir = git_repository_commondir(git);
	int n;

	if (!dir)
		dir = git_repository_path(git);
	n = snprintf(out, size, "%s%sshallow", dir,
		     dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/");
	if (n < 0 || (size_t)n >= size)
		return error_set(err, ERROR_INVALID,
				 "the git folder's path is too long: %s", dir);
	return 0;
}

int
graph_git_shallow_load(git_repository *git, struct graph_shallow *out,
		       struct error *err)
{
	char path[4096], line[256];
	FILE *f = NULL;
	unsigned long lineno = 0;
	int fd, rc;

	memset(out, 0, sizeof(*out));
	rc = shallow_path(git, path, sizeof(path), err);
	if (rc)
		return rc;
	fd = file_open_regular(path, NULL, err);
	if (fd == ERROR_NOT_FOUND) {
		error_init(err);
		return 0;	/* not a shallow clone */
	}
	if (fd < 0)
		return fd;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return error_set(err, ERROR_IO, "%s: %s", path,
				 strerror(errno));
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");
		git_oid *more;

		lineno++;
		if (len == 0)
			continue;
		line[len] = '\0';
		if (len != GIT_OID_HEXSZ) {
			rc = error_set(err, ERROR_CORRUPT,
				       "%s:%lu: not a commit id: '%.80s'",
				       path, lineno, line);
			error_hint(err, "the clone's shallow file is damaged: "
				   "fetch again (git fetch --unshallow)");
			goto done;
		}
		more = mem_realloc(out->ids, (out->n + 1) * sizeof(*more));
		if (!more) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			goto done;
		}
		out->ids = more;
		if (git_oid_fromstr(&out->ids[out->n], line) < 0) {
			rc = error_set(err, ERROR_CORRUPT,
				       "%s:%lu: not a commit id: '%s'", path,
				       lineno, line);
			error_hint(err, "the clone's shallow file is damaged: "
				   "fetch again (git fetch --unshallow)");
			goto done;
		}
		out->n++;
	}
	if (ferror(f))
		rc = error_set(err, ERROR_IO, "%s: read error", path);
	else if (out->n)
		qsort(out->ids, out->n, sizeof(*out->ids), oid_cmp);
done:
	fclose(f);
	if (rc)
		graph_git_shallow_release(out);
	return rc;
}

int
graph_git_shallow_has(const struct graph_shallow *s, const git_oid *id)
{
	return s->n && bsearch(id, s->ids, s->n, sizeof(*s->ids), oid_cmp);
}

void
graph_git_shallow_release(struct graph_shallow *s)
{
	mem_free(s->ids);
	s->ids = NULL;
	s->n = 0;
}

int
graph_git_is_shallow(git_repository *git)
{
	struct graph_shallow s;
	struct error err;
	size_t n;
	int rc;

	error_init(&err);
	rc = graph_git_shallow_load(git, &s, &err);
	if (rc == ERROR_IO || rc == ERROR_NOMEM)
		return 0;	/* cannot tell now (no descriptor left): say
				   nothing of history */
	if (rc < 0)
		return 1;	/* a damaged shallow file: call it shallow */
	n = s.n;
	graph_git_shallow_release(&s);
	return n > 0;
}
