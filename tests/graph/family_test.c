/*
 * Suite graph_family: tag families (issue 17): RAPIDS zero-padded CalVer
 * spelling, setuptools-scm's tag_regex, strict claims, and the checks
 * that refuse lines that cannot be right.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "base/error.h"
#include "graph/family.h"
#include "graph/pep440.h"
#include "graph/version.h"
#include "rules/rules.h"

/* cuda_bindings/pyproject.toml [tool.setuptools_scm] tag_regex. */
#define CUDA_PYTHON_REGEX "^(?P<version>v\\d+\\.\\d+\\.\\d+(?:[ab]\\d+)?)"

static void
zero_padded(struct version_params *p, const char *const *pats, size_t n)
{
	memset(p, 0, sizeof(*p));
	p->patterns = pats;
	p->n_patterns = n;
	p->prefix = "v";
	p->spelling = VERSION_SPELLING_ZERO_PADDED;
}

static const char *
fmt(const struct pep440 *v)
{
	static char text[PEP440_TEXT_MAX];

	pep440_format(v, text, sizeof(text), NULL);
	return text;
}

Test(graph_family, rapids_zero_padded_tags_are_calver)
{
	const char *pats[] = { "v[0-9][0-9].[0-9][0-9].00",
			       "v[0-9][0-9].[0-9][0-9].00a",
			       "v[0-9][0-9].[0-9][0-9].0[1-9]" };
	struct version_params p;
	struct pep440 v;
	struct error err;
	char text[64];

	zero_padded(&p, pats, 3);
	cr_assert_eq(version_tag_claims(&p, "v26.06.00", &v, NULL), 1);
	cr_expect_str_eq(fmt(&v), "26.6.0");
	cr_assert_eq(version_tag_claims(&p, "v26.08.00a", &v, NULL), 1);
	cr_expect_str_eq(fmt(&v), "26.8.0a0");
	cr_assert_eq(version_tag_claims(&p, "v24.08.01", &v, NULL), 1);
	cr_expect_str_eq(fmt(&v), "24.8.1");
	/* The family's spelling only: not 26.6.0, not 26.6.00. */
	cr_expect_eq(version_tag_claims(&p, "v26.6.0", NULL, NULL), 0);
	error_init(&err);
	cr_expect_eq(version_tag_check_release(&p, "v26.06.00", &v, &err), 0,
		     "%s", err.msg);
	cr_expect_str_eq(fmt(&v), "26.6.0");
	cr_expect_eq(version_tag_check_release(&p, "v24.08.01", &v, &err), 0,
		     "%s", err.msg);
	/* The canonical PEP 440 family refuses the RAPIDS spelling. */
	p.spelling = VERSION_SPELLING_PEP440;
	cr_expect_eq(version_tag_check_release(&p, "v26.06.00", &v, &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "leading zero") != NULL, "%s", err.msg);
	cr_expect_eq(version_tag_claims(&p, "v26.06.00", NULL, NULL), 0);
	v.n_release = 3;
	v.release[0] = 2026;
	v.release[1] = 6;
	v.release[2] = 0;
	cr_expect_eq(graph_family_spell(&v, VERSION_SPELLING_ZERO_PADDED,
					text, sizeof(text)), 10);
	cr_expect_str_eq(text, "2026.06.00");
}

/*
 * Issue 25: RAPIDS projects whose major is 0 (ucxx-style v0.51.00,
 * v0.52.00a) are CalVer with a one-digit major: the major is written as
 * its number, minor and patch with at least two digits.
 */
Test(graph_family, zero_padded_major_zero)
{
	const char *pats[] = { "v*" };
	struct version_params p;
	struct pep440 v;
	struct error err;

	zero_padded(&p, pats, 1);
	cr_assert_eq(version_tag_claims(&p, "v0.51.00", &v, NULL), 1);
	cr_expect_str_eq(fmt(&v), "0.51.0");
	cr_assert_eq(version_tag_claims(&p, "v0.52.00a", &v, NULL), 1);
	cr_expect_str_eq(fmt(&v), "0.52.0a0");
	cr_expect_eq(version_tag_claims(&p, "v00.51.00", NULL, NULL), 0);
	cr_expect_eq(version_tag_claims(&p, "v0.51.0", NULL, NULL), 0);
	error_init(&err);
	cr_expect_eq(version_tag_check_release(&p, "v0.51.00", &v, &err), 0,
		     "%s", err.msg);
	cr_expect_eq(version_tag_check_release(&p, "v0.52.00a", &v, &err), 0,
		     "%s", err.msg);
	cr_expect_eq(version_tag_check_release(&p, "v00.51.00", &v, &err),
		     ERROR_INVALID);
	cr_expect_str_eq(err.hint, "write '0.51.00' (tag-spelling: "
		   "zero-padded)");
}

Test(graph_family, zero_padded_release_check_names_the_spelling)
{
	const char *pats[] = { "v*" };
	struct version_params p;
	struct error err;

	zero_padded(&p, pats, 1);
	error_init(&err);
	cr_expect_eq(version_tag_check_release(&p, "v26.6.0", NULL, &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "not spelled zero-padded") != NULL, "%s",
		  err.msg);
	cr_expect_str_eq(err.hint, "write '26.06.00' (tag-spelling: "
		   "zero-padded)");
	error_init(&err);
	cr_expect_eq(version_tag_check_release(&p, "v26.06.00+x", NULL, &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "local versions") != NULL, "%s", err.msg);
}

/*
 * setuptools-scm 7.1 with cuda-python's tag_regex: re.match keeps
 * "v14.0.0" of v14.0.0rc1 and drops "rc1" (the 3 of 540 commit/family
 * pairs that differed); the release refuses such a tag.
 */
Test(graph_family, tag_regex_reads_tags_as_setuptools_scm)
{
	const char *pats[] = { "v*[0-9]*" };
	struct version_params p;
	struct pep440 v;
	struct error err;

	memset(&p, 0, sizeof(p));
	p.patterns = pats;
	p.n_patterns = 1;
	p.prefix = "v";
	p.tag_regex = CUDA_PYTHON_REGEX;
	cr_assert_eq(version_tag_claims(&p, "v14.0.0rc1", &v, NULL), 1);
	cr_expect_str_eq(fmt(&v), "14.0.0");
	cr_assert_eq(version_tag_claims(&p, "v11.8.5.post1", &v, NULL), 1);
	cr_expect_str_eq(fmt(&v), "11.8.5");
	cr_assert_eq(version_tag_claims(&p, "v13.0.0b2", &v, NULL), 1);
	cr_expect_str_eq(fmt(&v), "13.0.0b2");
	cr_expect_eq(version_tag_claims(&p, "vcs-v1.0.0", NULL, NULL), 0);
	error_init(&err);
	cr_expect_eq(version_tag_check_release(&p, "v13.1.1", &v, &err), 0,
		     "%s", err.msg);
	cr_expect_str_eq(fmt(&v), "13.1.1");
	cr_expect_eq(version_tag_check_release(&p, "v14.0.0rc1", &v, &err),
		     ERROR_INVALID);
	cr_expect_str_eq(err.msg, "tag 'v14.0.0rc1' would be released as "
			 "14.0.0: the tag-regex drops 'rc1' after the version");
	/* Without the regex the whole tag is the version. */
	p.tag_regex = NULL;
	cr_assert_eq(version_tag_claims(&p, "v14.0.0rc1", &v, NULL), 1);
	cr_expect_str_eq(fmt(&v), "14.0.0rc1");
}

Test(graph_family, tag_regex_needs_a_version_group)
{
	struct error err;

	error_init(&err);
	cr_expect_eq(graph_family_regex_check(CUDA_PYTHON_REGEX, &err), 0);
	cr_expect_eq(graph_family_regex_check("^v(\\d+)\\.(\\d+)", &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "no group named 'version'") != NULL, "%s",
		  err.msg);
	error_init(&err);
	cr_expect_eq(graph_family_regex_check("^(?P<version>v", &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "does not compile") != NULL, "%s", err.msg);
}

/* Item 5: v13.4.01 and v13.4.2+local are not tags of a "v" family. */
Test(graph_family, non_canonical_and_local_tags_are_not_claimed)
{
	const char *pats[] = { "v13.4.*" };
	struct version_params p;

	memset(&p, 0, sizeof(p));
	p.patterns = pats;
	p.n_patterns = 1;
	p.prefix = "v";
	cr_expect_eq(version_tag_claims(&p, "v13.4.1", NULL, NULL), 1);
	cr_expect_eq(version_tag_claims(&p, "v13.4.01", NULL, NULL), 0);
	cr_expect_eq(version_tag_claims(&p, "v13.4.2+local", NULL, NULL), 0);
	cr_expect_eq(version_tag_claims(&p, "v13.4.1-1", NULL, NULL), 0);
}

Test(graph_family, globs_meet_as_regular_languages)
{
	cr_expect_eq(graph_family_globs_meet("v12.*", "v12.9.*", NULL), 1);
	cr_expect_eq(graph_family_globs_meet("v12.9.*", "v13.*", NULL), 0);
	cr_expect_eq(graph_family_globs_meet("v*", "cuda-core-v*", NULL), 0);
	cr_expect_eq(graph_family_globs_meet("v*", "v[0-9]*", "v[0-9]*"), 1);
	cr_expect_eq(graph_family_globs_meet("v12.[0-8].*", "v12.9.*", NULL),
		     0);
	cr_expect_eq(graph_family_globs_meet("v[!1]*", "v1*", NULL), 0);
	cr_expect_eq(graph_family_globs_meet("v*", "v?x", "v[0-9]*"), 1);
	cr_expect_eq(graph_family_globs_meet("v*", "vx", "v[0-9]*"), 0);
	cr_expect_eq(graph_family_globs_meet("a*b*c", "*x*", NULL), 1);
	cr_expect_eq(graph_family_globs_meet("\\*", "*", "?"), 1);
	cr_expect_eq(graph_family_globs_meet("\\*", "a", NULL), 0);
}

static size_t
check(const char *text, struct error_list *errs)
{
	struct rules *r = NULL;

	error_list_init(errs, 0);
	cr_assert_eq(rules_load_buffer("t.yml", text, strlen(text), &r, errs),
		     0, "%s", errs->n ? errs->items[0].msg : "");
	graph_family_check_roots(r, errs);
	rules_free(r);
	return errs->n;
}

#define HEAD "version: 1\ntoolkits:\n  ctk12: {version: \"12.9.1\"}\n" \
	"  ctk13: {version: \"13.4.1\"}\nroots:\n"

Test(graph_family, check_refuses_lines_that_cannot_be_right)
{
	struct error_list e;

	/* Case 42: a fallback off the line, and a fallback that is no dev. */
	cr_assert_eq(check(HEAD "  b12: {path: b12, toolkit: ctk12, tags: "
			   "\"v12.9.*\", fallback-version: 13.0.0.dev0}\n",
			   &e), 1);
	cr_expect_str_eq(e.items[0].msg, "fallback-version '13.0.0.dev0' of "
			 "root 'b12' is outside its tag family 'v12.9.*': its "
			 "release would be tagged 'v13.0.0'");
	cr_expect_eq(e.items[0].line, 6);
	error_list_release(&e);
	cr_assert_eq(check(HEAD "  b12: {path: b12, tags: \"v12.9.*\", "
			   "fallback-version: 12.9.10}\n", &e), 1);
	cr_expect_str_eq(e.items[0].msg, "fallback-version '12.9.10' of root "
			 "'b12' is not a .devN version");
	cr_expect_str_eq(e.items[0].hint, "a fallback stands for the dev "
			 "builds before a release: write 12.9.10.dev0");
	error_list_release(&e);
	/* Case 94: a CUDA 12.9.1 root tagged v13.0.*; 93: 13.4.1 on v12.9. */
	cr_assert_eq(check(HEAD "  m: {path: a, toolkit: ctk12, tags: "
			   "\"v13.0.*\"}\n  c: {path: b, toolkit: ctk13, "
			   "tags: \"v12.9.*\"}\n", &e), 2);
	cr_expect_str_eq(e.items[0].msg, "tag pattern 'v13.0.*' of root 'm' "
			 "is the 13 line, but its toolkit 'ctk12' is 12.9.1");
	cr_expect_str_eq(e.items[1].msg, "tag pattern 'v12.9.*' of root 'c' "
			 "is the 12 line, but its toolkit 'ctk13' is 13.4.1");
	error_list_release(&e);
	/* Overlapping families of two roots (v12.* and v12.9.*). */
	cr_assert_eq(check(HEAD "  a: {path: a, tags: \"v12.*\"}\n"
			   "  b: {path: b, tags: \"v12.9.*\"}\n", &e), 1);
	cr_expect_str_eq(e.items[0].msg, "tag families of roots 'a' "
			 "('v12.*') and 'b' ('v12.9.*') overlap: one tag "
			 "would version both roots");
	error_list_release(&e);
}

Test(graph_family, check_accepts_lines_that_can_be_right)
{
	struct error_list e;

	/* The demo's lines; the minor of a 12.9 line; an opt-out. */
	cr_expect_eq(check(HEAD "  b12: {path: b12, toolkit: ctk12, tags: "
			   "\"v12.9.*\", fallback-version: 12.9.10.dev0, "
			   "fallback-pretend: true}\n  b13: {path: b13, "
			   "toolkit: ctk13, tags: \"v13.*\"}\n", &e), 0);
	error_list_release(&e);
	cr_expect_eq(check(HEAD "  core: {path: c, toolkit: ctk13, tags: "
			   "\"cuda-core-v0.*\", tags-follow-toolkit: false}\n"
			   "  b: {path: b, toolkit: ctk13, tags: \"v*\"}\n",
			   &e), 0);
	error_list_release(&e);
	/* cuda-python: bindings and metapackage share the v* family. */
	cr_expect_eq(check(HEAD "  bindings: {path: b, tags: \"v*\"}\n"
			   "  python: {path: p, tags: \"v*\"}\n"
			   "  core: {path: c, tags: \"cuda-core-v*\"}\n", &e),
		     0);
	error_list_release(&e);
	/* An exclusion separates the lines; zero-padded fallbacks. */
	cr_expect_eq(check(HEAD "  a: {path: a, tags: \"v12.*\", "
			   "exclude-tags: [\"v12.9.*\"]}\n"
			   "  b: {path: b, tags: \"v12.9.*\"}\n"
			   "  r: {path: r, tags: \"r[0-9][0-9].[0-9][0-9].00\","
			   " tag-spelling: zero-padded, fallback-version: "
			   "26.8.0.dev0}\n", &e), 0);
	error_list_release(&e);
	/* A prefix that separates: cuda-core-v0.* and v0.*. */
	cr_expect_eq(check(HEAD "  a: {path: a, tags: \"v*\"}\n"
			   "  b: {path: b, tags: \"cuda-core-v*\"}\n", &e), 0);
	error_list_release(&e);
}

/*
 * Issue 22 item 5: PCRE2's match limit reached is an error naming the
 * regex, the tag and where the regex is written; it was read as "not
 * claimed".
 */
Test(graph_family, tag_regex_past_its_limits_is_an_error_not_no_match)
{
	const char *pats[] = { "a*" };
	struct version_params p;
	struct error err;
	char tag[64];

	memset(&p, 0, sizeof(p));
	p.patterns = pats;
	p.n_patterns = 1;
	p.tag_regex = "^(?P<version>(a+)+)$";
	p.regex_file = "ripple.yml";
	p.regex_line = 6;
	p.regex_col = 16;
	memset(tag, 'a', 40);
	tag[40] = 'b';
	tag[41] = '\0';
	error_init(&err);
	cr_expect_eq(version_tag_claims(&p, tag, NULL, &err), ERROR_INVALID);
	cr_expect_str_eq(err.file, "ripple.yml");
	cr_expect_eq(err.line, 6);
	cr_expect_eq(err.col, 16);
	cr_expect(strstr(err.msg, "tag-regex '^(?P<version>(a+)+)$' failed on "
			 "tag 'aaaa") != NULL, "%s", err.msg);
	cr_expect(strstr(err.msg, "match limit exceeded") != NULL, "%s",
		  err.msg);
	/* A short tag still matches, and a tag it does not match is 0. */
	error_init(&err);
	cr_expect_eq(version_tag_claims(&p, "ab", NULL, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(err.code, 0);
}
