/*
 * The findings of `ripple check`: how an error or warning is reported
 * (printed now, or kept for the JSON document), and the lints: what the rules say that is valid but likely
 * wrong (a source set no rule uses or one that claims every path, a test
 * that does not need what it installs, a container pinned by tag only),
 * and outputs that two nodes share, which is an error.
 */
#include "engine/cli/check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "base/strv.h"
#include "graph/outputs.h"
#include "graph/pattern.h"
#include "base/banned.h"

void
check_found_error(struct check *ck, const struct error *e)
{
	if (ck->json)
		error_list_add(&ck->errors, e);
	else
		cli_print_error(ck->ctx, e);
}

void
check_found_warning(struct check *ck, const struct rules *r,
		    struct rules_pos pos, const char *hint, const char *fmt, ...)
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

void
check_found_errors(struct check *ck, const char *file,
		   const struct error_list *errors)
{
	size_t i;

	for (i = 0; i < errors->n; i++)
		check_found_error(ck, &errors->items[i]);
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
	check_found_errors(ck, r->file, &errors);
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
			check_found_warning(ck, r, s->pos,
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
			check_found_warning(ck, r, s->pos,
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
		check_found_warning(ck, r, rt->pos,
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
				check_found_warning(ck, r, t->rule->pos,
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
		check_found_warning(ck, r, n->rule->container.pos,
			      "pin it by digest (IMAGE@sha256:...) so the key "
			      "names the bytes",
			      "%s '%s': container image '%s' is a tag, which "
			      "can move: it is keyed as text",
			      n->kind == GRAPH_NODE_TEST ? "test" : "artifact",
			      n->name, n->container_image);
	}
	mem_free(first);
}

int
check_lint(struct check *ck, const struct rules *r, const struct graph *g)
{
	check_sources(ck, r, g);
	check_test_needs(ck, r, g);
	check_containers(ck, r, g);
	return check_outputs(ck, r, g);
}
