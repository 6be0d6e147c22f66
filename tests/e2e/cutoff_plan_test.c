/*
 * Suite e2e_cutoff_plan: early cutoff foreseen by the plan and through a
 * re-versioned payload (issue 25). A version group re-versions a member
 * whose users see only its payload, without its version: the plan says
 * they are expected to be cut off and the run cuts them off; a README
 * edit's tests are shown as cut off if the payload stays, and are.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static struct run_result
ripple_ok(const char *dir, const char *const *argv)
{
	struct run_result r = t_ripple(dir, argv);

	cr_assert_eq(r.status, 0, "ripple %s: exit %d\nstdout: %s\n"
		     "stderr: %s", argv[0], r.status, r.out, r.err);
	return r;
}

static void
sh_ok(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);

	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	t_result_release(&r);
}

/*
 * tools/mkwheel.py ROOT: a wheel of ROOT/a.py at $RIPPLE_VERSION, shaped
 * as setuptools-scm builds one: the version in the file name, the
 * dist-info folder, METADATA (with ROOT/README as long description) and
 * ROOT/_version.py, whose version_tuple spells the dev segment and the
 * local label apart.
 */
static const char mkwheel_py[] =
	"import os, re, sys, zipfile\n"
	"root, v = sys.argv[1], os.environ['RIPPLE_VERSION']\n"
	"pub, _, local = v.partition('+')\n"
	"parts = [int(x) if x.isdigit() else x for x in pub.split('.')]\n"
	"if local: parts.append(local)\n"
	"os.makedirs('dist', exist_ok=True)\n"
	"with zipfile.ZipFile(f'dist/{root}-{v}-py3-none-any.whl', 'w') as z:\n"
	"    z.writestr(f'{root}/a.py', open(f'{root}/a.py').read())\n"
	"    z.writestr(f'{root}/_version.py',\n"
	"               f'__version__ = version = {v!r}\\n'\n"
	"               f'__version_tuple__ = version_tuple = {tuple(parts)!r}\\n')\n"
	"    z.writestr(f'{root}-{v}.dist-info/METADATA',\n"
	"               f'Metadata-Version: 2.1\\nName: {root}\\nVersion: {v}\\n'\n"
	"               '\\n' + open(f'{root}/README').read())\n"
	"    z.writestr(f'{root}-{v}.dist-info/RECORD', v)\n";

static const char rules[] =
	"version: 1\n"
	"roots:\n"
	"  lib: {path: lib, tags: \"v*\", exclude: [], tests: []}\n"
	"  meta: {path: meta, tags: \"v*\", exclude: [], tests: []}\n"
	"sources:\n"
	"  tools: {paths: [tools/**]}\n"
	"artifacts:\n"
	"  lib-wheel:\n"
	"    each: {root: [lib]}\n"
	"    inputs: [root.sources, tools]\n"
	"    command: [python3, tools/mkwheel.py, lib]\n"
	"    outputs: [\"dist/lib-*.whl\"]\n"
	"    cutoff: payload\n"
	"    version: \"${root.version}\"\n"
	"    version-group: pinned\n"
	"  meta-wheel:\n"
	"    each: {root: [meta]}\n"
	"    inputs: [root.sources, tools]\n"
	"    command: [python3, tools/mkwheel.py, meta]\n"
	"    outputs: [\"dist/meta-*.whl\"]\n"
	"    cutoff: payload\n"
	"    version: \"${root.version}\"\n"
	"    version-group: pinned\n"
	"tests:\n"
	"  lib-tests:\n"
	"    each: {root: [lib]}\n"
	"    needs: [lib-wheel]\n"
	"    command: \"echo ran >> ran.log\"\n";

/* The plan's expected_cutoff of node `id`: its kind and "on" node. */
static void
expect_of(const char *plan, const char *id, const char *kind,
	  const char *on)
{
	json_error_t je;
	json_t *doc = json_loads(plan, 0, &je), *n, *e;
	size_t i;
	int seen = 0;

	cr_assert_not_null(doc, "bad JSON: %s\n%s", je.text, plan);
	json_array_foreach(json_object_get(doc, "nodes"), i, n) {
		if (strcmp(json_string_value(json_object_get(n, "id")), id))
			continue;
		seen = 1;
		e = json_object_get(n, "expected_cutoff");
		cr_expect(json_is_object(e), "%s: no expected_cutoff\n%s", id,
			  plan);
		cr_expect_str_eq(json_string_value(json_object_get(e, "kind")),
				 kind, "%s", plan);
		cr_expect_str_eq(json_string_value(json_object_get(e, "on")),
				 on, "%s", plan);
	}
	cr_expect(seen, "%s not in the plan", id);
	json_decref(doc);
}

static char *
setup(void)
{
	char *dir = t_git_init();
	const char *run1[] = { "run", "--run-id", "r1", NULL };
	struct run_result r;

	t_write(dir, ".gitignore", ".ripple/\ndist/\nran.log\nsummary.md\n");
	t_write(dir, "tools/mkwheel.py", mkwheel_py);
	t_write(dir, "lib/a.py", "x = 1\n");
	t_write(dir, "lib/README", "# lib\n");
	t_write(dir, "meta/a.py", "# metapackage\n");
	t_write(dir, "meta/README", "# meta\n");
	t_write(dir, "ripple.yml", rules);
	cr_assert_eq(t_git_commit(dir, "c0"), 0);
	sh_ok(dir, "git tag v1.0.0");
	t_write(dir, "lib/a.py", "x = 2\n");
	cr_assert_eq(t_git_commit(dir, "c1"), 0);
	r = ripple_ok(dir, run1);
	t_result_release(&r);
	return dir;
}

/*
 * The metapackage's README alone changes: the group re-versions lib-wheel
 * (1.0.1.dev1+g... -> 1.0.1.dev2+g...), whose payload without its version
 * is unchanged, so lib-tests is expected to be cut off, and is.
 */
Test(e2e_cutoff_plan, version_group_reversion_cuts_off_the_users)
{
	char *dir = setup();
	const char *plan[] = { "plan", "--base", "HEAD~1", "--json", NULL };
	const char *why[] = { "why", "test:lib-tests[root=lib]", "--base",
			      "HEAD~1", NULL };
	const char *summary[] = { "plan", "--base", "HEAD~1",
				  "--github-step-summary", "summary.md",
				  NULL };
	const char *run2[] = { "run", "--run-id", "r2", "--base", "HEAD~1",
			       NULL };
	struct run_result r;

	t_write(dir, "meta/README", "# meta\n\nBetter words.\n");
	cr_assert_eq(t_git_commit(dir, "meta readme"), 0);
	r = ripple_ok(dir, plan);
	expect_of(r.out, "test:lib-tests[root=lib]", "expected",
		  "artifact:lib-wheel[root=lib]");
	t_result_release(&r);
	r = ripple_ok(dir, why);
	cr_expect(strstr(r.out, "cutoff    expected") != NULL, "%s", r.out);
	t_result_release(&r);
	r = ripple_ok(dir, summary);
	t_result_release(&r);
	r = t_sh(dir, "cat summary.md");
	cr_expect(strstr(r.out, "Early cutoff foreseen: 1 expected") != NULL,
		  "%s", r.out);
	t_result_release(&r);
	r = ripple_ok(dir, run2);
	cr_expect(strstr(r.out, "2 built, 1 reused (1 cut off), 0 tested")
		  != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * lib's README alone changes: lib-wheel rebuilds for its input, so the
 * plan cannot know its payload; it says lib-tests is cut off if the
 * payload stays, and the run cuts it off. A code edit then runs it.
 */
Test(e2e_cutoff_plan, readme_edit_shows_cutoff_if_payload_unchanged)
{
	char *dir = setup();
	const char *plan[] = { "plan", "--base", "HEAD~1", "--json", NULL };
	const char *text[] = { "plan", "--base", "HEAD~1", NULL };
	const char *run2[] = { "run", "--run-id", "r2", "--base", "HEAD~1",
			       NULL };
	const char *run3[] = { "run", "--run-id", "r3", "--base", "HEAD~1",
			       NULL };
	struct run_result r;

	t_write(dir, "lib/README", "# lib\n\nBetter words.\n");
	cr_assert_eq(t_git_commit(dir, "lib readme"), 0);
	r = ripple_ok(dir, plan);
	expect_of(r.out, "test:lib-tests[root=lib]", "if-payload-unchanged",
		  "artifact:lib-wheel[root=lib]");
	t_result_release(&r);
	r = ripple_ok(dir, text);
	cr_expect(strstr(r.out, "1 cut off if rebuilt payloads are "
			 "unchanged") != NULL, "%s", r.out);
	t_result_release(&r);
	r = ripple_ok(dir, run2);
	cr_expect(strstr(r.out, "2 built, 1 reused (1 cut off), 0 tested")
		  != NULL, "%s", r.out);
	t_result_release(&r);
	t_write(dir, "lib/a.py", "x = 3\n");
	cr_assert_eq(t_git_commit(dir, "code"), 0);
	r = ripple_ok(dir, run3);
	cr_expect(strstr(r.out, "2 built, 0 reused (0 cut off), 1 tested")
		  != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * tools/mkconda.py: a .conda package of lib at $RIPPLE_VERSION, as a
 * RAPIDS conda build writes one: site-packages/lib-V.dist-info/METADATA
 * with lib/README as its long description, a build string naming the
 * commit (info/index.json `build`), info/about.json with the README too,
 * and a timestamp.
 */
static const char mkconda_py[] =
	"import io, json, os, subprocess, sys, tarfile, time, zipfile\n"
	"v = os.environ['RIPPLE_VERSION']\n"
	"rev = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'],\n"
	"                     capture_output=True, text=True).stdout.strip()\n"
	"readme = open('lib/README').read()\n"
	"def tar(files):\n"
	"    b = io.BytesIO()\n"
	"    with tarfile.open(fileobj=b, mode='w') as t:\n"
	"        for n, data in sorted(files.items()):\n"
	"            ti = tarfile.TarInfo(n)\n"
	"            ti.size = len(data)\n"
	"            t.addfile(ti, io.BytesIO(data.encode()))\n"
	"    return subprocess.run(['zstd', '-q', '-c'], input=b.getvalue(),\n"
	"                          capture_output=True, check=True).stdout\n"
	"build = 'py312_' + rev + '_0'\n"
	"stem = f'lib-{v}-{build}'\n"
	"sp = 'lib/python3.12/site-packages'\n"
	"pkg = {f'{sp}/lib/a.py': open('lib/a.py').read(),\n"
	"       f'{sp}/lib-{v}.dist-info/METADATA':\n"
	"           f'Metadata-Version: 2.1\\nName: lib\\nVersion: {v}\\n\\n'\n"
	"           + readme,\n"
	"       f'{sp}/lib-{v}.dist-info/RECORD': str(hash(readme))}\n"
	"info = {'info/index.json': json.dumps({'name': 'lib', 'version': v,\n"
	"            'build': build, 'build_number': 0, 'depends': ['python'],\n"
	"            'timestamp': int(time.time() * 1000)}),\n"
	"        'info/about.json': json.dumps({'description': readme})}\n"
	"os.makedirs('dist/conda', exist_ok=True)\n"
	"with zipfile.ZipFile(f'dist/conda/{stem}.conda', 'w') as z:\n"
	"    z.writestr('metadata.json', '{\"conda_pkg_format_version\": 2}')\n"
	"    z.writestr(f'pkg-{stem}.tar.zst', tar(pkg))\n"
	"    z.writestr(f'info-{stem}.tar.zst', tar(info))\n";

static const char conda_rules[] =
	"version: 1\n"
	"roots:\n"
	"  lib: {path: lib, tags: \"v*\", exclude: [], tests: []}\n"
	"sources:\n"
	"  tools: {paths: [tools/**]}\n"
	"artifacts:\n"
	"  lib-conda:\n"
	"    each: {root: [lib]}\n"
	"    inputs: [root.sources, tools]\n"
	"    command: [python3, tools/mkconda.py]\n"
	"    outputs: [\"dist/conda/lib-*.conda\"]\n"
	"    cutoff: payload\n"
	"    version: \"${root.version}\"\n"
	"tests:\n"
	"  conda-tests:\n"
	"    each: {root: [lib]}\n"
	"    needs: [lib-conda]\n"
	"    command: \"echo ran >> ran.log\"\n";

/*
 * A conda package seen through: a README edit (the dist-info METADATA's
 * long description, about.json) at a new dev version, build string and
 * timestamp leaves its payload, and its tests are cut off; a code edit
 * runs them.
 */
Test(e2e_cutoff_plan, conda_payload_sees_through_metadata_and_version)
{
	char *dir = t_git_init();
	const char *run1[] = { "run", "--run-id", "r1", NULL };
	const char *run2[] = { "run", "--run-id", "r2", "--base", "HEAD~1",
			       NULL };
	const char *run3[] = { "run", "--run-id", "r3", "--base", "HEAD~1",
			       NULL };
	struct run_result r;

	t_write(dir, ".gitignore", ".ripple/\ndist/\nran.log\n");
	t_write(dir, "tools/mkconda.py", mkconda_py);
	t_write(dir, "lib/a.py", "x = 1\n");
	t_write(dir, "lib/README", "# lib\n");
	t_write(dir, "ripple.yml", conda_rules);
	cr_assert_eq(t_git_commit(dir, "c0"), 0);
	sh_ok(dir, "git tag v1.0.0");
	t_write(dir, "lib/a.py", "x = 2\n");
	cr_assert_eq(t_git_commit(dir, "c1"), 0);
	r = ripple_ok(dir, run1);
	t_result_release(&r);
	t_write(dir, "lib/README", "# lib\n\nBetter words.\n");
	cr_assert_eq(t_git_commit(dir, "readme"), 0);
	r = ripple_ok(dir, run2);
	cr_expect(strstr(r.out, "1 built, 1 reused (1 cut off), 0 tested")
		  != NULL, "%s", r.out);
	t_result_release(&r);
	t_write(dir, "lib/a.py", "x = 3\n");
	cr_assert_eq(t_git_commit(dir, "code"), 0);
	r = ripple_ok(dir, run3);
	cr_expect(strstr(r.out, "1 built, 0 reused (0 cut off), 1 tested")
		  != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * The same with a real build: setuptools with setuptools-scm (Debian's
 * python3-setuptools-scm and python3-wheel, which ./configure installs)
 * writes lib/_version.py with version_tuple, the dist-info folder and
 * METADATA at the commit's dev version. The metapackage's README edit
 * re-versions the wheel (1.0.1.dev1+g... -> 1.0.1.dev2+g...) and its
 * test is cut off.
 */
static const char scm_setup_py[] =
	"from setuptools import setup\n"
	"setup(name='lib', packages=['lib'],\n"
	"      long_description=open('README').read(),\n"
	"      use_scm_version={'root': '..', 'relative_to': __file__,\n"
	"                       'write_to': 'lib/lib/_version.py'})\n";

static const char scm_rules[] =
	"version: 1\n"
	"roots:\n"
	"  lib: {path: lib, tags: \"v*\", exclude: [], tests: [], "
	"node-length: 7}\n"
	"  meta: {path: meta, tags: \"v*\", exclude: [], tests: [], "
	"node-length: 7}\n"
	"artifacts:\n"
	"  lib-wheel:\n"
	"    each: {root: [lib]}\n"
	"    inputs: [root.sources]\n"
	"    command: \"cd lib && /usr/bin/python3 setup.py -q bdist_wheel "
	"-d ../dist && rm -rf build\"\n"
	"    outputs: [\"dist/lib-*.whl\"]\n"
	"    cutoff: payload\n"
	"    version: \"${root.version}\"\n"
	"    version-group: pinned\n"
	"  meta-wheel:\n"
	"    each: {root: [meta]}\n"
	"    inputs: [root.sources]\n"
	"    command: \"mkdir -p dist && cp meta/README "
	"dist/meta-${root.version}.txt\"\n"
	"    outputs: [\"dist/meta-*.txt\"]\n"
	"    version: \"${root.version}\"\n"
	"    version-group: pinned\n"
	"tests:\n"
	"  lib-tests:\n"
	"    each: {root: [lib]}\n"
	"    needs: [lib-wheel]\n"
	"    command: \"echo ran >> ran.log\"\n";

Test(e2e_cutoff_plan, setuptools_scm_wheel_reversioned_is_cut_off)
{
	char *dir = t_git_init();
	const char *run1[] = { "run", "--run-id", "r1", NULL };
	const char *run2[] = { "run", "--run-id", "r2", "--base", "HEAD~1",
			       NULL };
	struct run_result r;

	r = t_sh(dir, "/usr/bin/python3 -c 'import setuptools_scm, wheel'");
	cr_assert_eq(r.status, 0, "Debian's python3-setuptools-scm and "
		     "python3-wheel are needed (./configure installs them): "
		     "%s", r.err);
	t_result_release(&r);
	t_write(dir, ".gitignore", ".ripple/\ndist/\nran.log\nlib/build/\n"
		"lib/*.egg-info/\nlib/lib/_version.py\n");
	t_write(dir, "lib/setup.py", scm_setup_py);
	t_write(dir, "lib/lib/__init__.py", "x = 1\n");
	t_write(dir, "lib/README", "# lib\n");
	t_write(dir, "meta/README", "# meta\n");
	t_write(dir, "ripple.yml", scm_rules);
	cr_assert_eq(t_git_commit(dir, "c0"), 0);
	sh_ok(dir, "git tag v1.0.0");
	t_write(dir, "lib/lib/__init__.py", "x = 2\n");
	cr_assert_eq(t_git_commit(dir, "c1"), 0);
	r = ripple_ok(dir, run1);
	t_result_release(&r);
	r = t_sh(dir, "/usr/bin/python3 -c \"import glob, zipfile; print("
		 "zipfile.ZipFile(glob.glob('dist/lib-*.whl')[0])"
		 ".read('lib/_version.py').decode())\"");
	cr_expect(strstr(r.out, "version_tuple = (1, 0, 1, 'dev1', 'g") !=
		  NULL, "a real setuptools-scm _version.py: %s", r.out);
	t_result_release(&r);
	t_write(dir, "meta/README", "# meta\n\nBetter words.\n");
	cr_assert_eq(t_git_commit(dir, "meta readme"), 0);
	sh_ok(dir, "rm -rf dist");
	r = ripple_ok(dir, run2);
	cr_expect(strstr(r.out, "2 built, 1 reused (1 cut off), 0 tested")
		  != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
