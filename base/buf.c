/* Growable NUL-terminated buffers with an optional cap. */
#include "base/buf.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

void
buf_init(struct buf *b, size_t max)
{
	b->data = (char *)"";
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

void
buf_release(struct buf *b)
{
	if (!b)
		return;
	if (b->cap)
		mem_free(b->data);
	buf_init(b, b->max);
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->cap)
		b->data[0] = '\0';
}

int
buf_grow(struct buf *b, size_t extra, struct error *err)
{
	size_t need, cap;
	char *p;

	if (b->max && (extra > b->max || b->len > b->max - extra))
		return error_set(err, ERROR_INVALID,
				 "data exceeds the limit of %zu bytes", b->max);
	if (extra > (size_t)-1 - b->len - 1)
		return error_set(err, ERROR_NOMEM, "buffer size overflow");
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > ((size_t)-1) / 2 ? need : cap * 2;
	p = b->cap ? mem_realloc(b->data, cap) : mem_alloc(cap);
	if (!p)
		return error_set(err, ERROR_NOMEM, "out of memory");
	if (!b->cap)
		p[0] = '\0';
	b->data = p;
	b->cap = cap;
	return 0;
}

int
buf_add(struct buf *b, const void *p, size_t n, struct error *err)
{
	int rc = buf_grow(b, n, err);

	if (rc)
		return rc;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
buf_addstr(struct buf *b, const char *s, struct error *err)
{
	return buf_add(b, s, strlen(s), err);
}

int
buf_addch(struct buf *b, char c, struct error *err)
{
	/* Room and under the cap (buf_grow's test for one byte): no call.
	 * Keys' texts and rules are written a character at a time. */
	if (b->len + 1 < b->cap && (!b->max || b->len < b->max)) {
		b->data[b->len++] = c;
		b->data[b->len] = '\0';
		return 0;
	}
	return buf_add(b, &c, 1, err);
}

int
buf_addu64(struct buf *b, uint64_t v, struct error *err)
{
	char d[20];
	size_t n = 0;

	do {
		d[sizeof(d) - ++n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return buf_add(b, d + sizeof(d) - n, n, err);
}

int
buf_vaddf(struct buf *b, struct error *err, const char *fmt, va_list ap)
{
	va_list cp;
	int n, rc;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return error_set(err, ERROR_INTERNAL, "bad format string");
	rc = buf_grow(b, (size_t)n, err);
	if (rc)
		return rc;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int
buf_addf(struct buf *b, struct error *err, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = buf_vaddf(b, err, fmt, ap);
	va_end(ap);
	return rc;
}

char *
buf_detach(struct buf *b)
{
	char *p = b->cap ? b->data : mem_strdup("");

	buf_init(b, b->max);
	return p;
}
