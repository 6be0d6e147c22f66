/*
 * `ripple check [--rules FILE] [--no-drift]`: load and validate the rules,
 * evaluate their drift checks against the working tree, print a summary of
 * what they declare, or every error found.
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "graph/repo.h"
#include "graph/graph.h"
#include "graph/outputs.h"
#include "rules/drift.h"
#include "graph/family.h"
#include "graph/same.h"
#include "rules/rules.h"
#include "base/banned.h"

#define CHECK_ERROR_LIMIT 50

static void
help(FILE *f)
{
	fprintf(f,
		"usage: ripple check [--rules FILE] [--no-drift]\n"
		"\n"
		"Load and validate the rules file, then evaluate its drift "
		"checks\n(`checks:`) against the working tree of the git "
		"repository that\nholds the rules file (its folder when it is "
		"in none): print a summary\nof what the rules declare, or every "
		"error and disagreement found as\nFILE:LINE:COL: error: "
		"MESSAGE.\n"
		"\n"
		"options:\n"
		"  --rules FILE  the rules file (default: ripple.yml in the -C "
		"directory)\n"
		"  --no-drift    validate only; do not evaluate the checks\n"
		"  -h, --help    show this help\n"
		"\n"
		"exit codes: 0 valid, 2 invalid rules, a check that fails, or "
		"usage,\n3 i/o error\n");
}

static void
count(size_t n, const char *one, const char *many, int *first)
{
	printf("%s%zu %s", *first ? "" : ", ", n, n == 1 ? one : many);
	*first = 0;
}

static void
print_errors(const struct cli_ctx *ctx, const char *file,
	     const struct error_list *errors)
{
	size_t i;

	for (i = 0; i < errors->n; i++)
		cli_print_error(ctx, &errors->items[i]);
	if (errors->dropped)
		fprintf(stderr, "%s: %zu more error%s not shown\n", file,
			errors->dropped, errors->dropped == 1 ? "" : "s");
}

/*
 * Expand the rules into the graph, as plan and run will: a `where:` that
 * selects no instance, a toolkit expression naming no toolkit or a cycle
 * is found here rather than in CI. Every declared target must select a
 * node, and no two nodes of one runner may declare outputs that can match
 * the same file (graph/outputs.h). Prints the errors; returns 0 or the
 * exit code.
 */
static int
check_outputs(const struct cli_ctx *ctx, const struct rules *r,
	      const struct graph *g)
{
	struct error_list errors;
	int rc;

	error_list_init(&errors, 10);
	rc = graph_outputs_check(g, &errors);
	print_errors(ctx, r->file, &errors);
	error_list_release(&errors);
	if (!rc)
		return 0;
	return rc == ERROR_INVALID ? CLI_USAGE : CLI_ERROR;
}

static int
check_graph(const struct cli_ctx *ctx, const struct rules *r)
{
	struct graph *g = NULL;
	struct error err;
	size_t i;
	int rc, bad = 0;

	error_init(&err);
	rc = graph_build(r, &g, &err);
	if (rc) {
		cli_print_error(ctx, &err);
		return cli_exit_for(rc);
	}
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
		cli_print_error(ctx, &err);
		bad = 1;
	}
	rc = bad ? CLI_USAGE : check_outputs(ctx, r, g);
	graph_free(g);
	return rc;
}

/*
 * Evaluate the drift checks against the working tree of the repository
 * holding `path`'s folder (that folder when it is in no repository).
 * Returns 0, or the exit code after printing every problem.
 */
static int
run_drift(const struct cli_ctx *ctx, const struct rules *r, const char *path,
	  struct error_list *errors, size_t *n_ok)
{
	struct graph_repo *repo = NULL;
	struct error err;
	char dir[4096];
	const char *slash = strrchr(path, '/'), *root;
	size_t i;
	int rc, code = CLI_USAGE;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	error_init(&err);
	rc = graph_repo_open(dir, &repo, &err);
	if (rc && rc != ERROR_NOT_FOUND) {
		cli_print_error(ctx, &err);
		return cli_exit_for(rc);
	}
	root = repo ? graph_repo_root(repo) : dir;
	rc = rules_drift_evaluate(r, root, n_ok, errors);
	if (repo) {
		size_t n_same = 0;
		int same = graph_same_content_evaluate(repo, r, &n_same,
						       errors);

		rc = rc ? rc : same;
		*n_ok += n_same;
	}
	graph_repo_close(repo);
	if (!rc)
		return 0;
	print_errors(ctx, r->file, errors);
	for (i = 0; i < errors->n; i++)
		if (errors->items[i].code == ERROR_IO ||
		    errors->items[i].code == ERROR_NOMEM ||
		    errors->items[i].code == ERROR_INTERNAL)
			code = CLI_ERROR;
	return code;
}

int
cli_check(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "rules", required_argument, NULL, 'r' },
		{ "no-drift", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL;
	char path[4096];
	struct error_list errors;
	struct rules *r = NULL;
	size_t n_ok = 0;
	int c, rc, first = 1, drift = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			file = optarg;
			break;
		case 'n':
			drift = 0;
			break;
		case 'h':
			help(stdout);
			return CLI_OK;
		default:
			return cli_usage_error(ctx, "check", "unknown option");
		}
	}
	if (optind < argc)
		return cli_usage_error(ctx, "check", "unexpected argument '%s'",
				       argv[optind]);
	if (!file)
		file = "ripple.yml";
	if (file[0] == '/' || !strcmp(ctx->dir, "."))
		snprintf(path, sizeof(path), "%s", file);
	else
		snprintf(path, sizeof(path), "%s/%s", ctx->dir, file);
	error_list_init(&errors, CHECK_ERROR_LIMIT);
	rc = rules_load_file(path, file, &r, &errors);
	if (rc) {
		print_errors(ctx, file, &errors);
		if (!errors.n && !errors.dropped) {
			struct error e;

			error_init(&e);
			error_set(&e, rc, "cannot load the rules");
			cli_print_error(ctx, &e);
		}
		error_list_release(&errors);
		return cli_exit_for(rc);
	}
	rc = graph_family_check_roots(r, &errors);
	if (rc) {
		print_errors(ctx, file, &errors);
		rules_free(r);
		error_list_release(&errors);
		return cli_exit_for(rc);
	}
	rc = check_graph(ctx, r);
	if (rc) {
		rules_free(r);
		error_list_release(&errors);
		return rc;
	}
	if (drift && r->n_checks) {
		rc = run_drift(ctx, r, path, &errors, &n_ok);
		if (rc) {
			rules_free(r);
			error_list_release(&errors);
			return rc;
		}
	}
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
	if (drift && r->n_checks)
		printf(" (%zu agree)", n_ok);
	printf("\n");
	rules_free(r);
	error_list_release(&errors);
	return CLI_OK;
}
