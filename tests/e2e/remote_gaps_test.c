/*
 * Suite e2e_remote_gaps: a cache gap is a slowdown, never a failure and
 * never a wrong answer (issues 22 and 23), on real clones sharing only a
 * real nginx (tests/support/nginx.h): an output blob evicted under a live
 * AC entry, a runner killed during its upload (and the next run with the
 * credential publishing what it left), the server stopped in the middle
 * of a run, and garbage PUT at a digest before main builds it. Every test
 * checks the bytes it ran on (`cmp` against the true content).
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "tests/support/nginx.h"
#include "tests/support/support.h"

/* The wheel's true bytes, which unit checks byte for byte. */
#define WHEEL_TEXT "int a;\nw\n"

TestSuite(e2e_remote_gaps, .init = t_fx_setup, .fini = t_fx_teardown,
	  .timeout = 300);

/*
 * The rules: lib from src, wheel from lib (plus `extra`, a shell command
 * run after it: a big second output), unit checking the wheel's bytes;
 * `stop` (when not NULL) an artifact unit needs too, whose command runs
 * first (stopping the server).
 */
static void
origin(const char *extra, const char *stop, const char *const *clones,
       size_t n)
{
	char rules[2048], cmd[512];
	size_t i;

	snprintf(rules, sizeof(rules),
		 "version: 1\n"
		 "sources:\n"
		 "  src: {paths: [src/**]}\n"
		 "artifacts:\n"
		 "  lib:\n"
		 "    inputs: [src]\n"
		 "    command: [sh, -c, 'mkdir -p dist/lib && cat src/a.c > "
		 "dist/lib/lib.txt']\n"
		 "    outputs: [dist/lib/lib.txt]\n"
		 "  wheel:\n"
		 "    needs: [lib]\n"
		 "    command: [sh, -c, 'mkdir -p dist/w && cat "
		 "dist/lib/lib.txt > dist/w/w.whl && echo w >> dist/w/w.whl"
		 "%s%s']\n"
		 "    outputs: ['dist/w/*']\n"
		 "%s%s%s"
		 "tests:\n"
		 "  unit:\n"
		 "    needs: [wheel%s]\n"
		 "    command: [sh, -c, 'printf \"int a;\\nw\\n\" | cmp - "
		 "dist/w/w.whl']\n",
		 extra ? " && " : "", extra ? extra : "",
		 stop ? "  stop:\n    command: [sh, -c, '" : "",
		 stop ? stop : "", stop ? "']\n" : "",
		 stop ? ", stop" : "");
	free(t_sh_out(t_fx.tmp, "git init -q -b main origin"));
	t_write(t_fx.tmp, "origin/ripple.yml", rules);
	t_write(t_fx.tmp, "origin/.gitignore", ".ripple/\ndist/\n");
	t_write(t_fx.tmp, "origin/src/a.c", "int a;\n");
	free(t_sh_out(t_fx.tmp, "cd origin && git add -A && git -c "
		      "user.name=t -c user.email=t@example.com commit -qm "
		      "init"));
	for (i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "git clone -q origin %s", clones[i]);
		free(t_sh_out(t_fx.tmp, cmd));
	}
}

/* The SHA-256 of a file of a clone (or of the server's root). */
static char *
sha_of(const char *dir, const char *rel)
{
	char cmd[2 * PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "sha256sum < '%s/%s' | cut -c1-64", dir,
		 rel);
	return t_sh_out(t_fx.tmp, cmd);
}

/* Entries the server holds in "ac" or "cas". */
static int
stored(const char *space)
{
	char cmd[PATH_MAX], *s;
	int n;

	snprintf(cmd, sizeof(cmd), "ls '%s/%s' 2>/dev/null | wc -l",
		 t_fx.ng.root, space);
	s = t_sh_out(t_fx.tmp, cmd);
	n = atoi(s);
	free(s);
	return n;
}

static const char *const main_run[] = { "run", "lib", "wheel", NULL };
static const char *const unit_job[] = { "run", "--only", "test:*",
					 "--reuse", "any", NULL };

/* A runner of main publishes lib and wheel; returns the wheel's digest. */
static char *
publish_main(const char *clone)
{
	struct run_result r = t_fx_ripple(clone, main_run, NULL);
	char dir[PATH_MAX];

	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "published 2 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	snprintf(dir, sizeof(dir), "%s/%s", t_fx.tmp, clone);
	return sha_of(dir, "dist/w/w.whl");
}

/* The clone ran unit on the true wheel. */
static void
expect_true_wheel(const char *clone, const char *wheel_sha)
{
	char dir[PATH_MAX], *s;

	snprintf(dir, sizeof(dir), "%s/%s", t_fx.tmp, clone);
	s = sha_of(dir, "dist/w/w.whl");
	cr_expect_str_eq(s, wheel_sha, "%s ran on the true wheel", clone);
	free(s);
}

/*
 * nginx with pruning: the wheel's output blob is evicted, its AC entry
 * lives on. A later job that needs it rebuilds it (an AC hit whose blob
 * is gone is a miss), says so, and puts the blob back; the gate counts
 * the gap rebuild. Under --strict-cache the job fails as before.
 */
Test(e2e_remote_gaps, an_evicted_output_blob_is_rebuilt_by_the_job)
{
	const char *clones[] = { "a", "b", "c", "d" };
	const char *strict[] = { "run", "--only", "test:*", "--reuse", "any",
				 "--strict-cache", NULL };
	const char *gate[] = { "gate", NULL };
	char blob[PATH_MAX], *wheel;
	struct run_result r;
	struct stat st;

	t_fx_serve();
	origin(NULL, NULL, clones, 4);
	wheel = publish_main("a");
	snprintf(blob, sizeof(blob), "%s/cas/%s", t_fx.ng.root, wheel);
	cr_assert_eq(unlink(blob), 0, "the wheel's blob was on the server");
	r = t_fx_ripple("c", strict, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "cannot get the bytes of artifact:wheel") !=
		  NULL, "%s", r.out);
	t_result_release(&r);
	r = t_fx_ripple("b", unit_job, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "1 rebuilt because of a cache gap") != NULL,
		  "%s", r.out);
	cr_expect(strstr(r.out, "artifact:wheel (ok): cannot get the bytes "
			 "of artifact:wheel") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, wheel) != NULL, "names the blob: %s", r.out);
	cr_expect(strstr(r.out, "1 built, 1 reused (0 cut off), 1 tested")
		  != NULL, "%s", r.out);
	t_result_release(&r);
	expect_true_wheel("b", wheel);
	cr_expect_eq(stat(blob, &st), 0, "the rebuild put the blob back");
	r = t_fx_ripple("d", gate, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "1 of them rebuilt because of a cache gap")
		  != NULL, "%s", r.out);
	t_result_release(&r);
	free(wheel);
}

/*
 * A runner killed (SIGKILL) while it uploads its big wheel: the wheel is
 * recorded ok in its local cache but not on the server. A fork's job (no
 * credential: read-only) builds the wheel itself and completes; the
 * runner's next run, with the credential, publishes what it left; then a
 * fresh job reuses everything.
 */
Test(e2e_remote_gaps, a_runner_killed_during_its_upload_publishes_next_time)
{
	const char *clones[] = { "a", "fork", "c" };
	const char *again[] = { "run", "lib", "wheel", "--reuse", "any",
				NULL };
	char cmd[4 * PATH_MAX], *bin, *out, *wheel;
	struct run_result r;
	int tries;

	t_fx_serve();
	origin("head -c 300000000 /dev/zero > dist/w/big.bin", NULL, clones,
	       3);
	bin = realpath(getenv("RIPPLE_BIN") ? getenv("RIPPLE_BIN")
					    : "build/ripple", NULL);
	cr_assert_not_null(bin);
	/* Killed once nginx is receiving a body, before the AC entry. */
	for (tries = 0; tries < 3; tries++) {
		snprintf(cmd, sizeof(cmd),
			 "rm -rf dist .ripple '%s/ac' '%s/cas' "
			 "'%s/tmp/body'/*; "
			 "'%s' run lib wheel --remote-cache %s >/dev/null "
			 "2>&1 & p=$!; i=0; while [ $i -lt 6000 ] && "
			 "[ -z \"$(find '%s/tmp/body' -type f -size +1M)\" "
			 "]; do i=$((i+1)); sleep 0.005; done; kill -9 $p; "
			 "wait $p; ls '%s/ac' 2>/dev/null | wc -l",
			 t_fx.ng.root, t_fx.ng.root, t_fx.ng.dir, bin,
			 t_fx.ng.url, t_fx.ng.dir, t_fx.ng.root);
		{
			char dir[PATH_MAX];
			struct run_result k;

			snprintf(dir, sizeof(dir), "%s/a", t_fx.tmp);
			k = t_sh(dir, cmd);
			out = strdup(k.out);
			t_result_release(&k);
		}
		if (atoi(out) <= 1) {	/* lib's entry at most */
			free(out);
			break;
		}
		free(out);
	}
	free(bin);
	cr_assert_lt(tries, 3, "the kill never came during the upload");
	wheel = t_sh_out(t_fx.tmp, "sha256sum < a/dist/w/w.whl | cut -c1-64");
	/* A fork's job: reads, builds the gap itself, writes nothing. */
	r = t_fx_ripple("fork", unit_job, "--remote-read-only");
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "rebuilt because of a cache gap") != NULL,
		  "%s", r.out);
	cr_expect(strstr(r.out, "artifact:wheel (ok): a selected node needs "
			 "it") != NULL, "%s", r.out);
	cr_expect(strstr(r.err, "published 0 nodes (read-only)") != NULL,
		  "%s", r.err);
	t_result_release(&r);
	expect_true_wheel("fork", wheel);
	/* The runner again, with the credential: it publishes the wheel. */
	r = t_fx_ripple("a", again, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "0 built, 2 reused") != NULL, "%s", r.out);
	cr_expect(strstr(r.err, "published 1 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	cr_expect_eq(stored("ac"), 2, "lib's and wheel's entries");
	/* Published once: a third run sends nothing. */
	r = t_fx_ripple("a", again, NULL);
	cr_expect(strstr(r.err, "published 0 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	r = t_fx_ripple("c", unit_job, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "0 built, 2 reused (0 cut off), 1 tested") !=
		  NULL, "%s", r.out);
	cr_expect(strstr(r.out, "cache gap") == NULL, "%s", r.out);
	t_result_release(&r);
	expect_true_wheel("c", wheel);
	free(wheel);
}

/*
 * The server stops in the middle of a job (the `stop` node kills it after
 * the plan found lib and wheel there, before unit fetches the wheel): the
 * job warns once, builds what it needed itself, and completes.
 */
Test(e2e_remote_gaps, the_server_stopped_mid_run_slows_the_job_down)
{
	const char *clones[] = { "a", "b" };
	char stop[128], *wheel;
	struct run_result r;

	t_fx_serve();
	snprintf(stop, sizeof(stop), "kill %ld", (long)t_fx.ng.pid);
	origin(NULL, stop, clones, 2);
	wheel = publish_main("a");
	r = t_fx_ripple("b", unit_job, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	/* stop, needed and not recorded, is a gap too: its publish is the
	 * first request to fail. Then lib and wheel cannot be fetched. */
	cr_expect(strstr(r.err, "warning: remote cache") != NULL, "%s", r.err);
	cr_expect(strstr(r.out, "3 rebuilt because of a cache gap") != NULL,
		  "%s", r.out);
	cr_expect(strstr(r.out, "artifact:wheel (ok): cannot get the bytes "
			 "of artifact:wheel: remote cache") != NULL, "%s",
		  r.out);
	cr_expect(strstr(r.out, "3 built, 0 reused (0 cut off), 1 tested") !=
		  NULL, "%s", r.out);
	t_result_release(&r);
	expect_true_wheel("b", wheel);
	free(wheel);
}

/*
 * Issue 22: a pull request PUTs garbage of the right size at the SHA-256
 * of the wheel main will build (it can build it first, or predict it).
 * Main's run publishes the wheel over it; the consumer after it fetches
 * the true bytes: no digest mismatch, no rebuild. A remote reuse is then
 * recorded locally: with the server gone, the consumer plans all reused.
 */
Test(e2e_remote_gaps, garbage_put_before_main_builds_is_healed_by_main)
{
	const char *clones[] = { "main", "consumer" };
	const char *plan[] = { "plan", "--reuse", "any", NULL };
	char *true_sha, *wheel, *evil, at[PATH_MAX];
	struct run_result r;

	t_fx_serve();
	origin(NULL, NULL, clones, 2);
	t_write(t_fx.tmp, "w.whl", WHEEL_TEXT);
	true_sha = sha_of(t_fx.tmp, "w.whl");
	evil = strdup(WHEEL_TEXT);
	cr_assert_not_null(evil);
	evil[0] = 'I';	/* same size */
	snprintf(at, sizeof(at), "cas/%s", true_sha);
	t_write(t_fx.ng.root, at, evil);
	free(evil);
	wheel = publish_main("main");
	cr_expect_str_eq(wheel, true_sha, "the digest was predictable");
	r = t_fx_ripple("consumer", unit_job, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "cache gap") == NULL, "healed before: %s",
		  r.out);
	cr_expect(strstr(r.out, "0 built, 2 reused (0 cut off), 1 tested") !=
		  NULL, "%s", r.out);
	cr_expect(strstr(r.err, "fetched 1 files") != NULL, "%s", r.err);
	t_result_release(&r);
	expect_true_wheel("consumer", true_sha);
	t_nginx_stop(&t_fx.ng);
	r = t_fx_ripple("consumer", plan, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "0 build, 0 test, 3 reuse") != NULL, "%s",
		  r.out);
	t_result_release(&r);
	free(wheel);
	free(true_sha);
}

/*
 * One runner (self-hosted: its local cache lives on) runs a pull request,
 * which publishes into the pull request's own trust domain, then main,
 * which reuses those records locally: it never publishes a pull request's
 * build as main's, so the trusted domain stays empty and a fresh clone of
 * main builds. Then main builds and publishes on that runner itself.
 */
Test(e2e_remote_gaps, a_pull_requests_record_is_never_published_as_mains)
{
	const char *clones[] = { "r", "fresh" };
	const char *pr[] = { "run", "lib", "wheel", "--ref",
			     "refs/pull/7/merge", NULL };
	const char *main_[] = { "run", "lib", "wheel", "--reuse", "any",
				"--ref", "refs/heads/main", NULL };
	const char *build[] = { "run", "lib", "wheel", "--reuse", "none",
				"--ref", "refs/heads/main", NULL };
	const char *plan[] = { "plan", "lib", "wheel", "--reuse", "any",
			       "--ref", "refs/heads/main", NULL };
	struct run_result r;

	t_fx_serve();
	origin(NULL, NULL, clones, 2);
	r = t_fx_ripple("r", pr, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "published 2 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	cr_expect_eq(stored("ac"), 0, "nothing in the trusted domain");
	r = t_fx_ripple("r", main_, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "published 0 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	cr_expect_eq(stored("ac"), 0, "still nothing in the trusted domain");
	r = t_fx_ripple("r", build, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "published 2 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	r = t_fx_ripple("r", main_, NULL);
	cr_expect(strstr(r.err, "published 0 nodes") != NULL, "once: %s",
		  r.err);
	t_result_release(&r);
	r = t_fx_ripple("fresh", plan, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "0 build, 0 test, 2 reuse") != NULL, "%s",
		  r.out);
	t_result_release(&r);
}

/*
 * Issue 23: `jobs --base` must count what `run --job` will run. A pull
 * request's build job published lib and wheel into its own trust domain;
 * a later look at the jobs (a fresh clone, --ref of the pull request)
 * must list none of them as to run, since `run --job` reuses them.
 */
Test(e2e_remote_gaps, jobs_base_counts_what_run_job_runs)
{
	const char *clones[] = { "a", "b", "c" };
	const char *build[] = { "run", "lib", "wheel", "--ref",
				"refs/pull/7/merge", NULL };
	const char *jobs[] = { "jobs", "--base", "origin/main", "--ref",
			       "refs/pull/7/merge", "--json", NULL };
	struct run_result r;
	json_error_t je;
	json_t *doc, *job;
	size_t i, checked = 0;
	static char name[256];
	const char *runjob[] = { "run", "--job", name, "--ref",
				 "refs/pull/7/merge", NULL };

	t_fx_serve();
	origin(NULL, NULL, clones, 3);
	free(t_sh_out(t_fx.tmp, "cd origin && git checkout -qb pr && echo 'int b;' >> "
		"src/a.c && git -c user.name=t -c user.email=t@example.com "
		"commit -qam pr && cd ../a && git fetch -q && git checkout "
		"-q origin/pr && cd ../b && git fetch -q && git checkout -q "
		"origin/pr && cd ../c && git fetch -q && git checkout -q "
		"origin/pr"));
	r = t_fx_ripple("a", build, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "published 2 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	r = t_fx_ripple("b", jobs, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	doc = json_loads(r.out, 0, &je);
	cr_assert_not_null(doc, "%s", r.out);
	json_array_foreach(json_object_get(doc, "jobs"), i, job) {
		json_t *run = json_object_get(job, "run"), *n;
		size_t k;

		json_array_foreach(run, k, n) {
			cr_expect(strncmp(json_string_value(n), "artifact:",
					  9), "%s: %s is counted as to run, "
				  "but the pull request's domain holds it",
				  json_string_value(json_object_get(job,
								    "name")),
				  json_string_value(n));
			checked++;
		}
	}
	cr_expect_eq(checked, 1, "test:unit alone runs: %s", r.out);
	/* And `run --job` of the wheel's job agrees: it builds nothing. */
	json_array_foreach(json_object_get(doc, "jobs"), i, job) {
		json_t *n;
		size_t k;

		json_array_foreach(json_object_get(job, "nodes"), k, n)
			if (!strcmp(json_string_value(n), "artifact:wheel"))
				snprintf(name, sizeof(name), "%s",
					 json_string_value(json_object_get(
						 job, "name")));
	}
	cr_assert(name[0], "a job builds the wheel: %s", r.out);
	json_decref(doc);
	t_result_release(&r);
	r = t_fx_ripple("c", runjob, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "0 built, 2 reused") != NULL, "%s", r.out);
	t_result_release(&r);
}
