/* String-keyed hash map (see strmap.h). */
#include "base/strmap.h"

#include <stdint.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

static uint64_t
hash(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

/* The slot holding key, or the empty slot where it would go. */
static struct strmap_slot *
slot(struct strmap_slot *slots, size_t cap, const char *key)
{
	size_t i = (size_t)hash(key) & (cap - 1);

	while (slots[i].key && strcmp(slots[i].key, key))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int
grow(struct strmap *m, struct error *err)
{
	size_t cap = m->cap ? m->cap * 2 : 16, i;
	struct strmap_slot *v;

	if (cap > SIZE_MAX / sizeof(*v))
		return error_set(err, ERROR_NOMEM, "out of memory");
	v = mem_calloc(cap, sizeof(*v));
	if (!v)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			*slot(v, cap, m->slots[i].key) = m->slots[i];
	mem_free(m->slots);
	m->slots = v;
	m->cap = cap;
	return 0;
}

int
strmap_put(struct strmap *m, const char *key, void *value, struct error *err)
{
	struct strmap_slot *s;
	int rc;

	if (2 * (m->n + 1) > m->cap) {	/* at most half full */
		rc = grow(m, err);
		if (rc)
			return rc;
	}
	s = slot(m->slots, m->cap, key);
	if (!s->key) {
		s->key = key;
		m->n++;
	}
	s->value = value;
	return 0;
}

void *
strmap_get(const struct strmap *m, const char *key)
{
	const struct strmap_slot *s;

	if (!m->cap)
		return NULL;
	s = slot(m->slots, m->cap, key);
	return s->key ? s->value : NULL;
}

void
strmap_release(struct strmap *m)
{
	if (!m)
		return;
	mem_free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}
