/*
 * libFuzzer target: PEP 440 parsing, formatting and ordering, release-tag
 * spelling, and the tag questions of graph/version.c. The input is a tag
 * family prefix, a newline, then the text (no newline: the prefix "v").
 * Beyond crashes it checks properties and aborts on a violation:
 * formatting is a fixed point (parse(format(v)) formats the same and
 * compares equal), a canonical text is its own normal form, a released tag
 * is claimed by its family, and the guessed next version is greater.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "graph/pep440.h"
#include "graph/version.h"
#include "tests/fuzz/cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
expect(int ok)
{
	if (!ok)
		abort();
}

static void
fixed_point(const struct pep440 *v)
{
	char a[PEP440_TEXT_MAX], b[PEP440_TEXT_MAX];
	struct pep440 w;

	expect(pep440_format(v, a, sizeof(a), NULL) >= 0);
	expect(pep440_parse(a, &w, NULL) == 0);
	expect(pep440_compare(v, &w) == 0);
	expect(pep440_format(&w, b, sizeof(b), NULL) >= 0);
	expect(!strcmp(a, b));
	expect(pep440_is_canonical(a));
}

static void
one(const char *prefix, const char *text, const char *tag)
{
	struct version_params p;
	const char *pattern = "*";
	struct pep440 v, next, t;
	char norm[PEP440_TEXT_MAX], node[VERSION_NODE_MAX];
	struct error err;

	error_init(&err);
	if (!pep440_parse(text, &v, &err)) {
		fixed_point(&v);
		expect(pep440_compare(&v, &v) == 0);
		expect(pep440_normalize(text, norm, sizeof(norm), NULL) == 0);
		pep440_is_prerelease(&v);
		error_init(&err);
		if (!version_guess_next(&v, &next, &err)) {
			/* The next version is later: a number may not wrap. */
			next.local[0] = '\0';
			v.local[0] = '\0';
			expect(pep440_compare(&next, &v) > 0);
		}
	}
	expect(pep440_is_canonical(text) ==
	       (!pep440_normalize(text, norm, sizeof(norm), NULL) &&
		!strcmp(norm, text)));
	memset(&p, 0, sizeof(p));
	p.patterns = &pattern;
	p.n_patterns = 1;
	p.prefix = prefix;
	error_init(&err);
	if (!pep440_check_release_tag(tag, prefix, &t, &err)) {
		fixed_point(&t);
		expect(version_tag_claims(&p, tag, NULL, NULL) == 1);
		error_init(&err);
		expect(version_tag_check_release(&p, tag, NULL, &err) == 0);
	}
	p.patterns = &text;
	p.excludes = &prefix;
	p.n_excludes = 1;
	version_tag_claims(&p, tag, NULL, NULL);
	error_init(&err);
	version_node_from_hex(text, (unsigned)strlen(prefix), node,
			      sizeof(node), &err);
}

static int
fuzz_one(const uint8_t *data, size_t size)
{
	char *buf, *nl, *tag;
	const char *prefix = "v", *text;

	if (size > 4096)
		return 0;
	buf = malloc(2 * size + 4);	/* the text, then prefix + text */
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (memchr(buf, '\0', size))
		goto done;	/* C strings: nothing after a NUL counts */
	nl = strchr(buf, '\n');
	text = buf;
	if (nl) {
		*nl = '\0';
		prefix = buf;
		text = nl + 1;
	}
	tag = buf + size + 1;
	memcpy(tag, prefix, strlen(prefix));
	memcpy(tag + strlen(prefix), text, strlen(text) + 1);
	one(prefix, text, tag);
done:
	free(buf);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double start = fuzz_cpu_now();

	fuzz_one(data, size);
	fuzz_cpu_check(start);
	return 0;
}
