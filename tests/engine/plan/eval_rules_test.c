/*
 * Suite engine_plan_eval_rules: a commit's ripple.yml through the cache's
 * memos, keyed by its blob id (engine/plan/eval_rules.c): of parsed trees,
 * and of the model and graph (graph/model_memo.h). A hit reads no blob
 * (the model keeps no text); a row that is damaged, cut, of the first
 * format or another blob's is a miss, and the rules are the commit's all
 * the same.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "cache/cache.h"
#include "engine/plan/eval.h"
#include "graph/graph.h"
#include "graph/repo.h"
#include "rules/rules.h"
#include "tests/support/support.h"

TestSuite(engine_plan_eval_rules);

#define RULES_A \
	"version: 1\n" \
	"sources:\n" \
	"  src: {paths: [src/**]}\n" \
	"artifacts:\n" \
	"  lib: {inputs: [src], command: [make]}\n" \
	"  app: {inputs: [src], needs: [lib], command: [make, app]}\n"

#define RULES_B \
	"version: 1\n" \
	"sources:\n" \
	"  src: {paths: [src/**]}\n" \
	"artifacts:\n" \
	"  other: {inputs: [src], command: [make, other]}\n"

struct fixture {
	char *dir, *db, *rev_a, *rev_b;
	struct graph_repo *repo;
};

/* Commit A (RULES_A) and B (RULES_B); a cache beside them. */
static void
setup(struct fixture *f)
{
	struct error err;

	f->dir = t_git_init();
	t_write(f->dir, "ripple.yml", RULES_A);
	t_write(f->dir, "src/a.c", "int a;\n");
	cr_assert_eq(t_git_commit(f->dir, "a"), 0);
	f->rev_a = t_git_rev(f->dir, "HEAD");
	t_write(f->dir, "ripple.yml", RULES_B);
	cr_assert_eq(t_git_commit(f->dir, "b"), 0);
	f->rev_b = t_git_rev(f->dir, "HEAD");
	f->db = malloc(strlen(f->dir) + 16);
	cr_assert_not_null(f->db);
	sprintf(f->db, "%s/cache.db", f->dir);
	error_init(&err);
	cr_assert_eq(graph_repo_open(f->dir, &f->repo, &err), 0, "%s",
		     err.msg);
}

static void
teardown(struct fixture *f)
{
	graph_repo_close(f->repo);
	t_rmtree(f->dir);
	free(f->dir);
	free(f->db);
	free(f->rev_a);
	free(f->rev_b);
}

/*
 * Evaluate rev with the cache (read-write): its node ids, one a line,
 * into *ids; returns 1 when the rules came from a memo (no text), 2 when
 * the graph did too (a remembered graph lives in its rules' arena).
 */
static int
evaluate(struct fixture *f, const char *rev, struct buf *ids)
{
	struct cache *c = NULL;
	struct eval *ev = NULL;
	struct error_list errors;
	struct error err;
	size_t i;
	int hit;

	error_init(&err);
	error_list_init(&errors, 4);
	cr_assert_eq(cache_open(f->db, CACHE_OPEN_CREATE, &c, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(eval_open_memo(f->repo, rev, 0, NULL, NULL, c, 1,
				    &errors, &ev, &err), 0, "%s", err.msg);
	buf_reset(ids);
	for (i = 0; i < ev->graph->n_nodes; i++)
		buf_addf(ids, NULL, "%s\n", ev->graph->nodes[i].id);
	hit = ev->rules->text == NULL;
	if (hit && !ev->graph->arena.head)
		hit = 2;
	eval_free(ev);
	cache_close(c);
	error_list_release(&errors);
	return hit;
}

static void
sql(struct fixture *f, const char *q)
{
	sqlite3 *db = NULL;
	char *msg = NULL;

	cr_assert_eq(sqlite3_open(f->db, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, q, NULL, NULL, &msg), SQLITE_OK, "%s: %s",
		     q, msg ? msg : "");
	sqlite3_free(msg);
	sqlite3_close(db);
}

/* Rows of the parsed trees' format (ripple-ytree-v2), or with model 1
 * of the models' (ripple-model-v1). */
static long
rows_of(struct fixture *f, int model)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long n = -1;

	cr_assert_eq(sqlite3_open(f->db, &db), SQLITE_OK);
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM rules_trees WHERE "
			       "substr(tree, 1, 15) = CAST(?1 AS BLOB)", -1,
			       &st, NULL) == SQLITE_OK &&
	    sqlite3_bind_text(st, 1, model ? "ripple-model-v1" :
			      "ripple-ytree-v2", -1, SQLITE_STATIC) ==
	    SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

static long
rows(struct fixture *f)
{
	return rows_of(f, 0);
}

#define A_IDS "artifact:lib\nartifact:app\n"

Test(engine_plan_eval_rules, a_hit_reads_no_blob_and_gives_the_same_rules)
{
	struct fixture f;
	struct buf ids = BUF_INIT;

	setup(&f);
	cr_expect_eq(evaluate(&f, f.rev_a, &ids), 0, "the first load parses");
	cr_expect_str_eq(ids.data, A_IDS);
	cr_expect_eq(rows(&f), 1);
	cr_expect_eq(rows_of(&f, 1), 1);
	/* the parsed tree alone: the model's row gone */
	sql(&f, "DELETE FROM rules_trees WHERE substr(tree, 1, 15) = "
		"CAST('ripple-model-v1' AS BLOB)");
	cr_expect_eq(evaluate(&f, f.rev_a, &ids), 1, "the second is a hit");
	cr_expect_str_eq(ids.data, A_IDS);
	cr_expect_eq(rows_of(&f, 1), 1, "the model remembered again");
	cr_expect_eq(evaluate(&f, f.rev_a, &ids), 2, "the model's hit");
	cr_expect_str_eq(ids.data, A_IDS);
	cr_expect_eq(evaluate(&f, f.rev_b, &ids), 0, "another blob misses");
	cr_expect_str_eq(ids.data, "artifact:other\n");
	cr_expect_eq(rows(&f), 2);
	cr_expect_eq(rows_of(&f, 1), 2);
	buf_release(&ids);
	teardown(&f);
}

/*
 * Damaged, cut, emptied and first-format rows, and B's row under A's
 * key: each a miss that parses A again (and stores its row again). Both
 * rows of A are damaged alike: the model's, then the parsed tree's miss.
 */
Test(engine_plan_eval_rules, a_bad_row_is_a_miss_with_the_same_rules)
{
	static const char *const damage[] = {
		/* one byte changed in the middle */
		"UPDATE rules_trees SET tree = substr(tree, 1, 60) || "
		"x'ff' || substr(tree, 62)",
		/* cut short */
		"UPDATE rules_trees SET tree = substr(tree, 1, length(tree) "
		"- 9)",
		/* empty */
		"UPDATE rules_trees SET tree = x''",
		/* the first format's magic over the second's */
		"UPDATE rules_trees SET tree = CAST('ripple-ytree-v1' AS BLOB) "
		"|| substr(tree, 16)",
		NULL,
	};
	struct fixture f;
	struct buf ids = BUF_INIT;
	size_t i;

	setup(&f);
	cr_assert_eq(evaluate(&f, f.rev_a, &ids), 0);	/* makes the cache */
	for (i = 0; damage[i]; i++) {
		sql(&f, "DELETE FROM rules_trees");
		cr_assert_eq(evaluate(&f, f.rev_a, &ids), 0);
		cr_assert_eq(rows(&f), 1);
		sql(&f, damage[i]);
		cr_expect_eq(evaluate(&f, f.rev_a, &ids), 0, "%s: a miss",
			     damage[i]);
		cr_expect_str_eq(ids.data, A_IDS, "%s", damage[i]);
		cr_expect_eq(evaluate(&f, f.rev_a, &ids), 2,
			     "%s: remembered again", damage[i]);
		cr_expect_str_eq(ids.data, A_IDS);
	}
	/* B's whole row (good checksum) under A's key. */
	sql(&f, "DELETE FROM rules_trees");
	cr_assert_eq(evaluate(&f, f.rev_b, &ids), 0);
	cr_assert_eq(evaluate(&f, f.rev_a, &ids), 0);
	cr_assert_eq(rows(&f), 2);
	cr_assert_eq(rows_of(&f, 1), 2);
	/* rowids: B's tree 1, B's model 2, A's tree 3, A's model 4 */
	sql(&f, "UPDATE rules_trees SET tree = (SELECT b.tree FROM "
		"rules_trees b WHERE b.rowid = rules_trees.rowid - 2) "
		"WHERE rowid > 2");
	cr_expect_eq(evaluate(&f, f.rev_a, &ids), 0, "B's row: a miss");
	cr_expect_str_eq(ids.data, A_IDS);
	buf_release(&ids);
	teardown(&f);
}

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

/*
 * The working tree's ripple.yml (and a --rules file) goes through the
 * memo by the blob id git gives its bytes: B's tree planted under the key
 * of A's blob is what a worktree evaluation of A's bytes reads.
 */
Test(engine_plan_eval_rules, the_working_tree_finds_the_tree_by_its_bytes)
{
	struct fixture f;
	struct buf ids = BUF_INIT;
	struct graph_oid blob;
	struct eval_rules_memo m;
	struct rules_tree_memo put;
	struct rules_files files = { NULL, NULL, NULL };
	struct error_list errors;
	struct rules *r = NULL;
	struct cache *c = NULL;
	struct eval *ev = NULL;
	struct error err;
	size_t i;

	setup(&f);
	t_write(f.dir, "ripple.yml", RULES_A);	/* HEAD is B */
	cr_assert_eq(graph_blob_id_of(RULES_A, strlen(RULES_A), &blob), 0);
	eval_rules_memo_init(&m, NULL, 0, &blob);
	memset(&put, 0, sizeof(put));
	put.get = no_get;
	put.put = capture;
	put.key = m.key;
	put.write = 1;
	files.memo = &put;
	buf_init(&captured, 0);
	error_list_init(&errors, 4);
	cr_assert_eq(rules_load_buffer_files("b", RULES_B, strlen(RULES_B),
					     &files, &r, &errors), 0);
	rules_free(r);
	error_init(&err);
	cr_assert_eq(cache_open(f.db, CACHE_OPEN_CREATE, &c, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(cache_rules_tree_put(c, m.key, captured.data,
					  captured.len, &err), 0);
	cr_assert_eq(eval_open_memo(f.repo, NULL, 1, NULL, NULL, c, 1,
				    &errors, &ev, &err), 0, "%s", err.msg);
	for (i = 0; i < ev->graph->n_nodes; i++)
		buf_addf(&ids, NULL, "%s\n", ev->graph->nodes[i].id);
	cr_expect_str_eq(ids.data, "artifact:other\n", "the planted tree");
	eval_free(ev);
	/* Without the memo: A's own rules. */
	cr_assert_eq(eval_open_memo(f.repo, NULL, 1, NULL, NULL, NULL, 0,
				    &errors, &ev, &err), 0, "%s", err.msg);
	buf_reset(&ids);
	for (i = 0; i < ev->graph->n_nodes; i++)
		buf_addf(&ids, NULL, "%s\n", ev->graph->nodes[i].id);
	cr_expect_str_eq(ids.data, A_IDS);
	eval_free(ev);
	cache_close(c);
	error_list_release(&errors);
	buf_release(&captured);
	buf_release(&ids);
	teardown(&f);
}

/*
 * A model remembered under the default limits is not what an evaluation
 * under lower ones reads: its graph is refused there as without a memo.
 */
Test(engine_plan_eval_rules, a_lower_limit_refuses_a_remembered_graph)
{
	struct fixture f;
	struct buf ids = BUF_INIT;
	struct graph_limits one = { 1, 0 };
	struct error_list errors;
	struct cache *c = NULL;
	struct eval *ev = NULL;
	struct error err;

	setup(&f);
	cr_assert_eq(evaluate(&f, f.rev_a, &ids), 0);
	cr_assert_eq(evaluate(&f, f.rev_a, &ids), 2, "remembered");
	error_init(&err);
	error_list_init(&errors, 4);
	cr_assert_eq(cache_open(f.db, CACHE_OPEN_CREATE, &c, &err), 0);
	cr_expect_eq(eval_open_memo(f.repo, f.rev_a, 0, NULL, &one, c, 1,
				    &errors, &ev, &err), ERROR_INVALID,
		     "two nodes past --max-nodes 1");
	cr_expect(strstr(err.msg, "1"), "%s", err.msg);
	cr_expect_null(ev);
	cache_close(c);
	error_list_release(&errors);
	buf_release(&ids);
	teardown(&f);
}

/*
 * Rules that read a matrix file (each: {from: {file:}}) are more than
 * their blob: no model is remembered for them, and an edit of the matrix
 * file reaches the graph at once.
 */
Test(engine_plan_eval_rules, rules_reading_a_matrix_file_are_not_remembered)
{
	static const char rules[] =
		"version: 1\n"
		"sources:\n"
		"  src: {paths: [src/**]}\n"
		"tests:\n"
		"  t:\n"
		"    each:\n"
		"      from: {file: ci/matrix.yaml, axes: {py: PY}}\n"
		"    inputs: [src]\n"
		"    command: [make]\n";
	struct fixture f;
	struct buf ids = BUF_INIT;
	char *rev;

	setup(&f);
	t_write(f.dir, "ripple.yml", rules);
	t_write(f.dir, "ci/matrix.yaml", "- {PY: \"3.12\"}\n");
	cr_assert_eq(t_git_commit(f.dir, "matrix"), 0);
	cr_assert_eq(evaluate(&f, "HEAD", &ids), 0);
	cr_expect_str_eq(ids.data, "test:t[py=3.12]\n");
	cr_expect_eq(evaluate(&f, "HEAD", &ids), 1, "the parsed tree only");
	cr_expect_eq(rows_of(&f, 1), 0, "no model row");
	t_write(f.dir, "ci/matrix.yaml", "- {PY: \"3.13\"}\n");
	cr_assert_eq(t_git_commit(f.dir, "matrix 2"), 0);
	rev = t_git_rev(f.dir, "HEAD");
	cr_expect_eq(evaluate(&f, rev, &ids), 1);
	cr_expect_str_eq(ids.data, "test:t[py=3.13]\n");
	free(rev);
	buf_release(&ids);
	teardown(&f);
}

/*
 * A build without a build id (the note stripped, as some toolchains link)
 * keeps no model memo: its layout and names alone cannot tell it from
 * another build whose loader reads the same text differently. The same
 * binary with its note does keep one. ELF only (objcopy).
 */
Test(engine_plan_eval_rules, a_build_without_a_build_id_remembers_no_model)
{
	static const char *const record[] = {
		"record", "--run", "r", "--rev", "HEAD", "--node", "*",
		"--status", "ok", NULL
	};
	const char *bin = getenv("RIPPLE_BIN");
	char abs[4096], cmd[9000], *tmp;
	struct fixture f;
	struct run_result r;

	if (!bin || !bin[0])
		bin = "build/ripple";
	cr_assert(realpath(bin, abs), "no ripple at %s", bin);
	r = t_sh(".", "command -v objcopy && command -v readelf");
	if (r.status != 0) {
		t_result_release(&r);
		cr_skip_test("objcopy and readelf (binutils) are not installed");
	}
	t_result_release(&r);
	setup(&f);
	tmp = t_tmpdir();
	snprintf(cmd, sizeof(cmd), "objcopy --remove-section=.note.gnu.build-id"
		 " '%s' ripple && ! readelf -n ripple | grep -q 'Build ID'",
		 abs);
	r = t_sh(tmp, cmd);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	snprintf(cmd, sizeof(cmd), "RIPPLE_CACHE='%s' '%s/ripple' record "
		 "--run r --rev HEAD --node '*' --status ok", f.db, tmp);
	r = t_sh(f.dir, cmd);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	cr_expect_eq(rows_of(&f, 1), 0, "a model remembered without a build "
		     "id");
	cr_expect_eq(rows_of(&f, 0), 1, "the parsed tree is remembered");
	/* the binary with its note: one model row, so the above can fail */
	setenv("RIPPLE_CACHE", f.db, 1);
	r = t_ripple(f.dir, record);
	unsetenv("RIPPLE_CACHE");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	cr_expect_eq(rows_of(&f, 1), 1, "the build with its id remembers");
	t_rmtree(tmp);
	free(tmp);
	teardown(&f);
}
