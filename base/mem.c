/* The allocation seam: libc allocation plus an opt-in fault injector. */
#include "base/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/banned.h"

static _Thread_local long fault_countdown = -1;
static _Thread_local int fault_fired;
static _Thread_local int fault_once;

static int
should_fail(void)
{
	if (fault_countdown < 0)
		return 0;
	if (fault_countdown == 0) {
		fault_fired = 1;
		if (fault_once)
			fault_countdown = -1;
		return 1;
	}
	fault_countdown--;
	return 0;
}

void *
mem_alloc(size_t size)
{
	if (should_fail())
		return NULL;
	return malloc(size ? size : 1);
}

void *
mem_calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	if (should_fail())
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
}

void *
mem_realloc(void *p, size_t size)
{
	if (should_fail())
		return NULL;
	return realloc(p, size ? size : 1);
}

char *
mem_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = mem_alloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

void
mem_free(void *p)
{
	free(p);
}

void
mem_fault_after(long n)
{
	fault_countdown = n;
	fault_fired = 0;
	fault_once = 0;
}

void
mem_fault_once(long n)
{
	mem_fault_after(n);
	fault_once = 1;
}

int
mem_fault_fired(void)
{
	return fault_fired;
}
