/*
 * Typed images, read (base/image.h): unpacking a packed image into an
 * arena and the walk that turns its offsets into pointers, checking each
 * against where the writer (base/image.c) would have put it.
 */
#include "base/image.h"

#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/banned.h"

/* Types nest this deep at most (as base/image.c checks). */
#define DEPTH_MAX 16

static size_t
align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static uint64_t
get_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The n struct words from the bitmap and the words at *src (up to end):
 * a word of the bitmap covers 64, most of them zero, so each is zeroed
 * whole and only its set bits are copied.
 */
static int
unpack_words(uint64_t *out, size_t n, const unsigned char *bitmap,
	     const unsigned char **src, const unsigned char *end)
{
	const unsigned char *p = *src;
	size_t k, lim;

	for (k = 0; k * 64 < n; k++, out += 64) {
		uint64_t bits = get_u64(bitmap + k * 8);

		lim = n - k * 64 < 64 ? n - k * 64 : 64;
		if (lim < 64 && bits >> lim)
			return -1;
		if ((size_t)(end - p) / 8 < (size_t)__builtin_popcountll(bits))
			return -1;
		memset(out, 0, lim * 8);
		for (; bits; bits &= bits - 1, p += 8)
			memcpy(&out[__builtin_ctzll(bits)], p, 8);
	}
	*src = p;
	return 0;
}

int
image_unpack(struct image_reader *r, const void *packed, size_t len,
	     struct arena *a)
{
	const unsigned char *p = packed, *end = p + len;
	uint64_t n, n_strings;
	size_t bitmap;
	char *img;

	memset(r, 0, sizeof(*r));
	if (len < 16)
		return -1;
	n = get_u64(p);
	n_strings = get_u64(p + 8);
	bitmap = (size_t)((n + 63) / 64 * 8);
	if (n / 8 > len || n_strings > len || !n_strings ||
	    len - 16 < bitmap || (size_t)(end - p) - 16 - bitmap < n_strings)
		return -1;
	img = arena_alloc_raw(a, (size_t)n * 8 + (size_t)n_strings);
	if (!img)
		return ERROR_NOMEM;
	p += 16 + bitmap;
	if (unpack_words((uint64_t *)(void *)img, (size_t)n,
			 (const unsigned char *)packed + 16, &p,
			 end - n_strings) ||
	    p != end - n_strings || end[-1] != '\0')
		return -1;
	memcpy(img + n * 8, p, (size_t)n_strings);
	r->img = img;
	r->strings_at = (size_t)n * 8;
	r->len = (size_t)(n * 8 + n_strings);
	return 0;
}

static uintptr_t
get_slot(const char *p)
{
	uintptr_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void
set_ptr(char *p, const void *v)
{
	memcpy(p, &v, sizeof(v));
}

static int
read_string(struct image_reader *r, char *slot)
{
	uintptr_t v = get_slot(slot);

	if (v && v - 1 >= r->len - r->strings_at)
		return -1;
	set_ptr(slot, v ? r->img + r->strings_at + (v - 1) : NULL);
	return 0;
}

/* Claim `count` items of `size` bytes at slot value v (offset + 1). */
static int
claim(struct image_reader *r, uintptr_t v, size_t count, size_t size)
{
	size_t at = (size_t)v - 1;

	if (!v || at != align8(r->cursor) || at > r->strings_at ||
	    count > (r->strings_at - at) / size)
		return -1;
	r->cursor = at + count * size;
	return 0;
}

static int read_fields(struct image_reader *r, const struct image_type *t,
		       char *p, int depth);

static int
read_array(struct image_reader *r, const struct image_type *t, uintptr_t v,
	   size_t count, int depth)
{
	size_t i, at = (size_t)v - 1;

	if (claim(r, v, count, t->size))
		return -1;
	if (t->target) {
		if (r->n_targets == IMAGE_TARGETS)
			return -1;
		r->targets[r->n_targets].t = t;
		r->targets[r->n_targets].at = at;
		r->targets[r->n_targets].count = count;
		r->n_targets++;
	}
	for (i = 0; i < count; i++)
		if (read_fields(r, t, r->img + at + i * t->size, depth))
			return -1;
	return 0;
}

static int
read_ref(struct image_reader *r, const struct image_type *t, char *slot)
{
	uintptr_t v = get_slot(slot);
	size_t i, at = (size_t)v - 1;

	if (!v) {
		set_ptr(slot, NULL);
		return 0;
	}
	for (i = 0; i < r->n_targets; i++)
		if (r->targets[i].t == t && at >= r->targets[i].at &&
		    (at - r->targets[i].at) / t->size < r->targets[i].count &&
		    (at - r->targets[i].at) % t->size == 0) {
			set_ptr(slot, r->img + at);
			return 0;
		}
	return -1;
}

/* A STRS or ARRAY field of value v (not 0) at slot: claimed, read. */
static int
read_list(struct image_reader *r, const struct image_field *f, char *p,
	  uintptr_t v, int depth)
{
	size_t i, count;

	memcpy(&count, p + f->count_off, sizeof(count));
	if (f->kind == IMAGE_ARRAY)
		return read_array(r, f->sub, v, count, depth + 1);
	if (claim(r, v, count, sizeof(uintptr_t)))
		return -1;
	for (i = 0; i < count; i++)
		if (read_string(r, r->img + (v - 1) + i * sizeof(uintptr_t)))
			return -1;
	return 0;
}

/* The fields of the struct at p; a NULL slot (0) stays as it is. */
static int
read_fields(struct image_reader *r, const struct image_type *t, char *p,
	    int depth)
{
	const struct image_field *f = t->fields, *end = f + t->n_fields;
	uintptr_t v;
	size_t count;
	unsigned e;

	if (depth > DEPTH_MAX)
		return -1;
	for (; f < end; f++) {
		char *slot;

		if (f->kind == IMAGE_POD)	/* most fields: before the switch */
			continue;
		slot = p + f->off;
		switch (f->kind) {
		case IMAGE_ENUM:
			memcpy(&e, slot, sizeof(e));
			if (e > f->max)
				return -1;
			continue;
		case IMAGE_ZERO:
			memset(slot, 0, f->size);
			continue;
		case IMAGE_EMBED:
			if (read_fields(r, f->sub, slot, depth + 1))
				return -1;
			continue;
		default:
			break;
		}
		v = get_slot(slot);
		if (!v) {
			if (f->kind != IMAGE_STRS && f->kind != IMAGE_ARRAY)
				continue;
			memcpy(&count, p + f->count_off, sizeof(count));
			if (count && !f->null_counted)
				return -1;
			continue;
		}
		if (f->kind == IMAGE_STR) {
			if (v - 1 >= r->len - r->strings_at)
				return -1;
			set_ptr(slot, r->img + r->strings_at + (v - 1));
			continue;
		}
		if (f->kind == IMAGE_REF) {
			if (read_ref(r, f->sub, slot))
				return -1;
			continue;
		}
		if (read_list(r, f, p, v, depth))
			return -1;
		set_ptr(slot, r->img + (v - 1));
	}
	return 0;
}

int
image_read(struct image_reader *r, const struct image_type *t, void **out)
{
	size_t at = align8(r->cursor);

	*out = NULL;
	if (read_array(r, t, (uintptr_t)at + 1, 1, 0))
		return -1;
	*out = r->img + at;
	return 0;
}

int
image_read_end(const struct image_reader *r)
{
	return align8(r->cursor) == r->strings_at ? 0 : -1;
}
