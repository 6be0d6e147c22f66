/*
 * `ripple check [--rules FILE] [--no-drift] [--json]`: load and validate
 * the rules, expand them as plans will, warn about what is valid but
 * likely wrong (shared outputs, unused source sets, a source set that
 * claims every path), evaluate the drift checks against the working tree,
 * and print a summary, or every error found; with --json, all of it as
 * one document on stdout (schema ripple-check-v1).
 */
#include "engine/cli/check.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "base/mem.h"
#include "graph/graph.h"
#include "graph/outputs.h"
#include "graph/pattern.h"
#include "graph/repo.h"
#include "rules/drift.h"
#include "graph/family.h"
#include "graph/same.h"
#include "rules/rules.h"
#include "base/banned.h"

static void
help(FILE *f)
{
	fprintf(f,
		"usage: ripple check [--rules FILE] [--no-drift] [--json]\n"
		"\n"
		"Load and validate the rules file, then evaluate its drift "
		"checks\n(`checks:`) against the working tree of the git "
		"repository that\nholds the current directory (-C DIR; the "
		"directory itself when it is\nin none): print a summary of "
		"what the rules declare, or every error\nand disagreement "
		"found as FILE:LINE:COL: error: MESSAGE. Warnings\n(FILE:LINE:"
		"COL: warning:) name what is valid but likely wrong: two\n"
		"nodes sharing an output, a source set no rule uses, a source "
		"set\nthat claims every path.\n"
		"\n"
		"options:\n"
		"  --rules FILE  the rules file (default: ripple.yml at the "
		"repository's\n"
		"                root)\n"
		"  --no-drift    validate only; do not evaluate the checks\n"
		"  --json        the outcome as JSON on stdout (schema "
		"ripple-check-v1,\n"
		"                docs/schemas/check.json); nothing on stderr\n"
		"  --max-nodes N, --max-edges N\n"
		"                raise the graph's ceilings (100000 nodes, "
		"1000000 edges;\n"
		"                the rules' policy can only lower them; "
		"docs/rules.md)\n"
		"  -h, --help    show this help\n"
		"\n"
		"exit codes: 0 valid, 2 invalid rules, a check that fails, or "
		"usage,\n3 i/o error\n");
}

/*
 * Expand the rules into the graph, as plan and run will: a `where:` that
 * selects no instance, a toolkit expression naming no toolkit or a cycle
 * is found here rather than in CI, and every rule that fails to expand is
 * reported, not only the first. Every declared target must select a
 * node. Returns 0 or the exit code.
 */
static int
check_graph(struct check *ck, const struct rules *r)
{
	struct graph_limits limits;
	struct graph *g = NULL;
	struct error_list errors;
	struct error err;
	size_t i;
	int rc, bad = 0;

	cli_graph_limits(ck->ctx, &limits);
	error_list_init(&errors, CHECK_ERROR_LIMIT);
	rc = graph_build_errors(r, &limits, &g, &errors);
	check_found_errors(ck, r->file, &errors);
	error_list_release(&errors);
	if (rc)
		return cli_exit_for(rc);
	for (i = 0; i < r->n_targets; i++) {
		const char *name = r->targets[i].name;

		error_init(&err);
		if (!graph_select(g, &name, 1, NULL, NULL, &err))
			continue;
		if (!err.file[0]) {
			snprintf(err.file, sizeof(err.file), "%s", r->file);
			err.line = r->targets[i].pos.line;
			err.col = r->targets[i].pos.col;
		}
		check_found_error(ck, &err);
		bad = 1;
	}
	if (bad) {
		rc = CLI_USAGE;
	} else {
		rc = check_lint(ck, r, g);
	}
	graph_free(g);
	return rc;
}

/*
 * Evaluate the drift checks against the working tree of the repository
 * being checked: the one holding the current directory (-C DIR), as every
 * command finds it, or the current directory when it is in none; never
 * the rules file's own folder (--rules may name a file elsewhere).
 * Returns 0, or the exit code after reporting every problem.
 */
static int
run_drift(struct check *ck, const struct rules *r)
{
	struct graph_repo *repo = NULL;
	struct error_list errors;
	char root[4096];
	size_t i;
	int rc, code = CLI_USAGE;

	rc = cli_repo_root(ck->ctx, root, sizeof(root));
	if (rc < 0)
		return cli_exit_for(rc);
	error_list_init(&errors, CHECK_ERROR_LIMIT);
	rc = rules_drift_evaluate(r, root, &ck->n_ok, &errors);
	if (graph_repo_open(root, &repo, NULL) == 0) {
		size_t n_same = 0;
		int same = graph_same_content_evaluate(repo, r, &n_same,
						       &errors);

		rc = rc ? rc : same;
		ck->n_ok += n_same;
		graph_repo_close(repo);
	}
	ck->drift_done = 1;
	if (!rc) {
		error_list_release(&errors);
		return 0;
	}
	check_found_errors(ck, r->file, &errors);
	for (i = 0; i < errors.n; i++)
		if (errors.items[i].code == ERROR_IO ||
		    errors.items[i].code == ERROR_NOMEM ||
		    errors.items[i].code == ERROR_INTERNAL)
			code = CLI_ERROR;
	error_list_release(&errors);
	return code;
}

static void
count(size_t n, const char *one, const char *many, int *first)
{
	printf("%s%zu %s", *first ? "" : ", ", n, n == 1 ? one : many);
	*first = 0;
}

static void
print_summary(const struct check *ck, const char *file, const struct rules *r)
{
	int first = 1;

	printf("%s: ok: ", file);
	count(r->n_toolkits, "toolkit", "toolkits", &first);
	count(r->n_roots, "root", "roots", &first);
	count(r->n_sources, "source", "sources", &first);
	count(r->n_axes, "axis", "axes", &first);
	count(r->n_artifacts, "artifact", "artifacts", &first);
	count(r->n_tests, "test", "tests", &first);
	count(r->n_releases, "release", "releases", &first);
	count(r->n_targets, "target", "targets", &first);
	count(r->n_checks, "check", "checks", &first);
	if (ck->drift_done)
		printf(" (%zu agree)", ck->n_ok);
	printf("\n");
}

static json_t *
diags_json(const struct error_list *l, int with_code)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct error *e = &l->items[i];
		json_t *o = json_object();

		json_object_set_new(o, "file", e->file[0]
				    ? json_string(e->file) : json_null());
		json_object_set_new(o, "line", e->line
				    ? json_integer(e->line) : json_null());
		json_object_set_new(o, "col", e->col
				    ? json_integer(e->col) : json_null());
		json_object_set_new(o, "message", json_string(e->msg));
		json_object_set_new(o, "hint", e->hint[0]
				    ? json_string(e->hint) : json_null());
		json_object_set_new(o, "node", e->node[0]
				    ? json_string(e->node) : json_null());
		if (with_code)
			json_object_set_new(o, "code", json_string(
				error_code_name(e->code)));
		json_array_append_new(a, o);
	}
	return a;
}

/*
 * Print the ripple-check-v1 document (docs/schemas/check.json). Returns 0,
 * or the exit code after printing why it could not be printed.
 */
static int
print_json(const struct check *ck, const char *file, const struct rules *r,
	   int rc)
{
	json_t *doc = json_object(), *c = json_null();

	if (r) {
		c = json_object();
		json_object_set_new(c, "toolkits", json_integer(
			(json_int_t)r->n_toolkits));
		json_object_set_new(c, "roots", json_integer(
			(json_int_t)r->n_roots));
		json_object_set_new(c, "sources", json_integer(
			(json_int_t)r->n_sources));
		json_object_set_new(c, "axes", json_integer(
			(json_int_t)r->n_axes));
		json_object_set_new(c, "artifacts", json_integer(
			(json_int_t)r->n_artifacts));
		json_object_set_new(c, "tests", json_integer(
			(json_int_t)r->n_tests));
		json_object_set_new(c, "releases", json_integer(
			(json_int_t)r->n_releases));
		json_object_set_new(c, "targets", json_integer(
			(json_int_t)r->n_targets));
		json_object_set_new(c, "checks", json_integer(
			(json_int_t)r->n_checks));
	}
	json_object_set_new(doc, "schema", json_string("ripple-check-v1"));
	json_object_set_new(doc, "file", json_string(file));
	json_object_set_new(doc, "ok", json_boolean(rc == 0));
	json_object_set_new(doc, "counts", c);
	json_object_set_new(doc, "checks_agree", ck->drift_done
			    ? json_integer((json_int_t)ck->n_ok)
			    : json_null());
	json_object_set_new(doc, "errors", diags_json(&ck->errors, 1));
	json_object_set_new(doc, "errors_not_shown",
			    json_integer((json_int_t)ck->errors.dropped));
	json_object_set_new(doc, "warnings", diags_json(&ck->warnings, 0));
	return cli_print_json(ck->ctx, doc, JSON_INDENT(2));
}

/* Load, expand and drift-check; returns 0 or the exit code. */
static int
run_check(struct check *ck, const char *path, const char *file, int drift,
	  struct rules **r)
{
	struct error_list errors;
	char root[4096];
	int rc;

	rc = cli_repo_root(ck->ctx, root, sizeof(root));
	if (rc < 0)
		return cli_exit_for(rc);
	error_list_init(&errors, CHECK_ERROR_LIMIT);
	rc = rules_load_file(path, file, root, r, &errors);
	if (rc) {
		check_found_errors(ck, file, &errors);
		if (!errors.n && !errors.dropped) {
			struct error e;

			error_init(&e);
			error_set(&e, rc, "cannot load the rules");
			check_found_error(ck, &e);
		}
		error_list_release(&errors);
		return cli_exit_for(rc);
	}
	rc = graph_family_check_roots(*r, &errors);
	check_found_errors(ck, file, &errors);
	error_list_release(&errors);
	if (rc)
		return cli_exit_for(rc);
	rc = check_graph(ck, *r);
	if (!rc && drift && (*r)->n_checks)
		rc = run_drift(ck, *r);
	return rc;
}

int
cli_check(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "rules", required_argument, NULL, 'r' },
		{ "no-drift", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL;
	char path[4096];
	struct check ck;
	struct rules *r = NULL;
	int c, rc, drift = 1;

	memset(&ck, 0, sizeof(ck));
	ck.ctx = ctx;
	while ((c = cli_getopt(ctx, "check", argc, argv, "h", opts)) != -1) {
		switch (c) {
		case 'r':
			file = optarg;
			break;
		case 'n':
			drift = 0;
			break;
		case 'j':
			ck.json = 1;
			break;
		case 'h':
			help(stdout);
			return CLI_OK;
		default:
			return CLI_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error(ctx, "check", "unexpected argument '%s'",
				       argv[optind]);
	if (!file)
		cli_note_checked_rules(ctx);
	rc = cli_rules_path(ctx, file, path, sizeof(path), &file);
	if (rc)
		return cli_exit_for(rc);
	error_list_init(&ck.errors, CHECK_ERROR_LIMIT);
	error_list_init(&ck.warnings, CHECK_WARNING_LIMIT);
	rc = run_check(&ck, path, file, drift, &r);
	if (ck.json) {
		int prc = print_json(&ck, file, r, rc);

		if (prc && !rc)
			rc = prc;
	} else if (!rc)
		print_summary(&ck, file, r);
	rules_free(r);
	error_list_release(&ck.errors);
	error_list_release(&ck.warnings);
	return rc;
}
