/*
 * `ripple roots [--json] [--rev REV] [--rules FILE]`: the roots of the
 * rules in file order with their path, role, toolkit (name, pin, major,
 * minor, home) and tag family, for CI steps outside `ripple run` (the
 * toolkit to install before a build, the package root) that should not
 * parse ripple.yml themselves.
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "engine/plan/eval.h"
#include "graph/repo.h"
#include "rules/rules.h"
#include "base/banned.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: ripple roots [--json] [--rev REV] [--rules FILE]\n"
		"\n"
		"List the package roots in file order: name, path, role, "
		"toolkit and pin,\nmajor and minor, tag family and version "
		"source.\n"
		"\n"
		"  --json        JSON on stdout (sorted keys; docs/rules.md)\n"
		"  --rev REV     the rules of REV's tree (default: the working "
		"tree's)\n"
		"  --rules FILE  the rules file\n"
		"\n"
		"exit: 0 listed, 2 usage or invalid rules, 3 error\n");
}

static const char *const source_names[] = { "tags", "file", "file+tags" };

static json_t *
str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *
strings(const char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *
toolkit_json(const struct rules_toolkit *t)
{
	char home[64];

	if (!t)
		return json_null();
	snprintf(home, sizeof(home), "/usr/local/cuda-%u.%u", t->major,
		 t->minor);
	return json_pack("{s:s, s:s, s:i, s:i, s:o, s:s}", "name", t->name,
			 "version", t->version, "major", (int)t->major,
			 "minor", (int)t->minor, "patch", t->has_patch
			 ? json_integer((json_int_t)t->patch) : json_null(),
			 "home", t->home ? t->home : home);
}

static const char *
role_name(enum rules_role role)
{
	return role == RULES_ROLE_CURRENT ? "current"
		: role == RULES_ROLE_MAINTENANCE ? "maintenance" : NULL;
}

static json_t *
root_json(const struct rules *r, const struct rules_root *root)
{
	const struct rules_toolkit *t = root->toolkit
		? rules_find_toolkit(r, root->toolkit) : NULL;

	return json_pack(
		"{s:s, s:s, s:o, s:o, s:{s:o, s:o, s:o, s:s, s:o}, s:s, s:o, "
		"s:o}", "name", root->name, "path", root->path,
		"role", str_or_null(role_name(root->role)),
		"toolkit", toolkit_json(t),
		"tags", "patterns", strings(root->tags, root->n_tags),
		"exclude", strings(root->exclude_tags, root->n_exclude_tags),
		"prefix", str_or_null(root->tag_prefix),
		"spelling", root->tag_spelling == RULES_TAG_SPELLING_ZERO_PADDED
			? "zero-padded" : "pep440",
		"regex", str_or_null(root->tag_regex),
		"version_source", source_names[root->version_source],
		"version_file", str_or_null(root->version_file),
		"fallback_version", str_or_null(root->fallback_version));
}

static int
print_json(const struct cli_ctx *ctx, const struct rules *r)
{
	json_t *arr = json_array(), *doc;
	size_t i;

	for (i = 0; arr && i < r->n_roots; i++)
		json_array_append_new(arr, root_json(r, &r->roots[i]));
	doc = json_pack("{s:o, s:s}", "roots", arr, "schema",
			"ripple-roots-v1");
	return cli_print_json(ctx, doc, JSON_INDENT(2));
}

static void
print_text(const struct rules *r)
{
	size_t i, k;

	for (i = 0; i < r->n_roots; i++) {
		const struct rules_root *root = &r->roots[i];
		const struct rules_toolkit *t = root->toolkit
			? rules_find_toolkit(r, root->toolkit) : NULL;
		const char *role = role_name(root->role);

		printf("%s  %s  %s  ", root->name, root->path,
		       role ? role : "-");
		if (t)
			printf("%s=%s", t->name, t->version);
		else
			printf("-");
		printf("  ");
		for (k = 0; k < root->n_tags; k++)
			printf("%s%s", k ? "," : "", root->tags[k]);
		printf("%s  %s%s%s\n", root->n_tags ? "" : "-",
		       source_names[root->version_source],
		       root->version_file ? ":" : "",
		       root->version_file ? root->version_file : "");
	}
}

int
cli_roots(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "rev", required_argument, NULL, 'r' },
		{ "rules", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *rev = NULL, *file = NULL;
	struct graph_repo *repo = NULL;
	struct eval *ev = NULL;
	int c, json = 0, code;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'r': rev = optarg; break;
		case 'R': file = optarg; break;
		case 'h': usage(stdout); return CLI_OK;
		default: return cli_usage_error(ctx, "roots", "unknown option");
		}
	}
	if (optind < argc)
		return cli_usage_error(ctx, "roots", "unexpected argument '%s'",
				       argv[optind]);
	code = cli_open_eval(ctx, rev, !rev, file, &repo, &ev);
	if (code)
		goto done;
	if (json) {
		code = print_json(ctx, ev->rules);
	} else {
		print_text(ev->rules);
		code = CLI_OK;
	}
done:
	eval_free(ev);
	graph_repo_close(repo);
	return code;
}
