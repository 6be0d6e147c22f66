/* Suite graph_pep440: parsing, normalization, ordering, canonical tags. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "graph/distfile.h"
#include "graph/pep440.h"

/* PEP 440 "Normalization": each spelling and its canonical form. */
static const struct {
	const char *in, *out;
} norm_rows[] = {
	{ "1.0", "1.0" },
	{ "1.0.0", "1.0.0" },
	{ "v1.0", "1.0" },			/* preceding v character */
	{ "V1.0", "1.0" },
	{ "  1.0\t", "1.0" },			/* leading/trailing whitespace */
	{ "01.002.0003", "1.2.3" },		/* integer normalization */
	{ "1!2.0", "1!2.0" },
	{ "0!2.0", "2.0" },			/* zero epoch is implied */
	{ "1.0a1", "1.0a1" },
	{ "1.0-a1", "1.0a1" },			/* pre-release separators */
	{ "1.0_a_1", "1.0a1" },
	{ "1.0.alpha.1", "1.0a1" },		/* pre-release spelling */
	{ "1.0ALPHA1", "1.0a1" },		/* case sensitivity */
	{ "1.0beta2", "1.0b2" },
	{ "1.0c3", "1.0rc3" },
	{ "1.0pre4", "1.0rc4" },
	{ "1.0preview5", "1.0rc5" },
	{ "1.0RC1", "1.0rc1" },
	{ "1.0a", "1.0a0" },			/* implicit pre-release number */
	{ "1.0rc", "1.0rc0" },
	{ "1.0-1", "1.0.post1" },		/* implicit post release */
	{ "1.0post1", "1.0.post1" },		/* post release separators */
	{ "1.0-post-1", "1.0.post1" },
	{ "1.0.rev2", "1.0.post2" },		/* post release spelling */
	{ "1.0r3", "1.0.post3" },
	{ "1.0.post", "1.0.post0" },		/* implicit post number */
	{ "1.0-dev1", "1.0.dev1" },		/* development separators */
	{ "1.0dev", "1.0.dev0" },		/* implicit dev number */
	{ "1.0.DEV2", "1.0.dev2" },
	{ "1.0rc1.post2.dev3", "1.0rc1.post2.dev3" },
	{ "1.0+ubuntu-1", "1.0+ubuntu.1" },	/* local separators */
	{ "1.0+UBUNTU_01", "1.0+ubuntu.1" },
	{ "1.0+abc.5", "1.0+abc.5" },
	{ "12.9.8.dev0", "12.9.8.dev0" },
	{ "13.4.1rc2", "13.4.1rc2" },
};

Test(graph_pep440, normalizes_every_allowed_spelling)
{
	char buf[PEP440_TEXT_MAX];
	size_t i;

	for (i = 0; i < sizeof(norm_rows) / sizeof(norm_rows[0]); i++) {
		struct error err;

		error_init(&err);
		cr_expect_eq(pep440_normalize(norm_rows[i].in, buf,
					      sizeof(buf), &err), 0,
			     "%s: %s", norm_rows[i].in, err.msg);
		cr_expect_str_eq(buf, norm_rows[i].out, "%s",
				 norm_rows[i].in);
	}
}

static const char *const bad_rows[] = {
	"", "   ", "1.0.", ".1.0", "1..0", "v", "1.0x", "1.0+", "1.0+a..b",
	"1.0-", "a1.0", "1.0a1b1", "1.0 1", "1!", "!1.0", "1.0+lo cal",
	"99999999999999999999999.0",
};

Test(graph_pep440, rejects_non_versions)
{
	struct pep440 v;
	size_t i;

	for (i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
		struct error err;

		error_init(&err);
		cr_expect_eq(pep440_parse(bad_rows[i], &v, &err),
			     ERROR_INVALID, "'%s' parsed", bad_rows[i]);
		cr_expect_neq(err.msg[0], '\0');
	}
}

Test(graph_pep440, parse_fills_fields)
{
	struct pep440 v;

	cr_assert_eq(pep440_parse("2!1.2.3rc4.post5.dev6+x.7", &v, NULL), 0);
	cr_expect_eq(v.epoch, 2);
	cr_expect_eq(v.n_release, 3);
	cr_expect_eq(v.release[2], 3);
	cr_expect_eq(v.pre_kind, PEP440_PRE_RC);
	cr_expect_eq(v.pre, 4);
	cr_expect(v.has_post && v.post == 5);
	cr_expect(v.has_dev && v.dev == 6);
	cr_expect_str_eq(v.local, "x.7");
	cr_expect(pep440_is_prerelease(&v));
}

/*
 * Ascending order, from PEP 440's "Summary of permitted suffixes and
 * relative ordering" example list plus epochs and local versions; equal
 * neighbours are marked.
 */
static const struct {
	const char *v;
	int eq_prev;
} order_rows[] = {
	{ "1.0.dev456", 0 },
	{ "1.0a1", 0 },
	{ "1.0a2.dev456", 0 },
	{ "1.0a12.dev456", 0 },
	{ "1.0a12", 0 },
	{ "1.0b1.dev456", 0 },
	{ "1.0b2", 0 },
	{ "1.0b2.post345.dev456", 0 },
	{ "1.0b2.post345", 0 },
	{ "1.0rc1.dev456", 0 },
	{ "1.0rc1", 0 },
	{ "1.0", 0 },
	{ "1.0.0", 1 },				/* trailing zeros ignored */
	{ "1.0+abc.5", 0 },
	{ "1.0+abc.7", 0 },
	{ "1.0+5", 0 },				/* numeric after alphanumeric */
	{ "1.0+5.1", 0 },			/* longer label after */
	{ "1.0.post456.dev34", 0 },
	{ "1.0.post456", 0 },
	{ "1.0.15", 0 },
	{ "1.1.dev1", 0 },
	{ "1.1", 0 },
	{ "1.10", 0 },
	{ "12.9.7", 0 },
	{ "12.9.8.dev0", 0 },
	{ "12.9.8", 0 },
	{ "12.9.8.post1", 0 },
	{ "1!0.1", 0 },				/* epoch beats release */
};

Test(graph_pep440, orders_as_pep440_summary)
{
	size_t i, j, n = sizeof(order_rows) / sizeof(order_rows[0]);
	struct pep440 a, b;

	for (i = 0; i < n; i++) {
		cr_assert_eq(pep440_parse(order_rows[i].v, &a, NULL), 0, "%s",
			     order_rows[i].v);
		for (j = 0; j < n; j++) {
			int want, got;

			cr_assert_eq(pep440_parse(order_rows[j].v, &b, NULL), 0);
			if (i == j)
				want = 0;
			else if (i < j)
				want = (j == i + 1 && order_rows[j].eq_prev) ? 0 : -1;
			else
				want = (i == j + 1 && order_rows[i].eq_prev) ? 0 : 1;
			got = pep440_compare(&a, &b);
			got = got < 0 ? -1 : got > 0;
			cr_expect_eq(got, want, "%s vs %s: %d", order_rows[i].v,
				     order_rows[j].v, got);
		}
	}
}

/* Release tags: accepted, or rejected with the problem named. */
static const struct {
	const char *tag, *prefix, *msg;	/* msg NULL: accepted */
} tag_rows[] = {
	{ "v13.4.1", "v", NULL },
	{ "v12.9.8.post1", "v", NULL },
	{ "v13.4.1rc2", "v", NULL },
	{ "v1!2.0", "v", NULL },
	{ "cuda-core-v0.7.0", "cuda-core-v", NULL },
	{ "0.7.0", "", NULL },
	{ "v13.4.01", "v", "release segment '01' has a leading zero" },
	{ "v012.9.8", "v", "release segment '012' has a leading zero" },
	{ "v12.9.8rc01", "v", "pre-release 'rc01' has a leading zero" },
	{ "v13.4.2.post01", "v", "post-release '.post01' has a leading zero" },
	{ "v1.0.dev01", "v", "dev-release '.dev01' has a leading zero" },
	{ "v01!1.0", "v", "epoch '01' has a leading zero" },
	{ "v13.4.2+local", "v", "local versions cannot be released" },
	{ "12.9.8", "v", "does not start with the family prefix 'v'" },
	{ "v.1.0", "v", "version '.1.0' does not start with a digit" },
	{ "v1.0.0 ", "v", "contains whitespace" },
	{ " v1.0.0", "v", "contains whitespace" },
	{ "", "v", "the tag is empty" },
	{ "v", "v", "has no version after the prefix" },
	{ "vv1.0", "v", "does not start with a digit" },
	{ "v1.0.0-rc1", "v", "not in canonical PEP 440 form" },
	{ "v1.0RC1", "v", "not in canonical PEP 440 form" },
	{ "v1.0-1", "v", "not in canonical PEP 440 form" },
	{ "v1.0.0x", "v", "is not a PEP 440 version" },
};

Test(graph_pep440, release_tags_must_be_canonical)
{
	size_t i;

	for (i = 0; i < sizeof(tag_rows) / sizeof(tag_rows[0]); i++) {
		struct error err;
		int rc;

		error_init(&err);
		rc = pep440_check_release_tag(tag_rows[i].tag,
					      tag_rows[i].prefix, NULL, &err);
		if (!tag_rows[i].msg) {
			cr_expect_eq(rc, 0, "'%s': %s", tag_rows[i].tag,
				     err.msg);
			continue;
		}
		cr_expect_eq(rc, ERROR_INVALID, "'%s' accepted",
			     tag_rows[i].tag);
		cr_expect(strstr(err.msg, tag_rows[i].msg) != NULL,
			  "'%s': got '%s'", tag_rows[i].tag, err.msg);
	}
}

Test(graph_pep440, non_canonical_hint_names_the_canonical_spelling)
{
	struct error err;

	error_init(&err);
	cr_assert_eq(pep440_check_release_text("1.0.0-rc1", NULL, &err),
		     ERROR_INVALID);
	cr_expect_str_eq(err.hint, "write '1.0.0rc1'");
}

Test(graph_pep440, canonical_predicate)
{
	cr_expect(pep440_is_canonical("1.0.post1"));
	cr_expect(pep440_is_canonical("1.0+abc.1"));
	cr_expect_not(pep440_is_canonical("1.0-post1"));
	cr_expect_not(pep440_is_canonical("v1.0"));
	cr_expect_not(pep440_is_canonical("1.0+ABC"));
	cr_expect_not(pep440_is_canonical("junk"));
}

Test(graph_pep440, format_reports_a_small_buffer)
{
	struct pep440 v;
	char small[4];

	cr_assert_eq(pep440_parse("1.2.3rc1", &v, NULL), 0);
	cr_expect_eq(pep440_format(&v, small, sizeof(small), NULL),
		     ERROR_INVALID);
}

Test(graph_pep440, a_local_label_of_127_bytes_fits_and_128_does_not)
{
	char text[300], label[200];
	struct pep440 v;
	struct error err;

	memset(label, 'a', 127);
	label[127] = '\0';
	snprintf(text, sizeof(text), "1.0+%s", label);
	error_init(&err);
	cr_expect_eq(pep440_parse(text, &v, &err), 0, "%s", err.msg);
	cr_expect_str_eq(v.local, label);
	/* Separators count too: 63 x "a." + "a" is 127 bytes. */
	label[0] = '\0';
	while (strlen(label) < 126)
		strcat(label, "a.");
	strcat(label, "a");
	cr_assert_eq(strlen(label), 127);
	snprintf(text, sizeof(text), "1.0+%s", label);
	error_init(&err);
	cr_expect_eq(pep440_parse(text, &v, &err), 0, "%s", err.msg);
	cr_expect_str_eq(v.local, label);
	memset(label, 'a', 128);
	label[128] = '\0';
	snprintf(text, sizeof(text), "1.0+%s", label);
	error_init(&err);
	cr_expect_eq(pep440_parse(text, &v, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "longer than 127 bytes") != NULL, "%s",
		  err.msg);
	strcat(label, ".b");
	snprintf(text, sizeof(text), "1.0+%s", label + 1);	/* 127 + ".b" */
	error_init(&err);
	cr_expect_eq(pep440_parse(text, &v, &err), ERROR_INVALID);
}

/* Issue 25: the version a distribution file's name carries. */

Test(graph_pep440, distribution_file_names_carry_versions)
{
	char v[64];

	cr_expect_eq(graph_dist_file_version(
		"dist/cuda_bindings-13.1.1-cp312-cp312-manylinux_2_28_x86_64.whl",
		v, sizeof(v)), GRAPH_DIST_WHEEL);
	cr_expect_str_eq(v, "13.1.1");
	cr_expect_eq(graph_dist_file_version("dist/a.whl", v, sizeof(v)), -1);
	cr_expect_eq(graph_dist_file_version("dist/rmm-26.06.00.tar.gz", v,
					     sizeof(v)), GRAPH_DIST_SDIST);
	cr_expect_str_eq(v, "26.06.00");
	cr_expect_eq(graph_dist_file_version(
		"conda-bld/linux-64/librmm-tests-26.06.00a12-cuda12_0.conda",
		v, sizeof(v)), GRAPH_DIST_CONDA);
	cr_expect_str_eq(v, "26.06.00a12");
	cr_expect_eq(graph_dist_file_version("x/pkg-1.0-h0_0.tar.bz2", v,
					     sizeof(v)), GRAPH_DIST_CONDA);
	cr_expect_str_eq(v, "1.0");
	cr_expect_eq(graph_dist_file_version("x/nodash.conda", v, sizeof(v)),
		     -1);
	cr_expect_eq(graph_dist_file_version("docs/index.html", v, sizeof(v)),
		     GRAPH_DIST_OTHER);
}
