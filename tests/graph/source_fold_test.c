/* Suites for graph/source: a folder a set claims whole and that holds no
 * symlink is keyed by its git tree id ("ripple-source-v2"), the same by
 * the key-only walk, the full walk and the working tree. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "base/error.h"
#include "base/strv.h"
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

/*
 * The key of spec at HEAD three ways, which must agree: the full walk,
 * the key-only walk and the clean working tree. *n_full / *n_key: the
 * files each listed. Into out (33 bytes).
 */
static void
keys_agree(const char *dir, const char *spec, char out[33], size_t *n_full,
	   size_t *n_key)
{
	struct graph_repo *repo = NULL;
	struct pattern_set *s = set_of(spec);
	struct graph_source_state a, b, c;
	struct graph_worktree *wt = NULL;
	struct graph_oid oid;
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	cr_assert_eq(graph_repo_resolve(repo, "HEAD", &oid, &err), 0);
	cr_assert_eq(graph_source_compute(repo, &oid, s, NULL, &a, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(graph_source_compute_key(repo, &oid, s, NULL, &b, &err),
		     0, "%s", err.msg);
	cr_assert_eq(graph_worktree_read(repo, &wt, &err), 0, "%s", err.msg);
	cr_assert_eq(graph_source_compute_worktree(wt, s, &c, &err), 0, "%s",
		     err.msg);
	cr_expect_str_eq(a.key_hex, b.key_hex, "%s: full and key-only", spec);
	cr_expect_str_eq(a.key_hex, c.key_hex, "%s: commit and work tree",
			 spec);
	cr_expect_eq(a.n_files, c.n_files, "%s", spec);
	memcpy(out, a.key_hex, 33);
	if (n_full)
		*n_full = a.n_files;
	if (n_key)
		*n_key = b.n_files;
	graph_source_state_release(&a);
	graph_source_state_release(&b);
	graph_source_state_release(&c);
	graph_worktree_free(wt);
	pattern_set_free(s);
	graph_repo_close(repo);
}

/* The key of spec in the working tree (uncommitted changes). */
static void
worktree_key(const char *dir, const char *spec, char out[33])
{
	struct graph_repo *repo = NULL;
	struct pattern_set *s = set_of(spec);
	struct graph_source_state st;
	struct graph_worktree *wt = NULL;
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	cr_assert_eq(graph_worktree_read(repo, &wt, &err), 0, "%s", err.msg);
	cr_assert_eq(graph_source_compute_worktree(wt, s, &st, &err), 0, "%s",
		     err.msg);
	memcpy(out, st.key_hex, 33);
	graph_source_state_release(&st);
	graph_worktree_free(wt);
	pattern_set_free(s);
	graph_repo_close(repo);
}

static char *
deep_repo(void)
{
	char *dir = t_git_init();

	t_write(dir, "pkg/src/main.c", "int main;\n");
	t_write(dir, "pkg/src/a/b/c/deep.c", "deep\n");
	t_write(dir, "pkg/src/a/b/other.c", "other\n");
	t_write(dir, "pkg/src/gen/out.c", "generated\n");
	t_write(dir, "pkg/src/x.c", "x\n");
	t_write(dir, "pkg/package.json", "{}\n");
	t_write(dir, "shared/t.txt", "t1\n");
	cr_assert_eq(t_git_commit(dir, "base"), 0);
	return dir;
}

static void
put_u32(XXH3_state_t *h, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)v, (unsigned char)(v >> 8),
			       (unsigned char)(v >> 16),
			       (unsigned char)(v >> 24) };

	XXH3_128bits_update(h, b, 4);
}

/*
 * docs/patterns.md's encoding, written out here: a set claiming one
 * link-free folder whole is the folder's path, mode 040000 and the tree
 * id git gives it (`git rev-parse HEAD:pkg/src`), then the record count.
 */
Test(graph_source_fold, a_folder_claimed_whole_is_its_tree_id)
{
	char *dir = deep_repo(), key[33], want[33], hex[3];
	struct run_result r = t_sh(dir, "git rev-parse HEAD:pkg/src");
	unsigned char oid[20];
	XXH3_state_t h;
	XXH128_canonical_t c;
	size_t i, n_full, n_key;
	unsigned v;

	cr_assert_eq(r.status, 0);
	for (i = 0; i < 20; i++) {
		cr_assert_eq(sscanf(r.out + 2 * i, "%2x", &v), 1);
		oid[i] = (unsigned char)v;
	}
	t_result_release(&r);
	XXH3_128bits_reset(&h);
	XXH3_128bits_update(&h, "ripple-source-v2", 17);
	put_u32(&h, 7);
	XXH3_128bits_update(&h, "pkg/src", 7);
	put_u32(&h, 040000);
	XXH3_128bits_update(&h, oid, 20);
	put_u32(&h, 1);
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&h));
	for (i = 0; i < 16; i++) {
		snprintf(hex, sizeof(hex), "%02x", c.digest[i]);
		memcpy(want + 2 * i, hex, 2);
	}
	want[32] = '\0';
	keys_agree(dir, "pkg/src/**", key, &n_full, &n_key);
	cr_expect_str_eq(key, want);
	cr_expect_eq(n_full, 5, "every file is still listed by the full walk");
	cr_expect_eq(n_key, 0, "the key-only walk lists none");
	t_rmtree(dir);
	free(dir);
}

/* Apply a shell edit, commit, and report whether spec's key changed
 * (every way agreeing before and after). */
static int
changes(const char *spec, const char *edit)
{
	char *dir = deep_repo(), before[33], after[33];

	keys_agree(dir, spec, before, NULL, NULL);
	sh_ok(dir, edit);
	cr_assert_eq(t_git_commit(dir, "edit"), 0);
	keys_agree(dir, spec, after, NULL, NULL);
	t_rmtree(dir);
	free(dir);
	return strcmp(before, after) != 0;
}

Test(graph_source_fold, deep_edits_and_modes_change_the_key)
{
	static const char spec[] = "pkg/src/** pkg/package.json";

	cr_expect(changes(spec, "echo 2 >> pkg/src/a/b/c/deep.c"), "deep edit");
	cr_expect(changes(spec, "chmod +x pkg/src/a/b/c/deep.c"), "exec bit");
	cr_expect(changes(spec, "echo n > pkg/src/a/b/c/new.c"), "add");
	cr_expect(changes(spec, "git rm -q pkg/src/a/b/other.c"), "delete");
	cr_expect(changes(spec, "git mv pkg/src/a/b/c pkg/src/a/b/d"),
		  "rename a folder");
	cr_expect(changes(spec, "echo 2 >> pkg/package.json"), "top file");
	cr_expect(!changes(spec, "echo 2 >> shared/t.txt"), "outside");
	cr_expect(!changes(spec, "touch pkg/src/x.c"), "touch");
}

/* An exclude inside a folder: that folder is walked entry by entry, its
 * other folders are still folded. */
Test(graph_source_fold, an_exclude_cuts_the_folder_it_lies_in)
{
	static const char spec[] = "pkg/src/** | pkg/src/gen/**";
	char *dir = deep_repo(), k[33];
	size_t n_full, n_key;

	keys_agree(dir, spec, k, &n_full, &n_key);
	cr_expect_eq(n_full, 4, "gen/out.c excluded");
	cr_expect_eq(n_key, 2, "main.c and x.c: a/ is folded");
	t_rmtree(dir);
	free(dir);
	cr_expect(!changes(spec, "echo 2 >> pkg/src/gen/out.c"), "excluded");
	cr_expect(changes(spec, "echo 2 >> pkg/src/a/b/c/deep.c"), "deep");
	cr_expect(changes(spec, "echo 2 >> pkg/src/x.c"), "walked file");
	cr_expect(changes("pkg/src/** | **/*.md", "echo 2 >> pkg/src/x.c"),
		  "an unanchored exclude");
}

/*
 * A link added inside a folder that was link-free: the folder is walked
 * and the link resolved, so editing its target (outside the set) changes
 * the key; the link's own folder is no longer one record, its sibling
 * folder still is.
 */
Test(graph_source_fold, a_link_inside_unfolds_its_folders)
{
	static const char spec[] = "pkg/src/**";
	char *dir = deep_repo(), k0[33], k1[33], k2[33];
	size_t n_full, n_key;

	keys_agree(dir, spec, k0, NULL, &n_key);
	cr_expect_eq(n_key, 0);
	sh_ok(dir, "ln -s ../../../../../shared/t.txt pkg/src/a/b/c/link");
	/* Untracked, the link already unfolds the working tree's folders:
	 * its key is the one the commit will have. */
	worktree_key(dir, spec, k2);
	cr_assert_eq(t_git_commit(dir, "link"), 0);
	keys_agree(dir, spec, k1, &n_full, &n_key);
	cr_expect_str_eq(k1, k2, "untracked link and committed link");
	cr_expect_str_neq(k0, k1);
	cr_expect_eq(n_full, 6);
	/* a/, a/b/ and a/b/c/ hold the link: deep.c, other.c, the link
	 * and the top files are listed; gen/ is folded. */
	cr_expect_eq(n_key, 5, "key-only listed %zu", n_key);
	t_write(dir, "shared/t.txt", "t2\n");
	cr_assert_eq(t_git_commit(dir, "target edit"), 0);
	keys_agree(dir, spec, k2, NULL, NULL);
	cr_expect_str_neq(k1, k2, "the link's target changed");
	t_rmtree(dir);
	free(dir);
}

/* The working tree folds as the commit does: an edit deep inside, an
 * untracked file and a mode change show before they are committed. */
Test(graph_source_fold, worktree_edits_change_the_folded_key)
{
	static const char spec[] = "pkg/src/**";
	char *dir = deep_repo(), head[33], k[33];

	keys_agree(dir, spec, head, NULL, NULL);
	t_write(dir, "pkg/src/a/b/c/deep.c", "deep2\n");
	worktree_key(dir, spec, k);
	cr_expect_str_neq(head, k, "unstaged edit");
	sh_ok(dir, "git checkout -q -- pkg/src && echo u > pkg/src/a/u.c");
	worktree_key(dir, spec, k);
	cr_expect_str_neq(head, k, "untracked file");
	sh_ok(dir, "rm pkg/src/a/u.c && chmod +x pkg/src/a/b/other.c");
	worktree_key(dir, spec, k);
	cr_expect_str_neq(head, k, "exec bit");
	sh_ok(dir, "chmod -x pkg/src/a/b/other.c");
	worktree_key(dir, spec, k);
	cr_expect_str_eq(head, k, "clean again");
	t_rmtree(dir);
	free(dir);
}

/* Submodules inside a folded folder: the tree id names their commit. */
Test(graph_source_fold, a_gitlink_inside_a_folder_counts)
{
	static const char spec[] = "pkg/src/**";
	char *dir = deep_repo(), k1[33], k2[33];

	sh_ok(dir, "git update-index --add --cacheinfo "
		   "160000,1111111111111111111111111111111111111111,"
		   "pkg/src/a/sub && git commit -qm sub");
	keys_agree(dir, spec, k1, NULL, NULL);
	sh_ok(dir, "git update-index --cacheinfo "
		   "160000,2222222222222222222222222222222222222222,"
		   "pkg/src/a/sub && git commit -qm bump");
	keys_agree(dir, spec, k2, NULL, NULL);
	cr_expect_str_neq(k1, k2);
	t_rmtree(dir);
	free(dir);
}

/*
 * A tree entry whose mode has the symlink type with other permission
 * bits (120755: written by `git mktree`, or a hostile repository) is
 * checked out by git as a link. libgit2's git_tree_entry_filemode calls
 * it an executable file; ripple must treat it as the link it is, so the
 * folder is not folded and the link's target counts.
 */
Test(graph_source_fold, an_odd_symlink_mode_is_still_a_link)
{
	char *dir = t_git_init(), k1[33], k2[33];
	struct graph_repo *repo = NULL;
	struct pattern_set *s = set_of("pkg/src/**");
	struct graph_source_state st;
	struct graph_oid oid;
	struct error err;
	const char *rev[2] = { "one", "two" };
	char *keys[2] = { k1, k2 };
	size_t i, k;

	sh_ok(dir, "A=$(echo 'int a;' | git hash-object -w --stdin) && "
		   "L=$(printf '../../shared/t.txt' | git hash-object -w "
		   "--stdin) && SRC=$(printf '100644 blob %s\\ta.c\\n120755 "
		   "blob %s\\tl\\n' $A $L | git mktree) && "
		   "PKG=$(printf '040000 tree %s\\tsrc\\n' $SRC | git mktree) "
		   "&& for n in 1 2; do "
		   "T=$(echo t$n | git hash-object -w --stdin) && "
		   "SH=$(printf '100644 blob %s\\tt.txt\\n' $T | git mktree) && "
		   "R=$(printf '040000 tree %s\\tpkg\\n040000 tree %s\\tshared"
		   "\\n' $PKG $SH | git mktree) && "
		   "C=$(git commit-tree -m t$n $R) && "
		   "git update-ref refs/heads/$([ $n = 1 ] && echo one || "
		   "echo two) $C; done");
	error_init(&err);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	for (i = 0; i < 2; i++) {
		cr_assert_eq(graph_repo_resolve(repo, rev[i], &oid, &err), 0,
			     "%s", err.msg);
		cr_assert_eq(graph_source_compute(repo, &oid, s, NULL, &st,
						  &err), 0, "%s", err.msg);
		memcpy(keys[i], st.key_hex, 33);
		cr_assert_eq(st.n_files, 2);
		cr_expect_eq(st.files[1].kind, GRAPH_FILE_SYMLINK);
		cr_expect_str_eq(st.files[1].link_resolved, "shared/t.txt");
		graph_source_state_release(&st);
		cr_assert_eq(graph_source_compute_key(repo, &oid, s, NULL, &st,
						      &err), 0, "%s", err.msg);
		k = st.n_files;
		cr_expect_str_eq(st.key_hex, keys[i], "full and key-only");
		cr_expect_eq(k, 2, "the folder holds a link: walked");
		graph_source_state_release(&st);
	}
	cr_expect_str_neq(k1, k2, "the link's target changed");
	pattern_set_free(s);
	graph_repo_close(repo);
	t_rmtree(dir);
	free(dir);
}

/* The memo id of spec at HEAD (graph_source_memo_id), into out. */
static void
memo_of(const char *dir, const char *spec, char out[33])
{
	struct graph_repo *repo = NULL;
	struct pattern_set *s = set_of(spec);
	struct graph_oid oid;
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	cr_assert_eq(graph_repo_resolve(repo, "HEAD", &oid, &err), 0);
	cr_assert_eq(graph_source_memo_id(repo, &oid, s, out, &err), 0, "%s",
		     err.msg);
	pattern_set_free(s);
	graph_repo_close(repo);
}

/*
 * A set that claims paths inside a submodule (vendor/sm/ and below, where
 * vendor/sm is a gitlink) reads the submodule's checkout: bumping the
 * submodule must change the key (its commit id is claimed), the same by
 * every walk, and the memo id too, or a plan would reuse the old build.
 */
Test(graph_source_fold, a_set_inside_a_submodule_claims_its_gitlink)
{
	static const char *const specs[] = {
		"vendor/sm/**", "vendor/sm/src/**", "vendor/**/*.c",
		"vendor/sm/src/** pkg/src/**", "/vendor/sm",
	};
	char *dir = deep_repo(), k1[33], k2[33], m1[33], m2[33];
	size_t i, n;

	sh_ok(dir, "git update-index --add --cacheinfo "
		   "160000,1111111111111111111111111111111111111111,"
		   "vendor/sm && git commit -qm sub");
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		sh_ok(dir, "git update-index --cacheinfo "
			   "160000,1111111111111111111111111111111111111111,"
			   "vendor/sm && git commit -q --allow-empty -m one");
		keys_agree(dir, specs[i], k1, &n, NULL);
		cr_expect_geq(n, 1, "%s: the gitlink is claimed", specs[i]);
		memo_of(dir, specs[i], m1);
		sh_ok(dir, "git update-index --cacheinfo "
			   "160000,2222222222222222222222222222222222222222,"
			   "vendor/sm && git commit -qm bump");
		keys_agree(dir, specs[i], k2, NULL, NULL);
		memo_of(dir, specs[i], m2);
		cr_expect_str_neq(k1, k2, "%s: the submodule was bumped",
				  specs[i]);
		cr_expect_str_neq(m1, m2, "%s: memo id", specs[i]);
	}
	cr_expect(!changes("pkg/src/**", "git update-index --add --cacheinfo "
			   "160000,1111111111111111111111111111111111111111,"
			   "vendor/sm"), "a submodule the set cannot reach");
	t_rmtree(dir);
	free(dir);
}

/*
 * A legacy mode (100664, written by old git; git checks it out as
 * 100644) in a folder claimed whole: git write-tree of the checkout
 * gives another tree id than the commit's, so the folder is keyed by the
 * canonical id: the commit, the clean working tree and the same content
 * with modern modes share one key (they were three keys apart before).
 */
Test(graph_source_fold, a_legacy_mode_keys_as_git_checks_it_out)
{
	static const char spec[] = "pkg/src/**";
	char *dir = deep_repo(), k0[33], k1[33];

	keys_agree(dir, spec, k0, NULL, NULL);
	sh_ok(dir, "B=$(git ls-tree HEAD:pkg/src/a/b | sed "
		   "'s/^100644 \\(.*\\tother.c\\)$/100664 \\1/' | git mktree) "
		   "&& A=$(printf '040000 tree %s\\tb\\n' $B | git mktree) && "
		   "S=$(git ls-tree HEAD:pkg/src | sed \"s/[0-9a-f]\\{40\\}"
		   "\\ta$/$A\\ta/\" | git mktree) && "
		   "P=$(git ls-tree HEAD:pkg | sed \"s/[0-9a-f]\\{40\\}\\tsrc$/"
		   "$S\\tsrc/\" | git mktree) && "
		   "R=$(git ls-tree HEAD | sed \"s/[0-9a-f]\\{40\\}\\tpkg$/$P"
		   "\\tpkg/\" | git mktree) && "
		   "C=$(git commit-tree -p HEAD -m legacy $R) && "
		   "git cat-file tree $B | grep -qa 100664 && "
		   "git reset -q --hard $C");
	keys_agree(dir, spec, k1, NULL, NULL);
	cr_expect_str_eq(k0, k1, "the same content checked out");
	t_rmtree(dir);
	free(dir);
}

/*
 * An empty folder in a commit (git never writes one, other tools may):
 * a checkout cannot hold it, so the folder is keyed as git write-tree
 * of the checkout would give it, without the empty tree; the commit and
 * its clean working tree share the key, with or without links.
 */
Test(graph_source_fold, an_empty_tree_keys_as_its_checkout)
{
	static const char *const specs[] = { "pkg/src/**", "pkg/**" };
	char *dir = deep_repo(), k0[2][33], k1[33];
	size_t i, step;

	for (step = 0; step < 2; step++) {
		if (step)	/* a link unfolds pkg/src/a */
			sh_ok(dir, "git reset -q --hard HEAD~1 && ln -s b/other.c "
				   "pkg/src/a/l && git add -A && git commit -qm l");
		for (i = 0; i < 2; i++)
			keys_agree(dir, specs[i], k0[i], NULL, NULL);
		sh_ok(dir, "E=$(git mktree </dev/null) && "
			   "A=$( (git ls-tree HEAD:pkg/src/a; printf '040000 tree "
			   "%s\\te\\n' $E) | git mktree) && "
			   "S=$(git ls-tree HEAD:pkg/src | sed \"s/[0-9a-f]\\{40\\}"
			   "\\ta$/$A\\ta/\" | git mktree) && "
			   "P=$( (git ls-tree HEAD:pkg | sed \"s/[0-9a-f]\\{40\\}"
			   "\\tsrc$/$S\\tsrc/\"; printf '040000 tree %s\\tz\\n' $E)"
			   " | git mktree) && "
			   "R=$(git ls-tree HEAD | sed \"s/[0-9a-f]\\{40\\}\\tpkg$/"
			   "$P\\tpkg/\" | git mktree) && "
			   "git reset -q --hard $(git commit-tree -p HEAD -m e $R) "
			   "&& git ls-tree -r -t HEAD | grep -q $E");
		for (i = 0; i < 2; i++) {
			keys_agree(dir, specs[i], k1, NULL, NULL);
			cr_expect_str_eq(k0[i], k1, "%s, step %zu", specs[i],
					 step);
		}
	}
	t_rmtree(dir);
	free(dir);
}

/*
 * graph_source_memo_ids names many sets in one pass, keeping the folder
 * above the last cover: each id must be the one graph_source_memo_id
 * gives the set alone, whatever came before it (covers in one folder, in
 * another and back, at the root, absent, below a file, below a gitlink
 * and below a folder link, and sets of several prefixes).
 */
Test(graph_source_fold, memo_ids_of_a_batch_are_each_sets_own)
{
	static const char *const specs[] = {
		"pkg/src/**", "pkg/package.json", "pkg/src/a/**",
		"pkg/src/a/b/**", "shared/**", "pkg/src/x.c/**",
		"vendor/sm/src/**", "pkg/nope/**", "lnk/in/**",
		"pkg/src/gen/** shared/t.txt", "*.c", "pkg/**",
		"pkg/src/a/b/c/** pkg/src/a/b/other.c", "shared/**",
		"vendor/sm/**", "lnk/**",
	};
	enum { N = sizeof(specs) / sizeof(specs[0]) };
	char *dir = deep_repo(), one[N][33], many[N][33];
	const unsigned char *digests[N];
	const struct strv *lists[N];
	struct strv prefixes[N];
	struct pattern_set *sets[N];
	char *outs[N];
	struct graph_repo *repo = NULL;
	struct graph_oid oid;
	struct error err;
	size_t i;

	sh_ok(dir, "git update-index --add --cacheinfo "
		   "160000,1111111111111111111111111111111111111111,"
		   "vendor/sm && ln -s pkg/src lnk && git add lnk && "
		   "git commit -qm 'gitlink and link'");
	error_init(&err);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	cr_assert_eq(graph_repo_resolve(repo, "HEAD", &oid, &err), 0);
	for (i = 0; i < N; i++) {
		sets[i] = set_of(specs[i]);
		strv_init(&prefixes[i], 1);
		cr_assert_eq(pattern_set_prefixes(sets[i], &prefixes[i], &err),
			     0, "%s", err.msg);
		digests[i] = pattern_set_digest(sets[i]);
		lists[i] = &prefixes[i];
		outs[i] = many[i];
		cr_assert_eq(graph_source_memo_id(repo, &oid, sets[i], one[i],
						  &err), 0, "%s", err.msg);
	}
	cr_assert_eq(graph_source_memo_ids(repo, &oid, N, digests, lists,
					   outs, &err), 0, "%s", err.msg);
	for (i = 0; i < N; i++)
		cr_expect_str_eq(many[i], one[i], "%s", specs[i]);
	cr_expect_str_neq(one[2], one[3], "two covers in one folder");
	for (i = 0; i < N; i++) {
		strv_release(&prefixes[i]);
		pattern_set_free(sets[i]);
	}
	graph_repo_close(repo);
	t_rmtree(dir);
	free(dir);
}

/*
 * Memo ids are what a cache's memo rows are found by: pinned to the ids
 * main gave at 5bcc726, so that a cache written before finds its rows.
 * A short id is hashed in one call, a long one (a cover past the hash's
 * stage) streamed; both are pinned, alone and in a batch.
 */
Test(graph_source_fold, memo_ids_are_pinned)
{
	static const char long_spec[] =
		"pkg/src/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
		"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
		"/cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
		"cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
		"/dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
		"dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
		"/**";
	static const char *const specs[][2] = {
		{ "pkg/src/**", "f37acc483f48b3293b0643065430e219" },
		{ "pkg/src/gen/** shared/t.txt", "52e6cd8c7cc76e6e26995e4db3a7e6ca" },
		{ "lnk/in/**", "fc8a329c263e489c6e9c7ed7620b3abb" },
		{ "vendor/sm/src/**", "07b5867ed78171566220d547e7bc7b97" },
		{ "*.c", "aad45ce1fe3783db097a8319d7acc4b1" },
		{ long_spec, "09b8da981846cad07081c4bd7d31af49" },
	};
	enum { N = sizeof(specs) / sizeof(specs[0]) };
	char *dir = deep_repo(), one[N][33], many[N][33];
	const unsigned char *digests[N];
	const struct strv *lists[N];
	struct strv prefixes[N];
	struct pattern_set *sets[N];
	char *outs[N];
	struct graph_repo *repo = NULL;
	struct graph_oid oid;
	struct error err;
	size_t i;

	sh_ok(dir, "git update-index --add --cacheinfo "
		   "160000,1111111111111111111111111111111111111111,"
		   "vendor/sm && ln -s pkg/src lnk && git add lnk && "
		   "git commit -qm 'gitlink and link'");
	error_init(&err);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	cr_assert_eq(graph_repo_resolve(repo, "HEAD", &oid, &err), 0);
	for (i = 0; i < N; i++) {
		sets[i] = set_of(specs[i][0]);
		strv_init(&prefixes[i], 1);
		cr_assert_eq(pattern_set_prefixes(sets[i], &prefixes[i], &err),
			     0, "%s", err.msg);
		digests[i] = pattern_set_digest(sets[i]);
		lists[i] = &prefixes[i];
		outs[i] = many[i];
		cr_assert_eq(graph_source_memo_id(repo, &oid, sets[i], one[i],
						  &err), 0, "%s", err.msg);
	}
	cr_assert_eq(graph_source_memo_ids(repo, &oid, N, digests, lists,
					   outs, &err), 0, "%s", err.msg);
	for (i = 0; i < N; i++) {
		cr_expect_str_eq(one[i], specs[i][1], "%zu: %s", i, one[i]);
		cr_expect_str_eq(many[i], specs[i][1], "%zu: %s", i, many[i]);
		strv_release(&prefixes[i]);
		pattern_set_free(sets[i]);
	}
	graph_repo_close(repo);
	t_rmtree(dir);
	free(dir);
}
