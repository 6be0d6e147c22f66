/*
 * Internal to graph/: the single-pattern matcher that compiled sets
 * (graph/pattern_set.c) run on their rewritten patterns.
 */
#ifndef RIPPLE_GRAPH_PATTERN_INT_H
#define RIPPLE_GRAPH_PATTERN_INT_H

/*
 * A valid pattern rewritten into the anchored, "**"-explicit form: an
 * unanchored one gets a leading "**" segment, a trailing "/" becomes a
 * trailing "**" segment, a leading "/" goes. Free with mem_free; NULL when
 * out of memory.
 */
char *pattern_rewrite(const char *pattern);

/*
 * Match a rewritten pattern against a path; `mode` is an enum
 * pattern_query. Adds the work done to *steps. 1 or 0.
 */
int pattern_segs_match(const char *rewritten, const char *path, int mode,
		       unsigned long *steps);

#endif
