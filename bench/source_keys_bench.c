/*
 * Benchmark: the source-set key of every top-level package (pattern
 * "NAME/" then "**") at a commit, cold (fresh handle and memo) and memoized, and
 * incrementally after the parent commit, against `git ls-tree -r` of the
 * same commit measured in the same run. Not a test: prints timings.
 *   build/source-keys-bench REPO [REV]
 */
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/strv.h"
#include "graph/pattern.h"
#include "graph/repo.h"
#include "graph/repo_git.h"
#include "graph/source.h"
#include "base/banned.h"

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void
die(const struct error *err)
{
	fprintf(stderr, "source-keys-bench: %s\n", err->msg);
	exit(3);
}

/* Top-level directories of rev's tree. */
static void
packages(struct graph_repo *repo, const struct graph_oid *c, struct strv *out)
{
	git_tree *t = NULL;
	struct error err;
	size_t i;

	error_init(&err);
	if (graph_repo_commit_tree(repo, c, &t, &err))
		die(&err);
	for (i = 0; i < git_tree_entrycount(t); i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		char pat[1024];

		if (git_tree_entry_type(e) != GIT_OBJECT_TREE)
			continue;
		snprintf(pat, sizeof(pat), "%s/**", git_tree_entry_name(e));
		strv_push(out, pat, NULL);
	}
	git_tree_free(t);
}

typedef int (*compute_fn)(struct graph_repo *, const struct graph_oid *,
			  const struct pattern_set *,
			  struct graph_source_cache *,
			  struct graph_source_state *, struct error *);

/* Keys of every package by `compute` (graph_source_compute, or
 * graph_source_compute_key: what a plan runs); returns the files listed,
 * sets *sum to a checksum. */
static size_t
all_keys(struct graph_repo *repo, const struct graph_oid *c,
	 struct pattern_set **sets, size_t n, struct graph_source_cache *cache,
	 compute_fn compute, unsigned *sum)
{
	struct graph_source_state st;
	struct error err;
	size_t i, files = 0;

	*sum = 0;
	for (i = 0; i < n; i++) {
		error_init(&err);
		if (compute(repo, c, sets[i], cache, &st, &err))
			die(&err);
		files += st.n_files;
		*sum ^= (unsigned)st.key[0] << (i % 24);
		graph_source_state_release(&st);
	}
	return files;
}

static double
git_ls_tree(const char *dir, const char *rev)
{
	char cmd[4096];
	double t0 = now_ms();

	snprintf(cmd, sizeof(cmd), "git -C '%s' ls-tree -r '%s' > /dev/null",
		 dir, rev);
	if (system(cmd) != 0) {
		fprintf(stderr, "source-keys-bench: git ls-tree failed\n");
		exit(3);
	}
	return now_ms() - t0;
}

/* Best of `runs` cold evaluations: a fresh handle and memo each time. */
static double
cold_run(const char *dir, const char *rev, struct pattern_set **sets,
	 size_t n, compute_fn compute, size_t *files, unsigned *sum,
	 size_t runs)
{
	struct graph_repo *repo = NULL;
	struct graph_source_cache *cache;
	struct graph_oid c;
	struct error err;
	double best = 1e30, t0, t;
	size_t r;

	for (r = 0; r < runs; r++) {
		error_init(&err);
		t0 = now_ms();
		if (graph_repo_open(dir, &repo, &err) ||
		    graph_repo_resolve(repo, rev, &c, &err))
			die(&err);
		cache = graph_source_cache_new();
		*files = all_keys(repo, &c, sets, n, cache, compute, sum);
		graph_source_cache_free(cache);
		graph_repo_close(repo);
		t = now_ms() - t0;
		if (t < best)
			best = t;
	}
	return best;
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	const char *rev = argc > 2 ? argv[2] : "HEAD";
	char parent[1024];
	struct graph_repo *repo = NULL;
	struct graph_source_cache *cache;
	struct pattern_set **sets;
	struct strv pats = STRV_INIT;
	struct graph_oid c, p;
	struct error err;
	double t0, cold, nover, keyonly, memo, incr, git = 1e30, g;
	size_t i, files, kfiles, runs = 5;
	unsigned sum, sum2, ksum;
	int have_parent;

	git_libgit2_init();
	for (i = 0; i < runs; i++) {
		g = git_ls_tree(dir, rev);
		if (g < git)
			git = g;
	}
	error_init(&err);
	if (graph_repo_open(dir, &repo, &err) ||
	    graph_repo_resolve(repo, rev, &c, &err))
		die(&err);
	packages(repo, &c, &pats);
	sets = calloc(pats.n, sizeof(*sets));
	for (i = 0; i < pats.n; i++) {
		const char *one = pats.v[i];

		if (pattern_set_compile(&one, 1, NULL, 0, &sets[i], &err))
			die(&err);
	}
	graph_repo_close(repo);
	cold = cold_run(dir, rev, sets, pats.n, graph_source_compute, &files,
			&sum, runs);
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	nover = cold_run(dir, rev, sets, pats.n, graph_source_compute, &files,
			 &sum, runs);
	keyonly = cold_run(dir, rev, sets, pats.n, graph_source_compute_key,
			   &kfiles, &ksum, runs);
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 1);
	if (ksum != sum) {
		fprintf(stderr, "source-keys-bench: key-only keys differ\n");
		return 1;
	}
	if (graph_repo_open(dir, &repo, &err))
		die(&err);
	cache = graph_source_cache_new();
	all_keys(repo, &c, sets, pats.n, cache,
		 graph_source_compute, &sum);

	t0 = now_ms();
	all_keys(repo, &c, sets, pats.n, cache,
		 graph_source_compute, &sum2);
	memo = now_ms() - t0;
	if (sum != sum2) {
		fprintf(stderr, "source-keys-bench: memoized keys differ\n");
		return 1;
	}
	graph_source_cache_free(cache);

	/* Incremental: memo filled at the parent, then evaluate rev. */
	snprintf(parent, sizeof(parent), "%s~1", rev);
	error_init(&err);
	have_parent = graph_repo_resolve(repo, parent, &p, &err) == 0;
	incr = 0;
	if (have_parent) {
		cache = graph_source_cache_new();
		all_keys(repo, &p, sets, pats.n, cache,
		 graph_source_compute, &sum2);
		t0 = now_ms();
		all_keys(repo, &c, sets, pats.n, cache,
		 graph_source_compute, &sum2);
		incr = now_ms() - t0;
		graph_source_cache_free(cache);
	}

	printf("repository        %s at %s\n", dir, rev);
	printf("source sets       %zu (one per top-level package)\n", pats.n);
	printf("files claimed     %zu\n", files);
	printf("git ls-tree -r    %8.1f ms (best of %zu)\n", git, runs);
	printf("cold (open+keys)  %8.1f ms  ratio %.2fx git (best of %zu)\n", cold,
	       cold / git, runs);
	printf("cold, no verify   %8.1f ms  ratio %.2fx git (libgit2 strict hash verification off)\n",
	       nover, nover / git);
	printf("cold, key only    %8.1f ms  ratio %.2fx git (verification off; "
	       "%zu files listed: folders claimed whole are tree ids)\n",
	       keyonly, keyonly / git, kfiles);
	printf("memoized          %8.1f ms  ratio %.2fx git\n", memo,
	       memo / git);
	if (have_parent)
		printf("incremental       %8.1f ms  ratio %.2fx git (memo at %s)\n",
		       incr, incr / git, parent);
	for (i = 0; i < pats.n; i++)
		pattern_set_free(sets[i]);
	free(sets);
	strv_release(&pats);
	graph_repo_close(repo);
	git_libgit2_shutdown();
	return 0;
}
