/*
 * Compiled include/exclude pattern sets: matching a path, the subtree tests
 * the tree walk prunes with, fixed prefixes and the set's digest. A set
 * indexes its patterns by their first component when that is a literal
 * name, so a path is tried only against the patterns that can match it:
 * with 50,000 patterns "p0/x", "p1/x", ... each test scanned all of them
 * (issue 14).
 */
#include "graph/pattern.h"
#include "graph/pattern_int.h"

#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/strv.h"
#include "graph/outputs.h"
#include "base/banned.h"

/* A pattern's literal first component, or none: the index's key. */
struct keyed {
	const char *key;	/* into the rewritten text; not terminated */
	size_t len;		/* bytes of key */
	size_t pat;		/* index into the list */
};

/* A list of rewritten patterns and its index. */
struct list {
	char **text;		/* rewritten (pattern_rewrite), n of them */
	size_t n;
	struct keyed *keyed;	/* patterns with a literal first component,
				   sorted by key */
	size_t n_keyed;
	size_t *other;		/* every other pattern, in order */
	size_t n_other;
};

struct pattern_set {
	struct list inc, exc;
	char **orig_inc;	/* as given, for prefixes */
	char **globs;		/* excluded output globs (graph/outputs.h) */
	size_t n_globs;
	char *absent;		/* an excluded path no walked commit holds */
	unsigned char digest[16];
};

static int
cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->pat < y->pat ? -1 : x->pat > y->pat;
}

/* The first component's length when it is a literal name, else 0. */
static size_t
literal_head(const char *text)
{
	size_t n = strcspn(text, "/");

	if (strcspn(text, "*?[\\") < n)
		return 0;
	return n;
}

static int
index_list(struct list *l)
{
	size_t i, len;

	l->keyed = mem_calloc(l->n + 1, sizeof(*l->keyed));
	l->other = mem_calloc(l->n + 1, sizeof(*l->other));
	if (!l->keyed || !l->other)
		return ERROR_NOMEM;
	for (i = 0; i < l->n; i++) {
		len = literal_head(l->text[i]);
		if (!len) {
			l->other[l->n_other++] = i;
			continue;
		}
		l->keyed[l->n_keyed].key = l->text[i];
		l->keyed[l->n_keyed].len = len;
		l->keyed[l->n_keyed++].pat = i;
	}
	qsort(l->keyed, l->n_keyed, sizeof(*l->keyed), cmp_keyed);
	return 0;
}

static int
compile_list(const char *const *src, size_t n, struct list *l,
	     struct error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		rc = pattern_validate(src[i], err);
		if (rc)
			return rc;
	}
	l->text = mem_calloc(n + 1, sizeof(*l->text));
	if (!l->text)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		l->text[i] = pattern_rewrite(src[i]);
		if (!l->text[i])
			return error_set(err, ERROR_NOMEM, "out of memory");
		l->n = i + 1;
	}
	if (index_list(l))
		return error_set(err, ERROR_NOMEM, "out of memory");
	return 0;
}

static void
release_list(struct list *l)
{
	size_t i;

	if (l->text)
		for (i = 0; i < l->n; i++)
			mem_free(l->text[i]);
	mem_free(l->text);
	mem_free(l->keyed);
	mem_free(l->other);
}

/* The first of keyed[lo, hi) whose key is >= (after: >) [s, s + len). */
static size_t
bound(const struct keyed *v, size_t lo, size_t hi, const char *s, size_t len,
      int after)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		size_t n = v[mid].len < len ? v[mid].len : len;
		int c = memcmp(v[mid].key, s, n);

		if (!c && v[mid].len != len)
			c = v[mid].len < len ? -1 : 1;
		if (c < 0 || (after && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Does some pattern of l match path (mode: enum pattern_query)? Only the
 * patterns keyed by the path's first component and the unkeyed ones can:
 * a literal first component matches that name alone.
 */
static int
any_match(const struct list *l, const char *path, int mode)
{
	unsigned long steps = 0;
	size_t i, lo, hi, len = strcspn(path, "/");

	if (!len) {	/* "" or a leading "/": try them all */
		for (i = 0; i < l->n; i++)
			if (pattern_segs_match(l->text[i], path, mode, &steps))
				return 1;
		return 0;
	}
	for (i = 0; i < l->n_other; i++)
		if (pattern_segs_match(l->text[l->other[i]], path, mode,
				       &steps))
			return 1;
	lo = bound(l->keyed, 0, l->n_keyed, path, len, 0);
	hi = bound(l->keyed, lo, l->n_keyed, path, len, 1);
	for (i = lo; i < hi; i++)
		if (pattern_segs_match(l->text[l->keyed[i].pat], path, mode,
				       &steps))
			return 1;
	return 0;
}

/*
 * The bytes of one pattern digest, gathered here and hashed in one shot
 * when they fit (a set's patterns are some 60 bytes: XXH3's streaming
 * reset, updates and end cost a set 1,400 instructions), else streamed:
 * the digest of the same bytes either way.
 */
struct phash {
	XXH3_state_t st;
	int streaming;
	size_t n;
	unsigned char b[256];
};

static void
ph_add(struct phash *h, const void *p, size_t n)
{
	if (!h->streaming && h->n + n <= sizeof(h->b)) {
		memcpy(h->b + h->n, p, n);
		h->n += n;
		return;
	}
	if (!h->streaming) {
		XXH3_128bits_reset(&h->st);
		XXH3_128bits_update(&h->st, h->b, h->n);
		h->streaming = 1;
	}
	XXH3_128bits_update(&h->st, p, n);
}

static void
ph_end(struct phash *h, unsigned char *out)
{
	XXH128_canonical_t c;

	XXH128_canonicalFromHash(&c, h->streaming
					     ? XXH3_128bits_digest(&h->st)
					     : XXH3_128bits(h->b, h->n));
	memcpy(out, c.digest, 16);
}

static void
digest_list(struct phash *h, const char *const *v, size_t n)
{
	uint32_t len;
	size_t i;

	len = (uint32_t)n;
	ph_add(h, &len, sizeof(len));
	for (i = 0; i < n; i++) {
		len = (uint32_t)strlen(v[i]);
		ph_add(h, &len, sizeof(len));
		ph_add(h, v[i], len);
	}
}

/* The digests of the steps that make a set: compile, the excluded output
 * globs, the absent path. Each chains the one before, so a set made in
 * those steps and pattern_set_memo_parts agree by construction. */
static void
digest_base(const char *const *include, size_t n_include,
	    const char *const *exclude, size_t n_exclude, unsigned char *out)
{
	struct phash h;

	h.streaming = 0;
	h.n = 0;
	ph_add(&h, "ripple-patterns-v1", 19);
	digest_list(&h, include, n_include);
	digest_list(&h, exclude, n_exclude);
	ph_end(&h, out);
}

static void
digest_globs(unsigned char *d, const char *const *globs, size_t n)
{
	struct phash h;

	h.streaming = 0;
	h.n = 0;
	ph_add(&h, "ripple-patterns-globs-v1", 24);
	ph_add(&h, d, 16);
	digest_list(&h, globs, n);
	ph_end(&h, d);
}

static void
digest_absent(unsigned char *d, const char *absent)
{
	struct phash h;

	h.streaming = 0;
	h.n = 0;
	ph_add(&h, "ripple-patterns-absent-v1", 25);
	ph_add(&h, d, 16);
	digest_list(&h, &absent, 1);
	ph_end(&h, d);
}

/* Fixed prefixes of n include patterns, sorted and unique, onto *out:
 * copies, or with a (NULL: copies) their texts in a, by reference. */
static int
prefixes_of(const char *const *include, size_t n, struct arena *a,
	    struct strv *out, struct error *err)
{
	size_t i, off, len;
	char *p;
	int rc = 0;

	for (i = 0; i < n; i++) {
		pattern_fixed_prefix_span(include[i], &off, &len);
		if (a) {
			p = arena_strndup(a, include[i] + off, len);
			rc = p ? strv_push_ref(out, p, err)
			       : error_set(err, ERROR_NOMEM, "out of memory");
		} else {
			p = mem_alloc(len + 1);
			if (p) {
				memcpy(p, include[i] + off, len);
				p[len] = '\0';
			}
			rc = p ? strv_push_ref(out, p, err)
			       : error_set(err, ERROR_NOMEM, "out of memory");
			if (rc)
				mem_free(p);
		}
		if (rc)
			return rc;
	}
	strv_sort_unique(out);
	return 0;
}

int
pattern_set_memo_parts(const char *const *include, size_t n_include,
		       const char *const *exclude, size_t n_exclude,
		       const char *const *globs, size_t n_globs,
		       const char *absent, unsigned char digest[16],
		       struct arena *a, struct strv *prefixes,
		       struct error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < n_include; i++) {
		rc = pattern_validate(include[i], err);
		if (rc)
			return rc;
	}
	for (i = 0; i < n_exclude; i++) {
		rc = pattern_validate(exclude[i], err);
		if (rc)
			return rc;
	}
	digest_base(include, n_include, exclude, n_exclude, digest);
	if (n_globs)
		digest_globs(digest, globs, n_globs);
	if (absent)
		digest_absent(digest, absent);
	return prefixes_of(include, n_include, a, prefixes, err);
}

int
pattern_set_compile(const char *const *include, size_t n_include,
		    const char *const *exclude, size_t n_exclude,
		    struct pattern_set **out, struct error *err)
{
	struct pattern_set *set;
	size_t i;
	int rc;

	*out = NULL;
	set = mem_calloc(1, sizeof(*set));
	if (!set)
		return error_set(err, ERROR_NOMEM, "out of memory");
	rc = compile_list(include, n_include, &set->inc, err);
	if (rc)
		goto fail;
	rc = compile_list(exclude, n_exclude, &set->exc, err);
	if (rc)
		goto fail;
	set->orig_inc = mem_calloc(n_include + 1, sizeof(char *));
	if (!set->orig_inc) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < n_include; i++) {
		set->orig_inc[i] = mem_strdup(include[i]);
		if (!set->orig_inc[i]) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			goto fail;
		}
	}
	digest_base(include, n_include, exclude, n_exclude, set->digest);
	*out = set;
	return 0;
fail:
	pattern_set_free(set);
	return rc;
}

void
pattern_set_free(struct pattern_set *set)
{
	size_t i;

	if (!set)
		return;
	if (set->orig_inc)
		for (i = 0; i < set->inc.n; i++)
			mem_free(set->orig_inc[i]);
	mem_free(set->orig_inc);
	for (i = 0; i < set->n_globs; i++)
		mem_free(set->globs[i]);
	mem_free(set->globs);
	mem_free(set->absent);
	release_list(&set->exc);
	release_list(&set->inc);
	mem_free(set);
}

int
pattern_set_exclude_globs(struct pattern_set *set, const char *const *globs,
			  size_t n, struct error *err)
{
	char **v;
	size_t i;

	if (!n)
		return 0;
	v = mem_realloc(set->globs, (set->n_globs + n + 1) * sizeof(*v));
	if (!v)
		return error_set(err, ERROR_NOMEM, "out of memory");
	set->globs = v;
	for (i = 0; i < n; i++) {
		v[set->n_globs] = mem_strdup(globs[i]);
		if (!v[set->n_globs])
			return error_set(err, ERROR_NOMEM, "out of memory");
		set->n_globs++;
	}
	digest_globs(set->digest, (const char *const *)set->globs,
		     set->n_globs);
	return 0;
}

int
pattern_set_exclude_absent(struct pattern_set *set, const char *path,
			   struct error *err)
{
	char *p = mem_strdup(path);

	if (!p)
		return error_set(err, ERROR_NOMEM, "out of memory");
	mem_free(set->absent);
	set->absent = p;
	digest_absent(set->digest, set->absent);
	return 0;
}

/*
 * A glob's literal text before its first wildcard, unescaped, into out
 * (n bytes); its length. Every path the glob matches starts with it.
 */
static size_t
glob_literal(const char *glob, char *out, size_t n)
{
	size_t k = 0;

	for (; *glob && !strchr("*?[", *glob) && k + 1 < n; glob++) {
		if (*glob == '\\' && glob[1])
			glob++;
		out[k++] = *glob;
	}
	out[k] = '\0';
	return k;
}

static int
glob_excluded(const struct pattern_set *set, const char *path)
{
	size_t i;

	for (i = 0; i < set->n_globs; i++)
		if (graph_glob_match(set->globs[i], path))
			return 1;
	return 0;
}

/* Could a glob match some path under dir (or dir itself)? */
static int
glob_may_match_below(const struct pattern_set *set, const char *dir)
{
	char lit[1024];
	size_t i, k, d = strlen(dir);

	for (i = 0; i < set->n_globs; i++) {
		k = glob_literal(set->globs[i], lit, sizeof(lit));
		if (!memcmp(lit, dir, k < d ? k : d) &&
		    (k <= d || lit[d] == '/'))
			return 1;
	}
	return 0;
}

/* Does a glob of LIT then slash-star-star (LIT literal) cover all below dir? */
static int
glob_covers_dir(const struct pattern_set *set, const char *dir)
{
	char lit[1024];
	size_t i, k, d = strlen(dir);

	for (i = 0; i < set->n_globs; i++) {
		const char *g = set->globs[i];
		size_t len = strlen(g);

		k = glob_literal(g, lit, sizeof(lit));
		if (len < 3 || strcmp(g + len - 3, "/**") || k + 2 != len ||
		    strchr(g, '\\'))
			continue;
		k--;	/* "LIT/" less its slash */
		if (k <= d && !memcmp(lit, dir, k) &&
		    (dir[k] == '/' || !dir[k]))
			return 1;
	}
	return 0;
}

int
pattern_set_match(const struct pattern_set *set, const char *path)
{
	return any_match(&set->inc, path, PATTERN_QUERY_PATH) &&
	       !any_match(&set->exc, path, PATTERN_QUERY_PATH) &&
	       !glob_excluded(set, path) &&
	       !(set->absent && !strcmp(path, set->absent));
}

int
pattern_set_may_match_dir(const struct pattern_set *set, const char *dir)
{
	if (!dir[0])
		return set->inc.n > 0;
	return any_match(&set->inc, dir, PATTERN_QUERY_SOME_BELOW) &&
	       !any_match(&set->exc, dir, PATTERN_QUERY_ALL_BELOW) &&
	       !glob_covers_dir(set, dir);
}

int
pattern_set_claims_opaque(const struct pattern_set *set, const char *path)
{
	return pattern_set_match(set, path) ||
	       pattern_set_may_match_dir(set, path);
}

int
pattern_set_claims_all_below(const struct pattern_set *set, const char *dir)
{
	if (!dir[0])
		return 0;
	return any_match(&set->inc, dir, PATTERN_QUERY_ALL_BELOW) &&
	       !any_match(&set->exc, dir, PATTERN_QUERY_SOME_BELOW) &&
	       !glob_may_match_below(set, dir);
}

int
pattern_set_prefixes(const struct pattern_set *set, struct strv *out,
		     struct error *err)
{
	return prefixes_of((const char *const *)set->orig_inc, set->inc.n,
			   NULL, out, err);
}

const unsigned char *
pattern_set_digest(const struct pattern_set *set)
{
	return set->digest;
}
