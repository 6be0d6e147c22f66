/*
 * Rendering plans for people and machines: an aligned text table (root
 * causes first), JSON (schema "ripple-plan-v1", sorted keys, documented in
 * docs/plan.md), GitHub Actions outputs (a matrix per job group within
 * GitHub's limits) and a Markdown step summary with a Mermaid graph. The
 * renderers append to a buffer; only the CLI writes it anywhere.
 */
#ifndef RIPPLE_ENGINE_PLAN_REPORT_H
#define RIPPLE_ENGINE_PLAN_REPORT_H

#include <stddef.h>

struct buf;
struct json_t;
struct plan_change;
struct error;
struct graph;
struct plan;

/* GitHub's documented limits. */
#define REPORT_GHA_MATRIX_MAX 256		/* jobs per matrix */
#define REPORT_GHA_OUTPUT_MAX (1024 * 1024)	/* bytes per job output */
#define REPORT_GHA_SUMMARY_MAX (1024 * 1024)	/* bytes of step summary */

/* What the plan was computed against (all borrowed; NULL when unknown). */
struct plan_meta {
	const char *head;		/* commit id, or "worktree" */
	const char *base;		/* commit id */
	const char *baseline_run;	/* run id */
	const char *baseline_label;	/* for people */
	long baseline_covered;		/* closure nodes the baseline run
					   holds a successful record of, or
					   -1 (no baseline run) */
	long baseline_nodes;		/* nodes in the closure, or -1 */
	const char *forced_reason;
	const char *mode;		/* "baseline", "assume-base-built" */
	const char *const *unclaimed;	/* changed paths no source claims */
	size_t n_unclaimed;
	const char *const *ignored;	/* changed paths policy ignores */
	size_t n_ignored;
	const char *const *changed;	/* every changed path */
	size_t n_changed;
	int color;			/* ANSI colours in text */
	int verbose;			/* text: list reused and skipped too */
	unsigned github_stages;		/* --github-stages: the workflow's job
					   slots (stage-1..N), or 0: none */
};

/* Text table: decision, id, reason; root causes, cascades, then the rest. */
int report_plan_text(const struct graph *g, const struct plan *p,
		     const struct plan_meta *m, struct buf *out,
		     struct error *err);

/* JSON document, sorted keys, two-space indent, trailing newline. */
int report_plan_json(const struct graph *g, const struct plan *p,
		     const struct plan_meta *m, struct buf *out,
		     struct error *err);

/*
 * GitHub Actions outputs (`name=value` lines for $GITHUB_OUTPUT): `plan`
 * (compact JSON of ids per decision), `build`/`test` ("true"/"false"),
 * `matrix-<group>` for each job group (kind and rule name) with an
 * `include` list of entries (axes plus `nodes`, space-separated ids; when a
 * group exceeds 256 entries, nodes are packed several per entry). With
 * m->github_stages N (a workflow of N generic job slots, each needing the
 * one before): the matrices in run order are also `stage-K` for K = 1..N
 * (`has-stage-K`, `matrix-stage-K`, `name-stage-K`), and `stages` is how
 * many the target has; a target whose jobs need more stages than N is
 * ERROR_INVALID (at plan time, never a stage left out). An output over 1 MB
 * is ERROR_INVALID naming it.
 */
int report_plan_github(const struct graph *g, const struct plan *p,
		       const struct plan_meta *m, struct buf *out,
		       struct error *err);

/*
 * Markdown step summary: counts, root causes, unclaimed paths, and a
 * Mermaid graph coloured by decision; kept under 1 MiB (the graph and then
 * the lists are cut, with a note, when needed).
 */
int report_plan_summary(const struct graph *g, const struct plan *p,
			const struct plan_meta *m, struct buf *out,
			struct error *err);

/* One line explaining an item's reason ("input-content-changed: PATH"). */
int report_item_reason(const struct graph *g, const struct plan *p, size_t i,
		       struct buf *out, struct error *err);

/*
 * `why` for item i: its decision and reason, what it was compared with, the
 * changes behind it (files with old and new blob ids, rule fields with old
 * and new text, toolkits, upstream keys), and for a cascade the chain up to
 * the root cause with the root cause's own changes.
 */
int report_why_text(const struct graph *g, const struct plan *p, size_t i,
		    const struct plan_meta *m, struct buf *out,
		    struct error *err);

/* The same as JSON (schema "ripple-why-v1"), sorted keys. */
int report_why_json(const struct graph *g, const struct plan *p, size_t i,
		    const struct plan_meta *m, struct buf *out,
		    struct error *err);

/*
 * One change as an indented text line ("    file      PATH  STATUS OLD ->
 * NEW  (input NAME)", ids shortened) appended to out. Shared by `why` and
 * `diff`.
 */
void report_change_text(struct buf *out, const struct plan_change *c);

/*
 * One change as a JSON object {kind, name, old, new[, path, status]} (the
 * schema of docs/plan.md); a new reference the caller owns (json_decref).
 */
struct json_t *report_change_json(const struct plan_change *c);

/*
 * Text from data (paths, tags, messages) as a JSON string: bytes that are
 * not valid UTF-8 become "\xHH" (utf8_escape), so a document is always
 * written, naming the bytes. NULL gives JSON null. A new reference; NULL
 * only when out of memory. Every JSON output of ripple uses it.
 */
struct json_t *report_json_text(const char *s);

#endif
