/*
 * A growable byte buffer, always NUL-terminated (git's strbuf). A buffer
 * may carry a cap (`max`, bytes): growth past it fails with ERROR_INVALID,
 * so input-sized buffers cannot grow without bound (curl dynbuf's toobig).
 */
#ifndef RIPPLE_BASE_BUF_H
#define RIPPLE_BASE_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct error;

struct buf {
	char *data;	/* NUL-terminated; "" (static) before the first add */
	size_t len;	/* bytes, excluding the NUL */
	size_t cap;	/* bytes allocated; 0 while data is static */
	size_t max;	/* cap on len in bytes; 0 means none */
};

#define BUF_INIT { (char *)"", 0, 0, 0 }

/* Set up an empty buffer with an optional cap (0 = none). Allocates nothing. */
void buf_init(struct buf *b, size_t max);

/* Free the contents; the buffer is empty again. Accepts NULL. */
void buf_release(struct buf *b);

/* Empty the buffer, keeping its memory. */
void buf_reset(struct buf *b);

/*
 * Append n bytes. Returns 0, ERROR_NOMEM, or ERROR_INVALID past the cap.
 * err may be NULL.
 */
int buf_add(struct buf *b, const void *p, size_t n, struct error *err);
int buf_addstr(struct buf *b, const char *s, struct error *err);
int buf_addch(struct buf *b, char c, struct error *err);

/*
 * Append v in decimal, as "%llu" writes it, without printf's cost (some
 * 2,000 instructions a call; key texts write two numbers a node).
 */
int buf_addu64(struct buf *b, uint64_t v, struct error *err);
int buf_addf(struct buf *b, struct error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int buf_vaddf(struct buf *b, struct error *err, const char *fmt, va_list ap);

/* Ensure room for `extra` more bytes. Same results as buf_add. */
int buf_grow(struct buf *b, size_t extra, struct error *err);

/*
 * Hand the contents to the caller (free with mem_free) and empty the
 * buffer. Returns NULL when out of memory.
 */
char *buf_detach(struct buf *b);

#endif
