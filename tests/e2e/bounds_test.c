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
 * memory and killed after 60 s: runaway memory fails, a hang gives 137.
 */
static struct run_result
ripple_sh(const char *dir, unsigned kib, const char *args)
{
	return t_ripple_bounded(dir, kib, 60, args);
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

/*
 * A tag-regex that backtracks without end, `(a+)+` against a long tag:
 * PCRE2's limit used to be read as "no match" (the tag silently not the
 * family's, 60 ms a tag); now it is an error naming the regex, the tag
 * and where the regex is written, for `version` and for every plan.
 */
Test(e2e_bounds, a_catastrophic_tag_regex_is_a_limit_error_naming_it)
{
	static const char rules[] =
		"version: 1\n"
		"roots:\n"
		"  r:\n"
		"    path: .\n"
		"    tags: 'a*'\n"
		"    tag-regex: '^(?P<version>(a+)+)$'\n"
		"policy: {reuse-versions: exact}\n";	/* plans need versions */
	char *dir = make_repo(rules);
	const char *version[] = { "version", "r", NULL };
	const char *plan[] = { "plan", NULL };
	const char *want = ":6:16: error: tag-regex "
		"'^(?P<version>(a+)+)$' failed on tag "
		"'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab': match limit "
		"exceeded\n";
	struct run_result r;

	r = t_sh(dir, "git tag aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab");
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, version);
	cr_expect_eq(r.status, 2, "version: %d %s", r.status, r.err);
	expect_has(r.err, want);
	expect_has(r.err, "hint: the regex backtracks without end on this "
		   "tag; remove nested repetition such as (a+)+");
	t_result_release(&r);
	r = t_ripple(dir, plan);
	cr_expect_eq(r.status, 2, "plan: %d %s", r.status, r.err);
	expect_has(r.err, want);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Issue 22 item 6: `release` built "refs/tags/TAG" in a char[1024], so a
 * tag name of 1,200 characters was cut to another tag's name (one that
 * exists: its first 1,013 characters) and that tag's commit was checked
 * as if it were the named one ("ok tag-commit"). The whole name is used
 * now, and a tag that does not exist does not resolve.
 */
Test(e2e_bounds, a_long_tag_name_is_never_cut_to_another_tag)
{
	static const char rules[] =
		"version: 1\n"
		"roots:\n"
		"  r: {path: ., tags: 'v*'}\n";
	char *dir = make_repo(rules);
	char tag[1300], shorter[1100], cmd[1400];
	const char *argv[] = { "release", "--dry-run", tag, NULL };
	struct run_result r;
	size_t i, len = 0;

	len += (size_t)snprintf(tag, sizeof(tag), "v2.0.0");
	for (i = 0; i < 6; i++) {
		tag[len++] = '/';
		memset(tag + len, 'a', 200);
		len += 200;
	}
	tag[len] = '\0';
	/* What "refs/tags/%s" in 1,024 bytes kept of it. */
	memcpy(shorter, tag, 1013);
	shorter[1013] = '\0';
	snprintf(cmd, sizeof(cmd), "git tag '%s'", shorter);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, argv);
	cr_expect(strstr(r.out, "FAIL  tag-commit") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "does not resolve") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "ok    tag-commit") == NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Issue 22 item 6: a --json document that never arrives (here: stdout is
 * /dev/full) used to end with exit 0 and nothing said; now the command
 * fails (3) and says why, for text output too.
 */
Test(e2e_bounds, output_that_cannot_be_written_is_an_error)
{
	char *rules = matrix_rules(2, 2, 0, "");
	char *dir = make_repo(rules);
	static const char *const cmds[] = {
		"check --json", "keys --json", "graph --format json", "check",
		"plan --json", "roots --json",
	};
	struct run_result r;
	char args[128];
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(args, sizeof(args), "%s > /dev/full", cmds[i]);
		r = ripple_sh(dir, 1024 * 1024, args);
		cr_expect_eq(r.status, 3, "%s: %d %s", cmds[i], r.status,
			     r.err);
		expect_has(r.err, "error: cannot write the output: No space "
			   "left on device");
		t_result_release(&r);
	}
	t_rmtree(dir);
	free(dir);
	free(rules);
}

/*
 * Issue 22 item 6: a same-content check joined "ROOT/PATH" in a
 * char[1024]; a longer path was cut to another file's name, and when
 * those other files were alike the check agreed although the named
 * files differ. The whole path is refused as too long now.
 */
Test(e2e_bounds, a_same_content_path_is_never_cut_to_another_file)
{
	char rel[1100], cut[1100], text[1400], name[1200];
	char *dir = t_git_init();
	const char *check[] = { "check", NULL };
	struct run_result r;
	size_t len = 0, i;

	for (i = 0; i < 4; i++) {
		memset(rel + len, 'd', 200);
		len += 200;
		rel[len++] = '/';
	}
	memset(rel + len, 'f', 250);
	len += 250;
	rel[len] = '\0';
	/* What "pa/%s" in 1,024 bytes kept of it, without "pa/". */
	memcpy(cut, rel, 1020);
	cut[1020] = '\0';
	snprintf(name, sizeof(name), "pa/%s", rel);
	t_write(dir, name, "A\n");
	snprintf(name, sizeof(name), "pb/%s", rel);
	t_write(dir, name, "B\n");
	snprintf(name, sizeof(name), "pa/%s", cut);
	t_write(dir, name, "same\n");
	snprintf(name, sizeof(name), "pb/%s", cut);
	t_write(dir, name, "same\n");
	snprintf(text, sizeof(text), "version: 1\nroots:\n  a: {path: pa}\n"
		 "  b: {path: pb}\nchecks:\n  long:\n    same-content: [%s]\n"
		 "    roots: [a, b]\n", rel);
	t_write(dir, "ripple.yml", text);
	cr_assert_eq(t_git_commit(dir, "init"), 0);
	r = t_ripple(dir, check);
	cr_expect_eq(r.status, 2, "check: %d %s %s", r.status, r.out, r.err);
	expect_has(r.err, "ripple.yml:6:3: error: check 'long': path under "
		   "root 'a' is too long (1054 bytes): 'dddd");
	cr_expect(strstr(r.out, "agree") == NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Issue 22 item 6: the ref a command works for (its trust domain in the
 * remote cache) was copied into a char[1024]; a longer --ref was cut
 * short and judged as that other ref. It is refused now.
 */
Test(e2e_bounds, a_ref_too_long_for_its_buffer_is_refused)
{
	char *rules = matrix_rules(2, 2, 0, "");
	char *dir = make_repo(rules);
	char ref[1200];
	const char *argv[] = { "plan", "--ref", ref, NULL };
	struct run_result r;

	memcpy(ref, "refs/heads/", 11);
	memset(ref + 11, 'b', 1100);
	ref[1111] = '\0';
	r = t_ripple(dir, argv);
	cr_expect_eq(r.status, 2, "plan --ref: %d %s", r.status, r.err);
	expect_has(r.err, "ripple plan: error: the ref to work for is 1111 "
		   "bytes long, more than 1023\n");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
	free(rules);
}

/*
 * Issue 22 item 6: a toolkit home was copied into CUDA_PATH_MAX (1,024)
 * bytes: a longer one was probed cut short (another folder, another
 * toolkit's libraries), and `plan` skipped the pin check without a word.
 * Both now refuse it.
 */
Test(e2e_bounds, a_toolkit_home_too_long_is_refused_not_cut)
{
	char home[1300], text[1600];
	char *dir = t_git_init();
	const char *toolkits[] = { "toolkits", NULL };
	const char *plan[] = { "plan", NULL };
	struct run_result r;
	size_t len = 0, i;

	len += (size_t)snprintf(home, sizeof(home), "/nonexistent");
	for (i = 0; i < 6; i++) {
		home[len++] = '/';
		memset(home + len, 'h', 200);
		len += 200;
	}
	home[len] = '\0';
	snprintf(text, sizeof(text), "version: 1\ntoolkits:\n"
		 "  ctk: {version: 12.9.1, home: '%s'}\nroots:\n"
		 "  r: {path: ., toolkit: ctk, tags: 'v12.9.*'}\n"
		 "artifacts:\n  w: {each: {root: roots}, toolkit: "
		 "root.toolkit, command: ['true']}\n", home);
	t_write(dir, ".gitignore", ".ripple/\n");
	t_write(dir, "ripple.yml", text);
	cr_assert_eq(t_git_commit(dir, "init"), 0);
	r = t_ripple(dir, toolkits);
	cr_expect_eq(r.status, 2, "toolkits: %d %s", r.status, r.err);
	expect_has(r.err, "error: toolkit 'ctk': home is too long (1218 "
		   "bytes)");
	t_result_release(&r);
	r = t_ripple(dir, plan);
	cr_expect_eq(r.status, 2, "plan: %d %s", r.status, r.err);
	expect_has(r.err, "error: toolkit 'ctk': home is too long (1218 "
		   "bytes)");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
