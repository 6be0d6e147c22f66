/*
 * Helpers shared by the cache suites: a cache in a fresh temporary folder,
 * runs and records with fixed contents, and raw SQL on a file.
 */
#ifndef RIPPLE_TESTS_CACHE_HELPERS_H
#define RIPPLE_TESTS_CACHE_HELPERS_H

#include <stdint.h>

struct cache;
struct cache_record;

/* A fresh temp dir and "DIR/cache.db" in *path (malloc'd, both). */
char *tc_tmp_cache_path(char **dir);

/* Open (creating) path; aborts the test on failure. */
struct cache *tc_open(const char *path);

/* Create run `id` with commit `commit` (may be NULL), started at `ms`. */
void tc_run(struct cache *c, const char *id, const char *commit, int64_t ms);

/* A record of node in run with key made from `seed`; release it after. */
void tc_record(struct cache_record *rec, const char *run, const char *node,
	       unsigned seed);

/* The key tc_record uses for `seed`, written into out (33 bytes). */
void tc_key(unsigned seed, char *out);

/* Run SQL on the file with SQLite directly; returns the SQLite result. */
int tc_sql(const char *path, const char *sql);

/* The integer result of a one-value query on the file (-1 on error). */
long tc_sql_int(const char *path, const char *sql);

#endif
