/*
 * `same-content:` checks: files that must hold the same bytes (cuda-python
 * keeps LICENSE, headers, .pxd files and test build scripts identical
 * between cuda_bindings/ and cuda_bindings_12/). Compared by git blob id,
 * exact and cheap; a difference names both paths and both blob ids.
 */
#ifndef RIPPLE_GRAPH_SAME_H
#define RIPPLE_GRAPH_SAME_H

#include <stddef.h>

struct error_list;
struct graph_repo;
struct rules;

/*
 * Evaluate every same-content check of `r` against the working tree of
 * `repo` (blob ids of the files as they are, symlinks by their target
 * text, as git would store them without filters). Appends one error per
 * file that differs from the check's first file of its group (each path
 * across the roots, or the listed paths) and per file that is missing,
 * at the check's position, each message starting "check 'NAME': ".
 * *n_ok (may be NULL) receives the number of same-content checks without
 * a problem. Returns 0, or the first problem's code (ERROR_CONFLICT for
 * a difference, ERROR_NOT_FOUND for a missing file, ERROR_INVALID for a
 * repository without a working tree, ERROR_NOMEM).
 */
int graph_same_content_evaluate(struct graph_repo *repo, const struct rules *r,
				size_t *n_ok, struct error_list *errors);

#endif
