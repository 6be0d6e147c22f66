/*
 * Suite cache_owner: the processes running a run hold its owner lock; a
 * run marked running whose owners died (however they died) reads as
 * interrupted and is marked so by the next read-write open; runners of
 * one run finish it together, the last one setting the worst status.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "cache/cache.h"
#include "tests/cache/helpers.h"
#include "tests/support/support.h"

static struct cache_run
run_at(const char *id)
{
	struct cache_run r;

	memset(&r, 0, sizeof(r));
	r.id = (char *)id;
	r.commit = (char *)"c1";
	r.status = CACHE_RUN_STATUS_RUNNING;
	r.started_ms = 5;
	return r;
}

static enum cache_run_status
status_of(const char *path, int flags, const char *id)
{
	struct cache *c = NULL;
	struct cache_run got;
	struct error err;
	enum cache_run_status s;

	error_init(&err);
	cr_assert_eq(cache_open(path, flags, &c, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_run_get(c, id, &got, &err), 0, "%s", err.msg);
	s = got.status;
	cache_run_release(&got);
	cache_close(c);
	return s;
}

/*
 * A process that owns and joins run `id`, then dies without finishing it
 * (the kernel drops its locks the same way for _exit and SIGKILL; the
 * e2e kill tests use SIGKILL).
 */
static void
owner_killed(const char *path, const char *id)
{
	pid_t pid = fork();
	int st;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct cache *c = NULL;
		struct cache_run r = run_at(id);
		struct error err;

		error_init(&err);
		if (cache_open(path, CACHE_OPEN_CREATE, &c, &err) ||
		    cache_run_own(c, id, &err) ||
		    cache_run_join(c, &r, NULL, &err))
			_exit(10);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "owner: %d", st);
}

Test(cache_owner, a_run_whose_owner_was_killed_is_interrupted)
{
	char *dir, *path = tc_tmp_cache_path(&dir), lock[600];
	struct stat st;

	cache_close(tc_open(path));
	owner_killed(path, "ci/1");
	snprintf(lock, sizeof(lock), "%s.owners/ci%%2F1", path);
	cr_expect_eq(stat(lock, &st), 0, "no owner folder %s", lock);
	cr_expect_eq(tc_sql_int(path, "SELECT status = 'running' FROM runs"),
		     1);
	cr_expect_eq(status_of(path, CACHE_OPEN_READONLY, "ci/1"),
		     CACHE_RUN_STATUS_INTERRUPTED, "a reader shows it");
	cr_expect_eq(status_of(path, 0, "ci/1"),
		     CACHE_RUN_STATUS_INTERRUPTED);
	cr_expect_eq(tc_sql_int(path, "SELECT status = 'interrupted' AND "
				"ended_ms > 0 FROM runs"), 1,
		     "a read-write open marks it");
	cr_expect_neq(stat(lock, &st), 0, "the owner folder is left behind");
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_owner, a_live_owner_keeps_it_running_and_unowned_runs_stay)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct cache_run r = run_at("live"), rec = run_at("recorded");
	struct error err;

	error_init(&err);
	cr_assert_eq(cache_run_own(c, "live", &err), 0, "%s", err.msg);
	cr_assert_eq(cache_run_join(c, &r, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_run_join(c, &rec, NULL, &err), 0, "%s", err.msg);
	cr_expect_eq(status_of(path, 0, "live"), CACHE_RUN_STATUS_RUNNING);
	cr_expect_eq(status_of(path, 0, "recorded"),
		     CACHE_RUN_STATUS_RUNNING, "a run nobody owns is left");
	cr_expect_eq(cache_run_own(c, "other", &err), ERROR_INVALID);
	error_init(&err);
	cr_assert_eq(cache_run_finish(c, "live", CACHE_RUN_STATUS_OK, 9, &err),
		     0, "%s", err.msg);
	cr_expect_eq(status_of(path, 0, "live"), CACHE_RUN_STATUS_OK);
	cache_close(c);
	cr_expect_eq(status_of(path, 0, "recorded"),
		     CACHE_RUN_STATUS_RUNNING);
	t_rmtree(dir);
	free(dir);
	free(path);
}

/* Runners of one run: it ends when the last ends, with the worst status. */
Test(cache_owner, the_last_runner_to_finish_ends_the_run)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *a = tc_open(path), *b = tc_open(path);
	struct cache_run r = run_at("j");
	struct error err;

	error_init(&err);
	cr_assert_eq(cache_run_own(a, "j", &err), 0, "%s", err.msg);
	cr_assert_eq(cache_run_join(a, &r, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_run_own(b, "j", &err), 0, "%s", err.msg);
	cr_assert_eq(cache_run_join(b, &r, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_run_finish(a, "j", CACHE_RUN_STATUS_OK, 7, &err),
		     0, "%s", err.msg);
	cr_expect_eq(status_of(path, 0, "j"), CACHE_RUN_STATUS_RUNNING,
		     "one runner is still at work");
	cr_assert_eq(cache_run_finish(b, "j", CACHE_RUN_STATUS_OK, 8, &err),
		     0, "%s", err.msg);
	cr_expect_eq(status_of(path, 0, "j"), CACHE_RUN_STATUS_OK);
	cache_close(b);
	cache_close(a);
	/* a failure first stays; a killed runner makes it interrupted */
	a = tc_open(path);
	b = tc_open(path);
	r.id = (char *)"k";
	cr_assert_eq(cache_run_own(a, "k", &err), 0, "%s", err.msg);
	cr_assert_eq(cache_run_join(a, &r, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_run_own(b, "k", &err), 0, "%s", err.msg);
	cr_assert_eq(cache_run_join(b, &r, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_run_finish(a, "k", CACHE_RUN_STATUS_FAILED, 7,
				      &err), 0, "%s", err.msg);
	cr_expect_eq(status_of(path, 0, "k"), CACHE_RUN_STATUS_FAILED);
	cr_assert_eq(cache_run_finish(b, "k", CACHE_RUN_STATUS_OK, 8, &err),
		     0, "%s", err.msg);
	cr_expect_eq(status_of(path, 0, "k"), CACHE_RUN_STATUS_FAILED);
	cache_close(b);
	cache_close(a);
	a = tc_open(path);
	r.id = (char *)"m";
	cr_assert_eq(cache_run_own(a, "m", &err), 0, "%s", err.msg);
	cr_assert_eq(cache_run_join(a, &r, NULL, &err), 0, "%s", err.msg);
	owner_killed(path, "m");
	cr_expect_eq(status_of(path, 0, "m"), CACHE_RUN_STATUS_RUNNING,
		     "one owner of two died; the other still runs it");
	cr_assert_eq(cache_run_finish(a, "m", CACHE_RUN_STATUS_OK, 8, &err),
		     0, "%s", err.msg);
	cr_expect_eq(status_of(path, 0, "m"), CACHE_RUN_STATUS_INTERRUPTED,
		     "the last runner knows one died unfinished");
	cache_close(a);
	t_rmtree(dir);
	free(dir);
	free(path);
}
