/*
 * `ripple check [--rules FILE]`: load and validate the rules, print a
 * summary of what they declare, or every error found.
 */
#include "engine/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "rules/rules.h"
#include "base/banned.h"

#define CHECK_ERROR_LIMIT 50

static void
help(FILE *f)
{
	fprintf(f,
		"usage: ripple check [--rules FILE]\n"
		"\n"
		"Load and validate the rules file: print a summary of what it "
		"declares,\nor every error found as FILE:LINE:COL: error: "
		"MESSAGE.\n"
		"\n"
		"options:\n"
		"  --rules FILE  the rules file (default: ripple.yml in the -C "
		"directory)\n"
		"  -h, --help    show this help\n"
		"\n"
		"exit codes: 0 valid, 2 invalid rules or usage, 3 i/o error\n");
}

static void
count(size_t n, const char *one, const char *many, int *first)
{
	printf("%s%zu %s", *first ? "" : ", ", n, n == 1 ? one : many);
	*first = 0;
}

int
cli_check(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "rules", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL;
	char path[4096];
	struct error_list errors;
	struct rules *r = NULL;
	size_t i;
	int c, rc, first = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			file = optarg;
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
		for (i = 0; i < errors.n; i++)
			cli_print_error(ctx, &errors.items[i]);
		if (errors.dropped)
			fprintf(stderr, "%s: %zu more error%s not shown\n", file,
				errors.dropped, errors.dropped == 1 ? "" : "s");
		if (!errors.n && !errors.dropped) {
			struct error e;

			error_init(&e);
			error_set(&e, rc, "cannot load the rules");
			cli_print_error(ctx, &e);
		}
		error_list_release(&errors);
		return cli_exit_for(rc);
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
	printf("\n");
	rules_free(r);
	error_list_release(&errors);
	return CLI_OK;
}
