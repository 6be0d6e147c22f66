/*
 * Typed images: a tree of plain structs (arrays of structs, strings,
 * references to elements of arrays in the same tree) copied into one
 * buffer with every pointer written as an offset, and read back with one
 * copy and one walk that turns the offsets into pointers in place. A
 * struct is described by a table of its fields (struct image_type), every
 * field listed, pointers or not: image_type_check refuses a table that
 * leaves room for an unlisted pointer, so a field added to a struct
 * without its table fails the tests, never reads a stale pointer.
 *
 * Why: the rules model and graph of a 500-rule ripple.yml cost 8.6 M
 * instructions to build from its parsed tree (the YAML tree's decode, the
 * loader's checks and allocations, the expansion and sort); read as an
 * image, 2.93 M with the cache's read: a copy and one checked pass over
 * some 56,000 fields (1.5 M of it).
 *
 * The bytes are data from a file (a cache row): the reader checks every
 * offset and count against the image, so a damaged image is refused, never
 * a pointer outside it. The writer lays arrays out in the order the reader
 * visits them (depth first: an array, then what each element points to,
 * field by field), and the reader requires each array exactly where the
 * previous one ended (8-aligned), so no two arrays overlap and none is
 * read twice. Strings lie after the structs, the last byte a NUL, and are
 * never written by the walk. Scalar fields are copied as they are (the
 * struct's bytes, padding included): the image is of this build's layout,
 * and image_types_digest names that layout for a memo's key.
 */
#ifndef RIPPLE_BASE_IMAGE_H
#define RIPPLE_BASE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/strmap.h"

enum image_kind {
	IMAGE_POD,	/* scalar bytes, copied as they are */
	IMAGE_ENUM,	/* an unsigned int (an enum) at most `max` */
	IMAGE_ZERO,	/* written as zeros (an index, an arena, a name the
			   reader sets): the reader's to fill */
	IMAGE_STR,	/* const char *, or NULL */
	IMAGE_STRS,	/* const char ** of `count` strings (each may be
			   NULL), or NULL */
	IMAGE_ARRAY,	/* `sub` * of `count` elements, or NULL */
	IMAGE_EMBED,	/* a struct of type `sub` in place */
	IMAGE_REF,	/* const `sub` *: an element of an array of `sub`
			   (a type with `target` set) in the same image, or
			   NULL */
};

struct image_type;

struct image_field {
	size_t off, size;		/* offsetof, sizeof */
	enum image_kind kind;
	const struct image_type *sub;	/* ARRAY, EMBED, REF */
	size_t count_off;		/* STRS, ARRAY: a size_t count's
					   offset in the same struct */
	unsigned max;			/* ENUM: the largest value */
	int null_counted;		/* STRS, ARRAY: NULL with a count
					   above 0 is valid (a list
					   parallel to another's count) */
};

struct image_type {
	const char *name;
	size_t size;			/* sizeof */
	const struct image_field *fields;	/* by offset, every field */
	size_t n_fields;
	int target;			/* 1: REFs may point into arrays of
					   it (at most IMAGE_TARGETS such
					   arrays in an image) */
};

#define IMAGE_TARGETS 8

#define IMAGE_F_(T, f, kind, sub, count, max, nc)                             \
	{ offsetof(T, f), sizeof(((T *)0)->f), kind, sub, count, max, nc }
#define IMAGE_POD_F(T, f) IMAGE_F_(T, f, IMAGE_POD, NULL, 0, 0, 0)
#define IMAGE_ENUM_F(T, f, max) IMAGE_F_(T, f, IMAGE_ENUM, NULL, 0, max, 0)
#define IMAGE_ZERO_F(T, f) IMAGE_F_(T, f, IMAGE_ZERO, NULL, 0, 0, 0)
#define IMAGE_STR_F(T, f) IMAGE_F_(T, f, IMAGE_STR, NULL, 0, 0, 0)
#define IMAGE_STRS_F(T, f, n) \
	IMAGE_F_(T, f, IMAGE_STRS, NULL, offsetof(T, n), 0, 0)
#define IMAGE_ARRAY_F(T, f, sub, n) \
	IMAGE_F_(T, f, IMAGE_ARRAY, &(sub), offsetof(T, n), 0, 0)
#define IMAGE_EMBED_F(T, f, sub) IMAGE_F_(T, f, IMAGE_EMBED, &(sub), 0, 0, 0)
#define IMAGE_REF_F(T, f, sub) IMAGE_F_(T, f, IMAGE_REF, &(sub), 0, 0, 0)
/* The type of struct T described by the array `fields`. */
#define IMAGE_TYPE(T, name, fields, target)                                   \
	{ name, sizeof(T), fields, sizeof(fields) / sizeof((fields)[0]),      \
	  target }

/*
 * 0 when t's fields are listed in offset order, inside the struct, each
 * count a size_t field of the struct, and leave no gap of 8 bytes or more
 * (where an unlisted pointer could be), for t and every type it reaches;
 * else -1 with the first problem in why (n bytes, n >= 1).
 */
int image_type_check(const struct image_type *t, char *why, size_t n);

/*
 * A 64-bit digest (FNV-1a) of the layout of the n root types and every
 * type they reach: names, sizes, every field's offset, size, kind, count
 * and bound. A memo keyed by it misses after any change of layout.
 */
uint64_t image_types_digest(const struct image_type *const *roots,
			    size_t n);

/* Writing: structs and strings gathered apart, joined by image_finish. */
struct image_writer {
	struct buf structs;		/* the struct region */
	struct buf strings;		/* the string region */
	struct {
		const struct image_type *t;
		const char *src;	/* the array written */
		size_t count, at;	/* its length, its offset */
	} targets[IMAGE_TARGETS];
	size_t n_targets;
	struct strmap seen;		/* string -> its offset + 1 */
};

/* An empty writer; image_writer_release frees what it gathered. */
void image_writer_init(struct image_writer *w);
void image_writer_release(struct image_writer *w);

/*
 * Write the struct at obj (type t) and everything it reaches, after what
 * is written so far. Returns 0, ERROR_NOMEM, or ERROR_INVALID when a REF
 * points at nothing written before it or there are too many target
 * arrays (then nothing is to be remembered).
 */
int image_write(struct image_writer *w, const struct image_type *t,
		const void *obj);

/*
 * The image appended to out, packed: the struct region's length in
 * 8-byte words and the string region's in bytes (u64 each), a bitmap of
 * the words that are not zero (most are: NULL pointers, zero counts),
 * those words, then the strings, each distinct one once, the last byte a
 * NUL. Returns 0 or ERROR_NOMEM.
 */
int image_finish(struct image_writer *w, struct buf *out);

/* Reading, in place, from an unpacked copy. */
struct image_reader {
	char *img;
	size_t strings_at, len;		/* strings [strings_at, len) */
	size_t cursor;			/* where the next array must be */
	struct {
		const struct image_type *t;
		size_t at, count;
	} targets[IMAGE_TARGETS];
	size_t n_targets;
};

struct arena;

/*
 * Unpack the len bytes image_finish wrote into memory from arena a and
 * start reading them. Returns 0, -1 when they do not unpack (a length,
 * the bitmap or the final NUL out of place), or ERROR_NOMEM.
 */
int image_unpack(struct image_reader *r, const void *packed, size_t len,
		 struct arena *a);

/*
 * The next struct of type t (the roots are read in the order they were
 * written), its pointers made pointers into img: *out points at it.
 * Returns 0, or -1 when anything is out of place (a miss: the image is
 * not to be used).
 */
int image_read(struct image_reader *r, const struct image_type *t,
	       void **out);

/* 0 when every byte of the struct region was read, else -1. */
int image_read_end(const struct image_reader *r);

#endif
