/*
 * Helpers for end-to-end tests that run many ripple processes at once or
 * kill them: the binary's absolute path, round counts from the
 * environment, spawning without waiting, and looking for processes left
 * behind in a folder.
 */
#ifndef RIPPLE_TESTS_E2E_STRESS_H
#define RIPPLE_TESTS_E2E_STRESS_H

#include <sys/types.h>

/* RIPPLE_BIN, else build/ripple, as an absolute path (malloc'd). */
char *ts_ripple_bin(void);

/* The positive integer in environment variable `name`, else `dflt`. */
int ts_env_int(const char *name, int dflt);

/*
 * Start argv (NULL-terminated; argv[0] a path) in dir with stdin from
 * /dev/null and stdout and stderr to `log` (NULL: /dev/null), in the
 * test's process group. Returns the pid; aborts the test on failure.
 */
pid_t ts_spawn(const char *dir, const char *const *argv, const char *log);

/* Wait for pid: its exit status, or 128 + signal. */
int ts_wait(pid_t pid);

/*
 * Processes (other than this one) whose working folder is `dir` or below
 * it, waiting up to `grace_ms` for them to go. Returns how many are left;
 * their pids go into pids (up to n), and with grace_ms > 0 their command
 * lines to stderr (grace_ms 0: count once, quietly).
 */
int ts_procs_under(const char *dir, int grace_ms, pid_t *pids, int n);

#endif
