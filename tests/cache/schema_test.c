/* Suite cache_schema: opening, creating, upgrading and refusing files. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "cache/cache.h"
#include "tests/cache/helpers.h"
#include "tests/support/support.h"

/* The version-1 schema, as ripple 0.1 wrote it (no kernels table). */
static const char v1_ddl[] =
	"CREATE TABLE runs (id TEXT PRIMARY KEY NOT NULL,"
	" \"commit\" TEXT, ref TEXT, tag TEXT, status TEXT NOT NULL,"
	" rules_digest TEXT, started_ms INTEGER NOT NULL,"
	" ended_ms INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE records (run TEXT NOT NULL REFERENCES runs (id),"
	" node_id TEXT NOT NULL, key TEXT NOT NULL, status TEXT NOT NULL,"
	" output_digest TEXT, artifacts TEXT NOT NULL DEFAULT '[]',"
	" version TEXT, metadata TEXT NOT NULL DEFAULT '{}',"
	" duration_ms INTEGER NOT NULL DEFAULT 0,"
	" recorded_ms INTEGER NOT NULL, PRIMARY KEY (run, node_id));"
	"CREATE TABLE manifests (key TEXT PRIMARY KEY NOT NULL,"
	" components TEXT NOT NULL);"
	"INSERT INTO runs VALUES ('old', 'c0ffee', NULL, NULL, 'ok', NULL,"
	" 5, 6);"
	"PRAGMA user_version = 1;";

Test(cache_schema, create_makes_parent_folders_and_current_version)
{
	char *dir = t_tmpdir(), path[512];
	struct cache *c = NULL;
	struct error err;

	snprintf(path, sizeof(path), "%s/a/b/cache.db", dir);
	error_init(&err);
	cr_assert_eq(cache_open(path, CACHE_OPEN_CREATE, &c, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(cache_schema_version(c), CACHE_SCHEMA_VERSION);
	cache_close(c);
	cr_expect_eq(tc_sql_int(path, "PRAGMA user_version"),
		     CACHE_SCHEMA_VERSION);
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM sqlite_master "
				"WHERE name = 'kernels'"), 1);
	t_rmtree(dir);
	free(dir);
}

/*
 * cache_global_init, as main calls it before any cache: SQLite keeps no
 * count of its memory (the count took a global mutex on every SQLite
 * allocation and free), and a cache opens and works as before.
 */
Test(cache_schema, global_init_leaves_sqlite_memory_uncounted)
{
	char *dir = t_tmpdir(), path[512];
	struct cache *c = NULL;
	struct error err;

	cache_global_init();
	snprintf(path, sizeof(path), "%s/cache.db", dir);
	error_init(&err);
	cr_assert_eq(cache_open(path, CACHE_OPEN_CREATE, &c, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(cache_schema_version(c), CACHE_SCHEMA_VERSION);
	cr_expect_eq(sqlite3_memory_used(), 0, "SQLite counted %lld bytes",
		     (long long)sqlite3_memory_used());
	cache_close(c);
	t_rmtree(dir);
	free(dir);
}

Test(cache_schema, reopen_keeps_data_and_makes_no_backup)
{
	char *dir, *path = tc_tmp_cache_path(&dir), bak[512];
	struct cache *c = tc_open(path);
	struct cache_run run;
	struct error err;

	tc_run(c, "r1", "abc", 10);
	cache_close(c);
	c = NULL;
	error_init(&err);
	cr_assert_eq(cache_open(path, 0, &c, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_run_get(c, "r1", &run, &err), 0, "%s", err.msg);
	cr_expect_str_eq(run.commit, "abc");
	cache_run_release(&run);
	cache_close(c);
	snprintf(bak, sizeof(bak), "%s.bak-v1", path);
	cr_expect_neq(access(bak, F_OK), 0);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_schema, wal_mode_is_on)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	char *wal;
	size_t n = strlen(path) + 8;

	tc_run(c, "r1", NULL, 1);
	wal = malloc(n);
	snprintf(wal, n, "%s-wal", path);
	cr_expect_eq(access(wal, F_OK), 0, "no -wal file beside the cache");
	cache_close(c);
	free(wal);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_schema, newer_schema_is_refused)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct error err;
	char want[96];

	cache_close(c);
	c = NULL;
	cr_assert_eq(tc_sql(path, "PRAGMA user_version = 99"), 0);
	error_init(&err);
	cr_expect_eq(cache_open(path, 0, &c, &err), ERROR_UNSUPPORTED);
	cr_expect_null(c);
	snprintf(want, sizeof(want), "cache schema version 99 is newer than "
		 "this ripple understands (%d)", CACHE_SCHEMA_VERSION);
	cr_expect_str_eq(err.msg, want);
	cr_expect_str_eq(err.file, path);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_schema, old_version_is_backed_up_then_upgraded)
{
	char *dir, *path = tc_tmp_cache_path(&dir), bak[512];
	struct cache *c = NULL;
	struct cache_run run;
	struct cache_kernel k = { (char *)"k1", (char *)"sm_90",
				  (unsigned char *)"\x7f" "ELF", 4, 1 };
	struct error err;

	cr_assert_eq(tc_sql(path, v1_ddl), 0);
	error_init(&err);
	cr_assert_eq(cache_open(path, 0, &c, &err), 0, "%s", err.msg);
	cr_expect_eq(cache_schema_version(c), CACHE_SCHEMA_VERSION);
	cr_assert_eq(cache_run_get(c, "old", &run, &err), 0, "%s", err.msg);
	cr_expect_str_eq(run.commit, "c0ffee");
	cache_run_release(&run);
	cr_expect_eq(cache_kernel_put(c, &k, &err), 0, "%s", err.msg);
	cache_close(c);
	snprintf(bak, sizeof(bak), "%s.bak-v1", path);
	cr_expect_eq(tc_sql_int(bak, "PRAGMA user_version"), 1);
	cr_expect_eq(tc_sql_int(bak, "SELECT count(*) FROM runs"), 1);
	cr_expect_eq(tc_sql_int(bak, "SELECT count(*) FROM sqlite_master "
				"WHERE name = 'kernels'"), 0);
	cr_expect_eq(tc_sql_int(path, "PRAGMA user_version"),
		     CACHE_SCHEMA_VERSION);
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM sqlite_master "
				"WHERE name = 'source_keys'"), 1);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_schema, old_version_read_only_is_refused_untouched)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = NULL;
	struct error err;

	cr_assert_eq(tc_sql(path, v1_ddl), 0);
	error_init(&err);
	cr_expect_eq(cache_open(path, CACHE_OPEN_READONLY, &c, &err),
		     ERROR_UNSUPPORTED);
	cr_expect(strstr(err.msg, "version 1 is older") != NULL, "%s",
		  err.msg);
	cr_expect_eq(tc_sql_int(path, "PRAGMA user_version"), 1);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_schema, garbage_file_is_corrupt_with_hint)
{
	char *dir, *path = tc_tmp_cache_path(&dir), junk[4096];
	struct cache *c = NULL;
	struct error err;
	size_t i;

	for (i = 0; i < sizeof(junk) - 1; i++)
		junk[i] = (char)('a' + i % 26);
	junk[sizeof(junk) - 1] = '\0';
	t_write(dir, "cache.db", junk);
	error_init(&err);
	cr_expect_eq(cache_open(path, CACHE_OPEN_CREATE, &c, &err),
		     ERROR_CORRUPT);
	cr_expect_null(c);
	cr_expect_str_eq(err.msg, "file is not a database");
	cr_expect_str_eq(err.hint, "move it aside; ripple makes a new one");
	cr_expect_str_eq(err.file, path);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_schema, foreign_database_is_not_a_cache)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = NULL;
	struct error err;

	cr_assert_eq(tc_sql(path, "CREATE TABLE notes (x TEXT)"), 0);
	error_init(&err);
	cr_expect_eq(cache_open(path, 0, &c, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "not a ripple cache") != NULL, "%s",
		  err.msg);
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM sqlite_master"),
		     1);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_schema, missing_file_without_create_is_not_found)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = NULL;
	struct error err;

	error_init(&err);
	cr_expect_eq(cache_open(path, CACHE_OPEN_READONLY, &c, &err),
		     ERROR_NOT_FOUND);
	error_init(&err);
	cr_expect_eq(cache_open(path, 0, &c, &err), ERROR_NOT_FOUND);
	cr_expect_null(c);
	cr_expect_neq(access(path, F_OK), 0, "open made the file");
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_schema, read_only_handle_refuses_writes)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct cache_run_list list;
	struct error err;

	tc_run(c, "r1", NULL, 1);
	cache_close(c);
	c = NULL;
	error_init(&err);
	cr_assert_eq(cache_open(path, CACHE_OPEN_READONLY, &c, &err), 0,
		     "%s", err.msg);
	cr_expect_eq(cache_run_list(c, NULL, &list, &err), 0, "%s", err.msg);
	cr_expect_eq(list.n, 1);
	cache_run_list_release(&list);
	error_init(&err);
	cr_expect_eq(cache_run_finish(c, "r1", CACHE_RUN_STATUS_OK, 2, &err),
		     ERROR_IO);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_schema, integrity_check_passes_then_finds_dangling_record)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct error err;

	error_init(&err);
	cr_expect_eq(cache_integrity_check(c, &err), 0, "%s", err.msg);
	cache_close(c);
	cr_assert_eq(tc_sql(path, "PRAGMA foreign_keys = OFF; INSERT INTO "
			    "records (run, node_id, key, status, recorded_ms) "
			    "VALUES ('ghost', 'n', "
			    "'0123456789abcdef0123456789abcdef', 'ok', 1)"), 0);
	c = tc_open(path);
	error_init(&err);
	cr_expect_eq(cache_integrity_check(c, &err), ERROR_CORRUPT);
	cr_expect(strstr(err.msg, "records") != NULL, "%s", err.msg);
	cr_expect_str_eq(err.hint, "move it aside; ripple makes a new one");
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_schema, source_key_memo_round_trip)
{
	char *dir, *path = tc_tmp_cache_path(&dir), key[CACHE_KEY_SIZE];
	struct cache *c = tc_open(path);
	struct error err;
	const char *memo = "0123456789abcdef0123456789abcdef";
	const char *val = "fedcba9876543210fedcba9876543210";

	error_init(&err);
	cr_expect_eq(cache_source_key_get(c, memo, key, &err), 0);
	cr_expect_eq(cache_source_key_put(c, memo, val, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(cache_source_key_get(c, memo, key, &err), 1);
	cr_expect_str_eq(key, val);
	cr_expect_eq(cache_source_key_put(c, "short", val, &err),
		     ERROR_INVALID);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

/*
 * cache_source_keys_get answers what cache_source_key_get answers, id by
 * id (misses, repeats, any order), by reading the memo whole, and
 * declines (0) when the memo holds more than CACHE_SOURCE_KEYS_SCAN rows
 * per id asked, where lookups one by one are cheaper.
 */
Test(cache_schema, source_keys_read_at_once)
{
	char *dir, *path = tc_tmp_cache_path(&dir), key[CACHE_KEY_SIZE];
	struct cache *c = tc_open(path);
	char memo[12][33], val[12][33], keys[12 * 33];
	const char *ask[12];
	struct error err;
	size_t i, n = 0;

	error_init(&err);
	for (i = 0; i < 12; i++) {
		snprintf(memo[i], 33, "%032zx", 7 * i + 1);
		snprintf(val[i], 33, "%032zx", 1000 + i);
		if (i % 3)	/* every third one is a miss */
			cr_assert_eq(cache_source_key_put(c, memo[i], val[i],
							  &err), 0);
	}
	/* Asked backwards, one twice. */
	for (i = 12; i-- > 0;)
		ask[n++] = memo[i];
	ask[0] = memo[4];
	cr_assert_eq(cache_source_keys_get(c, ask, 12, keys, &err), 1, "%s",
		     err.msg);
	for (i = 0; i < 12; i++) {
		int hit = cache_source_key_get(c, ask[i], key, &err);

		cr_assert_geq(hit, 0);
		cr_expect_str_eq(keys + 33 * i, hit ? key : "", "id %s",
				 ask[i]);
	}
	cr_expect_str_eq(keys, val[4]);
	/* 8 rows, one id asked: more than 4 rows an id. */
	cr_expect_eq(cache_source_keys_get(c, ask, 1, keys, &err), 0);
	cr_expect_str_eq(keys, "");
	ask[1] = "not-hex";
	cr_expect_eq(cache_source_keys_get(c, ask, 2, keys, &err),
		     ERROR_INVALID);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

/*
 * The tree-scan memo keeps what it was given; a row damaged on disk (any
 * field no longer what its check sum covers) is a miss, never another
 * answer; a height out of range stores nothing.
 */
Test(cache_schema, tree_scans_keep_what_they_were_told)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct cache_tree_scan v[3];
	unsigned char canon[20];
	struct error err;
	int height, i;

	error_init(&err);
	memset(v, 0, sizeof(v));
	for (i = 0; i < 3; i++) {
		memset(v[i].tree, 0x10 + i, 20);
		memset(v[i].canon, 0x40 + i, 20);
		v[i].height = 7 * i;
	}
	cr_assert_eq(cache_tree_scans_put(c, v, 3, &err), 0, "%s", err.msg);
	for (i = 0; i < 3; i++) {
		cr_assert_eq(cache_tree_scan_get(c, v[i].tree, &height, canon,
						 &err), 1, "%s", err.msg);
		cr_expect_eq(height, 7 * i);
		cr_expect_eq(memcmp(canon, v[i].canon, 20), 0);
	}
	cache_close(c);
	cr_assert_eq(tc_sql(path, "UPDATE tree_scans SET canon = zeroblob(20) "
			    "WHERE height = 0; UPDATE tree_scans SET height "
			    "= 8 WHERE height = 7"), 0);
	c = tc_open(path);
	cr_expect_eq(cache_tree_scan_get(c, v[0].tree, &height, canon, &err),
		     0, "a damaged canonical id was read");
	cr_expect_eq(cache_tree_scan_get(c, v[1].tree, &height, canon, &err),
		     0, "a damaged height was read");
	cr_expect_eq(cache_tree_scan_get(c, v[2].tree, &height, canon, &err),
		     1);
	v[0].height = 4096;
	memset(v[1].tree, 0x77, 20);
	cr_expect_eq(cache_tree_scans_put(c, v, 2, &err), ERROR_INVALID);
	cr_expect_eq(cache_tree_scan_get(c, v[1].tree, &height, canon, &err),
		     0, "stored beside a height out of range");
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

/*
 * A memo row whose key is not 32 lowercase hex digits (uppercase, a
 * letter past f, a slash: the column's length check passes) is no
 * key, read at once or alone: the set is walked again, never keyed from
 * it. A good row beside them is still read.
 */
Test(cache_schema, a_corrupt_memo_row_is_no_key)
{
	static const char *const bad[] = {
		"0123456789ABCDEF0123456789abcdef",
		"0123456789abcdeg0123456789abcdef",
		"0123456789abcdef0123456789abcde/",
	};
	char *dir, *path = tc_tmp_cache_path(&dir), key[CACHE_KEY_SIZE];
	char memo[4][33], sql[256], keys[4 * 33];
	const char *ask[4];
	struct cache *c = tc_open(path);
	struct error err;
	size_t i;

	error_init(&err);
	cache_close(c);
	for (i = 0; i < 4; i++) {
		snprintf(memo[i], 33, "%032zx", i + 1);
		ask[i] = memo[i];
		snprintf(sql, sizeof(sql), "INSERT INTO source_keys VALUES "
			 "('%s', '%s')", memo[i], i < 3 ? bad[i] :
			 "00000000000000000000000000000abc");
		cr_assert_eq(tc_sql(path, sql), 0, "%s", sql);
	}
	c = tc_open(path);
	cr_assert_eq(cache_source_keys_get(c, ask, 4, keys, &err), 1, "%s",
		     err.msg);
	for (i = 0; i < 4; i++) {
		int hit = cache_source_key_get(c, ask[i], key, &err);

		cr_expect_eq(hit, i == 3, "row %zu", i);
		cr_expect_str_eq(keys + 33 * i, i == 3 ?
				 "00000000000000000000000000000abc" : "",
				 "row %zu", i);
	}
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}
