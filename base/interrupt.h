/*
 * Ctrl-C and requests to terminate, caught as a flag instead of ending the
 * process, so that a command that can stop cleanly (run, fetch) ends its
 * work and removes what it was writing (engine/cli/stop.c says who reads
 * the flag).
 *
 * POSIX (base/interrupt_posix.c): SIGINT and SIGTERM, by sigaction.
 * Windows (base/interrupt_win.c): SetConsoleCtrlHandler, for Ctrl-C,
 * Ctrl-Break and the console closing; Windows has no SIGTERM, and its
 * Ctrl-Break stands where Linux users send SIGTERM or a second Ctrl-C.
 *
 * The flag is process-wide state, as a signal handler can reach nothing
 * else; it is only ever set to 1 by a handler, and read.
 */
#ifndef RIPPLE_BASE_INTERRUPT_H
#define RIPPLE_BASE_INTERRUPT_H

#include <signal.h>

/* What interrupt_catch replaced, for interrupt_restore. */
struct interrupt_saved {
#ifdef _WIN32
	int installed;		/* our console handler is in place */
#else
	struct sigaction sigint, sigterm;
#endif
};

/*
 * From now on an interrupt sets the flag. once: only the first does; the
 * next gets the system's default (the process ends), so a second Ctrl-C
 * kills. saved (may be NULL) receives what was replaced.
 */
void interrupt_catch(int once, struct interrupt_saved *saved);

/* Put back what interrupt_catch replaced. */
void interrupt_restore(const struct interrupt_saved *saved);

/* The flag: 0 until an interrupt was caught. */
const volatile sig_atomic_t *interrupt_flag(void);

/*
 * A write to a pipe whose reader went away fails (EPIPE) instead of ending
 * the process: POSIX ignores SIGPIPE; Windows has no such signal, and the
 * write fails already.
 */
void interrupt_ignore_broken_pipe(void);

#endif
