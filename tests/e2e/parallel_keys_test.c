/*
 * Suite e2e_parallel_keys: a plan keys the source sets no memo knows on
 * -j threads (engine/plan/eval_pool.c), and nothing it prints depends on
 * how many: on a generated repository of 40 sets (links inside a set and
 * across sets, excludes, policy.ignore, upstream edges), cold, partly
 * cold and why, the output with -j 1 and -j 4 (and RIPPLE_JOBS) is byte
 * for byte the same; a set whose trees are missing fails the plan with
 * the same message, for the same (first) set, every time; threads are
 * started only when there is enough to key (strace counts them); folders
 * 4,096 deep key, and 4,097 deep fail, alike on every thread.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

#define GIT_ID "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com " \
	"GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com " \
	"GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1; "

/*
 * 40 packages p00..p39: src/ (a.c, sub/b.c, deep/x/y.c, gen/out.c
 * excluded, NOTES.md ignored by policy) and package.json, one set and
 * one artifact each, every fifth needing the one before; p03/src/across
 * links into p04's set, p10/src/inside to its own sub/b.c. Tag base;
 * then p00..p11 edited, p03's link retargeted, p20 given a new folder.
 */
#define MAKE_REPO GIT_ID \
	"mkdir r && cd r && git init -q -b main && " \
	"for i in $(seq -w 0 39); do d=p$i/src; " \
	"mkdir -p $d/sub $d/deep/x $d/gen; echo a$i > $d/a.c; " \
	"echo b$i > $d/sub/b.c; echo y$i > $d/deep/x/y.c; " \
	"echo g > $d/gen/out.c; echo n > $d/NOTES.md; " \
	"echo '{}' > p$i/package.json; done && " \
	"ln -s ../../p04/src/a.c p03/src/across && " \
	"ln -s sub/b.c p10/src/inside && " \
	"{ echo 'version: 1'; echo 'policy: {ignore: [\"**/*.md\"]}'; " \
	"echo 'sources:'; for i in $(seq -w 0 39); do " \
	"echo \"  p$i-src: {paths: [p$i/src/**, p$i/package.json], " \
	"exclude: [p$i/src/gen/**]}\"; done; echo 'artifacts:'; " \
	"for i in $(seq -w 0 39); do n=${i#0}; " \
	"if [ $((n % 5)) -eq 4 ]; then up=\", needs: [p$(printf %02d " \
	"$((n - 1)))]\"; else up=; fi; echo \"  p$i: {inputs: [p$i-src], " \
	"command: [build, p$i]$up}\"; done; echo 'tests:'; " \
	"echo '  t: {needs: [p00, p13], command: [test]}'; } > ripple.yml && " \
	"printf '.ripple/\\n' > .gitignore && git add -A && " \
	"git commit -qm base && git tag base && " \
	"for i in $(seq -w 0 11); do echo edit >> p$i/src/a.c; done && " \
	"ln -sfn ../../p05/src/a.c p03/src/across && " \
	"mkdir -p p20/src/new && echo 1 > p20/src/new/n.c && " \
	"git add -A && git commit -qm head"

/* RIPPLE_BIN, else build/ripple, as an absolute path (malloc'd). */
static char *
ripple_path(void)
{
	const char *bin = getenv("RIPPLE_BIN");
	char *p = realpath(bin && *bin ? bin : "build/ripple", NULL);

	cr_assert_not_null(p, "no ripple binary");
	return p;
}

static void
must(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);

	cr_assert_eq(r.status, 0, "'%s' failed: %s%s", cmd, r.out, r.err);
	t_result_release(&r);
}

/* `ripple ARGS` in dir, with `env` (assignments, or "") before it. */
static struct run_result
ripple(const char *dir, const char *bin, const char *env, const char *args)
{
	char cmd[2 * PATH_MAX + 512];

	snprintf(cmd, sizeof(cmd), "%s '%s' %s", env, bin, args);
	return t_sh(dir, cmd);
}

/*
 * Each of `cmds` with -j 1, -j 4 and RIPPLE_JOBS=3 (no -j): the same exit
 * status, stdout and stderr. With `fails`, every command must fail.
 */
static void
same_any_jobs(const char *dir, const char *bin, const char *const *cmds,
	      int fails)
{
	char args[1024];
	size_t i, k;

	for (i = 0; cmds[i]; i++) {
		struct run_result one, many;

		snprintf(args, sizeof(args), "%s -j 1", cmds[i]);
		one = ripple(dir, bin, "", args);
		cr_assert_eq(one.status != 0, fails, "'%s': status %d: %s",
			     args, one.status, one.err);
		cr_assert(strlen(one.out) + strlen(one.err) > 40, "'%s': %s%s",
			  args, one.out, one.err);
		/* Several runs: a scheduling that changed anything would
		 * show in one of them. */
		for (k = 0; k < 4; k++) {
			snprintf(args, sizeof(args), "%s%s", cmds[i],
				 k == 3 ? "" : " -j 4");
			many = ripple(dir, bin, k == 3 ? "RIPPLE_JOBS=3" : "",
				      args);
			cr_expect_eq(many.status, one.status, "'%s': status "
				     "%d with threads, %d without", cmds[i],
				     many.status, one.status);
			cr_expect_str_eq(many.out, one.out, "'%s': stdout "
					 "differs with threads", cmds[i]);
			cr_expect_str_eq(many.err, one.err, "'%s': stderr "
					 "differs with threads", cmds[i]);
			t_result_release(&many);
		}
		t_result_release(&one);
	}
}

/* Threads ripple started for `args` in dir (clone calls under strace). */
static int
threads_started(const char *dir, const char *bin, const char *args)
{
	char cmd[3 * PATH_MAX + 512], *n;
	int count;

	snprintf(cmd, sizeof(cmd), "strace -f -qq -e trace=clone,clone3 "
		 "-o ../clones.txt '%s' %s >/dev/null && "
		 "{ grep -c clone ../clones.txt || true; }", bin, args);
	n = t_sh_out(dir, cmd);
	count = atoi(n);
	free(n);
	return count;
}

Test(e2e_parallel_keys, plans_and_why_are_the_same_on_any_number_of_threads,
     .timeout = 300)
{
	static const char *const cold[] = {
		"plan --base base --assume-base-built --json",
		"plan --base base --json",
		"plan --base base --assume-base-built --verbose",
		"why artifact:p03 --base base --assume-base-built",
		"why artifact:p04 --base base --assume-base-built --json",
		"why test:t --base base --assume-base-built --json",
		NULL
	};
	/* After a run recorded at base: the unchanged sets come from the
	 * memo, the 13 edited ones are keyed (partly cold). */
	static const char *const warm[] = {
		"plan --base base --json",
		"plan --base base --verbose",
		"why artifact:p03 --base base",
		NULL
	};
	char *tmp = t_tmpdir(), *bin = ripple_path();
	char dir[PATH_MAX], cmd[PATH_MAX + 256];

	must(tmp, MAKE_REPO);
	snprintf(dir, sizeof(dir), "%s/r", tmp);
	same_any_jobs(dir, bin, cold, 0);
	snprintf(cmd, sizeof(cmd), "'%s' record --run base --rev base "
		 "--node '*' --status ok >/dev/null && '%s' record --run base "
		 "--finish ok >/dev/null", bin, bin);
	must(dir, cmd);
	same_any_jobs(dir, bin, warm, 0);
	t_rmtree(tmp);
	free(tmp);
	free(bin);
}

Test(e2e_parallel_keys, threads_start_only_for_enough_sets, .timeout = 300)
{
	char *tmp = t_tmpdir(), *bin = ripple_path();
	char *strace = t_sh_out(tmp, "command -v strace || echo none");
	char dir[PATH_MAX];

	if (strace[0] != '/')
		cr_skip_test("strace is not installed");
	free(strace);
	must(tmp, MAKE_REPO);
	snprintf(dir, sizeof(dir), "%s/r", tmp);
	cr_expect_gt(threads_started(dir, bin, "plan --base base "
				     "--assume-base-built --json -j 4"), 0,
		     "40 sets to key and -j 4: no thread was started");
	cr_expect_eq(threads_started(dir, bin, "plan --base base "
				     "--assume-base-built --json -j 1"), 0,
		     "-j 1 started threads");
	/* No baseline: only the targets' 3 sets are keyed. */
	cr_expect_eq(threads_started(dir, bin, "plan --base base --json "
				     "'artifact:p0[0-2]' -j 4"), 0,
		     "3 sets to key are not worth threads");
	cr_expect_gt(threads_started(dir, bin, "plan --base base --json "
				     "'artifact:p[01]?' -j 4"), 0,
		     "20 sets to key and -j 4: no thread was started");
	t_rmtree(tmp);
	free(tmp);
	free(bin);
}

Test(e2e_parallel_keys, a_failing_set_fails_the_same_way_on_any_threads,
     .timeout = 300)
{
	static const char *const cmds[] = {
		"plan --base base --assume-base-built --json",
		"plan --base base --json",
		"why artifact:p30 --base base --assume-base-built",
		NULL
	};
	char *tmp = t_tmpdir(), *bin = ripple_path();
	char dir[PATH_MAX];
	struct run_result r;

	/* The folders deep/ of p07 and p21 lose their tree objects (loose:
	 * nothing was packed): their sets' walks fail, below the prefixes
	 * their memo ids read. */
	must(tmp, MAKE_REPO " && for p in p07 p21; do "
	     "t=$(git rev-parse HEAD:$p/src/deep) && "
	     "rm -f .git/objects/$(echo $t | cut -c1-2)/$(echo $t | "
	     "cut -c3-); done");
	snprintf(dir, sizeof(dir), "%s/r", tmp);
	same_any_jobs(dir, bin, cmds, 1);
	r = ripple(dir, bin, "", "plan --base base --assume-base-built -j 4");
	cr_expect(strstr(r.err, "p07-src") && !strstr(r.err, "p21-src"),
		  "the first failing set in the keying's order is reported: "
		  "%s", r.err);
	t_result_release(&r);
	t_rmtree(tmp);
	free(tmp);
	free(bin);
}

/*
 * Folders 4,096 deep (graph/tree.c's limit) are walked by recursion, on
 * the pool's threads with -j 4 (base/pool.c gives them an 8 MiB stack):
 * 16 sets over them (tests/support/mkdeep.py) key as with -j 1, and 4,097
 * deep fails with the same error on every thread, never a crash.
 * tools/windows/compare.sh does the same under Wine.
 */
Test(e2e_parallel_keys, a_tree_4096_deep_keys_the_same_on_any_threads,
     .timeout = 300)
{
	static const char *const ok[] = {
		"plan --head ok --json",
		"why artifact:n00 --head ok --json",
		NULL
	};
	static const char *const bad[] = {
		"plan --head bad --json",
		"why artifact:n01 --head bad --json",	/* keyed by tree ids */
		NULL
	};
	char *tmp = t_tmpdir(), *bin = ripple_path();
	char *src = realpath(t_srcdir(), NULL);
	char dir[PATH_MAX], cmd[2 * PATH_MAX + 512];
	struct run_result r;

	cr_assert_not_null(src, "no source folder");
	snprintf(cmd, sizeof(cmd), "mkdir r && cd r && git init -q && "
		 "ok=$(python3 '%s/tests/support/mkdeep.py' 4096 16) && "
		 "bad=$(python3 '%s/tests/support/mkdeep.py' 4097 16) && "
		 "git update-ref refs/heads/ok $ok && "
		 "git update-ref refs/heads/bad $bad && "
		 "git repack -adq >/dev/null 2>&1 && git prune", src, src);
	must(tmp, cmd);
	snprintf(dir, sizeof(dir), "%s/r", tmp);
	same_any_jobs(dir, bin, ok, 0);
	same_any_jobs(dir, bin, bad, 1);
	r = ripple(dir, bin, "", "plan --head bad --json -j 4");
	cr_expect(strstr(r.err, "input 'source:s00': tree too deep: folders "
			 "nest more than 4096 deep under 'd00/a/a/"),
		  "the first set's error: %s", r.err);
	t_result_release(&r);
	t_rmtree(tmp);
	free(tmp);
	free(bin);
	free(src);
}
