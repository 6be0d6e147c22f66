/*
 * A package root's version at a revision, computed from git tags (through
 * libgit2) as setuptools-scm computes it with its default schemes
 * "guess-next-dev" and "node-and-date"; plus the tag-family questions the
 * release checker asks. Parameters come in a plain struct, not the rules
 * model, so this is usable and testable alone.
 */
#ifndef RIPPLE_GRAPH_VERSION_H
#define RIPPLE_GRAPH_VERSION_H

#include <stddef.h>

#include "base/strv.h"
#include "graph/pep440.h"

struct error;
struct git_repository;

#define VERSION_NODE_LENGTH_DEFAULT 9	/* hex digits after "+g" */
#define VERSION_NODE_MAX 42		/* "g" + 40 hex + NUL */

/* How a family's tags spell versions (rules: `tag-spelling`). */
enum version_spelling {
	VERSION_SPELLING_PEP440 = 0,	/* canonical PEP 440: v26.6.0 */
	VERSION_SPELLING_ZERO_PADDED,	/* two-digit release numbers, a bare
					   "a" for a0: v26.06.00, v26.08.00a */
};

/* Where a root's version comes from (rules: `version-source`). */
enum version_from {
	VERSION_FROM_TAGS = 0,		/* version_compute */
	VERSION_FROM_FILE,		/* the file's version, as is */
	VERSION_FROM_FILE_TAGS,		/* the file's release; aN off a tag */
};

/* How a root's tag family and fallback are declared. */
struct version_params {
	/*
	 * Tag-name globs, matched as `git describe --match` matches them:
	 * git uses wildmatch(pattern, name, 0) on the name without
	 * "refs/tags/", i.e. no WM_PATHNAME, so '*' also matches '/'. We use
	 * POSIX fnmatch(pattern, name, 0) (no FNM_PATHNAME, no FNM_PERIOD),
	 * which agrees on '*', '?', bracket expressions and backslash
	 * escapes. n_patterns == 0 means every tag.
	 */
	const char *const *patterns;
	size_t n_patterns;
	/* Globs (same semantics) or exact names of tags never used. */
	const char *const *excludes;
	size_t n_excludes;
	/* Family prefix before the version ("v"); NULL or "" for none. */
	const char *prefix;
	/* PEP 440 text used when no family tag is reachable; NULL: none. */
	const char *fallback;
	/*
	 * 1: the fallback is a pretend version, given as is with +g<node>
	 * (no date even when dirty), and it ends only at a reachable family
	 * tag whose version is >= the fallback (older releases of the line
	 * do not end it). 0: setuptools-scm's fallback (see version_compute).
	 */
	int fallback_pretend;
	/* Hex digits of the commit id in +g<node>, 4..40; 0: 9. */
	unsigned node_length;
	/*
	 * 1: REV must be HEAD's commit and the working tree's tracked
	 * changes make the version dirty; 0: the commit alone (clean).
	 */
	int worktree;
	/*
	 * Seconds since 1970-01-01 UTC giving the .dYYYYMMDD of a dirty
	 * version: the caller passes SOURCE_DATE_EPOCH, else the current
	 * time. The library never reads the environment or the clock.
	 */
	long long date_epoch;
	/* How the family's tags spell versions (graph/family.c). */
	enum version_spelling spelling;
	/*
	 * setuptools-scm's tag_regex (PCRE2 syntax, matched at the start of
	 * the tag as Python's re.match): the `version` group, or the only
	 * group, is the version; text after it is dropped. NULL: the tag is
	 * the prefix and the version spelled exactly as `spelling` writes it.
	 */
	const char *tag_regex;
	/*
	 * Where tag_regex is written, for its errors: the rules file (NULL:
	 * unknown; callers set it) and the 1-based line and column
	 * (version_params_from_root sets them; 0: unknown).
	 */
	const char *regex_file;
	unsigned regex_line, regex_col;
	/* Where the version comes from (version_compute_root_at), and the
	   repository-relative file for VERSION_FROM_FILE*. */
	enum version_from from;
	const char *file;
	/* The root's name, for messages only (NULL: none). */
	const char *root_name;
};

/*
 * "root 'NAME', tags 'G1', 'G2'" (either part left out when absent) into
 * out (n bytes, truncated), for errors that must say which family.
 */
void version_family_text(const struct version_params *p, char *out,
			 size_t n);

/* Where the version came from. */
enum version_source {
	VERSION_SOURCE_EXACT,		/* a tag on REV, clean tree */
	VERSION_SOURCE_TAG,		/* a tag plus distance or dirt */
	VERSION_SOURCE_FALLBACK,	/* fallback in the tag's place */
	VERSION_SOURCE_PRETEND,		/* fallback as is, +g<node> */
	VERSION_SOURCE_FILE,		/* a version file (+ tags' distance) */
};

struct version_result {
	char *version;		/* canonical PEP 440 text; owned */
	char *tag;		/* tag name used, or NULL (fallback); owned */
	unsigned long distance;	/* commits from the tag, all commits for
				   a fallback, 0 for a pretend */
	char node[VERSION_NODE_MAX];	/* "g" + node_length hex digits */
	char commit[41];	/* REV's full commit id */
	int dirty;		/* tracked changes in the worktree */
	enum version_source source;
	struct strv skipped;	/* broken refs under refs/tags/ left out,
				   full names, sorted (git: "warning:
				   ignoring broken ref"); owned */
};

/*
 * Compute the version at `rev` (any revision git_revparse_single accepts;
 * NULL means HEAD) in `repo`.
 *
 * Candidate tags: names matching a pattern, not excluded, starting with the
 * prefix, whose remainder starts with a digit and parses as PEP 440
 * (so "v*" does not claim "vcs-versioning-v2.0.0"), peeled to a commit
 * reachable from REV (lightweight and annotated tags alike, as
 * setuptools-scm's `git describe --tags`). Chosen: the fewest commits
 * between it and REV (git describe's count: commits reachable from REV and
 * not from the tag); ties, including several tags on one commit, go to the
 * highest PEP 440 version, then the byte-wise smaller name (git's own
 * order among equals is not a rule). A tag's local part is dropped, as
 * setuptools-scm does ("tag ... will be stripped of its suffix").
 *
 * Version (setuptools-scm guess-next-dev + node-and-date):
 * - distance 0 and clean: the tag's version;
 * - else NEXT.devN+g<node>[.dYYYYMMDD], N the distance, where NEXT drops a
 *   ".dev0" suffix, or else adds one to the version's last number (release,
 *   pre, or post number: 1.0.0 -> 1.0.1, 1.0.0rc1 -> 1.0.0rc2,
 *   1.0.post1 -> 1.0.post2); a tag ending in ".devN", N > 0, is
 *   ERROR_INVALID as in setuptools-scm ("choosing custom numbers for the
 *   .devX distance is not supported"). Dirty at distance 0 gives
 *   NEXT.dev0+g<node>.dYYYYMMDD (setuptools-scm's `exact` needs a clean
 *   tree).
 * - no candidate: with `fallback`, it takes the tag's place and N counts
 *   every commit reachable from REV (setuptools-scm >= 9: fallback
 *   0.5.2.dev0 and three commits give 0.5.2.dev3+g<node>); with
 *   fallback_pretend, FALLBACK+g<node>; with neither, ERROR_NOT_FOUND.
 *
 * Tags are every ref under refs/tags/ that resolves; a broken one (an
 * invalid name, a symbolic ref to nothing) is left out and named in
 * out->skipped, as git warns and goes on: one bad ref never hides the
 * others. A next version whose number would pass 2^64 - 1 is ERROR_INVALID
 * naming the tag.
 *
 * A shallow repository whose walk needs missing history gives
 * ERROR_INVALID (never a guess). Bad parameters give ERROR_INVALID; libgit2
 * failures ERROR_INTERNAL (ERROR_NOT_FOUND for an unknown REV).
 * On success fills *out (free with version_result_release); on failure
 * *out holds nothing to free.
 */
int version_compute(struct git_repository *repo, const char *rev,
		    const struct version_params *p,
		    struct version_result *out, struct error *err);

/*
 * Parameters for a root of the rules (graph/family.c): its tag patterns,
 * exclusions, family prefix, spelling, tag_regex, fallback, node length
 * and version source (worktree 0, date_epoch 0). The pointers borrow from
 * *root.
 */
struct rules_root;
void version_params_from_root(const struct rules_root *root,
			      struct version_params *p);

/*
 * version_compute over a repository view handle (graph/repo.h) instead of
 * a raw libgit2 repository. Same results and errors.
 */
struct graph_repo;
int version_compute_at(struct graph_repo *repo, const char *rev,
		       const struct version_params *p,
		       struct version_result *out, struct error *err);

/*
 * The root's version by its version source (graph/version_file.c):
 * VERSION_FROM_TAGS is version_compute_at. VERSION_FROM_FILE reads p->file
 * at REV (from the working tree with p->worktree) and gives its PEP 440
 * version as is (numba-cuda's numba_cuda/VERSION). VERSION_FROM_FILE_TAGS
 * (RAPIDS): the file's version at a family tag of that version (distance
 * 0), else the file's release with an alpha number, RELEASE aN, N the
 * commits since the nearest family tag (0 at the alpha tag vYY.MM.00a that
 * opens a cycle); no fallback. Errors: those of version_compute;
 * ERROR_NOT_FOUND when the file is absent at REV; ERROR_INVALID when its
 * text is not a PEP 440 version.
 */
int version_compute_root_at(struct graph_repo *repo, const char *rev,
			    const struct version_params *p,
			    struct version_result *out, struct error *err);

/* Free a result's strings; accepts NULL and zeroed results. */
void version_result_release(struct version_result *r);

/* "exact", "tag", "fallback", "pretend". Static text. */
const char *version_source_name(enum version_source s);

/*
 * The next version of setuptools-scm's guess_next_version applied to
 * tag *v (local part ignored), before ".devN" is appended. Returns 0 and
 * fills *next, or ERROR_INVALID for a ".devN" tag with N > 0 or a number
 * that cannot be bumped (it is 2^64 - 1 already).
 */
int version_guess_next(const struct pep440 *v, struct pep440 *next,
		       struct error *err);

/*
 * "g" + the first `length` hex digits of a commit id given as text, in
 * lowercase, into out (size >= length + 2). The text must be hex and at
 * least max(length, 7) digits long (the cuda-python pretend convention,
 * section D case 43): else ERROR_INVALID naming the text.
 */
int version_node_from_hex(const char *hex, unsigned length, char *out,
			  size_t size, struct error *err);

/*
 * Does the family of *p claim `tag`? (graph/family.c) Returns 1 (and the
 * version in *v, may be NULL) when it matches a pattern, is not excluded,
 * and either (no tag_regex) is the prefix followed by a public version
 * spelled exactly as p->spelling writes it (so "v13.4.01" and
 * "v13.4.2+local" are no tags of a "v" family), or (tag_regex) the regex
 * matches at its start with a non-empty version group that parses as PEP
 * 440, as setuptools-scm reads tags; 0 when not claimed. A tag_regex
 * runs under PCRE2 match, depth and heap limits (graph/family.c), so a
 * regex that backtracks without end costs milliseconds, not minutes:
 * reaching a limit, or any other PCRE2 failure, is ERROR_INVALID naming
 * the regex and the tag, at p->regex_file:line:col when known; never
 * "not claimed".
 */
int version_tag_claims(const struct version_params *p, const char *tag,
		       struct pep440 *v, struct error *err);

/*
 * 1 when `tag` matches a tag pattern of *p and no exclusion, whatever its
 * spelling: a tag the family would claim if it were spelled as the family
 * spells versions (graph/family.c). Else 0.
 */
int version_tag_named(const struct version_params *p, const char *tag);

/*
 * For the release checker (graph/family.c): 0 when the family claims `tag`
 * and the tag is exactly prefix + the version in the family's spelling
 * (pep440_check_release_tag for PEP 440; with a tag_regex, nothing may
 * follow the version group); ERROR_NOT_FOUND when the family does not
 * claim it; ERROR_INVALID naming the spelling problem.
 */
int version_tag_check_release(const struct version_params *p, const char *tag,
			      struct pep440 *v, struct error *err);

#endif
