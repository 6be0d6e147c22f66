/*
 * Suite graph_version: versions from tags on repositories made with the git
 * program (fixed identity and dates, so commit ids and the +g<node> parts
 * below are literal), checked against setuptools-scm's documented
 * defaults: guess-next-dev (exact tag -> tag; else next version .devN) and
 * node-and-date (+g<node>, .dYYYYMMDD when dirty).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "base/error.h"
#include "graph/version.h"
#include "tests/support/support.h"

/* 2024-06-01 00:00:00 UTC: the SOURCE_DATE_EPOCH of every case. */
#define DATE_EPOCH 1717200000LL

/*
 * Shell helpers for the scripts: `c MSG [FILE]` commits a change with a
 * date one day per commit on the branch; `t ARGS` tags; `m BRANCH` merges
 * with a fixed date.
 */
#define PRELUDE                                                              \
	"set -e; export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent "            \
	"GIT_AUTHOR_NAME=Test GIT_AUTHOR_EMAIL=test@example.com "            \
	"GIT_COMMITTER_NAME=Test GIT_COMMITTER_EMAIL=test@example.com; "     \
	"dt() { n=$(git rev-list --count HEAD 2>/dev/null || echo 0); "      \
	"echo \"@$((1704067200 + n * 86400)) +0000\"; }; "                   \
	"c() { echo \"$1\" >> \"${2:-f.txt}\"; git add -A; d=$(dt); "        \
	"GIT_AUTHOR_DATE=\"$d\" GIT_COMMITTER_DATE=\"$d\" "                  \
	"git commit -q -m \"$1\"; }; "                                       \
	"t() { GIT_COMMITTER_DATE=\"@1704067200 +0000\" git tag \"$@\"; }; " \
	"m() { d=$(dt); GIT_AUTHOR_DATE=\"$d\" GIT_COMMITTER_DATE=\"$d\" "   \
	"git merge -q --no-ff -m \"merge $1\" \"$1\"; }; "

struct vcase {
	const char *name;
	const char *script;	/* run in a fresh repository */
	const char *repo;	/* subfolder to open, NULL: the repository */
	const char *rev;	/* NULL: HEAD */
	const char *patterns;	/* space-separated globs; NULL: "v*" */
	const char *excludes;	/* space-separated, or NULL */
	const char *prefix;	/* NULL: "v" */
	const char *fallback;
	int pretend;
	unsigned node_length;
	int worktree;
	const char *want;	/* the version; NULL: an error */
	const char *want_msg;	/* part of the error message */
};

static const struct vcase cases[] = {
	/* setuptools-scm: "no distance and clean: {tag}" (exact). */
	{ "exact lightweight tag", "c a; t v1.0.0", NULL, NULL, NULL, NULL,
	  NULL, NULL, 0, 0, 0, "1.0.0", NULL },
	{ "exact annotated tag", "c a; t -a -m rel v1.0.0", NULL, NULL, NULL,
	  NULL, NULL, NULL, 0, 0, 0, "1.0.0", NULL },
	/* guess-next-dev: "Tag 1.0.0 + 3 commits -> 1.0.1.dev3". */
	{ "lightweight tag plus two", "c a; t v1.0.0; c b; c c", NULL, NULL,
	  NULL, NULL, NULL, NULL, 0, 0, 0, "1.0.1.dev2+g3532916b6", NULL },
	{ "annotated tag plus three", "c a; t -a -m rel v1.0.0; c b; c c; c d",
	  NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, "1.0.1.dev3+g100c7dc07", NULL },
	/* _bump_regex: the last number of the text, here the rc number. */
	{ "rc tag bumps the rc number", "c a; t v1.0.0rc1; c b", NULL, NULL,
	  NULL, NULL, NULL, NULL, 0, 0, 0, "1.0.0rc2.dev1+g8b0763c6a", NULL },
	{ "alpha tag bumps the alpha number", "c a; t v2.0.0a3; c b", NULL,
	  NULL, NULL, NULL, NULL, NULL, 0, 0, 0, "2.0.0a4.dev1+g8b0763c6a", NULL },
	{ "post tag bumps the post number", "c a; t v1.0.0.post1; c b; c c",
	  NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0,
	  "1.0.0.post2.dev2+g3532916b6", NULL },
	/* _bump_dev: a .dev0 tag drops its dev part. */
	{ "dev0 tag drops dev", "c a; t v1.1.0.dev0; c b; c c", NULL, NULL,
	  NULL, NULL, NULL, NULL, 0, 0, 0, "1.1.0.dev2+g3532916b6", NULL },
	{ "exact dev0 tag", "c a; t v1.1.0.dev0", NULL, NULL, NULL, NULL,
	  NULL, NULL, 0, 0, 0, "1.1.0.dev0", NULL },
	/* _bump_dev: "choosing custom numbers for the .devX distance". */
	{ "dev3 tag with distance is an error", "c a; t v1.0.0.dev3; c b",
	  NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, NULL,
	  "custom numbers for the .devX distance" },
	{ "exact dev3 tag is its version", "c a; t v1.0.0.dev3", NULL, NULL,
	  NULL, NULL, NULL, NULL, 0, 0, 0, "1.0.0.dev3", NULL },
	/* node-and-date: exact needs a clean tree; dirty adds the date. */
	{ "exact tag dirty", "c a; t v1.0.0; echo x >> f.txt", NULL, NULL,
	  NULL, NULL, NULL, NULL, 0, 0, 1, "1.0.1.dev0+g9ee124b68.d20240601", NULL },
	{ "distance and dirty", "c a; t v1.0.0; c b; c c; echo x >> f.txt",
	  NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 1,
	  "1.0.1.dev2+g3532916b6.d20240601", NULL },
	{ "staged change is dirty", "c a; t v1.0.0; echo y > g.txt; "
	  "git add g.txt", NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 1,
	  "1.0.1.dev0+g9ee124b68.d20240601", NULL },
	/* setuptools-scm: git status --untracked-files=no. */
	{ "untracked file is clean", "c a; t v1.0.0; echo u > new.txt", NULL,
	  NULL, NULL, NULL, NULL, NULL, 0, 0, 1, "1.0.0", NULL },
	{ "dirty without worktree flag is clean",
	  "c a; t v1.0.0; echo x >> f.txt", NULL, NULL, NULL, NULL, NULL,
	  NULL, 0, 0, 0, "1.0.0", NULL },
	{ "side branch tag unreachable",
	  "c a; t v1.0.0; git checkout -q -b side; c s; t v2.0.0; "
	  "git checkout -q main; c b", NULL, NULL, NULL, NULL, NULL, NULL, 0,
	  0, 0, "1.0.1.dev1+g8b0763c6a", NULL },
	{ "merge brings the side tag nearer",
	  "c a; t v1.0.0; git checkout -q -b side; c s1 s.txt; c s2 s.txt; "
	  "t v1.1.0; git checkout -q main; c b; m side", NULL, NULL, NULL,
	  NULL, NULL, NULL, 0, 0, 0, "1.1.1.dev2+g1361752f7", NULL },
	{ "merge tie goes to the highest version",
	  "c a; git checkout -q -b side; c s s.txt; t v1.1.0; "
	  "git checkout -q main; c b; t v1.0.5; m side", NULL, NULL, NULL,
	  NULL, NULL, NULL, 0, 0, 0, "1.1.1.dev2+gb8b724e65", NULL },
	{ "several tags, the nearest wins",
	  "c a; t v1.0.0; c b; t v1.1.0; c c; c d", NULL, NULL, NULL, NULL,
	  NULL, NULL, 0, 0, 0, "1.1.1.dev2+g100c7dc07", NULL },
	{ "nearest wins over highest", "c a; t v2.0.0; c b; t v1.5.0; c c",
	  NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, "1.5.1.dev1+g3532916b6", NULL },
	{ "two tags on one commit: highest",
	  "c a; t v1.0.0; t v1.0.0.post1", NULL, NULL, NULL, NULL, NULL,
	  NULL, 0, 0, 0, "1.0.0.post1", NULL },
	{ "two tags on one commit plus one",
	  "c a; t v1.0.0.post1; t -a -m r v1.0.0; c b", NULL, NULL, NULL,
	  NULL, NULL, NULL, 0, 0, 0, "1.0.0.post2.dev1+g8b0763c6a", NULL },
	{ "rc and final on one commit", "c a; t v2.0.0rc1; t v2.0.0", NULL,
	  NULL, NULL, NULL, NULL, NULL, 0, 0, 0, "2.0.0", NULL },
	{ "excluded tag by name", "c a; t v1.0.0; c b; t v1.1.0; c c", NULL,
	  NULL, NULL, "v1.1.0", NULL, NULL, 0, 0, 0, "1.0.1.dev2+g3532916b6", NULL },
	{ "excluded tag by glob", "c a; t v1.0.0; c b; t v1.1.0; c c", NULL,
	  NULL, NULL, "v1.1.*", NULL, NULL, 0, 0, 0, "1.0.1.dev2+g3532916b6", NULL },
	{ "tag of another line ignored",
	  "c a; t v12.9.0; c b; t v13.0.0; c c", NULL, NULL, "v12.*", NULL,
	  NULL, NULL, 0, 0, 0, "12.9.1.dev2+g3532916b6", NULL },
	{ "several patterns", "c a; t v12.8.3; c b; t v13.0.0; c c", NULL,
	  NULL, "v12.9.* v12.8.*", NULL, NULL, NULL, 0, 0, 0,
	  "12.8.4.dev2+g3532916b6", NULL },
	/* "v*" also matches vcs-versioning-v2.0.0: not of the family. */
	{ "other family matching the glob ignored",
	  "c a; t v1.0.0; c b; t vcs-versioning-v2.0.0; c c", NULL, NULL,
	  NULL, NULL, NULL, NULL, 0, 0, 0, "1.0.1.dev2+g3532916b6", NULL },
	{ "prefixed family", "c a; t cuda-core-v0.7.0; c b; t v13.0.0",
	  NULL, NULL, "cuda-core-v*", NULL, "cuda-core-v", NULL, 0, 0, 0,
	  "0.7.1.dev1+g8b0763c6a", NULL },
	{ "tag not parsing as a version ignored",
	  "c a; t v1.0.0; c b; t v1.x; c c", NULL, NULL, NULL, NULL, NULL,
	  NULL, 0, 0, 0, "1.0.1.dev2+g3532916b6", NULL },
	/* git describe --match is wildmatch without WM_PATHNAME. */
	{ "glob star matches a slash", "c a; t release/1.2.0; c b", NULL,
	  NULL, "rel*", NULL, "release/", NULL, 0, 0, 0, "1.2.1.dev1+g8b0763c6a",
	  NULL },
	/* setuptools-scm >= 9: fallback in the tag's place, all commits. */
	{ "fallback counts every commit", "c a; c b; c c", NULL, NULL, NULL,
	  NULL, NULL, "0.5.2.dev0", 0, 0, 0, "0.5.2.dev3+g3532916b6", NULL },
	{ "fallback release is bumped", "c a; c b; c c", NULL, NULL, NULL,
	  NULL, NULL, "0.5.2", 0, 0, 0, "0.5.3.dev3+g3532916b6", NULL },
	{ "fallback before the first tag of the line",
	  "c a; c b; c c; t v1.0.0; c d", NULL, "HEAD~2", NULL, NULL, NULL,
	  "1.0.0.dev0", 0, 0, 0, "1.0.0.dev2+g8b0763c6a", NULL },
	{ "a tag ends the fallback", "c a; c b; t v1.0.0", NULL, NULL, NULL,
	  NULL, NULL, "1.0.0.dev0", 0, 0, 0, "1.0.0", NULL },
	{ "after the first tag of the line",
	  "c a; c b; t v1.0.0; c c", NULL, NULL, NULL, NULL, NULL,
	  "1.0.0.dev0", 0, 0, 0, "1.0.1.dev1+g3532916b6", NULL },
	{ "no tag and no fallback", "c a; c b", NULL, NULL, NULL, NULL, NULL,
	  NULL, 0, 0, 0, NULL, "no tag of the family is reachable" },
	/* cuda-python section D, case 37: pretend fallback, 7-digit node. */
	{ "D37 pretend before any tag", "c a; c b", NULL, NULL,
	  "v12.9.[1-9]*", NULL, NULL, "12.9.8.dev0", 1, 7, 0,
	  "12.9.8.dev0+g8b0763c", NULL },
	/* D38: older releases of the line do not end the pretend. */
	{ "D38 older releases keep the pretend",
	  "c a; t v12.9.0; c b; t v12.9.7; c c", NULL, NULL, "v12.9.[1-9]*",
	  NULL, NULL, "12.9.8.dev0", 1, 7, 0, "12.9.8.dev0+g3532916", NULL },
	/* D40: a post-release of the fallback's line ends it. */
	{ "D40 post-release ends the pretend",
	  "c a; t v12.9.7; c b; t v12.9.8.post1", NULL, NULL,
	  "v12.9.[1-9]*", NULL, NULL, "12.9.8.dev0", 1, 7, 0,
	  "12.9.8.post1", NULL },
	{ "D40 descendant of the post-release",
	  "c a; t v12.9.8.post1; c b", NULL, NULL, "v12.9.[1-9]*", NULL,
	  NULL, "12.9.8.dev0", 1, 7, 0, "12.9.8.post2.dev1+g8b0763c", NULL },
	{ "pretend ignores dirt", "c a; echo x >> f.txt", NULL, NULL, NULL,
	  NULL, NULL, "12.9.8.dev0", 1, 7, 1, "12.9.8.dev0+g9ee124b", NULL },
	/* D44: an exact tag at HEAD keeps its suffixes. */
	{ "D44 maintenance exact post2", "c a; t v12.9.8.post2", NULL, NULL,
	  "v12.9.[1-9]*", "v12.9.0", NULL, "12.9.8.dev0", 1, 7, 0,
	  "12.9.8.post2", NULL },
	{ "D44 current exact rc2", "c a; t v12.9.8; c b; t v13.4.1rc2", NULL,
	  NULL, "v13.4.*", NULL, NULL, NULL, 0, 0, 0, "13.4.1rc2", NULL },
	{ "revision option takes a tag name", "c a; t v1.0.0; c b", NULL,
	  "v1.0.0", NULL, NULL, NULL, NULL, 0, 0, 0, "1.0.0", NULL },
	{ "node length seven", "c a; t v1.0.0; c b", NULL, NULL, NULL, NULL,
	  NULL, NULL, 0, 7, 0, "1.0.1.dev1+g8b0763c", NULL },
	{ "epoch tag", "c a; t v1!2.0; c b", NULL, NULL, NULL, NULL, NULL,
	  NULL, 0, 0, 0, "1!2.1.dev1+g8b0763c6a", NULL },
	/*
	 * A tag with a local part, or spelled otherwise than its canonical
	 * version, is no tag of a family (issue 17: v13.4.2+local is not
	 * 13.4.2, v13.4.01 not 13.4.1); setuptools-scm's lenient reading
	 * is the tag-regex's (family_test.c).
	 */
	{ "tag with a local part is not of the family",
	  "c a; t v1.0.0+build5", NULL, NULL, NULL, NULL, NULL, NULL, 0, 0,
	  0, NULL, "no tag of the family" },
	{ "non-canonical tag is not of the family", "c a; t v1.0.0-rc1; c b",
	  NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, NULL,
	  "no tag of the family" },
	/* setuptools-scm bumps the last number: 2.0 -> 2.1. */
	{ "short release tag", "c a; t v2.0; c b; c c", NULL, NULL, NULL,
	  NULL, NULL, NULL, 0, 0, 0, "2.1.dev2+g3532916b6", NULL },
	{ "unknown revision", "c a", NULL, "nope", NULL, NULL, NULL, NULL, 0,
	  0, 0, NULL, "unknown revision 'nope'" },
	{ "worktree needs HEAD", "c a; c b", NULL, "HEAD~1", NULL, NULL, NULL,
	  "1.0.0.dev0", 0, 0, 1, NULL, "checked out at HEAD" },
};

/*
 * Shallow clones (CI's fetch-depth: 1): a version from history the clone
 * lacks is an error, never a count from truncated history. libgit2 1.5
 * and 1.6 fail a walk at the shallow boundary; 1.7 and later (Debian 13,
 * Ubuntu 24.04) end it there silently, so these cases pass only because
 * ripple reads the boundary itself (graph/shallow.c). `ninja check` runs
 * them against whatever libgit2 ./configure found; tests/fresh/run.sh runs
 * them on Debian 12 (1.5) and 13 (1.9).
 */
#define SHALLOW_SRC                                                          \
	"mkdir src; cd src; git init -q -b main; "
static const struct vcase shallow_cases[] = {
	{ "shallow clone missing history is an error",
	  SHALLOW_SRC "c a; t v1.0.0; c b; c c; "
	  "cd ..; git clone -q --depth 1 \"file://$PWD/src\" clone", "clone",
	  NULL, NULL, NULL, NULL, "1.0.0.dev0", 0, 0, 0, NULL,
	  "incomplete in this shallow clone" },
	{ "shallow clone without the tags and no fallback says shallow",
	  SHALLOW_SRC "c a; t v1.0.0; c b; c c; "
	  "cd ..; git clone -q --depth 1 \"file://$PWD/src\" clone", "clone",
	  NULL, NULL, NULL, NULL, NULL, 0, 0, 0, NULL,
	  "incomplete in this shallow clone" },
	{ "shallow clone with an exact tag",
	  SHALLOW_SRC "c a; c b; t v1.0.0; "
	  "cd ..; git clone -q --depth 1 \"file://$PWD/src\" clone", "clone",
	  NULL, NULL, NULL, NULL, NULL, 0, 0, 0, "1.0.0", NULL },
	{ "shallow clone with the tag's commit fetched alone, fallback",
	  SHALLOW_SRC "c a; t v1.0.0; c b; c c; cd ..; "
	  "git clone -q --depth 1 \"file://$PWD/src\" clone; cd clone; "
	  "git fetch -q --depth 1 origin tag v1.0.0", "clone", NULL, NULL,
	  NULL, NULL, "2.0.0.dev0", 0, 0, 0, NULL,
	  "incomplete in this shallow clone" },
	{ "shallow clone with the tag's commit fetched alone",
	  SHALLOW_SRC "c a; t v1.0.0; c b; c c; cd ..; "
	  "git clone -q --depth 1 \"file://$PWD/src\" clone; cd clone; "
	  "git fetch -q --depth 1 origin tag v1.0.0", "clone", NULL, NULL,
	  NULL, NULL, NULL, 0, 0, 0, NULL,
	  "incomplete in this shallow clone" },
	{ "shallow clone: an exact tag needs no walk to older tags",
	  SHALLOW_SRC "c a; t v1.0.0; c b; t v1.1.0; cd ..; "
	  "git clone -q --depth 1 \"file://$PWD/src\" clone; cd clone; "
	  "git fetch -q --depth 1 origin tag v1.0.0", "clone", NULL, NULL,
	  NULL, NULL, NULL, 0, 0, 0, "1.1.0", NULL },
};

static size_t
split(char *s, const char **out, size_t max)
{
	size_t n = 0;
	char *save = NULL, *tok;

	if (!s)
		return 0;
	for (tok = strtok_r(s, " ", &save); tok && n < max;
	     tok = strtok_r(NULL, " ", &save))
		out[n++] = tok;
	return n;
}

static void
run_case(const struct vcase *vc)
{
	char *dir = t_tmpdir(), *path, *pats, *excl;
	const char *pv[8], *ev[8];
	struct version_params p;
	struct version_result res;
	struct run_result r;
	struct error err;
	git_repository *repo = NULL;
	size_t n = strlen(PRELUDE) + strlen(vc->script) + 256;
	char *cmd = malloc(n);
	int rc;

	cr_assert(cmd);
	snprintf(cmd, n, "%sgit init -q -b main; %s", PRELUDE, vc->script);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s: script failed: %s", vc->name, r.err);
	t_result_release(&r);
	n = strlen(dir) + 64;
	path = malloc(n);
	snprintf(path, n, "%s/%s", dir, vc->repo ? vc->repo : "");
	cr_assert_eq(git_repository_open(&repo, path), 0, "%s", vc->name);

	pats = vc->patterns ? strdup(vc->patterns) : strdup("v*");
	excl = vc->excludes ? strdup(vc->excludes) : NULL;
	memset(&p, 0, sizeof(p));
	p.patterns = pv;
	p.n_patterns = split(pats, pv, 8);
	p.excludes = ev;
	p.n_excludes = split(excl, ev, 8);
	p.prefix = vc->prefix ? vc->prefix : "v";
	p.fallback = vc->fallback;
	p.fallback_pretend = vc->pretend;
	p.node_length = vc->node_length;
	p.worktree = vc->worktree;
	p.date_epoch = DATE_EPOCH;
	error_init(&err);
	rc = version_compute(repo, vc->rev, &p, &res, &err);
	if (getenv("RIPPLE_VERSION_DUMP"))
		fprintf(stderr, "DUMP %s => %s | %s\n", vc->name,
			rc ? "ERROR" : res.version, rc ? err.msg : res.node);
	if (vc->want) {
		cr_expect_eq(rc, 0, "%s: %s", vc->name, err.msg);
		if (!rc)
			cr_expect_str_eq(res.version, vc->want, "%s",
					 vc->name);
	} else {
		cr_expect_lt(rc, 0, "%s: no error", vc->name);
		cr_expect(strstr(err.msg, vc->want_msg) != NULL,
			  "%s: got '%s'", vc->name, err.msg);
	}
	if (!rc)
		version_result_release(&res);
	git_repository_free(repo);
	free(pats);
	free(excl);
	free(path);
	free(cmd);
	t_rmtree(dir);
	free(dir);
}

static void
setup(void)
{
	git_libgit2_init();
}

static void
teardown(void)
{
	git_libgit2_shutdown();
}

TestSuite(graph_version, .init = setup, .fini = teardown);

Test(graph_version, table_of_repositories)
{
	size_t i;

	cr_assert_geq(sizeof(cases) / sizeof(cases[0]), 40);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

Test(graph_version, shallow_clone_missing_tag_history_is_an_error)
{
	size_t i;

	cr_log_info("libgit2 %d.%d.%d", LIBGIT2_VER_MAJOR, LIBGIT2_VER_MINOR,
		    LIBGIT2_VER_REVISION);
	for (i = 0; i < sizeof(shallow_cases) / sizeof(shallow_cases[0]); i++)
		run_case(&shallow_cases[i]);
}

/* cuda-python section D, case 43: commit id validation for the pretend. */
Test(graph_version, node_from_hex_validates_commit_ids)
{
	char node[VERSION_NODE_MAX];
	struct error err;

	error_init(&err);
	cr_expect_eq(version_node_from_hex("abcdef0123456789", 7, node,
					   sizeof(node), &err), 0);
	cr_expect_str_eq(node, "gabcdef0");
	cr_expect_eq(version_node_from_hex("ABCDEF0123456789", 7, node,
					   sizeof(node), &err), 0);
	cr_expect_str_eq(node, "gabcdef0");
	cr_expect_eq(version_node_from_hex("abcdef", 7, node, sizeof(node),
					   &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "shorter than 7") != NULL, "%s", err.msg);
	error_init(&err);
	cr_expect_eq(version_node_from_hex("abcdefg123", 7, node,
					   sizeof(node), &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "not hexadecimal") != NULL, "%s", err.msg);
	error_init(&err);
	cr_expect_eq(version_node_from_hex("abcdef01", 9, node, sizeof(node),
					   &err), ERROR_INVALID);
}

Test(graph_version, guess_next_follows_setuptools_scm)
{
	static const struct {
		const char *tag, *next;
	} rows[] = {
		{ "1.0.0", "1.0.1" }, { "1.0", "1.1" },
		{ "1.0.0rc1", "1.0.0rc2" }, { "1.0.0.post1", "1.0.0.post2" },
		{ "1.0rc1.post1", "1.0rc1.post2" }, { "1.0.dev0", "1.0" },
		{ "1.0rc1.dev0", "1.0rc1" }, { "1.0.0+local", "1.0.1" },
	};
	struct pep440 v, next;
	char buf[PEP440_TEXT_MAX];
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		cr_assert_eq(pep440_parse(rows[i].tag, &v, NULL), 0);
		cr_assert_eq(version_guess_next(&v, &next, NULL), 0);
		pep440_format(&next, buf, sizeof(buf), NULL);
		cr_expect_str_eq(buf, rows[i].next, "%s", rows[i].tag);
	}
	cr_assert_eq(pep440_parse("1.0.dev1", &v, NULL), 0);
	cr_expect_eq(version_guess_next(&v, &next, NULL), ERROR_INVALID);
}

/* A release number at 2^64 - 1 has no next number: never wrap to 0. */
Test(graph_version, guess_next_refuses_a_number_that_would_wrap)
{
	static const char *const tags[] = {
		"1.18446744073709551615", "1.0rc18446744073709551615",
		"1.0.post18446744073709551615",
	};
	struct pep440 v, next;
	struct error err;
	size_t i;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		error_init(&err);
		cr_assert_eq(pep440_parse(tags[i], &v, NULL), 0, "%s", tags[i]);
		cr_expect_eq(version_guess_next(&v, &next, &err),
			     ERROR_INVALID, "%s", tags[i]);
		cr_expect(strstr(err.msg, "has no next version") != NULL,
			  "%s: %s", tags[i], err.msg);
	}
	cr_assert_eq(pep440_parse("1.18446744073709551614", &v, NULL), 0);
	cr_expect_eq(version_guess_next(&v, &next, NULL), 0);
	cr_expect_eq(next.release[1], 18446744073709551615ULL);
}

/*
 * git warns "ignoring broken ref" and goes on; libgit2's tag list gave
 * an empty list (no error) for one dangling or badly named ref.
 */
Test(graph_version, a_broken_tag_ref_hides_no_other_tag)
{
	char *dir = t_tmpdir();
	const char *pv[] = { "v12.9.*" };
	struct version_params p;
	struct version_result res;
	struct run_result r;
	struct error err;
	git_repository *repo = NULL;
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%sgit init -q -b main; c a; t v12.9.9; "
		 "echo 'ref: refs/heads/nope' > .git/refs/tags/zz; "
		 "git rev-parse HEAD > .git/refs/tags/a..b; "
		 "echo 0000000000000000000000000000000000000000 "
		 "> .git/refs/tags/v12.9.99", PRELUDE);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	cr_assert_eq(git_repository_open(&repo, dir), 0);
	memset(&p, 0, sizeof(p));
	p.patterns = pv;
	p.n_patterns = 1;
	p.prefix = "v";
	error_init(&err);
	cr_assert_eq(version_compute(repo, NULL, &p, &res, &err), 0, "%s",
		     err.msg);
	cr_expect_str_eq(res.version, "12.9.9");
	cr_assert_eq(res.skipped.n, 3);
	cr_expect_str_eq(res.skipped.v[0], "refs/tags/a..b");
	cr_expect_str_eq(res.skipped.v[1], "refs/tags/v12.9.99");
	cr_expect_str_eq(res.skipped.v[2], "refs/tags/zz");
	version_result_release(&res);
	git_repository_free(repo);
	t_rmtree(dir);
	free(dir);
}

Test(graph_version, family_claims_and_release_check)
{
	const char *pats[] = { "v12.9.[1-9]*" };
	const char *excl[] = { "v12.9.5" };
	struct version_params p;
	struct pep440 v;
	struct error err;

	memset(&p, 0, sizeof(p));
	p.patterns = pats;
	p.n_patterns = 1;
	p.excludes = excl;
	p.n_excludes = 1;
	p.prefix = "v";
	cr_expect_eq(version_tag_claims(&p, "v12.9.8.post1", &v, NULL), 1);
	cr_expect(v.has_post && v.post == 1);
	cr_expect_eq(version_tag_claims(&p, "v12.9.0", NULL, NULL), 0);
	cr_expect_eq(version_tag_claims(&p, "v12.9.5", NULL, NULL), 0);
	cr_expect_eq(version_tag_claims(&p, "v13.0.0", NULL, NULL), 0);
	/* Not spelled as the family spells versions: not its tag (issue 17). */
	cr_expect_eq(version_tag_claims(&p, "v12.9.8-1", NULL, NULL), 0);
	error_init(&err);
	cr_expect_eq(version_tag_check_release(&p, "v12.9.8", &v, &err), 0);
	cr_expect_eq(version_tag_check_release(&p, "v12.9.08", NULL, &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "'08' has a leading zero") != NULL, "%s",
		  err.msg);
	error_init(&err);
	cr_expect_eq(version_tag_check_release(&p, "v12.9.5", NULL, &err),
		     ERROR_NOT_FOUND);
	error_init(&err);
	cr_expect_eq(version_tag_check_release(&p, "v12.9.8+x", NULL, &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "local versions cannot be released") != NULL);
}

Test(graph_version, bad_parameters_are_invalid)
{
	struct version_params p;
	struct version_result res;
	struct error err;
	git_repository *repo = NULL;
	char *dir = t_git_init();

	cr_assert_eq(t_git_commit(dir, "a"), 0);
	cr_assert_eq(git_repository_open(&repo, dir), 0);
	memset(&p, 0, sizeof(p));
	p.node_length = 41;
	error_init(&err);
	cr_expect_eq(version_compute(repo, NULL, &p, &res, &err),
		     ERROR_INVALID);
	p.node_length = 0;
	p.fallback = "not a version";
	error_init(&err);
	cr_expect_eq(version_compute(repo, NULL, &p, &res, &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "fallback version") != NULL, "%s", err.msg);
	p.fallback = NULL;
	p.fallback_pretend = 1;
	error_init(&err);
	cr_expect_eq(version_compute(repo, NULL, &p, &res, &err),
		     ERROR_INVALID);
	git_repository_free(repo);
	t_rmtree(dir);
	free(dir);
}

Test(graph_version, result_fields_describe_the_choice)
{
	const char *pats[] = { "v*" };
	struct version_params p;
	struct version_result res;
	struct error err;
	git_repository *repo = NULL;
	char *dir = t_git_init(), *head;
	struct run_result r;

	cr_assert_eq(t_git_commit(dir, "a"), 0);
	r = t_sh(dir, "git tag v3.1.0");
	cr_assert_eq(r.status, 0);
	t_result_release(&r);
	cr_assert_eq(t_git_commit(dir, "b"), 0);
	head = t_git_rev(dir, "HEAD");
	cr_assert_eq(git_repository_open(&repo, dir), 0);
	memset(&p, 0, sizeof(p));
	p.patterns = pats;
	p.n_patterns = 1;
	p.prefix = "v";
	error_init(&err);
	cr_assert_eq(version_compute(repo, NULL, &p, &res, &err), 0, "%s",
		     err.msg);
	cr_expect_str_eq(res.tag, "v3.1.0");
	cr_expect_eq(res.distance, 1);
	cr_expect_eq(res.source, VERSION_SOURCE_TAG);
	cr_expect_str_eq(res.commit, head);
	cr_expect_eq(strncmp(res.node + 1, head, 9), 0);
	cr_expect_eq(strlen(res.node), 10);
	cr_expect_str_eq(version_source_name(res.source), "tag");
	version_result_release(&res);
	git_repository_free(repo);
	free(head);
	t_rmtree(dir);
	free(dir);
}
