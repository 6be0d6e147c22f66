/*
 * Gitignore-style path patterns for source sets. A pattern set is an
 * include list and an exclude list; a path is claimed when it matches some
 * include and no exclude. The exact rules, with a table of examples, are in
 * docs/patterns.md; they follow gitignore(5) ("PATTERN FORMAT") except that
 * patterns are always relative to the repository root, a leading "/" and
 * "!" negation are not accepted (use the exclude list), and paths are bytes.
 */
#ifndef RIPPLE_GRAPH_PATTERN_H
#define RIPPLE_GRAPH_PATTERN_H

#include <stddef.h>

struct arena;
struct buf;
struct error;
struct strv;
struct pattern_set;

/*
 * Check one pattern's spelling. Returns 0, or ERROR_INVALID with a message
 * naming the pattern for: an empty pattern, "/" alone or a leading "//"
 * (absolute), a "." or ".." component, an empty component ("a//b"), an
 * unterminated character class, or a trailing backslash. One leading "/"
 * is allowed: as in gitignore(5) it anchors the pattern at the repository
 * root ("/conftest.py" matches only the top-level file, "conftest.py" any).
 */
int pattern_validate(const char *pattern, struct error *err);

/*
 * Does one pattern match `path` (repository-relative, "/"-separated, no
 * leading or trailing "/")? 1 or 0. The pattern must be valid (see
 * pattern_validate); an invalid one matches nothing.
 */
int pattern_match(const char *pattern, const char *path);

/* What pattern_match_counted asks about `path`. */
enum pattern_query {
	PATTERN_QUERY_PATH = 0,	/* does it match path or a directory above? */
	PATTERN_QUERY_SOME_BELOW,	/* could a path under dir `path` match? */
	PATTERN_QUERY_ALL_BELOW,	/* does every path under dir `path`? */
};

/*
 * As pattern_match, for any query, adding to *steps the work done: one per
 * path component visited and one per byte compared within a component.
 * Matching is O(length of path x length of pattern): tests and benchmarks
 * check the count against that bound.
 */
int pattern_match_counted(const char *pattern, const char *path,
			  enum pattern_query query, unsigned long *steps);

/*
 * The pattern's fixed directory prefix: its leading components that contain
 * no wildcard, unescaped and joined by "/" ("" when none, or when the
 * pattern is unanchored). Every path the pattern matches lies under it.
 * Appends to *out; returns 0 or ERROR_NOMEM/ERROR_INVALID.
 */
int pattern_fixed_prefix(const char *pattern, struct buf *out,
			 struct error *err);

/*
 * Where pattern_fixed_prefix's text lies in the pattern itself (its bytes
 * are the prefix's, copied as they are): *len bytes at pattern + *off,
 * *len 0 when the prefix is "". Allocates nothing.
 */
void pattern_fixed_prefix_span(const char *pattern, size_t *off,
			       size_t *len);

/*
 * Compile `n_include` include and `n_exclude` exclude patterns (either array
 * may be NULL when its count is 0) into a new set in *out (free with
 * pattern_set_free). Every pattern is validated first; the first invalid
 * one is reported (ERROR_INVALID). Out of memory: ERROR_NOMEM.
 */
int pattern_set_compile(const char *const *include, size_t n_include,
			const char *const *exclude, size_t n_exclude,
			struct pattern_set **out, struct error *err);

/*
 * Exclude from `set` every path one of `globs` (n of them, in the output
 * glob dialect of graph/outputs.h: `*` within a component, `**` across
 * them) matches: ripple's own state and the nodes' declared outputs are
 * never source inputs (issue 25). The globs are copied; the set's digest
 * changes with them (n == 0 changes nothing). Errors: ERROR_NOMEM.
 */
int pattern_set_exclude_globs(struct pattern_set *set,
			      const char *const *globs, size_t n,
			      struct error *err);

/*
 * Exclude the one path `path` (repository-relative bytes, copied) that
 * the commit walked does not hold: an untracked rules file in the working
 * tree. It is never claimed but, unlike an excluded glob, it cuts no
 * folder claimed whole (pattern_set_claims_all_below): the commit's
 * folder holds no such file, and the working tree's folded ids count only
 * what the set claims, so the folder is keyed by its tree id wherever the
 * rules file lies. A second call replaces the first; the digest changes
 * with it. Errors: ERROR_NOMEM.
 */
int pattern_set_exclude_absent(struct pattern_set *set, const char *path,
			       struct error *err);

/* Free a set. Accepts NULL. */
void pattern_set_free(struct pattern_set *set);

/* 1 when `path` matches some include and no exclude, else 0. */
int pattern_set_match(const struct pattern_set *set, const char *path);

/*
 * Could any path under directory `dir` (repository-relative, no trailing
 * "/"; "" is the root) be claimed by the set? 0 only when certainly not:
 * no include can match below dir, or an exclude matches everything below
 * it. Used to skip whole subtrees during a walk.
 */
int pattern_set_may_match_dir(const struct pattern_set *set, const char *dir);

/*
 * Is the entry at `path` that a walk cannot enter, a gitlink (submodule)
 * or a symlink, claimed: the path itself, or anything inside the
 * submodule's checkout or the folder the link reaches, matches
 * (pattern_set_match or pattern_set_may_match_dir)? Its commit id, or
 * the link's resolution, then stands for what the set reads inside it.
 */
int pattern_set_claims_opaque(const struct pattern_set *set,
			      const char *path);

/*
 * Is every path under directory `dir` claimed? 1 only when certainly so:
 * an include matches everything below dir and no exclude could match
 * anything below it. Lets a walk skip matching file by file there.
 */
int pattern_set_claims_all_below(const struct pattern_set *set,
				 const char *dir);

/*
 * The include patterns' fixed prefixes (see pattern_fixed_prefix), sorted
 * and without duplicates, pushed onto *out (an owned strv). A "" entry
 * means the walk must start at the root. Returns 0 or ERROR_NOMEM.
 */
int pattern_set_prefixes(const struct pattern_set *set, struct strv *out,
			 struct error *err);

/*
 * A digest of the set's canonical text (XXH3-128 over the length-prefixed
 * include and exclude lists, in the order given): equal sets give equal
 * digests. 16 bytes.
 */
const unsigned char *pattern_set_digest(const struct pattern_set *set);

/*
 * What a source set's memo id needs, without compiling the set: the
 * digest pattern_set_digest gives after pattern_set_compile(include,
 * exclude), then pattern_set_exclude_globs(globs) when n_globs > 0, then
 * pattern_set_exclude_absent(absent) when absent is not NULL (16 bytes
 * into digest), and the prefixes pattern_set_prefixes gives (pushed onto
 * *prefixes: copies, or with `a` their texts in a, pushed by reference,
 * for a vector that does not own its strings: no allocation a prefix). Every pattern is validated as compile does, with the same
 * errors. A plan keying 500 sets from their memo compiled 500 sets for
 * this (fifth round, docs/performance.md). Returns 0, ERROR_INVALID or
 * ERROR_NOMEM.
 */
int pattern_set_memo_parts(const char *const *include, size_t n_include,
			   const char *const *exclude, size_t n_exclude,
			   const char *const *globs, size_t n_globs,
			   const char *absent, unsigned char digest[16],
			   struct arena *a, struct strv *prefixes,
			   struct error *err);

#endif
