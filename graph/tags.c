/*
 * Listing tags the way git does: every ref under refs/tags/ that resolves,
 * with the ones git would skip ("warning: ignoring broken ref": an invalid
 * name, a symbolic ref to nothing, the all-zero id) left out and named, instead of libgit2's git_tag_list, which answers an empty
 * list without an error when one ref is a dangling symbolic ref or has an
 * invalid name. Used by repo.c (graph_repo_tags) and version.c.
 */
#include "graph/repo_git.h"

#include <string.h>

#include "base/error.h"
#include "base/strv.h"
#include "base/banned.h"

#define TAGS_PREFIX "refs/tags/"

int
graph_git_tags(git_repository *git, struct strv *names, struct strv *skipped,
	       struct error *err)
{
	git_reference_iterator *it = NULL;
	const char *name;
	size_t plen = strlen(TAGS_PREFIX);
	int g, rc = 0;

	g = git_reference_iterator_new(&it, git);
	if (g < 0) {
		const git_error *e = git_error_last();

		return error_set(err, ERROR_INTERNAL, "cannot list tags: %s",
				 e && e->message ? e->message : "libgit2 error");
	}
	while (!rc && (g = git_reference_next_name(&name, it)) == 0) {
		git_oid oid;
		int valid = 0;

		if (strncmp(name, TAGS_PREFIX, plen) || !name[plen])
			continue;
		if (git_reference_name_is_valid(&valid, name) == 0 && valid &&
		    git_reference_name_to_id(&oid, git, name) == 0 &&
		    !git_oid_is_zero(&oid)) {
			rc = strv_push(names, name + plen, err);
			continue;
		}
		git_error_clear();
		if (skipped)
			rc = strv_push(skipped, name, err);
	}
	if (!rc && g != GIT_ITEROVER) {
		const git_error *e = git_error_last();

		rc = error_set(err, ERROR_INTERNAL, "cannot list tags: %s",
			       e && e->message ? e->message : "libgit2 error");
	}
	git_reference_iterator_free(it);
	if (!rc) {
		strv_sort_unique(names);
		if (skipped)
			strv_sort_unique(skipped);
	}
	return rc;
}
