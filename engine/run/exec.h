/*
 * Starting and waiting for actions, behind a seam (struct exec_runner) so
 * the scheduler is tested with a fake: the real runner starts each action
 * with posix_spawn in its own process group, stdout and stderr to a log
 * file, stdin from /dev/null, and an environment given in full by the
 * caller (never the ambient one).
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
 * The real runner (posix_spawn; handles are process ids, each the leader
 * of its own process group). Stateless: payload is NULL.
 */
void exec_runner_posix(struct exec_runner *out);

/*
 * The allow-listed variables of `environ_` (rules_env_always: PATH, HOME,
 * LANG, LC_ALL, TMPDIR, TERM, USER, CUDA_HOME, LD_LIBRARY_PATH), as "K=V"
 * pointers into environ_ (the first of each name) stored in out, which
 * holds RULES_ENV_ALWAYS_COUNT (rules/rules.h). Returns how many.
 */
size_t exec_env_allowed(char *const *environ_, const char **out);

#endif
