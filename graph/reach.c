/*
 * Reachability of a tag in a shallow clone, from the commits at hand
 * (graph/reach.h says the rule and why it is sound).
 */
#include "graph/reach.h"

#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "base/strv.h"
#include "graph/repo_git.h"
#include "base/banned.h"

/* A walk's state: seen commits (hex keys owned by `keys`), a stack. */
struct walk {
	struct strmap seen;
	struct strv keys;
	git_oid *stack;
	size_t n, cap;
	int boundary;		/* met a commit whose parents are cut */
	int root;		/* met a commit without parents */
	int met;		/* stopped at the target */
};

static void
walk_init(struct walk *w)
{
	memset(w, 0, sizeof(*w));
	strv_init(&w->keys, 1);
}

static void
walk_release(struct walk *w)
{
	strmap_release(&w->seen);
	strv_release(&w->keys);
	mem_free(w->stack);
}

/* Push oid unless seen; 1 when pushed, 0 when seen, negative on error. */
static int
walk_push(struct walk *w, const git_oid *oid, struct error *err)
{
	char hex[GIT_OID_HEXSZ + 1];
	int rc;

	git_oid_tostr(hex, sizeof(hex), oid);
	if (strmap_get(&w->seen, hex))
		return 0;
	rc = strv_push(&w->keys, hex, err);
	if (!rc)
		rc = strmap_put(&w->seen, w->keys.v[w->keys.n - 1], w, err);
	if (rc)
		return rc;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		git_oid *s = mem_realloc(w->stack, cap * sizeof(*s));

		if (!s)
			return error_set(err, ERROR_NOMEM, "out of memory");
		w->stack = s;
		w->cap = cap;
	}
	git_oid_cpy(&w->stack[w->n++], oid);
	return 1;
}

static int
seen(const struct walk *w, const git_oid *oid)
{
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), oid);
	return strmap_get(&w->seen, hex) != NULL;
}

/*
 * Walk from `start`, not entering commits `stop` has seen (may be NULL),
 * marking boundaries and roots, and w->met when it stops at `target`;
 * w->keys then holds every commit visited.
 */
static int
walk_from(git_repository *git, const struct graph_shallow *cut,
	  struct walk *w,
	  const struct walk *stop, const git_oid *start,
	  const git_oid *target, struct error *err)
{
	int rc;

	if (stop && seen(stop, start)) {
		w->met = target && git_oid_equal(start, target);
		return 0;
	}
	rc = walk_push(w, start, err);
	while (rc >= 0 && w->n) {
		git_oid oid = w->stack[--w->n];
		char hex[GIT_OID_HEXSZ + 1];
		git_commit *c = NULL;
		unsigned i, np;
		int g;

		git_oid_tostr(hex, sizeof(hex), &oid);
		g = git_commit_lookup(&c, git, &oid);
		if (g == GIT_ENOTFOUND) {
			w->boundary = 1;	/* a parent cut away */
			rc = 0;
			continue;
		}
		if (g < 0)
			return error_set(err, ERROR_INTERNAL, "cannot read "
					 "commit %s", hex);
		if (graph_git_shallow_has(cut, &oid)) {
			w->boundary = 1;
			git_commit_free(c);
			rc = 0;
			continue;
		}
		np = git_commit_parentcount(c);
		if (!np)
			w->root = 1;
		for (i = 0, rc = 0; i < np && rc >= 0; i++) {
			const git_oid *p = git_commit_parent_id(c, i);

			if (!stop || !seen(stop, p))
				rc = walk_push(w, p, err);
			else if (target && git_oid_equal(p, target))
				w->met = 1;
		}
		git_commit_free(c);
	}
	return rc < 0 ? rc : 0;
}

int
graph_reach_in_shallow(git_repository *git,
		       const struct graph_shallow *shallow,
		       const git_oid *from, const git_oid *tag,
		       unsigned long *distance, struct error *err)
{
	struct walk a, h;
	int rc;

	*distance = 0;
	walk_init(&a);
	walk_init(&h);
	rc = walk_from(git, shallow, &a, NULL, tag, NULL, err);
	if (!rc)
		rc = walk_from(git, shallow, &h, &a, from, tag, err);
	if (rc)
		goto done;
	if (h.boundary || (h.root && a.boundary)) {
		rc = GRAPH_REACH_UNKNOWN;
		goto done;
	}
	/* Every commit from reaches is one it counted or an ancestor of
	 * the tag (A): the tag is among them exactly when the walk stopped
	 * at the tag itself, and the counted ones are git describe's. */
	*distance = (unsigned long)h.keys.n;
	rc = h.met ? GRAPH_REACH_YES : GRAPH_REACH_NO;
done:
	walk_release(&a);
	walk_release(&h);
	return rc;
}
