/*
 * Drift checks: evaluate the `checks:` of a rules model. Each check lists
 * values read from these rules (a root's tag pattern, a toolkit pin), from
 * YAML or JSON files (a key path), from other text files (a regular
 * expression's first group) or written literally; all must be equal. Files
 * are read through a callback, so they may come from a working tree (the
 * helper rules_drift_read_dir) or, later, from a commit's tree.
 *
 * Semantics (docs/rules.md, section "checks"): values compare as exact
 * strings, with no normalization.
 */
#ifndef RIPPLE_RULES_DRIFT_H
#define RIPPLE_RULES_DRIFT_H

#include <stddef.h>

struct buf;
struct error;
struct error_list;
struct rules;

/* Files larger than this (bytes) are not read for checks. */
#define RULES_DRIFT_FILE_MAX (16u << 20)

/*
 * A file reader for checks, read_file(payload, path, out, err): reads the
 * repository-relative file `path` (as written in the check) and appends its
 * bytes to `out`. Returns 0; ERROR_NOT_FOUND when there is no such file;
 * ERROR_IO, ERROR_INVALID (too large, or a path that leaves the tree) or
 * ERROR_NOMEM, with a message naming `path` set in err.
 *
 * rules_drift_read_dir is such a reader over a directory: `payload` is the directory
 * (const char *, the working tree's root). Absolute paths and paths with a
 * `..` component are refused (ERROR_INVALID).
 */
int rules_drift_read_dir(void *payload, const char *path, struct buf *out,
			 struct error *err);

/*
 * Evaluate every check of r, reading files with read_file(payload, ...).
 * Each problem is appended to `errors`, in check order, then value order:
 *   - a disagreement (ERROR_CONFLICT), one per value that differs from the
 *     check's first readable value; the error sits at the first value's
 *     place (file:line:col), its message names the other place and both
 *     values, its hint names the check's position in the rules file;
 *   - a value that cannot be read: a missing file (ERROR_NOT_FOUND), a key
 *     path that does not exist (ERROR_NOT_FOUND, with a did-you-mean), a
 *     regex that does not match (ERROR_NOT_FOUND), a key naming a list, a
 *     map or null (ERROR_INVALID), a file that is not valid YAML or JSON
 *     (ERROR_INVALID at the file's line:col), a rules field that is not set
 *     (ERROR_NOT_FOUND); these sit at the value's entry in the rules file,
 *     except syntax errors, which sit in the file read.
 * Every message starts "check 'NAME': ". *n_ok (may be NULL) receives the
 * number of checks with no problem. Returns 0 when every check agrees,
 * else the first problem's code. Prints nothing.
 */
int rules_drift_evaluate_read(const struct rules *r,
			      int (*read_file)(void *payload, const char *path,
					       struct buf *out,
					       struct error *err),
			      void *payload,
			      size_t *n_ok, struct error_list *errors);

/* rules_drift_evaluate_read over the directory root_dir (read_dir). */
int rules_drift_evaluate(const struct rules *r, const char *root_dir,
			 size_t *n_ok, struct error_list *errors);

#endif
