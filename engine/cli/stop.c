/*
 * The process's stop flag: SIGINT and SIGTERM set it once a command that
 * can stop cleanly (run, fetch) catches them; the executor, the remote
 * cache's transfers (remote_options.cancel) and the commands' loops read
 * it and end promptly, removing what they were writing. A second signal
 * finds the default action back only where a command asks (fetch): one
 * Ctrl-C stops cleanly, the next kills.
 */
#include "engine/cli/cli.h"

#include <signal.h>
#include <string.h>

#include "base/banned.h"

static volatile sig_atomic_t stop_flag;

static void
on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

void
cli_stop_catch(int once, struct cli_stop_saved *saved)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sa.sa_flags = once ? SA_RESETHAND : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, saved ? &saved->sigint : NULL);
	sigaction(SIGTERM, &sa, saved ? &saved->sigterm : NULL);
}

void
cli_stop_restore(const struct cli_stop_saved *saved)
{
	sigaction(SIGINT, &saved->sigint, NULL);
	sigaction(SIGTERM, &saved->sigterm, NULL);
}

const volatile sig_atomic_t *
cli_stop_flag(void)
{
	return &stop_flag;
}

int
cli_stopped(void)
{
	return stop_flag != 0;
}
