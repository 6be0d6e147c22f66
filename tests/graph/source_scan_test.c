/* Suite graph_source_scan: the scans of what lies below a tree (no link,
 * height, canonical id) that a store keeps beyond one process
 * (graph_source_cache_set_store). A full walk tells exactly the scans a
 * key-only walk works out; a stored scan stands for its tree, and one
 * that does not hold is not used. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "graph/pattern.h"
#include "graph/repo.h"
#include "graph/source.h"
#include "tests/support/support.h"

#define MAX_SCANS 64

/* A store in memory: what was told, and what get answers. */
struct mem_store {
	unsigned char tree[MAX_SCANS][20];
	struct graph_tree_scan scan[MAX_SCANS];
	size_t n;
	int answer;		/* get answers from the table */
	size_t gets, hits, told_again;
};

static int
mem_get(void *ctx, const unsigned char tree[20], struct graph_tree_scan *out)
{
	struct mem_store *m = ctx;
	size_t i;

	m->gets++;
	for (i = 0; m->answer && i < m->n; i++) {
		if (!memcmp(m->tree[i], tree, 20)) {
			*out = m->scan[i];
			m->hits++;
			return 1;
		}
	}
	return 0;
}

static void
mem_put(void *ctx, const unsigned char tree[20],
	const struct graph_tree_scan *scan)
{
	struct mem_store *m = ctx;
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (!memcmp(m->tree[i], tree, 20)) {
			m->scan[i] = *scan;	/* a better answer */
			m->told_again++;
			return;
		}
	}
	cr_assert_lt(m->n, MAX_SCANS);
	memcpy(m->tree[m->n], tree, 20);
	m->scan[m->n++] = *scan;
}

static void
sh_ok(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);

	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	t_result_release(&r);
}

/*
 * pkg/src holds plain folders three deep, a legacy mode (100664) two
 * deep, an empty folder, a folder holding only an empty one, and a
 * folder with a symlink: every case that moves a canonical id or stops
 * a scan.
 */
static char *
scan_repo(void)
{
	char *dir = t_git_init();

	t_write(dir, "pkg/src/main.c", "int main;\n");
	t_write(dir, "pkg/src/a/b/c/deep.c", "deep\n");
	t_write(dir, "pkg/src/a/b/other.c", "other\n");
	t_write(dir, "pkg/src/lnk/t.c", "t\n");
	t_write(dir, "pkg/package.json", "{}\n");
	cr_assert_eq(t_git_commit(dir, "base"), 0);
	sh_ok(dir, "ln -s t.c pkg/src/lnk/l && git add -A && "
		   "git -c user.name=t -c user.email=t@example.com "
		   "commit -qm link && "
		   "E=$(git mktree </dev/null) && "
		   "O=$(printf '040000 tree %s\\te\\n' $E | git mktree) && "
		   "B=$(git ls-tree HEAD:pkg/src/a/b | sed "
		   "'s/^100644 \\(.*\\tother.c\\)$/100664 \\1/' | git mktree) "
		   "&& A=$(printf '040000 tree %s\\tb\\n' $B | git mktree) && "
		   "S=$( (git ls-tree HEAD:pkg/src | awk -F'\\t' '$2 != \"a\"'; "
		   "printf '040000 tree %s\\ta\\n040000 tree %s\\tempty\\n"
		   "040000 tree %s\\tonly-empty\\n' $A $E $O) | git mktree) && "
		   "P=$(git ls-tree HEAD:pkg | sed \"s/[0-9a-f]\\{40\\}\\tsrc$/"
		   "$S\\tsrc/\" | git mktree) && "
		   "R=$(git ls-tree HEAD | sed \"s/[0-9a-f]\\{40\\}\\tpkg$/$P"
		   "\\tpkg/\" | git mktree) && "
		   "C=$(git -c user.name=t -c user.email=t@example.com "
		   "commit-tree -p HEAD -m odd $R) && "
		   "git update-ref refs/heads/odd $C");
	return dir;
}

/* The key of `pat` at `rev`, full or key-only, through a cache with
 * store m (NULL: none); into key (33 bytes). Returns the walk's code. */
static int
key_with(const char *dir, const char *rev, const char *pat, int key_only,
	 struct mem_store *m, char key[33], struct error *err)
{
	struct graph_repo *repo = NULL;
	struct pattern_set *s = NULL;
	struct graph_source_cache *c = graph_source_cache_new();
	struct graph_scan_store store = { mem_get, mem_put, m };
	struct graph_source_state st;
	struct graph_oid oid;
	int rc;

	cr_assert_not_null(c);
	if (m)
		graph_source_cache_set_store(c, &store);
	cr_assert_eq(pattern_set_compile(&pat, 1, NULL, 0, &s, err), 0);
	cr_assert_eq(graph_repo_open(dir, &repo, err), 0, "%s", err->msg);
	cr_assert_eq(graph_repo_resolve(repo, rev, &oid, err), 0);
	rc = key_only ? graph_source_compute_key(repo, &oid, s, c, &st, err)
		      : graph_source_compute(repo, &oid, s, c, &st, err);
	if (!rc)
		memcpy(key, st.key_hex, 33);
	graph_source_state_release(&st);
	graph_source_cache_free(c);
	pattern_set_free(s);
	graph_repo_close(repo);
	return rc;
}

static size_t
find(const struct mem_store *m, const unsigned char tree[20])
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!memcmp(m->tree[i], tree, 20))
			return i;
	return (size_t)-1;
}

Test(graph_source_scan, a_full_walk_tells_what_a_key_walk_works_out)
{
	static const char pat[] = "pkg/src/**";
	char *dir = scan_repo(), kf[33], kk[33];
	struct mem_store full = { .n = 0 }, keyed = { .n = 0 };
	struct error err;
	size_t i, j, canon_moved = 0;

	error_init(&err);
	cr_assert_eq(key_with(dir, "odd", pat, 0, &full, kf, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(key_with(dir, "odd", pat, 1, &keyed, kk, &err), 0, "%s",
		     err.msg);
	cr_expect_str_eq(kf, kk);
	/* a, a/b, a/b/c, empty, only-empty, only-empty/e (the same empty
	 * tree: told once); not src or lnk (a link below) */
	cr_expect_eq(keyed.n, 5, "key-only walk told %zu", keyed.n);
	cr_expect_eq(full.n, keyed.n, "full walk told %zu", full.n);
	for (i = 0; i < keyed.n; i++) {
		cr_expect_eq(keyed.scan[i].links, 0);
		j = find(&full, keyed.tree[i]);
		cr_assert_neq(j, (size_t)-1, "a tree the full walk missed");
		cr_expect_eq(full.scan[j].height, keyed.scan[i].height);
		cr_expect_eq(memcmp(full.scan[j].canon, keyed.scan[i].canon,
				    20), 0, "canonical ids differ");
		canon_moved += !!memcmp(keyed.scan[i].canon, keyed.tree[i],
					20);
	}
	/* a and a/b (the legacy mode) and only-empty move */
	cr_expect_eq(canon_moved, 3);
	t_rmtree(dir);
	free(dir);
}

Test(graph_source_scan, a_stored_scan_stands_for_its_tree)
{
	static const char pat[] = "pkg/src/**";
	char *dir = scan_repo(), k0[33], k1[33], k2[33];
	struct mem_store m = { .n = 0 };
	struct error err;
	size_t i;

	error_init(&err);
	cr_assert_eq(key_with(dir, "odd", pat, 1, NULL, k0, &err), 0);
	cr_assert_eq(key_with(dir, "odd", pat, 0, &m, k1, &err), 0);
	cr_assert_gt(m.n, 0);
	m.answer = 1;
	cr_assert_eq(key_with(dir, "odd", pat, 1, &m, k1, &err), 0);
	cr_expect_str_eq(k0, k1, "the stored scans give the key");
	cr_expect_gt(m.hits, 0, "the key-only walk never asked the store");
	/* The store is believed: another canonical id is another key. */
	for (i = 0; i < m.n; i++)
		m.scan[i].canon[0] ^= 1;
	cr_assert_eq(key_with(dir, "odd", pat, 1, &m, k2, &err), 0);
	cr_expect_str_neq(k0, k2, "a stored scan was not used");
	t_rmtree(dir);
	free(dir);
}

Test(graph_source_scan, a_stored_scan_out_of_range_is_not_used)
{
	static const char pat[] = "pkg/src/**";
	char *dir = scan_repo(), k0[33], k1[33];
	struct mem_store m = { .n = 0 };
	struct error err;
	size_t i;

	error_init(&err);
	cr_assert_eq(key_with(dir, "odd", pat, 0, &m, k0, &err), 0);
	m.answer = 1;
	for (i = 0; i < m.n; i++) {
		m.scan[i].height = i % 2 ? -1 : 4096;
		m.scan[i].canon[0] ^= 1;	/* another key, were it used */
	}
	cr_assert_eq(key_with(dir, "odd", pat, 1, &m, k1, &err), 0);
	cr_expect_str_eq(k0, k1, "a scan out of range was used");
	cr_expect_gt(m.gets, 0);
	cr_expect_eq(m.told_again, m.n, "the scans worked out again were "
		     "not told");
	t_rmtree(dir);
	free(dir);
}

/* A stored height still bounds the depth, as a scan's own would. */
Test(graph_source_scan, a_stored_height_bounds_the_depth)
{
	static const char pat[] = "pkg/src/**";
	char *dir = scan_repo(), k[33];
	struct mem_store m = { .n = 0 };
	struct error err;
	size_t i;

	error_init(&err);
	cr_assert_eq(key_with(dir, "odd", pat, 0, &m, k, &err), 0);
	m.answer = 1;
	for (i = 0; i < m.n; i++)
		m.scan[i].height = 4095;
	cr_assert_neq(key_with(dir, "odd", pat, 1, &m, k, &err), 0);
	cr_expect(strstr(err.msg, "too deep") != NULL, "%s", err.msg);
	t_rmtree(dir);
	free(dir);
}
