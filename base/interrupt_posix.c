/*
 * base/interrupt.h on POSIX: SIGINT and SIGTERM by sigaction; once is
 * SA_RESETHAND.
 */
#include "base/interrupt.h"

#include <string.h>

#include "base/banned.h"

static volatile sig_atomic_t flag;

static void
on_interrupt(int sig)
{
	(void)sig;
	flag = 1;
}

void
interrupt_catch(int once, struct interrupt_saved *saved)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sa.sa_flags = once ? SA_RESETHAND : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, saved ? &saved->sigint : NULL);
	sigaction(SIGTERM, &sa, saved ? &saved->sigterm : NULL);
}

void
interrupt_restore(const struct interrupt_saved *saved)
{
	sigaction(SIGINT, &saved->sigint, NULL);
	sigaction(SIGTERM, &saved->sigterm, NULL);
}

const volatile sig_atomic_t *
interrupt_flag(void)
{
	return &flag;
}

void
interrupt_ignore_broken_pipe(void)
{
	signal(SIGPIPE, SIG_IGN);
}
