/*
 * Typed images (base/image.h): the check of the field tables, the layout
 * digest and the writer; base/image_read.c reads. What a struct means is
 * its table's business (rules/model_image.c, graph/model_memo.c); these
 * files know layouts.
 */
#include "base/image.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/strmap.h"
#include "base/banned.h"

/* Types nest this deep at most (the rules model: four). */
#define DEPTH_MAX 16

static size_t
align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static int
check(const struct image_type *t, int depth, char *why, size_t n)
{
	size_t i, k, cur = 0;

	if (depth > DEPTH_MAX) {
		snprintf(why, n, "%s: types nest too deep", t->name);
		return -1;
	}
	for (i = 0; i < t->n_fields; i++) {
		const struct image_field *f = &t->fields[i];
		size_t want = f->size;

		if (f->off < cur || f->off - cur >= 8 ||
		    f->off + f->size > t->size) {
			snprintf(why, n, "%s: field %zu (offset %zu) leaves "
				 "a gap or overlaps", t->name, i, f->off);
			return -1;
		}
		cur = f->off + f->size;
		switch (f->kind) {
		case IMAGE_ENUM:
			want = sizeof(unsigned);
			break;
		case IMAGE_STR:
		case IMAGE_REF:
			want = sizeof(void *);
			break;
		case IMAGE_STRS:
		case IMAGE_ARRAY:
			want = sizeof(void *);
			for (k = 0; k < t->n_fields; k++)
				if (t->fields[k].off == f->count_off &&
				    t->fields[k].kind == IMAGE_POD &&
				    t->fields[k].size == sizeof(size_t))
					break;
			if (k == t->n_fields) {
				snprintf(why, n, "%s: field %zu has no "
					 "size_t count", t->name, i);
				return -1;
			}
			break;
		case IMAGE_EMBED:
			want = f->sub->size;
			break;
		default:
			break;
		}
		if (f->size != want || ((f->kind == IMAGE_ARRAY ||
					 f->kind == IMAGE_EMBED ||
					 f->kind == IMAGE_REF) && !f->sub) ||
		    (f->kind == IMAGE_REF && !f->sub->target)) {
			snprintf(why, n, "%s: field %zu (offset %zu) has the "
				 "wrong size or type", t->name, i, f->off);
			return -1;
		}
		if (f->sub && check(f->sub, depth + 1, why, n))
			return -1;
	}
	if (t->size < cur || t->size - cur >= 8) {
		snprintf(why, n, "%s: %zu bytes after the last field",
			 t->name, t->size - cur);
		return -1;
	}
	return 0;
}

int
image_type_check(const struct image_type *t, char *why, size_t n)
{
	return check(t, 0, why, n);
}

/* FNV-1a, a word at a time for numbers (a layout, not an adversary). */
static uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= UINT64_C(0x100000001b3);
	return h ^ (h >> 31);
}

static uint64_t
digest_type(uint64_t h, const struct image_type *t, int depth)
{
	const char *c;
	size_t i;

	for (c = t->name; *c; c++)
		h = mix(h, (unsigned char)*c);
	h = mix(h, t->size);
	h = mix(h, (uint64_t)t->target);
	for (i = 0; i < t->n_fields && depth <= DEPTH_MAX; i++) {
		const struct image_field *f = &t->fields[i];

		h = mix(h, f->off);
		h = mix(h, f->size);
		h = mix(h, (uint64_t)f->kind);
		h = mix(h, f->count_off);
		h = mix(h, f->max);
		h = mix(h, (uint64_t)f->null_counted);
		if (f->sub)
			h = digest_type(h, f->sub, depth + 1);
	}
	return h;
}

uint64_t
image_types_digest(const struct image_type *const *roots, size_t n)
{
	const uint32_t order = 0x01020304;
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	size_t i;

	/* the byte order too: the image is of native words */
	h = mix(h, *(const unsigned char *)&order);
	for (i = 0; i < n; i++)
		h = digest_type(h, roots[i], 0);
	return h;
}

/* ---- writing ---- */

void
image_writer_init(struct image_writer *w)
{
	memset(w, 0, sizeof(*w));
	buf_init(&w->structs, 0);
	buf_init(&w->strings, 0);
}

void
image_writer_release(struct image_writer *w)
{
	buf_release(&w->structs);
	buf_release(&w->strings);
	strmap_release(&w->seen);
}

/* A pointer slot at `at` of the struct region: offset + 1, or 0. */
static void
put_slot(struct image_writer *w, size_t at, uintptr_t v)
{
	memcpy(w->structs.data + at, &v, sizeof(v));
}

/* Each distinct string once (a graph repeats its rules' strings). */
static int
put_string(struct image_writer *w, const char *s, uintptr_t *v)
{
	void *at;

	*v = 0;
	if (!s)
		return 0;
	at = strmap_get(&w->seen, s);
	if (at) {
		*v = (uintptr_t)at;
		return 0;
	}
	*v = (uintptr_t)w->strings.len + 1;
	if (strmap_put(&w->seen, s, (void *)*v, NULL))
		return ERROR_NOMEM;
	return buf_add(&w->strings, s, strlen(s) + 1, NULL);
}

/* Zeros to an 8-byte boundary; *at the offset reached. */
static int
pad(struct buf *b, size_t *at)
{
	static const char zeros[8];
	size_t n = align8(b->len) - b->len;

	*at = align8(b->len);
	return n ? buf_add(b, zeros, n, NULL) : 0;
}

static int write_array(struct image_writer *w, const struct image_type *t,
		       const char *src, size_t count, size_t *at);

static int
write_strs(struct image_writer *w, const char *const *v, size_t count,
	   size_t *at)
{
	size_t i;
	int rc = pad(&w->structs, at);

	for (i = 0; !rc && i < count; i++) {
		uintptr_t s;

		rc = put_string(w, v[i], &s);
		if (!rc)
			rc = buf_add(&w->structs, &s, sizeof(s), NULL);
	}
	return rc;
}

static int
write_ref(struct image_writer *w, const struct image_type *t, const char *p,
	  uintptr_t *v)
{
	size_t i;

	*v = 0;
	if (!p)
		return 0;
	for (i = 0; i < w->n_targets; i++) {
		const char *base = w->targets[i].src;
		size_t off;

		if (w->targets[i].t != t || p < base ||
		    p >= base + w->targets[i].count * t->size)
			continue;
		off = (size_t)(p - base);
		if (off % t->size)
			break;
		*v = (uintptr_t)(w->targets[i].at + off) + 1;
		return 0;
	}
	return ERROR_INVALID;
}

/* The pointers of the struct at `at` (a copy of src), type t. */
static int
write_fields(struct image_writer *w, const struct image_type *t, size_t at,
	     const char *src)
{
	size_t i, count, child;
	int rc = 0;

	for (i = 0; !rc && i < t->n_fields; i++) {
		const struct image_field *f = &t->fields[i];
		const void *p;
		uintptr_t v = 0;

		switch (f->kind) {
		case IMAGE_POD:
		case IMAGE_ENUM:
			continue;
		case IMAGE_ZERO:
			memset(w->structs.data + at + f->off, 0, f->size);
			continue;
		case IMAGE_EMBED:
			rc = write_fields(w, f->sub, at + f->off,
					  src + f->off);
			continue;
		default:
			break;
		}
		memcpy(&p, src + f->off, sizeof(p));
		if (f->kind == IMAGE_STR) {
			rc = put_string(w, p, &v);
		} else if (f->kind == IMAGE_REF) {
			rc = write_ref(w, f->sub, p, &v);
		} else if (p) {
			memcpy(&count, src + f->count_off, sizeof(count));
			if (f->kind == IMAGE_STRS)
				rc = write_strs(w, p, count, &child);
			else
				rc = write_array(w, f->sub, p, count, &child);
			v = (uintptr_t)child + 1;
		}
		if (!rc)
			put_slot(w, at + f->off, v);
	}
	return rc;
}

static int
write_array(struct image_writer *w, const struct image_type *t,
	    const char *src, size_t count, size_t *at)
{
	size_t i;
	int rc = pad(&w->structs, at);

	if (!rc && count > (SIZE_MAX >> 1) / t->size)
		rc = ERROR_INVALID;
	if (!rc && count)
		rc = buf_add(&w->structs, src, count * t->size, NULL);
	if (!rc && t->target) {
		if (w->n_targets == IMAGE_TARGETS)
			return ERROR_INVALID;
		w->targets[w->n_targets].t = t;
		w->targets[w->n_targets].src = src;
		w->targets[w->n_targets].count = count;
		w->targets[w->n_targets].at = *at;
		w->n_targets++;
	}
	for (i = 0; !rc && i < count; i++)
		rc = write_fields(w, t, *at + i * t->size, src + i * t->size);
	return rc;
}

int
image_write(struct image_writer *w, const struct image_type *t,
	    const void *obj)
{
	size_t at;

	return write_array(w, t, obj, 1, &at);
}

static void
put_u64(struct buf *b, size_t at, uint64_t v)
{
	memcpy(b->data + at, &v, sizeof(v));
}

int
image_finish(struct image_writer *w, struct buf *out)
{
	const uint64_t *words;
	size_t at, i, n, start = out->len, bitmap;
	int rc = pad(&w->structs, &at);

	/* words, string bytes, then the bitmap of nonzero words */
	n = w->structs.len / 8;
	bitmap = start + 16;
	if (!rc)
		rc = buf_grow(out, 16 + (n + 63) / 64 * 8, NULL);
	if (rc)
		return rc;
	memset(out->data + start, 0, 16 + (n + 63) / 64 * 8);
	out->len += 16 + (n + 63) / 64 * 8;
	out->data[out->len] = '\0';
	put_u64(out, start, n);
	/* a NUL last, so every string offset ends inside the image */
	put_u64(out, start + 8, w->strings.len + 1);
	words = (const uint64_t *)(const void *)w->structs.data;
	for (i = 0; !rc && i < n; i++) {
		char *word = out->data + bitmap + i / 64 * 8;
		uint64_t bits;

		if (!words[i])
			continue;
		/* native words, as the reader loads them */
		memcpy(&bits, word, 8);
		bits |= UINT64_C(1) << (i % 64);
		memcpy(word, &bits, 8);
		rc = buf_add(out, &words[i], 8, NULL);
	}
	if (!rc)
		rc = buf_add(out, w->strings.data, w->strings.len, NULL);
	if (!rc)
		rc = buf_addch(out, '\0', NULL);
	return rc;
}
