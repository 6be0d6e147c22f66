/*
 * A release check's outcome: its status and detail line, and the problems
 * it found. Every check file (ci_run.c, artifacts.c, notes.c) and
 * release.c write through these two functions; this file calls none of
 * them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/strv.h"
#include "engine/release/internal.h"
#include "base/banned.h"

void
release_set(struct release_ctx *x, enum release_check_id id,
	    enum release_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	x->r->checks[id].status = st;
	x->r->checks[id].detail = arena_vprintf(x->a, fmt, ap);
	va_end(ap);
}

int
release_problem(struct release_ctx *x, enum release_check_id id,
		const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = arena_vprintf(x->a, fmt, ap);
	va_end(ap);
	if (!s || strv_push_ref(&x->problems[id], s, NULL))
		return ERROR_NOMEM;
	return 0;
}
