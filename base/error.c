/*
 * The error type: setters that keep the first error, and a list for checks
 * that report everything. Printing is the CLI's job, not this file's.
 */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/banned.h"

void
error_init(struct error *err)
{
	/* "No error" is the code and four empty strings: clearing all
	 * 1,300 bytes cost a warm plan 1,500 memsets (its probes of the
	 * memo keep an error each). A set error is cleared whole (vset). */
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = err->file[0] = err->node[0] = err->hint[0] = '\0';
	err->line = err->col = 0;
}

static void
copy_str(char *dst, size_t size, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= size)
		n = size - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

static int
vset(struct error *err, int code, const char *file, unsigned line,
     unsigned col, const char *fmt, va_list ap)
{
	if (!err || err->code)
		return code;
	memset(err, 0, sizeof(*err));
	err->code = code;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	copy_str(err->file, sizeof(err->file), file);
	err->line = line;
	err->col = col;
	return code;
}

int
error_set(struct error *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(err, code, NULL, 0, 0, fmt, ap);
	va_end(ap);
	return code;
}

int
error_at(struct error *err, int code, const char *file, unsigned line,
	 unsigned col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(err, code, file, line, col, fmt, ap);
	va_end(ap);
	return code;
}

int
error_nomem(struct error *err)
{
	return error_set(err, ERROR_NOMEM, "out of memory");
}

void
error_node(struct error *err, const char *node_id)
{
	if (err && err->code && !err->node[0])
		copy_str(err->node, sizeof(err->node), node_id);
}

void
error_hint(struct error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err || !err->code || err->hint[0])
		return;
	va_start(ap, fmt);
	vsnprintf(err->hint, sizeof(err->hint), fmt, ap);
	va_end(ap);
}

void
error_prefix(struct error *err, const char *fmt, ...)
{
	char prefix[ERROR_MSG_MAX];
	char old[ERROR_MSG_MAX];
	va_list ap;

	if (!err || !err->code)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	{
		size_t n = strlen(prefix);

		if (n > sizeof(err->msg) - 3)
			n = sizeof(err->msg) - 3;
		memcpy(err->msg, prefix, n);
		memcpy(err->msg + n, ": ", 2);
		copy_str(err->msg + n + 2, sizeof(err->msg) - n - 2, old);
	}
}

const char *
error_code_name(int code)
{
	switch (code) {
	case ERROR_OK: return "ok";
	case ERROR_INVALID: return "invalid";
	case ERROR_NOT_FOUND: return "not found";
	case ERROR_IO: return "i/o";
	case ERROR_CORRUPT: return "corrupt";
	case ERROR_NOMEM: return "out of memory";
	case ERROR_INTERNAL: return "internal";
	case ERROR_UNSUPPORTED: return "unsupported";
	case ERROR_CONFLICT: return "conflict";
	}
	return "unknown";
}

void
error_list_init(struct error_list *list, size_t limit)
{
	memset(list, 0, sizeof(*list));
	list->limit = limit ? limit : 100;
}

void
error_list_release(struct error_list *list)
{
	if (!list)
		return;
	free(list->items);
	memset(list, 0, sizeof(*list));
}

int
error_list_add(struct error_list *list, const struct error *e)
{
	if (list->n >= list->limit) {
		list->dropped++;
		return 0;
	}
	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 8;
		struct error *items = realloc(list->items, cap * sizeof(*items));

		if (!items) {
			list->dropped++;
			return ERROR_NOMEM;
		}
		list->items = items;
		list->cap = cap;
	}
	list->items[list->n++] = *e;
	return 0;
}

int
error_list_full(const struct error_list *list)
{
	return list->n >= list->limit;
}

static int
cmp_error(const void *a, const void *b)
{
	const struct error *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return strcmp(x->msg, y->msg);
}

void
error_list_sort(struct error_list *list)
{
	if (list->n > 1)
		qsort(list->items, list->n, sizeof(*list->items), cmp_error);
}
