/*
 * A map from strings to pointers: open addressing with linear probing over
 * FNV-1a hashes, for lookups inside loops over input-sized lists (YAML
 * anchors, map keys), where a scan per lookup made loading quadratic.
 * Keys are borrowed (they must outlive the map). Nothing iterates the map,
 * so its order never reaches output.
 */
#ifndef RIPPLE_BASE_STRMAP_H
#define RIPPLE_BASE_STRMAP_H

#include <stddef.h>

struct error;

struct strmap_slot {
	const char *key;	/* NULL: empty */
	void *value;
};

struct strmap {
	struct strmap_slot *slots;	/* cap slots, owned */
	size_t cap;		/* a power of two, or 0 */
	size_t n;		/* keys held */
};

#define STRMAP_INIT { NULL, 0, 0 }

/* Map `key` to `value`, replacing an earlier value. Returns 0 or
 * ERROR_NOMEM (the map is then unchanged). */
int strmap_put(struct strmap *m, const char *key, void *value,
	       struct error *err);

/* The value of `key`, or NULL when absent. */
void *strmap_get(const struct strmap *m, const char *key);

/* Free the slots; the map is empty again. Accepts NULL. */
void strmap_release(struct strmap *m);

#endif
