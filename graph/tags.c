/*
 * Listing tags the way git does: every ref under refs/tags/ that resolves,
 * with the ones git would skip ("warning: ignoring broken ref": an invalid
 * name, a symbolic ref to nothing, the all-zero id) left out and named,
 * instead of libgit2's git_tag_list, which answers an empty list without
 * an error when one ref is a dangling symbolic ref or has an invalid
 * name. Used by graph_repo_tags (below: each tag peeled to its commit)
 * and version.c.
 */
#include "graph/repo_git.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
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

static int
cmp_tag(const void *a, const void *b)
{
	return strcmp(((const struct graph_tag *)a)->name,
		      ((const struct graph_tag *)b)->name);
}

int
graph_repo_tags(struct graph_repo *repo, struct graph_tag_list *out,
		struct error *err)
{
	struct strv names = STRV_INIT;
	git_object *obj = NULL, *peeled = NULL;
	struct buf ref = BUF_INIT;
	size_t i;
	int rc;

	out->items = NULL;
	out->n = 0;
	strv_init(&out->skipped, 1);
	rc = graph_git_tags(graph_repo_git(repo), &names, &out->skipped, err);
	if (rc)
		goto done;
	if (names.n) {
		out->items = mem_calloc(names.n, sizeof(*out->items));
		if (!out->items) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			goto done;
		}
	}
	for (i = 0; i < names.n; i++) {
		/* The whole name: a cut one could be another tag. */
		buf_reset(&ref);
		rc = buf_addf(&ref, err, "refs/tags/%s", names.v[i]);
		if (rc)
			goto done;
		if (git_revparse_single(&obj, graph_repo_git(repo), ref.data) < 0) {
			/* git: "ignoring broken ref" (e.g. a zero id) */
			git_error_clear();
			rc = strv_push(&out->skipped, ref.data, err);
			if (rc)
				goto done;
			continue;
		}
		if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) == 0) {
			struct graph_tag *t = &out->items[out->n];

			t->name = mem_strdup(names.v[i]);
			if (!t->name) {
				rc = error_set(err, ERROR_NOMEM, "out of memory");
				goto done;
			}
			memcpy(t->target.id, git_object_id(peeled)->id, 20);
			t->annotated = git_object_type(obj) == GIT_OBJECT_TAG;
			out->n++;
		}
		git_object_free(peeled);
		peeled = NULL;
		git_object_free(obj);
		obj = NULL;
	}
	if (out->n)
		qsort(out->items, out->n, sizeof(*out->items), cmp_tag);
	strv_sort(&out->skipped);
done:
	buf_release(&ref);
	git_object_free(peeled);
	git_object_free(obj);
	strv_release(&names);
	if (rc)
		graph_tag_list_release(out);
	return rc;
}

void
graph_tag_list_release(struct graph_tag_list *list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->n; i++)
		mem_free(list->items[i].name);
	mem_free(list->items);
	list->items = NULL;
	list->n = 0;
	strv_release(&list->skipped);
}
