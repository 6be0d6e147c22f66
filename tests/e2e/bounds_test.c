/*
 * Suite e2e_bounds: hard bounds that hostile or careless rules cannot
 * lift (issue 22, items 5 and 6): the ceilings on nodes and edges that
 * only a command-line flag raises, the edge count checked before the
 * edges take memory, PCRE2 limits on a tag-regex, control characters in
 * output paths, and paths too long for a buffer refused, not cut short.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

/*
 * Run `ripple ARGS` through the shell in dir, limited to `kib` KiB of
 * address space and killed after 60 s: runaway memory fails, a hang
 * gives 137.
 */
static struct run_result
ripple_sh(const char *dir, unsigned kib, const char *args)
{
	const char *bin = getenv("RIPPLE_BIN");
	char *abs = realpath(bin && bin[0] ? bin : "build/ripple", NULL);
	char cmd[8192];
	struct run_result r;

	cr_assert_not_null(abs);
	snprintf(cmd, sizeof(cmd), "ulimit -v %u; exec timeout -s KILL 60 "
		 "'%s' %s", kib, abs, args);
	r = t_sh(dir, cmd);
	free(abs);
	return r;
}

static void
expect_has(const char *text, const char *needle)
{
	cr_expect(strstr(text, needle) != NULL, "'%s' not in:\n%s", needle,
		  text);
}

/*
 * Rules with axis x of nx values and y of ny values: artifact a over x,
 * and test t over y needing every a (nx * ny edges), or, with `square`,
 * artifact a over both (nx * ny nodes). `policy` is appended as is.
 */
static char *
matrix_rules(unsigned nx, unsigned ny, int square, const char *policy)
{
	size_t cap = 64 + (size_t)(nx + ny) * 16 + 512 + strlen(policy);
	char *s = malloc(cap);
	size_t len = 0;
	unsigned i;

	cr_assert_not_null(s);
	len += (size_t)snprintf(s + len, cap - len, "version: 1\nsources:\n"
				"  s: {paths: [src/**]}\naxes:\n  x: [");
	for (i = 0; i < nx; i++)
		len += (size_t)snprintf(s + len, cap - len, "%sx%u",
					i ? "," : "", i);
	len += (size_t)snprintf(s + len, cap - len, "]\n  y: [");
	for (i = 0; i < ny; i++)
		len += (size_t)snprintf(s + len, cap - len, "%sy%u",
					i ? "," : "", i);
	if (square)
		len += (size_t)snprintf(s + len, cap - len, "]\nartifacts:\n"
			"  a:\n    each: {x: axes.x, y: axes.y}\n"
			"    inputs: [s]\n    command: ['true']\n");
	else
		len += (size_t)snprintf(s + len, cap - len, "]\nartifacts:\n"
			"  a:\n    each: {x: axes.x}\n    inputs: [s]\n"
			"    command: ['true']\ntests:\n  t:\n"
			"    each: {y: axes.y}\n    needs: [a]\n"
			"    command: ['true']\n");
	snprintf(s + len, cap - len, "%s", policy);
	return s;
}

static char *
make_repo(const char *rules)
{
	char *dir = t_git_init();

	t_write(dir, ".gitignore", ".ripple/\n");
	t_write(dir, "ripple.yml", rules);
	t_write(dir, "src/a.c", "int a;\n");
	cr_assert_eq(t_git_commit(dir, "init"), 0);
	return dir;
}

/*
 * policy max-nodes used to raise its own cap (to 10^8); now the rules can
 * only lower the ceiling and --max-nodes raises it.
 */
Test(e2e_bounds, rules_cannot_raise_the_node_ceiling_a_flag_can)
{
	char *rules = matrix_rules(350, 300, 1,
				   "policy: {max-nodes: 100000000}\n");
	char *dir = make_repo(rules);
	const char *check[] = { "check", "--no-drift", NULL };
	const char *raised[] = { "check", "--no-drift", "--max-nodes",
				 "110000", NULL };
	const char *lowered[] = { "--max-nodes=104999", "check", "--no-drift",
				  NULL };
	struct run_result r;

	r = t_ripple(dir, check);
	cr_expect_eq(r.status, 2, "check: %d %s", r.status, r.err);
	expect_has(r.err, "ripple.yml:");
	expect_has(r.err, "error: the rules expand to 105000 nodes, more "
		   "than the ceiling of 100000 nodes; artifact 'a' fans out "
		   "most (105000 nodes: x 350 x y 300)");
	expect_has(r.err, "raise the ceiling with --max-nodes N (the rules' "
		   "policy max-nodes: 100000000 cannot raise it)");
	t_result_release(&r);
	r = t_ripple(dir, raised);
	cr_expect_eq(r.status, 0, "check --max-nodes: %d %s", r.status, r.err);
	t_result_release(&r);
	r = t_ripple(dir, lowered);
	cr_expect_eq(r.status, 2, "--max-nodes before the command: %d %s",
		     r.status, r.err);
	expect_has(r.err, "more than the ceiling of 104999 nodes");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
	free(rules);
}

/*
 * 6,000 x 6,000 edges (36 M) once took gigabytes in `plan`; the count now
 * stops at the ceiling before the edges are stored, so the refusal fits
 * in 300 MiB of address space.
 */
Test(e2e_bounds, an_edge_explosion_is_refused_within_bounded_memory)
{
	char *rules = matrix_rules(6000, 6000, 0, "");
	char *dir = make_repo(rules);
	struct run_result r;

	r = ripple_sh(dir, 300 * 1024, "plan");
	cr_expect_eq(r.status, 2, "plan: %d %s", r.status, r.err);
	expect_has(r.err, "error: the graph has more edges (one node needing "
		   "another) than the ceiling of 1000000 edges; test 't' fans "
		   "out most (1000000 edges from 167 of its nodes");
	expect_has(r.err, "  node: test:t[y=");
	expect_has(r.err, "--max-edges N");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
	free(rules);
}

/* The edge ceiling: the rules may lower it, --max-edges raises it. */
Test(e2e_bounds, max_edges_flag_raises_and_policy_lowers_the_edge_ceiling)
{
	char *rules = matrix_rules(1100, 1000, 0, "");
	char *low = matrix_rules(20, 30, 0, "policy: {max-edges: 500}\n");
	char *dir = make_repo(rules), *dir2 = make_repo(low);
	const char *check[] = { "check", "--no-drift", NULL };
	const char *raised[] = { "check", "--no-drift", "--max-edges",
				 "1100000", NULL };
	const char *higher[] = { "check", "--no-drift", "--max-edges",
				 "5000", NULL };
	struct run_result r;

	r = t_ripple(dir, check);
	cr_expect_eq(r.status, 2, "check: %d %s", r.status, r.err);
	expect_has(r.err, "than the ceiling of 1000000 edges");
	t_result_release(&r);
	r = t_ripple(dir, raised);
	cr_expect_eq(r.status, 0, "check --max-edges: %d %s", r.status, r.err);
	t_result_release(&r);
	/* 600 edges under policy max-edges 500: the flag cannot lift it. */
	r = t_ripple(dir2, higher);
	cr_expect_eq(r.status, 2, "check: %d %s", r.status, r.err);
	expect_has(r.err, "than policy max-edges 500; test 't' fans out most "
		   "(500 edges from 25 of its nodes");
	expect_has(r.err, "raise policy: {max-edges: N} (up to the ceiling, "
		   "5000; --max-edges N raises that)");
	t_result_release(&r);
	t_rmtree(dir2);
	t_rmtree(dir);
	free(dir2);
	free(dir);
	free(low);
	free(rules);
}
