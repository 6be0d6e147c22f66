/*
 * The cuda-python behaviour cases (/work/shared/cases/cuda-python.md) as one
 * table run against the cuda-bindings demo (examples/cuda-bindings): each
 * row makes a change on a branch off main, plans it against a baseline run
 * recorded at main, and checks what ripple builds and tests, or the
 * version it computes. Where ripple deliberately decides otherwise than the
 * upstream tooling, the row says how and checks that the explanation names
 * the cause. Adding a case is adding one row.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

/*
 * One case. Sets are "rule=N ..." sorted by rule: N artifact nodes of that
 * rule decided `build` (B), or N test nodes decided `test` (T); every other
 * node is reused or skipped. `axes` ("root=bindings-12 cuda=12") must hold
 * for every node in B and T that has that axis: it is how the upstream
 * notation's M (CUDA majors), P (platforms) and per-root focus map onto
 * ripple's axes. For version rows, `version_root` and `version` replace B and
 * T ("{node}" stands for the first 9 hex digits of the commit, "!" for an
 * expected failure).
 */
struct demo_case {
	const char *id;		/* the case's number in cuda-python.md */
	const char *change;	/* shell commands run on a branch off main */
	const char *build;	/* expected B */
	const char *test;	/* expected T */
	const char *axes;	/* axis=value that every B and T node agrees with */
	const char *why;	/* NODE-GLOB|TEXT: `ripple why` names the cause */
	const char *forced;	/* text the plan's forced reason holds */
	const char *diff;	/* deliberate difference from upstream, or NULL */
	const char *plan_args;	/* extra `ripple plan` arguments */
	const char *fails;	/* `ripple plan` fails, stderr holding this */
	int no_baseline;	/* plan with no recorded run */
	const char *version_root;
	const char *version_rev;	/* default HEAD */
	const char *version;
	const char *skip;	/* why this case does not apply to the demo */
};

/* Every artifact built and every test run (a forced or cold plan). */
#define ALL_B "bindings-sdist=2 bindings-test-ext=4 bindings-wheel=36 " \
	"core-variant=36 core-wheel=18 docs=1 pathfinder-wheel=1 python-meta=2"
#define ALL_T "bindings-floor=1 bindings-gpu=3 core-tests=2 cuda-smoke=2 " \
	"driver-linux=1 driver-windows=1 pathfinder-tests=2 pathfinder-tests-win=2"
/* What a change of the build tooling (source set `ci`) rebuilds. */
#define CI_T "bindings-gpu=3 core-tests=2 pathfinder-tests=2 pathfinder-tests-win=2"
#define CI_DIFF "upstream runs every test; ripple reruns the tests downstream " \
	"of a rebuilt artifact, and reuses bindings-floor (published wheels), " \
	"the driver set-up and cuda-smoke, whose inputs did not change"
#define LINUX_T "bindings-floor=1 bindings-gpu=3 core-tests=2 driver-linux=1 " \
	"pathfinder-tests=2"
#define WIN_T "driver-windows=1 pathfinder-tests-win=2"

static const struct demo_case cases[] = {
	/* A. planner: path classification and impact */
	{ .id = "1", .change = "echo '# probe' >> cuda_pathfinder/cuda/pathfinder/_loader.py",
	  .build = "bindings-test-ext=4 bindings-wheel=36 core-variant=36 core-wheel=18 docs=1 pathfinder-wheel=1 python-meta=2",
	  .test = "bindings-gpu=3 core-tests=2 pathfinder-tests=2 pathfinder-tests-win=2",
	  .why = "artifact:core-variant[cuda=13,platform=linux-64,python=3.12]|artifact:pathfinder-wheel",
	  .diff = "upstream also rebuilds the sdists and reruns every test; ripple "
		  "keeps the sdists (no pathfinder input) and the published-floor "
		  "row, and rebuilds the metapackages only because they pin the "
		  "rebuilt bindings (version group)" },
	{ .id = "2", .change = "echo '# probe' >> cuda_bindings/cuda/bindings/driver.pyx",
	  .build = "bindings-sdist=1 bindings-test-ext=2 bindings-wheel=18 core-variant=18 core-wheel=18 python-meta=1",
	  .test = "bindings-gpu=2 core-tests=1", .axes = "root=bindings-13 cuda=13",
	  .why = "artifact:core-variant[cuda=13,platform=linux-64,python=3.12]|root=bindings-13",
	  .diff = "upstream rebuilds both core variants; ripple rebuilds only "
		  "core-variant[cuda=13] (then the merged core-wheel), and this "
		  "root's metapackage with the bindings it pins (version group)" },
	{ .id = "3", .change = "echo '# probe' >> cuda_bindings_12/cuda/bindings/driver.pyx",
	  .build = "bindings-sdist=1 bindings-test-ext=2 bindings-wheel=18 core-variant=18 core-wheel=18 python-meta=1",
	  .test = "bindings-gpu=1 core-tests=1", .axes = "root=bindings-12 cuda=12",
	  .why = "artifact:core-wheel[platform=linux-64,python=3.12]|core-variant[cuda=12,platform=linux-64,python=3.12]",
	  .diff = "upstream rebuilds both core variants; ripple rebuilds only "
		  "core-variant[cuda=12], and core-wheel because it merges it" },
	{ .id = "4", .change = "echo '# probe' >> cuda_bindings/cuda/bindings/driver.pyx; "
		  "echo '# probe' >> cuda_bindings_12/cuda/bindings/driver.pyx",
	  .build = "bindings-sdist=2 bindings-test-ext=4 bindings-wheel=36 core-variant=36 core-wheel=18 python-meta=2",
	  .test = "bindings-gpu=3 core-tests=2",
	  .diff = "upstream also tests the metapackage; the demo has no "
		  "metapackage tests (both metapackages rebuild with the bindings "
		  "they pin, a version group)" },
	{ .id = "5", .change = "echo '# probe' >> cuda_core/cuda/core/_device.py",
	  .build = "core-variant=36 core-wheel=18", .test = "core-tests=2",
	  .why = "artifact:core-variant[cuda=12,platform=win-64,python=3.14t]|cuda_core/cuda/core/_device.py",
	  .diff = "upstream also tests the metapackage of both roots; it does not "
		  "depend on cuda_core" },
	{ .id = "7", .change = "echo '# probe' >> cuda_python/pyproject.toml",
	  .build = "bindings-test-ext=4 bindings-wheel=36 core-variant=36 core-wheel=18 python-meta=2",
	  .test = "bindings-gpu=3 core-tests=2",
	  .why = "artifact:bindings-wheel[platform=linux-64,python=3.12,root=bindings-13]|version-group",
	  .diff = "as upstream, the bindings of both roots rebuild with the "
		  "metapackages that pin them (a version group: recipe 21), and "
		  "what uses the bindings follows them as cascades" },
	{ .id = "8", .change = "echo '# probe' >> cuda_pathfinder/tests/test_loader.py",
	  .build = "", .test = "pathfinder-tests=2 pathfinder-tests-win=2",
	  .diff = "upstream enables the tests of every CUDA major; ripple runs only "
		  "the pathfinder rows, on both platforms" },
	{ .id = "9", .change = "echo '# probe' >> cuda_bindings/examples/vectorAdd.py",
	  .build = "bindings-test-ext=2", .test = "bindings-gpu=2", .axes = "root=bindings-13",
	  .why = "artifact:bindings-test-ext[platform=linux-64,root=bindings-13]|cuda_bindings/examples/vectorAdd.py",
	  .diff = "upstream compiles the Cython test extensions inside every test "
		  "job; ripple makes them artifacts over root.tests (tests/ and "
		  "examples/), so they rebuild, for this root only, when those change" },
	{ .id = "11", .change = "echo '# probe' >> cuda_core/pytest.ini",
	  .build = "", .test = "core-tests=2" },
	{ .id = "13", .change = "echo '# probe' >> ci/versions.yml",
	  .build = ALL_B, .test = CI_T,
	  .why = "artifact:pathfinder-wheel|ci/versions.yml", .diff = CI_DIFF },
	{ .id = "13", .change = "echo '# probe' >> ci/run-tests",
	  .build = "", .test = "bindings-floor=1 bindings-gpu=3 core-tests=2 pathfinder-tests=2 pathfinder-tests-win=2",
	  .why = "test:bindings-floor[platform=linux-64,python=3.12,root=bindings-12]|ci/run-tests",
	  .diff = "upstream runs everything for any ci/ change; ripple's rules put "
		  "ci/run-tests in ci-tests, which only test rows read: retest, no build" },
	{ .id = "13", .change = "echo '<svg/>' > ci/ci-pipeline.svg",
	  .build = ALL_B, .test = ALL_T, .forced = "unclaimed path 'ci/ci-pipeline.svg'",
	  .why = "artifact:docs|policy unclaimed-paths" },
	{ .id = "14", .change = "echo '[pytest]' > pytest.ini",
	  .build = ALL_B, .test = ALL_T, .forced = "unclaimed path 'pytest.ini'" },
	{ .id = "14", .change = "mkdir new-area && echo 'a = 1' > new-area/config.toml",
	  .build = ALL_B, .test = ALL_T, .forced = "unclaimed path 'new-area/config.toml'" },
	{ .id = "15", .change = "echo 'name: x' > .github/workflows/new-main-ci-workflow.yml",
	  .build = ALL_B, .test = CI_T,
	  .why = "artifact:docs|.github/workflows/new-main-ci-workflow.yml", .diff = CI_DIFF },
	{ .id = "15", .change = "mkdir -p .github/actions/doc_preview && "
		  "echo 'name: x' > .github/actions/doc_preview/action.yml",
	  .build = ALL_B, .test = CI_T, .diff = CI_DIFF },
	{ .id = "15", .change = "echo 'x: [\"x/**\"]' >> .github/labeler.yml",
	  .build = "", .test = "" },
	{ .id = "15", .change = "mkdir -p .github/ISSUE_TEMPLATE && echo 'name: bug' > .github/ISSUE_TEMPLATE/bug.yml",
	  .build = "", .test = "" },
	{ .id = "17", .change = "echo 'echo done' >> ci/tools/install_gpu_driver.sh",
	  .build = "", .test = LINUX_T, .axes = "platform=linux-64",
	  .why = "test:core-tests[cuda=13,platform=linux-64,python=3.12]|test:driver-linux[platform=linux-64]",
	  .diff = "ripple models the runner set-up as test nodes (driver-linux, "
		  "driver-windows) that each row needs for its platform" },
	{ .id = "18", .change = "echo 'Write-Output done' >> ci/tools/install_gpu_driver.ps1",
	  .build = "", .test = WIN_T, .axes = "platform=win-64",
	  .diff = "the demo's GPU rows are Linux-only: only the pathfinder rows run on Windows" },
	{ .id = "19", .change = "echo 'echo done' >> ci/tools/install_gpu_driver.sh; "
		  "echo 'Write-Output done' >> ci/tools/install_gpu_driver.ps1",
	  .build = "", .test = "bindings-floor=1 bindings-gpu=3 core-tests=2 driver-linux=1 "
		  "driver-windows=1 pathfinder-tests=2 pathfinder-tests-win=2" },
	{ .id = "22", .change = "echo 'More.' >> cuda_core/docs/index.rst", .no_baseline = 1,
	  .build = ALL_B, .test = ALL_T, .why = "artifact:docs|no" },
	{ .id = "22", .change = "echo 'More.' >> cuda_core/docs/index.rst",
	  .build = "docs=1", .test = "",
	  .why = "artifact:docs|cuda_core/docs/index.rst",
	  .diff = "with a baseline, upstream ignores docs; ripple rebuilds the docs artifact" },
	{ .id = "23", .change = "git checkout -q --orphan unrelated && git commit -q -m unrelated",
	  .fails = "no merge base of 'main'",
	  .diff = "upstream falls back to a full run; ripple refuses to plan "
		  "against a base that shares no history, and says so" },
	/* B. release-tag focusing */
	{ .id = "27", .change = "true", .plan_args = "release:bindings[root=bindings-12] --head v12.9.9",
	  .no_baseline = 1, .build = "bindings-sdist=1 bindings-wheel=18 pathfinder-wheel=1",
	  .test = "", .axes = "root=bindings-12",
	  .diff = "ripple plans the release node's closure: the 12 line's wheels and "
		  "sdist (and pathfinder, which they need); no core, no tests" },
	{ .id = "29", .skip = "the demo declares no cuda-core release (tag family cuda-core-v*)" },
	{ .id = "30", .skip = "routing a tag to a root is `ripple release`, tested with it" },
	/* D. versions */
	{ .id = "37", .change = "git tag -d v12.9.8 v12.9.9 >/dev/null",
	  .version_root = "bindings-12", .version = "12.9.10.dev0+g{node}",
	  .diff = "ripple's node is 9 hex digits (setuptools-scm's default); set "
		  "node-length: 7 on the root for upstream's 7" },
	{ .id = "38", .change = "first=$(git rev-list --max-parents=0 main) && "
		  "git tag v12.9.0 $first && git tag v12.9.7 $first",
	  .version_root = "bindings-12", .version = "12.9.10.dev0+g{node}" },
	{ .id = "40", .change = "echo x > post && git add post && git commit -q -m post && "
		  "git tag v12.9.10.post1 HEAD~1",
	  .version_root = "bindings-12", .version = "12.9.10.post2.dev1+g{node}",
	  .diff = "the demo's fallback is 12.9.10.dev0, so the post-release that "
		  "ends it is v12.9.10.post1 (upstream: v12.9.8.post1 for 12.9.8.dev0)" },
	{ .id = "40", .change = "git tag v12.9.8.post1 main",
	  .version_root = "bindings-12", .version = "12.9.10.dev0+g{node}",
	  .diff = "a post-release older than the fallback does not end it" },
	{ .id = "43", .change = "true", .version_root = "bindings-12",
	  .version_rev = "{HEAD}", .version = "12.9.10.dev0+g{node}" },
	{ .id = "43", .change = "true", .version_root = "bindings-12",
	  .version_rev = "zz12345", .version = "!" },
	{ .id = "44", .change = "git tag v12.9.10rc2 HEAD",
	  .version_root = "bindings-12", .version = "12.9.10rc2",
	  .diff = "upstream's v12.9.8.post2 is older than the demo's fallback; a "
		  "tag at or above it shows the same rule" },
	{ .id = "44", .change = "git tag v13.0.3rc2 HEAD",
	  .version_root = "bindings-13", .version = "13.0.3rc2" },
};

/* A fixed identity for the commits the cases make. */
#define GIT_ID "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com " \
	"GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com " \
	"GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1; "

/* Run a command in dir; asserts success; returns stdout (malloc'd). */
static char *
must(const char *dir, const char *id, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);

	cr_assert_eq(r.status, 0, "case %s: '%s' failed: %s%s", id, cmd,
		     r.out, r.err);
	free(r.err);
	return r.out;
}

/* RIPPLE_BIN, else build/ripple, as an absolute path (malloc'd). */
static char *
ripple_path(void)
{
	const char *bin = getenv("RIPPLE_BIN");
	char *p = realpath(bin && *bin ? bin : "build/ripple", NULL);

	cr_assert_not_null(p, "no ripple binary");
	return p;
}

/* Does node n agree with "axis=value ..."? Axes it lacks are ignored. */
static int
node_agrees(json_t *n, const char *spec)
{
	json_t *axes = json_object_get(n, "axes");
	char buf[256], *save = NULL, *tok;

	if (!spec)
		return 1;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		json_t *v;

		*eq = '\0';
		v = json_object_get(axes, tok);
		if (v && strcmp(json_string_value(v), eq + 1))
			return 0;
	}
	return 1;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * "rule=N ..." of the nodes of `kind` decided `decision`, sorted by rule;
 * *disagree counts those that break `axes`. Returns malloc'd text.
 */
static char *
decided(json_t *plan, const char *kind, const char *decision,
	const char *axes, int *disagree)
{
	json_t *nodes = json_object_get(plan, "nodes"), *n;
	const char *rules[512];
	size_t i, k = 0, len = 0;
	char *out = malloc(8192);

	cr_assert_not_null(out);
	json_array_foreach(nodes, i, n) {
		if (strcmp(json_string_value(json_object_get(n, "kind")), kind) ||
		    strcmp(json_string_value(json_object_get(n, "decision")),
			   decision))
			continue;
		cr_assert_lt(k, 512);
		rules[k++] = json_string_value(json_object_get(n, "rule"));
		if (!node_agrees(n, axes))
			(*disagree)++;
	}
	qsort(rules, k, sizeof(rules[0]), cmp_str);
	out[0] = '\0';
	for (i = 0; i < k;) {
		size_t j = i;

		while (j < k && !strcmp(rules[j], rules[i]))
			j++;
		len += (size_t)snprintf(out + len, 8192 - len, "%s%s=%zu",
					len ? " " : "", rules[i], j - i);
		i = j;
	}
	return out;
}

/* Replace "{node}" / "{HEAD}" in pattern with the commit's short/full id. */
static void
expand(char *buf, size_t n, const char *pattern, const char *full)
{
	const char *p = strchr(pattern, '{');

	if (!p) {
		snprintf(buf, n, "%s", pattern);
		return;
	}
	if (!strncmp(p, "{node}", 6))
		snprintf(buf, n, "%.*s%.9s%s", (int)(p - pattern), pattern, full,
			 p + 6);
	else {
		char up[41];
		size_t i;

		for (i = 0; i < 40 && full[i]; i++)
			up[i] = (char)(full[i] >= 'a' && full[i] <= 'f'
				       ? full[i] - 'a' + 'A' : full[i]);
		up[i] = '\0';
		snprintf(buf, n, "%.*s%s%s", (int)(p - pattern), pattern, up,
			 p + 6);
	}
}

static void
check_version(const struct demo_case *c, const char *dir, const char *ripple)
{
	char cmd[PATH_MAX + 256], want[256], rev[128], *head;
	struct run_result r;
	size_t n;

	head = t_git_rev(dir, "HEAD");
	cr_assert_not_null(head);
	expand(rev, sizeof(rev), c->version_rev ? c->version_rev : "HEAD", head);
	snprintf(cmd, sizeof(cmd), "'%s' version %s --rev '%s'", ripple,
		 c->version_root, rev);
	r = t_sh(dir, cmd);
	if (!strcmp(c->version, "!")) {
		cr_expect_neq(r.status, 0, "case %s: '%s' should fail: %s",
			      c->id, cmd, r.out);
		cr_expect(strstr(r.err, "error") != NULL, "case %s: %s", c->id,
			  r.err);
	} else {
		cr_assert_eq(r.status, 0, "case %s: %s", c->id, r.err);
		n = strlen(r.out);
		while (n && r.out[n - 1] == '\n')
			r.out[--n] = '\0';
		expand(want, sizeof(want), c->version, head);
		cr_expect_str_eq(r.out, want, "case %s (%s): version", c->id,
				 c->change);
	}
	t_result_release(&r);
	free(head);
}

static void
check_plan(const struct demo_case *c, const char *dir, const char *ripple)
{
	char cmd[PATH_MAX + 512];
	char *out, *b, *t;
	json_t *plan, *forced;
	json_error_t jerr;
	int disagree = 0;

	if (c->plan_args) {
		/* "TARGET [OPTIONS]": quote only the target */
		int tlen = (int)strcspn(c->plan_args, " ");

		snprintf(cmd, sizeof(cmd), "'%s' plan '%.*s'%s --base main --json%s",
			 ripple, tlen, c->plan_args, c->plan_args + tlen,
			 c->no_baseline ? " --cache none.db" : "");
	} else {
		snprintf(cmd, sizeof(cmd), "'%s' plan --base main --json%s",
			 ripple, c->no_baseline ? " --cache none.db" : "");
	}
	if (c->fails) {
		struct run_result r = t_sh(dir, cmd);

		cr_expect_neq(r.status, 0, "case %s: plan should fail", c->id);
		cr_expect(strstr(r.err, c->fails) != NULL,
			  "case %s: error does not say '%s': %s", c->id,
			  c->fails, r.err);
		t_result_release(&r);
		return;
	}
	out = must(dir, c->id, cmd);
	plan = json_loads(out, 0, &jerr);
	cr_assert_not_null(plan, "case %s: bad JSON: %s", c->id, jerr.text);
	b = decided(plan, "artifact", "build", c->axes, &disagree);
	t = decided(plan, "test", "test", c->axes, &disagree);
	cr_expect_str_eq(b, c->build, "case %s (%s): B is %s", c->id,
			 c->change, b);
	cr_expect_str_eq(t, c->test, "case %s (%s): T is %s", c->id,
			 c->change, t);
	cr_expect_eq(disagree, 0, "case %s: %d nodes outside %s", c->id,
		     disagree, c->axes);
	forced = json_object_get(plan, "forced");
	if (c->forced)
		cr_expect(json_is_string(forced) &&
			  strstr(json_string_value(forced), c->forced),
			  "case %s: forced is not '%s'", c->id, c->forced);
	else if (!c->no_baseline)
		cr_expect(json_is_null(forced), "case %s: forced '%s'", c->id,
			  json_string_value(forced));
	if (c->why) {
		const char *bar = strchr(c->why, '|');
		char *why;

		snprintf(cmd, sizeof(cmd), "'%s' why '%.*s' --base main%s",
			 ripple, (int)(bar - c->why), c->why,
			 c->no_baseline ? " --cache none.db" : "");
		why = must(dir, c->id, cmd);
		cr_expect(strstr(why, bar + 1) != NULL,
			  "case %s: `ripple why` does not name '%s':\n%s", c->id,
			  bar + 1, why);
		free(why);
	}
	json_decref(plan);
	free(b);
	free(t);
	free(out);
}

Test(e2e_cases, cuda_python_cases_hold_on_the_demo, .timeout = 300)
{
	char *tmp = t_tmpdir(), *ripple = ripple_path(), *src;
	char cmd[4 * PATH_MAX + 512], dir[PATH_MAX], tmpl[PATH_MAX];
	size_t i, ran = 0;

	src = realpath(t_srcdir(), NULL);
	cr_assert_not_null(src);
	/* The demo and its baseline run at main, once. */
	snprintf(tmpl, sizeof(tmpl), "%s/demo", tmp);
	snprintf(cmd, sizeof(cmd),
		 "'%s/examples/cuda-bindings/make-demo-repo' demo >/dev/null && "
		 "cd demo && '%s' record --run base --node '*' --status ok "
		 ">/dev/null && '%s' record --run base --finish ok", src, ripple,
		 ripple);
	free(must(tmp, "setup", cmd));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct demo_case *c = &cases[i];

		if (c->skip)
			continue;
		snprintf(dir, sizeof(dir), "%s/case-%zu", tmp, i);
		snprintf(cmd, sizeof(cmd),
			 "cp -a '%s' '%s' && cd '%s' && " GIT_ID
			 "git checkout -q -b case main && "
			 "{ %s; } && git add -A && "
			 "{ git diff --cached --quiet || git commit -q -m 'case'; }",
			 tmpl, dir, dir, c->change);
		free(must(tmp, c->id, cmd));
		if (c->version_root)
			check_version(c, dir, ripple);
		else
			check_plan(c, dir, ripple);
		ran++;
	}
	cr_expect_geq(ran, 30);
	free(src);
	free(ripple);
	t_rmtree(tmp);
	free(tmp);
}
