/*
 * What graph_repo_git_error (repo.c) reads besides the handle: libgit2's
 * last message, and the object store's pack files. libgit2 passes over a
 * pack it cannot open, or whose end does not match its index (truncated),
 * and then says "object not found" for every object in it: before an
 * object is called absent, the packs are checked, and a bad one is named.
 */
#include "graph/repo_git.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"
#include "base/fsys.h"
#include "base/banned.h"

#define PACK_HINT "the object may be in it: restore the file (its " \
	"permissions, or a copy), or fetch again (git fetch --refetch)"
#define TRAILER 20	/* a SHA-1 pack's checksum, at its end (bytes) */

const char *
graph_git_last_message(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

/* n bytes at offset off of fd (off < 0: from the end), or -1. */
static int
read_at(int fd, void *p, size_t n, int64_t off)
{
	struct fsys_stat st;

	if (off < 0) {
		if (fsys_fstat(fd, &st) || st.size < (uint64_t)-off)
			return -1;
		off += (int64_t)st.size;
	}
	return fsys_pread(fd, p, n, off) == (long long)n ? 0 : -1;
}

/*
 * Check the pack `pack` (a path ending in ".pack") against its index:
 * both open, the pack starts with "PACK" and ends with the checksum its
 * index records. Returns 0, or ERROR_IO naming the file.
 */
static int
check_pack(const char *pack, const char *what, struct error *err)
{
	char idx[4096];
	unsigned char head[4], end[TRAILER], want[TRAILER];
	struct error fe;
	size_t n = strlen(pack);
	int pfd, ifd, ok;

	if ((size_t)snprintf(idx, sizeof(idx), "%.*s.idx", (int)(n - 5),
			     pack) >= sizeof(idx))
		return 0;
	error_init(&fe);
	ifd = file_open_regular(idx, NULL, &fe);
	if (ifd == ERROR_NOT_FOUND)
		return 0;	/* no index: git and libgit2 ignore the pack */
	if (ifd < 0)
		return error_set(err, ERROR_IO, "%s: %s (a pack index of the "
				 "object store)", what, fe.msg);
	pfd = file_open_regular(pack, NULL, &fe);
	if (pfd < 0) {
		close(ifd);
		return error_set(err, ERROR_IO, "%s: %s (a pack file of the "
				 "object store)", what, fe.msg);
	}
	ok = !read_at(ifd, want, TRAILER, -2 * TRAILER) &&
	     !read_at(pfd, head, 4, 0) && !memcmp(head, "PACK", 4) &&
	     !read_at(pfd, end, TRAILER, -TRAILER) &&
	     !memcmp(end, want, TRAILER);
	close(pfd);
	close(ifd);
	if (!ok)
		return error_set(err, ERROR_IO, "%s: the pack file '%s' is "
				 "truncated or damaged (it does not end as "
				 "its index records)", what, pack);
	return 0;
}

int
graph_git_packs_check(git_repository *git, const char *what,
		      struct error *err)
{
	const char *dir = git_repository_commondir(git);
	char folder[4096], path[4096];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (!dir || (size_t)snprintf(folder, sizeof(folder), "%s%sobjects/pack",
				     dir, dir[0] && dir[strlen(dir) - 1] == '/'
				     ? "" : "/") >= sizeof(folder))
		return 0;
	d = opendir(folder);
	if (!d)
		return 0;	/* no packs (or no folder): loose objects only */
	while (!rc && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n <= 5 || strcmp(de->d_name + n - 5, ".pack") ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", folder,
				     de->d_name) >= sizeof(path))
			continue;
		rc = check_pack(path, what, err);
	}
	closedir(d);
	if (rc)
		error_hint(err, PACK_HINT);
	return rc;
}
