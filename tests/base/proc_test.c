/*
 * Suite base_proc: starting actions under base/proc_posix.c's guard. An
 * action that exits on its own is reported as it exited, whatever the
 * scheduler does between ripple, the guard and the action.
 *
 * The guard kills what an action left behind by leaving its own process
 * group for ripple's and then killing the group it left. ripple also put
 * the guard in its own group right after fork (setpgid(pid, pid)); when
 * ripple was descheduled that long (a loaded machine), that late call could
 * land after the guard had left, put it back, and the guard's kill then
 * ended the guard itself: a `true` reported "killed by signal 9" (seen
 * once in e2e_run/two_runs_on_one_cache_at_once_lose_no_records). This
 * suite makes that interleaving certain: it defines setpgid for this test
 * binary, a pass-through unless a test arms it, and an armed setpgid
 * holds ripple's call on a child until the child has left its group, and
 * holds a guard just after it left.
 */
#ifndef _WIN32
#define _GNU_SOURCE 1
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/proc.h"

/* Shared with the guard's fork (MAP_SHARED survives its close_range). */
struct stage {
	volatile sig_atomic_t armed;	/* a test wants the interleaving */
	volatile sig_atomic_t left;	/* the guard has left its group */
	pid_t spawner;			/* the process calling proc_spawn */
};

static struct stage *stage;

static void
pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Only async-signal-safe calls: the guard runs this after fork. */
int
setpgid(pid_t pid, pid_t pgid)
{
	long rc;
	int i;

	if (stage && stage->armed && getpid() == stage->spawner && pid > 0)
		/* ripple placing its child: late, after the guard left */
		for (i = 0; i < 1000 && !stage->left; i++)
			pause_ms(5);
	rc = syscall(SYS_setpgid, pid, pgid);
	if (stage && stage->armed && getpid() != stage->spawner && pid == 0 &&
	    pgid != 0 && rc == 0) {
		/* a guard back in ripple's group, before its kill */
		stage->left = 1;
		pause_ms(300);
	}
	return (int)rc;
}

/* Start argv (shell: as `sh -c ARGV0`), wait for it, return its end. */
static struct proc_status
run_one(const char *const *argv, size_t argc, int shell, int arm)
{
	struct proc_set *ps = NULL;
	struct proc_spec spec;
	struct proc_status st;
	struct error err;
	const char *env[] = { "PATH=/usr/bin:/bin" };
	long handle = 0, got = 0;
	int rc;

	error_init(&err);
	cr_assert_eq(proc_set_new(&ps, &err), 0);
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.argc = argc;
	spec.shell = shell;
	spec.env = env;
	spec.n_env = 1;
	stage = mmap(NULL, sizeof(*stage), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(stage, MAP_FAILED);
	stage->spawner = getpid();
	stage->left = 0;
	stage->armed = arm;
	rc = proc_spawn(ps, &spec, &handle, &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
	memset(&st, 0, sizeof(st));
	rc = proc_wait(ps, 10000, &got, &st, &err);
	stage->armed = 0;
	munmap(stage, sizeof(*stage));
	stage = NULL;
	cr_assert_eq(rc, 1, "no action ended (%d): %s", rc, err.msg);
	cr_assert_eq(got, handle);
	proc_set_free(ps);
	return st;
}

Test(base_proc, an_action_that_exits_at_once_is_not_killed_by_its_guard)
{
	const char *argv[] = { "true" };
	struct proc_status st = run_one(argv, 1, 0, 1);

	cr_expect_eq(st.signal, 0, "the action was killed by signal %d",
		     st.signal);
	cr_expect(st.exited && st.code == 0, "exited %d, code %d", st.exited,
		  st.code);
}

Test(base_proc, an_exit_status_comes_back_as_the_action_gave_it)
{
	const char *argv[] = { "exit 3" };
	struct proc_status st = run_one(argv, 1, 1, 0);

	cr_expect(st.exited && st.code == 3, "exited %d, code %d, signal %d",
		  st.exited, st.code, st.signal);
}
#endif
