/*
 * Is a tag reachable in what a shallow clone has? (issue 25) libgit2's
 * descendant and revwalk answers need every parent; in a shallow clone
 * they fail at the boundary (libgit2 before 1.7) or, with shallow support,
 * see boundary commits as roots. Neither may decide a version alone.
 * graph_reach_in_shallow decides only what the commits at hand prove, and
 * says "unknown" otherwise, so a clone that lacks the tag's history stays
 * an error and one that holds it is accepted.
 */
#ifndef RIPPLE_GRAPH_REACH_H
#define RIPPLE_GRAPH_REACH_H

#include <git2.h>

struct error;
struct graph_shallow;

enum graph_reach {
	GRAPH_REACH_YES = 0,	/* `tag` is an ancestor of `from` */
	GRAPH_REACH_NO,		/* it is not */
	GRAPH_REACH_UNKNOWN,	/* the clone lacks what would decide it */
};

/*
 * Decide whether commit `tag` is an ancestor of (or equal to) `from` in
 * the shallow clone `git`, and with YES the distance git describe prints
 * (the commits reachable from `from` and not from `tag`) in *distance.
 *
 * The rule: walk the tag's ancestors A that are present (a commit of the
 * clone's shallow list `shallow` (graph_git_shallow_load), or whose
 * parent is missing, is a boundary); walk
 * from `from` without entering A, counting. If that walk meets a boundary
 * the answer is UNKNOWN (what lies below could be the tag's history). If
 * it ends at a commit without parents while the tag's walk met a
 * boundary, UNKNOWN too (that root may be the tag's ancestor). Otherwise
 * every commit it counted is certainly not the tag's ancestor: YES when
 * it reached the tag itself, else NO.
 *
 * Returns the enum value (>= 0) or a negative error code: ERROR_NOMEM,
 * ERROR_INTERNAL (a commit that cannot be read for another reason).
 */
int graph_reach_in_shallow(git_repository *git,
			   const struct graph_shallow *shallow,
			   const git_oid *from, const git_oid *tag,
			   unsigned long *distance, struct error *err);

#endif
