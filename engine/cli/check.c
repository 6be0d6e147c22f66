/*
 * `ripple check [--rules FILE] [--no-drift] [--json]`: load and validate
 * the rules, expand them as plans will, warn about what is valid but
 * likely wrong (shared outputs, unused source sets, a source set that
 * claims every path), evaluate the drift checks against the working tree,
 * and print a summary, or every error found; with --json, all of it as
 * one document on stdout (schema ripple-check-v1).
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <stdarg.h>
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

static void
found_error(struct check *ck, const struct error *e)
{
	if (ck->json)
		error_list_add(&ck->errors, e);
	else
		cli_print_error(ck->ctx, e);
}

/* A warning at the rules file's pos, with a hint. */
static void
found_warning(struct check *ck, const struct rules *r, struct rules_pos pos,
	      const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void
found_warning(struct check *ck, const struct rules *r, struct rules_pos pos,
	      const char *hint, const char *fmt, ...)
{
	struct error w;
	va_list ap;

	error_init(&w);
	w.code = ERROR_INVALID;
	snprintf(w.file, sizeof(w.file), "%s", r->file);
	w.line = pos.line;
	w.col = pos.col;
	va_start(ap, fmt);
	vsnprintf(w.msg, sizeof(w.msg), fmt, ap);
	va_end(ap);
	snprintf(w.hint, sizeof(w.hint), "%s", hint ? hint : "");
	if (ck->json)
		error_list_add(&ck->warnings, &w);
	else
		cli_print_warning(ck->ctx, &w);
}

static void
found_errors(struct check *ck, const char *file,
	     const struct error_list *errors)
{
	size_t i;

	for (i = 0; i < errors->n; i++)
		found_error(ck, &errors->items[i]);
	if (ck->json)
		ck->errors.dropped += errors->dropped;
	else if (errors->dropped)
		fprintf(stderr, "%s: %zu more error%s not shown\n", file,
			errors->dropped, errors->dropped == 1 ? "" : "s");
}

/*
 * No two nodes of one runner may declare outputs that can match the same
 * file (graph/outputs.h): they would overwrite and delete each other's
 * files. Reports each pair as an error; returns 0 or the exit code.
 */
static int
check_outputs(struct check *ck, const struct rules *r, const struct graph *g)
{
	struct error_list errors;
	int rc;

	error_list_init(&errors, CHECK_ERROR_LIMIT);
	rc = graph_outputs_check(g, &errors);
	found_errors(ck, r->file, &errors);
	error_list_release(&errors);
	if (!rc)
		return 0;
	return rc == ERROR_INVALID ? CLI_USAGE : CLI_ERROR;
}

/* The input `name` ("source:NAME", ...) of some node of g, or NULL. */
static const struct graph_input *
find_input(const struct graph *g, const char *name)
{
	size_t i, k;

	for (i = 0; i < g->n_nodes; i++)
		for (k = 0; k < g->nodes[i].n_inputs; k++)
			if (!strcmp(g->nodes[i].inputs[k].name, name))
				return &g->nodes[i].inputs[k];
	return NULL;
}

/*
 * A pattern that claims every path: it matches paths of every shape (a
 * top-level file, a hidden folder's file, a deep path). A lone `**`, and
 * `*` (unanchored: any depth), do; a folder's pattern does not.
 */
static int
claims_everything(const char *pattern)
{
	static const char *const probes[] = {
		"ripple-probe", ".probe/x", "p/r/o/b/e.txt", "Probe Dir/y",
	};
	size_t i;

	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		if (!pattern_match(pattern, probes[i]))
			return 0;
	return 1;
}

/*
 * Source sets and unclaimed paths (docs/rules.md "policy"): a path no used
 * input claims is unclaimed, and under `unclaimed-paths: rebuild-all` a
 * change to it rebuilds everything. So a source set no rule uses leaves
 * its paths unclaimed, and a used set that claims every path means no
 * change is ever unclaimed: the fallback is silently off.
 */
static void
check_sources(struct check *ck, const struct rules *r, const struct graph *g)
{
	int rebuild_all = r->policy.unclaimed_paths ==
			  RULES_UNCLAIMED_REBUILD_ALL;
	char name[512];
	size_t i, k;

	for (i = 0; i < r->n_sources; i++) {
		const struct rules_source *s = &r->sources[i];

		snprintf(name, sizeof(name), "source:%s", s->name);
		if (!find_input(g, name)) {
			found_warning(ck, r, s->pos,
				      "add it to a rule's inputs: or needs:, "
				      "or delete it",
				      "source '%s' is used by no rule: its "
				      "paths are unclaimed%s", s->name,
				      rebuild_all ? ", so a change there "
				      "rebuilds everything (policy "
				      "unclaimed-paths: rebuild-all)" : "");
			continue;
		}
		for (k = 0; rebuild_all && k < s->n_paths; k++) {
			if (!claims_everything(s->paths[k]))
				continue;
			found_warning(ck, r, s->pos,
				      "list the folders it needs, or say so "
				      "with policy: {unclaimed-paths: "
				      "ignore}",
				      "source '%s' claims every path ('%s'): "
				      "no change is ever unclaimed, so policy "
				      "unclaimed-paths: rebuild-all never "
				      "applies", s->name, s->paths[k]);
			break;
		}
	}
	for (i = 0; rebuild_all && i < r->n_roots; i++) {
		const struct rules_root *rt = &r->roots[i];
		const struct graph_input *in;

		snprintf(name, sizeof(name), "root.sources:%s", rt->name);
		in = find_input(g, name);
		if (!in || !in->n_include ||
		    !claims_everything(in->include[0]))
			continue;
		found_warning(ck, r, rt->pos,
			      "give the root its own folder, or say so with "
			      "policy: {unclaimed-paths: ignore}",
			      "root '%s' is at '%s': its root.sources claim "
			      "every path, so policy unclaimed-paths: "
			      "rebuild-all never applies", rt->name,
			      rt->path);
	}
}

/* Is node `dep` among n's direct dependencies? */
static int
has_dep(const struct graph_node *n, size_t dep)
{
	size_t k;

	for (k = 0; k < n->n_deps; k++)
		if (n->deps[k] == dep)
			return 1;
	return 0;
}

/*
 * Early cutoff and what a test installs (issue 25): a test is reused when
 * the artifacts it needs have the same output digests. A test that needs
 * artifact A, where A needs artifact B, installs B too when B is A's
 * runtime dependency (a wheel and the library wheel it links); if B
 * changes while A's files do not, the test is reused though it would
 * install another B. Visible in the rules where A and B are packages of
 * two roots; warn once per test rule and pair, at the test.
 */
static void
check_test_needs(struct check *ck, const struct rules *r,
		 const struct graph *g)
{
	struct strv seen = STRV_INIT;
	char key[600];
	size_t i, k, m;

	for (i = 0; i < g->n_nodes; i++) {
		const struct graph_node *t = &g->nodes[i];

		if (t->kind != GRAPH_NODE_TEST || !t->rule)
			continue;
		for (k = 0; k < t->n_deps; k++) {
			const struct graph_node *a = &g->nodes[t->deps[k]];

			if (a->kind != GRAPH_NODE_ARTIFACT)
				continue;
			for (m = 0; m < a->n_deps; m++) {
				const struct graph_node *b =
					&g->nodes[a->deps[m]];

				/* Another root's package is a runtime
				 * dependency; one of A's own root is a
				 * part A was made from (core's variants). */
				if (b->kind != GRAPH_NODE_ARTIFACT ||
				    has_dep(t, a->deps[m]) || !a->root ||
				    !b->root || a->root == b->root)
					continue;
				snprintf(key, sizeof(key), "%s|%s|%s",
					 t->name, a->name, b->name);
				if (strv_find(&seen, key) >= 0 ||
				    strv_push(&seen, key, NULL))
					continue;
				found_warning(ck, r, t->rule->pos,
					      "add it to the test's needs: "
					      "if the test installs it",
					      "test '%s' needs '%s', which "
					      "needs '%s': early cutoff reuses "
					      "the test when %s's files are "
					      "unchanged, even if %s changed",
					      t->name, a->name, b->name,
					      a->name, b->name);
			}
		}
	}
	strv_release(&seen);
}

/*
 * A container image named by tag only ("rapidsai/ci-conda:26.06") is keyed
 * as text: the tag may move to other bytes without the key changing. One
 * warning per rule, naming its first such image.
 */
static void
check_containers(struct check *ck, const struct rules *r,
		 const struct graph *g)
{
	size_t nr = r->n_artifacts + r->n_tests, i, k;
	long *first = mem_alloc((nr + 1) * sizeof(*first));

	for (k = 0; first && k < nr; k++)
		first[k] = -1;
	for (i = 0; first && i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];

		if (!n->container_image ||
		    graph_image_pinned(n->container_image))
			continue;
		k = n->kind == GRAPH_NODE_TEST
			? r->n_artifacts + (size_t)(n->rule - r->tests)
			: (size_t)(n->rule - r->artifacts);
		if (first[k] < 0)
			first[k] = (long)i;
	}
	/* In file order: artifacts, then tests. */
	for (k = 0; first && k < nr; k++) {
		const struct graph_node *n;

		if (first[k] < 0)
			continue;
		n = &g->nodes[first[k]];
		found_warning(ck, r, n->rule->container.pos,
			      "pin it by digest (IMAGE@sha256:...) so the key "
			      "names the bytes",
			      "%s '%s': container image '%s' is a tag, which "
			      "can move: it is keyed as text",
			      n->kind == GRAPH_NODE_TEST ? "test" : "artifact",
			      n->name, n->container_image);
	}
	mem_free(first);
}

/*
 * Expand the rules into the graph, as plan and run will: a `where:` that
 * selects no instance, a toolkit expression naming no toolkit or a cycle
 * is found here rather than in CI. Every declared target must select a
 * node. Returns 0 or the exit code.
 */
static int
check_graph(struct check *ck, const struct rules *r)
{
	struct graph_limits limits;
	struct graph *g = NULL;
	struct error err;
	size_t i;
	int rc, bad = 0;

	error_init(&err);
	cli_graph_limits(ck->ctx, &limits);
	rc = graph_build_limited(r, &limits, &g, &err);
	if (rc) {
		found_error(ck, &err);
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
		found_error(ck, &err);
		bad = 1;
	}
	if (bad) {
		rc = CLI_USAGE;
	} else {
		check_sources(ck, r, g);
		check_test_needs(ck, r, g);
		check_containers(ck, r, g);
		rc = check_outputs(ck, r, g);
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
	found_errors(ck, r->file, &errors);
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
		found_errors(ck, file, &errors);
		if (!errors.n && !errors.dropped) {
			struct error e;

			error_init(&e);
			error_set(&e, rc, "cannot load the rules");
			found_error(ck, &e);
		}
		error_list_release(&errors);
		return cli_exit_for(rc);
	}
	rc = graph_family_check_roots(*r, &errors);
	found_errors(ck, file, &errors);
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
