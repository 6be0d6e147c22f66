/*
 * base/interrupt.h on Windows: a console control handler. Windows calls
 * it on a thread of its own; it sets the flag and returns TRUE (handled).
 * With once, an event that finds the flag set already returns FALSE, so
 * the default handler ends the process, as SA_RESETHAND does on POSIX.
 */
#include "base/interrupt.h"

#include "base/wide_win.h"
#include "base/banned.h"

static volatile sig_atomic_t flag;
static volatile LONG only_once;

static BOOL WINAPI
on_control(DWORD event)
{
	switch (event) {
	case CTRL_C_EVENT:
	case CTRL_BREAK_EVENT:
	case CTRL_CLOSE_EVENT:
		if (only_once && flag)
			return FALSE;
		flag = 1;
		return TRUE;
	default:
		return FALSE;
	}
}

void
interrupt_catch(int once, struct interrupt_saved *saved)
{
	InterlockedExchange(&only_once, once ? 1 : 0);
	if (saved)
		saved->installed = 1;
	SetConsoleCtrlHandler(on_control, TRUE);
}

void
interrupt_restore(const struct interrupt_saved *saved)
{
	if (saved->installed)
		SetConsoleCtrlHandler(on_control, FALSE);
}

const volatile sig_atomic_t *
interrupt_flag(void)
{
	return &flag;
}

void
interrupt_ignore_broken_pipe(void)
{
}
