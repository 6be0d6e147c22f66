/*
 * Suite e2e_join: CI jobs recording into one run id at once, each a
 * separate `ripple record` process racing to make the run; and a failed
 * `ripple record` that must not leave a run behind.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/cache/helpers.h"
#include "tests/e2e/stress.h"
#include "tests/support/support.h"

#define JOBS 8

static char *
make_repo(void)
{
	char *dir = t_git_init();
	char rules[1024];
	int i, n;

	n = snprintf(rules, sizeof(rules), "version: 1\nartifacts:\n");
	for (i = 0; i < JOBS; i++)
		n += snprintf(rules + n, sizeof(rules) - (size_t)n,
			      "  n%d: {command: [\"true\"]}\n", i);
	t_write(dir, ".gitignore", ".ripple/\n");
	t_write(dir, "ripple.yml", rules);
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	return dir;
}

Test(e2e_join, concurrent_record_calls_into_a_new_run_all_land)
{
	char *dir = make_repo(), *bin = ts_ripple_bin(), db[PATH_MAX];
	int rounds = ts_env_int("RIPPLE_TEST_JOIN_ROUNDS", 5);
	int round, i, failed = 0, lost = 0;

	snprintf(db, sizeof(db), "%s/.ripple/cache.db", dir);
	for (round = 0; round < rounds; round++) {
		pid_t pids[JOBS];
		char run[32], node[32], q[128];

		snprintf(run, sizeof(run), "ci-%d", round);
		for (i = 0; i < JOBS; i++) {
			const char *argv[] = { bin, "record", "--run", run,
					       "--node", node, "--status", "ok",
					       NULL };

			snprintf(node, sizeof(node), "artifact:n%d", i);
			pids[i] = ts_spawn(dir, argv, NULL);
		}
		for (i = 0; i < JOBS; i++)
			failed += ts_wait(pids[i]) != 0;
		snprintf(q, sizeof(q), "SELECT count(*) FROM records WHERE "
			 "run = '%s'", run);
		lost += JOBS - (int)tc_sql_int(db, q);
	}
	cr_expect_eq(failed, 0, "%d of %d record calls failed", failed,
		     rounds * JOBS);
	cr_expect_eq(lost, 0, "%d of %d records lost", lost, rounds * JOBS);
	cr_expect_eq(tc_sql_int(db, "SELECT count(*) FROM runs"), rounds);
	free(bin);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_join, a_failed_record_leaves_no_phantom_run)
{
	char *dir = make_repo(), db[PATH_MAX];
	const char *nonode[] = { "record", "--run", "r1", "--node",
				 "artifact:zz", "--status", "ok", NULL };
	const char *noart[] = { "record", "--run", "r1", "--node",
				"artifact:n1", "--status", "ok", "--artifact",
				"missing.whl", NULL };
	const char *badstatus[] = { "record", "--run", "r1", "--node",
				    "artifact:n1", "--status", "great", NULL };
	const char *good[] = { "record", "--run", "r1", "--node",
			       "artifact:n1", "--status", "ok", NULL };
	const char *const *bad[] = { nonode, noart, badstatus };
	struct run_result r;
	size_t i;

	snprintf(db, sizeof(db), "%s/.ripple/cache.db", dir);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = t_ripple(dir, bad[i]);
		cr_expect_neq(r.status, 0, "%s", r.out);
		t_result_release(&r);
		cr_expect_eq(tc_sql_int(db, "SELECT count(*) FROM runs"), 0,
			     "failed call %zu left a run", i);
	}
	r = t_ripple(dir, good);
	cr_expect_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	cr_expect_eq(tc_sql_int(db, "SELECT count(*) FROM runs"), 1);
	t_rmtree(dir);
	free(dir);
}
