/*
 * Suite cache_join: runners joining one run id (idempotent, concurrent,
 * at one commit only) and records that make their run in their own
 * transaction, so a failed record leaves no run behind.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "cache/cache.h"
#include "tests/cache/helpers.h"
#include "tests/support/support.h"

static struct cache_run
run_at(const char *id, const char *commit)
{
	struct cache_run r;

	memset(&r, 0, sizeof(r));
	r.id = (char *)id;
	r.commit = (char *)commit;
	r.status = CACHE_RUN_STATUS_RUNNING;
	r.started_ms = 5;
	return r;
}

Test(cache_join, makes_then_joins_and_refuses_another_commit)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct cache_run r = run_at("ci-1", "c1"), other = run_at("ci-1", "c2");
	struct cache_run got;
	struct error err;
	int joined = -1;

	error_init(&err);
	cr_assert_eq(cache_run_join(c, &r, &joined, &err), 0, "%s", err.msg);
	cr_expect_eq(joined, 0);
	r.started_ms = 99;
	cr_assert_eq(cache_run_join(c, &r, &joined, &err), 0, "%s", err.msg);
	cr_expect_eq(joined, 1);
	cr_assert_eq(cache_run_get(c, "ci-1", &got, &err), 0, "%s", err.msg);
	cr_expect_eq(got.started_ms, 5, "a joined run keeps its fields");
	cache_run_release(&got);
	cr_expect_eq(cache_run_join(c, &other, &joined, &err), ERROR_CONFLICT);
	cr_expect_str_eq(err.msg, "run 'ci-1' is at commit c1, not c2");
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM runs"), 1);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_join, a_record_that_fails_makes_no_run)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct cache_run r = run_at("ci-2", "c1");
	struct cache_record rec;
	struct error err;

	error_init(&err);
	tc_record(&rec, "ci-2", "artifact:a", 1);
	cr_assert_eq(strv_push(&rec.metadata, "no-equals-sign", &err), 0);
	cr_expect_eq(cache_record_put_in(c, &r, &rec, NULL, &err),
		     ERROR_INVALID);
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM runs"), 0,
		     "a failed record left a phantom run");
	cache_record_release(&rec);
	tc_record(&rec, "ci-2", "artifact:a", 1);
	error_init(&err);
	cr_assert_eq(cache_record_put_in(c, &r, &rec, NULL, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM runs"), 1);
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM records"), 1);
	cache_record_release(&rec);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

#define JOINERS 8
#define ROUNDS 10

/* One process: join run "rN" and record its own node, every round. */
static void
joiner(const char *path, int who)
{
	struct cache *c = NULL;
	struct error err;
	char id[16], node[32];
	int round;

	error_init(&err);
	if (cache_open(path, CACHE_OPEN_CREATE, &c, &err))
		_exit(10);
	for (round = 0; round < ROUNDS; round++) {
		struct cache_run r;
		struct cache_record rec;

		snprintf(id, sizeof(id), "r%d", round);
		snprintf(node, sizeof(node), "artifact:n%d", who);
		r = run_at(id, "c1");
		tc_record(&rec, id, node, (unsigned)who);
		if (cache_record_put_in(c, &r, &rec, NULL, &err))
			_exit(11);
		cache_record_release(&rec);
	}
	cache_close(c);
	_exit(0);
}

Test(cache_join, concurrent_joiners_lose_no_record)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	pid_t pids[JOINERS];
	int i, st;

	cache_close(tc_open(path));
	for (i = 0; i < JOINERS; i++) {
		pids[i] = fork();
		cr_assert_geq(pids[i], 0);
		if (pids[i] == 0)
			joiner(path, i);
	}
	for (i = 0; i < JOINERS; i++) {
		cr_assert_eq(waitpid(pids[i], &st, 0), pids[i]);
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			  "joiner %d failed (status %d)", i, st);
	}
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM runs"), ROUNDS);
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM records"),
		     JOINERS * ROUNDS);
	t_rmtree(dir);
	free(dir);
	free(path);
}
