/*
 * Suite engine_version_memo: `ripple version` takes the rules' parsed
 * tree from the cache a plan left, by ripple.yml's git blob id (of the
 * working tree's bytes, or of REV's blob), read-only: it never makes a
 * cache or writes to one, and a row that does not decode is parsed over.
 * A row planted under the key of the committed rules holds other rules,
 * so the output says which were read.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/error.h"
#include "cache/cache.h"
#include "engine/plan/eval.h"
#include "graph/repo.h"
#include "rules/rules.h"
#include "tests/support/support.h"

static const char rules_x[] =
	"version: 1\n"
	"roots:\n"
	"  b: {path: b, tags: \"v1.*\", fallback-version: 1.0.1.dev0}\n";

static const char rules_y[] =
	"version: 1\n"
	"roots:\n"
	"  b: {path: b, tags: \"v1.*\", fallback-version: 1.0.2.dev0}\n";

static struct buf captured;

static int
no_get(void *payload, const char *key, struct buf *out)
{
	(void)payload;
	(void)key;
	(void)out;
	return 0;
}

static void
capture(void *payload, const char *key, const void *tree, size_t len)
{
	(void)payload;
	(void)key;
	buf_reset(&captured);
	cr_assert_eq(buf_add(&captured, tree, len, NULL), 0);
}

/* `ripple version b [OPT VALUE]` in dir: its stdout, which must be a
 * success. */
static char *
version(const char *dir, const char *opt, const char *value)
{
	const char *argv[] = { "version", "b", opt, value, NULL };
	struct run_result r = t_ripple(dir, argv);
	char *out;

	cr_assert_eq(r.status, 0, "%s", r.err);
	out = strdup(r.out);
	cr_assert_not_null(out);
	t_result_release(&r);
	return out;
}

static long
rows(const char *db)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	long n = -1;

	cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL),
		     SQLITE_OK);
	if (sqlite3_prepare_v2(h, "SELECT count(*) FROM rules_trees", -1,
			       &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return n;
}

Test(engine_version_memo, takes_the_tree_a_plan_left_and_writes_nothing)
{
	char *dir = t_git_init(), *want_x, *want_y, *got, db[4096];
	struct graph_oid blob;
	struct eval_rules_memo m;
	struct rules_tree_memo put;
	struct rules_files files = { NULL, NULL, NULL };
	struct error_list errors;
	struct rules *r = NULL;
	struct cache *c = NULL;
	struct error err;
	struct stat st;
	struct run_result res;

	unsetenv("RIPPLE_CACHE");
	t_write(dir, "ripple.yml", rules_x);
	t_write(dir, "b/a.txt", "a\n");
	t_write(dir, "y.yml", rules_y);
	cr_assert_eq(t_git_commit(dir, "one"), 0);
	want_x = version(dir, NULL, NULL);
	want_y = version(dir, "--rules", "y.yml");
	cr_assert_str_neq(want_x, want_y);
	snprintf(db, sizeof(db), "%s/.ripple", dir);
	cr_expect_neq(stat(db, &st), 0, "version made no cache");

	/* Y's tree under the key of X's blob, as if a plan had left it. */
	cr_assert_eq(graph_blob_id_of(rules_x, strlen(rules_x), &blob), 0);
	eval_rules_memo_init(&m, NULL, 0, &blob);
	cr_assert_not_null(m.memo.key);
	memset(&put, 0, sizeof(put));
	put.get = no_get;
	put.put = capture;
	put.key = m.key;
	put.write = 1;
	files.memo = &put;
	buf_init(&captured, 0);
	error_list_init(&errors, 4);
	cr_assert_eq(rules_load_buffer_files("y", rules_y, strlen(rules_y),
					     &files, &r, &errors), 0);
	rules_free(r);
	error_list_release(&errors);
	cr_assert_gt(captured.len, 0);
	snprintf(db, sizeof(db), "%s/.ripple/cache.db", dir);
	error_init(&err);
	cr_assert_eq(cache_open(db, CACHE_OPEN_CREATE, &c, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(cache_rules_tree_put(c, m.key, captured.data,
					  captured.len, &err), 0, "%s",
		     err.msg);
	cache_close(c);

	got = version(dir, NULL, NULL);
	cr_expect_str_eq(got, want_y, "the working tree's bytes: a hit");
	free(got);
	got = version(dir, "--rev", "HEAD");
	cr_expect_str_eq(got, want_y, "HEAD's blob: a hit");
	free(got);

	/* Other bytes in the working tree: another key, parsed, and
	 * nothing written. */
	t_write(dir, "ripple.yml", "# edited\n");
	res = t_sh(dir, "cat y.yml | sed 's/1.0.2/1.0.3/' >> ripple.yml");
	cr_assert_eq(res.status, 0);
	t_result_release(&res);
	got = version(dir, NULL, NULL);
	cr_expect_str_neq(got, want_y);
	cr_expect_str_neq(got, want_x);
	free(got);
	cr_expect_eq(rows(db), 1, "version writes no row");

	/* A row cut short: a miss, X parsed. */
	res = t_sh(dir, "git checkout -q ripple.yml");
	cr_assert_eq(res.status, 0);
	t_result_release(&res);
	{
		sqlite3 *h = NULL;

		cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
		cr_assert_eq(sqlite3_exec(h, "UPDATE rules_trees SET tree = "
					     "substr(tree, 1, length(tree) - "
					     "9)", NULL, NULL, NULL),
			     SQLITE_OK);
		sqlite3_close(h);
	}
	got = version(dir, NULL, NULL);
	cr_expect_str_eq(got, want_x, "a damaged row is parsed over");
	free(got);
	got = version(dir, "--rev", "HEAD");
	cr_expect_str_eq(got, want_x);
	free(got);
	cr_expect_eq(rows(db), 1);

	buf_release(&captured);
	free(want_x);
	free(want_y);
	t_rmtree(dir);
	free(dir);
}
