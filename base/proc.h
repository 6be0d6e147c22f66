/*
 * Starting actions, waiting for them, and ending each with everything it
 * started: base/proc_posix.c (fork, a guard process leading a process
 * group, PR_SET_PDEATHSIG) and base/proc_win.c (CreateProcessW into a job
 * object that kills its processes when its last handle closes). The
 * engine's runner (engine/run/exec.c) is this behind its test seam.
 *
 * Both sides promise: an action's stdin is the null device, its stdout and
 * stderr go to its log file (truncated first) or stay ripple's; its
 * environment is exactly the one given; when it ends, whatever it left
 * running is killed (leftovers would change outputs after they are
 * hashed); when ripple dies, even killed, its actions die too.
 */
#ifndef RIPPLE_BASE_PROC_H
#define RIPPLE_BASE_PROC_H

#include <stddef.h>
#include <stdint.h>

struct error;

/* proc_kill's requests, by their Linux signal numbers on every system. */
#define PROC_SIGTERM 15		/* ask to stop (Windows: Ctrl-Break) */
#define PROC_SIGKILL 9		/* end now, with every process it started */

/* What to start. All strings borrowed for the duration of proc_spawn. */
struct proc_spec {
	const char *const *argv;	/* argc entries (no NULL needed) */
	size_t argc;
	int shell;		/* 1: run argv[0] as `sh -c ARGV0` (POSIX:
				   /bin/sh; Windows: sh.exe in the action's
				   PATH, as Git for Windows installs it) */
	const char *cwd;	/* folder to start in (absolute), or NULL */
	const char *const *env;	/* "K=V", the whole environment */
	size_t n_env;
	const char *log_path;	/* stdout and stderr, truncated first; NULL:
				   ripple's own */
};

/* How a started action ended. */
struct proc_status {
	int exited;		/* 1: it exited with `code` */
	int code;
	int signal;		/* killed: the signal (Windows: the
				   PROC_SIG* proc_kill ended it with) */
};

/* The actions started and not yet waited for (Windows: their jobs). */
struct proc_set;

/* A new, empty set. 0, or ERROR_NOMEM. */
int proc_set_new(struct proc_set **out, struct error *err);

/*
 * Free the set (NULL is fine). Actions still running are the caller's to
 * kill first; on Windows closing their jobs kills them anyway.
 */
void proc_set_free(struct proc_set *ps);

/*
 * Start *spec: argv[0] without a '/' (Windows: nor '\') is looked up in
 * the PATH of spec's environment (else /bin:/usr/bin; Windows: its PATH
 * with ".exe" added), relative entries against cwd. Windows starts only
 * programs: a script ("#!" first) runs with the interpreter its first
 * line names, found in that PATH, as Git for Windows does. 0 and *handle (> 0,
 * unique among live actions), or ERROR_NOT_FOUND / ERROR_IO naming
 * argv[0] (with a hint for a missing cwd), ERROR_NOMEM.
 */
int proc_spawn(struct proc_set *ps, const struct proc_spec *spec,
	       long *handle, struct error *err);

/*
 * Wait at most timeout_ms (< 0: until one ends) for any action of the set
 * to end, polling every 5 ms so a stop flag is seen promptly: 1 with
 * *handle and *st, 0 when none ended in time (or a signal arrived, or
 * none is running), negative on error.
 */
int proc_wait(struct proc_set *ps, long timeout_ms, long *handle,
	      struct proc_status *st, struct error *err);

/*
 * Send PROC_SIGTERM or PROC_SIGKILL to the action and everything it
 * started. 0, or ERROR_IO when it is gone.
 */
int proc_kill(struct proc_set *ps, long handle, int sig);

/* A monotonic clock in milliseconds. */
int64_t proc_now_ms(void);

#endif
