/*
 * fnmatch(3) with flags 0, the same on every platform (base/fnmatch.h).
 */
#include "base/fnmatch.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/fsys.h"
#include "base/strv.h"
#include "base/banned.h"

/* The POSIX classes of the C locale, by name. */
static int
in_class(const char *name, size_t len, unsigned char c)
{
	/* ASCII only: the C locale, whatever the process's locale is. */
	int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
	int digit = c >= '0' && c <= '9';
	int space = c == ' ' || (c >= '\t' && c <= '\r');
	int cntrl = c < 32 || c == 127;
	int print = c >= 32 && c < 127;

#define IS(s) (len == sizeof(s) - 1 && !memcmp(name, s, len))
	if (IS("alpha"))
		return alpha;
	if (IS("digit"))
		return digit;
	if (IS("alnum"))
		return alpha || digit;
	if (IS("upper"))
		return c >= 'A' && c <= 'Z';
	if (IS("lower"))
		return c >= 'a' && c <= 'z';
	if (IS("space"))
		return space;
	if (IS("blank"))
		return c == ' ' || c == '\t';
	if (IS("punct"))
		return print && c != ' ' && !alpha && !digit;
	if (IS("print"))
		return print;
	if (IS("graph"))
		return print && c != ' ';
	if (IS("cntrl"))
		return cntrl;
	if (IS("xdigit"))
		return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
#undef IS
	return -1;
}

/*
 * One member byte of a bracket expression at p[*i]: a byte, a quoted
 * byte, a collating symbol "[.X.]" or an equivalence class "[=X=]" (the
 * C locale has one-byte ones only, each its own class). Advances *i. 0, -1 at the pattern's end, -2 for a malformed
 * symbol (glibc: the pattern matches nothing).
 */
static int
member(const char *p, size_t *i, unsigned char *out)
{
	size_t k = *i;

	if (p[k] == '[' && (p[k + 1] == '.' || p[k + 1] == '=')) {
		if (!p[k + 2])
			return -1;
		if (p[k + 3] != p[k + 1] || p[k + 4] != ']')
			return -2;
		*out = (unsigned char)p[k + 2];
		*i = k + 5;
		return 0;
	}
	if (p[k] == '\\') {
		if (!p[k + 1])
			return -1;
		k++;
	}
	*out = (unsigned char)p[k];
	*i = k + 1;
	return 0;
}

/*
 * The bracket expression at p (p[0] == '['): its length in *len and
 * whether c is in it (1 or 0); -1 when it is not a bracket expression
 * (no closing ']'), so the '[' is literal; -2 for an unknown class name,
 * which glibc makes match nothing.
 */
static int
bracket(const char *p, unsigned char c, size_t *len)
{
	size_t i = 1;
	int neg = 0, hit = 0, first = 1;

	if (p[i] == '!' || p[i] == '^') {
		neg = 1;
		i++;
	}
	for (;;) {
		unsigned char lo, hi;
		int r;

		if (!p[i])
			return -1;
		if (p[i] == ']' && !first)
			break;
		first = 0;
		if (p[i] == '[' && p[i + 1] == ':') {
			size_t e = i + 2;

			/* glibc: a name of 'a'..'y' then ":]", or the '['
			   is a member like any other byte. */
			while (p[e] >= 'a' && p[e] < 'z')
				e++;
			if (p[e] == ':' && p[e + 1] == ']') {
				r = in_class(p + i + 2, e - i - 2, c);
				if (r < 0)
					return -2;
				hit |= r;
				i = e + 2;
				continue;
			}
		}
		r = member(p, &i, &lo);
		if (r < 0)
			return r;
		hi = lo;
		if (p[i] == '-' && p[i + 1] && p[i + 1] != ']') {
			i++;
			r = member(p, &i, &hi);
			if (r < 0)
				return r;
		}
		if (c >= lo && c <= hi)
			hit = 1;
	}
	*len = i + 1;
	return hit != neg;
}

int
fnmatch_match(const char *pattern, const char *string)
{
	const char *p = pattern, *s = string;
	const char *star_p = NULL, *star_s = NULL;

	for (;;) {
		size_t len = 1;
		int one;

		if (*p == '*') {
			while (*p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (!*p) {
			if (!*s)
				return 1;
			goto back;
		}
		if (!*s)
			return 0;
		if (*p == '?') {
			one = 1;
		} else if (*p == '[') {
			one = bracket(p, (unsigned char)*s, &len);
			if (one == -2)
				return 0;
			if (one == -1) {
				one = *s == '[';
				len = 1;
			}
		} else if (*p == '\\') {
			if (!p[1])
				return 0;
			one = p[1] == *s;
			len = 2;
		} else {
			one = *p == *s;
		}
		if (one) {
			p += len;
			s++;
			continue;
		}
back:
		/* Let the last star take one more byte, or fail. */
		if (!star_p || !*star_s)
			return 0;
		p = star_p;
		s = ++star_s;
	}
}

/* 1 when the component has a wildcard (or a backslash to unquote). */
static int
magic(const char *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i] == '*' || c[i] == '?' || c[i] == '[' || c[i] == '\\')
			return 1;
	return 0;
}

static void
cut(struct buf *b, size_t len)
{
	b->len = len;
	if (b->cap)
		b->data[len] = '\0';
}

/*
 * Match the components of `pattern` from `rest` on, below root/rel (rel
 * "" or ending in '/'), appending matches to out.
 */
static int
glob_from(const char *root, struct buf *rel, const char *rest,
	  struct strv *out, struct error *err)
{
	size_t n = strcspn(rest, "/"), keep = rel->len;
	const char *next = rest[n] ? rest + n + 1 : NULL;
	struct buf dir = BUF_INIT, comp = BUF_INIT;
	struct fsys_stat st;
	struct dirent *de;
	DIR *d = NULL;
	int rc = 0;

	if (!magic(rest, n)) {
		rc = buf_add(rel, rest, n, err);
		if (!rc && next)
			rc = buf_add(rel, "/", 1, err);
		if (!rc && next)
			rc = glob_from(root, rel, next, out, err);
		if (rc || next)
			goto done;
		rc = buf_addf(&dir, err, "%s/%s", root, rel->data);
		if (!rc && !fsys_lstat(dir.data, &st))
			rc = strv_push(out, rel->data, err);
		goto done;
	}
	rc = buf_addf(&dir, err, "%s/%s", root, rel->data);
	if (!rc)
		rc = buf_add(&comp, rest, n, err);
	if (rc)
		goto done;
	d = opendir(dir.data);
	while (d && !rc && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_name[0] == '.' && comp.data[0] != '.')
			continue;
		if (!fnmatch_match(comp.data, de->d_name))
			continue;
		cut(rel, keep);
		rc = buf_addf(rel, err, "%s%s", de->d_name, next ? "/" : "");
		if (!rc && next)
			rc = glob_from(root, rel, next, out, err);
		else if (!rc)
			rc = strv_push(out, rel->data, err);
	}
done:
	if (d)
		closedir(d);
	cut(rel, keep);
	buf_release(&dir);
	buf_release(&comp);
	return rc;
}

int
fnmatch_glob(const char *root, const char *pattern, struct strv *out,
	     struct error *err)
{
	struct buf rel = BUF_INIT;
	size_t from = out->n;
	int rc;

	rc = buf_add(&rel, "", 0, err);
	if (!rc)
		rc = glob_from(root, &rel, pattern, out, err);
	buf_release(&rel);
	if (!rc && out->n > from)
		sort_strings((const char **)out->v + from, out->n - from);
	return rc;
}
