/*
 * Gitignore-style patterns: validation, one-component globbing (*, ?,
 * classes, escapes), multi-component matching with "**", and fixed
 * prefixes. Compiled include/exclude sets are in graph/pattern_set.c.
 */
#include "graph/pattern.h"
#include "graph/pattern_int.h"

#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

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

/*
 * Glob one component: pattern [p, pe) against name [s, se); no '/'. One
 * saved position for the last '*' suffices (what follows a later '*' can
 * always start further on), so this is O((pe - p) x (se - s)).
 * *steps grows by one per byte compared.
 */
static int
glob(const char *p, const char *pe, const char *s, const char *se,
     unsigned long *steps)
{
	const char *star_p = NULL, *star_s = NULL, *e;

	for (;;) {
		++*steps;
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
 *
 * A middle "**" matches zero or more components, so whatever matches the
 * pattern's rest from one component also matches it from any earlier one
 * (the "**" takes the difference). Hence, as glob() does for '*', only the
 * last "**" seen needs a saved position: on a mismatch it takes one more
 * component and the rest is tried again, and earlier "**" are never
 * revisited. Each path component starts the rest at most once per "**",
 * so the work is O(path length x pattern length), not the exponential of
 * trying every split (issue 14: ten "**" against a 40-deep path).
 */
int
pattern_segs_match(const char *p, const char *s, int mode,
		   unsigned long *steps)
{
	const char *pe, *se;
	const char *star_p = NULL;	/* the rest after the last "**" */
	const char *star_s = NULL;	/* where that rest was tried last */

	for (;;) {
		++*steps;
		if (!*p) {
			/* Pattern done: it matched s or an ancestor of s,
			 * which claims everything below (every mode). */
			return 1;
		}
		pe = comp_end(p);
		if (!*s) {
			if (mode == 1)
				return 1;
			if (mode == 2 && is_dstar(p, pe) && !*pe)
				return 1;
			goto backtrack;
		}
		se = comp_end(s);
		if (is_dstar(p, pe)) {
			if (!*pe)
				return 1;	/* trailing "**": one or more */
			if (mode == 1)
				return 1;
			/* Zero components first; more on a mismatch. */
			star_p = pe + 1;
			star_s = s;
			p = star_p;
			continue;
		}
		if (!glob(p, pe, s, se, steps))
			goto backtrack;
		p = *pe ? pe + 1 : pe;
		s = *se ? se + 1 : se;
		continue;
backtrack:
		if (!star_p)
			return 0;
		/* The "**" takes one more component, never the last one's
		 * end: what follows a middle "**" needs a component. */
		se = comp_end(star_s);
		if (!*se)
			return 0;
		star_s = se + 1;
		p = star_p;
		s = star_s;
	}
}

/*
 * 1 when the components at p (a pattern past its anchor) pass
 * pattern_validate's walk for certain: no escape or class (whose checks
 * the walk makes), no "//" (an empty component), no "." or ".."
 * component. 0 says nothing: the walk finds the error, the first in
 * order. A few library scans instead of a walk a component (a plan
 * validates 1,000 patterns).
 */
static int
plainly_valid(const char *p)
{
	const char *d;

	if (p[strcspn(p, "\\[")] || strstr(p, "//"))
		return 0;
	for (d = strchr(p, '.'); d; d = strchr(d + 1, '.')) {
		const char *e = d[1] == '.' ? d + 2 : d + 1;

		if ((d == p || d[-1] == '/') && (!*e || *e == '/'))
			return 0;
	}
	return 1;
}

int
pattern_validate(const char *pattern, struct error *err)
{
	const char *p = pattern, *pe, *q, *e;
	size_t len = strlen(pattern);

	if (!len)
		return error_set(err, ERROR_INVALID, "empty path pattern");
	if (pattern[0] == '/') {
		/* gitignore(5): a leading "/" anchors; "/" alone or "//x"
		 * names nothing relative */
		if (!pattern[1] || pattern[1] == '/')
			return error_set(err, ERROR_INVALID,
					 "absolute path pattern '%s'", pattern);
		p++;
	}
	if (plainly_valid(p))
		return 0;
	for (;;) {
		pe = comp_end(p);
		if (pe == p && *pe)
			return error_set(err, ERROR_INVALID,
					 "empty component in path pattern '%s'",
					 pattern);
		if ((pe - p == 1 && p[0] == '.') ||
		    (pe - p == 2 && p[0] == '.' && p[1] == '.'))
			return error_set(err, ERROR_INVALID,
					 "'%.*s' component in path pattern '%s'",
					 (int)(pe - p), p, pattern);
		for (q = p; q < pe; q++) {
			if (*q == '\\') {
				if (q + 1 >= pe)
					return error_set(err, ERROR_INVALID,
						"trailing backslash in path pattern '%s'",
						pattern);
				q++;
			} else if (*q == '[') {
				e = class_end(q, pe);
				if (!e)
					return error_set(err, ERROR_INVALID,
						"unterminated character class in path pattern '%s'",
						pattern);
				q = e;
			}
		}
		if (!*pe)
			break;
		p = pe + 1;
		if (!*p)
			break;	/* trailing "/" */
	}
	return 0;
}

char *
pattern_rewrite(const char *pattern)
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
pattern_match_counted(const char *pattern, const char *path,
		      enum pattern_query query, unsigned long *steps)
{
	char *r;
	int m;

	if (pattern_validate(pattern, NULL))
		return 0;
	r = pattern_rewrite(pattern);
	if (!r)
		return 0;
	m = pattern_segs_match(r, path, (int)query, steps);
	mem_free(r);
	return m;
}

int
pattern_match(const char *pattern, const char *path)
{
	unsigned long steps = 0;

	return pattern_match_counted(pattern, path, PATTERN_QUERY_PATH,
				     &steps);
}

void
pattern_fixed_prefix_span(const char *pattern, size_t *off, size_t *len)
{
	size_t n = strlen(pattern), m, e;

	*off = *len = 0;
	if (!n || !memchr(pattern, '/', pattern[n - 1] == '/' ? n - 1 : n))
		return;		/* unanchored: anywhere */
	*off = pattern[0] == '/';	/* explicitly anchored */
	/* The components before the first holding a wildcard or an escape
	 * ('*', '?', '[', '\\'), the last one only when a '/' ends it (it
	 * may name a file): the pattern's own bytes up to the last '/'
	 * before that byte (strcspn scans faster than a loop a component). */
	m = *off + strcspn(pattern + *off, "*?[\\");
	for (e = m; e > *off && pattern[e - 1] != '/'; e--)
		;
	if (e > *off)
		*len = e - 1 - *off;
}

int
pattern_fixed_prefix(const char *pattern, struct buf *out, struct error *err)
{
	size_t off, len;

	pattern_fixed_prefix_span(pattern, &off, &len);
	return len ? buf_add(out, pattern + off, len, err) : 0;
}
