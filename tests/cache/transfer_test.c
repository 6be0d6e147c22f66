/* Suite cache_transfer: export of a run and import of such documents. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "tests/cache/helpers.h"
#include "tests/support/support.h"

/* A cache at DIR/NAME holding run `run` with nodes n1 and n2 (+ manifest). */
static struct cache *
filled(const char *dir, const char *name, const char *run, unsigned seed)
{
	char path[512];
	struct cache *c;
	struct cache_record rec;
	struct cache_manifest m;
	struct error err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	c = tc_open(path);
	tc_run(c, run, "0123456789abcdef0123456789abcdef01234567", 100);
	error_init(&err);
	tc_record(&rec, run, "n2", seed);
	memset(&m, 0, sizeof(m));
	memcpy(m.key, rec.key, CACHE_KEY_SIZE);
	cr_assert_eq(cache_manifest_add(&m, "file", "a.c", "b1", "", &err),
		     0);
	cr_assert_eq(cache_record_put(c, &rec, &m, &err), 0, "%s", err.msg);
	cache_manifest_release(&m);
	cache_record_release(&rec);
	tc_record(&rec, run, "n1", seed + 1);
	cr_assert_eq(cache_record_put(c, &rec, NULL, &err), 0, "%s", err.msg);
	cache_record_release(&rec);
	cr_assert_eq(cache_run_finish(c, run, CACHE_RUN_STATUS_OK, 200, &err),
		     0);
	return c;
}

static char *
export(struct cache *c, const char *run)
{
	struct error err;
	char *text = NULL;
	size_t len = 0;

	error_init(&err);
	cr_assert_eq(cache_run_export(c, run, &text, &len, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(strlen(text), len);
	return text;
}

Test(cache_transfer, export_is_sorted_and_stable)
{
	char *dir = t_tmpdir();
	struct cache *c = filled(dir, "a.db", "r", 1);
	char *text = export(c, "r"), *again = export(c, "r");
	char key[CACHE_KEY_SIZE];

	cr_expect_str_eq(text, again);
	cr_expect(strstr(text, "\"format\": \"ripple-cache-export\"") != NULL);
	cr_expect_lt(strstr(text, "\"n1\""), strstr(text, "\"n2\""));
	cr_expect_lt(strstr(text, "\"gpu\": \"none\""),
		     strstr(text, "\"runner\""));
	tc_key(1, key);
	cr_expect(strstr(text, key) != NULL);
	cr_expect_eq(text[strlen(text) - 1], '\n');
	mem_free(text);
	mem_free(again);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
}

Test(cache_transfer, round_trip_is_byte_identical_and_idempotent)
{
	char *dir = t_tmpdir(), path[512];
	struct cache *a = filled(dir, "a.db", "r", 1), *b;
	struct cache_import_stats st;
	struct error err;
	char *one = export(a, "r"), *two, *three;

	snprintf(path, sizeof(path), "%s/b.db", dir);
	b = tc_open(path);
	error_init(&err);
	cr_assert_eq(cache_import(b, one, strlen(one), 0, &st, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(st.runs_added, 1);
	cr_expect_eq(st.records_added, 2);
	cr_expect_eq(st.manifests_added, 1);
	two = export(b, "r");
	cr_expect_str_eq(one, two);
	cr_assert_eq(cache_import(b, one, strlen(one), 0, &st, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(st.runs_added, 0);
	cr_expect_eq(st.records_added, 0);
	cr_expect_eq(st.records_unchanged, 2);
	cr_expect_eq(st.manifests_added, 0);
	three = export(b, "r");
	cr_expect_str_eq(one, three);
	cache_close(b);
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM records"), 2);
	mem_free(one);
	mem_free(two);
	mem_free(three);
	cache_close(a);
	t_rmtree(dir);
	free(dir);
}

Test(cache_transfer, runners_merge_into_one_run)
{
	char *dir = t_tmpdir(), path[512];
	struct cache *a = filled(dir, "a.db", "r", 1), *m;
	struct cache *b;
	struct cache_record rec;
	struct cache_record_list list;
	struct cache_run run;
	struct error err;
	char *ta, *tb;

	/* Runner b records other nodes of the same run and fails. */
	snprintf(path, sizeof(path), "%s/b.db", dir);
	b = tc_open(path);
	tc_run(b, "r", "0123456789abcdef0123456789abcdef01234567", 50);
	tc_record(&rec, "r", "n3", 3);
	error_init(&err);
	cr_assert_eq(cache_record_put(b, &rec, NULL, &err), 0);
	cache_record_release(&rec);
	cr_assert_eq(cache_run_finish(b, "r", CACHE_RUN_STATUS_FAILED, 300,
				      &err), 0);
	ta = export(a, "r");
	tb = export(b, "r");
	snprintf(path, sizeof(path), "%s/m.db", dir);
	m = tc_open(path);
	cr_assert_eq(cache_import(m, ta, strlen(ta), 0, NULL, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(cache_import(m, tb, strlen(tb), 0, NULL, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(cache_record_list(m, "r", &list, &err), 0);
	cr_expect_eq(list.n, 3);
	cache_record_list_release(&list);
	cr_assert_eq(cache_run_get(m, "r", &run, &err), 0);
	cr_expect_eq(run.status, CACHE_RUN_STATUS_FAILED);
	cr_expect_eq(run.started_ms, 50);
	cr_expect_eq(run.ended_ms, 300);
	cache_run_release(&run);
	mem_free(ta);
	mem_free(tb);
	cache_close(m);
	cache_close(b);
	cache_close(a);
	t_rmtree(dir);
	free(dir);
}

Test(cache_transfer, conflicting_record_names_both_keys_unless_replace)
{
	char *dir = t_tmpdir();
	struct cache *a = filled(dir, "a.db", "r", 1);
	struct cache *b = filled(dir, "b.db", "r", 20);
	struct cache_import_stats st;
	struct cache_record got;
	struct error err;
	char *tb = export(b, "r"), *before = export(a, "r"), *after;
	char k1[CACHE_KEY_SIZE], k20[CACHE_KEY_SIZE], msg[512];

	tc_key(2, k1);
	tc_key(21, k20);
	error_init(&err);
	cr_expect_eq(cache_import(a, tb, strlen(tb), 0, &st, &err),
		     ERROR_CONFLICT);
	snprintf(msg, sizeof(msg), "node 'n1' of run 'r' has key '%s' in the "
		 "cache and key '%s' in the import", k1, k20);
	cr_expect_str_eq(err.msg, msg);
	cr_expect_str_eq(err.node, "n1");
	after = export(a, "r");
	cr_expect_str_eq(before, after, "a failed import changed the cache");
	mem_free(after);
	error_init(&err);
	cr_assert_eq(cache_import(a, tb, strlen(tb), CACHE_IMPORT_REPLACE,
				  &st, &err), 0, "%s", err.msg);
	cr_expect_eq(st.records_replaced, 2);
	cr_assert_eq(cache_record_get(a, "r", "n1", &got, &err), 0);
	cr_expect_str_eq(got.key, k20);
	cache_record_release(&got);
	mem_free(before);
	mem_free(tb);
	cache_close(b);
	cache_close(a);
	t_rmtree(dir);
	free(dir);
}

Test(cache_transfer, run_of_another_commit_conflicts)
{
	char *dir = t_tmpdir(), path[512];
	struct cache *a = filled(dir, "a.db", "r", 1), *b;
	struct error err;
	char *ta = export(a, "r");

	snprintf(path, sizeof(path), "%s/b.db", dir);
	b = tc_open(path);
	tc_run(b, "r", "ffff", 1);
	error_init(&err);
	cr_expect_eq(cache_import(b, ta, strlen(ta), 0, NULL, &err),
		     ERROR_CONFLICT);
	cr_expect(strstr(err.msg, "commit 'ffff' in the cache") != NULL, "%s",
		  err.msg);
	mem_free(ta);
	cache_close(b);
	cache_close(a);
	t_rmtree(dir);
	free(dir);
}

Test(cache_transfer, bad_documents_are_invalid)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct error err;
	static const char *const bad[] = {
		"{\"format\": \"ripple-cache-export\", ",
		"[1, 2]",
		"{\"format\": \"other\", \"version\": 1}",
		"{\"format\": \"ripple-cache-export\", \"version\": 1, "
		"\"run\": {\"id\": \"r\"}, \"records\": []}",
		"{\"format\": \"ripple-cache-export\", \"version\": 1, "
		"\"run\": {\"id\": \"r\", \"status\": \"ok\", \"started_ms\": 1,"
		" \"ended_ms\": 2}, \"records\": [{\"node_id\": \"n\", "
		"\"key\": \"xyz\", \"status\": \"ok\", \"duration_ms\": 1, "
		"\"recorded_ms\": 1}]}",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		error_init(&err);
		cr_expect_eq(cache_import(c, bad[i], strlen(bad[i]), 0, NULL,
					  &err), ERROR_INVALID, "case %zu: %s",
			     i, err.msg);
	}
	error_init(&err);
	cr_expect_eq(cache_import(c, bad[0], strlen(bad[0]), 0, NULL, &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "invalid JSON at line 1") != NULL, "%s",
		  err.msg);
	cache_close(c);
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM runs"), 0);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_transfer, newer_format_is_unsupported)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct error err;
	const char *doc = "{\"format\": \"ripple-cache-export\", "
			  "\"version\": 7}";

	error_init(&err);
	cr_expect_eq(cache_import(c, doc, strlen(doc), 0, NULL, &err),
		     ERROR_UNSUPPORTED);
	cr_expect_str_eq(err.msg, "export format version 7 is newer than "
			 "this ripple understands (1)");
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

Test(cache_transfer, export_of_missing_run_is_not_found)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	struct cache *c = tc_open(path);
	struct error err;
	char *text = NULL;

	error_init(&err);
	cr_expect_eq(cache_run_export(c, "nope", &text, NULL, &err),
		     ERROR_NOT_FOUND);
	cr_expect_null(text);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

/*
 * The same node and key with another output digest or status: the stored
 * record stays, the import's copy is kept beside it (once, however often
 * it is imported), counted on the record, exported and imported again.
 */
Test(cache_transfer, same_key_other_outcome_is_kept_as_a_conflict)
{
	char *dir = t_tmpdir(), path[512];
	struct cache *a = filled(dir, "a.db", "r", 1);
	struct cache *b = filled(dir, "b.db", "r", 1), *c;
	struct cache_import_stats st;
	struct cache_record rec, got;
	struct cache_record_list list;
	struct error err;
	char *tb, *ta;

	/* b's n1: same key, another digest; b's n2: same key, failed */
	tc_record(&rec, "r", "n1", 2);
	mem_free(rec.output_digest);
	rec.output_digest = mem_strdup("other-digest");
	error_init(&err);
	cr_assert_eq(cache_record_put(b, &rec, NULL, &err), 0, "%s", err.msg);
	cache_record_release(&rec);
	tc_record(&rec, "r", "n2", 1);
	rec.status = CACHE_RECORD_STATUS_FAILED;
	cr_assert_eq(cache_record_put(b, &rec, NULL, &err), 0, "%s", err.msg);
	cache_record_release(&rec);
	tb = export(b, "r");
	memset(&st, 0, sizeof(st));
	cr_assert_eq(cache_import(a, tb, strlen(tb), 0, &st, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(st.records_unchanged, 0);
	cr_expect_eq(st.records_conflicting, 2);
	cr_assert_eq(st.conflicts.n, 2);
	cr_expect_str_eq(st.conflicts.items[0].node_id, "n1");
	cr_expect_str_eq(st.conflicts.items[0].output_digest, "other-digest");
	cr_expect_eq(st.conflicts.items[1].status, CACHE_RECORD_STATUS_FAILED);
	cache_import_stats_release(&st);
	cr_assert_eq(cache_import(a, tb, strlen(tb), 0, &st, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(st.records_conflicting, 2);
	cache_import_stats_release(&st);
	snprintf(path, sizeof(path), "%s/a.db", dir);
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM record_conflicts"),
		     2, "a second import keeps no second copy");
	cr_assert_eq(cache_record_get(a, "r", "n1", &got, &err), 0);
	cr_expect_str_eq(got.output_digest, "out-2", "the stored one stays");
	cr_expect_eq(got.conflicts, 1);
	cache_record_release(&got);
	/* The run's records as a plan reads them count them too (the list
	 * counts per row only when the run has conflicts). */
	cr_assert_eq(cache_record_list(a, "r", &list, &err), 0);
	cr_assert_geq(list.n, 2);
	for (size_t i = 0; i < list.n; i++)
		cr_expect_eq(list.items[i].conflicts,
			     !strcmp(list.items[i].node_id, "n1") ||
			     !strcmp(list.items[i].node_id, "n2"),
			     "%s", list.items[i].node_id);
	cache_record_list_release(&list);
	cr_assert_eq(cache_record_conflicts(a, "r", "n1", &list, &err), 0);
	cr_assert_eq(list.n, 1);
	cr_expect_str_eq(list.items[0].output_digest, "other-digest");
	cache_record_list_release(&list);
	/* the conflicts travel with the run */
	ta = export(a, "r");
	cr_expect(strstr(ta, "\"conflicts\": [") != NULL, "%s", ta);
	snprintf(path, sizeof(path), "%s/c.db", dir);
	c = tc_open(path);
	cr_assert_eq(cache_import(c, ta, strlen(ta), 0, NULL, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(cache_record_get(c, "r", "n2", &got, &err), 0);
	cr_expect_eq(got.status, CACHE_RECORD_STATUS_OK);
	cr_expect_eq(got.conflicts, 1);
	cache_record_release(&got);
	/* --replace takes the import's record and forgets the conflict */
	cr_assert_eq(cache_import(a, tb, strlen(tb), CACHE_IMPORT_REPLACE, &st,
				  &err), 0, "%s", err.msg);
	cr_expect_eq(st.records_replaced, 2);
	cr_assert_eq(cache_record_get(a, "r", "n1", &got, &err), 0);
	cr_expect_str_eq(got.output_digest, "other-digest");
	cr_expect_eq(got.conflicts, 0);
	cache_record_release(&got);
	mem_free(ta);
	mem_free(tb);
	cache_close(c);
	cache_close(b);
	cache_close(a);
	t_rmtree(dir);
	free(dir);
}

/* Keys with '=' and '%' are kept whole through the store and a transfer. */
Test(cache_transfer, metadata_keys_with_equals_round_trip)
{
	char *dir = t_tmpdir(), path[512], *entry = NULL, *text, *again;
	struct cache *a = filled(dir, "a.db", "r", 1), *b;
	struct cache_record rec, got;
	struct error err;

	error_init(&err);
	tc_record(&rec, "r", "n3", 3);
	cr_assert_eq(cache_metadata_entry("a=b%", "c=d", &entry, &err), 0);
	cr_expect_str_eq(entry, "a%3Db%25=c=d");
	cr_assert_eq(strv_push_ref(&rec.metadata, entry, &err), 0);
	cr_assert_eq(cache_record_put(a, &rec, NULL, &err), 0, "%s", err.msg);
	cache_record_release(&rec);
	cr_assert_eq(cache_record_get(a, "r", "n3", &got, &err), 0);
	cr_expect_str_eq(got.metadata.v[0], "a%3Db%25=c=d");
	cache_record_release(&got);
	text = export(a, "r");
	cr_expect(strstr(text, "\"a=b%\": \"c=d\"") != NULL, "%s", text);
	snprintf(path, sizeof(path), "%s/b.db", dir);
	b = tc_open(path);
	cr_assert_eq(cache_import(b, text, strlen(text), 0, NULL, &err), 0,
		     "%s", err.msg);
	again = export(b, "r");
	cr_expect_str_eq(text, again);
	mem_free(text);
	mem_free(again);
	cache_close(b);
	cache_close(a);
	t_rmtree(dir);
	free(dir);
}
