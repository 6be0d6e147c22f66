/*
 * Suites cache_run, cache_record, cache_kernel: runs and their ids,
 * records and manifests, compiled kernels, and concurrent writers.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "cache/cache.h"
#include "cache/internal.h"
#include "tests/cache/helpers.h"
#include "tests/support/support.h"

Test(cache_run, list_sorts_by_start_then_id_and_filters)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct cache_run_filter f = CACHE_RUN_FILTER_INIT;
	struct cache_run_list list;
	struct cache_record rec;
	struct error err;

	tc_run(c, "b", "c1", 20);
	tc_run(c, "a", "c2", 20);
	tc_run(c, "z", "c1", 10);
	tc_record(&rec, "b", "n1", 1);
	error_init(&err);
	cr_assert_eq(cache_record_put(c, &rec, NULL, &err), 0, "%s", err.msg);
	cache_record_release(&rec);
	cr_assert_eq(cache_run_list(c, NULL, &list, &err), 0, "%s", err.msg);
	cr_assert_eq(list.n, 3);
	cr_expect_str_eq(list.items[0].id, "z");
	cr_expect_str_eq(list.items[1].id, "a");
	cr_expect_str_eq(list.items[2].id, "b");
	cr_expect_eq(list.items[2].records, 1);
	cr_expect_eq(list.items[1].records, 0);
	cache_run_list_release(&list);
	f.commit = "c1";
	cr_assert_eq(cache_run_list(c, &f, &list, &err), 0, "%s", err.msg);
	cr_assert_eq(list.n, 2);
	cr_expect_str_eq(list.items[0].id, "z");
	cr_expect_str_eq(list.items[1].id, "b");
	cache_run_list_release(&list);
	f.commit = NULL;
	f.status = CACHE_RUN_STATUS_OK;
	cr_assert_eq(cache_run_finish(c, "a", CACHE_RUN_STATUS_OK, 99, &err),
		     0, "%s", err.msg);
	cr_assert_eq(cache_run_list(c, &f, &list, &err), 0, "%s", err.msg);
	cr_assert_eq(list.n, 1);
	cr_expect_str_eq(list.items[0].id, "a");
	cr_expect_eq(list.items[0].ended_ms, 99);
	cache_run_list_release(&list);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_run, duplicate_and_missing_runs_are_errors)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct cache_run run = { (char *)"r", NULL, NULL, (char *)"v1.0", 0,
				 NULL, 1, 0, 0 };
	struct cache_run got;
	struct error err;

	error_init(&err);
	cr_assert_eq(cache_run_create(c, &run, &err), 0, "%s", err.msg);
	cr_expect_eq(cache_run_create(c, &run, &err), ERROR_CONFLICT);
	cr_expect_str_eq(err.msg, "run 'r' exists already");
	error_init(&err);
	cr_expect_eq(cache_run_get(c, "nope", &got, &err), ERROR_NOT_FOUND);
	cr_expect_str_eq(err.msg, "no run 'nope' in the cache");
	error_init(&err);
	cr_expect_eq(cache_run_finish(c, "nope", CACHE_RUN_STATUS_OK, 1,
				      &err), ERROR_NOT_FOUND);
	error_init(&err);
	cr_assert_eq(cache_run_get(c, "r", &got, &err), 0, "%s", err.msg);
	cr_expect_str_eq(got.tag, "v1.0");
	cr_expect_null(got.commit);
	cr_expect_eq(got.status, CACHE_RUN_STATUS_RUNNING);
	cache_run_release(&got);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_run, new_id_is_sortable_and_deterministic)
{
	char a[CACHE_RUN_ID_SIZE], b[CACHE_RUN_ID_SIZE], small[10];
	struct error err;

	error_init(&err);
	cr_assert_eq(cache_run_new_id(1764509034123LL, 0xc0ffee1234ULL, a,
				      sizeof(a), &err), 0);
	cr_expect_str_eq(a, "20251130T132354.123Z-00c0ffee1234");
	cr_assert_eq(cache_run_new_id(1764509034124LL, 0, b, sizeof(b), &err),
		     0);
	cr_expect_lt(strcmp(a, b), 0);
	cr_expect_eq(cache_run_new_id(1, 1, small, sizeof(small), &err),
		     ERROR_INVALID);
	error_init(&err);
	cr_expect_eq(cache_run_new_id(-1, 1, a, sizeof(a), &err),
		     ERROR_INVALID);
}

Test(cache_run, run_ids_are_plain_text_that_can_name_a_folder)
{
	static const char *const good[] = {
		"r1", "gh-12345-1", "v1.2.3+local", "A_b.c",
		"20261130T132354.123Z-00c0ffee1234",
	};
	static const char *const bad[] = {
		"", "../../../x", "a/b", ".", "..", "-x", ".hidden", "a b",
		"r\n1", "a\033[31m", "r\xff", "caf\xc3\xa9", "a:b",
	};
	char longid[CACHE_RUN_ID_MAX + 2];
	struct error err;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		error_init(&err);
		cr_expect_eq(cache_run_id_check(good[i], &err), 0, "%s: %s",
			     good[i], err.msg);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		error_init(&err);
		cr_expect_eq(cache_run_id_check(bad[i], &err), ERROR_INVALID,
			     "'%s' accepted", bad[i]);
		cr_expect(!strchr(err.msg, '\n') && !strchr(err.msg, '\033'),
			  "%s", err.msg);
	}
	memset(longid, 'a', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	error_init(&err);
	cr_expect_eq(cache_run_id_check(longid, &err), ERROR_INVALID);
	longid[CACHE_RUN_ID_MAX] = '\0';
	cr_expect_eq(cache_run_id_check(longid, NULL), 0);
}

Test(cache_run, status_names_round_trip)
{
	enum cache_run_status s;
	enum cache_record_status r;
	struct error err;

	error_init(&err);
	cr_expect_eq(cache_run_status_parse("interrupted", &s, &err), 0);
	cr_expect_eq(s, CACHE_RUN_STATUS_INTERRUPTED);
	cr_expect_str_eq(cache_run_status_name(s), "interrupted");
	cr_expect_eq(cache_record_status_parse("timeout", &r, &err), 0);
	cr_expect_str_eq(cache_record_status_name(r), "timeout");
	cr_expect_eq(cache_run_status_parse("done", &s, &err),
		     ERROR_INVALID);
	cr_expect_str_eq(err.msg, "unknown run status 'done'");
}

Test(cache_record, put_get_round_trips_every_field)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct cache_record rec, got;
	struct error err;

	tc_run(c, "r", "abc", 1);
	tc_record(&rec, "r", "artifact:w[python=3.12]", 7);
	error_init(&err);
	cr_assert_eq(cache_record_put(c, &rec, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_record_get(c, "r", "artifact:w[python=3.12]", &got,
				      &err), 0, "%s", err.msg);
	cr_expect_str_eq(got.run, "r");
	cr_expect_str_eq(got.key, rec.key);
	cr_expect_eq(got.status, CACHE_RECORD_STATUS_OK);
	cr_expect_str_eq(got.output_digest, "out-7");
	cr_expect_str_eq(got.version, "1.2.3");
	cr_assert_eq(got.artifacts.n, 2);
	cr_expect_str_eq(got.artifacts.v[0], "dist/b.whl");
	cr_expect_str_eq(got.artifacts.v[1], "dist/a.whl");
	cr_assert_eq(got.metadata.n, 2);
	cr_expect_str_eq(got.metadata.v[0], "gpu=none");
	cr_expect_str_eq(got.metadata.v[1], "runner=linux-1");
	cr_expect_eq(got.duration_ms, 1507);
	cr_expect_eq(got.recorded_ms, 1700000000007LL);
	cache_record_release(&got);
	cache_record_release(&rec);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_record, recording_a_node_again_replaces_it)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct cache_record rec, got;
	struct cache_record_list list;
	struct error err;

	tc_run(c, "r", NULL, 1);
	tc_record(&rec, "r", "n", 1);
	error_init(&err);
	cr_assert_eq(cache_record_put(c, &rec, NULL, &err), 0, "%s", err.msg);
	tc_key(2, rec.key);
	rec.status = CACHE_RECORD_STATUS_FAILED;
	cr_assert_eq(cache_record_put(c, &rec, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_record_list(c, "r", &list, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(list.n, 1);
	cache_record_list_release(&list);
	cr_assert_eq(cache_record_get(c, "r", "n", &got, &err), 0);
	cr_expect_str_eq(got.key, rec.key);
	cr_expect_eq(got.status, CACHE_RECORD_STATUS_FAILED);
	cache_record_release(&got);
	cache_record_release(&rec);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_record, bad_records_are_refused_with_node)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct cache_record rec;
	struct error err;

	tc_run(c, "r", NULL, 1);
	tc_record(&rec, "ghost", "n", 1);
	error_init(&err);
	cr_expect_eq(cache_record_put(c, &rec, NULL, &err), ERROR_NOT_FOUND);
	cr_expect_str_eq(err.msg, "no run 'ghost' in the cache");
	cr_expect_str_eq(err.node, "n");
	cache_record_release(&rec);
	tc_record(&rec, "r", "n", 1);
	rec.key[3] = 'G';
	error_init(&err);
	cr_expect_eq(cache_record_put(c, &rec, NULL, &err), ERROR_INVALID);
	tc_key(1, rec.key);
	cr_assert_eq(strv_push(&rec.metadata, "gpu=h100", NULL), 0);
	error_init(&err);
	cr_expect_eq(cache_record_put(c, &rec, NULL, &err), ERROR_INVALID);
	cr_expect_str_eq(err.msg, "metadata key 'gpu' is repeated");
	cache_record_release(&rec);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_record, manifest_is_stored_once_per_key)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct cache_record rec;
	struct cache_manifest m, got;
	struct error err;

	tc_run(c, "r1", NULL, 1);
	tc_run(c, "r2", NULL, 2);
	memset(&m, 0, sizeof(m));
	tc_key(5, m.key);
	error_init(&err);
	cr_assert_eq(cache_manifest_add(&m, "file", "src/a.c", "blob1", "",
					&err), 0);
	cr_assert_eq(cache_manifest_add(&m, "rule", "artifact:w", "d2",
					"command", &err), 0);
	tc_record(&rec, "r1", "n", 5);
	cr_assert_eq(cache_record_put(c, &rec, &m, &err), 0, "%s", err.msg);
	free(rec.run);
	rec.run = strdup("r2");
	cr_assert_eq(cache_record_put(c, &rec, &m, &err), 0, "%s", err.msg);
	cache_close(c);
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM manifest_keys"), 1);
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM records"), 2);
	c = tc_open(path);
	cr_assert_eq(cache_manifest_get(c, m.key, &got, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(got.n, 2);
	cr_expect_str_eq(got.items[0].kind, "file");
	cr_expect_str_eq(got.items[1].name, "artifact:w");
	cr_expect_str_eq(got.items[1].detail, "command");
	cache_manifest_release(&got);
	tc_key(6, m.key);
	error_init(&err);
	cr_expect_eq(cache_record_put(c, &rec, &m, &err), ERROR_INVALID);
	error_init(&err);
	cr_expect_eq(cache_manifest_get(c, m.key, &got, &err),
		     ERROR_NOT_FOUND);
	cache_manifest_release(&m);
	cache_record_release(&rec);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_record, find_returns_successful_records_newest_run_first)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct cache_record rec;
	struct cache_record_list list;
	struct error err;

	tc_run(c, "old", NULL, 1);
	tc_run(c, "new", NULL, 2);
	tc_run(c, "bad", NULL, 3);
	error_init(&err);
	tc_record(&rec, "old", "n", 9);
	cr_assert_eq(cache_record_put(c, &rec, NULL, &err), 0, "%s", err.msg);
	cache_record_release(&rec);
	tc_record(&rec, "new", "n", 9);
	cr_assert_eq(cache_record_put(c, &rec, NULL, &err), 0, "%s", err.msg);
	cache_record_release(&rec);
	tc_record(&rec, "bad", "n", 9);
	rec.status = CACHE_RECORD_STATUS_FAILED;
	cr_assert_eq(cache_record_put(c, &rec, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_record_find(c, rec.key, NULL, &list, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(list.n, 2);
	cr_expect_str_eq(list.items[0].run, "new");
	cr_expect_str_eq(list.items[1].run, "old");
	cache_record_list_release(&list);
	cr_assert_eq(cache_record_find(c, rec.key, "old", &list, &err), 0);
	cr_expect_eq(list.n, 1);
	cache_record_list_release(&list);
	cr_assert_eq(cache_record_find(c, rec.key, "bad", &list, &err), 0);
	cr_expect_eq(list.n, 0);
	cache_record_list_release(&list);
	cache_record_release(&rec);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_record, list_is_sorted_by_node_id)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	static const char *const nodes[] = { "test:b", "artifact:z",
					     "artifact:a[x=2]", "artifact:a" };
	struct cache_record rec;
	struct cache_record_list list;
	struct error err;
	size_t i;

	tc_run(c, "r", NULL, 1);
	error_init(&err);
	for (i = 0; i < 4; i++) {
		tc_record(&rec, "r", nodes[i], (unsigned)i);
		cr_assert_eq(cache_record_put(c, &rec, NULL, &err), 0);
		cache_record_release(&rec);
	}
	cr_assert_eq(cache_record_list(c, "r", &list, &err), 0);
	cr_assert_eq(list.n, 4);
	cr_expect_str_eq(list.items[0].node_id, "artifact:a");
	cr_expect_str_eq(list.items[1].node_id, "artifact:a[x=2]");
	cr_expect_str_eq(list.items[2].node_id, "artifact:z");
	cr_expect_str_eq(list.items[3].node_id, "test:b");
	cache_record_list_release(&list);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

#define WRITERS 4
#define PER_WRITER 200

static void
writer(const char *path, int w)
{
	struct cache *c = NULL;
	struct cache_record rec;
	struct cache_manifest m;
	struct error err;
	char node[64];
	int i;

	error_init(&err);
	if (cache_open(path, 0, &c, &err))
		_exit(10);
	for (i = 0; i < PER_WRITER; i++) {
		snprintf(node, sizeof(node), "artifact:w%d-%03d", w, i);
		tc_record(&rec, "shared", node, (unsigned)(i % 50));
		memset(&m, 0, sizeof(m));
		memcpy(m.key, rec.key, CACHE_KEY_SIZE);
		if (cache_manifest_add(&m, "file", node, "d", "", &err) ||
		    cache_record_put(c, &rec, &m, &err))
			_exit(11);
		cache_manifest_release(&m);
		cache_record_release(&rec);
	}
	cache_close(c);
	_exit(0);
}

Test(cache_record, concurrent_writers_lose_nothing)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	pid_t pids[WRITERS];
	int i, st;

	tc_run(c, "shared", NULL, 1);
	cache_close(c);
	for (i = 0; i < WRITERS; i++) {
		pids[i] = fork();
		cr_assert_geq(pids[i], 0);
		if (pids[i] == 0)
			writer(path, i);
	}
	for (i = 0; i < WRITERS; i++) {
		cr_assert_eq(waitpid(pids[i], &st, 0), pids[i]);
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			  "writer %d failed (status %d)", i, st);
	}
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM records"),
		     WRITERS * PER_WRITER);
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM manifest_keys"), 50);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_kernel, put_get_and_replace)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	unsigned char bin[300];
	struct cache_kernel k = { (char *)"kkey", (char *)"sm_90", bin,
				  sizeof(bin), 42 };
	struct cache_kernel got;
	struct error err;
	size_t i;

	for (i = 0; i < sizeof(bin); i++)
		bin[i] = (unsigned char)(i * 31);
	error_init(&err);
	cr_assert_eq(cache_kernel_put(c, &k, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_kernel_get(c, "kkey", &got, &err), 0, "%s",
		     err.msg);
	cr_expect_str_eq(got.arch, "sm_90");
	cr_assert_eq(got.size, sizeof(bin));
	cr_expect_eq(memcmp(got.cubin, bin, sizeof(bin)), 0);
	cr_expect_eq(got.created_ms, 42);
	cache_kernel_release(&got);
	k.arch = (char *)"sm_100";
	k.size = 3;
	cr_assert_eq(cache_kernel_put(c, &k, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_kernel_get(c, "kkey", &got, &err), 0);
	cr_expect_str_eq(got.arch, "sm_100");
	cr_expect_eq(got.size, 3);
	cache_kernel_release(&got);
	cr_expect_eq(cache_kernel_get(c, "other", &got, &err),
		     ERROR_NOT_FOUND);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

/* What the remote cache holds, by node, key and server. */
Test(cache_record, published_marks_are_per_node_key_and_server)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	const char *k = "0123456789abcdef0123456789abcdef";
	struct error err;

	error_init(&err);
	cr_expect_eq(cache_published_has(c, "n", k, "http://a", &err), 0,
		     "%s", err.msg);
	cr_assert_eq(cache_published_mark(c, "n", k, "http://a", &err), 0,
		     "%s", err.msg);
	cr_assert_eq(cache_published_mark(c, "n", k, "http://a", &err), 0,
		     "marking twice is harmless: %s", err.msg);
	cr_expect_eq(cache_published_has(c, "n", k, "http://a", &err), 1);
	cr_expect_eq(cache_published_has(c, "n", k, "http://b", &err), 0);
	cr_expect_eq(cache_published_has(c, "m", k, "http://a", &err), 0);
	cr_expect_eq(cache_published_has(c, "n", "x", "http://a", &err),
		     ERROR_INVALID);
	cr_expect_eq(cache_published_mark(c, "", k, "http://a", &err),
		     ERROR_INVALID);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

/*
 * Schema 7 stores a manifest as one row per component. A manifest stored
 * before (JSON text in the manifests table) is still read; rows that do
 * not match the count, or text with a NUL byte, are ERROR_CORRUPT (never
 * a shorter list); an empty manifest is found, not missing; bytes that
 * are not UTF-8 come back written "\\xHH", as the JSON text gave them.
 */
Test(cache_record, manifest_rows_and_json_rows_read_alike)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct cache_manifest m, got;
	struct error err;
	char key[CACHE_KEY_SIZE], sql[512];
	size_t i;

	memset(&m, 0, sizeof(m));
	error_init(&err);
	tc_key(7, m.key);
	for (i = 0; i < 300; i++) {
		char name[32];

		snprintf(name, sizeof(name), "src/f%03zu.c", i);
		cr_assert_eq(cache_manifest_add(&m, "file", name, "blob",
						"100644", &err), 0);
	}
	cr_assert_eq(cache_manifest_add(&m, "file", "bad\xff", "b2", "",
					&err), 0);
	cr_assert_eq(cache_manifest_put(c, &m, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_manifest_get(c, m.key, &got, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(got.n, 301);
	for (i = 0; i < 300; i++)
		cr_expect_str_eq(got.items[i].name, m.items[i].name);
	cr_expect_str_eq(got.items[300].name, "bad\\xff");
	cr_expect_str_eq(got.items[300].detail, "");
	cache_manifest_release(&got);

	/* empty: found, with no components */
	tc_key(8, key);
	cache_manifest_release(&m);
	memcpy(m.key, key, sizeof(key));
	cr_assert_eq(cache_manifest_put(c, &m, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_manifest_get(c, key, &got, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(got.n, 0);
	cache_manifest_release(&got);

	/* stored by schema 6: JSON text */
	tc_key(9, key);
	snprintf(sql, sizeof(sql), "INSERT INTO manifests VALUES ('%s', "
		 "'[{\"detail\":\"d\",\"digest\":\"g\",\"kind\":\"rule\","
		 "\"name\":\"command\"}]')", key);
	cache_close(c);
	cr_assert_eq(tc_sql(path, sql), 0);
	c = tc_open(path);
	cr_assert_eq(cache_manifest_get(c, key, &got, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(got.n, 1);
	cr_expect_str_eq(got.items[0].name, "command");
	cr_expect_str_eq(got.items[0].digest, "g");
	cache_manifest_release(&got);
	cache_close(c);

	/* a lost row, then a NUL in a name */
	tc_key(7, key);
	cr_assert_eq(tc_sql(path, "DELETE FROM manifest_components WHERE "
			    "pos = 5"), 0);
	c = tc_open(path);
	error_init(&err);
	cr_expect_eq(cache_manifest_get(c, key, &got, &err), ERROR_CORRUPT);
	cr_expect_eq(got.n, 0);
	cache_close(c);
	cr_assert_eq(tc_sql(path, "INSERT INTO manifest_components VALUES ("
			    "1, 5, 'file', CAST(x'610062' AS TEXT), 'b', '')"),
		     0);
	c = tc_open(path);
	error_init(&err);
	cr_expect_eq(cache_manifest_get(c, key, &got, &err), ERROR_CORRUPT);
	cache_close(c);
	cr_assert_eq(tc_sql(path, "UPDATE manifest_components SET name = "
			    "'src/f005.c' WHERE pos = 5"), 0);
	c = tc_open(path);
	cr_expect_eq(cache_manifest_get(c, key, &got, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(got.n, 301);
	cache_manifest_release(&got);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

/*
 * Manifests are read by jansson (cache/manifest.c), each component's four
 * string members taken with json_object_get instead of json_unpack. The
 * components and the errors must be json_unpack's "{s:s, s:s, s:s, s:s}":
 * each text below is checked against json_loads plus json_unpack
 * (escapes, non-ASCII, extra or repeated members, other shapes, other
 * element types).
 */
static int
oracle(const char *text, struct cache_manifest *m)
{
	json_t *arr = json_loads(text, 0, NULL), *it;
	size_t i;
	int rc = 0;

	if (!json_is_array(arr))
		rc = -1;
	json_array_foreach(arr, i, it) {
		const char *kind, *name, *digest, *detail;

		if (rc || json_unpack(it, "{s:s, s:s, s:s, s:s}", "kind", &kind,
				      "name", &name, "digest", &digest,
				      "detail", &detail)) {
			rc = -1;
			break;
		}
		cr_assert_eq(cache_manifest_add(m, kind, name, digest, detail,
						NULL), 0);
	}
	json_decref(arr);
	return rc;
}

Test(cache_record, manifest_text_reads_as_jansson_reads_it)
{
	static const char *const texts[] = {
		"[]",
		" [ ] \n",
		"[{\"detail\":\"100644\",\"digest\":\"be29\",\"kind\":\"file\","
		"\"name\":\"p/a.json\"},{\"detail\":\"\",\"digest\":\"d2\","
		"\"kind\":\"rule\",\"name\":\"command\"}]",
		"[ {\"kind\" : \"file\" , \"name\":\"a b\", \"digest\":\"x\", "
		"\"detail\":\"120000 -> ../t\"} ]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"q\\\"uote\\\\d \\u00e9 \\/\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"caf\xc3\xa9\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"bad\xff\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"a\",\"extra\":\"e\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"a\",\"name\":\"b\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\"}]",
		"[{\"detail\":1,\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"a\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"a\"}] x",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"a\"},]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"a\"}",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"a\t\"}]",
		"{\"kind\":\"file\"}",
		"",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"\\u0000\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"\\n\\t\\/\\b\\f\\r \\u0041\\u00E9\\u20ac\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"\\ud83d\\ude00\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"\\ud800\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"\\x41\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"\\u12\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"\xe2\x82\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"\xc0\xaf\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"\x7f\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"[\\\"echo\\\",\\\"build\\\"]\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"na\\u006de\":\"escaped key\"}]",
		"[1]",
		"[null]",
		"[[\"file\", \"a\", \"1\", \"2\"]]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":null,"
		"\"name\":\"a\"}]",
		"[{\"detail\":\"1\",\"digest\":\"2\",\"kind\":\"file\","
		"\"name\":\"a\"},{\"detail\":\"3\",\"digest\":\"4\","
		"\"kind\":\"rule\",\"name\":\"command\"},7]",
	};
	size_t i, k;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct cache_manifest got, want;
		struct error err;
		int rc, wrc;

		memset(&got, 0, sizeof(got));
		memset(&want, 0, sizeof(want));
		error_init(&err);
		rc = cache_components_decode(NULL, texts[i], &got, &err);
		wrc = oracle(texts[i], &want);
		cr_expect_eq(rc == 0, wrc == 0, "text %zu: %d, jansson %d", i,
			     rc, wrc);
		if (!rc && !wrc) {
			cr_expect_eq(got.n, want.n, "text %zu", i);
			for (k = 0; k < got.n && k < want.n; k++) {
				cr_expect_str_eq(got.items[k].kind,
						 want.items[k].kind);
				cr_expect_str_eq(got.items[k].name,
						 want.items[k].name, "text %zu",
						 i);
				cr_expect_str_eq(got.items[k].digest,
						 want.items[k].digest);
				cr_expect_str_eq(got.items[k].detail,
						 want.items[k].detail);
			}
		} else {
			cr_expect_eq(rc, ERROR_CORRUPT, "text %zu", i);
		}
		cache_manifest_release(&got);
		cache_manifest_release(&want);
	}
}

/*
 * A key is 32 lowercase hex digits and nothing more (cache_key_valid,
 * a scan that stops at the NUL of a shorter text): what a stored key or
 * memo id must be before it is used.
 */
Test(cache_record, keys_are_32_lowercase_hex_digits)
{
	static const char *const ok[] = {
		"00112233445566778899aabbccddeeff",
		"ffffffffffffffffffffffffffffffff",
	};
	static const char *const bad[] = {
		"", "0", "00112233445566778899aabbccddeef",
		"00112233445566778899aabbccddeeff0",
		"00112233445566778899AABBCCDDEEFF",
		"00112233445566778899aabbccddeefg",
		"0011223344556677 899aabbccddeeff",
		"g0112233445566778899aabbccddeeff",
	};
	char nul_inside[34];
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		cr_expect(cache_key_valid(ok[i]), "%s", ok[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect(!cache_key_valid(bad[i]), "%s", bad[i]);
	cr_expect(!cache_key_valid(NULL));
	memcpy(nul_inside, ok[0], 33);
	nul_inside[16] = '\0';
	cr_expect(!cache_key_valid(nul_inside));
}
