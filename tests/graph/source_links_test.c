/* Suites for graph/source: what a symlink's key covers. A build that
 * reads through a link reads what the link finally reaches: a link in a
 * folder the link points at, or a folder link in the middle of the
 * target's path, must count as the kernel resolves them. And hostile
 * trees (links that loop through folders, folders nested deeper than
 * git allows) end in a key or a clear error, never a hang or a crash. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "graph/pattern.h"
#include "graph/repo.h"
#include "graph/source.h"
#include "tests/support/support.h"

static void
sh_ok(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);

	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	t_result_release(&r);
}

/*
 * The key of include pattern `pat` at HEAD (into out, 33 bytes), which
 * the full walk, the key-only walk and the clean working tree must agree
 * on; *st_out, when not NULL, gets the full walk's state (the caller
 * releases it).
 */
static void
key_of(const char *dir, const char *pat, char out[33],
       struct graph_source_state *st_out)
{
	struct graph_repo *repo = NULL;
	struct pattern_set *s = NULL;
	struct graph_source_state a, b, c;
	struct graph_worktree *wt = NULL;
	struct graph_oid oid;
	struct error err;

	error_init(&err);
	cr_assert_eq(pattern_set_compile(&pat, 1, NULL, 0, &s, &err), 0);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	cr_assert_eq(graph_repo_resolve(repo, "HEAD", &oid, &err), 0);
	cr_assert_eq(graph_source_compute(repo, &oid, s, NULL, &a, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(graph_source_compute_key(repo, &oid, s, NULL, &b, &err),
		     0, "%s", err.msg);
	cr_assert_eq(graph_worktree_read(repo, &wt, &err), 0, "%s", err.msg);
	cr_assert_eq(graph_source_compute_worktree(wt, s, &c, &err), 0, "%s",
		     err.msg);
	cr_expect_str_eq(a.key_hex, b.key_hex, "full and key-only");
	cr_expect_str_eq(a.key_hex, c.key_hex, "commit and work tree");
	memcpy(out, a.key_hex, 33);
	if (st_out)
		*st_out = a;
	else
		graph_source_state_release(&a);
	graph_source_state_release(&b);
	graph_source_state_release(&c);
	graph_worktree_free(wt);
	pattern_set_free(s);
	graph_repo_close(repo);
}

/* Commit `edit` (a shell command) and say whether pat's key moved. */
static int
moves(const char *dir, const char *pat, const char *edit)
{
	char before[33], after[33];

	key_of(dir, pat, before, NULL);
	sh_ok(dir, edit);
	cr_assert_eq(t_git_commit(dir, "edit"), 0);
	key_of(dir, pat, after, NULL);
	return strcmp(before, after) != 0;
}

/* a/l -> ../b, a folder holding b/m -> ../c/f: reading a/l/m reads c/f. */
Test(graph_source_links, a_link_in_a_linked_folder_counts)
{
	char *dir = t_git_init();

	t_write(dir, "a/f", "a\n");
	t_write(dir, "c/f", "c1\n");
	t_write(dir, "b/x", "x\n");
	sh_ok(dir, "ln -s ../b a/l && ln -s ../c/f b/m");
	cr_assert_eq(t_git_commit(dir, "base"), 0);
	cr_expect(moves(dir, "a/**", "echo c2 > c/f"),
		  "the file b/m reaches changed");
	cr_expect(moves(dir, "a/**", "ln -sfn ../c b/m"), "b/m retargeted");
	cr_expect(moves(dir, "a/**", "echo c3 > c/f"),
		  "a file in the folder b/m now reaches");
	cr_expect(!moves(dir, "a/**", "echo n > z"), "outside everything");
	t_rmtree(dir);
	free(dir);
}

/* a/l -> ../d/f where d -> e: the target goes through a folder link. */
Test(graph_source_links, a_target_through_a_linked_folder_counts)
{
	char *dir = t_git_init(), k[33];
	struct graph_source_state st;

	t_write(dir, "a/f", "a\n");
	t_write(dir, "e/f", "e1\n");
	sh_ok(dir, "ln -s e d && ln -s ../d/f a/l");
	cr_assert_eq(t_git_commit(dir, "base"), 0);
	key_of(dir, "a/**", k, &st);
	cr_assert_eq(st.n_files, 2);
	cr_expect_eq(st.files[1].link_state, GRAPH_LINK_INSIDE);
	cr_expect_str_eq(st.files[1].link_resolved, "e/f");
	cr_expect_eq(st.n_warnings, 0, "not dangling");
	graph_source_state_release(&st);
	cr_expect(moves(dir, "a/**", "echo e2 > e/f"), "the file reached");
	cr_expect(moves(dir, "a/**", "mkdir g && echo e2 > g/f && "
			"ln -sfn g d"), "the folder link retargeted");
	t_rmtree(dir);
	free(dir);
}

/*
 * Hostile links: folders whose links point back at themselves, many to
 * a folder, and a folder link that loops. Keys come out (the same every
 * way) without hanging.
 */
Test(graph_source_links, link_loops_through_folders_end, .timeout = 60)
{
	char *dir = t_git_init(), k[33];

	t_write(dir, "a/f", "a\n");
	sh_ok(dir, "ln -s ../b a/l && mkdir b && for i in 0 1 2 3 4 5 6 7 "
		   "8 9; do ln -s . b/s$i && ln -s ../b b/p$i; done && "
		   "ln -s loop2 b/loop1 && ln -s loop1 b/loop2 && "
		   "ln -s ../b/loop1/x a/through-loop");
	cr_assert_eq(t_git_commit(dir, "base"), 0);
	key_of(dir, "a/**", k, NULL);
	t_rmtree(dir);
	free(dir);
}

/*
 * A set whose patterns reach through a folder link (lnk/src/ and below, where
 * lnk -> real) reads the folder the link reaches: the link is claimed,
 * so editing a file there changes the key (before, the set was empty).
 */
Test(graph_source_links, a_set_through_a_folder_link_claims_the_link)
{
	static const char *const pats[] = {
		"lnk/**", "lnk/src/**", "v/lnk/**", "v/**/*.c",
	};
	char *dir = t_git_init();
	size_t i;

	t_write(dir, "real/src/f.c", "1\n");
	t_write(dir, "v/g.c", "g\n");
	sh_ok(dir, "ln -s real lnk && ln -s ../real v/lnk");
	cr_assert_eq(t_git_commit(dir, "base"), 0);
	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		cr_expect(moves(dir, pats[i], "echo 2 >> real/src/f.c"),
			  "%s: the file reached through the link", pats[i]);
	cr_expect(!moves(dir, "v/g.c", "echo 3 >> real/src/f.c"),
		  "a set that does not reach the link");
	t_rmtree(dir);
	free(dir);
}

/* Write (python3, loose objects) a commit whose folder a/ nests `n`
 * folders deep, with x/l -> ../a beside it; its id into out (41). */
static void
deep_commit(const char *dir, int n, char out[41])
{
	char cmd[1536];
	struct run_result r;

	snprintf(cmd, sizeof(cmd), "python3 -c '\n"
		 "import hashlib, zlib, os, subprocess\n"
		 "def w(t, b):\n"
		 "    d = t.encode() + b\" %%d\\0\" %% len(b) + b\n"
		 "    h = hashlib.sha1(d).hexdigest()\n"
		 "    os.makedirs(\".git/objects/\" + h[:2], exist_ok=True)\n"
		 "    open(\".git/objects/\" + h[:2] + \"/\" + h[2:], \"wb\")"
		 ".write(zlib.compress(d))\n"
		 "    return bytes.fromhex(h)\n"
		 "t = w(\"tree\", b\"100644 f\\0\" + w(\"blob\", b\"x\"))\n"
		 "for i in range(%d):\n"
		 "    t = w(\"tree\", b\"40000 a\\0\" + t)\n"
		 "x = w(\"tree\", b\"120000 l\\0\" + w(\"blob\", b\"../a\"))\n"
		 "r = w(\"tree\", b\"40000 a\\0\" + t + b\"40000 x\\0\" + x)\n"
		 "print(subprocess.check_output([\"git\", \"commit-tree\", "
		 "r.hex(), \"-m\", \"deep\"]).decode().strip())'", n);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_geq(strlen(r.out), 40);
	memcpy(out, r.out, 40);
	out[40] = '\0';
	t_result_release(&r);
}

/*
 * Folders nested deeper than git's core.maxTreeDepth (4096): every walk
 * and a link's folder digest refuse them with an error (a tree 100,000
 * deep overflowed their recursion's stack: a crash).
 */
Test(graph_source_links, a_tree_deeper_than_git_allows_is_an_error,
     .timeout = 120)
{
	static const char *const pats[] = { "a/**", "a/**/f", "x/**" };
	char *dir = t_git_init(), c[41];
	struct graph_repo *repo = NULL;
	struct pattern_set *s;
	struct graph_source_state st;
	struct graph_oid oid;
	struct error err;
	size_t i;

	deep_commit(dir, 5000, c);
	error_init(&err);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	cr_assert_eq(graph_repo_resolve(repo, c, &oid, &err), 0, "%s",
		     err.msg);
	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		s = NULL;
		cr_assert_eq(pattern_set_compile(&pats[i], 1, NULL, 0, &s,
						 &err), 0);
		error_init(&err);
		cr_expect_eq(graph_source_compute(repo, &oid, s, NULL, &st,
						  &err), ERROR_INVALID,
			     "%s: full walk", pats[i]);
		cr_expect(strstr(err.msg, "too deep") != NULL, "%s", err.msg);
		graph_source_state_release(&st);
		error_init(&err);
		cr_expect_eq(graph_source_compute_key(repo, &oid, s, NULL,
						      &st, &err),
			     ERROR_INVALID, "%s: key-only walk", pats[i]);
		graph_source_state_release(&st);
		pattern_set_free(s);
	}
	graph_repo_close(repo);
	t_rmtree(dir);
	free(dir);
}

/*
 * The limit is the same on every path: folders 4,096 deep key, 4,097 deep
 * are an error, for a set walked file by file and for one keyed from
 * tree ids (scan_links), as RIPPLE_FULL_WALK's reference walk has it.
 * Before, the tree-id path keyed a tree 4,097 deep that the full walk
 * refused.
 */
Test(graph_source_links, every_walk_allows_4096_folders_and_no_more,
     .timeout = 120)
{
	static const char *const pats[] = { "a/**", "a/**/f" };
	char *dir = t_git_init(), ok[41], deep[41];
	struct graph_repo *repo = NULL;
	struct pattern_set *s;
	struct graph_source_state st;
	struct graph_oid oid;
	struct error err;
	size_t i;
	int rc;

	/* a/ and 4,095 (4,096) folders below: 4,096 (4,097) deep. */
	deep_commit(dir, 4095, ok);
	deep_commit(dir, 4096, deep);
	error_init(&err);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		s = NULL;
		cr_assert_eq(pattern_set_compile(&pats[i], 1, NULL, 0, &s,
						 &err), 0);
		cr_assert_eq(graph_repo_resolve(repo, ok, &oid, &err), 0);
		error_init(&err);
		rc = graph_source_compute(repo, &oid, s, NULL, &st, &err);
		cr_expect_eq(rc, 0, "%s: 4,096 deep, full walk: %s", pats[i],
			     err.msg);
		graph_source_state_release(&st);
		error_init(&err);
		rc = graph_source_compute_key(repo, &oid, s, NULL, &st, &err);
		cr_expect_eq(rc, 0, "%s: 4,096 deep, key: %s", pats[i],
			     err.msg);
		graph_source_state_release(&st);
		cr_assert_eq(graph_repo_resolve(repo, deep, &oid, &err), 0);
		error_init(&err);
		rc = graph_source_compute(repo, &oid, s, NULL, &st, &err);
		cr_expect_eq(rc, ERROR_INVALID, "%s: 4,097 deep, full walk",
			     pats[i]);
		graph_source_state_release(&st);
		error_init(&err);
		rc = graph_source_compute_key(repo, &oid, s, NULL, &st, &err);
		cr_expect_eq(rc, ERROR_INVALID, "%s: 4,097 deep, key", pats[i]);
		cr_expect(strstr(err.msg, "too deep") != NULL, "%s: %s",
			  pats[i], err.msg);
		graph_source_state_release(&st);
		pattern_set_free(s);
	}
	graph_repo_close(repo);
	t_rmtree(dir);
	free(dir);
}
