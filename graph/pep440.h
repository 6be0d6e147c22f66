/*
 * PEP 440 versions: parse (accepting every spelling PEP 440's
 * "Normalization" section allows), compare (PEP 440 "Summary of permitted
 * suffixes and relative ordering"), print in canonical form, and tell a
 * canonical release tag from a merely normalizable one.
 * Reference: https://peps.python.org/pep-0440/ (sections cited per function).
 */
#ifndef RIPPLE_GRAPH_PEP440_H
#define RIPPLE_GRAPH_PEP440_H

#include <stddef.h>

struct error;

#define PEP440_RELEASE_MAX 16	/* release segments kept ("1.2.3" is 3) */
#define PEP440_LOCAL_MAX 128	/* bytes of the normalized local label */
#define PEP440_TEXT_MAX 512	/* bytes enough for any canonical text */

/* Pre-release kinds, in PEP 440 order (a < b < rc). */
enum pep440_pre {
	PEP440_PRE_NONE = 0,
	PEP440_PRE_A,
	PEP440_PRE_B,
	PEP440_PRE_RC,
};

/*
 * A parsed version ("N!N(.N)*[{a|b|rc}N][.postN][.devN][+local]").
 * Numbers are the values (leading zeros dropped); `local` is normalized:
 * lowercase, segments joined by '.', numeric segments without leading zeros
 * (as packaging's Version prints them), "" when absent.
 */
struct pep440 {
	unsigned long long epoch;	/* 0 when absent */
	unsigned long long release[PEP440_RELEASE_MAX];
	size_t n_release;		/* >= 1 */
	enum pep440_pre pre_kind;
	unsigned long long pre;		/* valid when pre_kind != NONE */
	int has_post;
	unsigned long long post;
	int has_dev;
	unsigned long long dev;
	char local[PEP440_LOCAL_MAX];
};

/*
 * Parse `text` as PEP 440 allows before normalization ("Normalization":
 * case-insensitive; leading and trailing whitespace; a leading "v"; '-',
 * '_' or '.' separators; "alpha", "beta", "c", "pre", "preview" spellings;
 * "rev", "r" and the implicit "-N" post-release; implicit 0 numbers; local
 * separators). Returns 0 and fills *out, or ERROR_INVALID naming the text
 * ("'1.0.x' is not a PEP 440 version"). err may be NULL.
 */
int pep440_parse(const char *text, struct pep440 *out, struct error *err);

/*
 * Write the canonical text of *v ("Normalization": "1!2.0rc1.post2.dev3+a.1";
 * epoch only when non-zero) into out (size bytes). Returns the length
 * written, or ERROR_INVALID when it does not fit (PEP440_TEXT_MAX always
 * fits).
 */
int pep440_format(const struct pep440 *v, char *out, size_t size,
		  struct error *err);

/*
 * Canonical text of a version string: parse then format. Returns 0, or
 * ERROR_INVALID for text that is not a PEP 440 version or too long.
 */
int pep440_normalize(const char *text, char *out, size_t size,
		     struct error *err);

/*
 * Total order of PEP 440 ("Summary of permitted suffixes and relative
 * ordering", with packaging's reading of it): epoch, release (trailing zeros
 * ignored: 1.0 == 1.0.0), then X.devN < X.aN < X.bN < X.rcN < X < X.postN,
 * each suffix itself ordered by its .devN; local versions sort after the
 * public version, segment by segment (alphanumeric segments before numeric,
 * numbers by value, a shorter label first). Returns <0, 0, >0.
 */
int pep440_compare(const struct pep440 *a, const struct pep440 *b);

/* 1 when `text` parses and equals its canonical form, else 0. */
int pep440_is_canonical(const char *text);

/*
 * Check a release tag: `tag` must start with the family `prefix` (may be
 * "") and the rest must be a canonical public version. Rejects, with
 * ERROR_INVALID and a message naming the problem: an empty tag or empty
 * version, whitespace anywhere, a missing prefix, a version not starting
 * with a digit ("v.1.0" under prefix "v"), leading zeros ("release segment
 * '01' has a leading zero"; "pre-release 'rc01' ..."; "post-release
 * '.post01' ..."), local versions ("local versions cannot be released";
 * PEP 440 "Local version identifiers": not for public index servers), and
 * any other non-canonical spelling (with the canonical one as a hint).
 * Fills *out (may be NULL) on success. Tags are data: never interpreted
 * as shell text.
 */
int pep440_check_release_tag(const char *tag, const char *prefix,
			     struct pep440 *out, struct error *err);

/*
 * The same check on the remainder after the prefix (the version text
 * alone). Returns 0 or ERROR_INVALID as above.
 */
int pep440_check_release_text(const char *text, struct pep440 *out,
			      struct error *err);

/* 1 for a pre-release (a/b/rc or a dev release), else 0 (PEP 440). */
int pep440_is_prerelease(const struct pep440 *v);

#endif
