/*
 * "Did you mean": the closest candidate by edit distance (Levenshtein with
 * adjacent transpositions counted as one edit, as ninja's SpellcheckNode).
 */
#ifndef RIPPLE_BASE_SPELL_H
#define RIPPLE_BASE_SPELL_H

#include <stddef.h>

/*
 * Edit distance between a and b, capped: returns max_distance + 1 as soon as
 * the distance is known to exceed max_distance. Strings longer than 255
 * bytes are compared on their first 255 bytes.
 */
unsigned spell_distance(const char *a, const char *b, unsigned max_distance);

/*
 * The candidate (of n) nearest to `word`, if within a distance of
 * max(1, strlen(word) / 3); ties go to the earlier candidate. NULL if none.
 * Returns a pointer into `candidates`.
 */
const char *spell_suggest(const char *word, const char *const *candidates,
			  size_t n);

#endif
