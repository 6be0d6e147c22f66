/*
 * End-to-end checks of examples/cuda-bindings/make-demo-repo: the history,
 * tags, symlinks and pull-request branches it promises, its determinism,
 * and the demo build and test scripts it installs.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/support/support.h"

/* The script and a rules file to copy: the example's, else a stand-in. */
static void
script_paths(const char *tmp, char *script, size_t n, char *rules, size_t m)
{
	char *src = realpath(t_srcdir(), NULL);
	struct stat st;

	cr_assert_not_null(src);
	snprintf(script, n, "%s/examples/cuda-bindings/make-demo-repo", src);
	snprintf(rules, m, "%s/examples/cuda-bindings/ripple.yml", src);
	if (stat(rules, &st) != 0) {
		t_write(tmp, "stand-in.yml",
			"version: 1\ntoolkits:\n"
			"  ctk12: {version: \"12.9.1\", home: /usr/local/cuda-12.9}\n"
			"  ctk13: {version: \"13.0.2\", home: /usr/local/cuda-13.0}\n");
		snprintf(rules, m, "%s/stand-in.yml", tmp);
	}
	free(src);
}

/* Run the script into TMP/NAME; returns the result (caller releases). */
static struct run_result
make_demo(const char *tmp, const char *name)
{
	char script[PATH_MAX], rules[PATH_MAX], cmd[3 * PATH_MAX];

	script_paths(tmp, script, sizeof(script), rules, sizeof(rules));
	snprintf(cmd, sizeof(cmd), "RIPPLE_DEMO_RULES='%s' '%s' '%s'", rules,
		 script, name);
	return t_sh(tmp, cmd);
}

/* Output of CMD run in DIR, trailing newline removed; asserts success. */
static char *
sh_out(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);
	size_t n;

	cr_assert_eq(r.status, 0, "'%s' failed: %s", cmd, r.err);
	n = strlen(r.out);
	while (n && r.out[n - 1] == '\n')
		r.out[--n] = '\0';
	free(r.err);
	return r.out;
}

static char *
demo_dir(const char *tmp)
{
	struct run_result r = make_demo(tmp, "demo");
	size_t n = strlen(tmp) + 8;
	char *dir = malloc(n);

	cr_assert_eq(r.status, 0, "make-demo-repo failed: %s", r.err);
	t_result_release(&r);
	cr_assert_not_null(dir);
	snprintf(dir, n, "%s/demo", tmp);
	return dir;
}

static void
expect_rev(const char *dir, const char *a, const char *b)
{
	char *ra = t_git_rev(dir, a), *rb = t_git_rev(dir, b);

	cr_assert_not_null(ra, "no revision '%s'", a);
	cr_assert_not_null(rb, "no revision '%s'", b);
	cr_expect_str_eq(ra, rb, "'%s' is not at '%s'", a, b);
	free(ra);
	free(rb);
}

Test(e2e_demo_repo, release_tags_point_at_their_commits)
{
	char *tmp = t_tmpdir(), *dir = demo_dir(tmp), *s;

	s = sh_out(dir, "git rev-list --count main");
	cr_expect_str_eq(s, "10");
	free(s);
	s = sh_out(dir, "git rev-list --max-parents=0 main");
	expect_rev(dir, "v12.9.8", s);
	expect_rev(dir, "v13.0.0", s);
	free(s);
	expect_rev(dir, "v12.9.9", "main~7");
	expect_rev(dir, "v13.0.1", "main~5");
	s = sh_out(dir, "git cat-file -t v12.9.8; git cat-file -t v13.0.0; "
		   "git cat-file -t v12.9.9; git cat-file -t v13.0.1");
	cr_expect_str_eq(s, "tag\ncommit\ntag\ntag");
	free(s);
	/* The fix behind v12.9.9 touched the maintenance root only. */
	s = sh_out(dir, "git diff --name-only v12.9.9~1 v12.9.9 | cut -d/ -f1 | sort -u");
	cr_expect_str_eq(s, "cuda_bindings_12");
	free(s);
	s = sh_out(dir, "git diff --name-only v13.0.1~1 v13.0.1 | cut -d/ -f1 | sort -u");
	cr_expect_str_eq(s, "cuda_bindings");
	free(s);
	/* Between the releases, only the fallback bumps touched the rules. */
	s = sh_out(dir, "git diff --name-only v12.9.8 v13.0.1 | cut -d/ -f1 | sort -u");
	cr_expect_str_eq(s, "cuda_bindings\ncuda_bindings_12\nripple.yml");
	free(s);
	free(dir);
	t_rmtree(tmp);
	free(tmp);
}

/*
 * The maintenance line's fallback moves past each release right after it,
 * in ripple.yml and pyproject.toml alike, so each tag's version is the
 * tag's (a tag below the fallback would not end it) and `ripple check`
 * passes at every tag.
 */
Test(e2e_demo_repo, fallback_follows_each_maintenance_release)
{
	char *tmp = t_tmpdir(), *dir = demo_dir(tmp), *s;
	char *bin = realpath(getenv("RIPPLE_BIN") && *getenv("RIPPLE_BIN")
			     ? getenv("RIPPLE_BIN") : "build/ripple", NULL);
	char cmd[PATH_MAX + 512];

	cr_assert_not_null(bin, "no ripple binary");
	/* rules and pyproject.toml, per commit: release, bump, release, bump */
	s = sh_out(dir, "for r in v12.9.8 v12.9.9~1 v12.9.9 v13.0.1~1 main; do "
		   "a=$(git show $r:ripple.yml | sed -n 's/^ *fallback-version: //p'); "
		   "b=$(git show $r:cuda_bindings_12/pyproject.toml | "
		   "sed -n 's/^fallback_version = \"\\(.*\\)\"$/\\1/p'); "
		   "echo \"$r $a $b\"; done");
	cr_expect_str_eq(s, "v12.9.8 12.9.8.dev0 12.9.8.dev0\n"
			 "v12.9.9~1 12.9.9.dev0 12.9.9.dev0\n"
			 "v12.9.9 12.9.9.dev0 12.9.9.dev0\n"
			 "v13.0.1~1 12.9.10.dev0 12.9.10.dev0\n"
			 "main 12.9.10.dev0 12.9.10.dev0");
	free(s);
	/* each tag's version is the tag's, and the drift checks pass there */
	snprintf(cmd, sizeof(cmd),
		 "for t in v12.9.8 v12.9.9 v13.0.0 v13.0.1; do "
		 "git checkout -q $t && '%s' check >/dev/null || exit 1; "
		 "case $t in v12*) root=bindings-12 ;; *) root=bindings-13 ;; esac; "
		 "echo \"$t $('%s' version $root)\"; done; git checkout -q main",
		 bin, bin);
	s = sh_out(dir, cmd);
	cr_expect_str_eq(s, "v12.9.8 12.9.8\nv12.9.9 12.9.9\n"
			 "v13.0.0 13.0.0\nv13.0.1 13.0.1");
	free(s);
	/* between releases, the maintenance line is the next dev release
	 * (the rules of the checked-out commit: --rev would keep main's) */
	snprintf(cmd, sizeof(cmd), "git checkout -q v12.9.9~1 && '%s' version "
		 "bindings-12 | cut -d+ -f1; git checkout -q main && '%s' version "
		 "bindings-12 | cut -d+ -f1", bin, bin);
	s = sh_out(dir, cmd);
	cr_expect_str_eq(s, "12.9.9.dev0\n12.9.10.dev0");
	free(s);
	free(bin);
	free(dir);
	t_rmtree(tmp);
	free(tmp);
}

Test(e2e_demo_repo, release_notes_exist_for_each_release)
{
	char *tmp = t_tmpdir(), *dir = demo_dir(tmp), *s;

	s = sh_out(dir, "git ls-tree -r --name-only main | grep -- '-notes.rst$'");
	cr_expect_str_eq(s,
		"cuda_bindings/docs/source/release/13.0.0-notes.rst\n"
		"cuda_bindings/docs/source/release/13.0.1-notes.rst\n"
		"cuda_bindings_12/docs/source/release/12.9.8-notes.rst\n"
		"cuda_bindings_12/docs/source/release/12.9.9-notes.rst");
	free(s);
	free(dir);
	t_rmtree(tmp);
	free(tmp);
}

Test(e2e_demo_repo, shared_helper_is_a_symlink_in_git)
{
	char *tmp = t_tmpdir(), *dir = demo_dir(tmp), *s;

	s = sh_out(dir, "git ls-tree HEAD cuda_bindings_12/cuda/bindings/_version_check.py "
		   "cuda_bindings/cuda/bindings/_version_check.py | cut -c1-6");
	cr_expect_str_eq(s, "120000\n120000");
	free(s);
	s = sh_out(dir, "git cat-file -p HEAD:cuda_bindings_12/cuda/bindings/_version_check.py");
	cr_expect_str_eq(s, "../../../shared/helpers/_version_check.py");
	free(s);
	/* The helper edit changed the target only, not the links. */
	s = sh_out(dir, "git diff --name-only main~3 main~2");
	cr_expect_str_eq(s, "shared/helpers/_version_check.py");
	free(s);
	free(dir);
	t_rmtree(tmp);
	free(tmp);
}

Test(e2e_demo_repo, toolkit_bump_edits_pins_and_rules)
{
	char *tmp = t_tmpdir(), *dir = demo_dir(tmp), *s;

	s = sh_out(dir, "git diff --name-only main~1 main");
	cr_expect_str_eq(s, "ci/versions.yml\nripple.yml");
	free(s);
	s = sh_out(dir, "git show main~1:ci/versions.yml | grep -c 13.0.1; "
		   "git show main:ci/versions.yml | grep -c 13.0.2");
	cr_expect_str_eq(s, "1\n1");
	free(s);
	free(dir);
	t_rmtree(tmp);
	free(tmp);
}

Test(e2e_demo_repo, toolkit_homes_follow_the_environment)
{
	char *tmp = t_tmpdir(), script[PATH_MAX], rules[PATH_MAX], *s;
	char cmd[3 * PATH_MAX], dir[PATH_MAX];
	struct run_result r;

	script_paths(tmp, script, sizeof(script), rules, sizeof(rules));
	snprintf(cmd, sizeof(cmd), "RIPPLE_DEMO_RULES='%s' "
		 "RIPPLE_DEMO_CTK12_HOME=/opt/cuda-12.4/usr "
		 "RIPPLE_DEMO_CTK13_HOME='/opt/cuda 13' '%s' demo", rules,
		 script);
	r = t_sh(tmp, cmd);
	cr_assert_eq(r.status, 0, "make-demo-repo failed: %s", r.err);
	t_result_release(&r);
	snprintf(dir, sizeof(dir), "%s/demo", tmp);
	s = sh_out(dir, "git show main:ripple.yml | grep 'home:'; "
		   "git show main~1:ripple.yml | grep -c 'home: /opt/'");
	cr_expect(strstr(s, "ctk12: {version: \"12.9.1\", "
			 "home: /opt/cuda-12.4/usr}\n"), "%s", s);
	cr_expect(strstr(s, "ctk13: {version: \"13.0.2\", "
			 "home: /opt/cuda 13}\n"), "%s", s);
	cr_expect(strstr(s, "\n2"), "%s", s);
	free(s);
	snprintf(cmd, sizeof(cmd), "RIPPLE_DEMO_CTK12_HOME='/a|b' '%s' other",
		 script);
	r = t_sh(tmp, cmd);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "may not contain"), "%s", r.err);
	t_result_release(&r);
	t_rmtree(tmp);
	free(tmp);
}

Test(e2e_demo_repo, pull_request_branches_are_one_commit_off_main)
{
	static const char *const branch[] = { "pr/bindings-12-fix",
		"pr/docs-only", "pr/core-tests-only", "pr/shared-helper" };
	static const char *const touched[] = {
		"cuda_bindings_12/cuda/bindings/driver.pyx",
		"cuda_pathfinder/docs/index.rst",
		"cuda_core/tests/test_device.py",
		"shared/helpers/_version_check.py" };
	char *tmp = t_tmpdir(), *dir = demo_dir(tmp), *s;
	char cmd[512];
	size_t i;

	for (i = 0; i < sizeof(branch) / sizeof(branch[0]); i++) {
		snprintf(cmd, sizeof(cmd), "git merge-base main %s", branch[i]);
		s = sh_out(dir, cmd);
		expect_rev(dir, s, "main");
		free(s);
		snprintf(cmd, sizeof(cmd), "git rev-list --count main..%s; "
			 "git diff --name-only main %s", branch[i], branch[i]);
		s = sh_out(dir, cmd);
		snprintf(cmd, sizeof(cmd), "1\n%s", touched[i]);
		cr_expect_str_eq(s, cmd, "%s", branch[i]);
		free(s);
	}
	free(dir);
	t_rmtree(tmp);
	free(tmp);
}

Test(e2e_demo_repo, same_script_makes_same_commit_ids)
{
	char *tmp = t_tmpdir(), *a, *b;
	struct run_result r;
	char cmd[64];

	r = make_demo(tmp, "one");
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = make_demo(tmp, "two");
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	snprintf(cmd, sizeof(cmd), "cd one && git for-each-ref");
	a = sh_out(tmp, cmd);
	snprintf(cmd, sizeof(cmd), "cd two && git for-each-ref");
	b = sh_out(tmp, cmd);
	cr_expect_gt(strlen(a), 100);
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
	t_rmtree(tmp);
	free(tmp);
}

Test(e2e_demo_repo, refuses_a_non_empty_folder)
{
	char *tmp = t_tmpdir(), *s;
	struct run_result r;

	t_write(tmp, "busy/keep.txt", "mine\n");
	r = make_demo(tmp, "busy");
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "not empty") != NULL, "stderr: %s", r.err);
	t_result_release(&r);
	s = sh_out(tmp, "ls -A busy");
	cr_expect_str_eq(s, "keep.txt");
	free(s);
	t_rmtree(tmp);
	free(tmp);
}

Test(e2e_demo_repo, build_wheel_is_deterministic_and_follows_sources)
{
	char *tmp = t_tmpdir(), *dir = demo_dir(tmp), *s;

	s = sh_out(dir, "RIPPLE_VERSION=13.0.1 ci/build-wheel cuda_bindings 3.12 linux-64 a");
	cr_expect_str_eq(s, "a/cuda_bindings-13.0.1-cp312-cp312-manylinux_2_28_x86_64.whl");
	free(s);
	s = sh_out(dir, "RIPPLE_VERSION=13.0.1 ci/build-wheel cuda_bindings 3.12 linux-64 b "
		   ">/dev/null && cmp a/*.whl b/*.whl && echo same");
	cr_expect_str_eq(s, "same");
	free(s);
	/* The shared helper reaches the wheel through the symlink. */
	s = sh_out(dir, "git checkout -q pr/shared-helper && RIPPLE_VERSION=13.0.1 "
		   "ci/build-wheel cuda_bindings 3.12 linux-64 c >/dev/null && "
		   "git checkout -q main && { cmp -s a/*.whl c/*.whl || echo differs; }");
	cr_expect_str_eq(s, "differs");
	free(s);
	/* Tests are not part of the wheel. */
	s = sh_out(dir, "git checkout -q pr/core-tests-only && "
		   "ci/build-wheel cuda_core 3.12 linux-64 d >/dev/null && "
		   "git checkout -q main && ci/build-wheel cuda_core 3.12 linux-64 e "
		   ">/dev/null && cmp d/*.whl e/*.whl && ls d");
	cr_expect_str_eq(s, "cuda_core-0.0.0-cp312-cp312-manylinux_2_28_x86_64.whl");
	free(s);
	s = sh_out(dir, "ci/build-wheel cuda_pathfinder 3.12 linux-64 f");
	cr_expect_str_eq(s, "f/cuda_pathfinder-0.0.0-py3-none-any.whl");
	free(s);
	s = sh_out(dir, "RIPPLE_VERSION=12.9.9 ci/build-wheel cuda_bindings_12 sdist any g");
	cr_expect_str_eq(s, "g/cuda_bindings-12.9.9.tar.gz");
	free(s);
	s = sh_out(dir, "ci/build-wheel cuda_bindings 3.12 any h");
	cr_expect_str_eq(s, "h/cuda_bindings-0.0.0-py3-none-any.whl");
	free(s);
	free(dir);
	t_rmtree(tmp);
	free(tmp);
}

Test(e2e_demo_repo, run_tests_fails_when_a_fail_file_exists)
{
	char *tmp = t_tmpdir(), *dir = demo_dir(tmp);
	struct run_result r;

	r = t_sh(dir, "ci/run-tests core");
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "result: passed") != NULL, "%s", r.out);
	t_result_release(&r);
	r = t_sh(dir, "ci/run-tests cuda_bindings_12 3.12 linux-64 published-floor "
		 ">/dev/null && cat test-reports/cuda_bindings_12-3.12-linux-64-published-floor.txt");
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "mode: published-floor") != NULL, "%s", r.out);
	t_result_release(&r);
	r = t_sh(dir, "ci/run-tests nosuchmodule");
	cr_expect_eq(r.status, 2);
	t_result_release(&r);
	r = t_sh(dir, "git checkout -q pr/failing-tests && ci/run-tests core");
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "result: failed") != NULL, "%s", r.out);
	t_result_release(&r);
	free(dir);
	t_rmtree(tmp);
	free(tmp);
}

Test(e2e_demo_repo, releases_at_a_tag_select_the_lines_that_claim_it)
{
	char *tmp = t_tmpdir(), *dir = demo_dir(tmp);
	const char *at13[] = { "graph", "releases@v13.0.1", NULL };
	const char *at12[] = { "graph", "releases@v12.9.9", NULL };
	const char *none[] = { "plan", "releases@v9.0.0", NULL };
	struct run_result r;

	r = t_ripple(dir, at13);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "release:bindings[root=bindings-13]"), "%s",
		  r.out);
	cr_expect(!strstr(r.out, "release:bindings[root=bindings-12]"), "%s",
		  r.out);
	cr_expect(!strstr(r.out, "release:pathfinder"), "%s", r.out);
	t_result_release(&r);
	r = t_ripple(dir, at12);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "release:bindings[root=bindings-12]"), "%s",
		  r.out);
	cr_expect(!strstr(r.out, "release:bindings[root=bindings-13]"), "%s",
		  r.out);
	t_result_release(&r);
	r = t_ripple(dir, none);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "no release line's tag family claims "
			 "'v9.0.0'"), "%s", r.err);
	t_result_release(&r);
	t_rmtree(tmp);
	free(tmp);
	free(dir);
}
