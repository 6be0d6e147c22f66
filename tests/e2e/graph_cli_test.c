/*
 * Suite e2e_graph: `ripple graph` and `ripple keys` on repositories the
 * tests create: renderings, keys independent of the checkout's path, and
 * keys that change exactly when a claimed input does.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static const char rules[] =
	"version: 1\n"
	"roots:\n"
	"  a: {path: pa}\n"
	"  b: {path: pb}\n"
	"axes:\n"
	"  python: ['3.12', '3.13']\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots, python: axes.python}\n"
	"    inputs: [root.sources]\n"
	"    command: [sh, build.sh, '${root.path}', '${python}']\n"
	"tests:\n"
	"  t:\n"
	"    each: {root: roots, python: ['3.12']}\n"
	"    needs: [wheel, root.tests]\n"
	"    command: [sh, test.sh]\n"
	"policy:\n"
	"  ignore: ['**/*.md']\n";

static char *
make_repo(void)
{
	char *dir = t_git_init();

	t_write(dir, "ripple.yml", rules);
	t_write(dir, "pa/src/mod.py", "a = 1\n");
	t_write(dir, "pa/tests/test_mod.py", "def test(): pass\n");
	t_write(dir, "pa/README.md", "docs\n");
	t_write(dir, "pb/src/mod.py", "b = 1\n");
	t_write(dir, "pb/tests/test_mod.py", "def test(): pass\n");
	t_write(dir, "shared/helper.py", "h = 1\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	return dir;
}

static char *
keys(const char *dir, const char *extra)
{
	const char *argv[] = { "keys", extra, NULL };
	struct run_result r = t_ripple(dir, argv);
	char *out;

	cr_assert_eq(r.status, 0, "keys failed: %s", r.err);
	out = r.out;
	r.out = NULL;
	t_result_release(&r);
	return out;
}

/* The key line of the node whose id is exactly `id`. */
static char *
key_of(const char *all, const char *id)
{
	char pat[512];
	const char *at;
	char *k = calloc(1, 33);

	snprintf(pat, sizeof(pat), "  %s\n", id);
	at = strstr(all, pat);
	cr_assert_not_null(at, "no key for %s in\n%s", id, all);
	cr_assert_geq(at - all, 32);
	memcpy(k, at - 32, 32);
	return k;
}

Test(e2e_graph, keys_do_not_depend_on_the_checkout_path)
{
	char *dir = make_repo(), *other = t_tmpdir(), cmd[4096];
	char *k1, *k2;
	struct run_result r;

	snprintf(cmd, sizeof(cmd), "git clone -q '%s' '%s/deep/er/clone'",
		 dir, other);
	r = t_sh("/", cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	k1 = keys(dir, NULL);
	snprintf(cmd, sizeof(cmd), "%s/deep/er/clone", other);
	k2 = keys(cmd, NULL);
	cr_expect_str_eq(k1, k2);
	free(k1);
	free(k2);
	t_rmtree(other);
	t_rmtree(dir);
	free(other);
	free(dir);
}

Test(e2e_graph, keys_change_exactly_with_claimed_inputs)
{
	char *dir = make_repo(), *k0, *k1, *k2, *k3;
	const char *wa = "artifact:wheel[python=3.12,root=a]";
	const char *wb = "artifact:wheel[python=3.12,root=b]";
	const char *ta = "test:t[python=3.12,root=a]";
	char *a0, *b0, *t0, *a1, *b1, *t1;
	struct run_result r;

	k0 = keys(dir, NULL);
	/* Unclaimed file, ignored docs, and a touch: no key changes. */
	t_write(dir, "shared/helper.py", "h = 2\n");
	t_write(dir, "pa/README.md", "more docs\n");
	cr_assert_eq(t_git_commit(dir, "unclaimed and ignored"), 0);
	r = t_sh(dir, "touch pa/src/mod.py");
	t_result_release(&r);
	k1 = keys(dir, NULL);
	cr_expect_str_eq(k0, k1);
	/* A test file changes the test's key, not the wheel's. */
	t_write(dir, "pa/tests/test_mod.py", "def test(): assert 1\n");
	cr_assert_eq(t_git_commit(dir, "test only"), 0);
	k2 = keys(dir, NULL);
	a0 = key_of(k1, wa);
	a1 = key_of(k2, wa);
	t0 = key_of(k1, ta);
	t1 = key_of(k2, ta);
	cr_expect_str_eq(a0, a1);
	cr_expect_str_neq(t0, t1);
	free(a1);
	free(t1);
	/* A source file of root a: a's wheel and test change, b's do not. */
	t_write(dir, "pa/src/mod.py", "a = 2\n");
	cr_assert_eq(t_git_commit(dir, "source a"), 0);
	k3 = keys(dir, NULL);
	a1 = key_of(k3, wa);
	b0 = key_of(k2, wb);
	b1 = key_of(k3, wb);
	cr_expect_str_neq(a0, a1);
	cr_expect_str_eq(b0, b1);
	/* The working tree reads uncommitted edits; a clean tree equals HEAD. */
	free(k1);
	k1 = keys(dir, "--worktree");
	cr_expect_str_eq(k1, k3);
	t_write(dir, "pb/src/new.py", "n = 1\n");
	free(k1);
	k1 = keys(dir, "--worktree");
	free(b1);
	b1 = key_of(k1, wb);
	cr_expect_str_neq(b0, b1);
	free(a0); free(a1); free(b0); free(b1); free(t0);
	free(k0); free(k1); free(k2); free(k3);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_graph, dot_renders_with_graphviz)
{
	char *dir = make_repo(), cmd[4096];
	const char *bin = getenv("RIPPLE_BIN");
	char *abs = realpath(bin ? bin : "build/ripple", NULL);
	struct run_result r;

	cr_assert_not_null(abs);
	snprintf(cmd, sizeof(cmd), "'%s' graph --format dot > g.dot && "
		 "dot -Tsvg g.dot > g.svg && grep -c '<g id=\"node' g.svg",
		 abs);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "dot failed: %s", r.err);
	cr_expect_eq(strtol(r.out, NULL, 10), 6, "4 wheels and 2 tests");
	t_result_release(&r);
	t_rmtree(dir);
	free(abs);
	free(dir);
}

Test(e2e_graph, mermaid_output_is_well_formed)
{
	char *dir = make_repo();
	const char *argv[] = { "graph", "--format", "mermaid", NULL };
	struct run_result r = t_ripple(dir, argv);
	char *line, *save = NULL;
	int nodes = 0, edges = 0;

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(!strncmp(r.out, "flowchart LR\n", 13));
	for (line = strtok_r(r.out + 13, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		int a, b, n = 0;

		if (sscanf(line, "  n%d --> n%d%n", &a, &b, &n) == 2 &&
		    !line[n]) {
			edges++;
			continue;
		}
		cr_assert(sscanf(line, "  n%d[\"%n", &a, &n) == 1 && n > 0,
			  "bad line: %s", line);
		cr_assert(!strcmp(line + strlen(line) - 2, "\"]"),
			  "bad line: %s", line);
		cr_assert(strchr(line + n, '"') == line + strlen(line) - 2,
			  "a quote inside the label: %s", line);
		nodes++;
	}
	cr_expect_eq(nodes, 6);
	cr_expect_eq(edges, 2);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_graph, json_graph_is_deterministic_and_sorted)
{
	char *dir = make_repo();
	const char *argv[] = { "graph", "--format", "json", NULL };
	struct run_result r1 = t_ripple(dir, argv), r2 = t_ripple(dir, argv);

	cr_assert_eq(r1.status, 0);
	cr_expect_str_eq(r1.out, r2.out);
	cr_expect(strstr(r1.out, "\"schema\": \"ripple-graph-v1\"") != NULL);
	t_result_release(&r1);
	t_result_release(&r2);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_graph, unknown_target_suggests_a_name)
{
	char *dir = make_repo();
	const char *argv[] = { "graph", "whel", NULL };
	struct run_result r = t_ripple(dir, argv);

	cr_expect_eq(r.status, 2);
	cr_expect_str_eq(r.err, "ripple graph: error: target 'whel' selects no "
				"node\n  hint: did you mean 'wheel'?\n");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_graph, plans_say_when_the_rules_have_uncommitted_changes)
{
	char *dir = make_repo();
	const char *plan[] = { "plan", NULL };
	struct run_result r;

	r = t_ripple(dir, plan);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "uncommitted changes") == NULL, "%s", r.err);
	t_result_release(&r);
	r = t_sh(dir, "echo '# an edit' >> ripple.yml");
	t_result_release(&r);
	r = t_ripple(dir, plan);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "ripple plan: note: ripple.yml has "
			 "uncommitted changes") != NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * check reads the working tree's ripple.yml, plan the commit's: an edit
 * that check passes is not what plan uses, so check says so (it passed
 * silently before), and says nothing when they agree or with --rules.
 */
Test(e2e_graph, check_says_plan_reads_the_committed_rules)
{
	char *dir = make_repo();
	const char *check[] = { "check", NULL };
	const char *named[] = { "check", "--rules", "ripple.yml", NULL };
	struct run_result r;

	r = t_ripple(dir, check);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err, "");
	t_result_release(&r);
	r = t_sh(dir, "echo '# an edit' >> ripple.yml");
	t_result_release(&r);
	r = t_ripple(dir, check);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "ripple check: note: ripple.yml has "
			 "uncommitted changes; this checks the working "
			 "tree's, plan and run read the rules of commit ")
		  != NULL, "%s", r.err);
	cr_expect(strstr(r.err, "(HEAD) unless --worktree") != NULL, "%s",
		  r.err);
	t_result_release(&r);
	r = t_ripple(dir, named);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err, "", "--rules names the file to check");
	t_result_release(&r);
	r = t_sh(dir, "git rm -q --cached ripple.yml && git -c user.name=t "
		 "-c user.email=t@example.com commit -qm 'no rules'");
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, check);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "ripple check: note: ripple.yml is not in "
			 "commit ") != NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_graph, rules_missing_at_the_commit_say_how_to_fix_it)
{
	char *dir = t_git_init();
	const char *graph[] = { "graph", NULL };
	struct run_result r;

	t_write(dir, "a.txt", "a\n");
	cr_assert_eq(t_git_commit(dir, "no rules"), 0);
	t_write(dir, "ripple.yml", rules);
	r = t_ripple(dir, graph);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "hint: plans read the rules of the commit: "
			 "commit ripple.yml, or use --worktree") != NULL, "%s",
		  r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_graph, check_refuses_outputs_two_nodes_share)
{
	static const char y[] =
		"version: 1\n"
		"axes:\n"
		"  python: ['3.11', '3.12']\n"
		"  platform: [linux-64, win-64]\n"
		"artifacts:\n"
		"  wheel:\n"
		"    each: {python: axes.python}\n"
		"    command: [build]\n"
		"    outputs: ['out/*.whl']\n"
		"  exe:\n"
		"    each: {platform: axes.platform}\n"
		"    command: [build]\n"
		"    outputs: ['bin/tool']\n";
	char *dir = t_git_init();
	const char *check[] = { "check", NULL };
	struct run_result r;

	t_write(dir, "ripple.yml", y);
	r = t_ripple(dir, check);
	cr_expect_eq(r.status, 2, "an error (issue 13, item 7): %s", r.err);
	cr_expect(strstr(r.err, "ripple.yml:6:3: error: output 'out/*.whl' "
			 "of artifact:wheel[python=3.12] is also declared by "
			 "artifact:wheel[python=3.11]") != NULL, "%s", r.err);
	cr_expect(strstr(r.err, "bin/tool") == NULL,
		  "other platforms run on other runners: %s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_graph, keys_do_not_depend_on_user_locale_or_environment)
{
	char *dir = make_repo(), cmd[4096];
	const char *bin = getenv("RIPPLE_BIN");
	char *abs = realpath(bin ? bin : "build/ripple", NULL);
	struct run_result a, b;

	cr_assert_not_null(abs);
	snprintf(cmd, sizeof(cmd), "env -i PATH=/usr/bin:/bin LC_ALL=C "
		 "HOME=/tmp TMPDIR=/tmp USER=a '%s' keys", abs);
	a = t_sh(dir, cmd);
	snprintf(cmd, sizeof(cmd), "env -i PATH=/bin:/usr/bin ZZZ=1 "
		 "LC_ALL=C.UTF-8 LANG=de_DE.UTF-8 HOME=/nonexistent "
		 "TMPDIR=/var/tmp USER=b AAA=2 '%s' keys", abs);
	b = t_sh(dir, cmd);
	cr_assert_eq(a.status, 0, "%s", a.err);
	cr_assert_eq(b.status, 0, "%s", b.err);
	cr_expect_str_eq(a.out, b.out);
	t_result_release(&a);
	t_result_release(&b);
	free(abs);
	t_rmtree(dir);
	free(dir);
}
