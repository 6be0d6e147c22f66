/*
 * `ripple diff RUN_A RUN_B [NODE-GLOB...]`: how two recorded runs differ,
 * node by node: root causes (with the first divergence of each), cascades
 * (with the upstream node they follow), and nodes only one run recorded.
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "cache/cache.h"
#include "engine/plan/report.h"
#include "engine/plan/rundiff.h"
#include "base/banned.h"

static const char diff_help[] =
	"usage: ripple diff RUN_A RUN_B [NODE-GLOB...] [--json] [--cache PATH]\n"
	"\n"
	"For every node whose key differs between two recorded runs, the first\n"
	"divergence from the stored key manifests: rule fields (old and new\n"
	"text), toolkits, input files (path, old and new blob id) or upstream\n"
	"nodes. Root causes are listed apart from cascades (nodes that differ\n"
	"only because an upstream node did). Nodes only one run recorded are\n"
	"listed as added or removed. Needs no repository. Exit 0 when the runs\n"
	"agree, 1 when they differ, 2 for bad arguments or an unknown run.\n";

/* Text from data: escaped where it is not UTF-8 (report_json_text). */
static json_t *
str_or_null(const char *s)
{
	return report_json_text(s);
}

static json_t *
node_json(const struct rundiff_node *x)
{
	json_t *o = json_object(), *ch = json_array();
	size_t k;

	for (k = 0; k < x->n_changes; k++)
		json_array_append_new(ch, report_change_json(&x->changes[k]));
	json_object_set_new(o, "id", json_string(x->id));
	json_object_set_new(o, "status",
			    json_string(rundiff_status_name(x->status)));
	json_object_set_new(o, "old_key", str_or_null(x->old_key));
	json_object_set_new(o, "new_key", str_or_null(x->new_key));
	json_object_set_new(o, "reason", x->status == RUNDIFF_STATUS_CHANGED
		? json_string(plan_reason_name(x->reason)) : json_null());
	json_object_set_new(o, "cascade_of", str_or_null(x->cascade_of));
	json_object_set_new(o, "root_cause", str_or_null(x->root_cause));
	json_object_set_new(o, "changes", ch);
	return o;
}

static int
render_json(const struct rundiff *d, struct buf *out, struct error *err)
{
	json_t *doc = json_object(), *roots = json_array(),
	       *cascades = json_array(), *added = json_array(),
	       *removed = json_array();
	size_t i;
	char *s;
	int rc;

	for (i = 0; i < d->n; i++) {
		const struct rundiff_node *x = &d->nodes[i];

		if (x->status == RUNDIFF_STATUS_ADDED)
			json_array_append_new(added, node_json(x));
		else if (x->status == RUNDIFF_STATUS_REMOVED)
			json_array_append_new(removed, node_json(x));
		else
			json_array_append_new(x->cascade_of ? cascades : roots,
					      node_json(x));
	}
	json_object_set_new(doc, "schema", json_string("ripple-diff-v1"));
	json_object_set_new(doc, "run_a", json_string(d->run_a));
	json_object_set_new(doc, "run_b", json_string(d->run_b));
	json_object_set_new(doc, "root_causes", roots);
	json_object_set_new(doc, "cascades", cascades);
	json_object_set_new(doc, "added", added);
	json_object_set_new(doc, "removed", removed);
	s = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(doc);
	if (!s)
		return error_set(err, ERROR_NOMEM, "out of memory");
	rc = buf_addf(out, err, "%s\n", s);
	free(s);
	return rc;
}

static void
render_section(const struct rundiff *d, struct buf *out, const char *title,
	       int which)
{
	size_t i, k, n = 0;

	for (i = 0; i < d->n; i++) {
		const struct rundiff_node *x = &d->nodes[i];
		int w = x->status == RUNDIFF_STATUS_ADDED ? 2
			: x->status == RUNDIFF_STATUS_REMOVED ? 3
			: x->cascade_of ? 1 : 0;

		if (w != which)
			continue;
		if (!n++)
			buf_addf(out, NULL, "\n%s:\n", title);
		if (which >= 2) {
			buf_addf(out, NULL, "  %s  %s\n", x->id,
				 x->old_key ? x->old_key : x->new_key);
			continue;
		}
		buf_addf(out, NULL, "  %s  %s", x->id,
			 plan_reason_name(x->reason));
		if (x->cascade_of) {
			buf_addf(out, NULL, " (cascade of %s", x->cascade_of);
			if (x->root_cause && strcmp(x->root_cause,
						    x->cascade_of))
				buf_addf(out, NULL, "; root cause %s",
					 x->root_cause);
			buf_addstr(out, ")", NULL);
		}
		buf_addf(out, NULL, "\n    key       %s -> %s\n", x->old_key,
			 x->new_key);
		for (k = 0; k < x->n_changes; k++)
			report_change_text(out, &x->changes[k]);
	}
}

static int
render_text(const struct rundiff *d, struct buf *out, struct error *err)
{
	buf_addf(out, NULL, "runs      %s -> %s\n", d->run_a, d->run_b);
	render_section(d, out, "root causes", 0);
	render_section(d, out, "cascades", 1);
	render_section(d, out, "only in the second run (added)", 2);
	render_section(d, out, "only in the first run (removed)", 3);
	return buf_addf(out, err, "\n%zu root cause%s, %zu cascade%s, "
			"%zu added, %zu removed\n", d->n_root_causes,
			d->n_root_causes == 1 ? "" : "s", d->n_cascades,
			d->n_cascades == 1 ? "" : "s", d->n_added,
			d->n_removed);
}

int
cli_diff(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "cache", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cache_opt = NULL;
	struct rundiff *d = NULL;
	struct cache *c = NULL;
	char path[4096];
	struct error err;
	struct buf b;
	int json = 0, ch, rc;

	while ((ch = cli_getopt(ctx, "diff", argc, argv, "h", opts)) != -1) {
		switch (ch) {
		case 'j': json = 1; break;
		case 'c': cache_opt = optarg; break;
		case 'h': fputs(diff_help, stdout); return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	if (argc - optind < 2)
		return cli_usage_error(ctx, "diff", "expected RUN_A and RUN_B");
	rc = cli_cache_path(ctx, cache_opt, path, sizeof(path));
	if (rc)
		return cli_exit_for(rc);
	error_init(&err);
	buf_init(&b, 0);
	rc = cache_open(path, CACHE_OPEN_READONLY, &c, &err);
	if (rc == ERROR_NOT_FOUND)
		error_hint(&err, "no cache: record runs with `ripple record`");
	if (!rc)
		rc = rundiff_compute(c, argv[optind], argv[optind + 1],
				     (const char *const *)argv + optind + 2,
				     (size_t)(argc - optind - 2), &d, &err);
	if (!rc)
		rc = json ? render_json(d, &b, &err)
			  : render_text(d, &b, &err);
	if (rc) {
		cli_print_error(ctx, &err);
		rc = rc == ERROR_NOT_FOUND ? CLI_USAGE : cli_exit_for(rc);
		goto done;
	}
	rc = cli_write_out(ctx, NULL, 0, &b);
	if (!rc && d->n)
		rc = CLI_FAIL;
done:
	buf_release(&b);
	rundiff_free(d);
	cache_close(c);
	return rc;
}
