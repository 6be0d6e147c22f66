/* Suites for graph/source: source-set keys change exactly when a claimed
 * input changes, at a commit and in the working tree. */
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

/* Patterns as "inc1 inc2 | exc1 exc2" (no spaces inside patterns). */
static struct pattern_set *
set_of(const char *spec)
{
	char *copy = strdup(spec), *tok, *save = NULL;
	const char *inc[16], *exc[16];
	size_t ni = 0, ne = 0;
	int in_exc = 0;
	struct pattern_set *s = NULL;
	struct error err;

	for (tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		if (!strcmp(tok, "|"))
			in_exc = 1;
		else if (in_exc)
			exc[ne++] = tok;
		else
			inc[ni++] = tok;
	}
	error_init(&err);
	cr_assert_eq(pattern_set_compile(inc, ni, exc, ne, &s, &err), 0, "%s",
		     err.msg);
	free(copy);
	return s;
}

/* State of `spec` at rev (NULL: the working tree). */
static void
state_at(const char *dir, const char *rev, const char *spec,
	 struct graph_source_state *st)
{
	struct graph_repo *repo = NULL;
	struct pattern_set *s = set_of(spec);
	struct graph_oid oid;
	struct graph_worktree *wt = NULL;
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	if (rev) {
		cr_assert_eq(graph_repo_resolve(repo, rev, &oid, &err), 0, "%s",
			     err.msg);
		cr_assert_eq(graph_source_compute(repo, &oid, s, NULL, st,
						  &err), 0, "%s", err.msg);
	} else {
		cr_assert_eq(graph_worktree_read(repo, &wt, &err), 0, "%s",
			     err.msg);
		cr_assert_eq(graph_source_compute_worktree(wt, s, st, &err), 0,
			     "%s", err.msg);
	}
	graph_worktree_free(wt);
	pattern_set_free(s);
	graph_repo_close(repo);
}

/* The key of spec at rev (NULL: working tree), as 32 hex in out. */
static void
key_at(const char *dir, const char *rev, const char *spec, char out[33])
{
	struct graph_source_state st;

	state_at(dir, rev, spec, &st);
	memcpy(out, st.key_hex, 33);
	graph_source_state_release(&st);
}

static char *
base_repo(void)
{
	char *dir = t_git_init();

	t_write(dir, "pkg/src/a.c", "int a;\n");
	t_write(dir, "pkg/src/b.c", "int b;\n");
	t_write(dir, "pkg/tests/t.py", "test\n");
	t_write(dir, "pkg/README.md", "readme\n");
	t_write(dir, "other/x.c", "x\n");
	t_write(dir, "shared/helper.py", "v1\n");
	cr_assert_eq(t_git_commit(dir, "base"), 0);
	return dir;
}

#define PKG "pkg/** | **/tests/** **/*.md"

/* Apply a shell edit, commit, and report whether PKG's key changed. */
static int
changes_key(const char *edit)
{
	char *dir = base_repo(), before[33], after[33];

	key_at(dir, "HEAD", PKG, before);
	sh_ok(dir, edit);
	cr_assert_eq(t_git_commit(dir, "edit"), 0);
	key_at(dir, "HEAD", PKG, after);
	t_rmtree(dir);
	free(dir);
	return strcmp(before, after) != 0;
}

Test(graph_source, claimed_changes_change_the_key)
{
	cr_expect(changes_key("echo more >> pkg/src/a.c"), "edit");
	cr_expect(changes_key("echo new > pkg/src/c.c"), "add");
	cr_expect(changes_key("git rm -q pkg/src/b.c"), "delete");
	cr_expect(changes_key("git mv pkg/src/b.c pkg/src/bb.c"), "rename");
	cr_expect(changes_key("chmod +x pkg/src/a.c"), "mode bit");
}

Test(graph_source, unclaimed_changes_leave_the_key)
{
	cr_expect(!changes_key("echo more >> other/x.c"), "unclaimed");
	cr_expect(!changes_key("echo more >> pkg/tests/t.py"), "excluded");
	cr_expect(!changes_key("echo more >> pkg/README.md"), "excluded md");
	cr_expect(!changes_key("touch pkg/src/a.c"), "touch");
}

Test(graph_source, files_are_listed_sorted_with_ids)
{
	char *dir = base_repo(), *blob = NULL;
	struct graph_source_state st;
	struct run_result r;

	state_at(dir, "HEAD", PKG, &st);
	cr_assert_eq(st.n_files, 2);
	cr_expect_str_eq(st.files[0].path, "pkg/src/a.c");
	cr_expect_str_eq(st.files[1].path, "pkg/src/b.c");
	cr_expect_eq(st.files[0].mode, 0100644);
	cr_expect_eq(st.files[0].kind, GRAPH_FILE_BLOB);
	r = t_sh(dir, "git rev-parse HEAD:pkg/src/a.c | tr -d '\\n'");
	blob = r.out;
	cr_expect_str_eq(st.files[0].id, blob);
	cr_expect_eq(strlen(st.key_hex), 32);
	t_result_release(&r);
	graph_source_state_release(&st);
	t_rmtree(dir);
	free(dir);
}

Test(graph_source, symlinks_carry_their_target_identity)
{
	char *dir = t_git_init(), k1[33], k2[33], o1[33], o2[33];
	struct graph_source_state st;

	t_write(dir, "shared/helper.py", "v1\n");
	t_write(dir, "shared/dir/x", "x\n");
	t_write(dir, "unrelated.txt", "u\n");
	sh_ok(dir, "mkdir -p one two && ln -s ../shared/helper.py one/helper.py"
		   " && ln -s ../shared/helper.py two/helper.py"
		   " && ln -s ../shared/dir one/dirlink");
	cr_assert_eq(t_git_commit(dir, "links"), 0);
	state_at(dir, "HEAD", "one/**", &st);
	cr_assert_eq(st.n_files, 2);
	cr_expect_str_eq(st.files[0].path, "one/dirlink");
	cr_expect_eq(st.files[0].link_state, GRAPH_LINK_INSIDE);
	cr_expect_eq(st.files[0].target_mode, 040000);
	cr_expect_str_eq(st.files[1].link_target, "../shared/helper.py");
	cr_expect_str_eq(st.files[1].link_resolved, "shared/helper.py");
	cr_expect_eq(st.files[1].kind, GRAPH_FILE_SYMLINK);
	cr_expect_eq(st.n_warnings, 0);
	graph_source_state_release(&st);

	key_at(dir, "HEAD", "one/**", k1);
	key_at(dir, "HEAD", "two/**", o1);
	/* Editing the shared file changes both roots' keys. */
	t_write(dir, "shared/helper.py", "v2\n");
	cr_assert_eq(t_git_commit(dir, "shared edit"), 0);
	key_at(dir, "HEAD", "one/**", k2);
	key_at(dir, "HEAD", "two/**", o2);
	cr_expect_str_neq(k1, k2);
	cr_expect_str_neq(o1, o2);
	/* A file in the linked directory changes the linking root. */
	memcpy(k1, k2, 33);
	t_write(dir, "shared/dir/x", "x2\n");
	cr_assert_eq(t_git_commit(dir, "dir edit"), 0);
	key_at(dir, "HEAD", "one/**", k2);
	cr_expect_str_neq(k1, k2);
	key_at(dir, "HEAD", "two/**", o1);
	cr_expect_str_eq(o1, o2);
	/* Unrelated edits change neither. */
	memcpy(k1, k2, 33);
	t_write(dir, "unrelated.txt", "u2\n");
	cr_assert_eq(t_git_commit(dir, "unrelated"), 0);
	key_at(dir, "HEAD", "one/**", k2);
	cr_expect_str_eq(k1, k2);
	/* Retargeting the link changes the key. */
	sh_ok(dir, "ln -sfn ../unrelated.txt one/helper.py");
	cr_assert_eq(t_git_commit(dir, "retarget"), 0);
	key_at(dir, "HEAD", "one/**", k1);
	cr_expect_str_neq(k1, k2);
	t_rmtree(dir);
	free(dir);
}

Test(graph_source, escaping_and_dangling_links_are_reported)
{
	char *dir = t_git_init();
	struct graph_source_state st;

	sh_ok(dir, "mkdir l && ln -s ../../outside l/esc && ln -s /etc/passwd"
		   " l/abs && ln -s nothing-here l/dangle && ln -s loop2 l/loop1"
		   " && ln -s loop1 l/loop2");
	cr_assert_eq(t_git_commit(dir, "bad links"), 0);
	state_at(dir, "HEAD", "l/", &st);
	cr_assert_eq(st.n_files, 5);
	cr_assert_eq(st.n_warnings, 5);
	cr_expect_str_eq(st.warnings[0].path, "l/abs");
	cr_expect_str_eq(st.warnings[0].reason, "escapes the repository");
	cr_expect_str_eq(st.warnings[1].path, "l/dangle");
	cr_expect_str_eq(st.warnings[1].reason, "dangles");
	cr_expect_str_eq(st.warnings[1].target, "nothing-here");
	cr_expect_str_eq(st.warnings[2].reason, "escapes the repository");
	cr_expect(strstr(st.warnings[3].reason, "too many") != NULL);
	graph_source_state_release(&st);
	t_rmtree(dir);
	free(dir);
}

Test(graph_source, submodule_contributes_its_commit)
{
	char *dir = t_git_init(), k1[33], k2[33];
	struct graph_source_state st;

	t_write(dir, "mods/keep", "k\n");
	cr_assert_eq(t_git_commit(dir, "base"), 0);
	sh_ok(dir, "git update-index --add --cacheinfo "
		   "160000,1111111111111111111111111111111111111111,mods/sub"
		   " && git commit -qm sub");
	state_at(dir, "HEAD", "mods/**", &st);
	cr_assert_eq(st.n_files, 2);
	cr_expect_str_eq(st.files[1].path, "mods/sub");
	cr_expect_eq(st.files[1].kind, GRAPH_FILE_SUBMODULE);
	cr_expect_eq(st.files[1].mode, 0160000);
	cr_expect_str_eq(st.files[1].id,
			 "1111111111111111111111111111111111111111");
	memcpy(k1, st.key_hex, 33);
	graph_source_state_release(&st);
	sh_ok(dir, "git update-index --cacheinfo "
		   "160000,2222222222222222222222222222222222222222,mods/sub"
		   " && git commit -qm bump");
	key_at(dir, "HEAD", "mods/**", k2);
	cr_expect_str_neq(k1, k2);
	t_rmtree(dir);
	free(dir);
}

Test(graph_source, unusual_file_names_are_bytes)
{
	char *dir = t_git_init();
	struct graph_source_state st;
	size_t i;
	int seen_nl = 0, seen_ff = 0, seen_dash = 0;

	sh_ok(dir, "mkdir w && cd w && echo 1 > 'with space' && "
		   "printf 2 > \"$(printf 'new\\nline')\" && echo 3 > '-dash' && "
		   "echo 4 > 'quo\"te' && printf 5 > \"$(printf 'bad\\377')\"");
	cr_assert_eq(t_git_commit(dir, "names"), 0);
	state_at(dir, "HEAD", "w/**", &st);
	cr_expect_eq(st.n_files, 5);
	for (i = 0; i < st.n_files; i++) {
		seen_nl |= !strcmp(st.files[i].path, "w/new\nline");
		seen_ff |= !strcmp(st.files[i].path, "w/bad\xff");
		seen_dash |= !strcmp(st.files[i].path, "w/-dash");
		if (i)
			cr_expect_lt(strcmp(st.files[i - 1].path,
					    st.files[i].path), 0);
	}
	cr_expect(seen_nl && seen_ff && seen_dash);
	graph_source_state_release(&st);
	t_rmtree(dir);
	free(dir);
}

Test(graph_source, moving_the_checkout_keeps_keys)
{
	char *dir = base_repo(), *c1 = t_tmpdir(), *c2 = t_tmpdir();
	char cmd[16384], p1[1024], p2[1024], k1[33], k2[33], k0[33];

	snprintf(p1, sizeof(p1), "%s/first", c1);
	snprintf(p2, sizeof(p2), "%s/deeper/second clone", c2);
	snprintf(cmd, sizeof(cmd), "git clone -q '%s' '%s' && git clone -q "
		 "'%s' '%s'", dir, p1, dir, p2);
	sh_ok("/", cmd);
	key_at(dir, "HEAD", PKG, k0);
	key_at(p1, "HEAD", PKG, k1);
	key_at(p2, "HEAD", PKG, k2);
	cr_expect_str_eq(k0, k1);
	cr_expect_str_eq(k1, k2);
	key_at(p1, NULL, PKG, k1);
	key_at(p2, NULL, PKG, k2);
	cr_expect_str_eq(k0, k1);
	cr_expect_str_eq(k1, k2);
	t_rmtree(c2);
	t_rmtree(c1);
	t_rmtree(dir);
	free(c2);
	free(c1);
	free(dir);
}

Test(graph_source, worktree_follows_git_status)
{
	char *dir = base_repo(), head[33], wt[33], wt2[33];

	sh_ok(dir, "ln -s ../shared/helper.py pkg/link && echo 'ign/' > "
		   ".gitignore && git add -A && git commit -qm link");
	key_at(dir, "HEAD", PKG, head);
	key_at(dir, NULL, PKG, wt);
	cr_expect_str_eq(head, wt, "clean worktree equals HEAD");
	sh_ok(dir, "sleep 1 && touch pkg/src/a.c && mkdir -p pkg/ign && "
		   "echo i > pkg/ign/x.c && echo t >> pkg/tests/t.py");
	key_at(dir, NULL, PKG, wt);
	cr_expect_str_eq(head, wt, "touch, ignored, excluded");
	t_write(dir, "pkg/src/new.c", "untracked\n");
	key_at(dir, NULL, PKG, wt);
	cr_expect_str_neq(head, wt, "untracked file");
	sh_ok(dir, "rm pkg/src/new.c && echo edit >> pkg/src/b.c");
	key_at(dir, NULL, PKG, wt);
	cr_expect_str_neq(head, wt, "unstaged edit");
	sh_ok(dir, "git add pkg/src/b.c");
	key_at(dir, NULL, PKG, wt2);
	cr_expect_str_eq(wt, wt2, "staging changes nothing");
	sh_ok(dir, "git commit -qm edit");
	key_at(dir, "HEAD", PKG, head);
	cr_expect_str_eq(head, wt2, "commit key equals worktree key");
	sh_ok(dir, "echo v2 > shared/helper.py");
	key_at(dir, NULL, PKG, wt);
	cr_expect_str_neq(head, wt, "linked shared file edit");
	sh_ok(dir, "git checkout -q shared/helper.py && chmod +x pkg/src/a.c");
	key_at(dir, NULL, PKG, wt);
	cr_expect_str_neq(head, wt, "mode bit");
	sh_ok(dir, "chmod -x pkg/src/a.c && rm pkg/src/a.c");
	key_at(dir, NULL, PKG, wt);
	cr_expect_str_neq(head, wt, "deleted");
	t_rmtree(dir);
	free(dir);
}

Test(graph_source, memo_reuses_unchanged_subtrees)
{
	char *dir = base_repo(), plain[33];
	struct graph_repo *repo = NULL;
	struct graph_source_cache *cache = graph_source_cache_new();
	struct pattern_set *s = set_of(PKG);
	struct graph_source_state st;
	struct graph_oid oid;
	struct error err;
	size_t hits, misses, misses1;

	t_write(dir, "pkg/src/a.c", "int a2;\n");
	cr_assert_eq(t_git_commit(dir, "edit"), 0);
	error_init(&err);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0);
	cr_assert_eq(graph_repo_resolve(repo, "HEAD~1", &oid, &err), 0);
	cr_assert_eq(graph_source_compute(repo, &oid, s, cache, &st, &err), 0);
	graph_source_state_release(&st);
	graph_source_cache_stats(cache, &hits, &misses1);
	cr_expect_eq(hits, 0);
	cr_assert_eq(graph_repo_resolve(repo, "HEAD", &oid, &err), 0);
	cr_assert_eq(graph_source_compute(repo, &oid, s, cache, &st, &err), 0);
	graph_source_cache_stats(cache, &hits, &misses);
	/* Only the changed pkg and pkg/src are re-read (the walk starts at
	 * the fixed prefix "pkg", not the root). */
	cr_expect_eq(misses - misses1, 2);
	key_at(dir, "HEAD", PKG, plain);
	cr_expect_str_eq(st.key_hex, plain);
	graph_source_state_release(&st);
	cr_assert_eq(graph_source_compute(repo, &oid, s, cache, &st, &err), 0);
	graph_source_cache_stats(cache, &hits, &misses1);
	cr_expect_eq(misses1, misses);
	cr_expect_str_eq(st.key_hex, plain);
	graph_source_state_release(&st);
	pattern_set_free(s);
	graph_source_cache_free(cache);
	graph_repo_close(repo);
	t_rmtree(dir);
	free(dir);
}

/*
 * Prefixes under another are walked once, at a commit and in the working
 * tree; the nesting test is one pass over sorted prefixes now (issue 14,
 * item 12), and names that sort between a folder and its contents
 * ("a-b", "a.c" around "a/") must not hide or repeat anything.
 */
Test(graph_source, nested_prefixes_claim_each_file_once)
{
	static const char spec[] = "a/** a/b/** a-b/** a/b/c/** a.c/x a/b/c/d/**";
	static const char *const want[] = {
		"a-b/z", "a.c/x", "a/b/c/d/e", "a/b/y", "a/x",
	};
	char *dir = t_git_init();
	struct graph_source_state st;
	size_t i;
	int pass;

	t_write(dir, "a/x", "1\n");
	t_write(dir, "a/b/y", "2\n");
	t_write(dir, "a/b/c/d/e", "3\n");
	t_write(dir, "a-b/z", "4\n");
	t_write(dir, "a.c/x", "5\n");
	t_write(dir, "ab/q", "6\n");
	cr_assert_eq(t_git_commit(dir, "base"), 0);
	for (pass = 0; pass < 2; pass++) {
		state_at(dir, pass ? NULL : "HEAD", spec, &st);
		cr_assert_eq(st.n_files, 5, "pass %d: %zu files", pass,
			     st.n_files);
		for (i = 0; i < 5; i++)
			cr_expect_str_eq(st.files[i].path, want[i], "pass %d",
					 pass);
		graph_source_state_release(&st);
	}
	t_rmtree(dir);
	free(dir);
}

/*
 * Issue 13 item 1: a link a/l1 -> ../x/l2 whose hop x/l2 -> ../a/f lies
 * outside the set's prefix "a". Retargeting x/l2 changes what a/l1
 * resolves to without touching a/, so the memo (keyed by a/'s tree id)
 * must not remember such a state; a chain that stays inside may be.
 */
Test(graph_source, memo_counts_every_symlink_hop)
{
	char *dir = t_git_init();
	struct graph_source_state st;
	struct pattern_set *s = set_of("a/**");
	char k1[33], k2[33];

	t_write(dir, "a/f", "f\n");
	t_write(dir, "a/g", "g\n");
	sh_ok(dir, "mkdir -p x && ln -s ../a/f x/l2 && ln -s ../x/l2 a/l1 "
		   "&& ln -s f a/in2 && ln -s in2 a/in1");
	cr_assert_eq(t_git_commit(dir, "links"), 0);
	state_at(dir, "HEAD", "a/**", &st);
	cr_expect_eq(graph_source_state_memoizable(s, &st), 0,
		     "a hop outside the prefix");
	graph_source_state_release(&st);
	key_at(dir, "HEAD", "a/**", k1);
	sh_ok(dir, "ln -sfn ../a/g x/l2");
	cr_assert_eq(t_git_commit(dir, "retarget the outside hop"), 0);
	key_at(dir, "HEAD", "a/**", k2);
	cr_expect_str_neq(k1, k2, "the key follows the outside hop");
	sh_ok(dir, "git rm -q a/l1");
	cr_assert_eq(t_git_commit(dir, "inside chain only"), 0);
	state_at(dir, "HEAD", "a/**", &st);
	cr_expect_eq(graph_source_state_memoizable(s, &st), 1,
		     "a chain inside the prefix");
	graph_source_state_release(&st);
	pattern_set_free(s);
	t_rmtree(dir);
	free(dir);
}
