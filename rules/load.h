/*
 * Internal to rules/: the state of one load (the model being built, the
 * errors found) and the helpers the loader's files share: reporting at a
 * YAML node, typed field readers, and the syntax checks of patterns,
 * versions and templates.
 */
#ifndef RIPPLE_RULES_LOAD_H
#define RIPPLE_RULES_LOAD_H

#include <stdarg.h>
#include <stddef.h>

#include "base/error.h"
#include "rules/rules.h"

struct rules_ynode;

struct rules_load {
	struct rules *r;		/* the model being built */
	const char *file;		/* name used in messages */
	struct error_list errors;	/* found so far (unsorted) */
	int code;			/* the first error's code, or 0 */
	size_t n_nodes;			/* YAML nodes made (budget) */
	const char **art_names;		/* artifact names, before bodies */
	size_t n_art_names;
	const char **test_names;	/* test names, before bodies */
	size_t n_test_names;
	const char **art_sorted;	/* art_names sorted, for lookups */
	const char **test_sorted;	/* test_names sorted, for lookups */
	const struct rules_files *files;	/* matrix files, or NULL */
	struct rules_matrix_file {	/* parsed once per load */
		const char *path;
		struct rules_ynode *doc;	/* NULL: unreadable */
	} matrix[16];
	size_t n_matrix;
};

/* Report an error at (line, col) with an optional hint (NULL: none). */
void rules_load_error_at(struct rules_load *L, unsigned line, unsigned col,
			 const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Report at a node's position (n may be NULL: no position). */
void rules_load_error(struct rules_load *L, const struct rules_ynode *n,
		      const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Report that `word` (found at n) names nothing of `what` ("toolkit"),
 * with a did-you-mean hint from the n_cands candidates.
 */
void rules_load_unknown(struct rules_load *L, const struct rules_ynode *n,
			const char *what, const char *word,
			const char *const *cands, size_t n_cands);

/* Record out-of-memory (once). Returns ERROR_NOMEM. */
int rules_load_nomem(struct rules_load *L);

/* 1 after out-of-memory: callers stop building. */
int rules_load_failed_nomem(const struct rules_load *L);

/* Arena helpers that record out-of-memory; NULL then. */
void *rules_load_alloc(struct rules_load *L, size_t size);
const char *rules_load_strdup(struct rules_load *L, const char *s);

/* A rules_pos from a node. */
struct rules_pos rules_load_pos(const struct rules_ynode *n);

/*
 * Typed readers: each reports "expected ..., got ..." at n and returns -1
 * when n has the wrong shape; 0 on success.
 *   string: a scalar that is not null
 *   strings: a list of strings (a single string too when `one_ok`)
 *   bool: true or false
 *   uint: decimal digits within [lo, hi]
 */
int rules_load_string(struct rules_load *L, const struct rules_ynode *n,
		      const char *field, const char **out);
int rules_load_strings(struct rules_load *L, const struct rules_ynode *n,
		       const char *field, int one_ok, const char ***out,
		       size_t *n_out);

/*
 * The positions of the `count` strings rules_load_strings read from n: its
 * items for a list, n itself for a single string. In L's arena; NULL after
 * out-of-memory (recorded).
 */
struct rules_pos *rules_load_item_pos(struct rules_load *L,
				      const struct rules_ynode *n,
				      size_t count);
int rules_load_bool(struct rules_load *L, const struct rules_ynode *n,
		    const char *field, int *out);
int rules_load_uint(struct rules_load *L, const struct rules_ynode *n,
		    const char *field, unsigned long long lo,
		    unsigned long long hi, unsigned long long *out);

/*
 * Check that every key of map m is one of the NULL-terminated `keys`;
 * report each other one with a did-you-mean. `what` names the map ("root
 * 'x'"). Returns -1 if m is not a map (reported), else 0.
 */
int rules_load_keys(struct rules_load *L, const struct rules_ynode *m,
		    const char *what, const char *const *keys);

/*
 * As rules_load_keys, also setting vals[j] to the value of keys[j] in m
 * (what rules_ynode_get(m, keys[j]) gives), or NULL: one pass over m for
 * all of its fields, not one a field. vals holds one slot a key.
 */
int rules_load_fields(struct rules_load *L, const struct rules_ynode *m,
		      const char *what, const char *const *keys,
		      const struct rules_ynode **vals);

/*
 * 1 when `name` is one of the n names of `sorted` (sorted by strcmp): a
 * binary search, so rules naming 100,000 rules stay linear.
 */
int rules_load_has_name(const char *const *sorted, size_t n,
			const char *name);

/*
 * "KIND 'NAME'" into what (n bytes, n >= 1), cut as snprintf cuts, for
 * messages: what snprintf(what, n, "%s '%s'", kind, name) writes, at a
 * tenth of its cost (it runs for every node of a load).
 */
void rules_load_what(char *what, size_t n, const char *kind,
		     const char *name);

/* A name as a key: letters, digits, '.', '_', '-', starting alphanumeric. */
int rules_load_name(struct rules_load *L, const struct rules_ynode *n,
		    const char *what);

/* --- syntax.c: patterns, versions, templates --- */

/*
 * Check a gitignore-style path pattern (`paths`, `exclude`, `outputs`,
 * `ignore`): non-empty, relative, no `..` components, every `[` closed,
 * no control characters.
 * Reports at n and returns -1 when malformed.
 */
int rules_syntax_pattern(struct rules_load *L, const struct rules_ynode *n,
			 const char *pat);

/*
 * An output pattern: rules_syntax_pattern, and no component that names
 * '.git' or '.ripple' by another spelling on any system (base/path.h,
 * path_name_refused without PATH_NAMES_WINDOWS: what only Windows reads
 * differently is graph/expand.c's check, for win-64 nodes). Reports at n
 * and returns -1 when refused.
 */
int rules_syntax_output(struct rules_load *L, const struct rules_ynode *n,
			const char *pat);

/*
 * A string or a list of strings at n (field names it), each checked as a
 * glob (rules_syntax_glob); into *out (arena), *n_out. Reported at n.
 */
void rules_load_globs(struct rules_load *L, const struct rules_ynode *n,
		      const char *field, const char ***out, size_t *n_out);

/*
 * Refuse a control character (base/path.h path_bad_char) in a path
 * or path pattern `s` of `field` ("outputs", "cwd", "path", ...),
 * reported at n with the character escaped. Returns -1 after reporting,
 * else 0. rules_syntax_pattern calls it for every pattern.
 */
int rules_syntax_path_chars(struct rules_load *L, const struct rules_ynode *n,
			    const char *field, const char *s);

/* A glob over names or tags: non-empty, every `[` closed. */
int rules_syntax_glob(struct rules_load *L, const struct rules_ynode *n,
		      const char *pat);

/* MAJOR.MINOR.PATCH, decimal digits. Returns 0 and the parts, or -1. */
int rules_syntax_triple(const char *s, unsigned *major, unsigned *minor,
			unsigned *patch);

/* MAJOR.MINOR, decimal digits. Returns 0 and the parts, or -1. */
int rules_syntax_pair(const char *s, unsigned *major, unsigned *minor);

/* PEP 440 public version shape (N(.N)*[{a|b|rc}N][.postN][.devN]). */
int rules_syntax_pep440(const char *s);

/* What a template may refer to. */
struct rules_tvars {
	const struct rules_each *each;	/* the rule's axes, or NULL */
	int has_root;		/* a `root` axis is present */
	int has_toolkit;	/* the rule names a toolkit */
	int release;		/* ${version} and ${tag} are allowed */
};

/*
 * Check a template's `${...}` references: terminated, known, applicable to
 * this rule. `$$` is a literal `$`. Reports at n; returns -1 on a problem.
 */
int rules_syntax_template(struct rules_load *L, const struct rules_ynode *n,
			  const char *tpl, const struct rules_tvars *vars);

/* --- load.c / node.c / check.c --- */

/* Load `artifacts:` or `tests:` (node.c). */
void rules_load_nodes(struct rules_load *L, const struct rules_ynode *m,
		      enum rules_node_kind kind);

/*
 * rules/node_ci.c, for node.c: `pass-env:` at v into node (after its
 * `env:`): names and globs of environment variables, checked and sorted.
 */
void rules_load_pass_env(struct rules_load *L, const struct rules_ynode *v,
			 struct rules_node *node);
/* `container:` at v: an image reference (a template), or {image,
 * options}, into node->container. */
void rules_load_container(struct rules_load *L, const struct rules_ynode *v,
			  struct rules_node *node,
			  const struct rules_tvars *tv);
/* `runs-on:` at v (after `gpu:`): runner label templates of a node
 * without GPUs; a GPU node names its labels in `gpu: {runs-on:}`. */
void rules_load_runs_on(struct rules_load *L, const struct rules_ynode *v,
			struct rules_node *node,
			const struct rules_tvars *tv);
/* `rewrites:` at v: tracked files (path templates) the action may
 * modify, restored after it; checked and sorted. */
void rules_load_rewrites(struct rules_load *L, const struct rules_ynode *v,
			 struct rules_node *node,
			 const struct rules_tvars *tv);
/* `outputs:` as a map of named groups at v (a map): node->groups, and
 * node->outputs as every group's globs in order. Artifacts only. */
void rules_load_output_groups(struct rules_load *L,
			      const struct rules_ynode *v,
			      struct rules_node *node,
			      const struct rules_tvars *tv);
/* `ARTIFACT.GROUP` (the last '.' splits; an artifact of the whole name
 * was looked up first): 1 with d->name and d->group set when ARTIFACT is
 * an artifact rule, else 0. The group is checked by rules_check_groups. */
int rules_dep_group(struct rules_load *L, const char *name,
		    struct rules_dep *d);
/* Every `needs: [ARTIFACT.GROUP]` names a group the artifact declares
 * (after all rules are loaded). */
void rules_check_groups(struct rules_load *L);
/* rules/syntax.c: an axis value: non-empty, none of " ,=[]*?", no
 * control characters. */
int rules_load_value_ok(const char *s);
/* `each: {from: {file, select, where, axes}}` at v (rules/each_file.c):
 * the matrix entries of a repository file as e's combinations. */
void rules_load_each_from(struct rules_load *L, const struct rules_ynode *v,
			  const char *what, struct rules_each *e);
/* Load `releases:` (node.c). */
void rules_load_releases(struct rules_load *L, const struct rules_ynode *m);

/* rules/root.c: one root (key k, map v) into *root. */
void rules_load_root(struct rules_load *L, const struct rules_ynode *k,
		     const struct rules_ynode *v, struct rules_root *root);

/* Load `targets:` and `checks:` (refs.c), after every rule. */
void rules_load_targets(struct rules_load *L, const struct rules_ynode *m);
/* A list of gitignore-style patterns at n (rules/read.c), each checked
 * (rules_syntax_pattern); a leading '/' anchors one at its base. */
void rules_load_patterns(struct rules_load *L, const struct rules_ynode *n,
			 const char *field, const char ***out, size_t *n_out);

/* Toolkits and source sets (rules/roots.c), one map entry each: k is the
 * name's node, v its value, *out zeroed by the caller. */
void rules_load_toolkit(struct rules_load *L, const struct rules_ynode *k,
			const struct rules_ynode *v, struct rules_toolkit *out);
void rules_load_source(struct rules_load *L, const struct rules_ynode *k,
		       const struct rules_ynode *v, struct rules_source *out);

/* The `runners:` section (rules/runners.c); after the axes are loaded. */
void rules_load_runners(struct rules_load *L, const struct rules_ynode *m);

void rules_load_checks(struct rules_load *L, const struct rules_ynode *m);

/*
 * Load an `each:` map (each.c) into e; `what` names the rule in messages.
 */
void rules_load_each(struct rules_load *L, const struct rules_ynode *v,
		     const char *what, struct rules_each *e);

/* 1 when the each has an axis named `axis`. */
int rules_each_has(const struct rules_each *e, const char *axis);

/*
 * Check a selector value "roots[FIELD=TEMPLATE]" / "toolkits[...]" or a
 * plain template (each.c). Returns -1 after reporting a problem.
 */
int rules_load_selector(struct rules_load *L, const struct rules_ynode *n,
			const char *s, const struct rules_tvars *vars);

/*
 * Checks that need the whole model (check.c): `where` keys against the
 * dependency's axes, overlapping roots, names shared between sources,
 * artifacts and tests. Reports at the model's positions.
 */
void rules_check_model(struct rules_load *L);

#endif
