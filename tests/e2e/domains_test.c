/*
 * Suite e2e_domains: trust domains in the remote cache, as a team's CI
 * runs it (issue 23). The cuda-bindings demo (python axis cut to 3.12 and
 * 3.13, trusted-refs main and tags) and nginx with
 * the documented credentials (examples/nginx/ripple-cache.conf). Main at
 * commit M publishes; then four runners at once, each a fresh clone in a
 * background process with GitHub's environment: two pull requests of this
 * repository that rebuild the bindings-12 version group (PR credential),
 * a fork's pull request (no credential) and a pull request job that
 * claims `--ref refs/heads/main` with the PR credential. Then a fresh
 * clone at M plans no build (before trust domains the pull requests'
 * records replaced main's and it rebuilt the group), each pull request's
 * gate passes with its own ref, the fork completed read-only, and the
 * server (its access log) refused the writes to the trusted domain.
 * Skips, saying why, when nginx is not installed.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/nginx.h"
#include "tests/support/support.h"

/* The linux-64 wheels of both lines, and both metapackages: 7 nodes. */
#define TARGETS "'artifact:bindings-wheel?platform=linux-64,*' " \
		"'artifact:python-meta*'"
#define RUN "run " TARGETS " --reuse any --platform linux-64"
#define REV(b) " $(git -C origin rev-parse " b ") "

TestSuite(e2e_domains, .init = t_fx_setup, .fini = t_fx_teardown,
	  .timeout = 300);

/* Output of a shell command in TMP, trailing newlines cut; must succeed. */
static char *
sh(const char *cmd)
{
	return t_sh_out(t_fx.tmp, cmd);
}

/*
 * The origin: the demo with trusted-refs and a second pull request on
 * the bindings-12 line; and runner.sh, which runs one runner (a fresh
 * clone at REV, GitHub's environment for EVENT and REF, a credential or
 * none) in the background, its outputs in NAME.out, NAME.err, NAME.rc.
 */
static void
make_origin(void)
{
	char *src = realpath(t_srcdir(), NULL), *bin, cmd[4 * PATH_MAX];
	const char *b = getenv("RIPPLE_BIN");

	cr_assert_not_null(src);
	bin = realpath(b && b[0] ? b : "build/ripple", NULL);
	cr_assert_not_null(bin);
	snprintf(cmd, sizeof(cmd),
		 "sed -e 's/^    values: \\[\"3.10\".*$/    values: "
		 "[\"3.12\", \"3.13\"]/' -e '/^    experimental:/d' "
		 "-e 's|^policy:$|policy:\\n  trusted-refs: [refs/heads/main, "
		 "\"refs/tags/*\"]|' "
		 "'%s/examples/cuda-bindings/ripple.yml' > rules.yml && "
		 "RIPPLE_DEMO_RULES=$PWD/rules.yml "
		 "'%s/examples/cuda-bindings/make-demo-repo' origin >/dev/null "
		 "&& cd origin && git checkout -q -b pr/bindings-12-more main "
		 "&& echo '# and cuMemGetInfo too' >> "
		 "cuda_bindings_12/cuda/bindings/driver.pyx && "
		 "git -c user.name=t -c user.email=t@example.com commit -qam "
		 "more && git checkout -q main", src, src);
	free(sh(cmd));
	snprintf(cmd, sizeof(cmd),
		 "# . ./runner.sh; runner NAME REV EVENT REF HEADER ARGS...\n"
		 "runner() {\n"
		 "  name=$1 rev=$2 event=$3 ref=$4 header=$5\n"
		 "  shift 5\n"
		 "  git clone -q --no-local origin \"$name\" &&\n"
		 "  git -C \"$name\" checkout -q --detach \"$rev\" || return 1\n"
		 "  (cd \"$name\" && env GITHUB_ACTIONS=true "
		 "GITHUB_EVENT_NAME=\"$event\" GITHUB_REF=\"$ref\" "
		 "RIPPLE_REMOTE_CACHE=%s "
		 "RIPPLE_REMOTE_CACHE_HEADER=\"$header\" '%s' \"$@\" "
		 "> ../\"$name\".out 2> ../\"$name\".err; "
		 "echo $? > ../\"$name\".rc) &\n"
		 "}\n",
		 t_fx.ng.url, bin);
	t_write(t_fx.tmp, "runner.sh", cmd);
	free(src);
	free(bin);
}

/* NAME.out, .err or .rc of a runner. */
static char *
out_of(const char *name, const char *ext)
{
	char p[PATH_MAX];
	char *s;

	snprintf(p, sizeof(p), "%s/%s.%s", t_fx.tmp, name, ext);
	s = t_read(p);
	cr_assert_not_null(s, "%s", p);
	return s;
}

static int
rc_of(const char *name)
{
	char *s = out_of(name, "rc");
	int rc = atoi(s);

	free(s);
	return rc;
}

static int
count(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* Lines of nginx's access log that hold all of a, b and c. */
static int
log_lines(const char *a, const char *b, const char *c)
{
	char p[PATH_MAX], *log, *line, *save = NULL;
	int n = 0;

	t_nginx_count(&t_fx.ng, a, 1);	/* let the last requests land */
	snprintf(p, sizeof(p), "%s/access.log", t_fx.ng.dir);
	log = t_read(p);
	cr_assert_not_null(log);
	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		n += strstr(line, a) && strstr(line, b) && strstr(line, c);
	free(log);
	return n;
}

static void
expect_ok(const char *name)
{
	char *o = out_of(name, "out"), *e = out_of(name, "err");

	cr_expect_eq(rc_of(name), 0, "%s: %s%s", name, o, e);
	free(o);
	free(e);
}

/* One warning, the refused write, nothing secret in what it printed. */
static void
expect_refused_once(const char *name, const char *what)
{
	char *o = out_of(name, "out"), *e = out_of(name, "err");

	cr_expect_eq(count(e, "warning:"), 1, "%s: one warning: %s", name, e);
	cr_expect(strstr(e, "HTTP 401") != NULL, "%s: %s", name, e);
	cr_expect(strstr(e, what) != NULL, "%s: %s", name, e);
	cr_expect(strstr(e, "read-only") != NULL, "%s: %s", name, e);
	cr_expect(strstr(e, "published 0 nodes (read-only: the server "
			 "refused a write)") != NULL, "%s: %s", name, e);
	/* A refusal is the server's answer, not a fault of the cache. */
	cr_expect(strstr(e, " faults") == NULL, "%s: %s", name, e);
	free(o);
	free(e);
}

static void
no_secret_in(const char *name)
{
	char *o = out_of(name, "out"), *e = out_of(name, "err");

	cr_expect(strstr(o, "cHI6") == NULL && strstr(e, "cHI6") == NULL &&
		  strstr(o, "bWFp") == NULL && strstr(e, "bWFp") == NULL &&
		  strstr(e, "Basic") == NULL, "%s printed a credential", name);
	free(o);
	free(e);
}

Test(e2e_domains, pull_requests_and_forks_never_replace_mains_records)
{
	char why[1024], *s;
	struct run_result r;

	t_fx_serve_domains();
	make_origin();

	/* Main at M publishes into the trusted domain. */
	free(sh(". ./runner.sh; runner main" REV("main") "push refs/heads/main "
		"'" T_NGINX_MAIN_HEADER "' " RUN "; wait"));
	expect_ok("main");
	s = out_of("main", "err");
	cr_expect(strstr(s, "published 7 nodes") != NULL, "%s", s);
	free(s);
	cr_expect_eq(log_lines("\"PUT /ac/", "\" 201 ", "auth=\"Basic bWFp"),
		     7, "main's 7 entries in the trusted domain");

	/* Four runners at once. */
	free(sh(". ./runner.sh; "
		"runner pr1" REV("pr/bindings-12-fix") "pull_request "
		"refs/pull/1/merge '" T_NGINX_PR_HEADER "' " RUN "; "
		"runner pr2" REV("pr/bindings-12-more") "pull_request "
		"refs/pull/2/merge '" T_NGINX_PR_HEADER "' " RUN "; "
		"runner fork" REV("pr/bindings-13-change") "pull_request "
		"refs/pull/3/merge '' " RUN "; "
		"runner rogue" REV("pr/bindings-12-fix") "pull_request "
		"refs/pull/1/merge '" T_NGINX_PR_HEADER "' " RUN
		" --ref refs/heads/main; wait"));
	expect_ok("pr1");
	expect_ok("pr2");
	expect_ok("fork");
	expect_ok("rogue");
	/* The pull requests rebuilt their version group into their domains. */
	s = out_of("pr1", "out");
	cr_expect(strstr(s, "3 built, 4 reused") != NULL, "pr1: %s", s);
	free(s);
	s = out_of("pr1", "err");
	cr_expect(strstr(s, "published 3 nodes") != NULL, "pr1: %s", s);
	free(s);
	s = out_of("pr2", "err");
	cr_expect(strstr(s, "published 3 nodes") != NULL, "pr2: %s", s);
	free(s);
	cr_expect_eq(log_lines("\"PUT /d/pull-1-merge-", "\" 201 ", "/ac/"), 3);
	cr_expect_eq(log_lines("\"PUT /d/pull-2-merge-", "\" 201 ", "/ac/"), 3);
	/* Their blobs too, in their domains' CAS (issue 22): at least the
	 * three records each, and none in the trusted CAS. */
	cr_expect_geq(log_lines("\"PUT /d/pull-1-merge-", "\" 201 ", "/cas/"),
		      3);
	cr_expect_geq(log_lines("\"PUT /d/pull-2-merge-", "\" 201 ", "/cas/"),
		      3);
	cr_expect_eq(log_lines("\"PUT /cas/", "\" 201 ", "cHI6"), 0);
	/* The fork read main's records, rebuilt its group, wrote nothing. */
	s = out_of("fork", "out");
	cr_expect(strstr(s, "3 built, 4 reused") != NULL, "fork: %s", s);
	free(s);
	expect_refused_once("fork", "RIPPLE_REMOTE_CACHE_HEADER");
	cr_expect_eq(log_lines("\"PUT ", "\" 201 ", "auth=\"-\""), 0,
		     "no write without a credential succeeded");
	/* The rogue job's write to the trusted domain (its first blob): the
	 * server said no. */
	expect_refused_once("rogue", "PUT cas/");
	cr_expect_eq(log_lines("\"PUT /cas/", "\" 401 ", "auth=\"Basic cHI6"),
		     1, "the server refused the PR credential on /cas/");
	cr_expect_eq(log_lines("\"PUT /ac/", "\" 201 ", "cHI6"), 0);
	no_secret_in("main");
	no_secret_in("pr1");
	no_secret_in("rogue");

	/* A fresh clone at M: every record is main's, nothing to build. */
	free(sh(". ./runner.sh; runner fresh" REV("main") "push "
		"refs/heads/main '' plan " TARGETS " --reuse any; wait"));
	expect_ok("fresh");
	s = out_of("fresh", "out");
	cr_expect(strstr(s, "0 build, 0 test, 7 reuse") != NULL, "%s", s);
	free(s);

	/* Each pull request's gate, with its own ref, from a fresh clone. */
	free(sh(". ./runner.sh; "
		"runner gate1" REV("pr/bindings-12-fix") "pull_request '' '' "
		"gate " TARGETS " --ref refs/pull/1/merge; "
		"runner gate2" REV("pr/bindings-12-more") "pull_request '' '' "
		"gate " TARGETS " --ref refs/pull/2/merge; wait"));
	expect_ok("gate1");
	expect_ok("gate2");
	s = out_of("gate1", "out");
	cr_expect(strstr(s, "gate: ok: all 7 nodes") != NULL, "%s", s);
	free(s);
	/* No credential reached a record, a local cache or the server's files. */
	snprintf(why, sizeof(why), "grep -rl -e cHI6 -e bWFp -e pr-secret "
		 "-e main-secret pr1/.ripple main/.ripple rogue/.ripple '%s'",
		 t_fx.ng.root);
	r = t_sh(t_fx.tmp, why);
	cr_expect_eq(r.status, 1, "found in: %s", r.out);
	t_result_release(&r);
}

static const char small_rules[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [src/**]}\n"
	"artifacts:\n"
	"  lib:\n"
	"    inputs: [src]\n"
	"    command: [sh, -c, 'mkdir -p dist && cat src/a.c > dist/lib.txt']\n"
	"    outputs: [dist/lib.txt]\n"
	"  wheel:\n"
	"    needs: [lib]\n"
	"    command: [sh, -c, 'cat dist/lib.txt > dist/w.whl']\n"
	"    outputs: [dist/w.whl]\n"
	"tests:\n"
	"  unit:\n"
	"    needs: [wheel]\n"
	"    command: [sh, -c, 'test -s dist/w.whl']\n";

/* ripple ARGV... in TMP/runner with the remote cache and `header`. */
static struct run_result
on_runner(const char *header, const char *const *argv)
{
	char dir[PATH_MAX];

	setenv("RIPPLE_REMOTE_CACHE", t_fx.ng.url, 1);
	setenv("RIPPLE_REMOTE_CACHE_HEADER", header, 1);
	snprintf(dir, sizeof(dir), "%s/runner", t_fx.tmp);
	return t_ripple(dir, argv);
}

/*
 * A persistent runner (one clone, one local cache) records main's nodes
 * without publishing them (read-only: an upload that died), then runs a
 * pull request job on the same keys, then main again. The pull request
 * reuses main's local records but never publishes them into its own
 * domain (they are main's, not its ref's); main's next run with its
 * credential publishes them into the trusted domain.
 */
Test(e2e_domains, a_runner_publishes_a_record_only_into_its_writers_domain)
{
	const char *ro[] = { "run", "--ref", "refs/heads/main",
			     "--remote-read-only", NULL };
	const char *pr[] = { "run", "--reuse", "any", "--ref",
			     "refs/pull/5/merge", NULL };
	const char *main_run[] = { "run", "--reuse", "any", "--ref",
				   "refs/heads/main", NULL };
	struct run_result r;

	t_fx_serve_domains();
	free(sh("git init -q -b main runner"));
	t_write(t_fx.tmp, "runner/ripple.yml", small_rules);
	t_write(t_fx.tmp, "runner/.gitignore", ".ripple/\ndist/\n");
	t_write(t_fx.tmp, "runner/src/a.c", "int a;\n");
	free(sh("cd runner && git add -A && git -c user.name=t -c "
		"user.email=t@example.com commit -qm init"));
	r = on_runner(T_NGINX_MAIN_HEADER, ro);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	r = on_runner(T_NGINX_PR_HEADER, pr);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "published 0 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"PUT /d/", 0), 0,
		     "main's records are not the pull request's to publish");
	r = on_runner(T_NGINX_MAIN_HEADER, main_run);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "published 3 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"PUT /ac/", 3), 3,
		     "main's three records reach the trusted domain");
}

/* lib copies `plant` when the checkout has one (not an input: same key). */
static const char plant_rules[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [src/**]}\n"
	"artifacts:\n"
	"  lib:\n"
	"    inputs: [src]\n"
	"    command: [sh, -c, 'mkdir -p dist && if test -f plant; then cat "
	"plant; else cat src/a.c; fi > dist/lib.txt']\n"
	"    outputs: [dist/lib.txt]\n"
	"  wheel:\n"
	"    needs: [lib]\n"
	"    command: [sh, -c, 'cat dist/lib.txt > dist/w.whl']\n"
	"    outputs: [dist/w.whl]\n"
	"tests:\n"
	"  unit:\n"
	"    needs: [wheel]\n"
	"    command: [sh, -c, 'cp dist/w.whl seen']\n"
	"policy:\n"
	"  trusted-refs: [refs/heads/main]\n";

/* ripple ARGV... in TMP/CLONE with `header` (NULL: no remote cache). */
static struct run_result
in_clone(const char *clone, const char *header, const char *const *argv)
{
	char dir[PATH_MAX];

	if (header) {
		setenv("RIPPLE_REMOTE_CACHE", t_fx.ng.url, 1);
		setenv("RIPPLE_REMOTE_CACHE_HEADER", header, 1);
	} else {
		unsetenv("RIPPLE_REMOTE_CACHE");
		unsetenv("RIPPLE_REMOTE_CACHE_HEADER");
	}
	snprintf(dir, sizeof(dir), "%s/%s", t_fx.tmp, clone);
	return t_ripple(dir, argv);
}

/*
 * A pull request's credential plants records of main's keys (with other
 * bytes) in that pull request's domain. A persistent runner with one
 * local cache ($RIPPLE_CACHE) runs the pull request: it reuses them from
 * its own domain and records that reuse locally, and a later run of the
 * pull request reuses them from the local cache (its gate passes). Then
 * main, on the same runner and local cache, with and without the remote
 * cache: its plan and run must not reuse them and its gate must not pass
 * on them (before the fix: plan "0 build, 0 test, 3 reuse", run
 * "0 looked up" and "0 built, 3 reused").
 */
Test(e2e_domains, a_pull_requests_remote_records_never_serve_main_locally)
{
	const char *plant[] = { "run", "wheel", "--ref", "refs/pull/1/merge",
				NULL };
	const char *pr[] = { "run", "--reuse", "any", "--ref",
			     "refs/pull/1/merge", NULL };
	const char *main_plan[] = { "plan", "--reuse", "any", "--ref",
				    "refs/heads/main", NULL };
	const char *main_run[] = { "run", "--reuse", "any", "--ref",
				   "refs/heads/main", NULL };
	const char *main_gate[] = { "gate", "--ref", "refs/heads/main", NULL };
	const char *pr_gate[] = { "gate", "--ref", "refs/pull/1/merge", NULL };
	char path[PATH_MAX], *s;
	struct run_result r;

	t_fx_serve_domains();
	free(sh("git init -q -b main origin"));
	t_write(t_fx.tmp, "origin/ripple.yml", plant_rules);
	t_write(t_fx.tmp, "origin/.gitignore", ".ripple/\ndist/\nplant\nseen\n");
	t_write(t_fx.tmp, "origin/src/a.c", "int a;\n");
	free(sh("cd origin && git add -A && git -c user.name=t -c "
		"user.email=t@example.com commit -qm init && cd .. && "
		"git clone -q origin planter && git clone -q origin runner && "
		"echo planted > planter/plant"));

	/* The planter: the PR credential, its own local cache. */
	snprintf(path, sizeof(path), "%s/planter.db", t_fx.tmp);
	setenv("RIPPLE_CACHE", path, 1);
	r = in_clone("planter", T_NGINX_PR_HEADER, plant);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.err, "published 2 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	cr_assert_eq(t_nginx_count(&t_fx.ng, "\"PUT /d/pull-1-merge-", 0) >= 2,
		     1, "planted in the pull request's domain");

	/* The runner's pull request job reuses them from its domain (its
	 * test needs the wheel's bytes: fetched). */
	snprintf(path, sizeof(path), "%s/runner.db", t_fx.tmp);
	setenv("RIPPLE_CACHE", path, 1);
	r = in_clone("runner", T_NGINX_PR_HEADER, pr);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "0 built, 2 reused (0 cut off), 1 tested") !=
		  NULL, "%s", r.out);
	t_result_release(&r);
	s = sh("cat runner/seen");
	cr_expect_str_eq(s, "planted");
	free(s);
	/* Still the pull request's, from the local cache, offline too. */
	r = in_clone("runner", NULL, pr);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "0 built, 3 reused") != NULL, "%s", r.out);
	t_result_release(&r);

	/* Main on the same runner and local cache: not its records. */
	free(sh("rm -rf runner/dist runner/seen"));
	r = in_clone("runner", NULL, main_plan);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "2 build, 1 test, 0 reuse") != NULL, "%s",
		  r.out);
	t_result_release(&r);
	r = in_clone("runner", NULL, main_gate);
	cr_expect_neq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "gate: ok") == NULL, "%s", r.out);
	t_result_release(&r);
	r = in_clone("runner", NULL, pr_gate);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	r = in_clone("runner", T_NGINX_MAIN_HEADER, main_run);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "2 built, 0 reused (0 cut off), 1 tested") !=
		  NULL, "%s", r.out);
	cr_expect(strstr(r.err, "published 3 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	s = sh("cat runner/seen");
	cr_expect_str_eq(s, "int a;");
	free(s);
	/* And main's next run takes main's own record. */
	r = in_clone("runner", T_NGINX_MAIN_HEADER, main_run);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "0 built, 3 reused") != NULL, "%s", r.out);
	t_result_release(&r);
}
