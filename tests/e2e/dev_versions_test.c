/*
 * Suite e2e_dev_versions: two commits never share a dev version in one
 * family (issue 25). With version-source file+tags (RAPIDS), the
 * pre-release number is the distance from the nearest family tag, which
 * two branches can share; the commit's id, as setuptools-scm's
 * `+g<node>`, tells them apart. A tagged commit keeps its plain version.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static void
sh_ok(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);

	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	t_result_release(&r);
}

/* `ripple version rmm --rev REV`, exit 0, into out (no newline). */
static void
version_at(const char *dir, const char *rev, char *out, size_t n)
{
	const char *argv[] = { "version", "rmm", "--rev", rev, NULL };
	struct run_result r = t_ripple(dir, argv);

	cr_assert_eq(r.status, 0, "version --rev %s: %s", rev, r.err);
	snprintf(out, n, "%.*s", (int)strcspn(r.out, "\n"), r.out);
	t_result_release(&r);
}

/* "PUB+gHEX" with HEX the first 9 digits of REV's id. */
static void
expect_node(const char *dir, const char *rev, const char *got,
	    const char *pub)
{
	char *id = t_git_rev(dir, rev), want[128];

	snprintf(want, sizeof(want), "%s+g%.9s", pub, id);
	cr_expect_str_eq(got, want, "version at %s", rev);
	free(id);
}

Test(e2e_dev_versions, two_branches_at_one_distance_from_an_alpha_differ)
{
	char *dir = t_git_init();
	char a[128], b[128], tag[128];

	t_write(dir, "VERSION", "26.08.00\n");
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
	cr_assert_eq(t_git_commit(dir, "open 26.08"), 0);
	sh_ok(dir, "git branch -M main && git tag v26.08.00a && "
		   "git branch feature");
	t_write(dir, "cpp/a.cpp", "int y;\n");
	cr_assert_eq(t_git_commit(dir, "main work"), 0);
	sh_ok(dir, "git checkout -q feature && echo 'int z;' > cpp/b.cpp && "
		   "git add -A && git commit -qm 'feature work' && "
		   "git checkout -q main");
	version_at(dir, "main", a, sizeof(a));
	version_at(dir, "feature", b, sizeof(b));
	version_at(dir, "v26.08.00a", tag, sizeof(tag));
	cr_expect_str_neq(a, b, "two commits, one version: %s", a);
	expect_node(dir, "main", a, "26.8.0a1");
	expect_node(dir, "feature", b, "26.8.0a1");
	cr_expect_str_eq(tag, "26.8.0a0");
	t_rmtree(dir);
	free(dir);
}
