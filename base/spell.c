/* Capped Damerau-Levenshtein distance for "did you mean" hints. */
#include "base/spell.h"

#include <string.h>

#include "base/banned.h"

#define SPELL_MAX 255

unsigned
spell_distance(const char *a, const char *b, unsigned max_distance)
{
	unsigned rows[3][SPELL_MAX + 1];
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	if (la > SPELL_MAX)
		la = SPELL_MAX;
	if (lb > SPELL_MAX)
		lb = SPELL_MAX;
	if ((la > lb ? la - lb : lb - la) > max_distance)
		return max_distance + 1;	/* at least one edit a byte */
	for (j = 0; j <= lb; j++)
		prev[j] = (unsigned)j;
	for (i = 1; i <= la; i++) {
		unsigned best;
		unsigned *t;

		cur[0] = (unsigned)i;
		best = cur[0];
		for (j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned v = prev[j - 1] + cost;

			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
			if (v < best)
				best = v;
		}
		if (best > max_distance)
			return max_distance + 1;
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb] > max_distance ? max_distance + 1 : prev[lb];
}

const char *
spell_suggest(const char *word, const char *const *candidates, size_t n)
{
	unsigned limit = (unsigned)(strlen(word) / 3);
	const char *best = NULL;
	unsigned best_d;
	size_t i;

	if (limit < 1)
		limit = 1;
	best_d = limit + 1;
	for (i = 0; i < n; i++) {
		unsigned d = spell_distance(word, candidates[i], limit);

		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	return best;
}
