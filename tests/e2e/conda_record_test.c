/*
 * Suite e2e_conda_record: `ripple record` takes a conda package's version
 * from its info/index.json (issue 25), read with libarchive from real
 * packages made here: a `.tar.bz2` (a bzip2 tarball) and a `.conda` (a
 * zip holding info-*.tar.zst and pkg-*.tar.zst, zstd tarballs), as
 * conda-build and conda-package-handling write them. A package whose
 * file name and index.json disagree is refused.
 */
#include <criterion/criterion.h>
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

static void
sh_ok(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);

	cr_assert_eq(r.status, 0, "%s: %s\n%s", cmd, r.err, r.out);
	t_result_release(&r);
}

static char *
conda_repo(void)
{
	char *dir = t_git_init(), path[4096], *py;

	t_write(dir, ".gitignore", ".ripple/\ndist/\n");
	t_write(dir, "pkg/a.py", "x = 1\n");

	/* tests/support/mkconda.py: KIND PATH NAME VERSION BUILD. */
	snprintf(path, sizeof(path), "%s/tests/support/mkconda.py",
		 t_srcdir());
	py = t_read(path);
	cr_assert_not_null(py, "%s", path);
	t_write(dir, "mkconda.py", py);
	free(py);
	t_write(dir, "ripple.yml",
		"version: 1\n"
		"roots:\n"
		"  pkg: {path: pkg, tags: \"v*\"}\n"
		"artifacts:\n"
		"  conda:\n"
		"    each: {root: [pkg]}\n"
		"    inputs: [root.sources]\n"
		"    command: [\"true\"]\n"
		"    outputs: [\"dist/linux-64/*.conda\", "
		"\"dist/linux-64/*.tar.bz2\"]\n"
		"    version: \"${root.version}\"\n"
		"releases:\n"
		"  pkg:\n"
		"    each: {root: [pkg]}\n"
		"    tag: root.tags\n"
		"    artifacts: [conda]\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	sh_ok(dir, "git tag v1.0.5");
	return dir;
}

static struct run_result
record(const char *dir, int status, const char *artifact)
{
	const char *argv[] = { "record", "--run", "t", "--tag", "v1.0.5",
			       "--node", "artifact:conda[root=pkg]",
			       "--status", "ok", "--artifact", artifact,
			       NULL };

	return ripple_expect(dir, status, argv);
}

/* Both formats, named as their index.json says: recorded at 1.0.5 and
 * releasable. */
Test(e2e_conda_record, version_read_from_index_json_of_both_formats)
{
	char *dir = conda_repo();
	const char *fin[] = { "record", "--run", "t", "--finish", "ok", NULL };
	const char *rel[] = { "release", "v1.0.5", "--dry-run", NULL };
	const char *two[] = { "record", "--run", "t", "--tag", "v1.0.5",
			      "--node", "artifact:conda[root=pkg]",
			      "--status", "ok", "--artifact",
			      "dist/linux-64/pkg-1.0.5-h1234_0.conda",
			      "--artifact",
			      "dist/linux-64/pkg-1.0.5-h1234_0.tar.bz2", NULL };
	struct run_result r;

	sh_ok(dir, "python3 mkconda.py conda "
		   "dist/linux-64/pkg-1.0.5-h1234_0.conda pkg 1.0.5 h1234_0 && "
		   "python3 mkconda.py bz2 "
		   "dist/linux-64/pkg-1.0.5-h1234_0.tar.bz2 pkg 1.0.5 h1234_0");
	r = ripple_expect(dir, 0, two);
	t_result_release(&r);
	r = ripple_expect(dir, 0, fin);
	t_result_release(&r);
	r = ripple_expect(dir, 0, rel);
	cr_expect(strstr(r.out, "at version 1.0.5") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Named 1.0.5, built as 1.0.4 (or under another build string): the
 * file name alone would pass; index.json refuses it, in either format.
 */
Test(e2e_conda_record, file_name_and_index_json_must_agree)
{
	char *dir = conda_repo();
	const char *runs[] = { "runs", NULL };
	struct run_result r;

	sh_ok(dir, "python3 mkconda.py conda "
		   "dist/linux-64/pkg-1.0.5-h1234_0.conda pkg 1.0.4 h1234_0 && "
		   "python3 mkconda.py bz2 "
		   "dist/linux-64/pkg-1.0.5-h1234_0.tar.bz2 pkg 1.0.5 h9999_0");
	r = record(dir, 2, "dist/linux-64/pkg-1.0.5-h1234_0.conda");
	cr_expect(strstr(r.err, "info/index.json says name 'pkg', version "
			 "'1.0.4', build 'h1234_0'") != NULL, "%s", r.err);
	t_result_release(&r);
	r = record(dir, 2, "dist/linux-64/pkg-1.0.5-h1234_0.tar.bz2");
	cr_expect(strstr(r.err, "build 'h9999_0' (named "
			 "'pkg-1.0.5-h9999_0.tar.bz2')") != NULL, "%s", r.err);
	t_result_release(&r);
	r = ripple_expect(dir, 0, runs);
	cr_expect(strstr(r.out, " t ") == NULL, "nothing recorded: %s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* A .conda without its info tarball is no package to trust: refused,
 * saying what it lacks. */
Test(e2e_conda_record, conda_without_info_is_refused)
{
	char *dir = conda_repo();
	struct run_result r;

	sh_ok(dir, "python3 mkconda.py conda-noinfo "
		   "dist/linux-64/pkg-1.0.5-h1234_0.conda pkg 1.0.5 h1234_0");
	r = record(dir, 2, "dist/linux-64/pkg-1.0.5-h1234_0.conda");
	cr_expect(strstr(r.err, "holds no info-*.tar.zst") != NULL, "%s",
		  r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
