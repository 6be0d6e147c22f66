/*
 * Suite e2e_parallel_keys: a plan keys the source sets no memo knows on
 * -j threads (engine/plan/eval_pool.c), and nothing it prints depends on
 * how many: on a generated repository of 40 sets (links inside a set and
 * across sets, excludes, policy.ignore, upstream edges), cold, partly
 * cold and why, the output with -j 1 and -j 4 (and RIPPLE_JOBS) is byte
 * for byte the same; a set whose trees are missing fails the plan with
 * the same message, for the same (first) set, every time; a run records
 * the same keys, memo rows and manifests; threads are started only when
 * there is enough to key (strace counts them); more pack files than the
 * open-file limit plan as usual on any threads; folders 4,096 deep key,
 * and 4,097 deep fail, alike on every thread and under `ulimit -s 512`.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <sqlite3.h>
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

/* LeakSanitizer cannot run under ptrace: off for a ripple of the ASan
 * build under strace (it would end the command with a fatal error). */
#define NO_LSAN                                                               \
	"ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" "

/* Threads ripple started for `args` in dir (clone calls with
 * CLONE_THREAD under strace: not the processes it spawns). */
static int
threads_started(const char *dir, const char *bin, const char *args)
{
	char cmd[3 * PATH_MAX + 512], *n;
	int count;

	snprintf(cmd, sizeof(cmd), NO_LSAN "strace -f -qq -e "
		 "trace=clone,clone3 -o ../clones.txt '%s' %s >/dev/null && "
		 "{ grep -c CLONE_THREAD ../clones.txt || true; }", bin, args);
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

/*
 * The default number of threads is the processors ripple may run on: a
 * CI job pinned to one core (taskset, docker --cpuset-cpus) keys on one
 * thread, as nproc(1) would say, not on every core of the host.
 */
Test(e2e_parallel_keys, the_default_follows_the_cpu_affinity, .timeout = 300)
{
	char *tmp = t_tmpdir(), *bin = ripple_path();
	char *tools = t_sh_out(tmp, "command -v strace >/dev/null && "
			       "command -v taskset >/dev/null && "
			       "nproc --all || echo 0");
	char dir[PATH_MAX], cmd[PATH_MAX + 256], *n;

	if (atoi(tools) < 2)
		cr_skip_test("needs strace, taskset and 2 processors");
	free(tools);
	must(tmp, MAKE_REPO);
	snprintf(dir, sizeof(dir), "%s/r", tmp);
	cr_expect_gt(threads_started(dir, bin, "plan --base base "
				     "--assume-base-built --json"), 0,
		     "40 sets to key on %s: no thread was started", "all cores");
	snprintf(cmd, sizeof(cmd), NO_LSAN "taskset -c 0 strace -f -qq -e "
		 "trace=clone,clone3 -o ../clones.txt '%s' plan --base base "
		 "--assume-base-built --json >/dev/null && "
		 "{ grep -c CLONE_THREAD ../clones.txt || true; }", bin);
	n = t_sh_out(dir, cmd);
	cr_expect_eq(atoi(n), 0, "pinned to one processor, ripple started "
		     "%s threads", n);
	free(n);
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

Test(e2e_parallel_keys, bad_job_counts_are_usage_errors, .timeout = 120)
{
	static const struct {
		const char *env, *args, *says;
	} cases[] = {
		{ "RIPPLE_JOBS=zero", "plan", "RIPPLE_JOBS takes a number "
		  "from 1 to 4096, not 'zero'" },
		{ "RIPPLE_JOBS=0", "why artifact:p01", "RIPPLE_JOBS takes" },
		{ "", "plan -j 0", "-j takes a number from 1 to 4096, not '0'" },
		{ "", "why artifact:p01 --jobs 5000", "-j takes a number" },
		{ "RIPPLE_JOBS=-3", "run --dry-run", "RIPPLE_JOBS takes" },
	};
	char *tmp = t_tmpdir(), *bin = ripple_path();
	char dir[PATH_MAX];
	size_t i;

	must(tmp, MAKE_REPO);
	snprintf(dir, sizeof(dir), "%s/r", tmp);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run_result r = ripple(dir, bin, cases[i].env,
					     cases[i].args);

		cr_expect_eq(r.status, 2, "%s %s: status %d: %s", cases[i].env,
			     cases[i].args, r.status, r.err);
		cr_expect(strstr(r.err, cases[i].says), "%s %s: %s",
			  cases[i].env, cases[i].args, r.err);
		t_result_release(&r);
	}
	t_rmtree(tmp);
	free(tmp);
	free(bin);
}

/* The rows `sql` selects from the cache at db, one per line. */
static char *
dump(const char *db, const char *sql)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	size_t len = 0, cap = 4096;
	char *out = malloc(cap);
	int c, n;

	cr_assert_not_null(out);
	out[0] = '\0';
	cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL),
		     SQLITE_OK, "cannot open %s", db);
	cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK,
		     "%s: %s", sql, sqlite3_errmsg(h));
	while (sqlite3_step(st) == SQLITE_ROW) {
		n = sqlite3_column_count(st);
		for (c = 0; c < n; c++) {
			const char *v = (const char *)sqlite3_column_text(st, c);
			size_t vl = v ? strlen(v) : 4;

			while (len + vl + 2 >= cap) {
				cap *= 2;
				out = realloc(out, cap);
				cr_assert_not_null(out);
			}
			memcpy(out + len, v ? v : "NULL", vl);
			len += vl;
			out[len++] = c + 1 < n ? '|' : '\n';
			out[len] = '\0';
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
	return out;
}

/*
 * A run keeps every input's files for its records: the pool walks the
 * sets whole for it and the run takes each set's files where it would
 * have walked. Two fresh caches, -j 1 and -j 4: the same records, memo
 * rows and key manifests.
 */
Test(e2e_parallel_keys, a_run_records_the_same_on_any_number_of_threads,
     .timeout = 300)
{
	static const char *const tables[] = {
		"SELECT node_id, key, status, output_digest, artifacts, "
		"version, metadata FROM records ORDER BY node_id",
		"SELECT memo, key FROM source_keys ORDER BY memo",
		"SELECT k.key, c.pos, c.kind, c.name, c.digest, c.detail FROM "
		"manifest_keys k JOIN manifest_components c ON c.manifest = "
		"k.id ORDER BY k.key, c.pos",
		NULL
	};
	char *tmp = t_tmpdir(), *bin = ripple_path();
	char dir[PATH_MAX], cmd[2 * PATH_MAX + 512], db1[PATH_MAX + 32];
	char db4[PATH_MAX + 32], *strace;
	size_t i;

	must(tmp, MAKE_REPO " && sed -i 's/command: \\[build, p[0-9]*\\]/"
	     "command: [true]/; s/command: \\[test\\]/command: [true]/' "
	     "ripple.yml && git commit -qam true && mkdir ../c1 ../c4");
	snprintf(dir, sizeof(dir), "%s/r", tmp);
	snprintf(db1, sizeof(db1), "%s/c1/cache.db", tmp);
	snprintf(db4, sizeof(db4), "%s/c4/cache.db", tmp);
	strace = t_sh_out(tmp, "command -v strace || true");
	snprintf(cmd, sizeof(cmd), "RIPPLE_CACHE='%s' '%s' run -j 1 --run-id r "
		 ">/dev/null && RIPPLE_CACHE='%s' " NO_LSAN "%s%s '%s' run "
		 "-j 4 --run-id r >/dev/null", db1, bin, db4,
		 strace[0] ? strace : "", strace[0] ? " -f -qq -e trace=clone,"
		 "clone3 -o ../clones.txt" : "", bin);
	must(dir, cmd);
	if (strace[0]) {
		char *n = t_sh_out(dir, "grep -c CLONE_THREAD ../clones.txt "
				   "|| true");

		cr_expect_gt(atoi(n), 0, "run -j 4 keyed on one thread");
		free(n);
	}
	for (i = 0; tables[i]; i++) {
		char *one = dump(db1, tables[i]), *four = dump(db4, tables[i]);

		cr_expect(strlen(one) > 100, "%s: %s", tables[i], one);
		cr_expect_str_eq(four, one, "%s differs with threads",
				 tables[i]);
		free(one);
		free(four);
	}
	free(strace);
	t_rmtree(tmp);
	free(tmp);
	free(bin);
}

/* `ripple keys` walks a revision's sets on $RIPPLE_JOBS threads: the
 * same keys, components and errors for any number. */
Test(e2e_parallel_keys, keys_are_the_same_on_any_number_of_threads,
     .timeout = 300)
{
	static const char *const args[] = {
		"keys --components --json",
		"keys 'artifact:p0[4-5]' --components",
		"keys --rev HEAD~1",
		NULL
	};
	char *tmp = t_tmpdir(), *bin = ripple_path(), *strace;
	char dir[PATH_MAX], cmd[2 * PATH_MAX + 256];
	struct run_result one, four;
	size_t i;

	must(tmp, MAKE_REPO);
	snprintf(dir, sizeof(dir), "%s/r", tmp);
	for (i = 0; args[i]; i++) {
		one = ripple(dir, bin, "RIPPLE_JOBS=1", args[i]);
		four = ripple(dir, bin, "RIPPLE_JOBS=4", args[i]);
		cr_assert_eq(one.status, 0, "%s: %s", args[i], one.err);
		cr_expect_eq(four.status, 0, "%s: %s", args[i], four.err);
		cr_expect(strlen(one.out) > 100, "%s: %s", args[i], one.out);
		cr_expect_str_eq(four.out, one.out, "%s differs with threads",
				 args[i]);
		t_result_release(&one);
		t_result_release(&four);
	}
	strace = t_sh_out(tmp, "command -v strace || true");
	if (strace[0]) {
		snprintf(cmd, sizeof(cmd), "RIPPLE_JOBS=4 " NO_LSAN
			 "%s -f -qq -e trace=clone,clone3 -o ../clones.txt "
			 "'%s' keys >/dev/null && "
			 "{ grep -c CLONE_THREAD ../clones.txt || true; }",
			 strace, bin);
		free(strace);
		strace = t_sh_out(dir, cmd);
		cr_expect_gt(atoi(strace), 0, "keys walked on one thread");
	}
	free(strace);
	/* A set whose trees are missing: the same error either way. */
	must(dir, "t=$(git rev-parse HEAD:p07/src/deep) && rm -f "
	     ".git/objects/$(echo $t | cut -c1-2)/$(echo $t | cut -c3-)");
	one = ripple(dir, bin, "RIPPLE_JOBS=1", "keys");
	four = ripple(dir, bin, "RIPPLE_JOBS=4", "keys");
	cr_expect_neq(one.status, 0);
	cr_expect_eq(four.status, one.status);
	cr_expect(strstr(one.err, "p07-src"), "%s", one.err);
	cr_expect_str_eq(four.err, one.err);
	t_result_release(&one);
	t_result_release(&four);
	t_rmtree(tmp);
	free(tmp);
	free(bin);
}

/* A set whose pattern does not compile (an unterminated class): the
 * rules are refused (file:line:col) before anything is keyed, with the
 * same text on any number of threads. */
Test(e2e_parallel_keys, a_bad_pattern_fails_the_same_way_on_any_threads,
     .timeout = 300)
{
	static const char *const cmds[] = {
		"plan --base base --assume-base-built --json",
		"plan --base base",
		"why artifact:p30 --base base --assume-base-built",
		NULL
	};
	char *tmp = t_tmpdir(), *bin = ripple_path();
	char dir[PATH_MAX];
	struct run_result r;

	must(tmp, MAKE_REPO " && sed -i 's|p20/src/\\*\\*, p20|\"p20/src/[ab\", "
	     "p20|' ripple.yml && git commit -qam bad");
	snprintf(dir, sizeof(dir), "%s/r", tmp);
	same_any_jobs(dir, bin, cmds, 1);
	r = ripple(dir, bin, "", "plan --base base -j 4");
	cr_expect(strstr(r.err, "ripple.yml") && strstr(r.err, "p20/src/[ab"),
		  "the bad pattern is named where it is: %s", r.err);
	t_result_release(&r);
	t_rmtree(tmp);
	free(tmp);
	free(bin);
}

/*
 * A repository of more pack files than the open-file limit allows at once
 * (git fetches and `git maintenance` prefetches leave a pack each; macOS
 * starts processes with 256 descriptors): libgit2 keeps every pack it
 * read open, so a plan failed with EMFILE ("Too many open files") on one
 * thread, and with threads named a different set each run. Packs beyond
 * the limit are closed and opened again, as git does: the plan is the one
 * of an unlimited process, on any number of threads.
 */
Test(e2e_parallel_keys, more_packs_than_open_files_plan_as_usual,
     .timeout = 300)
{
	static const char *const jobs[] = { "-j 1", "-j 4", NULL };
	char *tmp = t_tmpdir(), *bin = ripple_path();
	char dir[PATH_MAX], args[256];
	struct run_result free_, r;
	size_t i, k;

	/* 40 more commits, each packed alone: the head's trees of every
	 * package lie in a pack of their own. */
	must(tmp, MAKE_REPO " && for i in $(seq -w 0 39); do "
	     "echo more >> p$i/src/sub/b.c && git commit -qam m$i && "
	     "git repack -q || exit 1; done && "
	     "test $(ls .git/objects/pack/*.pack | wc -l) -ge 40");
	snprintf(dir, sizeof(dir), "%s/r", tmp);
	free_ = ripple(dir, bin, "", "plan --base base --assume-base-built "
		       "--json -j 1");
	cr_assert_eq(free_.status, 0, "%s", free_.err);
	for (i = 0; jobs[i]; i++) {
		for (k = 0; k < 3; k++) {
			snprintf(args, sizeof(args), "plan --base base "
				 "--assume-base-built --json %s", jobs[i]);
			r = ripple(dir, bin, "ulimit -n 32 &&", args);
			cr_expect_eq(r.status, 0, "'%s' with 32 open files: "
				     "status %d: %s", args, r.status, r.err);
			cr_expect_str_eq(r.out, free_.out, "'%s' with 32 open "
					 "files planned otherwise", args);
			t_result_release(&r);
		}
	}
	t_result_release(&free_);
	t_rmtree(tmp);
	free(tmp);
	free(bin);
}

/*
 * Each of cmds under `ulimit -s 512` (a main thread's stack of 512 KiB,
 * far less than a 4,096-deep walk needs) as with the default stack, on
 * one thread and on four: the command runs on a thread of 8 MiB
 * (engine/cli/main.c), not into a crash.
 */
static void
small_stack_same(const char *dir, const char *bin, const char *const *cmds)
{
	static const char *const jobs[] = { " -j 1", " -j 4", NULL };
	char args[1024];
	size_t i, k;

	for (i = 0; cmds[i]; i++) {
		struct run_result one, small;

		snprintf(args, sizeof(args), "%s -j 1", cmds[i]);
		one = ripple(dir, bin, "", args);
		for (k = 0; jobs[k]; k++) {
			snprintf(args, sizeof(args), "%s%s", cmds[i], jobs[k]);
			small = ripple(dir, bin, "ulimit -s 512 &&", args);
			cr_expect_eq(small.status, one.status, "'%s' under "
				     "ulimit -s 512: status %d, %d with the "
				     "default stack", args, small.status,
				     one.status);
			cr_expect_str_eq(small.out, one.out, "'%s' under "
					 "ulimit -s 512: stdout differs", args);
			cr_expect_str_eq(small.err, one.err, "'%s' under "
					 "ulimit -s 512: stderr differs", args);
			t_result_release(&small);
		}
		t_result_release(&one);
	}
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
		 /* git 2.45 and later refuse trees deeper than their
		  * core.maxTreeDepth (4096) in repack and prune. */
		 "git -c core.maxTreeDepth=100000 repack -adq >/dev/null 2>&1 "
		 "&& git -c core.maxTreeDepth=100000 prune", src, src);
	must(tmp, cmd);
	snprintf(dir, sizeof(dir), "%s/r", tmp);
	same_any_jobs(dir, bin, ok, 0);
	same_any_jobs(dir, bin, bad, 1);
	small_stack_same(dir, bin, ok);
	small_stack_same(dir, bin, bad);
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
