/* Suite cache_cli: `ripple runs` and `ripple cache` end to end. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "cache/cache.h"
#include "tests/cache/helpers.h"
#include "tests/support/support.h"

/* A repository with a cache at .ripple/cache.db holding two runs. */
static char *
repo_with_runs(void)
{
	char *dir = t_git_init(), path[512];
	struct cache *c;
	struct cache_run run;
	struct cache_record rec;
	struct error err;

	t_write(dir, "sub/x.txt", "x\n");
	snprintf(path, sizeof(path), "%s/.ripple/cache.db", dir);
	c = tc_open(path);
	memset(&run, 0, sizeof(run));
	run.id = (char *)"run-2";
	run.commit = (char *)"89abcdef0123456789abcdef0123456789abcdef";
	run.tag = (char *)"v13.0.2";
	run.status = CACHE_RUN_STATUS_OK;
	run.started_ms = 1704153600000LL;
	run.ended_ms = 1704153660000LL;
	error_init(&err);
	cr_assert_eq(cache_run_create(c, &run, &err), 0, "%s", err.msg);
	tc_run(c, "run-1", "0123456789abcdef0123456789abcdef01234567",
	       1704067200000LL);
	tc_record(&rec, "run-1", "artifact:a", 1);
	cr_assert_eq(cache_record_put(c, &rec, NULL, &err), 0, "%s", err.msg);
	cache_record_release(&rec);
	tc_record(&rec, "run-1", "artifact:b", 2);
	cr_assert_eq(cache_record_put(c, &rec, NULL, &err), 0, "%s", err.msg);
	cache_record_release(&rec);
	cache_close(c);
	return dir;
}

Test(cache_cli, runs_lists_the_repository_cache_from_a_subfolder)
{
	char *dir = repo_with_runs();
	const char *argv[] = { "-C", "sub", "runs", NULL };
	struct run_result r = t_ripple(dir, argv);

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out,
		"ID     COMMIT        REF              TAG      STATUS   "
		"RECORDS  STARTED\n"
		"run-1  0123456789ab  refs/heads/main  -        running  "
		"      2  2024-01-01T00:00:00Z\n"
		"run-2  89abcdef0123  -                v13.0.2  ok       "
		"      0  2024-01-02T00:00:00Z\n");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(cache_cli, runs_json_filters_by_tag)
{
	char *dir = repo_with_runs();
	const char *argv[] = { "runs", "--json", "--tag", "v13.0.2", NULL };
	struct run_result r = t_ripple(dir, argv);

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out,
		"[\n"
		"  {\n"
		"    \"commit\": \"89abcdef0123456789abcdef0123456789abcdef\",\n"
		"    \"ended_ms\": 1704153660000,\n"
		"    \"id\": \"run-2\",\n"
		"    \"records\": 0,\n"
		"    \"ref\": null,\n"
		"    \"rules_digest\": null,\n"
		"    \"started\": \"2024-01-02T00:00:00Z\",\n"
		"    \"started_ms\": 1704153600000,\n"
		"    \"status\": \"ok\",\n"
		"    \"tag\": \"v13.0.2\"\n"
		"  }\n"
		"]\n");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(cache_cli, export_import_round_trip_and_idempotent)
{
	char *dir = repo_with_runs(), *first, *second;
	const char *exp[] = { "cache", "export", "--run", "run-1", "-o",
			      "run-1.json", NULL };
	const char *imp[] = { "cache", "import", "run-1.json", "--cache",
			      "merged.db", NULL };
	const char *exp2[] = { "cache", "export", "--run", "run-1",
			       "--cache", "merged.db", NULL };
	struct run_result r;
	char path[512];

	r = t_ripple(dir, exp);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, imp);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "run-1.json: 2 records added, 0 replaced, "
			 "0 unchanged, 0 conflicting, 0 manifests added\n");
	t_result_release(&r);
	r = t_ripple(dir, imp);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "run-1.json: 0 records added, 0 replaced, "
			 "2 unchanged, 0 conflicting, 0 manifests added\n");
	t_result_release(&r);
	r = t_ripple(dir, exp2);
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(path, sizeof(path), "%s/run-1.json", dir);
	first = t_read(path);
	second = r.out;
	cr_assert(first);
	cr_expect_str_eq(first, second);
	free(first);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(cache_cli, conflicting_import_fails_until_replace)
{
	char *dir = repo_with_runs(), path[512];
	const char *exp[] = { "cache", "export", "--run", "run-1", NULL };
	const char *imp[] = { "cache", "import", "other.json", NULL };
	const char *rep[] = { "cache", "import", "--replace", "other.json",
			      NULL };
	struct run_result r;
	char *doc, *k;

	r = t_ripple(dir, exp);
	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = r.out;
	k = strstr(doc, "\"key\": \"");
	cr_assert(k);
	k[8] = k[8] == 'f' ? 'e' : 'f';
	t_write(dir, "other.json", doc);
	t_result_release(&r);
	r = t_ripple(dir, imp);
	cr_expect_eq(r.status, 2, "a conflict the user resolves is exit 2");
	cr_expect(strstr(r.err, "other.json: error: node 'artifact:a' of run "
			 "'run-1' has key") != NULL, "%s", r.err);
	cr_expect(strstr(r.err, "hint: pass --replace") != NULL, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, rep);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "1 replaced, 1 unchanged") != NULL, "%s",
		  r.out);
	t_result_release(&r);
	snprintf(path, sizeof(path), "%s/.ripple/cache.db", dir);
	cr_expect_eq(tc_sql_int(path, "SELECT count(*) FROM records"), 2);
	t_rmtree(dir);
	free(dir);
}

Test(cache_cli, check_reports_ok_and_corrupt_files)
{
	char *dir = repo_with_runs();
	const char *ok[] = { "cache", "check", NULL };
	const char *bad[] = { "cache", "check", "--cache", "junk.db", NULL };
	struct run_result r;
	char want[48];

	snprintf(want, sizeof(want), "ok (schema version %d)",
		 CACHE_SCHEMA_VERSION);
	r = t_ripple(dir, ok);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, want) != NULL, "%s", r.out);
	t_result_release(&r);
	t_write(dir, "junk.db", "this is not a database, not at all, no. "
		"It is quite long enough to have a header though, really it "
		"is; SQLite reads the first hundred bytes of a file.\n");
	r = t_ripple(dir, bad);
	cr_expect_eq(r.status, 1);
	cr_expect_str_eq(r.err, "junk.db: error: file is not a database\n"
			 "  hint: move it aside; ripple makes a new one\n");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(cache_cli, runs_without_a_cache_lists_nothing)
{
	char *dir = t_git_init();
	const char *argv[] = { "runs", "--json", NULL };
	struct run_result r = t_ripple(dir, argv);

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "[]\n");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
