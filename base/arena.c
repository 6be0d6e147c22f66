/* Block arena with a per-item debug mode. */
#include "base/arena.h"

#include <stdalign.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "base/banned.h"

#define BLOCK_MIN (16 * 1024)

struct arena_block {
	struct arena_block *next;
	size_t size, used;
	alignas(max_align_t) unsigned char data[];
};

void
arena_init(struct arena *a)
{
	a->head = NULL;
	a->used = 0;
}

void
arena_release(struct arena *a)
{
	struct arena_block *b, *next;

	if (!a)
		return;
	for (b = a->head; b; b = next) {
		next = b->next;
		mem_free(b);
	}
	a->head = NULL;
	a->used = 0;
}

static struct arena_block *
new_block(struct arena *a, size_t size)
{
	struct arena_block *b = mem_alloc(sizeof(*b) + size);

	if (!b)
		return NULL;
	b->size = size;
	b->used = 0;
	b->next = a->head;
	a->head = b;
	return b;
}

/* size bytes, aligned, not zeroed. */
static void *
take(struct arena *a, size_t size)
{
	const size_t align = alignof(max_align_t);
	struct arena_block *b = a->head;
	void *p;

	size = (size + align - 1) & ~(align - 1);
	if (!size)
		size = align;
#ifdef RIPPLE_DEBUG_ARENA
	b = new_block(a, size);
	if (!b)
		return NULL;
#else
	if (!b || b->size - b->used < size) {
		if (size > BLOCK_MIN / 4) {
			/* A big item gets its own block behind the head. */
			b = new_block(a, size);
			if (!b)
				return NULL;
			if (b->next) {
				struct arena_block *head = b->next;

				a->head = head;
				b->next = head->next;
				head->next = b;
			}
		} else {
			b = new_block(a, BLOCK_MIN);
			if (!b)
				return NULL;
		}
	}
#endif
	p = b->data + b->used;
	b->used += size;
	a->used += size;
	return p;
}

void *
arena_alloc(struct arena *a, size_t size)
{
	const size_t align = alignof(max_align_t);
	void *p = take(a, size);

	/* the whole rounded item, as before take() was split out */
	if (p)
		memset(p, 0, size ? (size + align - 1) & ~(align - 1) : align);
	return p;
}

void *
arena_alloc_raw(struct arena *a, size_t size)
{
	return take(a, size);
}

void *
arena_memdup(struct arena *a, const void *p, size_t n)
{
	void *d = arena_alloc(a, n);

	if (d && n)
		memcpy(d, p, n);
	return d;
}

char *
arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *d = arena_alloc(a, n + 1);

	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *
arena_strdup(struct arena *a, const char *s)
{
	return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *
arena_concat(struct arena *a, const char *x, const char *y, const char *z)
{
	size_t nx = x ? strlen(x) : 0, ny = y ? strlen(y) : 0,
	       nz = z ? strlen(z) : 0;
	char *d = arena_alloc(a, nx + ny + nz + 1);

	if (!d)
		return NULL;
	memcpy(d, x ? x : "", nx);
	memcpy(d + nx, y ? y : "", ny);
	memcpy(d + nx + ny, z ? z : "", nz);
	d[nx + ny + nz] = '\0';
	return d;
}

char *
arena_vprintf(struct arena *a, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	char *d;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return NULL;
	d = arena_alloc(a, (size_t)n + 1);
	if (!d)
		return NULL;
	vsnprintf(d, (size_t)n + 1, fmt, ap);
	return d;
}

char *
arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	char *d;

	va_start(ap, fmt);
	d = arena_vprintf(a, fmt, ap);
	va_end(ap);
	return d;
}
