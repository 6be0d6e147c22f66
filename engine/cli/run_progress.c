/*
 * `ripple run`'s two streams while it runs. Progress goes to stderr in
 * ninja's manner: on a smart terminal one status line, `[done/total]
 * NODE`, rewritten in place; elsewhere (a CI log, a pipe, TERM=dumb) one
 * line when each node finishes, with its state and duration. The report
 * (a failed node's message and log, once; deferred GPU tests) goes to the
 * report stream, stdout (stderr under --json, which owns stdout).
 */
#include "engine/cli/cli.h"
#include "engine/cli/run.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/host.h"
#include "engine/run/run.h"
#include "graph/graph.h"
#include "base/banned.h"

void
cli_run_progress_init(struct cli_run_progress *pr, const struct cli_ctx *ctx,
		      const struct graph *g, FILE *report)
{
	memset(pr, 0, sizeof(*pr));
	pr->ctx = ctx;
	pr->g = g;
	pr->report = report;
	pr->smart = ctx->smart_err;
	pr->width = 80;
	if (pr->smart && host_stderr_columns() > 20)
		pr->width = host_stderr_columns();
}

/* Take the status line off the terminal before other output. */
static void
clear_status(struct cli_run_progress *pr)
{
	if (!pr->line_open)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	pr->line_open = 0;
}

void
cli_run_progress_end(struct cli_run_progress *pr)
{
	clear_status(pr);
}

static void
print_log(FILE *to, const char *path)
{
	char chunk[8192];
	FILE *f;
	size_t n;

	if (!path || !(f = fopen(path, "rb")))
		return;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, to);
	fclose(f);
}

/*
 * The status line: `[done/total] NODE`, one terminal line wide (a line
 * that wraps cannot be rewritten): a long id loses its middle, as ninja
 * elides a long description.
 */
static void
status_line(struct cli_run_progress *pr, const struct run_event *ev)
{
	const char *id = pr->g->nodes[ev->node].id;
	char head[64];
	size_t len = strlen(id), room;
	int n = snprintf(head, sizeof(head), "[%zu/%zu] ", ev->done,
			 ev->total);

	room = pr->width > (size_t)n + 1 ? pr->width - (size_t)n - 1 : 0;
	fprintf(stderr, "\r\033[K%s", head);
	if (len <= room)
		fputs(id, stderr);
	else if (room > 3)
		fprintf(stderr, "%.*s...%s", (int)((room - 3) / 2), id,
			id + len - (room - 3 - (room - 3) / 2));
	fflush(stderr);
	pr->line_open = 1;
}

/* States worth a line of their own when a node ends. */
static int
shown(enum run_state s)
{
	switch (s) {
	case RUN_STATE_OK: case RUN_STATE_FAILED: case RUN_STATE_TIMEOUT:
	case RUN_STATE_INTERRUPTED: case RUN_STATE_CUTOFF:
	case RUN_STATE_DEFERRED: case RUN_STATE_BLOCKED:
		return 1;
	default:
		return 0;
	}
}

/* Not a terminal: `[done/total] STATE NODE 1.2s`, once per node. */
static void
end_line(struct cli_run_progress *pr, const struct run_event *ev)
{
	const struct run_node *rn = ev->rn;
	const struct graph *g = pr->g;

	fprintf(stderr, "[%zu/%zu] %s %s", ev->done, ev->total,
		run_state_name(rn->state), g->nodes[ev->node].id);
	if (rn->state == RUN_STATE_CUTOFF)
		fprintf(stderr, " (cut off at %s)",
			rn->cause >= 0 ? g->nodes[rn->cause].id : "?");
	else if (rn->state == RUN_STATE_BLOCKED && rn->cause >= 0)
		fprintf(stderr, " (by %s)", g->nodes[rn->cause].id);
	else if (rn->state != RUN_STATE_DEFERRED)
		fprintf(stderr, " %.1fs", (double)rn->duration_ms / 1000);
	if (rn->gpus[0])
		fprintf(stderr, " gpus=%s", rn->gpus);
	fputc('\n', stderr);
	fflush(stderr);
}

/* The report's part of an ended node: failures with their log, deferrals. */
static void
report_node(struct cli_run_progress *pr, const struct run_event *ev)
{
	const struct run_node *rn = ev->rn;
	const char *id = pr->g->nodes[ev->node].id;
	FILE *f = pr->report;

	if (rn->state == RUN_STATE_DEFERRED) {
		fprintf(f, "deferred: %s: %s\n", id, rn->message);
	} else if (rn->state == RUN_STATE_CUTOFF && pr->smart) {
		fprintf(f, "reuse %s (cut off at %s)\n", id,
			rn->cause >= 0 ? pr->g->nodes[rn->cause].id : "?");
	} else if (rn->state == RUN_STATE_FAILED ||
		   rn->state == RUN_STATE_TIMEOUT) {
		fprintf(f, "FAILED: %s: %s\n", id, rn->message);
		if (rn->log_path) {
			fprintf(f, "--- log %s ---\n", rn->log_path);
			fflush(f);
			print_log(f, rn->log_path);
			fprintf(f, "--- end of log ---\n");
		}
	} else {
		return;
	}
	fflush(f);
}

void
cli_run_progress_event(void *payload, const struct run_event *ev)
{
	struct cli_run_progress *pr = payload;
	enum run_state s = ev->rn->state;

	if (ev->kind == RUN_EVENT_START) {
		if (pr->smart)
			status_line(pr, ev);
		return;
	}
	clear_status(pr);
	if (!pr->smart && shown(s))
		end_line(pr, ev);
	report_node(pr, ev);
	if (pr->smart && ev->done < ev->total)
		status_line(pr, ev);
}
