/*
 * Output globs: the dialect a rule's `outputs:` are written in, matching a
 * path against one, and whether two can name the same file. Two nodes that
 * can run on one runner (the same `platform` value, or at least one without
 * a platform axis) must never write the same files: each would remove and
 * record the other's (issue 13, item 7). `ripple check` refuses such rules.
 *
 * The dialect (docs/run.md): relative to the repository root; `*`, `?` and
 * `[...]` match within one path component (never '/'); `**` matches any
 * run of bytes, '/' included; a backslash quotes the next byte.
 *
 * Design: both questions are decided exactly, in polynomial time: matching
 * simulates the pattern's automaton over the path (|path| x |pattern|
 * steps); overlap searches the product of two patterns' automata (at most
 * (|a|+1)(|b|+1) states). Pairs of nodes are only compared when one
 * pattern's literal prefix is a prefix of the other's and one literal suffix
 * a suffix of the other's (necessary conditions), so a thousand nodes
 * writing `out/${python}/...` cost no thousand-squared searches.
 */
#ifndef RIPPLE_GRAPH_OUTPUTS_H
#define RIPPLE_GRAPH_OUTPUTS_H

struct error_list;
struct graph;

/*
 * 1 when `path` (repository-relative) matches the output glob, else 0 (also
 * when out of memory).
 */
int graph_glob_match(const char *pattern, const char *path);

/*
 * 1 when some path matches both output globs, else 0 (1 when out of
 * memory: the safe answer). Hidden files are not special here.
 */
int graph_glob_overlap(const char *a, const char *b);

/*
 * Add an error to `errors` (at the later node's rule, with its node id and
 * a hint) for every two nodes that can run on one runner and declare
 * outputs that can name the same file; and (at the later group's name,
 * naming the other's line:col) for every two output groups of one artifact
 * whose globs can name the same file, once per rule (its first node with
 * such a pair): the file would change both groups' digests. Returns 0
 * when there are none, or ERROR_INVALID when some were found, ERROR_NOMEM.
 */
int graph_outputs_check(const struct graph *g, struct error_list *errors);

#endif
