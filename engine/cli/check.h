/*
 * What `ripple check` found, shared between the command (engine/cli/check.c:
 * options, drift, the summary and the JSON) and its lints
 * (engine/cli/check_lint.c: what is valid but likely wrong).
 */
#ifndef RIPPLE_ENGINE_CLI_CHECK_H
#define RIPPLE_ENGINE_CLI_CHECK_H

#include <stddef.h>

#include "base/error.h"
#include "engine/cli/cli.h"
#include "graph/graph.h"
#include "rules/rules.h"

/* The most errors and warnings one check keeps for its report. */
#define CHECK_ERROR_LIMIT 50
#define CHECK_WARNING_LIMIT 50

/* What the check found, printed as it goes (text) or at the end (JSON). */
struct check {
	const struct cli_ctx *ctx;
	int json;
	struct error_list errors;
	struct error_list warnings;
	size_t n_ok;		/* checks that agree */
	int drift_done;		/* the drift checks were evaluated */
};

/* Report one error: printed now, or kept for the JSON document. */
void check_found_error(struct check *ck, const struct error *e);

/* Report every error of a list, and how many it dropped. */
void check_found_errors(struct check *ck, const char *file,
			const struct error_list *errors);

/*
 * Report a warning at pos of the rules file r->file, with hint (may be
 * NULL) and a printf-style message.
 */
void check_found_warning(struct check *ck, const struct rules *r,
			 struct rules_pos pos, const char *hint,
			 const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/*
 * The lints over the expanded graph g of rules r: unused or all-claiming
 * source sets, tests that do not need what they install, containers
 * pinned by tag only (warnings), and outputs two nodes share (errors).
 * Returns 0, or the exit code when an error was reported.
 */
int check_lint(struct check *ck, const struct rules *r,
	       const struct graph *g);

#endif
