/*
 * The allocation seam. Library code allocates through mem_alloc and
 * mem_realloc so tests can make the Nth allocation fail (as Lua's
 * Memcontrol and SQLite's sqlite3FaultSim do) and check that every caller
 * reports ERROR_NOMEM instead of crashing.
 *
 * The fault counter is the one piece of mutable process state in the
 * library; it is thread-local, off unless a test turns it on, and never
 * touched by the CLI.
 */
#ifndef RIPPLE_BASE_MEM_H
#define RIPPLE_BASE_MEM_H

#include <stddef.h>

/* malloc(size), or NULL (also when an injected fault fires). */
void *mem_alloc(size_t size);

/* calloc(n, size) with overflow check, or NULL. */
void *mem_calloc(size_t n, size_t size);

/* realloc(p, size), or NULL with p untouched. */
void *mem_realloc(void *p, size_t size);

/* strdup(s) through the seam, or NULL. s must not be NULL. */
char *mem_strdup(const char *s);

/* free(p). Accepts NULL. */
void mem_free(void *p);

/*
 * Tests only: make the allocation after `n` more succeed-ful ones fail
 * (n = 0: the next one fails); a negative n turns injection off. Returns
 * nothing; mem_fault_fired() says whether a fault was injected since.
 */
void mem_fault_after(long n);
int mem_fault_fired(void);

/*
 * Tests only: like mem_fault_after, but only that one allocation fails;
 * later ones succeed again (a real allocator under pressure fails one
 * large request and serves the next small one). Catches callers that
 * ignore a failure and carry on.
 */
void mem_fault_once(long n);

#endif
