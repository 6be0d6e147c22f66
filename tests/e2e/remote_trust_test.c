/*
 * Suite e2e_remote_trust: what a hostile or broken remote cache can do to
 * a consumer, tried against a real nginx on loopback (and a drip server,
 * tests/support/drip.h). A producer on main runs and publishes honestly;
 * entries are then crafted as a cache writer would (raw protobuf, so the
 * encoder's own checks are no obstacle), and a consumer clone fetches or
 * runs. The most an entry may do is make its node rebuild: it never
 * writes outside its node's declared outputs, never leaves part of a set
 * behind, never writes through a link or into a FIFO, and neither a slow
 * server nor a signal leaves a command hanging or temporary files behind.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "cache/remote.h"
#include "engine/plan/record.h"
#include "graph/digest.h"
#include "tests/e2e/remote_entry.h"
#include "tests/support/drip.h"
#include "tests/support/nginx.h"
#include "tests/support/support.h"

#define WHEEL "artifact:wheel"
/* Every path of a clone but git's objects and ripple's own folder. */
#define TREE "find . \\( -path ./.git/objects -o -path ./.ripple \\) " \
	"-prune -o -print"

static struct t_drip drip;

static void
teardown(void)
{
	t_drip_stop(&drip);
	t_fx_teardown();
}

TestSuite(e2e_remote_trust, .init = t_fx_setup, .fini = teardown,
	  .timeout = 240);

/* Output of a shell command in TMP, trailing newlines cut; must succeed. */
static char *
sh(const char *cmd)
{
	return t_sh_out(t_fx.tmp, cmd);
}

static const char rules[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [src/**]}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    inputs: [src]\n"
	"    command: [sh, -c, 'mkdir -p dist && yes wheel | head -c 600 > "
	"dist/w.bin && cat src/a.c >> dist/w.bin && : > dist/py.typed']\n"
	"    outputs: [dist/w.bin, dist/py.typed]\n"
	"tests:\n"
	"  unit:\n"
	"    needs: [wheel]\n"
	"    command: [sh, -c, 'grep -q wheel dist/w.bin']\n"
	"policy:\n"
	"  trusted-refs: [refs/heads/main]\n";

/* nginx, an origin on main, producer `a` (published) and consumer `b`. */
static void
start(void)
{
	char why[512];
	struct run_result r;
	/* Only the wheel: the consumer's test runs and needs its bytes. */
	const char *run[] = { "run", "wheel", "--remote-cache", NULL, NULL };

	t_fx_serve();
	free(sh("git init -q -b main origin"));
	t_write(t_fx.tmp, "origin/ripple.yml", rules);
	t_write(t_fx.tmp, "origin/.gitignore",
		".ripple/\ndist/\nwheelhouse/\n");
	t_write(t_fx.tmp, "origin/src/a.c", "int a;\n");
	free(sh("cd origin && git add -A && git -c user.name=t -c "
		"user.email=t@example.com commit -qm init && cd .. && "
		"git clone -q origin a && git clone -q origin b"));
	run[3] = t_fx.ng.url;
	snprintf(why, sizeof(why), "%s/a", t_fx.tmp);
	r = t_ripple(why, run);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.err, "published 1 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
}

/* ripple ARGV... in TMP/b, with the remote cache at `url`. */
static struct run_result
rip_b(const char *url, const char *const *argv)
{
	const char *v[32];
	char dir[PATH_MAX];
	size_t n = 0;

	v[n++] = "--remote-cache";
	v[n++] = url;
	while (argv[n - 2] && n < 30) {
		v[n] = argv[n - 2];
		n++;
	}
	v[n] = NULL;
	snprintf(dir, sizeof(dir), "%s/b", t_fx.tmp);
	return t_ripple(dir, v);
}

/* No temporary file of a placement anywhere under TMP/b. */
static void
no_temp_files(void)
{
	char *s = sh("find b -name '*.ripple-tmp-*'");

	cr_expect_str_eq(s, "", "temp files left: %s", s);
	free(s);
}

Test(e2e_remote_trust, an_entry_listing_a_git_hook_writes_nothing_there)
{
	const char *fetch[] = { "fetch", "wheel", NULL };
	const char *run[] = { "run", "--remote-read-only", NULL };
	struct entry e;
	struct run_result r;
	char *s;

	start();
	memset(&e, 0, sizeof(e));
	entry_load(&e, WHEEL);
	entry_craft(&e, ".git/hooks/post-checkout",
		    "#!/bin/sh\necho pwned > ../pwned\n", 0);
	r = rip_b(t_fx.ng.url, fetch);
	cr_log_info("fetch of the hook entry: %s", r.err);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, ".git/hooks/post-checkout") != NULL, "%s",
		  r.err);
	cr_expect(strstr(r.err, t_fx.ng.url) != NULL, "names the server: %s",
		  r.err);
	cr_expect(strstr(r.err, "no ok record of its key") != NULL, "%s",
		  r.err);
	t_result_release(&r);
	r = rip_b(t_fx.ng.url, run);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "1 built, 0 reused") != NULL,
		  "the node rebuilds: %s", r.out);
	t_result_release(&r);
	s = sh("ls b/.git/hooks; test ! -e b/.git/hooks/post-checkout && "
	       "echo absent");
	cr_expect(strstr(s, "absent") != NULL, "%s", s);
	free(s);
	entry_release(&e);
}

Test(e2e_remote_trust, an_entry_listing_a_source_file_makes_its_node_rebuild)
{
	const char *fetch[] = { "fetch", "wheel", NULL };
	const char *plan[] = { "plan", "--reuse", "any", NULL };
	struct entry e;
	struct run_result r;
	char *s;

	start();
	memset(&e, 0, sizeof(e));
	entry_load(&e, WHEEL);
	entry_craft(&e, "src/a.c", "int evil;\n", 0);
	r = rip_b(t_fx.ng.url, plan);
	cr_log_info("plan with the source entry: %s", r.err);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "lists 'src/a.c', not one of the node's "
			 "outputs") != NULL, "%s", r.err);
	cr_expect(strstr(r.err, t_fx.ng.url) != NULL, "names the server: %s",
		  r.err);
	cr_expect(strstr(r.err, json_string_value(json_object_get(e.rec,
				"key"))) != NULL, "names the key: %s", r.err);
	cr_expect(strstr(r.out, "1 build") != NULL, "%s", r.out);
	t_result_release(&r);
	r = rip_b(t_fx.ng.url, fetch);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	t_result_release(&r);
	s = sh("cat b/src/a.c");
	cr_expect_str_eq(s, "int a;");
	free(s);
	entry_release(&e);
}

Test(e2e_remote_trust, a_wrong_digest_entry_leaves_the_tree_as_it_was)
{
	const char *fetch[] = { "fetch", "wheel", NULL };
	char *before, *after;
	struct entry e;
	struct run_result r;

	start();
	memset(&e, 0, sizeof(e));
	entry_load(&e, WHEEL);
	/* Paths a hostile writer likes, and a digest that cannot match. */
	entry_craft(&e, ".git/config", "[core]\n\tfsmonitor = touch pwned\n",
		    1);
	free(sh("mkdir -p b/dist && echo old > b/dist/w.bin"));
	before = sh("cd b && " TREE " | LC_ALL=C sort && md5sum .git/config dist/w.bin");
	r = rip_b(t_fx.ng.url, fetch);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	t_result_release(&r);
	after = sh("cd b && " TREE " | LC_ALL=C sort && md5sum .git/config dist/w.bin");
	cr_expect_str_eq(after, before);
	free(before);
	free(after);
	entry_release(&e);
}

Test(e2e_remote_trust, a_wrong_output_digest_places_no_file_of_the_set)
{
	const char *fetch[] = { "fetch", "wheel", NULL };
	char *before, *after;
	struct entry e;
	struct run_result r;

	start();
	memset(&e, 0, sizeof(e));
	entry_load(&e, WHEEL);
	/* Declared paths only; the record's digest is wrong. */
	entry_craft(&e, NULL, NULL, 1);
	free(sh("mkdir -p b/dist && echo old > b/dist/w.bin"));
	before = sh("cd b && " TREE " | LC_ALL=C sort && md5sum dist/w.bin");
	r = rip_b(t_fx.ng.url, fetch);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "not the record's") != NULL, "%s", r.err);
	t_result_release(&r);
	after = sh("cd b && " TREE " | LC_ALL=C sort && md5sum dist/w.bin");
	cr_expect_str_eq(after, before);
	free(before);
	free(after);
	/* Without dist/: the folder made for the set goes with it. */
	free(sh("rm -r b/dist"));
	before = sh("cd b && " TREE " | LC_ALL=C sort");
	r = rip_b(t_fx.ng.url, fetch);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	t_result_release(&r);
	after = sh("cd b && " TREE " | LC_ALL=C sort");
	cr_expect_str_eq(after, before);
	free(before);
	free(after);
	entry_release(&e);
}

Test(e2e_remote_trust, an_empty_output_is_not_written_through_a_link)
{
	const char *fetch[] = { "fetch", "wheel", NULL };
	struct run_result r;
	char *s;

	start();
	free(sh("echo precious > victim && mkdir -p b/dist && "
		"ln -s ../../victim b/dist/py.typed"));
	r = rip_b(t_fx.ng.url, fetch);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "'dist/py.typed' is not written: it is a "
			 "symbolic link") != NULL, "%s", r.err);
	t_result_release(&r);
	s = sh("cat victim; ls b/dist");
	cr_expect_str_eq(s, "precious\npy.typed");
	free(s);
	no_temp_files();
}

Test(e2e_remote_trust, a_fifo_or_dev_zero_at_an_output_is_refused_at_once)
{
	char cmd[3 * PATH_MAX], *s;
	const char *bin = getenv("RIPPLE_BIN");
	char *abs = realpath(bin && bin[0] ? bin : "build/ripple", NULL);

	cr_assert_not_null(abs);
	start();
	/* A FIFO: fetch and run (bytes on demand for the test) end. */
	snprintf(cmd, sizeof(cmd), "mkdir -p b/dist && mkfifo b/dist/w.bin "
		 "&& cd b && { timeout -s KILL 20 '%s' --remote-cache %s "
		 "fetch wheel; echo \"fetch $?\"; timeout -s KILL 20 '%s' "
		 "--remote-cache %s --remote-read-only run --reuse any; "
		 "echo \"run $?\"; } 2>&1", abs, t_fx.ng.url, abs, t_fx.ng.url);
	s = sh(cmd);
	cr_expect(strstr(s, "fetch 1") != NULL, "%s", s);
	cr_expect(strstr(s, "'dist/w.bin' is not written: it is a FIFO") !=
		  NULL, "%s", s);
	cr_expect(strstr(s, "run 1") != NULL, "%s", s);
	free(s);
	/* /dev/zero behind a link. */
	snprintf(cmd, sizeof(cmd), "rm b/dist/w.bin && ln -s /dev/zero "
		 "b/dist/w.bin && cd b && { timeout -s KILL 20 '%s' "
		 "--remote-cache %s fetch wheel; echo \"fetch $?\"; } 2>&1",
		 abs, t_fx.ng.url);
	s = sh(cmd);
	cr_expect(strstr(s, "fetch 1") != NULL, "%s", s);
	cr_expect(strstr(s, "'dist/w.bin' is not written: it is a symbolic "
			 "link") != NULL, "%s", s);
	free(s);
	free(abs);
}

/* The wheel blob's hash (what the drip server drips). */
static char *
wheel_hash(void)
{
	return sh("sha256sum < a/dist/w.bin | cut -c1-64");
}

Test(e2e_remote_trust, a_dripping_server_is_cut_off)
{
	char cmd[3 * PATH_MAX], why[256], *h, *s;
	const char *bin = getenv("RIPPLE_BIN");
	char *abs = realpath(bin && bin[0] ? bin : "build/ripple", NULL);

	cr_assert_not_null(abs);
	start();
	h = wheel_hash();
	cr_assert_eq(t_drip_start(&drip, t_fx.ng.root, h, 2, why,
				  sizeof(why)), 0, "%s", why);
	/* 100 B/s for 2 s: the 600-byte blob at 2 B/s is cut off; the
	 * three attempts take ~7 s, nowhere near the drip's 5 minutes. */
	snprintf(cmd, sizeof(cmd), "cd b && { RIPPLE_REMOTE_LOW_SPEED=100:2 "
		 "timeout -s KILL 60 '%s' --remote-cache %s fetch wheel; "
		 "echo \"fetch $?\"; } 2>&1", abs, drip.url);
	s = sh(cmd);
	cr_expect(strstr(s, "fetch 1") != NULL, "%s", s);
	cr_expect(strstr(s, "too slow") != NULL, "%s", s);
	cr_expect(strstr(s, drip.url) != NULL, "names the server: %s", s);
	free(s);
	/* The whole request's time, with no low-speed limit. */
	snprintf(cmd, sizeof(cmd), "cd b && { timeout -s KILL 60 '%s' "
		 "--remote-cache %s --remote-low-speed 0:0 --remote-timeout 2 "
		 "fetch wheel; echo \"fetch $?\"; } 2>&1", abs, drip.url);
	s = sh(cmd);
	cr_expect(strstr(s, "fetch 1") != NULL, "%s", s);
	cr_expect(strstr(s, "timed out") != NULL, "%s", s);
	free(s);
	no_temp_files();
	free(h);
	free(abs);
}

/*
 * `ripple CMD` in b against the drip server, SIGTERM once it is
 * downloading: "STATUS MS" (exit status, milliseconds from the signal to
 * the exit).
 */
static char *
term_during_transfer(const char *abs, const char *cmd_args)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "cd b && { '%s' --remote-cache %s "
		 "%s >/dev/null 2>&1 & pid=$!; "
		 "i=0; while [ $i -lt 100 ] && ! ls dist 2>/dev/null | "
		 "grep -q ripple-tmp; do sleep 0.1; i=$((i+1)); done; "
		 "sleep 0.5; t0=$(date +%%s%%N); kill -TERM $pid; "
		 "k=0; while kill -0 $pid 2>/dev/null && [ $k -lt 100 ]; do "
		 "sleep 0.05; k=$((k+1)); done; t1=$(date +%%s%%N); "
		 "kill -KILL $pid 2>/dev/null; wait $pid; rc=$?; "
		 "echo \"$rc $(( (t1 - t0) / 1000000 ))\"; }",
		 abs, drip.url, cmd_args);
	return sh(cmd);
}

Test(e2e_remote_trust, sigterm_stops_fetch_and_run_during_a_transfer)
{
	char why[256], *h, *s;
	const char *bin = getenv("RIPPLE_BIN");
	char *abs = realpath(bin && bin[0] ? bin : "build/ripple", NULL);
	int rc, ms;

	cr_assert_not_null(abs);
	start();
	h = wheel_hash();
	cr_assert_eq(t_drip_start(&drip, t_fx.ng.root, h, 2, why,
				  sizeof(why)), 0, "%s", why);
	s = term_during_transfer(abs, "fetch wheel");
	cr_assert_eq(sscanf(s, "%d %d", &rc, &ms), 2, "%s", s);
	cr_expect_eq(rc, 130, "fetch exits 130 when stopped: %s", s);
	cr_expect_lt(ms, 2000, "fetch stopped within 2 s: %s", s);
	free(s);
	no_temp_files();
	s = term_during_transfer(abs, "--remote-read-only run --reuse any");
	cr_assert_eq(sscanf(s, "%d %d", &rc, &ms), 2, "%s", s);
	cr_expect_eq(rc, 130, "run exits 130 when stopped: %s", s);
	cr_expect_lt(ms, 2000, "run stopped within 2 s: %s", s);
	free(s);
	no_temp_files();
	free(h);
	free(abs);
}

Test(e2e_remote_trust, a_killed_fetchs_temp_files_are_gone_after_the_next)
{
	const char *fetch[] = { "fetch", "wheel", NULL };
	char cmd[3 * PATH_MAX], why[256], *h, *s;
	const char *bin = getenv("RIPPLE_BIN");
	char *abs = realpath(bin && bin[0] ? bin : "build/ripple", NULL);
	struct run_result r;

	cr_assert_not_null(abs);
	start();
	h = wheel_hash();
	cr_assert_eq(t_drip_start(&drip, t_fx.ng.root, h, 2, why,
				  sizeof(why)), 0, "%s", why);
	snprintf(cmd, sizeof(cmd), "cd b && { '%s' --remote-cache %s "
		 "fetch wheel >/dev/null 2>&1 & pid=$!; i=0; "
		 "while [ $i -lt 100 ] && ! ls dist 2>/dev/null | "
		 "grep -q ripple-tmp; do sleep 0.1; i=$((i+1)); done; "
		 "kill -KILL $pid; wait $pid; ls dist; }", abs, drip.url);
	s = sh(cmd);
	cr_assert(strstr(s, "w.bin.ripple-tmp-") != NULL,
		  "the killed fetch left its temp file: %s", s);
	free(s);
	r = rip_b(t_fx.ng.url, fetch);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	no_temp_files();
	s = sh("cmp a/dist/w.bin b/dist/w.bin && echo same");
	cr_expect_str_eq(s, "same");
	free(s);
	free(h);
	free(abs);
}

/*
 * A pull request that changes a node's outputs is planned against the
 * merge base's records in the remote cache: those are checked against
 * the base's rules, not the head's, so an honest entry is no fault.
 */
Test(e2e_remote_trust, a_changed_output_is_no_fault_against_the_base)
{
	const char *plan[] = { "plan", "--base", "main", NULL };
	struct run_result r;

	start();
	free(sh("cd b && git checkout -q -b pr && sed -i "
		"-e 's|, dist/py.typed\\]|]|' -e 's| \\&\\& : > dist/py.typed||' "
		"ripple.yml && grep -q 'outputs: \\[dist/w.bin\\]' ripple.yml "
		"&& git -c user.name=t -c user.email=t@example.com commit -qam "
		"'no py.typed'"));
	r = rip_b(t_fx.ng.url, plan);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "warning") == NULL, "%s", r.err);
	cr_expect(strstr(r.out, "records of merge base") != NULL, "%s",
		  r.out);
	t_result_release(&r);
}
