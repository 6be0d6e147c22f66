/*
 * examples/cuda-bindings/demo.sh end to end, with the ripple under test:
 * it must finish (exit 0) and show what it promises: three runners per CI
 * run, a pull-request plan that reuses, early cutoff, release dry runs
 * that pass at the CI-run tags and fail, with reasons, for the others.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

/*
 * The output of the command shown as "$ ripple ARGS" in out: from the line
 * after it up to the next command or heading. Malloc'd; NULL if absent.
 */
static char *
section(const char *out, const char *args)
{
	char head[256];
	const char *p, *end, *q;
	char *s;

	snprintf(head, sizeof(head), "\n$ ripple %s\n", args);
	p = strstr(out, head);
	if (!p)
		return NULL;
	p += strlen(head);
	end = p + strlen(p);
	q = strstr(p, "\n$ ripple ");
	if (q && q < end)
		end = q;
	q = strstr(p, "\n== ");
	if (q && q < end)
		end = q;
	s = malloc((size_t)(end - p) + 1);
	cr_assert_not_null(s);
	memcpy(s, p, (size_t)(end - p));
	s[end - p] = '\0';
	return s;
}

/* How many times needle occurs in text. */
static int
count(const char *text, const char *needle)
{
	int n = 0;

	while ((text = strstr(text, needle)) != NULL) {
		n++;
		text += strlen(needle);
	}
	return n;
}

/* Runs the demo once into a temp dir; returns its result. */
static struct run_result
run_demo(const char *tmp)
{
	char *src = realpath(t_srcdir(), NULL);
	const char *bin = getenv("RIPPLE_BIN");
	char *ripple = realpath(bin && *bin ? bin : "build/ripple", NULL);
	char cmd[3 * PATH_MAX + 256];
	struct run_result r;

	cr_assert_not_null(src);
	cr_assert_not_null(ripple, "no ripple binary");
	snprintf(cmd, sizeof(cmd),
		 "GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 "
		 "RIPPLE='%s' TMPDIR='%s' sh '%s/examples/cuda-bindings/demo.sh' "
		 "'%s/demo'", ripple, tmp, src, tmp);
	r = t_sh(tmp, cmd);
	free(ripple);
	free(src);
	return r;
}

/* No .timeout: criterion 2.4 leaks a timer when two tests set one. */
Test(e2e_demo_script, demo_runs_ci_plans_a_pr_and_checks_releases)
{
	char *tmp = t_tmpdir(), *s;
	struct run_result r = run_demo(tmp);
	const char *p;
	int build = -1, test = -1, reuse = -1;

	cr_assert_eq(r.status, 0, "demo.sh exited %d:\n%s\n%s", r.status,
		     r.out, r.err);
	/* Three runners joined each CI run. */
	cr_expect_eq(count(r.out, "run baseline ok: "), 3, "%s", r.out);
	cr_expect_eq(count(r.out, "run baseline: joining the run"), 2);
	cr_expect_eq(count(r.out, "run pr-bindings-12-fix ok: "), 3);
	cr_expect_eq(count(r.out, "run tag-v13.0.1 ok: "), 3);
	cr_expect_eq(count(r.out, "run tag-v12.9.9 ok: "), 3);
	/* The pull request's plan reuses some nodes and rebuilds others. */
	s = section(r.out, "plan --base main");
	cr_assert_not_null(s, "no plan in:\n%s", r.out);
	p = strstr(s, "\n   ");
	while (p && sscanf(p + 1, " %d build, %d test, %d reuse", &build,
			   &test, &reuse) != 3)
		p = strstr(p + 1, "\n   ");
	cr_expect_gt(build, 0, "%s", s);
	cr_expect_gt(reuse, 0, "%s", s);
	free(s);
	cr_expect(strstr(r.out, "Early cutoff: ") != NULL,
		  "no early cutoff:\n%s", r.out);
	/* Versions are the tag's at the tags. */
	cr_expect(strstr(r.out, "$ ripple version bindings-13\n13.0.1\n") != NULL);
	cr_expect(strstr(r.out, "$ ripple version bindings-12\n12.9.9\n") != NULL);
	/* Both release lines pass at their CI-run tags. */
	s = section(r.out, "release v13.0.1 --dry-run --artifacts "
		    ".ripple/uploads/v13.0.1");
	cr_assert_not_null(s, "%s", r.out);
	cr_expect(strstr(s, "release v13.0.1: release:bindings[root=bindings-13], "
			 "version 13.0.1") != NULL, "%s", s);
	cr_expect(strstr(s, "ok    versions      16 artifacts at version 13.0.1")
		  != NULL, "%s", s);
	cr_expect_null(strstr(s, "FAIL"), "%s", s);
	free(s);
	s = section(r.out, "release v12.9.9 --dry-run --artifacts "
		    ".ripple/uploads/v12.9.9");
	cr_assert_not_null(s, "%s", r.out);
	cr_expect(strstr(s, "ok    run           run tag-v12.9.9") != NULL, "%s", s);
	cr_expect_null(strstr(s, "FAIL"), "%s", s);
	free(s);
	/* The broken tags fail, saying why. */
	s = section(r.out, "release v13.0.01 --dry-run");
	cr_assert_not_null(s, "%s", r.out);
	cr_expect(strstr(s, "FAIL  tag-spelling  tag 'v13.0.01': release "
			 "segment '01' has a leading zero") != NULL, "%s", s);
	free(s);
	s = section(r.out, "release v13.0.0 --dry-run");
	cr_assert_not_null(s, "%s", r.out);
	cr_expect(strstr(s, "FAIL  run           no successful run for tag "
			 "'v13.0.0'") != NULL, "%s", s);
	free(s);
	cr_expect(strstr(r.out, "\nDone. ") != NULL);
	t_result_release(&r);
	t_rmtree(tmp);
	free(tmp);
}

Test(e2e_demo_script, demo_refuses_a_missing_ripple_binary)
{
	char *tmp = t_tmpdir(), *src = realpath(t_srcdir(), NULL);
	char cmd[2 * PATH_MAX + 128];
	struct run_result r;

	cr_assert_not_null(src);
	snprintf(cmd, sizeof(cmd), "RIPPLE='%s/none' sh "
		 "'%s/examples/cuda-bindings/demo.sh' '%s/demo'", tmp, src, tmp);
	r = t_sh(tmp, cmd);
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "no ripple binary") != NULL, "%s", r.err);
	t_result_release(&r);
	free(src);
	t_rmtree(tmp);
	free(tmp);
}
