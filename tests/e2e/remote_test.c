/*
 * Suite e2e_remote: many machines sharing only a remote cache, on the
 * cuda-bindings demo repository (examples/cuda-bindings/make-demo-repo)
 * and a real nginx with WebDAV (tests/support/nginx.h). Four clones, each
 * with its own local cache: runners A and B record CI at main for two
 * platforms; clone C, a pull request, plans and runs against the remote
 * cache and downloads exactly the wheel its own tests need; clone D, with
 * an empty cache, decides from the remote cache alone that main's CI is
 * complete and that a tag is releasable. Then a tampered blob and a
 * stopped server: no wrong reuse, messages that name the server.
 *
 * To keep the suite near 30 s the demo's python axis is cut to 3.12 and
 * 3.13 (the rules are otherwise the example's), and CI is a subset: the
 * CUDA 13 wheels for Python 3.12 on both Linux platforms and the
 * pathfinder tests. Skips, saying why, when nginx is not installed.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "cache/remote.h"
#include "tests/support/nginx.h"
#include "tests/support/support.h"

#define T_WHEEL "artifact:bindings-wheel?platform=linux-*,python=3.12," \
		"root=bindings-13?"
#define T_TESTS "test:pathfinder-tests?platform=linux-64*"
#define PF_WHEEL "dist/pathfinder/cuda_pathfinder-0.0.0-py3-none-any.whl"
#define TAG "v13.0.1"
#define RELEASE "release:bindings[root=bindings-13]"

TestSuite(e2e_remote, .init = t_fx_setup, .fini = t_fx_teardown,
	  .timeout = 300);

/* The demo with a smaller python axis, and four clones of it. */
static void
make_clones(void)
{
	char *src = realpath(t_srcdir(), NULL), cmd[3 * PATH_MAX];
	const char *c[] = { "A", "B", "C", "D" };
	size_t i;

	cr_assert_not_null(src);
	snprintf(cmd, sizeof(cmd),
		 "sed -e 's/^    values: \\[\"3.10\".*$/    values: "
		 "[\"3.12\", \"3.13\"]/' -e '/^    experimental:/d' "
		 "'%s/examples/cuda-bindings/ripple.yml' > rules.yml && "
		 "RIPPLE_DEMO_RULES=$PWD/rules.yml "
		 "'%s/examples/cuda-bindings/make-demo-repo' origin "
		 ">/dev/null", src, src);
	free(t_sh_out(t_fx.tmp, cmd));
	free(src);
	for (i = 0; i < 4; i++) {
		snprintf(cmd, sizeof(cmd), "git clone -q origin %s", c[i]);
		free(t_sh_out(t_fx.tmp, cmd));
	}
}

static char *
path(const char *clone, const char *rel)
{
	char *p = malloc(PATH_MAX);

	cr_assert_not_null(p);
	snprintf(p, PATH_MAX, "%s/%s/%s", t_fx.tmp, clone, rel);
	return p;
}

/* GETs of one CAS blob in the access log. */
static int
gets_of(const char *hash, int want)
{
	char needle[128];

	snprintf(needle, sizeof(needle), "\"GET /cas/%s ", hash);
	return t_nginx_count(&t_fx.ng, needle, want);
}

/* Runners A and B: CI at main, one platform each. */
static void
record_main(void)
{
	const char *a[] = { "run", T_WHEEL, T_TESTS, "--platform", "linux-64",
			    NULL };
	const char *b[] = { "run", T_WHEEL, T_TESTS, "--platform",
			    "linux-aarch64", "--reuse", "any", NULL };
	struct run_result r;

	r = t_fx_ripple("A", a, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "published 5 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	/*
	 * B builds only its own wheel; it needs pathfinder's (one file).
	 * The linux-64 bindings wheel is in its version group, but A's
	 * record of it has the version it has now: a group rebuild would
	 * only re-version it, so it is reused (issue 25), not left to a
	 * linux-64 runner.
	 */
	r = t_fx_ripple("B", b, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "1 built, 5 reused") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "0 remote") != NULL, "%s", r.out);
	cr_expect(strstr(r.err, "fetched 1 files") != NULL, "%s", r.err);
	t_result_release(&r);
}

/*
 * Clone C, a pull request that edits the Linux driver installer: its tests
 * rerun, everything else is reused from the remote cache, and the one
 * wheel they need (pathfinder's) is the only output downloaded.
 */
static void
pull_request(const char *pf_hash, const char *wheel_hash)
{
	const char *plan[] = { "plan", T_WHEEL, T_TESTS, "--base",
			       "origin/main", NULL };
	const char *run[] = { "run", T_WHEEL, T_TESTS, "--base",
			      "origin/main", "--platform", "linux-64", NULL };
	char *sum;
	struct run_result r;

	free(t_sh_out(t_fx.tmp, "cd C && git checkout -q pr/linux-infra"));
	r = t_fx_ripple("C", plan, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "records of merge base") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "0 build, 3 test, 3 reuse") != NULL, "%s",
		  r.out);
	t_result_release(&r);
	r = t_fx_ripple("C", run, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "3 reused (0 cut off), 3 tested") != NULL,
		  "%s", r.out);
	cr_expect(strstr(r.err, "fetched 1 files, 1124 bytes") != NULL, "%s",
		  r.err);
	t_result_release(&r);
	/* Exactly the pathfinder wheel came down, once, bytes intact. */
	cr_expect_eq(gets_of(pf_hash, 2), 2, "A's B and C's fetch");
	cr_expect_eq(gets_of(wheel_hash, 0), 0, "no bindings wheel fetched");
	sum = t_sh_out(t_fx.tmp, "sha256sum < C/" PF_WHEEL " | cut -c1-64");
	cr_expect_str_eq(sum, pf_hash);
	free(sum);
}

/* Clone D, empty cache: main's CI is complete, per the remote cache. */
static void
gate_from_remote(void)
{
	const char *gate[] = { "gate", T_WHEEL, T_TESTS, NULL };
	struct run_result r;
	struct stat st;
	char *db = path("D", ".ripple/cache.db");

	r = t_fx_ripple("D", gate, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "gate: ok: all 6 nodes") != NULL, "%s", r.out);
	t_result_release(&r);
	cr_expect_neq(stat(db, &st), 0, "the gate wrote no local cache");
	free(db);
}

/*
 * The tag's CI (three platform runners in clone A), then clone D: is the
 * tag releasable? Records of exactly that tag's run, at its commit, every
 * output blob in the CAS.
 */
static void
release_from_remote(void)
{
	const char *pf[] = { "linux-64", "linux-aarch64", "win-64" };
	const char *rel[] = { "release", TAG, "--dry-run", NULL };
	struct run_result r;
	size_t i;

	free(t_sh_out(t_fx.tmp, "cd A && git checkout -q " TAG
		       " && rm -rf dist"));
	for (i = 0; i < 3; i++) {
		const char *run[] = { "run", RELEASE, "--tag", TAG, "--reuse",
				      "any", "--platform", pf[i], NULL };

		r = t_fx_ripple("A", run, NULL);
		cr_assert_eq(r.status, 0, "%s", r.err);
		t_result_release(&r);
	}
	r = t_fx_ripple("D", rel, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "ok    run           remote cache") != NULL,
		  "%s", r.out);
	cr_expect(strstr(r.out, "every output blob present") != NULL, "%s",
		  r.out);
	t_result_release(&r);
}

/*
 * A tampered pathfinder wheel (garbage of the right size at its digest,
 * as a hostile writer who can predict it would PUT): no test ever runs
 * on it. Under --strict-cache the test that needs it fails and fetch
 * refuses it; by default the run treats the wheel as a cache gap: it
 * rebuilds it and names the damaged blob. The pull request's upload goes
 * to its own domain's CAS (it may not write main's: examples/nginx), so
 * main's blob stays damaged until a run of main builds the wheel again
 * (as the fetch's hint says); then the next consumer (D's fetch) passes.
 */
static void
tampered(const char *pf_hash)
{
	const char *run[] = { "run", T_WHEEL, T_TESTS, "--base",
			      "origin/main", "--platform", "linux-64", NULL };
	const char *strict[] = { "run", T_WHEEL, T_TESTS, "--base",
				 "origin/main", "--platform", "linux-64",
				 "--strict-cache", NULL };
	const char *fetch[] = { "fetch", "artifact:pathfinder-wheel", "--to",
				"wheelhouse", NULL };
	const char *rebuild[] = { "run", "artifact:pathfinder-wheel",
				  "--reuse", "none", "--platform", "linux-64",
				  NULL };
	char blob[PATH_MAX], *saved, *sum;
	struct run_result r;
	struct stat st;

	snprintf(blob, sizeof(blob), "%s/cas/%s", t_fx.ng.root, pf_hash);
	saved = t_read(blob);
	cr_assert_not_null(saved);
	/* Same size, one byte changed: only the digest can tell. (The
	 * demo's wheels are zips: binary, so not through C strings.) */
	{
		char cmd[PATH_MAX + 128];

		snprintf(cmd, sizeof(cmd), "printf Q | dd of='%s' bs=1 "
			 "count=1 conv=notrunc 2>/dev/null", blob);
		free(t_sh_out(t_fx.tmp, cmd));
	}
	free(t_sh_out(t_fx.tmp, "cd C && rm -rf dist .ripple"));
	r = t_fx_ripple("C", strict, NULL);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.out, "cannot get the bytes of "
			 "artifact:pathfinder-wheel") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "digest mismatch") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, t_fx.ng.url) != NULL, "names the server: %s",
		  r.out);
	cr_expect(strstr(r.out, "1 tested, 1 failed") != NULL, "%s", r.out);
	t_result_release(&r);
	{
		char *w = path("C", PF_WHEEL);

		cr_expect_neq(stat(w, &st), 0, "no tampered file left");
		free(w);
	}
	r = t_fx_ripple("D", fetch, NULL);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.err, "digest mismatch") != NULL, "%s", r.err);
	t_result_release(&r);
	/* The default: a gap rebuild, then the true bytes go back up. */
	free(t_sh_out(t_fx.tmp, "cd C && rm -rf dist .ripple"));
	r = t_fx_ripple("C", run, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "1 rebuilt because of a cache gap") != NULL,
		  "%s", r.out);
	cr_expect(strstr(r.out, "artifact:pathfinder-wheel (ok): cannot get "
			 "the bytes") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, pf_hash) != NULL, "names the blob: %s", r.out);
	cr_expect(strstr(r.out, "damaged") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "3 tested, 0 failed") != NULL, "%s", r.out);
	t_result_release(&r);
	sum = t_sh_out(t_fx.tmp, "sha256sum < C/" PF_WHEEL " | cut -c1-64");
	cr_expect_str_eq(sum, pf_hash, "the rebuilt wheel is the true one");
	free(sum);
	r = t_fx_ripple("D", fetch, NULL);
	cr_expect_eq(r.status, 1, "main's blob is still damaged: %s", r.err);
	cr_expect(strstr(r.err, "is damaged in remote cache") != NULL, "%s",
		  r.err);
	cr_expect(strstr(r.err, "a run that builds the node again") != NULL,
		  "%s", r.err);
	t_result_release(&r);
	r = t_fx_ripple("D", rebuild, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	{
		char cmd[PATH_MAX + 64];

		snprintf(cmd, sizeof(cmd), "sha256sum < '%s' | cut -c1-64",
			 blob);
		sum = t_sh_out(t_fx.tmp, cmd);
		cr_expect_str_eq(sum, pf_hash, "the server holds the true "
				 "bytes again");
		free(sum);
	}
	r = t_fx_ripple("D", fetch, NULL);
	cr_expect_eq(r.status, 0, "healed by main's run: %s", r.err);
	cr_expect(strstr(r.err, "fetched 1 files") != NULL, "%s", r.err);
	t_result_release(&r);
	free(saved);
}

/* The server stopped: warnings that name it, or errors when required. */
static void
stopped(void)
{
	const char *gate[] = { "gate", T_WHEEL, T_TESTS, NULL };
	struct run_result r;

	t_nginx_stop(&t_fx.ng);
	r = t_fx_ripple("D", gate, NULL);
	cr_expect_eq(r.status, 1, "not complete without records: %s", r.out);
	cr_expect(strstr(r.err, "warning: remote cache") != NULL, "%s", r.err);
	cr_expect(strstr(r.err, t_fx.ng.url) != NULL, "%s", r.err);
	cr_expect(strstr(r.out, "gate: FAIL") != NULL, "%s", r.out);
	t_result_release(&r);
	r = t_fx_ripple("D", gate, "--remote-required");
	cr_expect_eq(r.status, 3, "%s", r.err);
	cr_expect(strstr(r.err, "error: remote cache") != NULL, "%s", r.err);
	t_result_release(&r);
}

Test(e2e_remote, four_clones_share_only_the_remote_cache)
{
	char *pf_hash, *wheel_hash;

	t_fx_serve();
	make_clones();
	record_main();
	pf_hash = t_sh_out(t_fx.tmp, "sha256sum < A/" PF_WHEEL
			   " | cut -c1-64");
	wheel_hash = t_sh_out(t_fx.tmp, "sha256sum A/dist/bindings-13/3.12/"
			      "linux-64/* | cut -c1-64");
	pull_request(pf_hash, wheel_hash);
	gate_from_remote();
	release_from_remote();
	tampered(pf_hash);
	stopped();
	free(pf_hash);
	free(wheel_hash);
}

static const char small_rules[] =
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
	"    command: [sh, -c, 'mkdir -p dist/w && cat dist/lib/lib.txt > "
	"dist/w/w.whl && echo w >> dist/w/w.whl']\n"
	"    outputs: [dist/w/w.whl]\n"
	"tests:\n"
	"  unit:\n"
	"    needs: [wheel]\n"
	"    command: [sh, -c, 'grep -q w dist/w/w.whl']\n"
	"policy:\n"
	"  trusted-refs: [refs/heads/main, 'refs/tags/*']\n";

/* A small origin with main, and clones of it named in `names`. */
static void
small_origin(const char *const *names, size_t n)
{
	char cmd[512];
	size_t i;

	free(t_sh_out(t_fx.tmp, "git init -q -b main origin"));
	t_write(t_fx.tmp, "origin/ripple.yml", small_rules);
	t_write(t_fx.tmp, "origin/.gitignore",
		".ripple/\ndist/\nwheelhouse/\n");
	t_write(t_fx.tmp, "origin/src/a.c", "int a;\n");
	free(t_sh_out(t_fx.tmp, "cd origin && git add -A && git -c "
		      "user.name=t -c user.email=t@example.com commit -qm "
		      "init"));
	for (i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "git clone -q origin %s", names[i]);
		free(t_sh_out(t_fx.tmp, cmd));
	}
}

/*
 * trusted-refs: a pull request's run publishes into its own trust domain
 * (URL/d/ID/ac/), so main, on the same keys and server, never finds it;
 * another clone of the branch reuses it from that domain, and main's
 * later records from the trusted one.
 */
Test(e2e_remote, main_never_reuses_a_pull_requests_records)
{
	const char *names[] = { "pr", "main", "pr2" };
	const char *run[] = { "run", NULL };
	const char *any[] = { "run", "--reuse", "any", NULL };
	const char *plan[] = { "plan", "--reuse", "any", "--verbose", NULL };
	char dom[REMOTE_DOMAIN_SIZE], needle[160];
	struct run_result r;
	struct error err;

	t_fx_serve();
	small_origin(names, 3);
	free(t_sh_out(t_fx.tmp, "cd pr && git checkout -q -b pr/evil"));
	free(t_sh_out(t_fx.tmp, "cd pr2 && git checkout -q -b pr/evil"));
	r = t_fx_ripple("pr", run, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "published 3 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	error_init(&err);
	cr_assert_eq(remote_domain_id("refs/heads/pr/evil", dom, &err), 0);
	snprintf(needle, sizeof(needle), "\"PUT /d/%s/ac/", dom);
	cr_expect_eq(t_nginx_count(&t_fx.ng, needle, 3), 3,
		     "three AC entries in the branch's domain");
	snprintf(needle, sizeof(needle), "\"PUT /d/%s/cas/", dom);
	cr_expect_eq(t_nginx_count(&t_fx.ng, needle, 5), 5,
		     "their blobs in its CAS: 2 outputs, 3 records");
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"PUT /cas/", 0), 0,
		     "none in the trusted CAS");
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"PUT /ac/", 0), 0,
		     "nothing in the trusted domain");
	r = t_fx_ripple("main", any, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "2 built, 0 reused") != NULL, "%s", r.out);
	cr_expect(strstr(r.err, "3 looked up, 0 found;") != NULL, "%s", r.err);
	t_result_release(&r);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"PUT /ac/", 3), 3, "main's own");
	r = t_fx_ripple("pr2", plan, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "0 build, 0 test, 3 reuse") != NULL, "%s",
		  r.out);
	cr_expect(strstr(r.out, "this ref's domain (run") != NULL, "%s",
		  r.out);
	cr_expect(strstr(r.out, "ref refs/heads/pr/evil)") != NULL, "%s",
		  r.out);
	t_result_release(&r);
}

/* --remote-read-only reads and never writes; fetch puts files in place. */
Test(e2e_remote, read_only_runs_publish_nothing_and_fetch_fills_paths)
{
	const char *names[] = { "a", "b" };
	const char *run[] = { "run", NULL };
	const char *any[] = { "run", "--reuse", "any", NULL };
	const char *fetch[] = { "fetch", "wheel", NULL };
	const char *evil[] = { "fetch", "wheel", "--to", "", NULL };
	char *x, *y;
	struct run_result r;

	t_fx_serve();
	small_origin(names, 2);
	r = t_fx_ripple("a", run, "--remote-read-only");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "published 0 nodes (read-only)") != NULL,
		  "%s", r.err);
	t_result_release(&r);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"PUT ", 0), 0, "no PUT at all");
	/* Reused locally; with write access, what never went up goes up
	 * now (issue 23: local and remote agree), once. */
	r = t_fx_ripple("a", any, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "0 built, 3 reused") != NULL, "%s", r.out);
	cr_expect(strstr(r.err, "published 3 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	r = t_fx_ripple("a", any, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "published 0 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	free(t_sh_out(t_fx.tmp, "cd a && rm -rf .ripple dist"));
	r = t_fx_ripple("a", run, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_fx_ripple("b", fetch, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "fetched 1 files") != NULL, "%s", r.err);
	t_result_release(&r);
	x = t_sh_out(t_fx.tmp, "sha256sum < a/dist/w/w.whl");
	y = t_sh_out(t_fx.tmp, "sha256sum < b/dist/w/w.whl");
	cr_expect_str_eq(x, y);
	free(x);
	free(y);
	r = t_fx_ripple("b", evil, NULL);
	cr_expect_eq(r.status, 2, "%s", r.err);
	t_result_release(&r);
}
