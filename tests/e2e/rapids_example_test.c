/*
 * Suite e2e_rapids_example: examples/rapids (issue 26), a RAPIDS-shaped
 * repository made by its make-repo: the rules pass check; jobs carry
 * containers and GPU runners; a change to the tests part of the conda
 * multi-output build reruns the users of libfoo-tests only; a secret
 * passed through pass-env appears in no record, log, key or JSON output;
 * the wheel builds' VERSION rewrite does not block the next run.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/support.h"

#define TOKEN "ghp_R4pidsExampleSecretToken77"
#define BUCKET "rapids-sccache-secret-bucket-31"
#define AWS "aws/SECRET+key/0123456789abcdefXYZ"

static char *
make_repo(char **base)
{
	struct run_result r;
	char cmd[PATH_MAX * 3], src[PATH_MAX], *dir;

	*base = t_tmpdir();
	dir = malloc(strlen(*base) + 8);
	cr_assert_not_null(dir);
	sprintf(dir, "%s/repo", *base);
	cr_assert_not_null(realpath(t_srcdir(), src));
	snprintf(cmd, sizeof(cmd), "sh '%s/examples/rapids/make-repo' '%s'",
		 src, dir);
	r = t_sh(*base, cmd);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	setenv("GH_TOKEN", TOKEN, 1);
	setenv("SCCACHE_BUCKET", BUCKET, 1);
	setenv("AWS_SECRET_ACCESS_KEY", AWS, 1);
	/* No CUDA runtime, so no GPU, even on a GPU machine: GPU work is
	 * deferred (exit 4) wherever the suite runs. */
	setenv("CUDA_HOME", "/nonexistent/cuda", 1);
	return dir;
}

static json_t *
parse(const char *text)
{
	json_error_t je;
	json_t *doc = json_loads(text, 0, &je);

	cr_assert_not_null(doc, "bad JSON: %s\n%s", je.text, text);
	return doc;
}

static char *
ok(const char *dir, int status, const char *const *argv)
{
	struct run_result r = t_ripple(dir, argv);
	char *out;

	cr_assert_eq(r.status, status, "ripple %s: exit %d\n%s%s", argv[0],
		     r.status, r.out, r.err);
	out = strdup(r.out);
	t_result_release(&r);
	return out;
}

static const char *
status_of(json_t *doc, const char *id)
{
	json_t *n;
	size_t i;

	json_array_foreach(json_object_get(doc, "nodes"), i, n)
		if (!strcmp(json_string_value(json_object_get(n, "id")), id))
			return json_string_value(json_object_get(n, "status"));
	return "(absent)";
}

Test(e2e_rapids_example, check_passes_and_jobs_carry_containers_and_gpus)
{
	char *base, *dir = make_repo(&base), *out;
	const char *check[] = { "check", NULL };
	const char *jobs[] = { "jobs", "pr", "--json", NULL };
	const char *nightly[] = { "jobs", "nightly", "--json", NULL };
	struct run_result r;
	json_t *doc, *job, *n;
	size_t i, k, gpu_jobs = 0;

	r = t_ripple(dir, check);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err, "", "no warnings: every image is pinned");
	t_result_release(&r);
	out = ok(dir, 0, jobs);
	doc = parse(out);
	json_array_foreach(json_object_get(doc, "jobs"), i, job) {
		const char *image = json_string_value(json_object_get(
			json_object_get(job, "container"), "image"));
		const char *label = json_string_value(json_array_get(
			json_object_get(job, "runs-on"), 0));

		cr_assert_not_null(image, "every job has a container");
		json_array_foreach(json_object_get(job, "nodes"), k, n) {
			const char *id = json_string_value(n);

			if (strstr(id, "conda") || strstr(id, "cpp-tests") ||
			    strstr(id, "examples") || !strcmp(id,
							      "artifact:docs"))
				cr_expect(!strncmp(image, "rapidsai/ci-conda@",
						   18), "%s in %s", id, image);
			else if (strstr(id, "wheel-tests"))
				cr_expect(!strncmp(image,
						   "rapidsai/citestwheel@",
						   21), "%s in %s", id, image);
			else
				cr_expect(!strncmp(image, "rapidsai/ci-wheel@",
						   18), "%s in %s", id, image);
			if (!strcmp(id, "artifact:docs") ||
			    strstr(id, "cpp-tests") ||
			    strstr(id, "conda-tests") ||
			    strstr(id, "wheel-tests")) {
				cr_expect_str_eq(label,
						 "linux-amd64-gpu-l4-latest-1",
						 "%s", id);
				gpu_jobs++;
			}
		}
	}
	cr_expect_eq(gpu_jobs, 9, "docs and 8 GPU tests on GPU runners");
	json_decref(doc);
	free(out);
	out = ok(dir, 0, nightly);
	cr_expect_not_null(strstr(out, "linux-amd64-gpu-l4-earliest-1"));
	cr_expect_not_null(strstr(out, "test:foo-nightly[cuda=12,deps=oldest,"
				  "driver=earliest,python=3.11]"), "%s", out);
	free(out);
	t_rmtree(base);
	free(base);
	free(dir);
}

/* No file under dir/rel holds any of the secrets. */
static void
nowhere(const char *dir, const char *rel)
{
	struct run_result r;
	char cmd[PATH_MAX + 512];

	snprintf(cmd, sizeof(cmd), "test -e '%s' && ! grep -rlaF -e '%s' -e "
		 "'%s' -e '%s' '%s'", rel, TOKEN, BUCKET, AWS, rel);
	r = t_sh(dir, cmd);
	cr_expect_eq(r.status, 0, "a secret under %s/%s:\n%s%s", dir, rel,
		     r.out, r.err);
	t_result_release(&r);
}

static void
no_secret(const char *what, const char *text)
{
	cr_expect_null(strstr(text, TOKEN), "%s holds the token", what);
	cr_expect_null(strstr(text, BUCKET), "%s holds the bucket", what);
	cr_expect_null(strstr(text, AWS), "%s holds the AWS key", what);
}

Test(e2e_rapids_example, tests_part_version_rewrite_and_secrets)
{
	char *base, *dir = make_repo(&base), *out, *gh;
	const char *run1[] = { "run", "pr", "--run-id", "r1", "--json", NULL };
	const char *run2[] = { "run", "pr", "--run-id", "r2", "--base",
			       "HEAD~1", "--json", NULL };
	const char *plan[] = { "plan", "pr", "--base", "HEAD~1", "--json",
			       "--github-output", "gh-output.txt", NULL };
	const char *why[] = { "why", "artifact:libfoo-wheel[cuda=12]",
			      "--json", NULL };
	const char *keys[] = { "keys", "--components", "--json", NULL };
	const char *jobs[] = { "jobs", "pr", "--json", NULL };
	const char *diff[] = { "diff", "r1", "r2", "--json", NULL };
	const char *const *json_cmds[] = { why, keys, jobs };
	char path[PATH_MAX];
	struct run_result r;
	json_t *doc;
	size_t i;

	/* GPU work is deferred on a machine without one: exit 4. */
	out = ok(dir, 4, run1);
	no_secret("run --json", out);
	free(out);
	r = t_sh(dir, "git status --porcelain");
	cr_expect_str_eq(r.out, "", "VERSION restored after the wheels");
	t_result_release(&r);
	r = t_sh(dir, "cat wheel-out/cu12/libfoo_cu12-*.whl | head -1");
	cr_expect_str_eq(r.out, "26.06.00a42\n", "the build saw its rewrite");
	t_result_release(&r);

	/* A change to the tests part of libfoo-conda. */
	t_write(dir, "cpp/tests/foo_test.cpp",
		"TEST(foo, answer) { ASSERT_EQ(foo(), 42); }\n");
	cr_assert_eq(t_git_commit(dir, "tests part"), 0);
	out = ok(dir, 0, plan);
	no_secret("plan --json", out);
	free(out);
	snprintf(path, sizeof(path), "%s/gh-output.txt", dir);
	gh = t_read(path);
	cr_assert_not_null(gh);
	no_secret("--github-output", gh);
	cr_expect_not_null(strstr(gh, "\"container\":{\"image\":"
				  "\"rapidsai/ci-conda@sha256:"), "%s", gh);
	free(gh);
	unlink(path);
	out = ok(dir, 4, run2);	/* the next run is not blocked */
	no_secret("run --json", out);
	doc = parse(out);
	cr_expect_str_eq(status_of(doc, "artifact:libfoo-conda[cuda=12]"),
			 "ok");
	cr_expect_str_eq(status_of(doc, "artifact:foo-conda[cuda=12,"
				   "python=3.11]"), "cutoff",
			 "the lib part is unchanged: %s", out);
	cr_expect_str_eq(status_of(doc, "artifact:foo-conda[cuda=13,"
				   "python=3.13]"), "cutoff");
	cr_expect_str_eq(status_of(doc, "test:libfoo-examples[cuda=12]"),
			 "cutoff", "lib and examples parts are unchanged");
	cr_expect_str_eq(status_of(doc, "test:libfoo-cpp-tests[cuda=12]"),
			 "deferred", "the tests part's user runs (GPU)");
	cr_expect_str_eq(status_of(doc, "artifact:foo-wheel[cuda=12,"
				   "python=3.11]"), "reused");
	json_decref(doc);
	free(out);
	for (i = 0; i < sizeof(json_cmds) / sizeof(*json_cmds); i++) {
		out = ok(dir, 0, json_cmds[i]);
		no_secret(json_cmds[i][0], out);
		free(out);
	}
	out = ok(dir, 1, diff);	/* the runs differ: exit 1 */
	no_secret("diff --json", out);
	free(out);
	nowhere(dir, ".ripple");
	nowhere(dir, "conda-out");
	nowhere(dir, "wheel-out");
	nowhere(dir, "test-logs");
	r = t_sh(dir, "grep -c 'sccache: bucket set' .ripple/logs/r1/*");
	cr_expect_eq(r.status, 0, "the builds were given the bucket: %s", r.out);
	t_result_release(&r);
	t_rmtree(base);
	free(base);
	free(dir);
}
