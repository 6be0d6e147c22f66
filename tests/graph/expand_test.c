/* Suite graph_expand: matrix expansion, ids, dependencies, order, cycles. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "graph/graph.h"
#include "rules/rules.h"

static struct rules *
load(const char *text)
{
	struct error_list errors;
	struct rules *r = NULL;
	int rc;

	error_list_init(&errors, 10);
	rc = rules_load_buffer("t.yml", text, strlen(text), &r, &errors);
	if (rc && errors.n)
		cr_log_error("%u:%u: %s", errors.items[0].line,
			     errors.items[0].col, errors.items[0].msg);
	cr_assert_eq(rc, 0);
	error_list_release(&errors);
	return r;
}

static const char two_roots[] =
	"version: 1\n"
	"toolkits:\n"
	"  ctk12: {version: 12.9.1}\n"
	"  ctk13: {version: 13.0.2}\n"
	"roots:\n"
	"  b12: {path: b12, role: maintenance, toolkit: ctk12, tags: 'v12.9.*'}\n"
	"  b13: {path: b13, role: current, toolkit: ctk13, tags: 'v13.0.*'}\n"
	"sources:\n"
	"  core-src: {paths: ['core/**'], exclude: ['core/tests/**']}\n"
	"  core-tests-src: {paths: ['core/tests/**']}\n"
	"axes:\n"
	"  python: ['3.12', '3.13']\n"
	"  cuda: ['12', '13']\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots, python: axes.python}\n"
	"    inputs: [root.sources]\n"
	"    toolkit: root.toolkit\n"
	"    command: [build, '${root.path}', '${python}', '${toolkit.version}']\n"
	"  core-variant:\n"
	"    each: {cuda: axes.cuda, python: axes.python}\n"
	"    inputs: [core-src]\n"
	"    needs: [{node: wheel, where: {root: 'roots[toolkit.major=${cuda}]'}}]\n"
	"    toolkit: 'toolkits[major=${cuda}]'\n"
	"    command: [build-core, '${cuda}']\n"
	"  core-wheel:\n"
	"    each: {python: axes.python}\n"
	"    needs: [core-variant]\n"
	"    command: [merge]\n"
	"tests:\n"
	"  core-tests:\n"
	"    each: {cuda: axes.cuda, python: ['3.12']}\n"
	"    needs: [core-variant, core-tests-src]\n"
	"    command: [pytest]\n"
	"releases:\n"
	"  bindings:\n"
	"    each: {root: roots}\n"
	"    tag: root.tags\n"
	"    artifacts: [wheel]\n";

static const struct graph_node *
node(const struct graph *g, const char *id)
{
	const struct graph_node *n = graph_find(g, id);

	cr_assert_not_null(n, "no node %s", id);
	return n;
}

static int
has_dep(const struct graph *g, const struct graph_node *n, const char *id)
{
	size_t i;

	for (i = 0; i < n->n_deps; i++)
		if (!strcmp(g->nodes[n->deps[i]].id, id))
			return 1;
	return 0;
}

Test(graph_expand, ids_are_canonical_with_sorted_axes)
{
	struct rules *r = load(two_roots);
	struct graph *g = NULL;
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g, &err), 0, "%s", err.msg);
	/* 4 wheels, 4 variants, 2 core wheels, 2 tests, 2 releases */
	cr_expect_eq(g->n_nodes, 14);
	node(g, "artifact:wheel[python=3.12,root=b12]");
	node(g, "artifact:core-variant[cuda=13,python=3.13]");
	node(g, "test:core-tests[cuda=12,python=3.12]");
	node(g, "release:bindings[root=b13]");
	cr_expect_null(graph_find(g, "artifact:wheel[root=b12,python=3.12]"));
	graph_free(g);
	rules_free(r);
}

Test(graph_expand, where_maps_cuda_major_to_the_root)
{
	struct rules *r = load(two_roots);
	struct graph *g = NULL;
	const struct graph_node *v;
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g, &err), 0, "%s", err.msg);
	v = node(g, "artifact:core-variant[cuda=12,python=3.12]");
	cr_expect_eq(v->n_deps, 1);
	cr_expect(has_dep(g, v, "artifact:wheel[python=3.12,root=b12]"));
	cr_assert_not_null(v->toolkit);
	cr_expect_str_eq(v->toolkit->name, "ctk12");
	v = node(g, "artifact:core-wheel[python=3.13]");
	cr_expect_eq(v->n_deps, 2, "the merged wheel fans in over cuda");
	v = node(g, "test:core-tests[cuda=13,python=3.12]");
	cr_expect(has_dep(g, v, "artifact:core-variant[cuda=13,python=3.12]"));
	cr_expect(!has_dep(g, v, "artifact:core-variant[cuda=12,python=3.12]"));
	cr_expect_eq(v->n_inputs, 1);
	cr_expect_str_eq(v->inputs[0].name, "source:core-tests-src");
	v = node(g, "release:bindings[root=b12]");
	cr_expect_eq(v->n_deps, 2, "a release fans in over python");
	graph_free(g);
	rules_free(r);
}

Test(graph_expand, templates_and_root_sources_are_expanded)
{
	struct rules *r = load(two_roots);
	struct graph *g = NULL;
	const struct graph_node *w;
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g, &err), 0, "%s", err.msg);
	w = node(g, "artifact:wheel[python=3.13,root=b13]");
	cr_assert_eq(w->argc, 4);
	cr_expect_str_eq(w->argv[1], "b13");
	cr_expect_str_eq(w->argv[2], "3.13");
	cr_expect_str_eq(w->argv[3], "13.0.2");
	cr_assert_eq(w->n_inputs, 1);
	cr_expect_str_eq(w->inputs[0].name, "root.sources:b13");
	cr_expect_str_eq(w->inputs[0].include[0], "b13/**");
	cr_expect_str_eq(w->inputs[0].exclude[0], "b13/tests/**");
	graph_free(g);
	rules_free(r);
}

Test(graph_expand, order_is_topological_and_deterministic)
{
	struct rules *r = load(two_roots);
	struct graph *g1 = NULL, *g2 = NULL;
	struct error err;
	size_t i, k;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g1, &err), 0);
	cr_assert_eq(graph_build(r, &g2, &err), 0);
	for (i = 0; i < g1->n_nodes; i++) {
		cr_expect_str_eq(g1->nodes[i].id, g2->nodes[i].id);
		for (k = 0; k < g1->nodes[i].n_deps; k++)
			cr_expect_lt(g1->nodes[i].deps[k], i);
		for (k = 0; k < g1->nodes[i].n_rdeps; k++)
			cr_expect_gt(g1->nodes[i].rdeps[k], i);
	}
	graph_free(g1);
	graph_free(g2);
	rules_free(r);
}

Test(graph_expand, exclude_and_include_shape_the_matrix)
{
	struct rules *r = load(
		"version: 1\n"
		"axes:\n"
		"  python: ['3.12', '3.13']\n"
		"  platform: [linux-64, win-64]\n"
		"artifacts:\n"
		"  w:\n"
		"    each:\n"
		"      python: axes.python\n"
		"      platform: [linux-64]\n"
		"      exclude: [{python: '3.13'}]\n"
		"      include: [{python: '3.13', platform: win-64}]\n"
		"    command: [x]\n");
	struct graph *g = NULL;
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g, &err), 0, "%s", err.msg);
	cr_expect_eq(g->n_nodes, 2);
	node(g, "artifact:w[platform=linux-64,python=3.12]");
	node(g, "artifact:w[platform=win-64,python=3.13]");
	graph_free(g);
	rules_free(r);
}

Test(graph_expand, cycle_is_reported_with_its_ids_in_order)
{
	struct rules *r = load(
		"version: 1\n"
		"artifacts:\n"
		"  a: {needs: [b], command: [x]}\n"
		"  b: {needs: [c], command: [x]}\n"
		"  c: {needs: [a], command: [x]}\n");
	struct graph *g = NULL;
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g, &err), ERROR_INVALID);
	cr_expect_null(g);
	cr_expect_str_eq(err.msg, "dependency cycle: artifact:a -> "
				  "artifact:b -> artifact:c -> artifact:a");
	rules_free(r);
}

Test(graph_expand, cycle_error_points_at_the_need_that_closes_it)
{
	struct rules *r = load(
		"version: 1\n"
		"artifacts:\n"
		"  a: {needs: [b], command: [x]}\n"
		"  b: {needs: [c], command: [x]}\n"
		"  c: {needs: [a], command: [x]}\n");
	struct graph *g = NULL;
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g, &err), ERROR_INVALID);
	cr_expect_str_eq(err.file, "t.yml");
	cr_expect_eq(err.line, 5);
	cr_expect_eq(err.col, 15);
	cr_expect_str_eq(err.node, "artifact:c");
	rules_free(r);
}

Test(graph_expand, dependency_without_matching_instance_is_an_error)
{
	struct rules *r = load(
		"version: 1\n"
		"axes:\n"
		"  python: ['3.12', '3.13']\n"
		"artifacts:\n"
		"  a: {each: {python: ['3.12']}, command: [x]}\n"
		"  b:\n"
		"    each: {python: ['3.13']}\n"
		"    needs: [a]\n"
		"    command: [x]\n");
	struct graph *g = NULL;
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "no instance of artifact 'a'") != NULL,
		  "%s", err.msg);
	cr_expect_str_eq(err.node, "artifact:b[python=3.13]");
	cr_expect_eq(err.line, 8);
	rules_free(r);
}

/* Ids of deps of `id`, joined by " " in id order. */
static void
expect_deps(const struct graph *g, const char *id, const char *want)
{
	const struct graph_node *n = node(g, id);
	char got[2048] = "";
	size_t i;

	for (i = 0; i < n->n_deps; i++) {
		if (i)
			strcat(got, " ");
		strcat(got, g->nodes[n->deps[i]].id);
	}
	cr_expect_str_eq(got, want, "deps of %s: %s", id, got);
}

/*
 * Matrix dependencies search the run of the upstream rule's ids (issue
 * 14, item 12): rule names and axis values that are prefixes of others,
 * and values with bytes that sort before ',' and ']', select exactly what
 * agreeing on shared axes selects.
 */
Test(graph_expand, matrix_dependencies_select_exactly_among_prefix_names)
{
	struct rules *r = load(
		"version: 1\n"
		"axes:\n"
		"  x: [v1, v10, v1+x, v1-, v1.0]\n"
		"  y: [a, b]\n"
		"artifacts:\n"
		"  up: {each: {x: axes.x, y: axes.y}, command: [c]}\n"
		"  up1: {each: {x: axes.x}, command: [c]}\n"
		"  up-b: {each: {x: axes.x}, command: [c]}\n"
		"  solo: {command: [c]}\n"
		"  down: {each: {x: axes.x}, needs: [up, up1, up-b, solo], "
		"command: [c]}\n"
		"  fan: {each: {y: axes.y}, needs: [up], command: [c]}\n"
		"  mapped:\n"
		"    each: {x: axes.x, y: axes.y}\n"
		"    needs: [{node: up, where: {x: v10}}]\n"
		"    command: [c]\n"
		"  plain: {needs: [up1], command: [c]}\n");
	struct graph *g = NULL;
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g, &err), 0, "%s", err.msg);
	expect_deps(g, "artifact:down[x=v1]",
		    "artifact:solo artifact:up-b[x=v1] artifact:up1[x=v1] "
		    "artifact:up[x=v1,y=a] artifact:up[x=v1,y=b]");
	expect_deps(g, "artifact:down[x=v1+x]",
		    "artifact:solo artifact:up-b[x=v1+x] artifact:up1[x=v1+x] "
		    "artifact:up[x=v1+x,y=a] artifact:up[x=v1+x,y=b]");
	expect_deps(g, "artifact:fan[y=b]",
		    "artifact:up[x=v1+x,y=b] artifact:up[x=v1,y=b] "
		    "artifact:up[x=v1-,y=b] artifact:up[x=v1.0,y=b] "
		    "artifact:up[x=v10,y=b]");
	expect_deps(g, "artifact:mapped[x=v1,y=b]", "artifact:up[x=v10,y=b]");
	expect_deps(g, "artifact:plain",
		    "artifact:up1[x=v1+x] artifact:up1[x=v1-] "
		    "artifact:up1[x=v1.0] artifact:up1[x=v10] artifact:up1[x=v1]");
	graph_free(g);
	rules_free(r);
}

Test(graph_expand, select_targets_and_closure)
{
	struct rules *r = load(two_roots);
	struct graph *g = NULL;
	unsigned char sel[64], clo[64];
	const char *t1[] = { "core-tests" };
	const char *t2[] = { "artifact:wheel*root=b12]" };
	const char *t3[] = { "core-test" };
	const struct graph_node *n;
	struct error err;
	size_t i, nsel = 0, nclo = 0;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g, &err), 0);
	cr_assert_eq(graph_select(g, t1, 1, sel, clo, &err), 0);
	for (i = 0; i < g->n_nodes; i++) {
		nsel += sel[i];
		nclo += clo[i];
	}
	cr_expect_eq(nsel, 2);
	cr_expect_eq(nclo, 2 + 2 + 2, "tests, their variants, the wheels");
	n = node(g, "artifact:core-wheel[python=3.12]");
	cr_expect_eq(clo[n->index], 0);
	cr_assert_eq(graph_select(g, t2, 1, sel, NULL, &err), 0);
	for (i = nsel = 0; i < g->n_nodes; i++)
		nsel += sel[i];
	cr_expect_eq(nsel, 2);
	cr_expect_eq(graph_select(g, t3, 1, sel, NULL, &err), ERROR_NOT_FOUND);
	cr_expect_str_eq(err.hint, "did you mean 'core-tests'?");
	graph_free(g);
	rules_free(r);
}

/*
 * A graph built while allocations fail is either an error or the same
 * graph as without faults: an id cut short by a failed buffer is wrong.
 */
/* Ids longer than a buffer's first allocation. */
static const char long_ids[] =
	"version: 1\n"
	"roots:\n"
	"  b12: {path: b12}\n"
	"  b13: {path: b13}\n"
	"axes:\n"
	"  python: ['3.12', '3.13']\n"
	"artifacts:\n"
	"  a-rather-long-artifact-name-for-checking-ids:\n"
	"    each: {root: roots, python: axes.python}\n"
	"    command: [build]\n";

static void
build_under_faults(const char *text)
{
	struct rules *r = load(text);
	struct graph *want = NULL;
	struct error err;
	size_t i;
	long n;

	error_init(&err);
	cr_assert_eq(graph_build(r, &want, &err), 0, "%s", err.msg);
	for (n = 0; n < 100000; n++) {
		struct graph *g = NULL;
		int rc, fired;

		error_init(&err);
		mem_fault_once(n);
		rc = graph_build(r, &g, &err);
		fired = mem_fault_fired();
		mem_fault_after(-1);
		if (rc) {
			cr_assert_eq(rc, ERROR_NOMEM, "n=%ld: %s", n, err.msg);
			continue;
		}
		cr_assert_eq(g->n_nodes, want->n_nodes);
		for (i = 0; i < g->n_nodes; i++) {
			const struct graph_node *a = &g->nodes[i];
			size_t k, j;

			cr_assert_str_eq(a->id, want->nodes[i].id, "n=%ld", n);
			for (k = 0; k < a->n_inputs; k++) {
				for (j = 0; j < a->inputs[k].n_include; j++)
					cr_assert_not_null(
						a->inputs[k].include[j],
						"n=%ld: include lost", n);
				for (j = 0; j < a->inputs[k].n_exclude; j++)
					cr_assert_not_null(
						a->inputs[k].exclude[j],
						"n=%ld: exclude lost", n);
			}
		}
		graph_free(g);
		if (!fired)
			break;
	}
	graph_free(want);
	rules_free(r);
}

Test(graph_expand, build_under_allocation_faults_fails_or_matches)
{
	build_under_faults(long_ids);
	build_under_faults(two_roots);
	build_under_faults(
		"version: 1\n"
		"roots:\n"
		"  b12: {path: b12, exclude: ['docs/**', 'x/**'],"
		" tests: ['tests/**', 'more/**']}\n"
		"artifacts:\n"
		"  a:\n"
		"    each: {root: roots}\n"
		"    inputs: [root.sources, root.tests]\n"
		"    command: [build]\n");
}

/*
 * Issue 22 item 5: the ceilings of graph_build_limited. A test over 4
 * values of y needs every one of 5 artifacts over x: 9 nodes, 20 edges.
 */
static const char fan_in[] =
	"version: 1\n"
	"axes:\n"
	"  x: [x0, x1, x2, x3, x4]\n"
	"  y: [y0, y1, y2, y3]\n"
	"artifacts:\n"
	"  a: {each: {x: axes.x}, command: [make]}\n"
	"tests:\n"
	"  t: {each: {y: axes.y}, needs: [a], command: [check]}\n";

static int
build_limited(const char *text, unsigned long long nodes,
	      unsigned long long edges, struct error *err)
{
	struct rules *r = load(text);
	struct graph_limits lim = { nodes, edges };
	struct graph *g = NULL;
	int rc;

	error_init(err);
	rc = graph_build_limited(r, &lim, &g, err);
	cr_expect(rc ? g == NULL : g != NULL);
	graph_free(g);
	rules_free(r);
	return rc;
}

Test(graph_expand, ceilings_bound_nodes_and_edges_exactly)
{
	struct error err;

	cr_expect_eq(build_limited(fan_in, 9, 20, &err), 0, "%s", err.msg);
	cr_expect_eq(build_limited(fan_in, 0, 0, &err), 0, "defaults");
	cr_expect_eq(build_limited(fan_in, 8, 20, &err), ERROR_INVALID);
	cr_expect_str_eq(err.msg, "the rules expand to 9 nodes, more than "
			 "the ceiling of 8 nodes; artifact 'a' fans out most "
			 "(5 nodes: x 5)");
	cr_expect_eq(err.line, 6);
	cr_expect_eq(build_limited(fan_in, 9, 19, &err), ERROR_INVALID);
	cr_expect_str_eq(err.msg, "the graph has more edges (one node needing "
			 "another) than the ceiling of 19 edges; test 't' fans "
			 "out most (19 edges from 4 of its nodes before the "
			 "count stopped)");
	cr_expect_str_eq(err.node, "test:t[y=y3]");
	cr_expect_eq(err.line, 8);
	cr_expect_str_eq(err.hint, "narrow its needs: with where: or shared "
			 "axes, or raise the ceiling with --max-edges N (the "
			 "rules' policy max-edges can only lower it)");
}

/*
 * Rules of one node each past the node ceiling: no rule fans out, so the
 * message names the rules (no "(1 nodes: )", no "narrow its each:"),
 * the ceiling in the singular, and a hint that can help.
 */
Test(graph_expand, one_node_rules_past_the_ceiling_are_named)
{
	static const char five[] =
		"version: 1\n"
		"artifacts:\n"
		"  a: {command: [make]}\n"
		"  b: {command: [make]}\n"
		"  c: {command: [make]}\n"
		"tests:\n"
		"  t: {needs: [a], command: [check]}\n"
		"  u: {needs: [b], command: [check]}\n";
	struct error err;

	cr_expect_eq(build_limited(five, 1, 0, &err), ERROR_INVALID);
	cr_expect_str_eq(err.msg, "the rules expand to 5 nodes, more than "
			 "the ceiling of 1 node; no rule fans out (one node "
			 "each): artifact 'a', artifact 'b', artifact 'c', "
			 "test 't' and 1 more");
	cr_expect_eq(err.line, 3);
	cr_expect_str_eq(err.hint, "raise the ceiling with --max-nodes N (the "
			 "rules' policy max-nodes can only lower it)");
	cr_expect_eq(build_limited(five, 4, 0, &err), ERROR_INVALID);
	cr_expect_str_eq(err.msg, "the rules expand to 5 nodes, more than "
			 "the ceiling of 4 nodes; no rule fans out (one node "
			 "each): artifact 'a', artifact 'b', artifact 'c', "
			 "test 't' and 1 more");
	cr_expect_eq(build_limited(fan_in, 1, 0, &err), ERROR_INVALID);
	cr_expect_str_eq(err.msg, "the rules expand to 9 nodes, more than "
			 "the ceiling of 1 node; artifact 'a' fans out most "
			 "(5 nodes: x 5)");
}

/* The rules' policy lowers a ceiling; it never raises one. */
Test(graph_expand, policy_lowers_a_ceiling_and_never_raises_it)
{
	char text[1024];
	struct error err;

	snprintf(text, sizeof(text), "%spolicy: {max-edges: 10}\n", fan_in);
	cr_expect_eq(build_limited(text, 0, 0, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "than policy max-edges 10;") != NULL, "%s",
		  err.msg);
	snprintf(text, sizeof(text), "%spolicy: {max-nodes: 1000000, "
		 "max-edges: 1000000}\n", fan_in);
	cr_expect_eq(build_limited(text, 8, 0, &err), ERROR_INVALID);
	cr_expect(strstr(err.hint, "policy max-nodes: 1000000 cannot raise "
			 "it") != NULL, "%s", err.hint);
	cr_expect_eq(build_limited(text, 0, 19, &err), ERROR_INVALID);
	cr_expect_eq(build_limited(text, 9, 20, &err), 0, "%s", err.msg);
}

/* Under allocation faults a limited build fails with ERROR_NOMEM or
 * gives the same graph, edges counted alike. */
Test(graph_expand, limited_build_survives_allocation_faults)
{
	long n;

	for (n = 0; n < 100000; n++) {
		struct rules *r = load(fan_in);
		struct graph_limits lim = { 9, 20 };
		struct graph *g = NULL;
		struct error err;
		int rc, fired;

		error_init(&err);
		mem_fault_once(n);
		rc = graph_build_limited(r, &lim, &g, &err);
		fired = mem_fault_fired();
		mem_fault_after(-1);
		if (rc)
			cr_assert_eq(rc, ERROR_NOMEM, "n=%ld: %s", n, err.msg);
		else
			cr_assert_eq(g->n_nodes, 9);
		graph_free(g);
		rules_free(r);
		if (!fired)
			break;
	}
}
