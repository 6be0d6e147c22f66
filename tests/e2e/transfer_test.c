/*
 * Suite e2e_transfer: runs moved between caches with `ripple cache export`
 * and `ripple cache import`: a record that disagrees with the stored one
 * of its node and key is kept, reported and explained, never dropped; an
 * imported baseline still names changed files; metadata keys survive.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static const char rules[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [\"src/**\"]}\n"
	"artifacts:\n"
	"  a: {inputs: [src], command: [\"true\"]}\n";

static char *
make_repo(void)
{
	char *dir = t_git_init();

	t_write(dir, ".gitignore", ".ripple/\n*.db*\n*.json\ndist/\n");
	t_write(dir, "ripple.yml", rules);
	t_write(dir, "src/x.txt", "x\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	return dir;
}

/* Run ripple with argv; expect exit `want`; return the result. */
static struct run_result
ok(const char *dir, const char *const *argv, int want)
{
	struct run_result r = t_ripple(dir, argv);

	cr_assert_eq(r.status, want, "ripple %s %s: %s%s", argv[0],
		     argv[1] ? argv[1] : "", r.out, r.err);
	return r;
}

static void
run0(const char *dir, const char *const *argv)
{
	struct run_result r = ok(dir, argv, 0);

	t_result_release(&r);
}

/* Record artifact:a into run r1 of cache `db` with `status`, finish ok. */
static void
record_into(const char *dir, const char *db, const char *status)
{
	const char *rec[] = { "record", "--cache", db, "--run", "r1", "--node",
			      "artifact:a", "--status", status, "--artifact",
			      "dist/a.whl", NULL };
	const char *fin[] = { "record", "--cache", db, "--run", "r1",
			      "--finish", "ok", NULL };

	run0(dir, rec);
	run0(dir, fin);
}

static void
export_to(const char *dir, const char *db, const char *file)
{
	const char *exp[] = { "cache", "export", "--cache", db, "--run", "r1",
			      "-o", file, NULL };

	run0(dir, exp);
}

Test(e2e_transfer, a_conflicting_import_is_kept_reported_and_explained)
{
	char *dir = make_repo();
	const char *imp_digest[] = { "cache", "import", "digest.json", NULL };
	const char *imp_failed[] = { "cache", "import", "failed.json", NULL };
	const char *plan[] = { "plan", "--base", "HEAD", NULL };
	const char *why[] = { "why", "artifact:a", "--base", "HEAD", NULL };
	struct run_result r;

	t_write(dir, "dist/a.whl", "one\n");
	t_write(dir, ".ripple/.keep", "");
	record_into(dir, ".ripple/cache.db", "ok");
	t_write(dir, "dist/a.whl", "two\n");
	record_into(dir, "other.db", "ok");
	export_to(dir, "other.db", "digest.json");
	record_into(dir, "failed.db", "failed");
	export_to(dir, "failed.db", "failed.json");
	r = ok(dir, imp_digest, 0);
	cr_expect(strstr(r.out, "0 unchanged, 1 conflicting") != NULL, "%s",
		  r.out);
	cr_expect(strstr(r.err, "warning: conflict: node 'artifact:a' of run "
			 "'r1'") != NULL, "%s", r.err);
	t_result_release(&r);
	r = ok(dir, imp_failed, 0);
	cr_expect(strstr(r.out, "1 conflicting") != NULL, "%s", r.out);
	cr_expect(strstr(r.err, "in the cache and failed, output") != NULL,
		  "%s", r.err);
	t_result_release(&r);
	/* Importing again keeps one copy of each conflict and says so. */
	r = ok(dir, imp_digest, 0);
	cr_expect(strstr(r.out, "1 conflicting") != NULL, "%s", r.out);
	t_result_release(&r);
	r = ok(dir, plan, 0);
	cr_expect(strstr(r.out, "key-equal-record-conflict") != NULL, "%s",
		  r.out);
	cr_expect(strstr(r.out, "1 build") != NULL, "%s", r.out);
	t_result_release(&r);
	r = ok(dir, why, 0);
	cr_expect(strstr(r.out, "conflict  ok, output ") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_transfer, an_imported_baseline_names_changed_files)
{
	char *dir = make_repo();
	const char *imp[] = { "cache", "import", "r1.json", NULL };
	const char *why[] = { "why", "artifact:a", "--base", "HEAD~1", NULL };
	struct run_result r;

	t_write(dir, "dist/a.whl", "one\n");
	record_into(dir, "other.db", "ok");
	export_to(dir, "other.db", "r1.json");
	run0(dir, imp);
	t_write(dir, "src/x.txt", "changed\n");
	cr_assert_eq(t_git_commit(dir, "change"), 0);
	r = ok(dir, why, 0);
	cr_expect(strstr(r.out, "src/x.txt  modified") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "file list not stored") == NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_transfer, metadata_keys_with_equals_survive_a_round_trip)
{
	char *dir = make_repo(), *doc, *at, *edited, path[4200];
	const char *imp[] = { "cache", "import", "edited.json", "--cache",
			      "b.db", NULL };
	const char *exp[] = { "cache", "export", "--cache", "b.db", "--run",
			      "r1", NULL };
	const char *meta = "\"metadata\": {\"a=b\": \"c\", \"k\": \"v=w\", "
			   "\"p%3D\": \"q\"}";
	struct run_result r;
	size_t n;

	t_write(dir, "dist/a.whl", "one\n");
	record_into(dir, "a.db", "ok");
	export_to(dir, "a.db", "r1.json");
	snprintf(path, sizeof(path), "%s/r1.json", dir);
	doc = t_read(path);
	cr_assert_not_null(doc);
	at = strstr(doc, "\"metadata\": {}");
	cr_assert_not_null(at, "%s", doc);
	n = strlen(doc) + strlen(meta) + 1;
	edited = malloc(n);
	cr_assert_not_null(edited);
	snprintf(edited, n, "%.*s%s%s", (int)(at - doc), doc, meta,
		 at + strlen("\"metadata\": {}"));
	t_write(dir, "edited.json", edited);
	run0(dir, imp);
	r = ok(dir, exp, 0);
	cr_expect(strstr(r.out, "\"a=b\": \"c\"") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "\"k\": \"v=w\"") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "\"p%3D\": \"q\"") != NULL, "%s", r.out);
	t_result_release(&r);
	free(edited);
	free(doc);
	t_rmtree(dir);
	free(dir);
}
