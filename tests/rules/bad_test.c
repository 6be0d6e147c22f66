/*
 * Every tests/rules/bad/<case>.yml fails `ripple check` with exit 2 and
 * exactly the stderr text in <case>.err.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

Test(rules_bad, every_case_matches_its_expected_errors)
{
	char dirpath[4096];
	DIR *d;
	struct dirent *e;
	char *names[512];
	size_t n = 0, i;

	snprintf(dirpath, sizeof(dirpath), "%s/tests/rules/bad", t_srcdir());
	d = opendir(dirpath);
	cr_assert_not_null(d, "cannot open %s", dirpath);
	while ((e = readdir(d)) && n < 512) {
		size_t len = strlen(e->d_name);

		if (len > 4 && !strcmp(e->d_name + len - 4, ".yml"))
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	cr_assert_geq(n, 35, "only %zu bad cases", n);
	qsort(names, n, sizeof(names[0]), cmp_names);
	for (i = 0; i < n; i++) {
		char rel[512], errpath[4608];
		const char *argv[] = { "check", "--rules", rel, NULL };
		struct run_result r;
		char *want;

		snprintf(rel, sizeof(rel), "tests/rules/bad/%s", names[i]);
		snprintf(errpath, sizeof(errpath), "%s/tests/rules/bad/%.*s.err",
			 t_srcdir(), (int)(strlen(names[i]) - 4), names[i]);
		want = t_read(errpath);
		cr_assert_not_null(want, "missing %s", errpath);
		r = t_ripple(t_srcdir(), argv);
		cr_expect_eq(r.status, 2, "%s: exit %d", rel, r.status);
		cr_expect_str_eq(r.err, want, "%s: stderr differs", rel);
		cr_expect_str_eq(r.out, "", "%s: stdout not empty", rel);
		t_result_release(&r);
		free(want);
		free(names[i]);
	}
}

Test(rules_bad, demo_rules_check_ok)
{
	/* The example's checks read files of the demo repository, not ours. */
	const char *argv[] = { "check", "--no-drift", "--rules",
			       "examples/cuda-bindings/ripple.yml", NULL };
	struct run_result r = t_ripple(t_srcdir(), argv);

	cr_expect_eq(r.status, 0, "stderr: %s", r.err);
	cr_expect(strstr(r.out, "examples/cuda-bindings/ripple.yml: ok: "
			 "2 toolkits, 2 roots,") != NULL, "%s", r.out);
	t_result_release(&r);
}

Test(rules_bad, every_example_loads_and_expands)
{
	/* The real-repository rules too: their paths are other repos'. */
	static const char *const files[] = {
		"examples/cuda-bindings/ripple.yml",
		"examples/cuda-python/ripple.yml",
		"examples/rmm/ripple.yml",
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *argv[] = { "check", "--no-drift", "--rules",
				       files[i], NULL };
		struct run_result r = t_ripple(t_srcdir(), argv);

		cr_expect_eq(r.status, 0, "%s: %s", files[i], r.err);
		cr_expect(strstr(r.out, ": ok: ") != NULL, "%s", r.out);
		t_result_release(&r);
	}
}

Test(rules_bad, missing_file_is_reported)
{
	char *dir = t_tmpdir();
	const char *argv[] = { "check", NULL };
	struct run_result r = t_ripple(dir, argv);

	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "ripple.yml: error: cannot open") != NULL,
		  "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(rules_bad, dash_C_finds_the_default_file)
{
	char *dir = t_tmpdir();
	const char *argv[] = { "-C", dir, "check", NULL };
	struct run_result r;

	t_write(dir, "ripple.yml", "version: 1\n");
	r = t_ripple(".", argv);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "ripple.yml: ok: 0 toolkits, 0 roots, "
			 "0 sources, 0 axes, 0 artifacts, 0 tests, "
			 "0 releases, 0 targets, 0 checks\n");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(rules_bad, rapids_example_rules_check_ok)
{
	/*
	 * Its matrix file is a repository path (ci/test-matrix.yaml): check
	 * a copy of the example, a folder in no repository, from its root.
	 */
	char *dir = t_tmpdir(), cmd[8192], src[4096];
	const char *argv[] = { "-C", dir, "check", NULL };
	struct run_result r;

	cr_assert_not_null(realpath(t_srcdir(), src));
	snprintf(cmd, sizeof(cmd), "cp -R '%s/examples/rapids/.' .", src);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(".", argv);
	cr_expect_eq(r.status, 0, "stderr: %s", r.err);
	cr_expect_str_eq(r.err, "", "no warnings");
	cr_expect(strstr(r.out, "ripple.yml: ok: 2 toolkits, "
			 "0 roots, 10 sources, 2 axes, 5 artifacts, 5 tests")
		  != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
