/*
 * A tag family's per-tag questions: does the family claim a tag, and is a
 * tag spelled as a release of it must be. Spellings: canonical PEP 440,
 * or RAPIDS zero-padded CalVer (v26.06.00, v26.08.00a); or setuptools-scm's
 * tag_regex (PCRE2, as close to Python's re as C gets), whose version
 * group is the version and whose trailing text is dropped, as
 * setuptools-scm drops it. The whole-rules checks are family_check.c's.
 */
#include "graph/family.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "base/error.h"
#include "base/fnmatch.h"
#include "graph/pep440.h"
#include "rules/rules.h"
#include "base/banned.h"

static int
glob_match(const char *pattern, const char *name)
{
	return !strcmp(pattern, name) || fnmatch_match(pattern, name);
}

int
graph_family_spell(const struct pep440 *v, enum version_spelling s,
		   char *out, size_t size)
{
	static const char *const pre[] = { "", "a", "b", "rc" };
	size_t len = 0, i;
	int n;

	if (s == VERSION_SPELLING_PEP440)
		return pep440_format(v, out, size, NULL);
#define ADD(...)                                                        \
	do {                                                            \
		n = snprintf(out + len, size - len, __VA_ARGS__);       \
		if (n < 0 || (size_t)n >= size - len)                   \
			return ERROR_INVALID;                           \
		len += (size_t)n;                                       \
	} while (0)
	if (!size)
		return ERROR_INVALID;
	out[0] = '\0';
	if (v->epoch)
		ADD("%llu!", v->epoch);
	/* RAPIDS CalVer: the major as its number (26, or 0 in v0.51.00),
	 * the other release numbers with at least two digits. */
	for (i = 0; i < v->n_release; i++)
		ADD(i ? ".%02llu" : "%llu", v->release[i]);
	if (v->pre_kind != PEP440_PRE_NONE) {
		ADD("%s", pre[v->pre_kind]);
		if (v->pre)
			ADD("%llu", v->pre);
	}
	if (v->has_post)
		ADD(".post%llu", v->post);
	if (v->has_dev)
		ADD(".dev%llu", v->dev);
	if (v->local[0])
		ADD("+%s", v->local);
#undef ADD
	return (int)len;
}

/*
 * PCRE2's limits on one match of a tag-regex. Its defaults (10^7 steps,
 * 20 MB of backtracking frames) let a regex such as `(a+)+$` spend 60 ms
 * on every tag that almost matches; a tag-regex reads a version from a
 * tag of a few dozen characters in well under a thousand steps.
 */
#define REGEX_MATCH_LIMIT 100000	/* calls of PCRE2's internal match() */
#define REGEX_DEPTH_LIMIT 10000		/* backtracking depth */
#define REGEX_HEAP_LIMIT 4096		/* KiB of backtracking frames */

/* Where a tag-regex is written, for errors (file NULL: not known). */
struct regex_at {
	const char *file;
	unsigned line, col;
};

static int
regex_error(const struct regex_at *at, int code, struct error *err,
	    const char *fmt, const char *regex, const char *tag,
	    const char *what)
{
	if (at && at->file)
		return error_at(err, code, at->file, at->line, at->col, fmt,
				regex, tag, what);
	return error_set(err, code, fmt, regex, tag, what);
}

/* A failed pcre2_match (rc < 0, not PCRE2_ERROR_NOMATCH) as an error. */
static int
match_failed(const struct regex_at *at, const char *regex, const char *tag,
	     int rc, struct error *err)
{
	PCRE2_UCHAR msg[256];

	if (rc == PCRE2_ERROR_NOMEMORY)
		return error_nomem(err);
	pcre2_get_error_message(rc, msg, sizeof(msg));
	regex_error(at, ERROR_INVALID, err, "tag-regex '%s' failed on tag "
		    "'%s': %s", regex, tag, (const char *)msg);
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
	    rc == PCRE2_ERROR_HEAPLIMIT)
		error_hint(err, "the regex backtracks without end on this "
			   "tag; remove nested repetition such as (a+)+ "
			   "(ripple stops a match after %d steps)",
			   REGEX_MATCH_LIMIT);
	return ERROR_INVALID;
}

/*
 * Match `regex` at the start of `tag` (Python's re.match). Returns 1 with
 * the version group's span in [*gs, *ge), 0 when it does not match, or
 * ERROR_INVALID (bad regex, no version group, a PCRE2 limit reached or
 * another match failure: never "no match") with err set, ERROR_NOMEM.
 */
static int
regex_match(const char *regex, const struct regex_at *at, const char *tag,
	    size_t *gs, size_t *ge, struct error *err)
{
	pcre2_code *re;
	pcre2_match_data *md = NULL;
	pcre2_match_context *mc = NULL;
	PCRE2_SIZE off, *ov;
	uint32_t ncap = 0;
	int code, rc, group;

	re = pcre2_compile((PCRE2_SPTR)regex, PCRE2_ZERO_TERMINATED, 0, &code,
			   &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(code, msg, sizeof(msg));
		return error_set(err, ERROR_INVALID,
				 "tag-regex '%s' does not compile at offset "
				 "%zu: %s", regex, (size_t)off, (char *)msg);
	}
	pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &ncap);
	/* setuptools-scm: the only group, else the group named version. */
	group = ncap == 1 ? 1
		: pcre2_substring_number_from_name(re, (PCRE2_SPTR)"version");
	if (group <= 0) {
		pcre2_code_free(re);
		return error_set(err, ERROR_INVALID,
				 "tag-regex '%s' has no group named 'version' "
				 "and not exactly one group", regex);
	}
	md = pcre2_match_data_create_from_pattern(re, NULL);
	mc = pcre2_match_context_create(NULL);
	if (!md || !mc) {
		rc = error_nomem(err);
		goto done;
	}
	pcre2_set_match_limit(mc, REGEX_MATCH_LIMIT);
	pcre2_set_depth_limit(mc, REGEX_DEPTH_LIMIT);
	pcre2_set_heap_limit(mc, REGEX_HEAP_LIMIT);
	rc = pcre2_match(re, (PCRE2_SPTR)tag, strlen(tag), 0, PCRE2_ANCHORED,
			 md, mc);
	if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) {
		rc = match_failed(at, regex, tag, rc, err);
	} else if (rc > group) {
		ov = pcre2_get_ovector_pointer(md);
		if (ov[2 * group] != PCRE2_UNSET) {
			*gs = ov[2 * group];
			*ge = ov[2 * group + 1];
			rc = 1;
		} else {
			rc = 0;
		}
	} else {
		rc = 0;
	}
done:
	pcre2_match_context_free(mc);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return rc;
}

int
graph_family_regex_check(const char *regex, struct error *err)
{
	size_t gs, ge;
	int rc = regex_match(regex, NULL, "", &gs, &ge, err);

	return rc < 0 ? rc : 0;
}

/* The family's patterns and exclusions accept the tag's name. */
static int
name_in_family(const struct version_params *p, const char *tag)
{
	size_t i;
	int hit = p->n_patterns == 0;

	for (i = 0; i < p->n_patterns && !hit; i++)
		hit = glob_match(p->patterns[i], tag);
	if (!hit)
		return 0;
	for (i = 0; i < p->n_excludes; i++)
		if (glob_match(p->excludes[i], tag))
			return 0;
	return 1;
}

/*
 * The version group of a regex family, parsed. 1, or 0 when none, or a
 * negative error of regex_match.
 */
static int
regex_version(const struct version_params *p, const char *tag,
	      struct pep440 *v, size_t *gs, size_t *ge, struct error *err)
{
	struct regex_at at = { p->regex_file, p->regex_line, p->regex_col };
	char text[PEP440_TEXT_MAX];
	int rc = regex_match(p->tag_regex, &at, tag, gs, ge, err);

	if (rc != 1)
		return rc;
	if (*ge == *gs || *ge - *gs >= sizeof(text))
		return 0;
	memcpy(text, tag + *gs, *ge - *gs);
	text[*ge - *gs] = '\0';
	return pep440_parse(text, v, NULL) == 0;
}

int
version_tag_named(const struct version_params *p, const char *tag)
{
	return name_in_family(p, tag);
}

int
version_tag_claims(const struct version_params *p, const char *tag,
		   struct pep440 *v, struct error *err)
{
	const char *prefix = p->prefix ? p->prefix : "";
	size_t n = strlen(prefix), gs, ge;
	char text[PEP440_TEXT_MAX];
	struct pep440 tmp;

	if (!v)
		v = &tmp;
	if (!name_in_family(p, tag))
		return 0;
	if (p->tag_regex)
		return regex_version(p, tag, v, &gs, &ge, err);
	if (strncmp(tag, prefix, n) || !isdigit((unsigned char)tag[n]))
		return 0;
	if (pep440_parse(tag + n, v, NULL) < 0 || v->local[0])
		return 0;
	/* Spelled exactly as the family spells it: v13.4.01 is not 13.4.1. */
	if (graph_family_spell(v, p->spelling, text, sizeof(text)) < 0)
		return 0;
	return !strcmp(text, tag + n);
}

/* `text` (after the prefix) is a zero-padded release version. */
static int
zero_padded_text(const char *text, struct pep440 *v, struct error *err)
{
	char want[PEP440_TEXT_MAX];
	size_t i;

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
	if (pep440_parse(text, v, err) < 0)
		return ERROR_INVALID;
	if (v->local[0])
		return error_set(err, ERROR_INVALID,
				 "local versions cannot be released");
	if (graph_family_spell(v, VERSION_SPELLING_ZERO_PADDED, want,
			       sizeof(want)) < 0)
		return error_set(err, ERROR_INVALID, "version '%s' is too long",
				 text);
	if (strcmp(want, text)) {
		error_set(err, ERROR_INVALID, "version '%s' is not spelled "
			  "zero-padded", text);
		error_hint(err, "write '%s' (tag-spelling: zero-padded)", want);
		return ERROR_INVALID;
	}
	return 0;
}

static int
check_text(const struct version_params *p, const char *text,
	   struct pep440 *v, struct error *err)
{
	if (p->spelling == VERSION_SPELLING_ZERO_PADDED)
		return zero_padded_text(text, v, err);
	return pep440_check_release_text(text, v, err);
}

/* A regex family: the whole tag must be its version, nothing dropped. */
static int
check_regex_release(const struct version_params *p, const char *tag,
		    struct pep440 *v, struct error *err)
{
	char text[PEP440_TEXT_MAX], canon[PEP440_TEXT_MAX];
	const char *t = text;
	struct pep440 got;
	size_t gs, ge;
	int rc;

	rc = regex_version(p, tag, &got, &gs, &ge, err);
	if (rc < 0)
		return rc;
	if (!rc)
		return error_set(err, ERROR_NOT_FOUND, "tag '%s' does not "
				 "match the family's tag-regex '%s'", tag,
				 p->tag_regex);
	if (tag[ge]) {
		pep440_format(&got, canon, sizeof(canon), NULL);
		error_set(err, ERROR_INVALID, "tag '%s' would be released as "
			  "%s: the tag-regex drops '%s' after the version",
			  tag, canon, tag + ge);
		error_hint(err, "a release tag is its version exactly; tag "
			   "the release as '%.*s%s%s'", (int)gs, tag,
			   tag[gs] == 'v' || tag[gs] == 'V' ? "v" : "",
			   canon);
		return ERROR_INVALID;
	}
	memcpy(text, tag + gs, ge - gs);
	text[ge - gs] = '\0';
	if (*t == 'v' || *t == 'V')
		t++;
	rc = check_text(p, t, v, err);
	if (rc < 0)
		error_prefix(err, "tag '%s'", tag);
	return rc;
}

int
version_tag_check_release(const struct version_params *p, const char *tag,
			  struct pep440 *v, struct error *err)
{
	const char *prefix = p->prefix ? p->prefix : "";
	size_t n = strlen(prefix);
	struct pep440 tmp;
	int rc;

	if (!v)
		v = &tmp;
	if (p->tag_regex) {
		rc = check_regex_release(p, tag, v, err);
	} else if (p->spelling == VERSION_SPELLING_PEP440) {
		rc = pep440_check_release_tag(tag, prefix, v, err);
	} else if (strncmp(tag, prefix, n)) {
		rc = error_set(err, ERROR_INVALID, "tag '%s' does not start "
			       "with the family prefix '%s'", tag, prefix);
	} else {
		rc = zero_padded_text(tag + n, v, err);
		if (rc < 0)
			error_prefix(err, "tag '%s'", tag);
	}
	if (rc < 0)
		return rc;
	rc = version_tag_claims(p, tag, NULL, err);
	if (rc < 0)
		return rc;
	if (!rc)
		return error_set(err, ERROR_NOT_FOUND,
				 "tag '%s' is not claimed by the family: it "
				 "matches no tag pattern or is excluded", tag);
	return 0;
}

void
version_params_from_root(const struct rules_root *root,
			 struct version_params *p)
{
	memset(p, 0, sizeof(*p));
	p->patterns = root->tags;
	p->n_patterns = root->n_tags;
	p->excludes = root->exclude_tags;
	p->n_excludes = root->n_exclude_tags;
	p->prefix = root->tag_prefix;
	p->fallback = root->fallback_version;
	p->fallback_pretend = root->fallback_pretend;
	p->node_length = root->node_length;
	p->spelling = root->tag_spelling == RULES_TAG_SPELLING_ZERO_PADDED
		? VERSION_SPELLING_ZERO_PADDED : VERSION_SPELLING_PEP440;
	p->tag_regex = root->tag_regex;
	p->regex_line = root->tag_regex_pos.line;
	p->regex_col = root->tag_regex_pos.col;
	p->file = root->version_file;
	p->root_name = root->name;
	switch (root->version_source) {
	case RULES_VERSION_SOURCE_TAGS:
		p->from = VERSION_FROM_TAGS;
		break;
	case RULES_VERSION_SOURCE_FILE:
		p->from = VERSION_FROM_FILE;
		break;
	case RULES_VERSION_SOURCE_FILE_TAGS:
		p->from = VERSION_FROM_FILE_TAGS;
		break;
	}
}
