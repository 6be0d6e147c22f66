/*
 * Tag families: which tags are a root's, how their versions are spelled
 * (canonical PEP 440 or RAPIDS zero-padded CalVer, or setuptools-scm's
 * tag_regex), and the whole-rules checks that refuse lines that cannot be
 * right: a fallback outside its family, a family off its toolkit's line,
 * two roots whose families overlap. The per-tag questions (claims, the
 * release spelling) are declared in graph/version.h; this header holds
 * the rest.
 */
#ifndef RIPPLE_GRAPH_FAMILY_H
#define RIPPLE_GRAPH_FAMILY_H

#include <stddef.h>

#include "graph/version.h"

struct error;
struct error_list;
struct pep440;
struct rules;

/*
 * Write *v as the spelling writes it into out (size bytes): canonical PEP
 * 440 (pep440_format), or zero-padded (RAPIDS CalVer, any major): the
 * major as its number, the other release numbers with at least two digits
 * ("0.51.00", "26.06.00"), a pre-release number 0 left out ("26.08.00a"
 * is 26.8.0a0), the
 * rest as PEP 440 writes it. Returns the length, or ERROR_INVALID when it
 * does not fit.
 */
int graph_family_spell(const struct pep440 *v, enum version_spelling s,
		       char *out, size_t size);

/*
 * Does `regex` (setuptools-scm's tag_regex, PCRE2 syntax) compile, with a
 * group named `version` or exactly one group? 0, or ERROR_INVALID naming
 * the problem.
 */
int graph_family_regex_check(const char *regex, struct error *err);

/*
 * Check every root's tag family of rules `r` and append each problem to
 * `errors` at the root's position (file r->file), with a hint:
 *  - a tag-regex that does not compile or has no version group;
 *  - a fallback-version that is not a .devN version, or whose release,
 *    spelled as the family spells it after the prefix, no tag pattern
 *    claims (12.9.10.dev0 on "v12.9.*" is fine; 13.0.0.dev0 is not);
 *  - a root with a toolkit whose tag patterns name a major (and minor)
 *    version other than the toolkit's, unless `tags-follow-toolkit:
 *    false`; with `tags-follow-toolkit: true` every pattern must name one;
 *  - two roots whose families overlap (some tag would be claimed by both),
 *    unless their families are identical (same patterns, exclude-tags,
 *    prefix, spelling and regex: packages released together, as
 *    cuda-python's bindings and metapackage from one v* tag). Overlap is
 *    decided on the glob patterns, each root's prefix followed by a digit,
 *    and an exclude-tags entry that is the other pattern or a literal
 *    text followed by '*' that starts it.
 * Returns 0 when there are none, ERROR_INVALID when any was found,
 * ERROR_NOMEM.
 */
int graph_family_check_roots(const struct rules *r, struct error_list *errors);

/*
 * 1 when some string matches all three fnmatch(3) globs (flags 0; c may
 * be NULL), 0 when none does, ERROR_NOMEM. Character classes such as
 * [:digit:] inside brackets are taken as any character (an overlap may be
 * reported that is not there, never the reverse).
 */
int graph_family_globs_meet(const char *a, const char *b, const char *c);

#endif
