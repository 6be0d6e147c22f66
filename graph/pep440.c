/*
 * PEP 440: a hand-written parser equivalent to the permissive regular
 * expression of PEP 440's Appendix B (as packaging implements it), the
 * canonical printer, the ordering, and the release-tag canonical check.
 */
#include "graph/pep440.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/banned.h"

/* Where each number and suffix sat in the raw text (for messages). */
struct span {
	size_t at, len;
};

struct raw {
	struct span epoch;
	struct span release[PEP440_RELEASE_MAX];
	struct span pre, pre_num;	/* whole segment; its number */
	struct span post, post_num;
	struct span dev, dev_num;
	struct span local;
};

static int
is_sep(char c)
{
	return c == '-' || c == '_' || c == '.';
}

static int
lower_eq(const char *s, const char *word)
{
	size_t i;

	for (i = 0; word[i]; i++)
		if (tolower((unsigned char)s[i]) != word[i])
			return 0;
	return 1;
}

/* Digits at s[*i]: value and span. 0 when there are none; -1 overflow. */
static int
number(const char *s, size_t *i, unsigned long long *val, struct span *sp)
{
	size_t start = *i;
	unsigned long long v = 0;

	if (!isdigit((unsigned char)s[*i]))
		return 0;
	while (isdigit((unsigned char)s[*i])) {
		unsigned d = (unsigned)(s[*i] - '0');

		if (v > (ULLONG_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
		(*i)++;
	}
	*val = v;
	if (sp) {
		sp->at = start;
		sp->len = *i - start;
	}
	return 1;
}

/* Match one of `words` (longest first) at s+i, case-insensitively. */
static size_t
label(const char *s, size_t i, const char *const *words, size_t *which)
{
	size_t k;

	for (k = 0; words[k]; k++) {
		size_t n = strlen(words[k]);

		if (lower_eq(s + i, words[k])) {
			*which = k;
			return n;
		}
	}
	return 0;
}

/*
 * Optional trailing "[-_.]?N?" after a label; the number defaults to 0.
 * A separator with no number after it is consumed, as the regex does.
 */
static int
label_number(const char *s, size_t *i, unsigned long long *val,
	     struct span *sp)
{
	size_t j = *i;
	int r;

	if (is_sep(s[j]))
		j++;
	r = number(s, &j, val, sp);
	if (r < 0)
		return -1;
	if (r == 0) {
		*val = 0;
		sp->at = j;
		sp->len = 0;
	}
	*i = j;
	return 0;
}

static int
parse_raw(const char *text, struct pep440 *v, struct raw *raw,
	  struct error *err)
{
	static const char *const pre_words[] = { "alpha", "beta", "preview",
		"pre", "rc", "a", "b", "c", NULL };
	static const enum pep440_pre pre_kinds[] = { PEP440_PRE_A,
		PEP440_PRE_B, PEP440_PRE_RC, PEP440_PRE_RC, PEP440_PRE_RC,
		PEP440_PRE_A, PEP440_PRE_B, PEP440_PRE_RC };
	static const char *const post_words[] = { "post", "rev", "r", NULL };
	const char *s = text;
	size_t i = 0, end, j, k, n, which;
	unsigned long long num;
	int r;

	memset(v, 0, sizeof(*v));
	memset(raw, 0, sizeof(*raw));
	end = strlen(s);
	while (i < end && isspace((unsigned char)s[i]))
		i++;
	while (end > i && isspace((unsigned char)s[end - 1]))
		end--;
	if (i == end)
		return error_set(err, ERROR_INVALID,
				 "'%s' is not a PEP 440 version: it is empty",
				 text);
	if (s[i] == 'v' || s[i] == 'V')
		i++;
	/* Epoch: "N!" */
	j = i;
	r = number(s, &j, &num, &raw->epoch);
	if (r < 0)
		goto toolarge;
	if (r > 0 && s[j] == '!') {
		v->epoch = num;
		i = j + 1;
	} else {
		raw->epoch.len = 0;
	}
	/* Release: N(.N)* */
	for (;;) {
		if (v->n_release == PEP440_RELEASE_MAX)
			return error_set(err, ERROR_INVALID,
					 "'%s' has more than %d release "
					 "segments", text, PEP440_RELEASE_MAX);
		r = number(s, &i, &v->release[v->n_release],
			   &raw->release[v->n_release]);
		if (r < 0)
			goto toolarge;
		if (r == 0)
			goto bad;
		v->n_release++;
		if (s[i] == '.' && isdigit((unsigned char)s[i + 1]))
			i++;
		else
			break;
	}
	/* Pre-release: [-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?N? */
	j = i + (is_sep(s[i]) ? 1 : 0);
	n = label(s, j, pre_words, &which);
	if (n) {
		raw->pre.at = i;
		v->pre_kind = pre_kinds[which];
		i = j + n;
		if (label_number(s, &i, &v->pre, &raw->pre_num) < 0)
			goto toolarge;
		raw->pre.len = i - raw->pre.at;
	}
	/* Post-release: -N | [-_.]?(post|rev|r)[-_.]?N? */
	if (s[i] == '-' && isdigit((unsigned char)s[i + 1])) {
		raw->post.at = i;
		i++;
		if (number(s, &i, &v->post, &raw->post_num) < 0)
			goto toolarge;
		v->has_post = 1;
		raw->post.len = i - raw->post.at;
	} else {
		j = i + (is_sep(s[i]) ? 1 : 0);
		n = label(s, j, post_words, &which);
		if (n) {
			raw->post.at = i;
			i = j + n;
			if (label_number(s, &i, &v->post, &raw->post_num) < 0)
				goto toolarge;
			v->has_post = 1;
			raw->post.len = i - raw->post.at;
		}
	}
	/* Development release: [-_.]?dev[-_.]?N? */
	j = i + (is_sep(s[i]) ? 1 : 0);
	if (lower_eq(s + j, "dev")) {
		raw->dev.at = i;
		i = j + 3;
		if (label_number(s, &i, &v->dev, &raw->dev_num) < 0)
			goto toolarge;
		v->has_dev = 1;
		raw->dev.len = i - raw->dev.at;
	}
	/* Local: +[a-z0-9]+([-_.][a-z0-9]+)* */
	if (s[i] == '+') {
		size_t o = 0, seg;

		raw->local.at = i;
		i++;
		for (;;) {
			seg = i;
			while (i < end && isalnum((unsigned char)s[i]))
				i++;
			if (i == seg)
				goto bad;
			/* Numeric segments print without leading zeros. */
			k = seg;
			if (strspn(s + seg, "0123456789") >= i - seg)
				while (k + 1 < i && s[k] == '0')
					k++;
			for (; k < i; k++) {
				/* The byte and the NUL must fit. */
				if (o + 1 >= PEP440_LOCAL_MAX)
					return error_set(err, ERROR_INVALID,
						"'%s' has a local version "
						"longer than %d bytes", text,
						PEP440_LOCAL_MAX - 1);
				v->local[o++] = (char)tolower(
					(unsigned char)s[k]);
			}
			if (i < end && is_sep(s[i]) &&
			    isalnum((unsigned char)s[i + 1])) {
				if (o + 2 >= PEP440_LOCAL_MAX)
					return error_set(err, ERROR_INVALID,
						"'%s' has a local version "
						"longer than %d bytes", text,
						PEP440_LOCAL_MAX - 1);
				v->local[o++] = '.';
				i++;
				continue;
			}
			break;
		}
		v->local[o] = '\0';
		raw->local.len = i - raw->local.at;
	}
	if (i != end)
		goto bad;
	return 0;
bad:
	return error_set(err, ERROR_INVALID, "'%s' is not a PEP 440 version",
			 text);
toolarge:
	return error_set(err, ERROR_INVALID,
			 "'%s' has a number too large for a version", text);
}

int
pep440_parse(const char *text, struct pep440 *out, struct error *err)
{
	struct raw raw;

	return parse_raw(text, out, &raw, err);
}

int
pep440_format(const struct pep440 *v, char *out, size_t size,
	      struct error *err)
{
	static const char *const pre_names[] = { "", "a", "b", "rc" };
	size_t o = 0, i;
	int n;

#define PUT(...)                                                       \
	do {                                                           \
		n = snprintf(out + o, o < size ? size - o : 0,        \
			     __VA_ARGS__);                             \
		if (n < 0)                                             \
			goto toolong;                                  \
		o += (size_t)n;                                        \
	} while (0)
	if (size)
		out[0] = '\0';
	if (v->epoch)
		PUT("%llu!", v->epoch);
	for (i = 0; i < v->n_release; i++)
		PUT("%s%llu", i ? "." : "", v->release[i]);
	if (v->pre_kind != PEP440_PRE_NONE)
		PUT("%s%llu", pre_names[v->pre_kind], v->pre);
	if (v->has_post)
		PUT(".post%llu", v->post);
	if (v->has_dev)
		PUT(".dev%llu", v->dev);
	if (v->local[0])
		PUT("+%s", v->local);
#undef PUT
	if (o >= size)
		goto toolong;
	return (int)o;
toolong:
	return error_set(err, ERROR_INVALID,
			 "version text longer than %zu bytes", size);
}

int
pep440_normalize(const char *text, char *out, size_t size, struct error *err)
{
	struct pep440 v;
	int rc;

	rc = pep440_parse(text, &v, err);
	if (rc < 0)
		return rc;
	rc = pep440_format(&v, out, size, err);
	return rc < 0 ? rc : 0;
}

static int
cmp_u(unsigned long long a, unsigned long long b)
{
	return a < b ? -1 : a > b;
}

/*
 * The key of packaging's _cmpkey: each of pre, post and dev maps to a
 * (rank, number) pair where rank 0 is "-infinity", 2 "+infinity".
 */
struct key {
	int pre_rank;		/* 0: X.devN without pre/post; 1: aN..rcN; 2: none */
	int pre_kind;
	unsigned long long pre;
	int post_rank;		/* 0: none; 1: postN */
	unsigned long long post;
	int dev_rank;		/* 1: devN; 2: none */
	unsigned long long dev;
};

static void
make_key(const struct pep440 *v, struct key *k)
{
	memset(k, 0, sizeof(*k));
	if (v->pre_kind == PEP440_PRE_NONE && !v->has_post && v->has_dev)
		k->pre_rank = 0;
	else if (v->pre_kind == PEP440_PRE_NONE)
		k->pre_rank = 2;
	else
		k->pre_rank = 1;
	k->pre_kind = (int)v->pre_kind;
	k->pre = v->pre;
	k->post_rank = v->has_post;
	k->post = v->post;
	k->dev_rank = v->has_dev ? 1 : 2;
	k->dev = v->dev;
}

/* Local labels: alphanumeric segments < numeric ones; shorter first. */
static int
cmp_local(const char *a, const char *b)
{
	if (!a[0] || !b[0])
		return (a[0] != 0) - (b[0] != 0);
	while (*a && *b) {
		size_t na = strcspn(a, "."), nb = strcspn(b, ".");
		int da = strspn(a, "0123456789") >= na;
		int db = strspn(b, "0123456789") >= nb;
		int c;

		if (da != db)
			return da - db;
		if (da) {
			/* No leading zeros: longer is larger. */
			c = na != nb ? (na < nb ? -1 : 1) : strncmp(a, b, na);
		} else {
			c = strncmp(a, b, na < nb ? na : nb);
			if (!c && na != nb)
				c = na < nb ? -1 : 1;
		}
		if (c)
			return c < 0 ? -1 : 1;
		a += na;
		b += nb;
		if (*a == '.')
			a++;
		if (*b == '.')
			b++;
	}
	return (*a != 0) - (*b != 0);
}

int
pep440_compare(const struct pep440 *a, const struct pep440 *b)
{
	struct key ka, kb;
	size_t i, n;
	int c;

	if ((c = cmp_u(a->epoch, b->epoch)))
		return c;
	n = a->n_release > b->n_release ? a->n_release : b->n_release;
	for (i = 0; i < n; i++) {
		unsigned long long x = i < a->n_release ? a->release[i] : 0;
		unsigned long long y = i < b->n_release ? b->release[i] : 0;

		if ((c = cmp_u(x, y)))
			return c;
	}
	make_key(a, &ka);
	make_key(b, &kb);
	if ((c = cmp_u((unsigned)ka.pre_rank, (unsigned)kb.pre_rank)))
		return c;
	if (ka.pre_rank == 1) {
		if ((c = cmp_u((unsigned)ka.pre_kind, (unsigned)kb.pre_kind)))
			return c;
		if ((c = cmp_u(ka.pre, kb.pre)))
			return c;
	}
	if ((c = cmp_u((unsigned)ka.post_rank, (unsigned)kb.post_rank)))
		return c;
	if (ka.post_rank && (c = cmp_u(ka.post, kb.post)))
		return c;
	if ((c = cmp_u((unsigned)ka.dev_rank, (unsigned)kb.dev_rank)))
		return c;
	if (ka.dev_rank == 1 && (c = cmp_u(ka.dev, kb.dev)))
		return c;
	return cmp_local(a->local, b->local);
}

int
pep440_is_canonical(const char *text)
{
	char buf[PEP440_TEXT_MAX];

	if (pep440_normalize(text, buf, sizeof(buf), NULL) < 0)
		return 0;
	return strcmp(buf, text) == 0;
}

int
pep440_is_prerelease(const struct pep440 *v)
{
	return v->pre_kind != PEP440_PRE_NONE || v->has_dev;
}

static int
leading_zero(const char *s, struct span sp)
{
	return sp.len > 1 && s[sp.at] == '0';
}

int
pep440_check_release_text(const char *text, struct pep440 *out,
			  struct error *err)
{
	char canon[PEP440_TEXT_MAX];
	struct pep440 v;
	struct raw raw;
	size_t i;
	int rc;

	if (!text[0])
		return error_set(err, ERROR_INVALID, "the version is empty");
	for (i = 0; text[i]; i++)
		if (isspace((unsigned char)text[i]))
			return error_set(err, ERROR_INVALID,
					 "version '%s' contains whitespace",
					 text);
	if (!isdigit((unsigned char)text[0]))
		return error_set(err, ERROR_INVALID,
				 "version '%s' does not start with a digit",
				 text);
	rc = parse_raw(text, &v, &raw, err);
	if (rc < 0)
		return rc;
	if (leading_zero(text, raw.epoch))
		return error_set(err, ERROR_INVALID,
				 "epoch '%.*s' has a leading zero",
				 (int)raw.epoch.len, text + raw.epoch.at);
	for (i = 0; i < v.n_release; i++)
		if (leading_zero(text, raw.release[i]))
			return error_set(err, ERROR_INVALID,
					 "release segment '%.*s' has a "
					 "leading zero",
					 (int)raw.release[i].len,
					 text + raw.release[i].at);
	if (leading_zero(text, raw.pre_num))
		return error_set(err, ERROR_INVALID,
				 "pre-release '%.*s' has a leading zero",
				 (int)raw.pre.len, text + raw.pre.at);
	if (leading_zero(text, raw.post_num))
		return error_set(err, ERROR_INVALID,
				 "post-release '%.*s' has a leading zero",
				 (int)raw.post.len, text + raw.post.at);
	if (leading_zero(text, raw.dev_num))
		return error_set(err, ERROR_INVALID,
				 "dev-release '%.*s' has a leading zero",
				 (int)raw.dev.len, text + raw.dev.at);
	if (raw.local.len) {
		error_set(err, ERROR_INVALID,
			  "local versions cannot be released: '%s' has "
			  "local part '%.*s'", text, (int)raw.local.len,
			  text + raw.local.at);
		error_hint(err, "PEP 440: local version identifiers are not "
			   "for public index servers");
		return ERROR_INVALID;
	}
	rc = pep440_format(&v, canon, sizeof(canon), err);
	if (rc < 0)
		return rc;
	if (strcmp(canon, text)) {
		error_set(err, ERROR_INVALID,
			  "version '%s' is not in canonical PEP 440 form",
			  text);
		error_hint(err, "write '%s'", canon);
		return ERROR_INVALID;
	}
	if (out)
		*out = v;
	return 0;
}

int
pep440_check_release_tag(const char *tag, const char *prefix,
			 struct pep440 *out, struct error *err)
{
	size_t n = prefix ? strlen(prefix) : 0;
	size_t i;
	int rc;

	if (!tag[0])
		return error_set(err, ERROR_INVALID, "the tag is empty");
	for (i = 0; tag[i]; i++)
		if (isspace((unsigned char)tag[i]))
			return error_set(err, ERROR_INVALID,
					 "tag '%s' contains whitespace", tag);
	if (n && strncmp(tag, prefix, n))
		return error_set(err, ERROR_INVALID,
				 "tag '%s' does not start with the family "
				 "prefix '%s'", tag, prefix);
	if (!tag[n])
		return error_set(err, ERROR_INVALID,
				 "tag '%s' has no version after the prefix "
				 "'%s'", tag, prefix);
	rc = pep440_check_release_text(tag + n, out, err);
	if (rc < 0)
		error_prefix(err, "tag '%s'", tag);
	return rc;
}
