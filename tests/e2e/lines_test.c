/*
 * Suite e2e_lines: release lines of real layouts (issue 17), end to end on
 * repositories made here in the shapes of numba-cuda (one root at the
 * repository root, numba_cuda/VERSION), RAPIDS (VERSION plus zero-padded
 * alpha and final tags) and cuda-python (tag_regex).
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static void
sh(const char *dir, const char *fmt, ...)
{
	struct run_result r;
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	t_result_release(&r);
}

/* `ripple ARGS...` in dir; the result's stdout with its newline cut. */
static struct run_result
rip(const char *dir, const char *a0, const char *a1, const char *a2,
    const char *a3, const char *a4)
{
	const char *argv[] = { a0, a1, a2, a3, a4, NULL };
	struct run_result r = t_ripple(dir, argv);
	size_t n = strlen(r.out);

	if (n && r.out[n - 1] == '\n')
		r.out[n - 1] = '\0';
	return r;
}

#define EXPECT_OUT(r, want)                                               \
	do {                                                              \
		cr_expect_eq((r).status, 0, "%s", (r).err);               \
		cr_expect_str_eq((r).out, (want), "stderr: %s", (r).err); \
	} while (0)

/* r printed "PUB+g<HEAD's first 9 hex digits>" (file+tags off a tag). */
static void
expect_dev(const char *dir, struct run_result r, const char *pub)
{
	char *id = t_git_rev(dir, "HEAD"), want[128];

	snprintf(want, sizeof(want), "%s+g%.9s", pub, id);
	EXPECT_OUT(r, want);
	free(id);
}

/* Item 4: a root at the repository root (numba-cuda's one package). */
Test(e2e_lines, root_at_the_repository_root)
{
	char *dir = t_git_init();
	const char *cmds[][2] = { { "check", NULL }, { "keys", NULL },
				  { "plan", NULL }, { "run", "--run-id" } };
	struct run_result r;
	char *k1;
	size_t i;

	t_write(dir, ".gitignore", ".ripple/\n");
	t_write(dir, "numba_cuda/a.py", "a = 1\n");
	t_write(dir, "numba_cuda/VERSION", "0.22.0\n");
	t_write(dir, "tests/t.py", "t = 1\n");
	t_write(dir, "pytest.ini", "[pytest]\n");
	t_write(dir, "numba_cuda/pytest.ini", "[pytest]\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  pkg: {path: ., tags: \"v*\", exclude: [\"tests/**\", "
		"pytest.ini]}\n"
		"artifacts:\n"
		"  wheel: {each: {root: [pkg]}, inputs: [root.sources], "
		"command: \"true\"}\n");
	cr_assert_eq(t_git_commit(dir, "init"), 0);
	sh(dir, "git tag v0.22.0");
	for (i = 0; i < 4; i++) {
		r = rip(dir, cmds[i][0], cmds[i][1], cmds[i][1] ? "r1" : NULL,
			NULL, NULL);
		cr_expect_eq(r.status, 0, "ripple %s: %s%s", cmds[i][0], r.out,
			     r.err);
		cr_expect(strstr(r.err, "'.' component") == NULL, "%s", r.err);
		t_result_release(&r);
	}
	/* An exclude under "." is anchored there: the top pytest.ini only. */
	r = rip(dir, "keys", "--worktree", NULL, NULL, NULL);
	k1 = strdup(r.out);
	t_result_release(&r);
	t_write(dir, "tests/t.py", "t = 2\n");
	t_write(dir, "pytest.ini", "[pytest]\nx = 1\n");
	r = rip(dir, "keys", "--worktree", NULL, NULL, NULL);
	cr_expect_str_eq(r.out, k1, "tests/ and /pytest.ini are excluded");
	t_result_release(&r);
	t_write(dir, "numba_cuda/pytest.ini", "[pytest]\nx = 1\n");
	r = rip(dir, "keys", "--worktree", NULL, NULL, NULL);
	cr_expect_str_neq(r.out, k1, "numba_cuda/pytest.ini is a source");
	t_result_release(&r);
	free(k1);
	t_rmtree(dir);
	free(dir);
}

/* Item 3: numba-cuda takes its version from numba_cuda/VERSION. */
Test(e2e_lines, version_from_a_file)
{
	char *dir = t_git_init();
	struct run_result r;

	t_write(dir, "numba_cuda/VERSION", "0.21.1\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  numba-cuda: {path: ., tags: \"v*\", version-source: file, "
		"version-file: numba_cuda/VERSION}\n");
	cr_assert_eq(t_git_commit(dir, "0.21.1"), 0);
	sh(dir, "git tag v0.21.1");
	t_write(dir, "numba_cuda/VERSION", "0.22.0\n");
	cr_assert_eq(t_git_commit(dir, "bump"), 0);
	t_write(dir, "numba_cuda/a.py", "a = 1\n");
	cr_assert_eq(t_git_commit(dir, "work"), 0);
	r = rip(dir, "version", "numba-cuda", NULL, NULL, NULL);
	EXPECT_OUT(r, "0.22.0");
	t_result_release(&r);
	r = rip(dir, "version", "numba-cuda", "--rev", "v0.21.1", NULL);
	EXPECT_OUT(r, "0.21.1");
	t_result_release(&r);
	t_write(dir, "numba_cuda/VERSION", "0.23.0\n");
	r = rip(dir, "version", "numba-cuda", "--worktree", NULL, NULL);
	EXPECT_OUT(r, "0.23.0");
	t_result_release(&r);
	t_write(dir, "numba_cuda/VERSION", "not a version\n");
	r = rip(dir, "version", "numba-cuda", "--worktree", NULL, NULL);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "version file 'numba_cuda/VERSION' at 'HEAD' "
			 "holds 'not a version', not a PEP 440 version")
		  != NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Items 2 and 3: RAPIDS. VERSION 26.08.00, alpha tag v26.08.00a opening
 * the cycle on main, a final v26.06.00 on release/26.06: versions are
 * the file's release, with aN for N commits after the nearest tag (and
 * +g<node> off a tag).
 */
Test(e2e_lines, rapids_version_file_and_zero_padded_tags)
{
	char *dir = t_git_init();
	struct run_result r;

	t_write(dir, "VERSION", "26.06.00\n");
	t_write(dir, "python/rmm/a.py", "a = 1\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  rmm:\n"
		"    path: python/rmm\n"
		"    tags: [\"v[0-9][0-9].[0-9][0-9].[0-9][0-9]\", "
		"\"v[0-9][0-9].[0-9][0-9].00a\"]\n"
		"    tag-prefix: v\n"
		"    tag-spelling: zero-padded\n"
		"    version-source: file+tags\n"
		"    version-file: VERSION\n");
	cr_assert_eq(t_git_commit(dir, "26.06"), 0);
	r = rip(dir, "version", "rmm", NULL, NULL, NULL);
	cr_expect_neq(r.status, 0, "%s", r.out);
	cr_expect(strstr(r.err, "no tag of the family is reachable from 'HEAD' "
			 "(root 'rmm', tags ") != NULL &&
		  strstr(r.err, "): version-source file+tags counts the "
			 "commits since the nearest one") != NULL, "%s", r.err);
	t_result_release(&r);
	sh(dir, "git tag v26.06.00a && git branch release/26.06");
	t_write(dir, "VERSION", "26.08.00\n");
	cr_assert_eq(t_git_commit(dir, "Update to 26.08"), 0);
	sh(dir, "git tag v26.08.00a");
	r = rip(dir, "version", "rmm", NULL, NULL, NULL);
	EXPECT_OUT(r, "26.8.0a0");
	t_result_release(&r);
	t_write(dir, "python/rmm/a.py", "a = 2\n");
	cr_assert_eq(t_git_commit(dir, "work"), 0);
	t_write(dir, "python/rmm/a.py", "a = 3\n");
	cr_assert_eq(t_git_commit(dir, "more"), 0);
	r = rip(dir, "version", "rmm", NULL, NULL, NULL);
	expect_dev(dir, r, "26.8.0a2");
	t_result_release(&r);
	/* The release branch: a fix, then the final tag. */
	sh(dir, "git checkout -q release/26.06 && echo f >> python/rmm/a.py "
		"&& git commit -qam fix");
	r = rip(dir, "version", "rmm", NULL, NULL, NULL);
	expect_dev(dir, r, "26.6.0a1");
	t_result_release(&r);
	sh(dir, "git tag v26.06.00");
	r = rip(dir, "version", "rmm", "--json", NULL, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\"version\": \"26.6.0\"") != NULL, "%s",
		  r.out);
	cr_expect(strstr(r.out, "\"source\": \"file\"") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* Item 2: tags as setuptools-scm's tag_regex reads them (cuda-python). */
Test(e2e_lines, tag_regex_version_matches_setuptools_scm)
{
	char *dir = t_git_init();
	struct run_result r;

	t_write(dir, "cuda_bindings/a.py", "a = 1\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  bindings:\n"
		"    path: cuda_bindings\n"
		"    tags: \"v*[0-9]*\"\n"
		"    tag-prefix: v\n"
		"    tag-regex: '^(?P<version>v\\d+\\.\\d+\\.\\d+(?:[ab]\\d+)?)'\n");
	cr_assert_eq(t_git_commit(dir, "one"), 0);
	sh(dir, "git tag v14.0.0rc1");
	r = rip(dir, "version", "bindings", NULL, NULL, NULL);
	EXPECT_OUT(r, "14.0.0");
	t_result_release(&r);
	t_write(dir, "cuda_bindings/a.py", "a = 2\n");
	cr_assert_eq(t_git_commit(dir, "two"), 0);
	r = rip(dir, "version", "bindings", "--json", NULL, NULL);
	cr_expect(strstr(r.out, "\"version\": \"14.0.1.dev1+g") != NULL, "%s",
		  r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* Item 5 on the command line: check and version refuse the line. */
Test(e2e_lines, impossible_lines_are_refused)
{
	char *dir = t_git_init();
	struct run_result r;

	t_write(dir, "b12/a.py", "x\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"toolkits:\n"
		"  ctk12: {version: \"12.9.1\"}\n"
		"roots:\n"
		"  b12: {path: b12, role: maintenance, toolkit: ctk12, tags: "
		"\"v12.9.*\", fallback-version: 13.0.0.dev0, "
		"fallback-pretend: true}\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	sh(dir, "git tag v12.9.9 && git tag v12.9.10+local");
	r = rip(dir, "check", NULL, NULL, NULL, NULL);
	cr_expect_eq(r.status, 2, "%s", r.out);
	cr_expect(strstr(r.err, "ripple.yml:5:3: error: fallback-version "
			 "'13.0.0.dev0' of root 'b12' is outside its tag "
			 "family 'v12.9.*'") != NULL, "%s", r.err);
	t_result_release(&r);
	r = rip(dir, "version", "b12", NULL, NULL, NULL);
	cr_expect_eq(r.status, 2, "%s", r.out);
	t_result_release(&r);
	r = rip(dir, "plan", NULL, NULL, NULL, NULL);
	cr_expect_eq(r.status, 2, "%s", r.out);
	t_result_release(&r);
	/* In line: the tag v12.9.9 ends the pretend, v12.9.10+local is none. */
	sh(dir, "sed -i 's/13.0.0.dev0/12.9.10.dev0/' ripple.yml && git "
		"commit -qam fix");
	r = rip(dir, "version", "b12", NULL, NULL, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(!strncmp(r.out, "12.9.10.dev0+g", 14), "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* Item 9: root facts for CI steps outside `ripple run`. */
Test(e2e_lines, roots_json_lists_root_facts)
{
	char *dir = t_git_init();
	struct run_result r;

	t_write(dir, "cuda_bindings/a.py", "a\n");
	t_write(dir, "cuda_bindings_12/a.py", "a\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"toolkits: {ctk12: {version: \"12.9.1\"}, ctk13: "
		"{version: \"13.4.1\", home: /opt/cuda13}}\n"
		"roots:\n"
		"  bindings-12: {path: cuda_bindings_12, role: maintenance, "
		"toolkit: ctk12, tags: \"v12.9.*\"}\n"
		"  bindings: {path: cuda_bindings, role: current, toolkit: ctk13, "
		"tags: \"v13.4.*\"}\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	r = rip(dir, "roots", "--json", NULL, NULL, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out,
		"      \"name\": \"bindings-12\",\n"
		"      \"path\": \"cuda_bindings_12\",\n"
		"      \"role\": \"maintenance\",\n"
		"      \"tags\": {\n"
		"        \"exclude\": [],\n"
		"        \"patterns\": [\n"
		"          \"v12.9.*\"\n"
		"        ],\n"
		"        \"prefix\": \"v\",\n"
		"        \"regex\": null,\n"
		"        \"spelling\": \"pep440\"\n"
		"      },\n"
		"      \"toolkit\": {\n"
		"        \"home\": \"/usr/local/cuda-12.9\",\n"
		"        \"major\": 12,\n"
		"        \"minor\": 9,\n"
		"        \"name\": \"ctk12\",\n"
		"        \"patch\": 1,\n"
		"        \"version\": \"12.9.1\"\n"
		"      },") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "\"home\": \"/opt/cuda13\"") != NULL, "%s",
		  r.out);
	/* File order: bindings-12 first. */
	cr_expect(strstr(r.out, "bindings-12") < strstr(r.out,
							"\"cuda_bindings\""));
	t_result_release(&r);
	r = rip(dir, "roots", NULL, NULL, NULL, NULL);
	EXPECT_OUT(r, "bindings-12  cuda_bindings_12  maintenance  "
		   "ctk12=12.9.1  v12.9.*  tags\n"
		   "bindings  cuda_bindings  current  ctk13=13.4.1  v13.4.*  "
		   "tags");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* Item 10: files that must stay identical across roots. */
Test(e2e_lines, same_content_check_names_both_blobs)
{
	char *dir = t_git_init();
	struct run_result r;

	t_write(dir, "cuda_bindings/LICENSE", "L\n");
	t_write(dir, "cuda_bindings_12/LICENSE", "L\n");
	t_write(dir, "cuda_bindings/tests/build.sh", "a\n");
	t_write(dir, "cuda_bindings_12/tests/build.sh", "b\n");
	t_write(dir, "LICENSE", "L\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  bindings: {path: cuda_bindings}\n"
		"  bindings-12: {path: cuda_bindings_12}\n"
		"checks:\n"
		"  shared:\n"
		"    same-content: [LICENSE, tests/build.sh, x.pxd]\n"
		"    roots: [bindings, bindings-12]\n"
		"  top: {same-content: [LICENSE, cuda_bindings/LICENSE]}\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	r = rip(dir, "check", NULL, NULL, NULL, NULL);
	cr_expect_eq(r.status, 2, "%s", r.out);
	cr_expect_str_eq(r.err,
		"ripple.yml:6:3: error: check 'shared': "
		"'cuda_bindings/tests/build.sh' (blob 78981922613b) and "
		"'cuda_bindings_12/tests/build.sh' (blob 61780798228d) differ\n"
		"  hint: make the files identical (copy one over the other), "
		"or drop the path from the check\n"
		"ripple.yml:6:3: error: check 'shared': no file "
		"'cuda_bindings/x.pxd'\n"
		"  hint: restore the file, or drop it from the check\n"
		"ripple.yml:6:3: error: check 'shared': no file "
		"'cuda_bindings_12/x.pxd'\n"
		"  hint: restore the file, or drop it from the check\n");
	t_result_release(&r);
	t_write(dir, "cuda_bindings_12/tests/build.sh", "a\n");
	sh(dir, "sed -i 's/, x.pxd//' ripple.yml");
	r = rip(dir, "check", NULL, NULL, NULL, NULL);
	EXPECT_OUT(r, "ripple.yml: ok: 0 toolkits, 2 roots, 0 sources, 0 axes, "
		   "0 artifacts, 0 tests, 0 releases, 0 targets, 2 checks "
		   "(2 agree)");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 7 (cases 71, 48): a record made by `ripple run` carries its rule's
 * expanded meta: and the built wheel's own Version and Requires-Dist, so
 * require-meta checks the real metapackage pin.
 */
Test(e2e_lines, run_records_the_wheel_metadata)
{
	char *dir = t_git_init();
	struct run_result r;

	t_write(dir, ".gitignore", ".ripple/\ndist/\n");
	t_write(dir, "meta/a", "x\n");
	t_write(dir, "mkwheel.py",
		"import sys, zipfile\n"
		"v, pin = sys.argv[1], sys.argv[2]\n"
		"with zipfile.ZipFile(f'dist/cuda_python-{v}-py3-none-any.whl',"
		" 'w') as z:\n"
		"    z.writestr(f'cuda_python-{v}.dist-info/METADATA',\n"
		"               f'Metadata-Version: 2.1\\nName: cuda-python\\n'\n"
		"               f'Version: {v}\\nRequires-Dist: {pin}\\n'\n"
		"               f'Requires-Dist: cuda-pathfinder~=1.1\\n\\n'\n"
		"               f'Version: 0 in the body\\n')\n");
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  py: {path: meta, tags: \"v*\"}\n"
		"artifacts:\n"
		"  python-meta:\n"
		"    each: {root: [py]}\n"
		"    inputs: [root.sources]\n"
		"    command: [sh, -c, \"mkdir -p dist && python3 mkwheel.py "
		"$$RIPPLE_VERSION $$PIN\"]\n"
		"    env: {PIN: \"cuda-bindings~=${root.version}\"}\n"
		"    outputs: [\"dist/*.whl\"]\n"
		"    version: \"${root.version}\"\n"
		"    meta: {flavor: \"root-${root.name}\", built: "
		"\"${root.version}\"}\n"
		"releases:\n"
		"  python:\n"
		"    each: {root: [py]}\n"
		"    tag: root.tags\n"
		"    artifacts: [python-meta]\n"
		"    require-meta:\n"
		"      - {artifact: python-meta, key: Requires-Dist, final: "
		"\"cuda-bindings~=${version}\", dev: \"cuda-bindings==${version}\"}\n"
		"      - {artifact: python-meta, key: Version, value: "
		"\"${version}\"}\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	sh(dir, "git tag v12.9.99");
	{
		const char *argv[] = { "run", "release:python[root=py]",
				       "--tag", "v12.9.99", "--run-id", "t",
				       NULL };

		r = t_ripple(dir, argv);
	}
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	r = rip(dir, "cache", "export", "--run", "t", NULL);
	cr_expect(strstr(r.out, "\"metadata\": {\n"
			 "        \"Requires-Dist\": \"cuda-bindings~=12.9.99, "
			 "cuda-pathfinder~=1.1\",\n"
			 "        \"Version\": \"12.9.99\",\n"
			 "        \"built\": \"12.9.99\",\n"
			 "        \"flavor\": \"root-py\"\n") != NULL, "%s",
		  r.out);
	t_result_release(&r);
	r = rip(dir, "release", "v12.9.99", "--dry-run", NULL, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "ok    metadata      2 records checked "
			 "(final release)") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
