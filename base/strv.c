/* String vectors and byte-order string sorting. */
#include "base/strv.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

void
strv_init(struct strv *sv, int owned)
{
	sv->v = NULL;
	sv->n = sv->cap = 0;
	sv->owned = owned;
}

void
strv_release(struct strv *sv)
{
	size_t i;

	if (!sv)
		return;
	if (sv->owned)
		for (i = 0; i < sv->n; i++)
			mem_free(sv->v[i]);
	mem_free(sv->v);
	strv_init(sv, sv->owned);
}

int
strv_push_ref(struct strv *sv, char *s, struct error *err)
{
	if (sv->n + 2 > sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 8;
		char **v = mem_realloc(sv->v, cap * sizeof(*v));

		if (!v)
			return error_set(err, ERROR_NOMEM, "out of memory");
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
	return 0;
}

int
strv_push(struct strv *sv, const char *s, struct error *err)
{
	char *d;
	int rc;

	if (!sv->owned)
		return strv_push_ref(sv, (char *)s, err);
	d = mem_strdup(s);
	if (!d)
		return error_set(err, ERROR_NOMEM, "out of memory");
	rc = strv_push_ref(sv, d, err);
	if (rc)
		mem_free(d);
	return rc;
}

long
strv_find(const struct strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return (long)i;
	return -1;
}

int
sort_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* v[0..n) by insertion: stable, no set-up (a source set's prefixes,
 * 500 sets a plan: 200 instructions fewer than qsort for two strings). */
static void
insert_strings(const char **v, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		const char *x = v[i];

		for (j = i; j > 0 && strcmp(v[j - 1], x) > 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* v[0..n) by merging, stable; tmp holds n / 2 pointers. */
static void
merge_strings(const char **v, const char **tmp, size_t n)
{
	size_t m = n / 2, i = 0, j = m, k = 0;

	if (n <= 8) {
		insert_strings(v, n);
		return;
	}
	merge_strings(v, tmp, m);
	merge_strings(v + m, tmp, n - m);
	if (strcmp(v[m - 1], v[m]) <= 0)
		return;
	memcpy(tmp, v, m * sizeof(*v));
	while (i < m && j < n)
		v[k++] = strcmp(v[j], tmp[i]) < 0 ? v[j++] : tmp[i++];
	while (i < m)
		v[k++] = tmp[i++];
}

/*
 * Stable on every system: equal strings keep the order they came in.
 * qsort promises no order for them (msvcrt's is a quicksort; glibc's
 * merge sort falls back to one for large arrays), so it is only the
 * fallback when the merge's buffer cannot be had.
 */
void
sort_strings(const char **v, size_t n)
{
	const char *stack[64], **tmp = stack;

	if (n <= 8) {
		insert_strings(v, n);
		return;
	}
	if (n / 2 > sizeof(stack) / sizeof(*stack) &&
	    !(tmp = mem_alloc(n / 2 * sizeof(*tmp)))) {
		qsort(v, n, sizeof(*v), sort_cmp_str);
		return;
	}
	merge_strings(v, tmp, n);
	if (tmp != stack)
		mem_free(tmp);
}

void
strv_sort(struct strv *sv)
{
	sort_strings((const char **)sv->v, sv->n);
}

void
strv_sort_unique(struct strv *sv)
{
	size_t i, j = 0;

	strv_sort(sv);
	for (i = 0; i < sv->n; i++) {
		if (j && !strcmp(sv->v[j - 1], sv->v[i])) {
			if (sv->owned)
				mem_free(sv->v[i]);
			continue;
		}
		sv->v[j++] = sv->v[i];
	}
	sv->n = j;
	if (sv->v)
		sv->v[j] = NULL;
}
