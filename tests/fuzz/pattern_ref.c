/*
 * The reference matcher for tests/fuzz/pattern_fuzz.c: graph/pattern.c as
 * it was before issue 14 made it polynomial (commit b7c3ec7), a plain
 * recursion that tries every way to split the path at each "**". Slow
 * (exponential in the number of "**") but obviously right, so the fuzzer
 * compares the fast matcher with it on inputs small enough; a step budget
 * stops it (-1) where it would take too long.
 */
#include "tests/fuzz/pattern_ref.h"

#include <string.h>

#include "base/buf.h"
#include "base/mem.h"

/* End of the class starting at p ('['), pointing at its ']', or NULL. */
static const char *
class_end(const char *p, const char *end)
{
	p++;
	if (p < end && (*p == '!' || *p == '^'))
		p++;
	if (p < end && *p == ']')
		p++;
	while (p < end && *p != ']') {
		if (*p == '\\' && p + 1 < end)
			p++;
		p++;
	}
	return p < end ? p : NULL;
}

/* Does class [p..e] (p at '[', e at ']') match byte c? */
static int
class_match(const char *p, const char *e, unsigned char c)
{
	int neg = 0, hit = 0;
	unsigned char lo, hi;

	p++;
	if (*p == '!' || *p == '^') {
		neg = 1;
		p++;
	}
	if (*p == ']') {
		hit |= c == ']';
		p++;
	}
	while (p < e) {
		if (*p == '\\' && p + 1 < e)
			p++;
		lo = (unsigned char)*p++;
		hi = lo;
		if (p + 1 < e && *p == '-') {
			p++;
			if (*p == '\\' && p + 1 < e)
				p++;
			hi = (unsigned char)*p++;
		}
		if (c >= lo && c <= hi)
			hit = 1;
	}
	return hit != neg;
}

/* Glob one component: pattern [p, pe) against name [s, se); no '/'. */
static int
glob(const char *p, const char *pe, const char *s, const char *se)
{
	const char *star_p = NULL, *star_s = NULL, *e;

	for (;;) {
		if (p < pe && *p == '*') {
			while (p < pe && *p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (s == se) {
			if (p == pe)
				return 1;
			goto backtrack;
		}
		if (p == pe)
			goto backtrack;
		if (*p == '?') {
			p++;
			s++;
			continue;
		}
		if (*p == '[' && (e = class_end(p, pe)) != NULL) {
			if (!class_match(p, e, (unsigned char)*s))
				goto backtrack;
			p = e + 1;
			s++;
			continue;
		}
		if (*p == '\\' && p + 1 < pe)
			p++;
		if (*p != *s)
			goto backtrack;
		p++;
		s++;
		continue;
backtrack:
		if (!star_p || star_s == se)
			return 0;
		p = star_p;
		s = ++star_s;
	}
}

static const char *
comp_end(const char *s)
{
	const char *e = strchr(s, '/');

	return e ? e : s + strlen(s);
}

static int
is_dstar(const char *p, const char *pe)
{
	return pe - p == 2 && p[0] == '*' && p[1] == '*';
}

/*
 * Match pattern segments from p against path components from s. `mode`:
 * 0 a path (a match of an ancestor directory counts), 1 "could something
 * under the directory s match", 2 "does everything under directory s match".
 */
static int
segs_match(const char *p, const char *s, int mode, unsigned long *budget)
{
	const char *pe, *se;

	for (;;) {
		if (!*budget)
			return -1;
		--*budget;
		if (!*p) {
			/* Pattern done: it matched s or an ancestor of s,
			 * which claims everything below (every mode). */
			return 1;
		}
		pe = comp_end(p);
		if (!*s) {
			if (mode == 1)
				return 1;
			if (mode == 2)
				return is_dstar(p, pe) && !*pe;
			return 0;
		}
		se = comp_end(s);
		if (is_dstar(p, pe)) {
			if (!*pe)
				return 1;	/* trailing "**": one or more */
			if (mode == 1)
				return 1;
			/* Zero or more components, then the rest. */
			for (;;) {
				int m = segs_match(pe + 1, s, mode, budget);

				if (m)
					return m;
				if (!*se)
					return 0;
				s = se + 1;
				se = comp_end(s);
			}
		}
		if (!glob(p, pe, s, se))
			return 0;
		p = *pe ? pe + 1 : pe;
		s = *se ? se + 1 : se;
	}
}

/* Rewrite a valid pattern into the anchored, "**"-explicit form. */
static char *
rewrite(const char *pattern)
{
	size_t len = strlen(pattern);
	int trailing = pattern[len - 1] == '/';
	size_t body = trailing ? len - 1 : len;
	int anchored = memchr(pattern, '/', body) != NULL;
	struct buf b = BUF_INIT;

	if (pattern[0] == '/') {	/* anchored at the base: drop the "/" */
		pattern++;
		body--;
	}
	if (!anchored && !(body == 2 && pattern[0] == '*' && pattern[1] == '*'))
		buf_add(&b, "**/", 3, NULL);
	buf_add(&b, pattern, body, NULL);
	if (trailing)
		buf_add(&b, "/**", 3, NULL);
	if (!b.cap && !b.len)
		return NULL;
	return buf_detach(&b);
}

int
pattern_ref_match(const char *pattern, const char *path, int mode,
		  unsigned long budget)
{
	char *r = rewrite(pattern);
	int m;

	if (!r)
		return -1;
	m = segs_match(r, path, mode, &budget);
	mem_free(r);
	return m;
}
