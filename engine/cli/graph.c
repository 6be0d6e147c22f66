/*
 * `ripple graph` (nodes and edges of a closure as text, JSON, DOT or
 * Mermaid) and `ripple keys` (node keys at a revision or the working tree,
 * with --components the parts each key hashes).
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/fnmatch.h"
#include "base/mem.h"
#include "engine/plan/eval.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "graph/repo.h"
#include "rules/rules.h"
#include "engine/plan/report.h"
#include "base/banned.h"

static void
graph_usage(FILE *f)
{
	fprintf(f,
		"usage: ripple graph [TARGET...] [--rev REV | --worktree] "
		"[--rules FILE]\n"
		"                    [--format text|json|dot|mermaid]\n"
		"\n"
		"Print the nodes and edges of the targets' closure (default: "
		"every artifact\nand test). A target is a declared target, a "
		"rule name, 'artifacts', 'tests',\n'releases', or a glob over "
		"node ids.\n"
		"\n"
		"  --rev REV      the rules of this commit (default HEAD)\n"
		"  --worktree     the working tree's ripple.yml\n"
		"  --rules FILE   this rules file (works outside a repository)\n"
		"  --format F     text (default), json (ripple-graph-v1), dot "
		"(graphviz),\n                 mermaid\n"
		"\n"
		"Exit 0; 2 for bad rules, targets or arguments.\n");
}

static void
dot_quote(struct buf *b, const char *s)
{
	buf_addch(b, '"', NULL);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			buf_addch(b, '\\', NULL);
		buf_addch(b, *s, NULL);
	}
	buf_addch(b, '"', NULL);
}

static void
render_text(const struct graph *g, const unsigned char *in, struct buf *b)
{
	size_t i, k;

	for (i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];

		if (!in[i])
			continue;
		buf_addf(b, NULL, "%s\n", n->id);
		if (n->toolkit)
			buf_addf(b, NULL, "  toolkit %s (%s)\n",
				 n->toolkit->name, n->toolkit->version);
		for (k = 0; k < n->n_inputs; k++)
			buf_addf(b, NULL, "  input   %s\n", n->inputs[k].name);
		for (k = 0; k < n->n_deps; k++)
			buf_addf(b, NULL, "  needs   %s\n",
				 g->nodes[n->deps[k]].id);
	}
}

static void
render_dot(const struct graph *g, const unsigned char *in, struct buf *b)
{
	size_t i, k;

	buf_addstr(b, "digraph ripple {\n  rankdir=LR;\n  node [shape=box];\n",
		   NULL);
	for (i = 0; i < g->n_nodes; i++) {
		if (!in[i])
			continue;
		buf_addstr(b, "  ", NULL);
		dot_quote(b, g->nodes[i].id);
		buf_addstr(b, g->nodes[i].kind == GRAPH_NODE_TEST
				      ? " [style=rounded];\n"
				      : ";\n", NULL);
	}
	for (i = 0; i < g->n_nodes; i++) {
		if (!in[i])
			continue;
		for (k = 0; k < g->nodes[i].n_deps; k++) {
			buf_addstr(b, "  ", NULL);
			dot_quote(b, g->nodes[g->nodes[i].deps[k]].id);
			buf_addstr(b, " -> ", NULL);
			dot_quote(b, g->nodes[i].id);
			buf_addstr(b, ";\n", NULL);
		}
	}
	buf_addstr(b, "}\n", NULL);
}

static void
render_mermaid(const struct graph *g, const unsigned char *in, struct buf *b)
{
	size_t i, k;

	buf_addstr(b, "flowchart LR\n", NULL);
	for (i = 0; i < g->n_nodes; i++) {
		const char *s;

		if (!in[i])
			continue;
		buf_addf(b, NULL, "  n%zu[\"", i);
		for (s = g->nodes[i].id; *s; s++) {
			if (*s == '"')
				buf_addstr(b, "#quot;", NULL);
			else
				buf_addch(b, *s, NULL);
		}
		buf_addstr(b, "\"]\n", NULL);
	}
	for (i = 0; i < g->n_nodes; i++)
		if (in[i])
			for (k = 0; k < g->nodes[i].n_deps; k++)
				buf_addf(b, NULL, "  n%zu --> n%zu\n",
					 g->nodes[i].deps[k], i);
}

static int
render_json(const struct graph *g, const unsigned char *in, struct buf *b)
{
	json_t *doc = json_object(), *nodes = json_array();
	size_t i, k;
	char *s;

	for (i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];
		json_t *o = json_object(), *axes = json_object(),
		       *deps = json_array(), *inputs = json_array();

		if (!in[i]) {
			json_decref(o);
			json_decref(axes);
			json_decref(deps);
			json_decref(inputs);
			continue;
		}
		for (k = 0; k < n->n_axes; k++)
			json_object_set_new(axes, n->axes[k].axis,
					    json_string(n->axes[k].value));
		for (k = 0; k < n->n_deps; k++)
			json_array_append_new(deps, json_string(
				g->nodes[n->deps[k]].id));
		for (k = 0; k < n->n_inputs; k++)
			json_array_append_new(inputs,
					      json_string(n->inputs[k].name));
		json_object_set_new(o, "id", json_string(n->id));
		json_object_set_new(o, "kind",
				    json_string(graph_node_kind_name(n->kind)));
		json_object_set_new(o, "rule", json_string(n->name));
		json_object_set_new(o, "axes", axes);
		json_object_set_new(o, "needs", deps);
		json_object_set_new(o, "inputs", inputs);
		json_object_set_new(o, "toolkit", n->toolkit
			? json_string(n->toolkit->name) : json_null());
		json_array_append_new(nodes, o);
	}
	json_object_set_new(doc, "schema", json_string("ripple-graph-v1"));
	json_object_set_new(doc, "nodes", nodes);
	s = json_dumps(doc, JSON_SORT_KEYS | JSON_INDENT(2));
	json_decref(doc);
	if (!s)
		return ERROR_NOMEM;
	buf_addstr(b, s, NULL);
	buf_addch(b, '\n', NULL);
	free(s);
	return 0;
}

/* Load a graph: from the repository at rev, or from --rules alone. */
static int
load(const struct cli_ctx *ctx, const char *rev, int worktree,
     const char *rules_file, struct graph_repo **repo, struct eval **ev)
{
	struct error err;

	error_init(&err);
	if (rules_file && !rev && !worktree &&
	    graph_repo_open(ctx->dir, repo, &err)) {
		*repo = NULL;
		return -1;	/* caller loads the file alone */
	}
	return cli_open_eval(ctx, rev, worktree, rules_file, repo, ev);
}

int
cli_graph(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "rev", required_argument, NULL, 'r' },
		{ "worktree", no_argument, NULL, 'w' },
		{ "rules", required_argument, NULL, 'R' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *rev = NULL, *rules_file = NULL, *format = "text";
	struct graph_repo *repo = NULL;
	struct eval *ev = NULL;
	struct rules *rules = NULL;
	struct graph *g = NULL, *own = NULL;
	unsigned char *in = NULL;
	struct error err;
	struct buf b;
	int c, worktree = 0, rc;

	while ((c = cli_getopt(ctx, "graph", argc, argv, "h", opts)) != -1) {
		switch (c) {
		case 'r': rev = optarg; break;
		case 'w': worktree = 1; break;
		case 'R': rules_file = optarg; break;
		case 'f': format = optarg; break;
		case 'h': graph_usage(stdout); return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	if (strcmp(format, "text") && strcmp(format, "json") &&
	    strcmp(format, "dot") && strcmp(format, "mermaid"))
		return cli_usage_error(ctx, "graph", "unknown format '%s'",
				       format);
	error_init(&err);
	buf_init(&b, 0);
	rc = load(ctx, rev, worktree, rules_file, &repo, &ev);
	if (rc > 0)
		goto done;
	if (rc < 0) {
		struct error_list errors;
		char root[4096];
		size_t i;

		error_list_init(&errors, 50);
		rc = cli_repo_root(ctx, root, sizeof(root));
		if (rc >= 0)
			rc = rules_load_file(rules_file, NULL, root, &rules,
					     &errors);
		for (i = 0; i < errors.n; i++)
			cli_print_error(ctx, &errors.items[i]);
		error_list_release(&errors);
		if (rc) {
			rc = cli_exit_for(rc);
			goto done;
		}
		struct graph_limits limits;

		cli_graph_limits(ctx, &limits);
		rc = graph_build_limited(rules, &limits, &own, &err);
		if (rc) {
			cli_print_error(ctx, &err);
			rc = cli_exit_for(rc);
			goto done;
		}
		g = own;
	} else {
		g = ev->graph;
	}
	in = mem_calloc(g->n_nodes + 1, 1);
	if (!in) {
		rc = CLI_ERROR;
		goto done;
	}
	rc = graph_select(g, (const char *const *)argv + optind,
			  (size_t)(argc - optind), NULL, in, &err);
	if (rc) {
		cli_print_error(ctx, &err);
		rc = cli_exit_for(rc);
		goto done;
	}
	if (!strcmp(format, "json"))
		render_json(g, in, &b);
	else if (!strcmp(format, "dot"))
		render_dot(g, in, &b);
	else if (!strcmp(format, "mermaid"))
		render_mermaid(g, in, &b);
	else
		render_text(g, in, &b);
	rc = cli_write_out(ctx, NULL, 0, &b);
done:
	buf_release(&b);
	mem_free(in);
	graph_free(own);
	rules_free(rules);
	eval_free(ev);
	graph_repo_close(repo);
	return rc;
}

static void
keys_usage(FILE *f)
{
	fprintf(f,
		"usage: ripple keys [NODE-GLOB...] [--rev REV | --worktree] "
		"[--rules FILE]\n"
		"                   [--components] [--json]\n"
		"\n"
		"Print each node's id and content key (XXH3-128) at a revision "
		"(default HEAD)\nor in the working tree; --components lists "
		"what each key hashes.\nA revision's source sets are walked "
		"on $RIPPLE_JOBS threads (default: the\ncores, at most 8); "
		"the keys are the same for any number.\n");
}

static int
matches(const char *id, char **globs, int n)
{
	int i;

	if (n == 0)
		return 1;
	for (i = 0; i < n; i++)
		if (!strcmp(globs[i], id) || fnmatch_match(globs[i], id))
			return 1;
	return 0;
}

/*
 * The source sets of the nodes in mask and of everything they need
 * (what graph_keys_compute keys) walked ahead on $RIPPLE_JOBS threads
 * (*pool, freed by the caller after ev). 0, CLI_USAGE (a malformed
 * RIPPLE_JOBS, printed), or an error code with *err.
 */
static int
keys_ahead(const struct cli_ctx *ctx, struct eval *ev,
	   const unsigned char *mask, struct eval_pool **pool,
	   struct error *err)
{
	const struct graph *g = ev->graph;
	unsigned char *want;
	size_t jobs, i, k;
	int rc;

	if (cli_job_count(ctx, "keys", 0, &jobs))
		return CLI_USAGE;
	rc = eval_pool_new(jobs, pool, err);
	if (rc || !*pool)
		return rc;
	want = mem_calloc(g->n_nodes + 1, 1);
	if (!want)
		return error_set(err, ERROR_NOMEM, "out of memory");
	memcpy(want, mask, g->n_nodes);
	for (i = g->n_nodes; i-- > 0;)
		for (k = 0; want[i] && k < g->nodes[i].n_deps; k++)
			want[g->nodes[i].deps[k]] = 1;
	eval_set_pool(ev, *pool);
	rc = eval_prefetch(ev, want, err);
	mem_free(want);
	return rc;
}

static json_t *
components_json(const struct graph_node_key *k)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < k->n_components; i++) {
		const struct graph_component *c = &k->components[i];
		json_t *o = json_object();

		json_object_set_new(o, "kind", json_string(
			graph_comp_kind_name(c->kind)));
		json_object_set_new(o, "name", report_json_text(c->name));
		json_object_set_new(o, "digest", report_json_text(c->digest));
		json_object_set_new(o, "detail", c->detail
			? report_json_text(c->detail) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

int
cli_keys(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "rev", required_argument, NULL, 'r' },
		{ "worktree", no_argument, NULL, 'w' },
		{ "rules", required_argument, NULL, 'R' },
		{ "components", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *rev = NULL, *rules_file = NULL;
	struct graph_repo *repo = NULL;
	struct eval *ev = NULL;
	struct graph_keys *keys = NULL;
	struct eval_pool *pool = NULL;
	unsigned char *mask = NULL;
	json_t *doc = NULL;
	struct error err;
	struct buf b;
	int c, worktree = 0, comps = 0, as_json = 0, rc, n_globs, hits = 0;
	size_t i, k;

	while ((c = cli_getopt(ctx, "keys", argc, argv, "h", opts)) != -1) {
		switch (c) {
		case 'r': rev = optarg; break;
		case 'w': worktree = 1; break;
		case 'R': rules_file = optarg; break;
		case 'c': comps = 1; break;
		case 'j': as_json = 1; break;
		case 'h': keys_usage(stdout); return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	if (rev && worktree)
		return cli_usage_error(ctx, "keys", "--rev and --worktree "
				       "exclude each other");
	n_globs = argc - optind;
	error_init(&err);
	buf_init(&b, 0);
	rc = cli_open_eval(ctx, rev, worktree, rules_file, &repo, &ev);
	if (rc)
		goto done;
	mask = mem_calloc(ev->graph->n_nodes + 1, 1);
	if (!mask) {
		rc = CLI_ERROR;
		goto done;
	}
	for (i = 0; i < ev->graph->n_nodes; i++)
		if (matches(ev->graph->nodes[i].id, argv + optind, n_globs)) {
			mask[i] = 1;
			hits++;
		}
	if (!hits && !n_globs) {
		error_set(&err, ERROR_NOT_FOUND, "the rules declare no node");
		error_hint(&err, "add artifacts: or tests: to ripple.yml");
	} else if (!hits) {
		error_set(&err, ERROR_NOT_FOUND, "no node matches '%s'",
			  argv[optind]);
		error_hint(&err, "`ripple graph` lists the node ids");
	}
	if (!hits) {
		cli_print_error(ctx, &err);
		rc = CLI_USAGE;
		goto done;
	}
	rc = keys_ahead(ctx, ev, mask, &pool, &err);
	if (rc == CLI_USAGE)
		goto done;
	if (!rc)
		rc = graph_keys_compute(ev->graph, mask, &ev->sources, &keys,
					&err);
	if (rc) {
		cli_print_error(ctx, &err);
		rc = cli_exit_for(rc);
		goto done;
	}
	doc = json_array();
	for (i = 0; i < ev->graph->n_nodes; i++) {
		const struct graph_node_key *nk = &keys->keys[i];

		if (!mask[i])
			continue;
		if (as_json) {
			json_t *o = json_object();

			json_object_set_new(o, "id", json_string(
				ev->graph->nodes[i].id));
			json_object_set_new(o, "key", json_string(nk->key.hex));
			if (comps)
				json_object_set_new(o, "components",
						    components_json(nk));
			json_array_append_new(doc, o);
			continue;
		}
		buf_addf(&b, NULL, "%s  %s\n", nk->key.hex,
			 ev->graph->nodes[i].id);
		for (k = 0; comps && k < nk->n_components; k++) {
			const struct graph_component *cp = &nk->components[k];

			buf_addf(&b, NULL, "    %-8s %-40s %s\n",
				 graph_comp_kind_name(cp->kind), cp->name,
				 cp->digest);
		}
	}
	if (as_json) {
		json_t *top = json_object();

		json_object_set_new(top, "schema", json_string("ripple-keys-v1"));
		json_object_set_new(top, "nodes", doc);
		doc = NULL;
		rc = cli_print_json(ctx, top, JSON_INDENT(2));
		goto done;
	}
	rc = cli_write_out(ctx, NULL, 0, &b);
done:
	json_decref(doc);
	buf_release(&b);
	mem_free(mask);
	graph_keys_free(keys);
	eval_free(ev);
	eval_pool_free(pool);
	graph_repo_close(repo);
	return rc;
}
