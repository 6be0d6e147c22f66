/*
 * The process's stop flag: SIGINT and SIGTERM set it once a command that
 * can stop cleanly (run, fetch) catches them; the executor, the remote
 * cache's transfers (remote_options.cancel) and the commands' loops read
 * it and end promptly, removing what they were writing. A second signal
 * finds the default action back only where a command asks (fetch): one
 * Ctrl-C stops cleanly, the next kills.
 */
#include "engine/cli/cli.h"

#include "base/interrupt.h"
#include "base/banned.h"

void
cli_stop_catch(int once, struct cli_stop_saved *saved)
{
	interrupt_catch(once, saved ? &saved->saved : NULL);
}

void
cli_stop_restore(const struct cli_stop_saved *saved)
{
	interrupt_restore(&saved->saved);
}

const volatile sig_atomic_t *
cli_stop_flag(void)
{
	return interrupt_flag();
}

int
cli_stopped(void)
{
	return *interrupt_flag() != 0;
}
