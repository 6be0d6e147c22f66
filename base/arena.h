/*
 * An arena: many small allocations freed together (libgit2's git_pool).
 * One arena per evaluation: a plan's ids, expanded rules, keys and reasons
 * live and die together. Compiled with -DRIPPLE_DEBUG_ARENA every item is
 * its own malloc, so AddressSanitizer sees overflows between items.
 */
#ifndef RIPPLE_BASE_ARENA_H
#define RIPPLE_BASE_ARENA_H

#include <stdarg.h>
#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head;	/* newest block first */
	size_t used;			/* bytes handed out, for reports */
};

/* Set up an empty arena; allocates nothing. */
void arena_init(struct arena *a);

/* Free every block and item. Accepts NULL. The arena can be reused. */
void arena_release(struct arena *a);

/*
 * `size` bytes aligned for any type, zeroed, owned by the arena; NULL when
 * out of memory.
 */
void *arena_alloc(struct arena *a, size_t size);

/*
 * As arena_alloc, not zeroed: for a caller that writes every byte (a
 * large image filled word by word, where zeroing first doubled the cost).
 */
void *arena_alloc_raw(struct arena *a, size_t size);

/* Copies of strings into the arena; NULL when out of memory. */
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);

/*
 * x, y and z joined (NULL adds nothing), in the arena; NULL when out of
 * memory. What arena_printf("%s%s%s") gives, without printf's cost.
 */
char *arena_concat(struct arena *a, const char *x, const char *y,
		   const char *z);

/* A printf-formatted string in the arena; NULL when out of memory. */
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *arena_vprintf(struct arena *a, const char *fmt, va_list ap);

/* Copy of n bytes of memory; NULL when out of memory. */
void *arena_memdup(struct arena *a, const void *p, size_t n);

#endif
