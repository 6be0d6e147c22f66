/*
 * Starting and waiting for actions, behind a seam (struct exec_runner) so
 * the scheduler is tested with a fake: the real runner (base/proc.h) starts
 * each action in its own process group (Windows: job object), stdout and
 * stderr to a log file, stdin from the null device, and an environment
 * given in full by the caller (never the ambient one).
 */
#ifndef RIPPLE_ENGINE_RUN_EXEC_H
#define RIPPLE_ENGINE_RUN_EXEC_H

#include <stddef.h>
#include <stdint.h>

struct error;

/* What to start. All strings borrowed for the duration of spawn. */
struct exec_spec {
	const char *const *argv;	/* argc entries (no NULL needed) */
	size_t argc;
	int shell;		/* 1: run argv[0] as `/bin/sh -c ARGV0` */
	const char *cwd;	/* directory to start in (absolute) */
	const char *const *env;	/* "K=V", the whole environment */
	size_t n_env;
	const char *log_path;	/* stdout and stderr, truncated first */
};

/*
 * What kill sends: SIGTERM (ask the action to stop) and SIGKILL (end it
 * now), by their Linux numbers on every system, as exec_status reports a
 * signal. Windows has no signals: its runner ends the action's job
 * object for either (base/proc_win.c).
 */
#define EXEC_SIGTERM 15
#define EXEC_SIGKILL 9

/* How a started action ended. */
struct exec_status {
	int exited;		/* 1: exit(2) with code */
	int code;		/* exit code when exited */
	int signal;		/* signal number when killed, else 0 */
};

/*
 * The seam. Handles are positive and unique among live actions.
 * spawn: start *spec; 0 and *handle, or a negative ERROR_* (the action
 *   could not start: the message names argv[0]).
 * wait: block at most timeout_ms (< 0: until a child ends) for any started
 *   action to end; 1 with *handle and *st set, 0 when none ended in time
 *   (or a signal arrived), negative on error.
 * kill: send `sig` to the action's whole process group; 0 or negative.
 * now_ms: a monotonic clock in milliseconds.
 */
struct exec_runner {
	int (*spawn)(void *payload, const struct exec_spec *spec,
		     long *handle, struct error *err);
	int (*wait)(void *payload, long timeout_ms, long *handle,
		    struct exec_status *st, struct error *err);
	int (*kill)(void *payload, long handle, int sig);
	int64_t (*now_ms)(void *payload);
	void *payload;
};

/*
 * The real runner: base/proc.h (POSIX: a guard process leading a process
 * group per action, handles are its process id; Windows: a job object per
 * action). 0, or ERROR_NOMEM. Release with exec_runner_system_release.
 */
int exec_runner_system(struct exec_runner *out, struct error *err);

/* Free what exec_runner_system made (its payload). */
void exec_runner_system_release(struct exec_runner *r);

/*
 * The allow-listed variables of `environ_` (rules_env_always: PATH, HOME,
 * LANG, LC_ALL, TMPDIR, TERM, USER, CUDA_HOME, LD_LIBRARY_PATH), as "K=V"
 * pointers into environ_ (the first of each name) stored in out, which
 * holds RULES_ENV_ALWAYS_COUNT (rules/rules.h). Returns how many.
 */
size_t exec_env_allowed(char *const *environ_, const char **out);

#endif
