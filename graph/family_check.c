/*
 * Whole-rules checks of the roots' tag families, run by `ripple check` and
 * whenever rules are opened for versions: lines that cannot be right are
 * refused before any version is computed from them. Overlap is decided by
 * intersecting the glob patterns as regular languages (a small dynamic
 * programme over three patterns), not by trying tags.
 */
#include "graph/family.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "graph/pep440.h"
#include "rules/rules.h"
#include "base/banned.h"

#define TOKENS_MAX 256

/* One glob token: a set of bytes, or '*'. */
struct tok {
	int star;
	unsigned char set[32];	/* bit c: byte c matches */
};

static void
set_add(struct tok *t, unsigned c)
{
	t->set[c >> 3] |= (unsigned char)(1u << (c & 7));
}

/* Parse a bracket expression at p[0] == '['; returns its length or 0. */
static size_t
bracket(const char *p, struct tok *t)
{
	size_t i = 1;
	int neg = 0, any = 0;
	unsigned c, k;

	if (p[i] == '!' || p[i] == '^') {
		neg = 1;
		i++;
	}
	for (k = 0; p[i] && (k == 0 || p[i] != ']'); k++) {
		if (p[i] == '[' && p[i + 1] == ':') {
			const char *e = strstr(p + i + 2, ":]");

			if (!e)
				return 0;
			any = 1;	/* a named class: any byte, to be safe */
			i = (size_t)(e - p) + 2;
			continue;
		}
		c = (unsigned char)p[i];
		if (p[i + 1] == '-' && p[i + 2] && p[i + 2] != ']') {
			unsigned hi = (unsigned char)p[i + 2];

			for (; c <= hi; c++)
				set_add(t, c);
			i += 3;
		} else {
			set_add(t, c);
			i++;
		}
	}
	if (p[i] != ']')
		return 0;
	if (any)
		memset(t->set, 0xff, sizeof(t->set));
	if (neg && !any)
		for (k = 0; k < sizeof(t->set); k++)
			t->set[k] = (unsigned char)~t->set[k];
	return i + 1;
}

/* Tokens of an fnmatch(3) pattern (flags 0). -1 when too long. */
static int
tokenize(const char *p, struct tok *out, size_t *n)
{
	*n = 0;
	while (*p) {
		struct tok *t = &out[*n];
		size_t len;

		if (*n == TOKENS_MAX)
			return -1;
		memset(t, 0, sizeof(*t));
		if (*p == '*') {
			t->star = 1;
			p++;
		} else if (*p == '?') {
			memset(t->set, 0xff, sizeof(t->set));
			p++;
		} else if (*p == '[' && (len = bracket(p, t)) > 0) {
			p += len;
		} else {
			if (*p == '\\' && p[1])
				p++;
			set_add(t, (unsigned char)*p);
			p++;
		}
		(*n)++;
	}
	return 0;
}

struct meet {
	const struct tok *t[3];
	size_t n[3];
	unsigned char *memo;	/* 0 unknown, 1 no, 2 yes */
};

static int
meets(struct meet *m, size_t i, size_t j, size_t k)
{
	size_t at = (i * (m->n[1] + 1) + j) * (m->n[2] + 1) + k;
	size_t pos[3] = { i, j, k }, next[3];
	unsigned char set[32];
	int r = 0, q, moved = 0;
	unsigned b;

	if (m->memo[at])
		return m->memo[at] == 2;
	if (i == m->n[0] && j == m->n[1] && k == m->n[2]) {
		m->memo[at] = 2;
		return 1;
	}
	/* A star matching nothing. */
	if (i < m->n[0] && m->t[0][i].star && meets(m, i + 1, j, k))
		r = 1;
	else if (j < m->n[1] && m->t[1][j].star && meets(m, i, j + 1, k))
		r = 1;
	else if (k < m->n[2] && m->t[2][k].star && meets(m, i, j, k + 1))
		r = 1;
	if (r)
		goto done;
	/* One byte all three accept: stars stay, sets advance. */
	memset(set, 0xff, sizeof(set));
	for (q = 0; q < 3; q++) {
		next[q] = pos[q];
		if (pos[q] == m->n[q])
			goto done;
		if (m->t[q][pos[q]].star)
			continue;
		for (b = 0; b < sizeof(set); b++)
			set[b] &= m->t[q][pos[q]].set[b];
		next[q]++;
		moved = 1;
	}
	for (b = 0; moved && b < sizeof(set) && !r; b++)
		if (set[b])
			r = meets(m, next[0], next[1], next[2]);
done:
	m->memo[at] = r ? 2 : 1;
	return r;
}

int
graph_family_globs_meet(const char *a, const char *b, const char *c)
{
	static struct tok star = { 1, { 0 } };
	struct tok *t = mem_calloc(3 * TOKENS_MAX, sizeof(*t));
	struct meet m;
	int r = 1;

	if (!t)
		return ERROR_NOMEM;
	memset(&m, 0, sizeof(m));
	if (tokenize(a, t, &m.n[0]) || tokenize(b, t + TOKENS_MAX, &m.n[1]))
		goto done;	/* too long to tell: assume they meet */
	if (c && tokenize(c, t + 2 * TOKENS_MAX, &m.n[2]))
		goto done;
	m.t[0] = t;
	m.t[1] = t + TOKENS_MAX;
	m.t[2] = c ? t + 2 * TOKENS_MAX : &star;
	if (!c)
		m.n[2] = 1;
	m.memo = mem_calloc((m.n[0] + 1) * (m.n[1] + 1) * (m.n[2] + 1), 1);
	if (!m.memo) {
		r = ERROR_NOMEM;
		goto done;
	}
	r = meets(&m, 0, 0, 0);
done:
	mem_free(m.memo);
	mem_free(t);
	return r;
}

static int
report(struct error_list *errors, const struct rules *r,
       const struct rules_root *root, const char *hint, const char *fmt,
       ...) __attribute__((format(printf, 5, 6)));

static int
report(struct error_list *errors, const struct rules *r,
       const struct rules_root *root, const char *hint, const char *fmt, ...)
{
	struct error e;
	va_list ap;
	char msg[ERROR_MSG_MAX];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error_init(&e);
	error_at(&e, ERROR_INVALID, r->file ? r->file : "", root->pos.line,
		 root->pos.col, "%s", msg);
	error_hint(&e, "%s", hint);
	return error_list_add(errors, &e) ? ERROR_NOMEM : ERROR_INVALID;
}

static const char *
family_text(const struct rules_root *root, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < root->n_tags && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s'%s'",
					i ? ", " : "", root->tags[i]);
	return buf;
}

/* The fallback: a .devN version whose release the family would tag. */
static int
check_fallback(const struct rules *r, const struct rules_root *root,
	       struct error_list *errors)
{
	struct version_params p;
	struct pep440 v;
	char text[PEP440_TEXT_MAX], tag[PEP440_TEXT_MAX + 256], fam[512];
	size_t i;
	int dev;

	if (!root->fallback_version ||
	    pep440_parse(root->fallback_version, &v, NULL))
		return 0;	/* the loader reports a malformed one */
	version_params_from_root(root, &p);
	dev = v.has_dev;
	v.has_dev = 0;
	v.local[0] = '\0';
	if (graph_family_spell(&v, p.spelling, text, sizeof(text)) < 0)
		return 0;
	if (!dev) {
		char hint[ERROR_HINT_MAX];

		snprintf(hint, sizeof(hint), "a fallback stands for the dev "
			 "builds before a release: write %.150s.dev0", text);
		return report(errors, r, root, hint, "fallback-version '%s' "
			      "of root '%s' is not a .devN version",
			      root->fallback_version, root->name);
	}
	if (!root->n_tags)
		return 0;
	snprintf(tag, sizeof(tag), "%s%s", p.prefix ? p.prefix : "", text);
	for (i = 0; i < root->n_tags; i++)
		if (graph_family_globs_meet(root->tags[i], tag, NULL) == 1)
			return 0;
	return report(errors, r, root, "write a .devN version of a release "
		      "the family tags, e.g. the next one of its line",
		      "fallback-version '%s' of root '%s' is outside its tag "
		      "family %s: its release would be tagged '%s'",
		      root->fallback_version, root->name,
		      family_text(root, fam, sizeof(fam)), tag);
}

/* Literal digits then '.', after the prefix; 1 and the number, else 0. */
static int
named_number(const char **s, unsigned long *out)
{
	const char *p = *s;
	unsigned long v = 0;

	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9' && v < 100000)
		v = v * 10 + (unsigned long)(*p++ - '0');
	if (*p != '.')
		return 0;
	*s = p + 1;
	*out = v;
	return 1;
}

/* The family names the toolkit's major (and minor, when it names one). */
static int
check_toolkit_line(const struct rules *r, const struct rules_root *root,
		   struct error_list *errors)
{
	const struct rules_toolkit *t;
	const char *prefix = root->tag_prefix ? root->tag_prefix : "";
	size_t i, n = strlen(prefix);
	int rc = 0;

	if (!root->toolkit || !root->tags_follow_toolkit)
		return 0;
	t = rules_find_toolkit(r, root->toolkit);
	if (!t)
		return 0;
	for (i = 0; i < root->n_tags; i++) {
		const char *p = root->tags[i];
		unsigned long major, minor;
		char hint[ERROR_HINT_MAX];

		if (strncmp(p, prefix, n) || (p += n, !named_number(&p, &major))) {
			if (root->tags_follow_toolkit == 1)
				rc = report(errors, r, root, "write the line "
					    "after the prefix, e.g. "
					    "'v12.9.*'", "tag pattern '%s' of "
					    "root '%s' names no major "
					    "version (tags-follow-toolkit)",
					    root->tags[i], root->name);
			continue;
		}
		snprintf(hint, sizeof(hint), "tag the line %s%u.%u.* (or "
			 "%s%u.*), or set tags-follow-toolkit: false when the "
			 "versions do not follow the CUDA toolkit", prefix,
			 t->major, t->minor, prefix, t->major);
		if (major != t->major)
			rc = report(errors, r, root, hint, "tag pattern '%s' of "
				    "root '%s' is the %lu line, but its toolkit "
				    "'%s' is %s", root->tags[i], root->name,
				    major, t->name, t->version);
		else if (named_number(&p, &minor) && minor != t->minor)
			rc = report(errors, r, root, hint, "tag pattern '%s' of "
				    "root '%s' is the %lu.%lu line, but its "
				    "toolkit '%s' is %s", root->tags[i],
				    root->name, major, minor, t->name,
				    t->version);
		if (rc == ERROR_NOMEM)
			return rc;
	}
	return rc;
}

static int
same_strings(const char *const *a, size_t na, const char *const *b, size_t nb)
{
	size_t i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (strcmp(a[i], b[i]))
			return 0;
	return 1;
}

static int
same_family(const struct rules_root *a, const struct rules_root *b)
{
	return same_strings(a->tags, a->n_tags, b->tags, b->n_tags) &&
	       same_strings(a->exclude_tags, a->n_exclude_tags,
			    b->exclude_tags, b->n_exclude_tags) &&
	       !strcmp(a->tag_prefix ? a->tag_prefix : "",
		       b->tag_prefix ? b->tag_prefix : "") &&
	       a->tag_spelling == b->tag_spelling &&
	       !strcmp(a->tag_regex ? a->tag_regex : "",
		       b->tag_regex ? b->tag_regex : "");
}

/* Does an exclude-tags entry of `root` take every tag of `pattern`? */
static int
excluded(const struct rules_root *root, const char *pattern)
{
	size_t i, n;

	for (i = 0; i < root->n_exclude_tags; i++) {
		const char *e = root->exclude_tags[i];

		n = strlen(e);
		if (!strcmp(e, pattern))
			return 1;
		if (n && e[n - 1] == '*' && strcspn(e, "*?[\\") == n - 1 &&
		    strcspn(pattern, "*?[\\") >= n - 1 &&
		    !strncmp(e, pattern, n - 1))
			return 1;
	}
	return 0;
}

/*
 * The glob every claimed tag of both roots matches: the longer prefix,
 * then a digit (the text after each prefix starts with one). "" when the
 * prefixes cannot both hold; NULL when a regex family has no prefix rule.
 */
static const char *
prefix_glob(const struct rules_root *a, const struct rules_root *b,
	    char *buf, size_t size)
{
	const char *pa = a->tag_prefix ? a->tag_prefix : "";
	const char *pb = b->tag_prefix ? b->tag_prefix : "";
	const char *lo, *p;
	size_t la, lb, len = 0;

	if (a->tag_regex && b->tag_regex)
		return NULL;
	if (a->tag_regex)
		pa = pb;
	if (b->tag_regex)
		pb = pa;
	la = strlen(pa);
	lb = strlen(pb);
	lo = la < lb ? pb : pa;	/* the longer one */
	if (strncmp(pa, pb, la < lb ? la : lb))
		return "";
	if (la != lb) {
		char next = lo[la < lb ? la : lb];

		if (next < '0' || next > '9')
			return "";
	}
	for (p = lo; *p && len + 3 < size; p++) {
		if (strchr("*?[\\", *p))
			buf[len++] = '\\';
		buf[len++] = *p;
	}
	buf[len] = '\0';
	snprintf(buf + len, size - len, "[0-9]*");
	return buf;
}

static int
check_overlap(const struct rules *r, const struct rules_root *a,
	      const struct rules_root *b, struct error_list *errors)
{
	char glob[600], fa[512], fb[512];
	const char *c;
	size_t i, j;
	int m;

	if (!a->n_tags || !b->n_tags || same_family(a, b))
		return 0;
	c = prefix_glob(a, b, glob, sizeof(glob));
	if (c && !c[0])
		return 0;
	for (i = 0; i < a->n_tags; i++)
		for (j = 0; j < b->n_tags; j++) {
			if (excluded(a, b->tags[j]) || excluded(b, a->tags[i]))
				continue;
			m = graph_family_globs_meet(a->tags[i], b->tags[j], c);
			if (m < 0)
				return m;
			if (!m)
				continue;
			return report(errors, r, b, "give the roots disjoint "
				      "tag patterns (e.g. 'v12.9.*' and "
				      "'v12.[0-8].*'), or the same family "
				      "when they are released together",
				      "tag families of roots '%s' (%s) and "
				      "'%s' (%s) overlap: one tag would "
				      "version both roots", a->name,
				      family_text(a, fa, sizeof(fa)), b->name,
				      family_text(b, fb, sizeof(fb)));
		}
	return 0;
}

int
graph_family_check_roots(const struct rules *r, struct error_list *errors)
{
	size_t i, j;
	int rc = 0, one;

	for (i = 0; i < r->n_roots; i++) {
		const struct rules_root *root = &r->roots[i];

		if (root->tag_regex) {
			struct error e;

			error_init(&e);
			if (graph_family_regex_check(root->tag_regex, &e))
				one = report(errors, r, root, "write Python "
					     "re syntax with a (?P<version>"
					     "...) group, as setuptools-scm's "
					     "tag_regex", "root '%s': %s",
					     root->name, e.msg);
			else
				one = 0;
			rc = rc ? rc : one;
		}
		one = check_fallback(r, root, errors);
		rc = rc ? rc : one;
		one = check_toolkit_line(r, root, errors);
		rc = rc ? rc : one;
		for (j = 0; j < i; j++) {
			one = check_overlap(r, &r->roots[j], root, errors);
			rc = rc ? rc : one;
		}
	}
	return rc;
}
