/* Helpers for the cache suites (see helpers.h). */
#include "tests/cache/helpers.h"

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "cache/cache.h"
#include "tests/support/support.h"

char *
tc_tmp_cache_path(char **dir)
{
	char *d = t_tmpdir();
	size_t n = strlen(d) + 16;
	char *p = malloc(n);

	cr_assert(p);
	snprintf(p, n, "%s/cache.db", d);
	*dir = d;
	return p;
}

struct cache *
tc_open(const char *path)
{
	struct cache *c = NULL;
	struct error err;

	error_init(&err);
	cr_assert_eq(cache_open(path, CACHE_OPEN_CREATE, &c, &err), 0,
		     "open: %s", err.msg);
	return c;
}

void
tc_run(struct cache *c, const char *id, const char *commit, int64_t ms)
{
	struct cache_run run;
	struct error err;

	memset(&run, 0, sizeof(run));
	run.id = (char *)id;
	run.commit = (char *)commit;
	run.ref = (char *)"refs/heads/main";
	run.status = CACHE_RUN_STATUS_RUNNING;
	run.rules_digest = (char *)"00112233445566778899aabbccddeeff";
	run.started_ms = ms;
	error_init(&err);
	cr_assert_eq(cache_run_create(c, &run, &err), 0, "run: %s", err.msg);
}

void
tc_key(unsigned seed, char *out)
{
	snprintf(out, CACHE_KEY_SIZE, "%08x%08x%08x%08x", seed, seed * 7u,
		 seed ^ 0xabcdefu, 0x1234u);
}

void
tc_record(struct cache_record *rec, const char *run, const char *node,
	  unsigned seed)
{
	char buf[64];

	cache_record_init(rec);
	rec->run = strdup(run);
	rec->node_id = strdup(node);
	tc_key(seed, rec->key);
	rec->status = CACHE_RECORD_STATUS_OK;
	snprintf(buf, sizeof(buf), "out-%u", seed);
	rec->output_digest = strdup(buf);
	rec->version = strdup("1.2.3");
	cr_assert_eq(strv_push(&rec->artifacts, "dist/b.whl", NULL), 0);
	cr_assert_eq(strv_push(&rec->artifacts, "dist/a.whl", NULL), 0);
	cr_assert_eq(strv_push(&rec->metadata, "runner=linux-1", NULL), 0);
	cr_assert_eq(strv_push(&rec->metadata, "gpu=none", NULL), 0);
	rec->duration_ms = 1500 + seed;
	rec->recorded_ms = 1700000000000LL + seed;
}

int
tc_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open(path, &db);

	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc;
}

long
tc_sql_int(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long v = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) ==
		    SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}
