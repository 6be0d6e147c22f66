/*
 * Suite e2e_realrepos: what real repositories showed (issue 25). Each test
 * builds a small repository in the shape of one of rmm, kvikio, numba-cuda
 * or cuda-python and checks the behaviour a team adopting ripple there
 * would meet: a root at the repository root that runs, versions recorded
 * from the rules and the artifacts, release checks that read what the
 * files say.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

/* Run ripple; assert the exit status; return the result (release it). */
static struct run_result
ripple_expect(const char *dir, int status, const char *const *argv)
{
	struct run_result r = t_ripple(dir, argv);

	cr_assert_eq(r.status, status, "ripple %s: exit %d, expected %d\n"
		     "stdout: %s\nstderr: %s", argv[0], r.status, status,
		     r.out, r.err);
	return r;
}

static json_t *
json_of(const char *text)
{
	json_error_t je;
	json_t *doc = json_loads(text, 0, &je);

	cr_assert_not_null(doc, "bad JSON: %s\n%s", je.text, text);
	return doc;
}

static long
count_of(json_t *plan, const char *what)
{
	return (long)json_integer_value(
		json_object_get(json_object_get(plan, "counts"), what));
}

/*
 * numba-cuda's shape: one root at the repository root, no .gitignore, the
 * rules file untracked beside the sources. ripple's own cache (.ripple/),
 * the untracked rules file and the run's own outputs (dist/) are never
 * inputs: the first run and every run after it run (no "working tree
 * changes claimed input files"), and the second reuses the first's record.
 */
static const char root_dot_rules[] =
	"version: 1\n"
	"roots:\n"
	"  pkg:\n"
	"    path: .\n"
	"    tags: \"v*\"\n"
	"    exclude: [\".github/**\", \"docs/**\"]\n"
	"    tests: []\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: [pkg]}\n"
	"    inputs: [root.sources]\n"
	"    command: \"mkdir -p dist && cat src/a.py > dist/pkg-1.whl\"\n"
	"    outputs: [\"dist/pkg-*.whl\"]\n"
	"  docs:\n"
	"    each: {root: [pkg]}\n"
	"    inputs: [root.sources]\n"
	"    command: \"mkdir -p site && cat src/a.py > site/index.html\"\n"
	"    outputs: [\"site/**\"]\n";

Test(e2e_realrepos, root_at_dot_runs_and_reruns)
{
	char *dir = t_git_init();
	const char *run1[] = { "run", "--rules", "ripple.yml", "--run-id",
			       "r1", NULL };
	const char *run2[] = { "run", "--rules", "ripple.yml", "--run-id",
			       "r2", "--base", "HEAD", NULL };
	const char *plan[] = { "plan", "--rules", "ripple.yml", "--worktree",
			       "--json", NULL };
	struct run_result r;
	json_t *doc;

	t_write(dir, "src/a.py", "print(1)\n");
	t_write(dir, ".github/workflows/ci.yml", "on: push\n");
	cr_assert_eq(t_git_commit(dir, "c1"), 0);
	t_write(dir, "ripple.yml", root_dot_rules);	/* untracked */
	r = ripple_expect(dir, 0, run1);
	t_result_release(&r);
	r = ripple_expect(dir, 0, run2);
	cr_expect(strstr(r.out, "0 built, 2 reused") != NULL, "%s", r.out);
	t_result_release(&r);
	/* The working tree now holds .ripple/, dist/, site/ and ripple.yml:
	 * none of them is a change, claimed or unclaimed. */
	r = ripple_expect(dir, 0, plan);
	doc = json_of(r.out);
	cr_expect(json_is_null(json_object_get(doc, "forced")), "%s", r.out);
	cr_expect_eq(json_array_size(json_object_get(doc, "unclaimed_paths")),
		     0, "%s", r.out);
	json_decref(doc);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * `ripple check` tells a root at '.' that rebuild-all never applies: its
 * folder is the repository, so a path its exclude: leaves out (.github/,
 * docs/) is the root's own choice, not an unclaimed path. Plans agree.
 */
Test(e2e_realrepos, root_at_dot_never_forces_rebuild_all)
{
	char *dir = t_git_init();
	const char *plan[] = { "plan", "--rules", "ripple.yml", "--base",
			       "HEAD~1", "--head", "HEAD",
			       "--assume-base-built", "--json", NULL };
	struct run_result r;
	json_t *doc;

	t_write(dir, "src/a.py", "print(1)\n");
	t_write(dir, ".github/workflows/ci.yml", "on: push\n");
	t_write(dir, ".gitignore", "ripple.yml\n");
	cr_assert_eq(t_git_commit(dir, "c1"), 0);
	t_write(dir, ".github/workflows/ci.yml", "on: pull_request\n");
	cr_assert_eq(t_git_commit(dir, "c2"), 0);
	t_write(dir, "ripple.yml", root_dot_rules);
	r = ripple_expect(dir, 0, plan);
	doc = json_of(r.out);
	cr_expect(json_is_null(json_object_get(doc, "forced")), "%s", r.out);
	cr_expect_eq(count_of(doc, "build"), 0, "%s", r.out);
	json_decref(doc);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

static void
sh_ok(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);

	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	t_result_release(&r);
}

/* A wheel dist/NAME-FILEVER-py3-none-any.whl whose METADATA says METAVER. */
static const char mkwheel_py[] =
	"import sys, zipfile\n"
	"name, filever, metaver = sys.argv[1], sys.argv[2], sys.argv[3]\n"
	"with zipfile.ZipFile(f'dist/{name}-{filever}-py3-none-any.whl',"
	" 'w') as z:\n"
	"    z.writestr(f'{name}-{filever}.dist-info/METADATA',\n"
	"               f'Metadata-Version: 2.1\\nName: {name}\\n'\n"
	"               f'Version: {metaver}\\n\\nlong description\\n')\n";

static char *
record_repo(void)
{
	char *dir = t_git_init();

	t_write(dir, ".gitignore", ".ripple/\ndist/\n");
	t_write(dir, "pkg/a.py", "x = 1\n");
	t_write(dir, "mkwheel.py", mkwheel_py);
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  pkg: {path: pkg, tags: \"v*\"}\n"
		"artifacts:\n"
		"  wheel:\n"
		"    each: {root: [pkg]}\n"
		"    inputs: [root.sources]\n"
		"    command: [\"true\"]\n"
		"    outputs: [\"dist/*.whl\"]\n"
		"    version: \"${root.version}\"\n"
		"  conda:\n"
		"    each: {root: [pkg]}\n"
		"    inputs: [root.sources]\n"
		"    command: [\"true\"]\n"
		"    outputs: [\"dist/linux-64/*.conda\"]\n"
		"    version: \"${root.version}\"\n"
		"releases:\n"
		"  pkg:\n"
		"    each: {root: [pkg]}\n"
		"    tag: root.tags\n"
		"    artifacts: [wheel, conda]\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	sh_ok(dir, "git tag v1.0.5 && mkdir -p dist/linux-64");
	return dir;
}

/*
 * Item 2: `ripple record` stores the version the rule gives the node
 * (${root.version} at the run's commit), checked against what the
 * artifacts say (a wheel's METADATA Version, a conda package's file name),
 * so a release dry run needs no --version; a mismatch is refused.
 */
Test(e2e_realrepos, record_takes_the_version_from_rule_and_artifact)
{
	char *dir = record_repo();
	const char *rec_w[] = { "record", "--run", "t", "--tag", "v1.0.5",
				"--node", "artifact:wheel[root=pkg]",
				"--status", "ok", "--artifact",
				"dist/pkg-1.0.5-py3-none-any.whl", NULL };
	const char *rec_c[] = { "record", "--run", "t", "--node",
				"artifact:conda[root=pkg]", "--status", "ok",
				"--artifact",
				"dist/linux-64/pkg-1.0.5-h1234_0.conda", NULL };
	const char *fin[] = { "record", "--run", "t", "--finish", "ok", NULL };
	const char *rel[] = { "release", "v1.0.5", "--dry-run", NULL };
	struct run_result r;

	sh_ok(dir, "python3 mkwheel.py pkg 1.0.5 1.0.5 && "
		   "echo c > dist/linux-64/pkg-1.0.5-h1234_0.conda");
	r = ripple_expect(dir, 0, rec_w);
	t_result_release(&r);
	r = ripple_expect(dir, 0, rec_c);
	t_result_release(&r);
	r = ripple_expect(dir, 0, fin);
	t_result_release(&r);
	r = ripple_expect(dir, 0, rel);
	cr_expect(strstr(r.out, "2 artifacts at version 1.0.5") != NULL,
		  "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_realrepos, record_refuses_a_version_mismatch)
{
	char *dir = record_repo();
	const char *meta[] = { "record", "--run", "t", "--node",
			       "artifact:wheel[root=pkg]", "--status", "ok",
			       "--artifact", "dist/pkg-1.0.5-py3-none-any.whl",
			       NULL };
	const char *opt[] = { "record", "--run", "t", "--node",
			      "artifact:conda[root=pkg]", "--status", "ok",
			      "--version", "1.0.6", NULL };
	const char *conda[] = { "record", "--run", "t", "--node",
				"artifact:conda[root=pkg]", "--status", "ok",
				"--artifact",
				"dist/linux-64/pkg-1.0.4-h1234_0.conda", NULL };
	const char *runs[] = { "runs", NULL };
	struct run_result r;

	sh_ok(dir, "python3 mkwheel.py pkg 1.0.5 1.0.0 && "
		   "echo c > dist/linux-64/pkg-1.0.4-h1234_0.conda");
	r = ripple_expect(dir, 2, meta);
	cr_expect(strstr(r.err, "METADATA") && strstr(r.err, "1.0.0") &&
		  strstr(r.err, "1.0.5"), "%s", r.err);
	t_result_release(&r);
	r = ripple_expect(dir, 2, opt);
	cr_expect(strstr(r.err, "--version 1.0.6") != NULL, "%s", r.err);
	t_result_release(&r);
	r = ripple_expect(dir, 2, conda);
	cr_expect(strstr(r.err, "1.0.4") != NULL, "%s", r.err);
	t_result_release(&r);
	r = ripple_expect(dir, 0, runs);
	cr_expect(strstr(r.out, " t ") == NULL, "nothing recorded: %s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 3: a wheel named 1.0.5 whose METADATA says 1.0.0 is refused by the
 * release check though no require-meta names Version; conda packages of
 * two platforms share a file name in their subdir folders without being
 * duplicates.
 */
Test(e2e_realrepos, release_checks_metadata_version_and_conda_subdirs)
{
	char *dir = t_git_init();
	const char *run[] = { "run", "release:pkg[root=pkg]", "--tag",
			      "v1.0.5", "--run-id", "t", "--platform",
			      "linux-64", NULL };
	const char *run2[] = { "run", "release:pkg[root=pkg]", "--tag",
			       "v1.0.5", "--run-id", "t", "--platform",
			       "linux-aarch64", NULL };
	const char *rel[] = { "release", "v1.0.5", "--dry-run", NULL };
	struct run_result r;

	t_write(dir, ".gitignore", ".ripple/\ndist/\n");
	t_write(dir, "pkg/a.py", "x = 1\n");
	t_write(dir, "mkwheel.py", mkwheel_py);
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  pkg: {path: pkg, tags: \"v*\"}\n"
		"axes:\n"
		"  platform: [linux-64, linux-aarch64]\n"
		"artifacts:\n"
		"  wheel:\n"
		"    each: {root: [pkg]}\n"
		"    inputs: [root.sources]\n"
		"    command: [sh, -c, \"mkdir -p dist && python3 mkwheel.py "
		"pkg $$RIPPLE_VERSION $$(cat pkg/META)\"]\n"
		"    outputs: [\"dist/*.whl\"]\n"
		"    version: \"${root.version}\"\n"
		"  conda:\n"
		"    each: {root: [pkg], platform: axes.platform}\n"
		"    inputs: [root.sources]\n"
		"    command: [sh, -c, \"mkdir -p dist/${platform} && echo "
		"${platform} > dist/${platform}/pkg-1.0.5-h0_0.conda\"]\n"
		"    outputs: [\"dist/${platform}/*.conda\"]\n"
		"    version: \"${root.version}\"\n"
		"releases:\n"
		"  pkg:\n"
		"    each: {root: [pkg]}\n"
		"    tag: root.tags\n"
		"    artifacts: [wheel, conda]\n");
	t_write(dir, "pkg/META", "1.0.0\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	sh_ok(dir, "git tag v1.0.5");
	r = ripple_expect(dir, 0, run);
	t_result_release(&r);
	r = ripple_expect(dir, 0, run2);
	t_result_release(&r);
	r = ripple_expect(dir, 1, rel);
	cr_expect(strstr(r.out, "METADATA Version '1.0.0' is not the tag's "
			 "'1.0.5'") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "duplicate") == NULL ||
		  strstr(r.out, "0 duplicate") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "ok    artifacts     3 expected artifacts "
			 "recorded ok") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 4: a RAPIDS project whose major is 0 (v0.51.00, v0.52.00a):
 * `version` finds the tag at the very commit, and a tag of the family's
 * patterns spelled otherwise is reported as a spelling problem, not as
 * "no configured release line matches".
 */
Test(e2e_realrepos, rapids_major_zero_tags)
{
	char *dir = t_git_init();
	const char *ver[] = { "version", "ucxx", "--rev", "v0.52.00a", NULL };
	const char *rel[] = { "release", "v0.52.0", "--dry-run", NULL };
	struct run_result r;

	t_write(dir, ".gitignore", ".ripple/\n");
	t_write(dir, "VERSION", "0.52.00\n");
	t_write(dir, "cpp/a.cpp", "int x;\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  ucxx:\n"
		"    path: cpp\n"
		"    tags: \"v0.*\"\n"
		"    tag-prefix: v\n"
		"    tag-spelling: zero-padded\n"
		"    version-source: file+tags\n"
		"    version-file: VERSION\n"
		"artifacts:\n"
		"  lib:\n"
		"    each: {root: [ucxx]}\n"
		"    inputs: [root.sources]\n"
		"    command: [\"true\"]\n"
		"releases:\n"
		"  ucxx:\n"
		"    each: {root: [ucxx]}\n"
		"    tag: root.tags\n"
		"    artifacts: [lib]\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	sh_ok(dir, "git tag v0.52.00a && git tag v0.52.0");
	r = ripple_expect(dir, 0, ver);
	cr_expect_str_eq(r.out, "0.52.0a0\n");
	t_result_release(&r);
	r = ripple_expect(dir, 1, rel);
	cr_expect(strstr(r.out, "no configured release line") == NULL,
		  "%s", r.out);
	cr_expect(strstr(r.out, "not spelled zero-padded") != NULL &&
		  strstr(r.out, "0.52.00") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 5 (rmm 719ed626 and 22f46802): with version-source file+tags, a
 * commit after the final tag v26.06.00 on release/26.06 is 26.6.0rc1 as
 * RAPIDS' rapids-generate-version numbers it ({base}rc{distance} after a
 * tag without a stage), not 26.6.0a1 like the commit after v26.06.00a on
 * main: two commits, two versions (each with its +g<node>).
 */
/* `got` is "PUB+g<first 9 hex digits of REV>\n" (off a tag, the commit's
 * id tells commits at one distance apart: e2e_dev_versions). */
static void
expect_dev(const char *dir, const char *rev, const char *got, const char *pub)
{
	char *id = t_git_rev(dir, rev), want[128];

	snprintf(want, sizeof(want), "%s+g%.9s\n", pub, id);
	cr_expect_str_eq(got, want, "version at %s", rev);
	free(id);
}

Test(e2e_realrepos, file_tags_numbers_a_release_branch_after_a_final_tag)
{
	char *dir = t_git_init();
	const char *on_main[] = { "version", "rmm", "--rev", "main", NULL };
	const char *on_rel[] = { "version", "rmm", "--rev", "release/26.06",
				 NULL };
	const char *at_tag[] = { "version", "rmm", "--rev", "v26.06.00",
				 NULL };
	struct run_result r;

	t_write(dir, "VERSION", "26.06.00\n");
	t_write(dir, "cpp/a.cpp", "int x;\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  rmm:\n"
		"    path: cpp\n"
		"    tags: [\"v[0-9][0-9].[0-9][0-9].[0-9][0-9]\", "
		"\"v[0-9][0-9].[0-9][0-9].00a\"]\n"
		"    tag-prefix: v\n"
		"    tag-spelling: zero-padded\n"
		"    version-source: file+tags\n"
		"    version-file: VERSION\n");
	cr_assert_eq(t_git_commit(dir, "open 26.06"), 0);
	sh_ok(dir, "git branch -M main && git tag v26.06.00a && "
		   "git branch release/26.06");
	t_write(dir, "cpp/a.cpp", "int y;\n");
	cr_assert_eq(t_git_commit(dir, "main work"), 0);
	sh_ok(dir, "git checkout -q release/26.06 && echo 'int w;' > cpp/c.cpp "
		   "&& git add -A && git commit -qm fix && git tag v26.06.00 && "
		   "echo 'int z;' > cpp/b.cpp && git add -A && "
		   "git commit -qm 'after the final' && git checkout -q main");
	r = ripple_expect(dir, 0, on_main);
	expect_dev(dir, "main", r.out, "26.6.0a1");
	t_result_release(&r);
	r = ripple_expect(dir, 0, on_rel);
	expect_dev(dir, "release/26.06", r.out, "26.6.0rc1");
	t_result_release(&r);
	r = ripple_expect(dir, 0, at_tag);
	cr_expect_str_eq(r.out, "26.6.0\n");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 6 (cuda-core-v0.5.1, v12.9.5): a maintenance release cut from a
 * backport branch whose notes were written on main. `notes-from:` says
 * where the line's notes live: the tagged tree, else main.
 */
Test(e2e_realrepos, notes_from_names_where_a_line_keeps_its_notes)
{
	char *dir = t_git_init();
	const char *rec[] = { "record", "--run", "t1", "--tag", "v1.0.1",
			      "--rev", "v1.0.1", "--node", "*", "--status",
			      "ok", NULL };
	const char *fin[] = { "record", "--run", "t1", "--finish", "ok",
			      NULL };
	const char *rec2[] = { "record", "--run", "t2", "--tag", "v1.0.2",
			       "--rev", "v1.0.2", "--node", "*", "--status",
			       "ok", NULL };
	const char *fin2[] = { "record", "--run", "t2", "--finish", "ok",
			       NULL };
	const char *rel[] = { "release", "v1.0.1", "--dry-run", NULL };
	const char *rel2[] = { "release", "v1.0.2", "--dry-run", NULL };
	struct run_result r;

	t_write(dir, ".gitignore", ".ripple/\n");
	t_write(dir, "pkg/a.py", "x = 1\n");
	t_write(dir, "pkg/notes/1.0.0.rst", "first\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  pkg: {path: pkg, tags: \"v*\"}\n"
		"artifacts:\n"
		"  lib:\n"
		"    each: {root: [pkg]}\n"
		"    inputs: [root.sources]\n"
		"    command: [\"true\"]\n"
		"    version: \"${root.version}\"\n"
		"releases:\n"
		"  pkg:\n"
		"    each: {root: [pkg]}\n"
		"    tag: root.tags\n"
		"    artifacts: [lib]\n"
		"    notes: \"${root.path}/notes/${version}.rst\"\n"
		"    notes-from: [tag, main]\n");
	cr_assert_eq(t_git_commit(dir, "1.0.0"), 0);
	sh_ok(dir, "git branch -M main && git tag v1.0.0 && "
		   "git checkout -q -b maint && echo 'x = 2' > pkg/a.py && "
		   "git commit -qam fix && git tag v1.0.1 && "
		   "echo 'x = 3' > pkg/a.py && git commit -qam fix2 && "
		   "git tag v1.0.2 && git checkout -q main");
	t_write(dir, "pkg/notes/1.0.1.rst", "the backport's notes\n");
	cr_assert_eq(t_git_commit(dir, "notes of 1.0.1"), 0);
	r = ripple_expect(dir, 0, rec);
	t_result_release(&r);
	r = ripple_expect(dir, 0, fin);
	t_result_release(&r);
	r = ripple_expect(dir, 0, rel);
	cr_expect(strstr(r.out, "ok    notes         pkg/notes/1.0.1.rst "
			 "(21 bytes, from main)") != NULL, "%s", r.out);
	t_result_release(&r);
	r = ripple_expect(dir, 0, rec2);
	t_result_release(&r);
	r = ripple_expect(dir, 0, fin2);
	t_result_release(&r);
	r = ripple_expect(dir, 1, rel2);
	cr_expect(strstr(r.out, "FAIL  notes         missing: "
			 "pkg/notes/1.0.2.rst is not in the tagged tree nor "
			 "in main") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 7: a shallow clone that holds the family's tag computes the version
 * (CI checks out with fetch-depth); one that lacks it is still refused as
 * incomplete, and so is one whose walk from the commit runs into the cut.
 */
Test(e2e_realrepos, shallow_clone_holding_the_tag_has_a_version)
{
	char *dir = t_git_init();
	struct run_result r;
	int i;

	t_write(dir, "r.yml", "version: 1\nroots:\n  pkg: {path: pkg, "
			      "tags: \"v*\"}\n");
	sh_ok(dir, "mkdir src && cd src && git init -q && "
		   "git config user.email t@e && git config user.name t");
	for (i = 1; i <= 6; i++) {
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "cd src && mkdir -p pkg && echo %d "
			 "> pkg/a && git add -A && git commit -qm c%d%s", i, i,
			 i == 3 ? " && git tag v1.0.3" : "");
		sh_ok(dir, cmd);
	}
	/* A merge above the tag: the side branch forks after it. */
	sh_ok(dir, "cd src && git checkout -q -b side HEAD~1 && echo s > "
		   "pkg/s && git add -A && git commit -qm s && git checkout "
		   "-q - && git merge -q --no-edit side");
	sh_ok(dir, "git clone -q --depth 5 file://$PWD/src d5 && "
		   "git clone -q --depth 2 file://$PWD/src d2 && "
		   "git -C src describe --tags > want");
	r = ripple_expect(dir, 0, (const char *const[]){ "-C", "d5", "version",
		"pkg", "--rules", "../r.yml", NULL });
	cr_expect(strncmp(r.out, "1.0.4.dev5+g", 12) == 0, "%s", r.out);
	t_result_release(&r);
	r = t_ripple(dir, (const char *const[]){ "-C", "d2", "version", "pkg",
		"--rules", "../r.yml", NULL });
	cr_expect_neq(r.status, 0, "%s", r.out);
	cr_expect(strstr(r.err, "incomplete in this shallow clone") != NULL,
		  "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* Item 7: "no tag reachable" names the root and its tag globs. */
Test(e2e_realrepos, no_tag_reachable_names_root_and_globs)
{
	char *dir = t_git_init();
	const char *ver[] = { "version", "core", NULL };
	struct run_result r;

	t_write(dir, "ripple.yml", "version: 1\nroots:\n  core: {path: core, "
				   "tags: [\"cuda-core-v*\", \"core-*\"]}\n");
	t_write(dir, "core/a", "x\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	r = ripple_expect(dir, 2, ver);
	cr_expect(strstr(r.err, "root 'core'") &&
		  strstr(r.err, "'cuda-core-v*', 'core-*'"), "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 7: a base of forty zeros (GitHub's `before` on a branch's first
 * push) is no commit: said so, in a shallow clone too, never blamed on
 * the clone being shallow.
 */
Test(e2e_realrepos, zero_base_is_not_blamed_on_shallowness)
{
	char *dir = t_git_init();
	const char *plan[] = { "-C", "d1", "plan", "--base",
			       "0000000000000000000000000000000000000000",
			       NULL };
	struct run_result r;

	t_write(dir, "src/ripple.yml", "version: 1\nartifacts:\n  a:\n"
				       "    command: [\"true\"]\n");
	sh_ok(dir, "cd src && git init -q && git config user.email t@e && "
		   "git config user.name t && git add -A && git commit -qm a "
		   "&& echo b > b && git add -A && git commit -qm b && cd .. "
		   "&& git clone -q --depth 1 file://$PWD/src d1");
	r = ripple_expect(dir, 2, plan);
	cr_expect(strstr(r.err, "shallow") == NULL, "%s", r.err);
	cr_expect(strstr(r.err, "all-zero") != NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* Item 7: `runs --ref 12.9.x` finds the runs of refs/heads/12.9.x. */
Test(e2e_realrepos, runs_ref_matches_short_branch_names)
{
	char *dir = t_git_init();
	const char *rec[] = { "record", "--run", "b1", "--ref",
			      "refs/heads/12.9.x", "--node", "*", "--status",
			      "ok", NULL };
	const char *rec2[] = { "record", "--run", "m1", "--ref",
			       "refs/heads/main", "--node", "*", "--status",
			       "ok", NULL };
	const char *runs[] = { "runs", "--ref", "12.9.x", NULL };
	const char *full[] = { "runs", "--ref", "refs/heads/12.9.x", NULL };
	struct run_result r;

	t_write(dir, ".gitignore", ".ripple/\n");
	t_write(dir, "ripple.yml", "version: 1\nartifacts:\n  a:\n"
				   "    command: [\"true\"]\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	r = ripple_expect(dir, 0, rec);
	t_result_release(&r);
	r = ripple_expect(dir, 0, rec2);
	t_result_release(&r);
	r = ripple_expect(dir, 0, runs);
	cr_expect(strstr(r.out, "b1 ") && !strstr(r.out, "m1 "), "%s", r.out);
	t_result_release(&r);
	r = ripple_expect(dir, 0, full);
	cr_expect(strstr(r.out, "b1 ") && !strstr(r.out, "m1 "), "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* Item 7: `gate` never hints at --worktree, which it refuses. */
Test(e2e_realrepos, gate_does_not_hint_the_worktree_it_refuses)
{
	char *dir = t_git_init();
	const char *gate[] = { "gate", NULL };
	struct run_result r;

	t_write(dir, "a", "x\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	t_write(dir, "ripple.yml", "version: 1\nartifacts:\n  a:\n"
				   "    command: [\"true\"]\n");
	r = ripple_expect(dir, 2, gate);
	cr_expect(strstr(r.err, "--worktree") == NULL, "%s", r.err);
	cr_expect(strstr(r.err, "--rules") != NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 7: same-content over a symlink (cuda_python/LICENSE was a link to
 * ../LICENSE) says that one side is a link: its blob is the link's target
 * text, not the file it points to.
 */
Test(e2e_realrepos, same_content_says_one_side_is_a_link)
{
	char *dir = t_git_init();
	const char *check[] = { "check", NULL };
	struct run_result r;

	t_write(dir, "LICENSE", "licence text\n");
	t_write(dir, "ripple.yml", "version: 1\nchecks:\n"
				   "  top: {same-content: [LICENSE, "
				   "py/LICENSE]}\n");
	sh_ok(dir, "mkdir py && ln -s ../LICENSE py/LICENSE");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	r = ripple_expect(dir, 2, check);
	cr_expect(strstr(r.err, "'py/LICENSE' is a symlink to '../LICENSE'")
		  != NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 7: a toolkit pinned MAJOR.MINOR where the repository only says
 * that (RAPIDS dependencies.yaml: cuda: "12.9"), and a drift check that
 * reads `major.minor` of a MAJOR.MINOR.PATCH pin.
 */
Test(e2e_realrepos, toolkit_pins_major_minor_and_drift_reads_it)
{
	char *dir = t_git_init();
	const char *check[] = { "check", NULL };
	struct run_result r;

	t_write(dir, "dependencies.yaml", "cuda: {short: \"12.9\", "
					  "long: \"13.0\"}\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"toolkits:\n"
		"  cu12: {version: \"12.9\"}\n"
		"  cu13: {version: \"13.0.2\"}\n"
		"checks:\n"
		"  short:\n"
		"    - {rule: toolkits.cu12.version}\n"
		"    - {file: dependencies.yaml, key: cuda.short}\n"
		"  long:\n"
		"    - {rule: toolkits.cu13.major.minor}\n"
		"    - {file: dependencies.yaml, key: cuda.long}\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	r = ripple_expect(dir, 0, check);
	cr_expect(strstr(r.out, "2 checks (2 agree)") != NULL, "%s%s", r.out,
		  r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 7: a test that needs a package whose own rule needs another root's
 * package (rmm's conda Python tests install librmm too) must need that
 * one as well, or early cutoff reuses it past a change: `check` warns.
 */
Test(e2e_realrepos, check_warns_of_a_test_missing_a_runtime_package)
{
	char *dir = t_git_init();
	const char *check[] = { "check", NULL };
	struct run_result r;

	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  lib: {path: cpp}\n"
		"  py: {path: python}\n"
		"artifacts:\n"
		"  lib-conda:\n"
		"    each: {root: [lib]}\n"
		"    command: [\"true\"]\n"
		"  py-conda:\n"
		"    each: {root: [py]}\n"
		"    needs: [{node: lib-conda, where: {root: lib}}]\n"
		"    command: [\"true\"]\n"
		"tests:\n"
		"  py-tests:\n"
		"    each: {root: [py]}\n"
		"    needs: [py-conda]\n"
		"    command: [\"true\"]\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	r = ripple_expect(dir, 0, check);
	cr_expect(strstr(r.err, "ripple.yml:14:3: warning: test 'py-tests' "
			 "needs 'py-conda', which needs 'lib-conda'") != NULL,
		  "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 8: a version group rebuilds a member only to re-version it. When a
 * member's record already carries the version the group has now (a
 * version file unchanged between the commits, as numba-cuda's), the
 * metapackage's own change rebuilds it alone.
 */
Test(e2e_realrepos, version_group_rebuilds_only_what_needs_a_new_version)
{
	char *dir = t_git_init();
	const char *run[] = { "run", "--run-id", "r1", NULL };
	const char *plan[] = { "plan", "--base", "HEAD~1", "--json", NULL };
	struct run_result r;
	json_t *doc, *n;
	size_t i;

	t_write(dir, ".gitignore", ".ripple/\ndist/\n");
	t_write(dir, "VERSION", "1.0.0\n");
	t_write(dir, "lib/a.c", "int a;\n");
	t_write(dir, "meta/README", "readme 1\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  lib: {path: lib, version-source: file, version-file: VERSION}\n"
		"  meta: {path: meta, version-source: file, "
		"version-file: VERSION}\n"
		"artifacts:\n"
		"  lib-wheel:\n"
		"    each: {root: [lib]}\n"
		"    inputs: [root.sources]\n"
		"    command: \"mkdir -p dist && cat lib/a.c > dist/lib.whl\"\n"
		"    outputs: [dist/lib.whl]\n"
		"    version: \"${root.version}\"\n"
		"    version-group: pinned\n"
		"  meta-wheel:\n"
		"    each: {root: [meta]}\n"
		"    inputs: [root.sources]\n"
		"    command: \"mkdir -p dist && cat meta/README > "
		"dist/meta.whl\"\n"
		"    outputs: [dist/meta.whl]\n"
		"    version: \"${root.version}\"\n"
		"    version-group: pinned\n");
	cr_assert_eq(t_git_commit(dir, "c1"), 0);
	r = ripple_expect(dir, 0, run);
	t_result_release(&r);
	t_write(dir, "meta/README", "readme 2\n");
	cr_assert_eq(t_git_commit(dir, "c2"), 0);
	r = ripple_expect(dir, 0, plan);
	doc = json_of(r.out);
	json_array_foreach(json_object_get(doc, "nodes"), i, n) {
		const char *id = json_string_value(json_object_get(n, "id"));
		const char *d = json_string_value(json_object_get(n,
							"decision"));

		if (strstr(id, "lib-wheel"))
			cr_expect_str_eq(d, "reuse", "%s", r.out);
		if (strstr(id, "meta-wheel"))
			cr_expect_str_eq(d, "build", "%s", r.out);
	}
	json_decref(doc);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* A wheel of pkg/a.py whose METADATA's long description is pkg/README. */
static const char mkreadme_wheel_py[] =
	"import zipfile, os\n"
	"os.makedirs('dist', exist_ok=True)\n"
	"readme = open('pkg/README').read()\n"
	"with zipfile.ZipFile('dist/pkg-1.0-py3-none-any.whl', 'w') as z:\n"
	"    z.writestr('pkg/a.py', open('pkg/a.py').read())\n"
	"    z.writestr('pkg-1.0.dist-info/METADATA',\n"
	"               'Metadata-Version: 2.1\\nName: pkg\\nVersion: 1.0\\n'\n"
	"               'Description-Content-Type: text/markdown\\n\\n'\n"
	"               + readme)\n"
	"    z.writestr('pkg-1.0.dist-info/RECORD', str(hash(readme)))\n";

static const char *
cutoff_rules(int payload)
{
	return payload
		? "version: 1\n"
		  "roots:\n"
		  "  pkg: {path: pkg, exclude: [], tests: []}\n"
		  "artifacts:\n"
		  "  wheel:\n"
		  "    each: {root: [pkg]}\n"
		  "    inputs: [root.sources]\n"
		  "    command: [python3, mkwheel.py]\n"
		  "    outputs: [\"dist/*.whl\"]\n"
		  "    cutoff: payload\n"
		  "tests:\n"
		  "  gpu-tests:\n"
		  "    each: {root: [pkg]}\n"
		  "    needs: [wheel]\n"
		  "    command: \"echo ran >> ran.log\"\n"
		: "version: 1\n"
		  "roots:\n"
		  "  pkg: {path: pkg, exclude: [], tests: []}\n"
		  "artifacts:\n"
		  "  wheel:\n"
		  "    each: {root: [pkg]}\n"
		  "    inputs: [root.sources]\n"
		  "    command: [python3, mkwheel.py]\n"
		  "    outputs: [\"dist/*.whl\"]\n"
		  "tests:\n"
		  "  gpu-tests:\n"
		  "    each: {root: [pkg]}\n"
		  "    needs: [wheel]\n"
		  "    command: \"echo ran >> ran.log\"\n";
}

/*
 * Item 9: a README edit changes only the wheel's long description; with
 * `cutoff: payload` the rebuilt wheel's payload digest is the old one and
 * its tests are cut off. Without it they run; a payload change runs them.
 */
Test(e2e_realrepos, cutoff_payload_sees_through_the_long_description)
{
	int payload;

	for (payload = 0; payload <= 1; payload++) {
		char *dir = t_git_init();
		const char *run1[] = { "run", "--run-id", "r1", NULL };
		const char *run2[] = { "run", "--run-id", "r2", "--base",
				       "HEAD~1", NULL };
		const char *run3[] = { "run", "--run-id", "r3", "--base",
				       "HEAD~1", NULL };
		struct run_result r;

		t_write(dir, ".gitignore", ".ripple/\ndist/\nran.log\n");
		t_write(dir, "mkwheel.py", mkreadme_wheel_py);
		t_write(dir, "pkg/a.py", "x = 1\n");
		t_write(dir, "pkg/README", "# pkg\n");
		t_write(dir, "ripple.yml", cutoff_rules(payload));
		cr_assert_eq(t_git_commit(dir, "c1"), 0);
		r = ripple_expect(dir, 0, run1);
		t_result_release(&r);
		t_write(dir, "pkg/README", "# pkg\n\nBetter words.\n");
		cr_assert_eq(t_git_commit(dir, "readme"), 0);
		r = ripple_expect(dir, 0, run2);
		if (payload)
			cr_expect(strstr(r.out, "1 built, 1 reused (1 cut "
					 "off), 0 tested") != NULL, "%s",
				  r.out);
		else
			cr_expect(strstr(r.out, "1 built, 0 reused (0 cut "
					 "off), 1 tested") != NULL, "%s",
				  r.out);
		t_result_release(&r);
		t_write(dir, "pkg/a.py", "x = 2\n");
		cr_assert_eq(t_git_commit(dir, "code"), 0);
		r = ripple_expect(dir, 0, run3);
		cr_expect(strstr(r.out, "1 built, 0 reused (0 cut off), 1 "
				 "tested") != NULL, "%s", r.out);
		t_result_release(&r);
		t_rmtree(dir);
		free(dir);
	}
}

/*
 * Item 4: an alpha tag (v26.08.00a) of a root whose release takes finals
 * only is said to be the root's tag that the release's glob leaves out,
 * read in the root's spelling, not "no configured release line" with a
 * PEP 440 spelling complaint.
 */
Test(e2e_realrepos, alpha_tag_left_out_by_a_finals_only_release)
{
	char *dir = t_git_init();
	const char *rel[] = { "release", "v26.08.00a", "--dry-run", NULL };
	struct run_result r;

	t_write(dir, ".gitignore", ".ripple/\n");
	t_write(dir, "cpp/a.cpp", "int x;\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  rmm:\n"
		"    path: cpp\n"
		"    tags: [\"v[0-9][0-9].[0-9][0-9].[0-9][0-9]\", "
		"\"v[0-9][0-9].[0-9][0-9].00a\"]\n"
		"    tag-prefix: v\n"
		"    tag-spelling: zero-padded\n"
		"artifacts:\n"
		"  lib:\n"
		"    each: {root: [rmm]}\n"
		"    inputs: [root.sources]\n"
		"    command: [\"true\"]\n"
		"releases:\n"
		"  rmm:\n"
		"    each: {root: [rmm]}\n"
		"    tag: \"v[0-9][0-9].[0-9][0-9].[0-9][0-9]\"\n"
		"    artifacts: [lib]\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	sh_ok(dir, "git tag v26.08.00a");
	r = ripple_expect(dir, 1, rel);
	cr_expect(strstr(r.out, "is a tag of root rmm's family, but "
			 "release:rmm[root=rmm] releases only tags matching")
		  != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "leading zero") == NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
