/*
 * What `ripple run` reports when it is done: the summary line (on the
 * report's stream: stdout, or stderr with --json) and the --json document
 * (schema ripple-run-v1, docs/run.md).
 */
#include "engine/cli/cli.h"
#include "engine/cli/run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "base/error.h"

#include "engine/plan/eval.h"
#include "engine/plan/planner.h"
#include "engine/plan/report.h"
#include "engine/run/run.h"
#include "graph/graph.h"
#include "base/banned.h"

json_t *
cli_run_json(const struct planner *pl, const struct run_result *res,
	     const char *run_id, const char *status)
{
	const struct graph *g = pl->head->graph;
	json_t *doc = json_object(), *nodes = json_array();
	json_t *counts = json_object();
	size_t i;

	for (i = 0; i < g->n_nodes; i++) {
		const struct plan_item *it = &pl->plan->items[i];
		const struct run_node *rn = &res->nodes[i];
		json_t *o;

		if (!pl->plan->in_closure[i])
			continue;
		o = json_object();
		json_object_set_new(o, "id", json_string(g->nodes[i].id));
		json_object_set_new(o, "decision", json_string(
			plan_decision_name(it->decision)));
		json_object_set_new(o, "reason", json_string(
			plan_reason_name(it->reason)));
		json_object_set_new(o, "status",
				    json_string(run_state_name(rn->state)));
		json_object_set_new(o, "cause", rn->cause >= 0
			? json_string(g->nodes[rn->cause].id) : json_null());
		json_object_set_new(o, "message", rn->message[0]
			? report_json_text(rn->message) : json_null());
		json_object_set_new(o, "duration_ms",
				    json_integer(rn->duration_ms));
		json_object_set_new(o, "exit_code", rn->exit_code >= 0
			? json_integer(rn->exit_code) : json_null());
		json_object_set_new(o, "log", rn->log_path
			? report_json_text(rn->log_path) : json_null());
		json_object_set_new(o, "gpus", rn->gpus[0]
			? json_string(rn->gpus) : json_null());
		json_object_set_new(o, "gap", json_boolean(rn->gap));
		json_array_append_new(nodes, o);
	}
	for (i = RUN_STATE_REUSED; i < RUN_STATE_COUNT; i++)
		json_object_set_new(counts, run_state_name((enum run_state)i),
				    json_integer((json_int_t)res->counts[i]));
	json_object_set_new(counts, "built", json_integer((json_int_t)res->built));
	json_object_set_new(counts, "tested",
			    json_integer((json_int_t)res->tested));
	json_object_set_new(counts, "gap_rebuilds",
			    json_integer((json_int_t)res->gaps));
	json_object_set_new(doc, "schema", json_string("ripple-run-v1"));
	json_object_set_new(doc, "run", json_string(run_id));
	json_object_set_new(doc, "status", json_string(status));
	json_object_set_new(doc, "head", json_string(pl->head->commit_hex));
	json_object_set_new(doc, "baseline_run", pl->run_id[0]
		? json_string(pl->run_id) : json_null());
	json_object_set_new(doc, "counts", counts);
	json_object_set_new(doc, "elapsed_ms", json_integer(res->elapsed_ms));
	json_object_set_new(doc, "nodes", nodes);
	return doc;
}

void
cli_run_summary(FILE *f, const struct graph *g, const struct run_result *res,
		const char *run_id, const char *status)
{
	size_t i;

	fprintf(f,
		"run %s %s: %zu built, %zu reused (%zu cut off), %zu tested, "
		"%zu failed, %zu timed out, %zu interrupted, %zu blocked, "
		"%zu deferred, "
		"%zu remote, %zu skipped in %.1fs\n",
		run_id, status, res->built,
		res->counts[RUN_STATE_REUSED] + res->counts[RUN_STATE_CUTOFF],
		res->counts[RUN_STATE_CUTOFF], res->tested,
		res->counts[RUN_STATE_FAILED], res->counts[RUN_STATE_TIMEOUT],
		res->counts[RUN_STATE_INTERRUPTED],
		res->counts[RUN_STATE_BLOCKED],
		res->counts[RUN_STATE_DEFERRED], res->counts[RUN_STATE_REMOTE],
		res->counts[RUN_STATE_SKIPPED], (double)res->elapsed_ms / 1000);
	if (res->counts[RUN_STATE_DEFERRED])
		fprintf(f, "%zu deferred: no matching GPU here\n",
			res->counts[RUN_STATE_DEFERRED]);
	if (res->gaps)
		fprintf(f, "%zu rebuilt because of a cache gap (slower, "
			"never wrong; --strict-cache fails instead):\n",
			res->gaps);
	for (i = 0; res->gaps && i < res->n; i++) {
		const struct run_node *rn = &res->nodes[i];
		const char *why = rn->message;
		size_t k = strlen(RUN_GAP_PREFIX);

		if (!rn->gap)
			continue;
		if (!strncmp(why, RUN_GAP_PREFIX, k))
			why += k;
		fprintf(f, "  %s (%s): %s\n", g->nodes[i].id,
			run_state_name(rn->state), why);
	}
	fflush(f);
}

/* mkdir -p; 0 or errno. */
static int
mkdirs(const char *dir)
{
	char tmp[4096];
	size_t i, n = strlen(dir);

	if (n >= sizeof(tmp))
		return ENAMETOOLONG;
	memcpy(tmp, dir, n + 1);
	for (i = 1; i <= n; i++)
		if (tmp[i] == '/' || !tmp[i]) {
			char c = tmp[i];

			tmp[i] = '\0';
			if (mkdir(tmp, 0777) && errno != EEXIST)
				return errno;
			tmp[i] = c;
		}
	return 0;
}

static int
copy(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out;
	char buf[65536];
	size_t n;
	int rc = 0;

	if (!in)
		return errno;
	out = fopen(to, "wb");
	if (!out) {
		rc = errno;
		fclose(in);
		return rc;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n) {
			rc = errno ? errno : EIO;
			break;
		}
	if (ferror(in) && !rc)
		rc = EIO;
	fclose(in);
	if (fclose(out) && !rc)
		rc = errno;
	return rc;
}

int
cli_run_failed_logs(const struct cli_ctx *ctx, const char *dir,
		    const struct run_result *res)
{
	struct error err;
	size_t i, n = 0;
	int e;

	for (i = 0; i < res->n; i++) {
		const struct run_node *rn = &res->nodes[i];
		const char *base;
		char to[4096];

		if ((rn->state != RUN_STATE_FAILED &&
		     rn->state != RUN_STATE_TIMEOUT) || !rn->log_path)
			continue;
		if (!n++ && (e = mkdirs(dir)) != 0) {
			error_init(&err);
			error_set(&err, ERROR_IO, "--failed-logs %s: %s", dir,
				  strerror(e));
			return cli_fail(ctx, &err);
		}
		base = strrchr(rn->log_path, '/');
		base = base ? base + 1 : rn->log_path;
		snprintf(to, sizeof(to), "%s/%s", dir, base);
		e = copy(rn->log_path, to);
		if (e && e != ENOENT) {
			error_init(&err);
			error_set(&err, ERROR_IO, "--failed-logs: %s -> %s: %s",
				  rn->log_path, to, strerror(e));
			return cli_fail(ctx, &err);
		}
	}
	return 0;
}
