/*
 * The remote cache entry of one node on the test nginx (t_fx), loaded and
 * written back with one more output, as a hostile cache writer would:
 * shared by the e2e suites that try what such an entry can do.
 */
#ifndef RIPPLE_TESTS_E2E_REMOTE_ENTRY_H
#define RIPPLE_TESTS_E2E_REMOTE_ENTRY_H

#include <limits.h>

#include <jansson.h>

#include "cache/remote.h"

struct entry {
	char ac[PATH_MAX + 512];	/* the AC file on the server */
	struct remote_action a;		/* decoded */
	json_t *rec;			/* the record blob */
};

/* The entry of node id `node` on t_fx's server (the test fails without). */
void entry_load(struct entry *e, const char *node);

/*
 * Write the entry back with one more output `path` holding `text` (NULL:
 * none), listed in the record too, and the record's output digest made
 * right over every file (or wrong, `wrong`).
 */
void entry_craft(struct entry *e, const char *path, const char *text,
		 int wrong);

void entry_release(struct entry *e);

#endif
