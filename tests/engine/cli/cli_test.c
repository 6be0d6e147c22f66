/*
 * Suite engine_cli: what every command shares, end to end: finding the
 * repository from a subdirectory, -C DIR with relative paths, one form for
 * errors and bad options, and colour.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static const char rules[] =
	"version: 1\n"
	"toolkits:\n"
	"  ctk: {version: '12.9.1', home: /nonexistent/ripple-ctk}\n"
	"roots:\n"
	"  a: {path: pa, fallback-version: 0.1.dev0}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots}\n"
	"    inputs: [root.sources]\n"
	"    command: [sh, build.sh]\n"
	"checks:\n"
	"  pin:\n"
	"    - {rule: toolkits.ctk.version}\n"
	"    - {file: ci/versions.txt, regex: 'cuda=(.*)'}\n";

static char *
make_repo(void)
{
	char *dir = t_git_init();

	t_write(dir, "ripple.yml", rules);
	t_write(dir, "pa/src/mod.py", "a = 1\n");
	t_write(dir, "ci/versions.txt", "cuda=12.9.1\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	return dir;
}

static char *
join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = malloc(n);

	cr_assert(p);
	snprintf(p, n, "%s/%s", a, b);
	return p;
}

Test(engine_cli, check_finds_the_repository_from_a_subdirectory)
{
	char *dir = make_repo(), *sub = join(dir, "pa/src");
	const char *argv[] = { "check", NULL };
	struct run_result r = t_ripple(sub, argv);

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "ripple.yml: ok:") == r.out, "%s", r.out);
	cr_expect(strstr(r.out, "(1 agree)") != NULL, "%s", r.out);
	t_result_release(&r);
	free(sub);
	t_rmtree(dir);
	free(dir);
}

Test(engine_cli, toolkits_reads_the_rules_from_a_subdirectory)
{
	char *dir = make_repo(), *sub = join(dir, "pa/src");
	const char *argv[] = { "toolkits", "--json", NULL };
	struct run_result r = t_ripple(sub, argv);

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\"home\": \"/nonexistent/ripple-ctk\"") !=
		  NULL, "%s", r.out);
	cr_expect(strstr(r.out, "\"name\": \"ctk\"") != NULL, "%s", r.out);
	t_result_release(&r);
	free(sub);
	t_rmtree(dir);
	free(dir);
}

/* Every command that reads a repository finds the same one from below. */
Test(engine_cli, every_command_finds_the_repository_from_a_subdirectory)
{
	static const char *const cmds[][4] = {
		{ "check", NULL }, { "plan", NULL }, { "graph", NULL },
		{ "keys", NULL }, { "runs", NULL }, { "version", "a", NULL },
		{ "toolkits", NULL },
	};
	char *dir = make_repo(), *sub = join(dir, "pa/src");
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct run_result r = t_ripple(sub, cmds[i]);

		cr_expect_eq(r.status, 0, "%s: %s", cmds[i][0], r.err);
		t_result_release(&r);
	}
	free(sub);
	t_rmtree(dir);
	free(dir);
}

/* -C DIR is "as if started in DIR": a relative --rules is taken from DIR. */
Test(engine_cli, dash_C_takes_a_relative_rules_file_from_DIR)
{
	static const char *const cmds[][8] = {
		{ "-C", "repo", "plan", "--rules", "alt.yml", NULL },
		{ "-C", "repo", "graph", "--rules", "alt.yml", NULL },
		{ "-C", "repo", "keys", "--rules", "alt.yml", NULL },
		{ "-C", "repo", "why", "wheel", "--rules", "alt.yml", NULL },
		{ "-C", "repo", "check", "--rules", "alt.yml", NULL },
		{ "-C", "repo", "version", "a", "--rules", "alt.yml", NULL },
		{ "-C", "repo", "toolkits", "--rules", "alt.yml", NULL },
		{ "-C", "repo", "run", "--dry-run", "--rules", "alt.yml",
		  NULL },
	};
	char *top = t_tmpdir(), *dir = make_repo(), *link = join(top, "repo");
	struct run_result r;
	char cmd[8192];
	size_t i;

	snprintf(cmd, sizeof(cmd), "ln -s '%s' '%s' && cp '%s/ripple.yml' "
		 "'%s/alt.yml'", dir, link, dir, dir);
	r = t_sh(top, cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		r = t_ripple(top, cmds[i]);
		cr_expect_eq(r.status, 0, "%s: %s", cmds[i][2], r.err);
		t_result_release(&r);
	}
	free(link);
	t_rmtree(dir);
	free(dir);
	t_rmtree(top);
	free(top);
}

/*
 * `check --rules FILE` checks the repository it runs in: drift files come
 * from that working tree, not from the folder holding FILE.
 */
Test(engine_cli, check_rules_reads_drift_files_from_the_checked_repository)
{
	char *dir = make_repo(), *other = t_tmpdir(), *file;
	const char *argv[] = { "check", "--rules", NULL, NULL };
	struct run_result r;

	t_write(other, "ripple.yml", rules);
	t_write(other, "ci/versions.txt", "cuda=13.0.0\n");
	file = join(other, "ripple.yml");
	argv[2] = file;
	r = t_ripple(dir, argv);
	cr_expect_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	/* And a disagreement in the checked repository is found. */
	t_write(dir, "ci/versions.txt", "cuda=12.8.0\n");
	t_write(other, "ci/versions.txt", "cuda=12.9.1\n");
	r = t_ripple(dir, argv);
	cr_expect_eq(r.status, 2, "%s", r.out);
	cr_expect(strstr(r.err, "\"12.8.0\"") != NULL, "%s", r.err);
	t_result_release(&r);
	free(file);
	t_rmtree(other);
	free(other);
	t_rmtree(dir);
	free(dir);
}

/* An unknown option: one error line and a pointer to --help, no usage. */
Test(engine_cli, an_unknown_option_is_one_line_and_a_pointer_to_help)
{
	static const char *const cmds[] = {
		"plan", "why", "run", "graph", "keys", "check", "diff",
		"record", "runs", "version", "release", "toolkits",
		"devices", "cuda-smoke",
	};
	char *dir = make_repo();
	char want[256];
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *argv[] = { cmds[i], "--bogus", NULL };
		struct run_result r = t_ripple(dir, argv);

		snprintf(want, sizeof(want), "ripple %s: error: unknown option "
			 "'--bogus'\nTry 'ripple %s --help'.\n", cmds[i],
			 cmds[i]);
		cr_expect_eq(r.status, 2, "%s", cmds[i]);
		cr_expect_str_eq(r.err, want);
		cr_expect_str_eq(r.out, "");
		t_result_release(&r);
	}
	t_rmtree(dir);
	free(dir);
}

Test(engine_cli, a_misspelt_option_gets_a_suggestion)
{
	char *dir = make_repo();
	const char *argv[] = { "plan", "--jsno", NULL };
	struct run_result r = t_ripple(dir, argv);

	cr_expect_eq(r.status, 2);
	cr_expect_str_eq(r.err, "ripple plan: error: unknown option '--jsno'\n"
				"  hint: did you mean '--json'?\n"
				"Try 'ripple plan --help'.\n");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(engine_cli, a_missing_option_value_names_the_option)
{
	char *dir = make_repo();
	const char *argv[] = { "graph", "--rules", NULL };
	const char *argv2[] = { "run", "-j", NULL };
	struct run_result r = t_ripple(dir, argv);

	cr_expect_eq(r.status, 2);
	cr_expect_str_eq(r.err, "ripple graph: error: option '--rules' needs "
				"a value\nTry 'ripple graph --help'.\n");
	t_result_release(&r);
	r = t_ripple(dir, argv2);
	cr_expect_eq(r.status, 2);
	cr_expect_str_eq(r.err, "ripple run: error: option '-j' needs a "
				"value\nTry 'ripple run --help'.\n");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* Errors that name no file say which command failed. */
Test(engine_cli, errors_without_a_file_name_the_command)
{
	char *dir = t_tmpdir();
	const char *plan[] = { "plan", NULL };
	const char *runs[] = { "runs", "extra", NULL };
	struct run_result r = t_ripple(dir, plan);

	cr_expect_eq(r.status, 2);
	cr_expect(strncmp(r.err, "ripple plan: error: not a git repository",
			  40) == 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, runs);
	cr_expect_eq(r.status, 2);
	cr_expect(strncmp(r.err, "ripple runs: error: ", 20) == 0, "%s",
		  r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(engine_cli, color_always_and_never)
{
	char *dir = t_tmpdir();
	const char *always[] = { "--color=always", "plan", NULL };
	const char *never[] = { "--color=never", "plan", NULL };
	const char *bad[] = { "--color=sometimes", "plan", NULL };
	struct run_result r = t_ripple(dir, always);

	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "\033[1;31merror:\033[0m") != NULL, "%s",
		  r.err);
	t_result_release(&r);
	r = t_ripple(dir, never);
	cr_expect_eq(r.status, 2);
	cr_expect(strchr(r.err, '\033') == NULL, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, bad);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "--color takes auto, always or never") !=
		  NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * On a terminal, colour is on by default and off for TERM=dumb (and
 * NO_COLOR), as ninja and git do. script(1) gives ripple a terminal.
 */
Test(engine_cli, term_dumb_turns_colour_off_on_a_terminal)
{
	char *dir = t_tmpdir();
	const char *bin = getenv("RIPPLE_BIN");
	char *abs = realpath(bin && bin[0] ? bin : "build/ripple", NULL);
	char cmd[8192];
	struct run_result r;

	cr_assert(abs);
	r = t_sh(dir, "command -v script >/dev/null");
	if (r.status) {
		t_result_release(&r);
		cr_skip_test("script(1) is not installed");
	}
	t_result_release(&r);
	snprintf(cmd, sizeof(cmd), "TERM=xterm script -qec '%s plan' "
		 "/dev/null", abs);
	r = t_sh(dir, cmd);
	cr_expect(strstr(r.out, "\033[1;31merror:") != NULL, "%s", r.out);
	t_result_release(&r);
	snprintf(cmd, sizeof(cmd), "TERM=dumb script -qec '%s plan' "
		 "/dev/null", abs);
	r = t_sh(dir, cmd);
	cr_expect(strstr(r.out, "error:") != NULL, "%s", r.out);
	cr_expect(strchr(r.out, '\033') == NULL, "%s", r.out);
	t_result_release(&r);
	free(abs);
	t_rmtree(dir);
	free(dir);
}
