/* The reference pattern matcher of the fuzz tests (pattern_ref.c). */
#ifndef RIPPLE_TESTS_FUZZ_PATTERN_REF_H
#define RIPPLE_TESTS_FUZZ_PATTERN_REF_H

/*
 * Match a valid pattern against path with the pre-issue-14 recursion;
 * `mode` is an enum pattern_query. 1 or 0, or -1 when `budget` steps were
 * not enough (or out of memory).
 */
int pattern_ref_match(const char *pattern, const char *path, int mode,
		      unsigned long budget);

#endif
