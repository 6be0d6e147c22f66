/*
 * Suite e2e_run: `ripple run` on small repositories made here, with real
 * shell actions: build then reuse, early cutoff, plan and run deciding
 * alike, timeouts, a SIGKILLed run followed by a clean one, and two runs
 * recording into one cache at once.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "cache/cache.h"
#include "tests/support/support.h"

static const char rules_yml[] =
	"version: 1\n"
	"sources:\n"
	"  lib-src: {paths: [\"src/**\"]}\n"
	"  tests-src: {paths: [\"tests/**\"]}\n"
	"artifacts:\n"
	"  lib:\n"
	"    inputs: [lib-src]\n"
	"    command: \"mkdir -p out && grep -v '^#' src/lib.txt > out/lib.bin\"\n"
	"    outputs: [out/lib.bin]\n"
	"tests:\n"
	"  lib-test:\n"
	"    needs: [lib, tests-src]\n"
	"    command: \"grep -q hello out/lib.bin && echo tested >> out/tests.log\"\n";

static char *
make_repo(const char *rules)
{
	char *dir = t_git_init();

	t_write(dir, ".gitignore", ".ripple/\nout/\n");
	t_write(dir, "ripple.yml", rules);
	t_write(dir, "src/lib.txt", "# first comment\nhello\n");
	t_write(dir, "tests/t.txt", "test\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	return dir;
}

static struct run_result
ripple(const char *dir, const char *const *argv)
{
	return t_ripple(dir, argv);
}

/* id -> field of every node of a plan or run JSON document. */
static const char *
node_field(json_t *doc, const char *id, const char *field)
{
	json_t *nodes = json_object_get(doc, "nodes"), *n;
	size_t i;

	json_array_foreach(nodes, i, n)
		if (!strcmp(json_string_value(json_object_get(n, "id")), id))
			return json_string_value(json_object_get(n, field));
	return NULL;
}

static json_t *
parse(const char *text)
{
	json_error_t je;
	json_t *doc = json_loads(text, 0, &je);

	cr_assert_not_null(doc, "bad JSON: %s\n%s", je.text, text);
	return doc;
}

Test(e2e_run, a_run_builds_everything_and_a_second_run_reuses_it)
{
	char *dir = make_repo(rules_yml);
	const char *first[] = { "run", "--run-id", "r1", "--json", NULL };
	const char *second[] = { "run", "--run-id", "r2", "--base", "HEAD",
				 "--json", NULL };
	struct run_result r;
	json_t *doc;
	char path[PATH_MAX], *log;

	r = ripple(dir, first);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	doc = parse(r.out);
	cr_expect_str_eq(node_field(doc, "artifact:lib", "status"), "ok");
	cr_expect_str_eq(node_field(doc, "test:lib-test", "status"), "ok");
	cr_expect_str_eq(json_string_value(json_object_get(doc, "status")),
			 "ok");
	json_decref(doc);
	t_result_release(&r);

	r = ripple(dir, second);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	doc = parse(r.out);
	cr_expect_str_eq(node_field(doc, "artifact:lib", "status"), "reused");
	cr_expect_str_eq(node_field(doc, "test:lib-test", "status"),
			 "reused");
	json_decref(doc);
	t_result_release(&r);
	snprintf(path, sizeof(path), "%s/out/tests.log", dir);
	log = t_read(path);
	cr_expect_str_eq(log, "tested\n", "the test ran once");
	free(log);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run, unchanged_output_bytes_cut_off_the_test)
{
	char *dir = make_repo(rules_yml);
	const char *first[] = { "run", "--run-id", "r1", NULL };
	const char *plan[] = { "plan", "--base", "HEAD~1", "--json", NULL };
	const char *run[] = { "run", "--run-id", "r2", "--base", "HEAD~1",
			      "--json", NULL };
	struct run_result r;
	json_t *pdoc, *rdoc, *n;
	size_t i;

	r = ripple(dir, first);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	/* A comment edit: the input changes, the built bytes do not. */
	t_write(dir, "src/lib.txt", "# another comment\nhello\n");
	cr_assert_eq(t_git_commit(dir, "comment"), 0);

	r = ripple(dir, plan);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	pdoc = parse(r.out);
	t_result_release(&r);
	r = ripple(dir, run);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	rdoc = parse(r.out);
	cr_expect(strstr(r.err, "cut off at artifact:lib"), "%s", r.err);
	t_result_release(&r);

	cr_expect_str_eq(node_field(pdoc, "artifact:lib", "decision"),
			 "build");
	cr_expect_str_eq(node_field(pdoc, "test:lib-test", "reason"),
			 "upstream-rebuilt");
	cr_expect_str_eq(node_field(rdoc, "artifact:lib", "status"), "ok");
	cr_expect_str_eq(node_field(rdoc, "test:lib-test", "status"),
			 "cutoff");
	cr_expect_str_eq(node_field(rdoc, "test:lib-test", "cause"),
			 "artifact:lib");
	/* One planner: every decision the run made is the plan's. */
	cr_assert_eq(json_array_size(json_object_get(pdoc, "nodes")),
		     json_array_size(json_object_get(rdoc, "nodes")));
	json_array_foreach(json_object_get(pdoc, "nodes"), i, n) {
		const char *id = json_string_value(json_object_get(n, "id"));

		cr_expect_str_eq(json_string_value(json_object_get(n,
							"decision")),
				 node_field(rdoc, id, "decision"), "%s", id);
		cr_expect_str_eq(json_string_value(json_object_get(n,
							"reason")),
				 node_field(rdoc, id, "reason"), "%s", id);
	}
	json_decref(pdoc);
	json_decref(rdoc);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run, a_failure_blocks_the_test_and_its_log_is_printed_once)
{
	static const char y[] =
		"version: 1\n"
		"artifacts:\n"
		"  broken: {command: \"echo unique-marker-x; exit 3\"}\n"
		"tests:\n"
		"  t: {needs: [broken], command: [\"true\"]}\n";
	char *dir = make_repo(y);
	const char *argv[] = { "run", "--json", NULL };
	struct run_result r = ripple(dir, argv);
	json_t *doc;
	const char *at;

	cr_expect_eq(r.status, 1, "%s", r.err);
	at = strstr(r.err, "unique-marker-x");
	cr_assert(at, "%s", r.err);
	cr_expect_null(strstr(at + 1, "unique-marker-x"), "%s", r.err);
	doc = parse(r.out);
	cr_expect_str_eq(node_field(doc, "artifact:broken", "status"),
			 "failed");
	cr_expect_str_eq(node_field(doc, "test:t", "status"), "blocked");
	json_decref(doc);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run, a_timeout_kills_the_action_and_records_timeout)
{
	static const char y[] =
		"version: 1\n"
		"artifacts:\n"
		"  slow: {command: \"sleep 30\"}\n";
	char *dir = make_repo(y);
	const char *argv[] = { "run", "--run-id", "t1", "--timeout", "1",
			       "--json", NULL };
	struct run_result r = ripple(dir, argv);
	struct cache_record rec;
	struct cache *c = NULL;
	struct error err;
	char path[PATH_MAX];
	json_t *doc;

	cr_expect_eq(r.status, 1, "%s", r.err);
	doc = parse(r.out);
	cr_expect_str_eq(node_field(doc, "artifact:slow", "status"),
			 "timeout");
	json_decref(doc);
	t_result_release(&r);
	error_init(&err);
	snprintf(path, sizeof(path), "%s/.ripple/cache.db", dir);
	cr_assert_eq(cache_open(path, 0, &c, &err), 0, "%s", err.msg);
	cache_record_init(&rec);
	cr_assert_eq(cache_record_get(c, "t1", "artifact:slow", &rec, &err),
		     0, "%s", err.msg);
	cr_expect_eq(rec.status, CACHE_RECORD_STATUS_TIMEOUT);
	cache_record_release(&rec);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
}

static const char *
bin(void)
{
	static char path[PATH_MAX];
	const char *b = getenv("RIPPLE_BIN");

	if (!realpath(b && b[0] ? b : "build/ripple", path))
		cr_assert_fail("no ripple binary");
	return path;
}

Test(e2e_run, a_sigkilled_run_leaves_a_cache_the_next_run_uses)
{
	static const char y[] =
		"version: 1\n"
		"artifacts:\n"
		"  quick: {command: \"echo q > quick.out\"}\n"
		"  sleepy:\n"
		"    needs: [quick]\n"
		"    command: \"if [ -f started ]; then exit 0; fi; "
		"echo $$ > sleeper.pid; touch started; exec sleep 30\"\n";
	char *dir = make_repo(y);
	const char *again[] = { "run", "--run-id", "k2", "--json", NULL };
	const char *check[] = { "cache", "check", NULL };
	char cmd[2 * PATH_MAX];
	struct run_result r;
	json_t *doc;

	snprintf(cmd, sizeof(cmd),
		 "%s run --run-id k1 >/dev/null 2>&1 & p=$!; "
		 "for i in $(seq 300); do [ -f started ] && break; "
		 "sleep 0.05; done; kill -9 $p; wait $p; "
		 "kill $(cat sleeper.pid) 2>/dev/null; test -f started", bin());
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	r = ripple(dir, check);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	r = ripple(dir, again);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	doc = parse(r.out);
	cr_expect_str_eq(node_field(doc, "artifact:sleepy", "status"), "ok");
	json_decref(doc);
	t_result_release(&r);
	r = ripple(dir, check);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run, two_runs_on_one_cache_at_once_lose_no_records)
{
	static const char y[] =
		"version: 1\n"
		"axes:\n"
		"  n: [\"01\", \"02\", \"03\", \"04\", \"05\", \"06\", \"07\", "
		"\"08\", \"09\", \"10\", \"11\", \"12\", \"13\", \"14\", "
		"\"15\", \"16\"]\n"
		"artifacts:\n"
		"  a: {each: {n: axes.n}, command: [\"true\"]}\n"
		"tests:\n"
		"  t: {each: {n: axes.n}, needs: [a], command: [\"true\"]}\n";
	char *dir = make_repo(y);
	struct cache_record_list list = { NULL, 0 };
	struct cache *c = NULL;
	struct error err;
	struct run_result r;
	char cmd[3 * PATH_MAX], path[PATH_MAX];
	size_t i;

	/*
	 * Eight times on a new cache: two processes creating one file at once
	 * once raced for the switch to WAL ("database is locked").
	 */
	snprintf(cmd, sizeof(cmd),
		 "for i in 1 2 3 4 5 6 7 8; do rm -rf .ripple; "
		 "%s run --run-id p1 -j 4 2>p1.err & a=$!; "
		 "%s run --run-id p2 -j 4 2>p2.err & b=$!; "
		 "wait $a || { cat p1.err; exit 1; }; "
		 "wait $b || { cat p2.err; exit 2; }; done", bin(), bin());
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	error_init(&err);
	snprintf(path, sizeof(path), "%s/.ripple/cache.db", dir);
	cr_assert_eq(cache_open(path, 0, &c, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_integrity_check(c, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_record_list(c, "p1", &list, &err), 0);
	cr_expect_eq(list.n, 32);
	for (i = 1; i < list.n; i++)
		cr_expect_str_neq(list.items[i - 1].node_id,
				  list.items[i].node_id);
	cache_record_list_release(&list);
	cr_assert_eq(cache_record_list(c, "p2", &list, &err), 0);
	cr_expect_eq(list.n, 32);
	cache_record_list_release(&list);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
}

static const char platform_yml[] =
	"version: 1\n"
	"axes:\n"
	"  platform: [linux-64, win-64]\n"
	"artifacts:\n"
	"  lib:\n"
	"    each: {platform: axes.platform}\n"
	"    command: \"mkdir -p out && echo ${platform} > out/${platform}.bin\"\n"
	"    outputs: [\"out/${platform}.bin\"]\n";

Test(e2e_run, runners_of_two_platforms_join_one_run)
{
	char *dir = make_repo(platform_yml);
	const char *linux_run[] = { "run", "--run-id", "ci-1", "--platform",
				    "linux-64", NULL };
	const char *win_run[] = { "run", "--run-id", "ci-1", "--platform",
				  "win-64", NULL };
	const char *runs[] = { "runs", "--json", NULL };
	struct run_result r;

	r = ripple(dir, linux_run);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "1 remote") != NULL, "%s", r.out);
	t_result_release(&r);
	r = ripple(dir, win_run);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "joining the run") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "1 built") != NULL, "%s", r.out);
	t_result_release(&r);
	r = ripple(dir, runs);
	cr_assert_eq(r.status, 0);
	cr_expect(strstr(r.out, "\"records\": 2") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run, a_run_id_of_another_commit_is_refused)
{
	char *dir = make_repo(rules_yml);
	const char *run[] = { "run", "--run-id", "ci-1", NULL };
	struct run_result r;

	r = ripple(dir, run);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	t_write(dir, "src/lib.txt", "hello again\n");
	cr_assert_eq(t_git_commit(dir, "second"), 0);
	r = ripple(dir, run);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "error: run 'ci-1' is at commit") != NULL,
		  "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run, running_a_commit_that_is_not_checked_out_is_refused)
{
	char *dir = make_repo(rules_yml);
	const char *run[] = { "run", "--head", "HEAD~1", NULL };
	struct run_result r;

	t_write(dir, "src/lib.txt", "hello again\n");
	cr_assert_eq(t_git_commit(dir, "second"), 0);
	r = ripple(dir, run);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "the working tree holds") != NULL, "%s",
		  r.err);
	cr_expect(strstr(r.err, "hint: check out the commit first") != NULL,
		  "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run, stale_outputs_of_an_earlier_build_are_not_recorded)
{
	static const char y[] =
		"version: 1\n"
		"sources:\n"
		"  src: {paths: [\"src/**\"]}\n"
		"artifacts:\n"
		"  wheel:\n"
		"    inputs: [src]\n"
		"    command: \"mkdir -p out && cp src/name "
		"out/$(cat src/name).bin\"\n"
		"    outputs: [\"out/*.bin\"]\n";
	char *dir = make_repo(y), path[PATH_MAX];
	const char *run1[] = { "run", "--run-id", "r1", NULL };
	const char *run2[] = { "run", "--run-id", "r2", "--reuse", "none",
			       NULL };
	struct cache_record rec;
	struct cache *c = NULL;
	struct error err;
	struct run_result r;

	t_write(dir, "src/name", "first");
	cr_assert_eq(t_git_commit(dir, "name the output"), 0);
	r = ripple(dir, run1);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	t_write(dir, "src/name", "other");
	cr_assert_eq(t_git_commit(dir, "rename the output"), 0);
	r = ripple(dir, run2);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	error_init(&err);
	snprintf(path, sizeof(path), "%s/.ripple/cache.db", dir);
	cr_assert_eq(cache_open(path, 0, &c, &err), 0, "%s", err.msg);
	cache_record_init(&rec);
	cr_assert_eq(cache_record_get(c, "r2", "artifact:wheel", &rec, &err),
		     0, "%s", err.msg);
	cr_assert_eq(rec.artifacts.n, 1);
	cr_expect_str_eq(rec.artifacts.v[0], "out/other.bin");
	cache_record_release(&rec);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run, an_unknown_platform_is_refused_with_a_suggestion)
{
	char *dir = make_repo(platform_yml);
	const char *run[] = { "run", "--platform", "win64", NULL };
	struct run_result r = ripple(dir, run);

	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "unknown platform 'win64'") != NULL, "%s",
		  r.err);
	cr_expect(strstr(r.err, "hint: did you mean 'win-64'?") != NULL, "%s",
		  r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run, only_matching_nothing_to_run_is_refused)
{
	char *dir = make_repo(rules_yml);
	const char *run[] = { "run", "--only", "artifact:nope*", NULL };
	struct run_result r = ripple(dir, run);

	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "--only 'artifact:nope*' matches no node")
		  != NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run, sigterm_stops_the_action_and_records_it_interrupted)
{
	static const char y[] =
		"version: 1\n"
		"artifacts:\n"
		"  quick: {command: \"echo q > quick.out\"}\n"
		"  sleepy:\n"
		"    needs: [quick]\n"
		"    command: \"echo $$ > sleeper.pid; touch started; "
		"exec sleep 30\"\n";
	char *dir = make_repo(y), cmd[2 * PATH_MAX], path[PATH_MAX];
	struct cache_record rec;
	struct cache_run run;
	struct cache *c = NULL;
	struct error err;
	struct run_result r;

	snprintf(cmd, sizeof(cmd),
		 "%s run --run-id t1 >/dev/null 2>run.err & p=$!; "
		 "for i in $(seq 300); do [ -f started ] && break; "
		 "sleep 0.05; done; kill -TERM $p; wait $p; echo \"rc=$?\"; "
		 "sleep 0.2; kill -0 $(cat sleeper.pid) 2>/dev/null && "
		 "echo alive || echo gone", bin());
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect_str_eq(r.out, "rc=130\ngone\n", "the run exits 130 and "
			 "its action is stopped");
	t_result_release(&r);
	error_init(&err);
	snprintf(path, sizeof(path), "%s/.ripple/cache.db", dir);
	cr_assert_eq(cache_open(path, 0, &c, &err), 0, "%s", err.msg);
	memset(&run, 0, sizeof(run));
	cr_assert_eq(cache_run_get(c, "t1", &run, &err), 0, "%s", err.msg);
	cr_expect_eq(run.status, CACHE_RUN_STATUS_INTERRUPTED);
	cache_run_release(&run);
	cache_record_init(&rec);
	cr_assert_eq(cache_record_get(c, "t1", "artifact:sleepy", &rec, &err),
		     0, "%s", err.msg);
	cr_expect_eq(rec.status, CACHE_RECORD_STATUS_INTERRUPTED);
	cache_record_release(&rec);
	cache_record_init(&rec);
	cr_assert_eq(cache_record_get(c, "t1", "artifact:quick", &rec, &err),
		     0, "%s", err.msg);
	cr_expect_eq(rec.status, CACHE_RECORD_STATUS_OK);
	cache_record_release(&rec);
	cr_expect_eq(cache_integrity_check(c, &err), 0, "%s", err.msg);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
}

static const char version_yml[] =
	"version: 1\n"
	"roots:\n"
	"  a: {path: pa, tags: \"a-v*\", fallback-version: 0.1.0.dev0}\n"
	"  b: {path: pb, tags: \"b-v*\"}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots}\n"
	"    inputs: [root.sources]\n"
	"    command: [sh, -c, \"mkdir -p out && echo \\\"$RIPPLE_VERSION\\\" "
	"> out/$0-$1.whl\", \"${root.name}\", \"${root.version}\"]\n"
	"    outputs: [\"out/${root.name}-*.whl\"]\n"
	"    version: \"${root.version}\"\n";

Test(e2e_run, root_version_in_a_command_is_filled_in_at_run_time)
{
	char *dir = make_repo(version_yml), *text;
	const char *run[] = { "run", "--keep-going", NULL };
	struct run_result r;
	char path[PATH_MAX];

	t_write(dir, "pa/x.py", "x\n");
	t_write(dir, "pb/y.py", "y\n");
	cr_assert_eq(t_git_commit(dir, "roots"), 0);
	r = t_sh(dir, "git tag a-v1.2.0");
	t_result_release(&r);
	r = ripple(dir, run);
	cr_expect_eq(r.status, 1, "b has no version: %s", r.err);
	cr_expect(strstr(r.out, "'${root.version}' is used but root 'b' has "
			 "no version here") != NULL, "%s", r.out);
	t_result_release(&r);
	snprintf(path, sizeof(path), "%s/out/a-1.2.0.whl", dir);
	text = t_read(path);
	cr_assert_not_null(text, "a's wheel carries its version in its name");
	cr_expect_str_eq(text, "1.2.0\n");
	free(text);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run, a_reader_going_away_does_not_leave_the_run_running)
{
	char *dir = make_repo(rules_yml), cmd[2 * PATH_MAX];
	const char *runs[] = { "runs", "--json", NULL };
	struct run_result r;

	/* head exits at once; ripple's later writes meet a closed pipe. */
	snprintf(cmd, sizeof(cmd), "%s run --run-id p1 --json 2>&1 | head -c1 "
		 ">/dev/null; sleep 0.3", bin());
	r = t_sh(dir, cmd);
	t_result_release(&r);
	r = ripple(dir, runs);
	cr_expect(strstr(r.out, "\"status\": \"running\"") == NULL, "%s",
		  r.out);
	cr_expect(strstr(r.out, "\"status\": \"ok\"") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_run, a_tag_of_another_commit_is_refused)
{
	char *dir = make_repo(rules_yml);
	const char *run[] = { "run", "--tag", "v1.0.0", NULL };
	const char *nope[] = { "run", "--tag", "v9", NULL };
	struct run_result r;

	r = t_sh(dir, "git tag v1.0.0");
	t_result_release(&r);
	t_write(dir, "src/lib.txt", "later\n");
	cr_assert_eq(t_git_commit(dir, "after the tag"), 0);
	r = ripple(dir, run);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "--tag 'v1.0.0' is commit") != NULL, "%s",
		  r.err);
	t_result_release(&r);
	r = ripple(dir, nope);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "--tag 'v9': no such tag") != NULL, "%s",
		  r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
