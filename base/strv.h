/*
 * A growable array of strings (argv-like, NULL-terminated). Each vector
 * either owns its strings (strv_push copies) or points into an arena
 * (strv_push_ref); `owned` says which. Sorting helpers live here too.
 */
#ifndef RIPPLE_BASE_STRV_H
#define RIPPLE_BASE_STRV_H

#include <stddef.h>

struct error;

struct strv {
	char **v;	/* n strings then NULL; NULL before the first push */
	size_t n, cap;
	int owned;	/* 1: strv_release frees each string */
};

#define STRV_INIT { NULL, 0, 0, 1 }

/* Empty vector; `owned` as above. Allocates nothing. */
void strv_init(struct strv *sv, int owned);

/* Free the array (and the strings when owned). Accepts NULL. */
void strv_release(struct strv *sv);

/* Append a copy of s (owned vectors) . Returns 0 or ERROR_NOMEM. */
int strv_push(struct strv *sv, const char *s, struct error *err);

/* Append s itself (the caller keeps it alive). Returns 0 or ERROR_NOMEM. */
int strv_push_ref(struct strv *sv, char *s, struct error *err);

/* Index of s in the vector, or -1. */
long strv_find(const struct strv *sv, const char *s);

/* Sort with strcmp (byte order: total and locale-free). */
void strv_sort(struct strv *sv);

/* Sort then drop adjacent duplicates (freeing them when owned). */
void strv_sort_unique(struct strv *sv);

/* qsort comparator over `const char *` elements, byte order. */
int sort_cmp_str(const void *a, const void *b);

/*
 * Sort an array of n `const char *` with sort_cmp_str, stably on every
 * system (equal strings keep the order they came in), but where the
 * merge's buffer (n / 2 pointers past 128 strings) cannot be allocated:
 * then by qsort, equal strings in any order.
 */
void sort_strings(const char **v, size_t n);

#endif
