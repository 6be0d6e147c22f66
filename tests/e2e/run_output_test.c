/*
 * Suite e2e_run_output: what `ripple run` prints and where: the report on
 * stdout, progress on stderr (one line per finished node in a log, one
 * status line rewritten on a terminal), and a dry run that refuses what
 * the run refuses and writes nothing.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/support/support.h"

static const char rules_yml[] =
	"version: 1\n"
	"axes:\n"
	"  platform: [linux-64, win-64]\n"
	"sources:\n"
	"  lib-src: {paths: [\"src/**\"]}\n"
	"artifacts:\n"
	"  lib:\n"
	"    inputs: [lib-src]\n"
	"    command: \"mkdir -p out && cat src/lib.txt > out/lib.bin\"\n"
	"    outputs: [out/lib.bin]\n"
	"tests:\n"
	"  lib-test:\n"
	"    needs: [lib]\n"
	"    command: \"grep -q hello out/lib.bin\"\n";

static char *
make_repo(void)
{
	char *dir = t_git_init();

	t_write(dir, ".gitignore", ".ripple/\nout/\n");
	t_write(dir, "ripple.yml", rules_yml);
	t_write(dir, "src/lib.txt", "hello\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	return dir;
}

static int
exists(const char *dir, const char *rel)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return stat(path, &st) == 0;
}

Test(e2e_run_output, the_report_goes_to_stdout_and_progress_to_stderr)
{
	char *dir = make_repo();
	const char *argv[] = { "run", "--run-id", "r1", NULL };
	struct run_result r = t_ripple(dir, argv);

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "run r1: baseline none") == r.out, "%s",
		  r.out);
	cr_expect(strstr(r.out, "run r1 ok: 1 built, ") != NULL, "%s", r.out);
	cr_expect(strstr(r.err, "run r1") == NULL, "%s", r.err);
	/* Not a terminal: one line per finished node, state and duration. */
	cr_expect(strstr(r.err, "[1/2] ok artifact:lib ") != NULL, "%s",
		  r.err);
	cr_expect(strstr(r.err, "[2/2] ok test:lib-test ") != NULL, "%s",
		  r.err);
	cr_expect(strstr(r.err, "s\n") != NULL, "%s", r.err);
	cr_expect(strstr(r.err, "build artifact:lib") == NULL,
		  "no line when a node starts: %s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run_output, a_failure_and_its_log_are_in_the_report)
{
	char *dir = make_repo();
	const char *argv[] = { "run", NULL };
	struct run_result r;

	t_write(dir, "src/lib.txt", "bye\n");
	cr_assert_eq(t_git_commit(dir, "bye"), 0);
	r = t_ripple(dir, argv);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.out, "FAILED: test:lib-test: ") != NULL, "%s",
		  r.out);
	cr_expect(strstr(r.err, "[2/2] failed test:lib-test ") != NULL, "%s",
		  r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* On a terminal: `[done/total] NODE`, rewritten in place, then cleared. */
Test(e2e_run_output, a_terminal_gets_one_status_line)
{
	char *dir = make_repo();
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
	snprintf(cmd, sizeof(cmd), "TERM=xterm script -qec '%s run 2>&1' "
		 "/dev/null", abs);
	r = t_sh(dir, cmd);
	cr_expect(strstr(r.out, "\r\033[K[0/2] artifact:lib") != NULL, "%s",
		  r.out);
	cr_expect(strstr(r.out, "\r\033[K[1/2] test:lib-test") != NULL, "%s",
		  r.out);
	cr_expect(strstr(r.out, "] ok ") == NULL, "%s", r.out);
	cr_expect(strstr(r.out, " ok: 1 built, ") != NULL, "%s", r.out);
	t_result_release(&r);
	free(abs);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run_output, a_dry_run_refuses_an_unknown_platform_like_the_run)
{
	char *dir = make_repo();
	const char *dry[] = { "run", "--dry-run", "--platform", "linux64",
			      NULL };
	const char *only[] = { "run", "--dry-run", "--only", "nope*", NULL };
	struct run_result r = t_ripple(dir, dry);

	cr_expect_eq(r.status, 2, "%s", r.out);
	cr_expect(strstr(r.err, "unknown platform 'linux64'") != NULL, "%s",
		  r.err);
	cr_expect(strstr(r.err, "did you mean 'linux-64'?") != NULL, "%s",
		  r.err);
	cr_expect_str_eq(r.out, "");
	t_result_release(&r);
	r = t_ripple(dir, only);
	cr_expect_eq(r.status, 2, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run_output, a_dry_run_writes_no_cache)
{
	char *dir = make_repo();
	const char *dry[] = { "run", "--dry-run", NULL };
	const char *dry_json[] = { "run", "--dry-run", "--json", NULL };
	struct run_result r = t_ripple(dir, dry);

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "artifact:lib") != NULL, "%s", r.out);
	t_result_release(&r);
	r = t_ripple(dir, dry_json);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\"ripple-plan-v1\"") != NULL, "%s", r.out);
	t_result_release(&r);
	cr_expect(!exists(dir, ".ripple/cache.db"), "a dry run made the cache");
	cr_expect(!exists(dir, ".ripple"), "a dry run made .ripple/");
	t_rmtree(dir);
	free(dir);
}

/* A status line never wraps (it could not be rewritten): long ids elide. */
Test(e2e_run_output, a_long_node_id_is_elided_on_the_status_line)
{
	char *dir = t_git_init();
	const char *bin = getenv("RIPPLE_BIN");
	char *abs = realpath(bin && bin[0] ? bin : "build/ripple", NULL);
	char cmd[8192], inner[4096], name[121];
	struct run_result r;
	const char *at;

	cr_assert(abs);
	r = t_sh(dir, "command -v script >/dev/null");
	if (r.status) {
		t_result_release(&r);
		cr_skip_test("script(1) is not installed");
	}
	t_result_release(&r);
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(cmd, sizeof(cmd), "version: 1\nartifacts:\n  %s: "
		 "{command: \"true\"}\n", name);
	t_write(dir, "ripple.yml", cmd);
	cr_assert_eq(t_git_commit(dir, "long"), 0);
	snprintf(inner, sizeof(inner), "stty cols 60 2>/dev/null; "
		 "TERM=xterm %s run 2>&1", abs);
	snprintf(cmd, sizeof(cmd), "script -qec '%s' /dev/null", inner);
	r = t_sh(dir, cmd);
	at = strstr(r.out, "\r\033[K[0/1] artifact:xxx");
	cr_assert(at != NULL, "%s", r.out);
	cr_expect(strstr(at, "...xxx") != NULL, "%s", r.out);
	cr_expect(strcspn(at + 4, "\r\n") <= 59, "%s", r.out);
	t_result_release(&r);
	free(abs);
	t_rmtree(dir);
	free(dir);
}
