/*
 * `ripple version ROOT [--rev REV] [--worktree] [--json] [--rules FILE]`:
 * a root's version from git tags (graph/version.h), as text or JSON. Reads
 * SOURCE_DATE_EPOCH for the date of a dirty tree.
 */
#include "engine/cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "graph/repo.h"
#include "graph/restore.h"
#include "base/spell.h"
#include "graph/family.h"
#include "graph/version.h"
#include "rules/rules.h"
#include "base/banned.h"

static void
help(FILE *f)
{
	fprintf(f,
		"usage: ripple version ROOT [--rev REV] [--worktree] [--json] "
		"[--rules FILE]\n"
		"\n"
		"Print the version of package root ROOT at REV, computed from "
		"the root's\ntag family as setuptools-scm does by default "
		"(guess-next-dev,\nnode-and-date), or from its fallback "
		"version when no tag is reachable.\n"
		"\n"
		"options:\n"
		"  --rev REV     the revision (default: HEAD)\n"
		"  --worktree    count tracked changes in the working tree "
		"(dirty: .dYYYYMMDD\n"
		"                from SOURCE_DATE_EPOCH, else today, UTC); "
		"REV must be HEAD\n"
		"  --json        print {root, version, tag, distance, node, "
		"dirty, source}\n"
		"  --rules FILE  the rules file (default: ripple.yml of REV's "
		"tree, or of\n"
		"                the working tree without --rev)\n"
		"  -h, --help    show this help\n"
		"\n"
		"exit codes: 0 ok, 2 unknown root, invalid rules or tags, "
		"3 git or i/o error\n");
}

/*
 * The rules file `file` (relative to ctx->dir), its matrix files under
 * the repository's working tree (the folder '.' of a bare one).
 */
static int
load_rules(const struct cli_ctx *ctx, struct graph_repo *repo,
	   const char *file, struct rules **r)
{
	struct error_list errors;
	char path[4096];
	const char *root;
	size_t i;
	int rc, n;

	if (file[0] == '/' || !strcmp(ctx->dir, "."))
		n = snprintf(path, sizeof(path), "%s", file);
	else
		n = snprintf(path, sizeof(path), "%s/%s", ctx->dir, file);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		struct error e;

		error_init(&e);
		error_set(&e, ERROR_INVALID, "rules path '%s' is too long",
			  file);
		cli_print_error(ctx, &e);
		return ERROR_INVALID;
	}
	/* As cli_repo_root says, from the repository already open. */
	root = graph_repo_is_bare(repo) ? "." : graph_repo_root(repo);
	error_list_init(&errors, 20);
	rc = rules_load_file(path, file, root, r, &errors);
	if (rc) {
		for (i = 0; i < errors.n; i++)
			cli_print_error(ctx, &errors.items[i]);
		if (!errors.n) {
			struct error e;

			error_init(&e);
			error_set(&e, rc, "cannot load the rules");
			cli_print_error(ctx, &e);
		}
	}
	error_list_release(&errors);
	return rc;
}

/* The rules of REV's tree: a root's tags and fallback are of that commit. */
static int
load_rules_at(const struct cli_ctx *ctx, struct graph_repo *repo,
	      const char *rev, struct rules **r)
{
	struct error_list errors;
	struct graph_oid oid;
	struct error err;
	struct buf text;
	char display[300];
	size_t i;
	int rc;

	error_init(&err);
	buf_init(&text, 0);
	rc = graph_repo_resolve(repo, rev, &oid, &err);
	if (!rc)
		rc = graph_repo_read_blob(repo, &oid, "ripple.yml", &text, &err);
	if (rc) {
		if (rc == ERROR_NOT_FOUND && !err.hint[0])
			error_hint(&err, "pass --rules FILE to use another "
					 "rules file");
		cli_print_error(ctx, &err);
		buf_release(&text);
		return rc;
	}
	snprintf(display, sizeof(display), "ripple.yml@%s", rev);
	error_list_init(&errors, 20);
	{
		struct graph_commit_files cf = { repo, &oid };
		struct rules_files files = { graph_commit_file_read, &cf,
					      NULL };

		rc = rules_load_buffer_files(display, text.data, text.len,
					     &files, r, &errors);
	}
	for (i = 0; i < errors.n; i++)
		cli_print_error(ctx, &errors.items[i]);
	error_list_release(&errors);
	buf_release(&text);
	return rc;
}

/* A root whose line cannot be right has no version (graph/family.h). */
static int
check_families(const struct cli_ctx *ctx, const struct rules *r)
{
	struct error_list errors;
	size_t i;
	int rc;

	error_list_init(&errors, 20);
	rc = graph_family_check_roots(r, &errors);
	for (i = 0; i < errors.n; i++)
		cli_print_error(ctx, &errors.items[i]);
	error_list_release(&errors);
	return rc;
}

static int
unknown_root(const struct cli_ctx *ctx, const struct rules *r,
	     const char *name)
{
	const char *names[256];
	const char *s;
	size_t i, n = r->n_roots < 256 ? r->n_roots : 256;
	struct error e;

	for (i = 0; i < n; i++)
		names[i] = r->roots[i].name;
	error_init(&e);
	error_set(&e, ERROR_NOT_FOUND, "unknown root '%s'", name);
	s = spell_suggest(name, names, n);
	if (s)
		error_hint(&e, "did you mean '%s'?", s);
	else if (n)
		error_hint(&e, "the rules declare %zu root%s, e.g. '%s'", n,
			   n == 1 ? "" : "s", names[0]);
	cli_print_error(ctx, &e);
	return CLI_USAGE;
}

static int
print_json(const struct cli_ctx *ctx, const char *root,
	   const struct version_result *res)
{
	json_t *o = json_object();

	if (!o)
		return cli_print_json(ctx, NULL, 0);
	json_object_set_new(o, "root", json_string(root));
	json_object_set_new(o, "version", json_string(res->version));
	json_object_set_new(o, "tag",
			    res->tag ? json_string(res->tag) : json_null());
	json_object_set_new(o, "distance", json_integer((json_int_t)res->distance));
	json_object_set_new(o, "node", json_string(res->node));
	json_object_set_new(o, "commit", json_string(res->commit));
	json_object_set_new(o, "dirty", json_boolean(res->dirty));
	json_object_set_new(o, "source",
			    json_string(version_source_name(res->source)));
	return cli_print_json(ctx, o, JSON_INDENT(2));
}

int
cli_version(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "rev", required_argument, NULL, 'r' },
		{ "worktree", no_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "rules", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *rev = NULL, *file = NULL, *name;
	const struct rules_root *root;
	struct version_params p;
	struct version_result res;
	struct rules *r = NULL;
	struct graph_repo *repo = NULL;
	struct error err;
	int c, json = 0, worktree = 0, rc, out = CLI_OK;
	size_t i;

	while ((c = cli_getopt(ctx, "version", argc, argv, "h", opts)) != -1) {
		switch (c) {
		case 'r':
			rev = optarg;
			break;
		case 'w':
			worktree = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'R':
			file = optarg;
			break;
		case 'h':
			help(stdout);
			return CLI_OK;
		default:
			return CLI_USAGE;
		}
	}
	if (optind >= argc)
		return cli_usage_error(ctx, "version", "missing ROOT");
	if (optind + 1 < argc)
		return cli_usage_error(ctx, "version",
				       "unexpected argument '%s'",
				       argv[optind + 1]);
	name = argv[optind];
	error_init(&err);
	rc = graph_repo_open(ctx->dir, &repo, &err);
	if (rc) {
		cli_print_error(ctx, &err);
		return cli_exit_for(rc);
	}
	if (file) {
		rc = load_rules(ctx, repo, file, &r);
	} else if (rev && !worktree) {
		rc = load_rules_at(ctx, repo, rev, &r);
	} else {
		struct buf path = BUF_INIT;

		rc = buf_addf(&path, NULL, "%s/ripple.yml",
			      graph_repo_root(repo));
		if (!rc)
			rc = load_rules(ctx, repo, path.data, &r);
		buf_release(&path);
	}
	if (rc) {
		out = cli_exit_for(rc);
		goto done;
	}
	rc = check_families(ctx, r);
	if (rc) {
		out = cli_exit_for(rc);
		goto done;
	}
	root = rules_find_root(r, name);
	if (!root) {
		out = unknown_root(ctx, r, name);
		goto done;
	}
	version_params_from_root(root, &p);
	p.regex_file = r->file;
	p.worktree = worktree;
	if (worktree && cli_date_epoch(ctx, &p.date_epoch) < 0) {
		out = CLI_USAGE;
		goto done;
	}
	error_init(&err);
	rc = version_compute_root_at(repo, rev, &p, &res, &err);
	for (i = 0; !rc && i < res.skipped.n; i++)
		fprintf(stderr, "warning: ignoring broken ref %s\n",
			res.skipped.v[i]);
	if (rc) {
		error_node(&err, name);
		cli_print_error(ctx, &err);
		out = cli_exit_for(rc);
		goto done;
	}
	if (json)
		out = print_json(ctx, name, &res);
	else
		printf("%s\n", res.version);
	version_result_release(&res);
done:
	graph_repo_close(repo);
	rules_free(r);
	return out;
}
