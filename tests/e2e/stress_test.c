/*
 * Suite e2e_stress: what CI does to ripple, at scale. Runners of every
 * platform join one run id at once, round after round, and no record is
 * lost; ripple is killed with SIGKILL at random times while it has work to
 * do, and afterwards the cache is intact, no build process is left, no run
 * stays `running`, no ok record names outputs that are missing or differ
 * from a clean build's, and every rerun succeeds.
 *
 * Sizes come from the environment so `ninja check` runs a small version:
 * RIPPLE_STRESS_RUNNERS (default 8), RIPPLE_STRESS_ROUNDS (default 5; the
 * issue's figure is 50), RIPPLE_STRESS_KILLS (default 10; the issue's
 * figure is 100), RIPPLE_STRESS_SEED (default 1) for the kill times. Each
 * test prints its counts on stderr.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "cache/cache.h"
#include "engine/plan/record.h"
#include "graph/digest.h"
#include "tests/e2e/stress.h"
#include "tests/support/support.h"

#define MAX_RUNNERS 64

static struct cache *
open_cache(const char *dir)
{
	char path[PATH_MAX];
	struct cache *c = NULL;
	struct error err;

	snprintf(path, sizeof(path), "%s/.ripple/cache.db", dir);
	error_init(&err);
	cr_assert_eq(cache_open(path, 0, &c, &err), 0, "%s", err.msg);
	return c;
}

Test(e2e_stress, runners_joining_one_run_id_lose_no_record)
{
	int runners = ts_env_int("RIPPLE_STRESS_RUNNERS", 8);
	int rounds = ts_env_int("RIPPLE_STRESS_ROUNDS", 5);
	char *dir = t_git_init(), *bin = ts_ripple_bin();
	char rules[4096], plats[2048] = "";
	int i, n = 0, round, failed = 0, lost = 0, not_ok = 0;
	struct cache *c;

	if (runners > MAX_RUNNERS)
		runners = MAX_RUNNERS;
	for (i = 0; i < runners; i++)
		n += snprintf(plats + n, sizeof(plats) - (size_t)n, "%sp%d",
			      i ? ", " : "", i);
	snprintf(rules, sizeof(rules),
		 "version: 1\n"
		 "axes:\n  platform: [%s]\n"
		 "artifacts:\n"
		 "  w:\n"
		 "    each: {platform: axes.platform}\n"
		 "    command: \"mkdir -p out && echo ${platform} > "
		 "out/${platform}.bin\"\n"
		 "    outputs: [\"out/${platform}.bin\"]\n", plats);
	t_write(dir, ".gitignore", ".ripple/\nout/\n");
	t_write(dir, "ripple.yml", rules);
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	for (round = 0; round < rounds; round++) {
		pid_t pids[MAX_RUNNERS];
		char id[32], plat[MAX_RUNNERS][16];

		snprintf(id, sizeof(id), "ci-%d", round);
		for (i = 0; i < runners; i++) {
			const char *argv[] = { bin, "run", "--run-id", id,
					       "--platform", plat[i], "-j", "1",
					       NULL };

			snprintf(plat[i], sizeof(plat[i]), "p%d", i);
			pids[i] = ts_spawn(dir, argv, NULL);
		}
		for (i = 0; i < runners; i++)
			failed += ts_wait(pids[i]) != 0;
	}
	c = open_cache(dir);
	for (round = 0; round < rounds; round++) {
		struct cache_record_list recs;
		struct cache_run run;
		struct error err;
		char id[32];

		snprintf(id, sizeof(id), "ci-%d", round);
		error_init(&err);
		cr_assert_eq(cache_record_list(c, id, &recs, &err), 0, "%s",
			     err.msg);
		lost += runners - (int)recs.n;
		cache_record_list_release(&recs);
		cr_assert_eq(cache_run_get(c, id, &run, &err), 0, "%s",
			     err.msg);
		not_ok += run.status != CACHE_RUN_STATUS_OK;
		cache_run_release(&run);
	}
	cache_close(c);
	fprintf(stderr, "e2e_stress: %d runners x %d rounds joining one run "
		"id: %d runner failures, %d of %d records lost, %d runs not "
		"ok\n", runners, rounds, failed, lost, runners * rounds,
		not_ok);
	cr_expect_eq(failed, 0);
	cr_expect_eq(lost, 0);
	cr_expect_eq(not_ok, 0);
	free(bin);
	t_rmtree(dir);
	free(dir);
}

/*
 * Four nodes that rebuild at every commit (the seed changes) and two that
 * are reused; each action starts a child, waits for it, then writes its
 * output through a temporary file, as builds do.
 */
static const char kill_rules[] =
	"version: 1\n"
	"axes:\n  n: [\"1\", \"2\", \"3\", \"4\"]\n"
	"sources:\n"
	"  seed: {paths: [seed.txt]}\n"
	"  const: {paths: [const.txt]}\n"
	"artifacts:\n"
	"  s:\n"
	"    each: {n: axes.n}\n"
	"    inputs: [seed]\n"
	"    command: \"sleep 0.2 & sleep 0.1; wait; mkdir -p out; "
	"cat seed.txt > out/s${n}.tmp; echo ${n} >> out/s${n}.tmp; "
	"mv out/s${n}.tmp out/s${n}.txt\"\n"
	"    outputs: [\"out/s${n}.txt\"]\n"
	"  c:\n"
	"    each: {n: [\"1\", \"2\"]}\n"
	"    inputs: [const]\n"
	"    command: \"sleep 0.1; mkdir -p out; cat const.txt > "
	"out/c${n}.txt\"\n"
	"    outputs: [\"out/c${n}.txt\"]\n";

/*
 * One SIGKILL while an action (with a child of its own) runs: with only a
 * process group, the action and its child were left running and the run
 * stayed `running` for ever.
 */
Test(e2e_stress, a_sigkilled_run_leaves_no_process_and_is_interrupted)
{
	char *dir = t_git_init(), *bin = ts_ripple_bin();
	const char *run[] = { bin, "run", "--run-id", "k1", NULL };
	const char *runs[] = { "runs", "--json", NULL };
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	struct run_result r;
	pid_t pid, left[16];
	int waited;

	t_write(dir, ".gitignore", ".ripple/\n");
	t_write(dir, "ripple.yml", "version: 1\nartifacts:\n  a: {command: "
		"\"sleep 30 & sleep 30; echo done\"}\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	pid = ts_spawn(dir, run, NULL);
	/* ripple, then its action's shell and both sleeps */
	for (waited = 0; waited < 20000 &&
	     ts_procs_under(dir, 0, left, 16) < 4; waited += 20)
		nanosleep(&pause, NULL);
	cr_assert_lt(waited, 20000, "the action never started");
	kill(pid, SIGKILL);
	ts_wait(pid);
	cr_expect_eq(ts_procs_under(dir, 3000, left, 16), 0,
		     "build processes outlived ripple");
	r = t_ripple(dir, runs);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\"status\": \"interrupted\"") != NULL, "%s",
		  r.out);
	t_result_release(&r);
	/* never leave them behind, whatever ripple did */
	for (waited = ts_procs_under(dir, 0, left, 16); waited > 0; waited--)
		kill(left[waited - 1], SIGKILL);
	free(bin);
	t_rmtree(dir);
	free(dir);
}

/* A background job an action leaves behind dies when the action ends. */
Test(e2e_stress, what_an_action_leaves_running_is_killed)
{
	char *dir = t_git_init();
	const char *run[] = { "run", "--run-id", "r1", NULL };
	struct run_result r;
	pid_t left[16];
	int n;

	t_write(dir, ".gitignore", ".ripple/\n");
	t_write(dir, "ripple.yml", "version: 1\nartifacts:\n  a: {command: "
		"\"sleep 30 >/dev/null 2>&1 & echo started\"}\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	r = t_ripple(dir, run);
	cr_expect_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	cr_expect_eq(ts_procs_under(dir, 3000, left, 16), 0,
		     "the action's background job outlived it");
	for (n = ts_procs_under(dir, 0, left, 16); n > 0; n--)
		kill(left[n - 1], SIGKILL);
	t_rmtree(dir);
	free(dir);
}

/* Outputs of an ok record: present, and their digest is the recorded one. */
static int
outputs_match(const char *dir, const struct cache_record *rec)
{
	struct digest d;
	struct error err;

	if (!rec->output_digest)
		return rec->artifacts.n == 0;
	error_init(&err);
	if (record_output_digest(dir, (const char *const *)rec->artifacts.v,
				 rec->artifacts.n, &d, &err))
		return 0;
	return !strcmp(d.hex, rec->output_digest);
}

/*
 * Check the killed run against the rerun at the same commit: every ok
 * record of the killed run with the rerun's key has the rerun's output
 * digest, and every ok record of the rerun matches the files. Returns how
 * many records are wrong.
 */
static int
bad_records(struct cache *c, const char *dir, const char *killed,
	    const char *rerun, int *checked)
{
	struct cache_record_list k, r;
	struct error err;
	size_t i, j;
	int bad = 0;

	error_init(&err);
	cr_assert_eq(cache_record_list(c, killed, &k, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_record_list(c, rerun, &r, &err), 0, "%s", err.msg);
	for (j = 0; j < r.n; j++) {
		if (r.items[j].status != CACHE_RECORD_STATUS_OK)
			continue;
		(*checked)++;
		if (!outputs_match(dir, &r.items[j])) {
			fprintf(stderr, "bad: %s of run %s: outputs differ\n",
				r.items[j].node_id, rerun);
			bad++;
		}
	}
	for (i = 0; i < k.n; i++) {
		const struct cache_record *a = &k.items[i];

		if (a->status != CACHE_RECORD_STATUS_OK)
			continue;
		(*checked)++;
		for (j = 0; j < r.n; j++)
			if (!strcmp(r.items[j].node_id, a->node_id))
				break;
		if (j == r.n || strcmp(r.items[j].key, a->key) ||
		    !a->output_digest || !r.items[j].output_digest ||
		    strcmp(r.items[j].output_digest, a->output_digest)) {
			fprintf(stderr, "bad: %s of killed run %s\n",
				a->node_id, killed);
			bad++;
		}
	}
	cache_record_list_release(&k);
	cache_record_list_release(&r);
	return bad;
}

Test(e2e_stress, sigkill_at_random_times_leaves_nothing_wrong)
{
	int kills = ts_env_int("RIPPLE_STRESS_KILLS", 10);
	unsigned seed = (unsigned)ts_env_int("RIPPLE_STRESS_SEED", 1);
	char *dir = t_git_init(), *bin = ts_ripple_bin(), *logs = t_tmpdir();
	char text[64], log[PATH_MAX];
	int i, orphans = 0, failed_reruns = 0, bad = 0, checked = 0;
	int mid_action = 0, running = 0;
	struct cache_run_list runs;
	struct cache *c;
	struct error err;
	size_t k;

	t_write(dir, ".gitignore", ".ripple/\nout/\n");
	t_write(dir, "ripple.yml", kill_rules);
	t_write(dir, "seed.txt", "seed\n");
	t_write(dir, "const.txt", "const\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	snprintf(log, sizeof(log), "%s/rerun.log", logs);
	for (i = 0; i < kills; i++) {
		char kid[32], rid[32];
		const char *killed[] = { bin, "run", "--run-id", kid, "--base",
					 "HEAD~1", "-j", "3", NULL };
		const char *rerun[] = { bin, "run", "--run-id", rid, "--base",
					"HEAD~1", "-j", "3", NULL };
		struct timespec pause;
		pid_t pid, left[16];
		long delay = (long)(rand_r(&seed) % 900);

		snprintf(kid, sizeof(kid), "kill-%d", i);
		snprintf(rid, sizeof(rid), "rerun-%d", i);
		snprintf(text, sizeof(text), "seed %d\n", i);
		t_write(dir, "seed.txt", text);
		cr_assert_eq(t_git_commit(dir, "seed"), 0);
		pid = ts_spawn(dir, killed, NULL);
		pause.tv_sec = delay / 1000;
		pause.tv_nsec = (delay % 1000) * 1000000;
		nanosleep(&pause, NULL);
		/* an action is under way when some process other than
		   ripple works in the repository */
		mid_action += ts_procs_under(dir, 0, left, 16) > 2;
		kill(pid, SIGKILL);
		ts_wait(pid);
		orphans += ts_procs_under(dir, 3000, left, 16);
		if (ts_wait(ts_spawn(dir, rerun, log)) != 0) {
			char *l = t_read(log);

			fprintf(stderr, "rerun %d failed:\n%s\n", i,
				l ? l : "");
			free(l);
			failed_reruns++;
		}
		c = open_cache(dir);
		bad += bad_records(c, dir, kid, rid, &checked);
		cache_close(c);
	}
	c = open_cache(dir);
	error_init(&err);
	cr_expect_eq(cache_integrity_check(c, &err), 0, "%s", err.msg);
	cr_assert_eq(cache_run_list(c, NULL, &runs, &err), 0, "%s", err.msg);
	for (k = 0; k < runs.n; k++)
		running += runs.items[k].status == CACHE_RUN_STATUS_RUNNING;
	cache_run_list_release(&runs);
	cache_close(c);
	fprintf(stderr, "e2e_stress: %d SIGKILLs (%d during an action): "
		"integrity_check %s, %d processes left, %d runs left "
		"running, %d of %d ok records wrong, %d of %d reruns "
		"failed\n", kills, mid_action, err.code ? "FAILED" : "ok",
		orphans, running, bad, checked, failed_reruns, kills);
	cr_expect_eq(orphans, 0);
	cr_expect_eq(running, 0);
	cr_expect_eq(bad, 0);
	cr_expect_eq(failed_reruns, 0);
	free(bin);
	t_rmtree(logs);
	free(logs);
	t_rmtree(dir);
	free(dir);
}
