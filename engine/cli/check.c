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
#include "graph/graph.h"
#include "rules/drift.h"
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
		"repository that\nholds the current directory (-C DIR; the "
		"directory itself when it is\nin none): print a summary of "
		"what the rules declare, or every error\nand disagreement "
		"found as FILE:LINE:COL: error: MESSAGE.\n"
		"\n"
		"options:\n"
		"  --rules FILE  the rules file (default: ripple.yml at the "
		"repository's\n"
		"                root)\n"
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
 * node. Prints the errors; returns 0 or the exit code.
 */
struct out_ref {
	const char *pattern;
	const struct graph_node *node;
};

static int
cmp_out(const void *a, const void *b)
{
	const struct out_ref *x = a, *y = b;
	int c = strcmp(x->pattern, y->pattern);

	return c ? c : strcmp(x->node->id, y->node->id);
}

/*
 * Two nodes declaring one output pattern overwrite and delete each other's
 * files on one runner (a run removes a node's stale outputs before it
 * starts, and each records the other's files too). A warning, not an
 * error: nodes of different platforms run on different runners.
 */
static int
check_outputs(const struct cli_ctx *ctx, const struct rules *r,
	      const struct graph *g)
{
	struct out_ref *v;
	size_t i, k, n = 0, cap = 0, shown = 0;

	for (i = 0; i < g->n_nodes; i++)
		cap += g->nodes[i].n_outputs;
	v = mem_calloc(cap + 1, sizeof(*v));
	if (!v)
		return CLI_ERROR;
	for (i = 0; i < g->n_nodes; i++)
		for (k = 0; k < g->nodes[i].n_outputs; k++) {
			v[n].pattern = g->nodes[i].outputs[k];
			v[n++].node = &g->nodes[i];
		}
	qsort(v, n, sizeof(*v), cmp_out);
	for (i = 1; i < n; i++) {
		const char *pa, *pb;

		if (strcmp(v[i - 1].pattern, v[i].pattern) ||
		    v[i - 1].node == v[i].node)
			continue;
		pa = graph_node_axis(v[i - 1].node, "platform");
		pb = graph_node_axis(v[i].node, "platform");
		if (pa && pb && strcmp(pa, pb))
			continue;	/* never on one runner */
		if (shown++ >= 10)
			continue;
		fprintf(stderr, "%s:%u:%u: warning: output '%s' of %s is also "
			"declared by %s\n  hint: each node needs its own output "
			"paths: put its axes in them, e.g. out/${python}/\n",
			r->file, v[i].node->rule->pos.line,
			v[i].node->rule->pos.col, v[i].pattern, v[i].node->id,
			v[i - 1].node->id);
	}
	if (shown > 10)
		fprintf(stderr, "%s: %zu more shared outputs not shown\n",
			r->file, shown - 10);
	mem_free(v);
	(void)ctx;
	return 0;
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
	if (!bad)
		check_outputs(ctx, r, g);
	graph_free(g);
	return bad ? CLI_USAGE : 0;
}

/*
 * Evaluate the drift checks against the working tree of the repository
 * being checked: the one holding the current directory (-C DIR), as every
 * command finds it, or the current directory when it is in none; never
 * the rules file's own folder (--rules may name a file elsewhere).
 * Returns 0, or the exit code after printing every problem.
 */
static int
run_drift(const struct cli_ctx *ctx, const struct rules *r,
	  struct error_list *errors, size_t *n_ok)
{
	char root[4096];
	size_t i;
	int rc, code = CLI_USAGE;

	rc = cli_repo_root(ctx, root, sizeof(root));
	if (rc < 0)
		return cli_exit_for(rc);
	rc = rules_drift_evaluate(r, root, n_ok, errors);
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

	while ((c = cli_getopt(ctx, "check", argc, argv, "h", opts)) != -1) {
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
			return CLI_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error(ctx, "check", "unexpected argument '%s'",
				       argv[optind]);
	rc = cli_rules_path(ctx, file, path, sizeof(path), &file);
	if (rc)
		return cli_exit_for(rc);
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
	rc = check_graph(ctx, r);
	if (rc) {
		rules_free(r);
		error_list_release(&errors);
		return rc;
	}
	if (drift && r->n_checks) {
		rc = run_drift(ctx, r, &errors, &n_ok);
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
