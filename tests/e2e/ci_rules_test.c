/*
 * Suite e2e_ci_rules: what real CI needs of the rules (issue 26), on small
 * repositories made here with real shell actions: variables passed through
 * unkeyed and unrecorded (pass-env), containers, GPU artifacts, tracked
 * files an action rewrites, output groups, axes read from a file.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/nginx.h"
#include "tests/support/support.h"

static char *
make_repo(const char *rules)
{
	char *dir = t_git_init();

	t_write(dir, ".gitignore", ".ripple/\nout/\n");
	t_write(dir, "ripple.yml", rules);
	t_write(dir, "src/lib.txt", "hello\n");
	t_write(dir, "tests/t.txt", "test\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
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

/* id -> field of every node of a plan or run JSON document. */
static const char *
node_field(json_t *doc, const char *id, const char *field)
{
	json_t *nodes = json_object_get(doc, "nodes"), *n;
	size_t i;

	json_array_foreach(nodes, i, n)
		if (!strcmp(json_string_value(json_object_get(n, "id")), id))
			return json_string_value(json_object_get(n, field));
	return NULL;
}

/* Run ripple; assert its exit status; return stdout (malloc'd). */
static char *
ok(const char *dir, int status, const char *const *argv)
{
	struct run_result r = t_ripple(dir, argv);
	char *out;

	cr_assert_eq(r.status, status, "ripple %s: exit %d\n%s%s", argv[0],
		     r.status, r.out, r.err);
	out = strdup(r.out);
	cr_assert_not_null(out);
	t_result_release(&r);
	return out;
}

/* No file under dir/rel holds `value` (grep -r over every byte). */
static void
expect_nowhere(const char *dir, const char *rel, const char *value)
{
	struct run_result r;
	char cmd[PATH_MAX + 256];

	snprintf(cmd, sizeof(cmd), "test -e '%s' && ! grep -rlaF -e '%s' "
		 "'%s'", rel, value, rel);
	r = t_sh(dir, cmd);
	cr_expect_eq(r.status, 0, "'%s' found under %s/%s:\n%s%s", value,
		     dir, rel, r.out, r.err);
	t_result_release(&r);
}

static const char pass_yml[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [\"src/**\"]}\n"
	"artifacts:\n"
	"  lib:\n"
	"    inputs: [src]\n"
	"    env: {MODE: release}\n"
	"    pass-env: [GH_TOKEN, \"SCCACHE_*\"]\n"
	"    command: \"mkdir -p out && test -n \\\"$GH_TOKEN\\\" && "
	"printf '%s %s %s' $${#GH_TOKEN} $${#SCCACHE_BUCKET} "
	"$${NOT_PASSED:-unset} > out/lib.bin\"\n"
	"    outputs: [out/lib.bin]\n"
	"tests:\n"
	"  lib-test:\n"
	"    needs: [lib]\n"
	"    command: \"test -z \\\"$GH_TOKEN\\\" && grep -q unset out/lib.bin\"\n";

#define TOKEN "ghp_s3cr3tT0kenValue4211"
#define BUCKET "bucket-secret-9f8e7d"

Test(e2e_ci_rules, pass_env_reaches_the_action_and_appears_nowhere)
{
	char *dir = make_repo(pass_yml);
	const char *run[] = { "run", "--run-id", "r1", "--json", NULL };
	const char *run2[] = { "run", "--run-id", "r2", "--base", "HEAD",
			       "--json", NULL };
	const char *plan[] = { "plan", "--json", NULL };
	const char *why[] = { "why", "artifact:lib", "--json", NULL };
	const char *keys[] = { "keys", "--components", "--json", NULL };
	const char *graph[] = { "graph", "--format", "json", NULL };
	const char *jobs[] = { "jobs", "--json", NULL };
	const char *runs[] = { "runs", "--json", NULL };
	const char *const *all[] = { plan, why, keys, graph, jobs, runs };
	char path[PATH_MAX], *out, *text;
	json_t *doc;
	size_t i;

	setenv("GH_TOKEN", TOKEN, 1);
	setenv("SCCACHE_BUCKET", BUCKET, 1);
	setenv("NOT_PASSED", "x", 1);
	out = ok(dir, 0, run);
	doc = parse(out);
	cr_expect_str_eq(node_field(doc, "artifact:lib", "status"), "ok");
	cr_expect_str_eq(node_field(doc, "test:lib-test", "status"), "ok");
	cr_expect_null(strstr(out, TOKEN));
	cr_expect_null(strstr(out, BUCKET));
	json_decref(doc);
	free(out);
	snprintf(path, sizeof(path), "%s/out/lib.bin", dir);
	text = t_read(path);
	cr_expect_str_eq(text, "24 20 unset",
			 "the action saw both values, and nothing unlisted");
	free(text);
	/* Another value of a passed variable keys nothing: reused. */
	setenv("GH_TOKEN", "ghp_another_value", 1);
	out = ok(dir, 0, run2);
	doc = parse(out);
	cr_expect_str_eq(node_field(doc, "artifact:lib", "status"), "reused");
	json_decref(doc);
	free(out);
	setenv("GH_TOKEN", TOKEN, 1);
	for (i = 0; i < sizeof(all) / sizeof(*all); i++) {
		out = ok(dir, 0, all[i]);
		cr_expect_null(strstr(out, TOKEN), "%s shows the token",
			       all[i][0]);
		cr_expect_null(strstr(out, BUCKET), "%s shows the bucket",
			       all[i][0]);
		if (all[i] == keys) {
			cr_expect_not_null(strstr(out, "pass-env"));
			cr_expect_not_null(strstr(out, "SCCACHE_*"),
					   "keys show the names: %s", out);
		}
		free(out);
	}
	expect_nowhere(dir, ".ripple", TOKEN);
	expect_nowhere(dir, ".ripple", BUCKET);
	expect_nowhere(dir, ".ripple", "ghp_another_value");
	expect_nowhere(dir, "out", TOKEN);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci_rules, pass_env_names_are_checked)
{
	static const char bad[] =
		"version: 1\n"
		"artifacts:\n"
		"  lib:\n"
		"    env: {GH_TOKEN: x}\n"
		"    pass-env: [\"GH_*\", \"BAD-NAME\"]\n"
		"    command: [true]\n";
	char *dir = make_repo(bad);
	const char *check[] = { "check", NULL };
	struct run_result r = t_ripple(dir, check);

	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "ripple.yml:5:16: error: "
				  "'GH_TOKEN' is in both env and pass-env"),
			   "%s", r.err);
	cr_expect_not_null(strstr(r.err, "ripple.yml:5:24: error: invalid "
				  "pass-env name 'BAD-NAME'"), "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

#define DIGEST "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static const char container_yml[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [\"src/**\"]}\n"
	"axes:\n"
	"  cuda: [\"12\", \"13\"]\n"
	"artifacts:\n"
	"  libfoo-conda:\n"
	"    each: {cuda: axes.cuda}\n"
	"    inputs: [src]\n"
	"    container: {image: \"rapidsai/ci-conda:26.06-cuda${cuda}\", "
	"options: \"--shm-size=8g\"}\n"
	"    command: [true]\n"
	"  foo-wheel:\n"
	"    each: {cuda: axes.cuda}\n"
	"    inputs: [src]\n"
	"    needs: [libfoo-conda]\n"
	"    container: \"rapidsai/ci-wheel@sha256:" DIGEST "\"\n"
	"    command: [true]\n"
	"  plain:\n"
	"    inputs: [src]\n"
	"    command: [true]\n";

/* The job of node `id` in a jobs document, or NULL. */
static json_t *
job_of(json_t *doc, const char *id)
{
	json_t *jobs = json_object_get(doc, "jobs"), *j, *n;
	size_t i, k;

	json_array_foreach(jobs, i, j)
		json_array_foreach(json_object_get(j, "nodes"), k, n)
			if (!strcmp(json_string_value(n), id))
				return j;
	return NULL;
}

static const char *
job_image(json_t *job)
{
	return json_string_value(json_object_get(
		json_object_get(job, "container"), "image"));
}

Test(e2e_ci_rules, jobs_carry_their_container_and_never_mix_them)
{
	char *dir = make_repo(container_yml);
	const char *jobs[] = { "jobs", "--json", NULL };
	const char *check[] = { "check", NULL };
	char *out;
	json_t *doc, *job, *n;
	struct run_result r;
	size_t i, k;

	out = ok(dir, 0, jobs);
	doc = parse(out);
	job = job_of(doc, "artifact:libfoo-conda[cuda=13]");
	cr_assert_not_null(job);
	cr_expect_str_eq(job_image(job), "rapidsai/ci-conda:26.06-cuda13");
	cr_expect_str_eq(json_string_value(json_object_get(
		json_object_get(job, "container"), "options")),
		"--shm-size=8g");
	job = job_of(doc, "artifact:foo-wheel[cuda=12]");
	cr_assert_not_null(job);
	cr_expect_str_eq(job_image(job), "rapidsai/ci-wheel@sha256:" DIGEST);
	job = job_of(doc, "artifact:plain");
	cr_assert_not_null(job);
	cr_expect_null(json_object_get(job, "container"),
		       "a node without a container: no container key");
	/* Every job's nodes share one container. */
	json_array_foreach(json_object_get(doc, "jobs"), i, job)
		json_array_foreach(json_object_get(job, "nodes"), k, n) {
			const char *id = json_string_value(n);
			const char *want = strstr(id, "conda")
				? "rapidsai/ci-conda" : strstr(id, "wheel")
				? "rapidsai/ci-wheel" : NULL;

			if (want)
				cr_expect(job_image(job) &&
					  !strncmp(job_image(job), want,
						   strlen(want)),
					  "%s in a job of %s", id,
					  job_image(job));
			else
				cr_expect_null(job_image(job));
		}
	json_decref(doc);
	free(out);
	r = t_ripple(dir, check);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "ripple.yml:10:24: warning: artifact "
				  "'libfoo-conda': container image "
				  "'rapidsai/ci-conda:26.06-cuda12' is a tag"),
			   "%s", r.err);
	cr_expect_null(strstr(r.err, "ci-wheel"), "a digest is pinned");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* The key of node `id` at HEAD. */
static char *
key_of(const char *dir, const char *id)
{
	const char *keys[] = { "keys", id, "--json", NULL };
	char *out = ok(dir, 0, keys), *key;
	json_t *doc = parse(out), *nodes;

	nodes = json_object_get(doc, "nodes");
	cr_assert_eq(json_array_size(nodes), 1, "%s", out);
	key = strdup(json_string_value(json_object_get(
		json_array_get(nodes, 0), "key")));
	json_decref(doc);
	free(out);
	return key;
}

Test(e2e_ci_rules, the_image_is_keyed_and_the_options_are_not)
{
	char *dir = make_repo(container_yml);
	const char *id = "artifact:libfoo-conda[cuda=12]";
	char *k0, *k1, *k2, *plain0, *plain1, *rules;
	char *at;

	k0 = key_of(dir, id);
	plain0 = key_of(dir, "artifact:plain");
	rules = strdup(container_yml);
	at = strstr(rules, "--shm-size=8g");
	memcpy(at, "--shm-size=9g", 13);
	t_write(dir, "ripple.yml", rules);
	cr_assert_eq(t_git_commit(dir, "options"), 0);
	k1 = key_of(dir, id);
	cr_expect_str_eq(k0, k1, "options are not keyed");
	at = strstr(rules, "26.06-cuda");
	memcpy(at, "26.08-cuda", 10);
	t_write(dir, "ripple.yml", rules);
	cr_assert_eq(t_git_commit(dir, "image"), 0);
	k2 = key_of(dir, id);
	cr_expect_str_neq(k1, k2, "another image is another key");
	plain1 = key_of(dir, "artifact:plain");
	cr_expect_str_eq(plain0, plain1);
	free(k0);
	free(k1);
	free(k2);
	free(plain0);
	free(plain1);
	free(rules);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci_rules, a_bad_image_reference_is_refused)
{
	static const char bad[] =
		"version: 1\n"
		"axes:\n"
		"  v: [\"-rm\"]\n"
		"artifacts:\n"
		"  a:\n"
		"    each: {v: axes.v}\n"
		"    container: \"${v}\"\n"
		"    command: [true]\n"
		"  b:\n"
		"    container: \"img@sha256:12\"\n"
		"    command: [true]\n";
	char *dir = make_repo(bad);
	const char *check[] = { "check", NULL };
	struct run_result r = t_ripple(dir, check);

	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "container image '-rm' (from '${v}') "
				  "is not an image reference"), "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

static const char gpu_art_yml[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [\"src/**\"]}\n"
	"axes:\n"
	"  platform: [linux-64]\n"
	"runners:\n"
	"  linux-64: {runs-on: [linux-amd64-cpu4], gpu-runs-on: "
	"[linux-amd64-gpu-l4-latest-1]}\n"
	"artifacts:\n"
	"  lib:\n"
	"    each: {platform: axes.platform}\n"
	"    inputs: [src]\n"
	"    command: \"mkdir -p out && echo lib > out/lib\"\n"
	"    outputs: [out/lib]\n"
	"  docs:\n"
	"    each: {platform: axes.platform}\n"
	"    needs: [lib]\n"
	"    gpu: {count: 1, min-memory: 1073741824}\n"
	"    command: \"mkdir -p out && echo docs > out/docs\"\n"
	"    outputs: [out/docs]\n"
	"  big:\n"
	"    each: {platform: axes.platform}\n"
	"    needs: [lib]\n"
	"    runs-on: [\"linux-amd64-cpu16\"]\n"
	"    command: [true]\n"
	"  site:\n"
	"    each: {platform: axes.platform}\n"
	"    needs: [docs]\n"
	"    command: \"cat out/docs > out/site\"\n";

static const char *
job_label0(json_t *doc, const char *id)
{
	json_t *job = job_of(doc, id);

	cr_assert_not_null(job, "no job for %s", id);
	return json_string_value(json_array_get(json_object_get(job,
								 "runs-on"),
						0));
}

Test(e2e_ci_rules, a_gpu_artifact_goes_to_a_gpu_runner_and_is_checked)
{
	char *dir = make_repo(gpu_art_yml);
	const char *jobs[] = { "jobs", "--json", NULL };
	const char *run[] = { "run", "--run-id", "r1", "--json", NULL };
	char *out;
	json_t *doc;

	out = ok(dir, 0, jobs);
	doc = parse(out);
	cr_expect_str_eq(job_label0(doc, "artifact:lib[platform=linux-64]"),
			 "linux-amd64-cpu4");
	cr_expect_str_eq(job_label0(doc, "artifact:docs[platform=linux-64]"),
			 "linux-amd64-gpu-l4-latest-1");
	cr_expect_str_eq(job_label0(doc, "artifact:big[platform=linux-64]"),
			 "linux-amd64-cpu16");
	cr_expect_str_eq(json_string_value(json_object_get(
		job_of(doc, "artifact:docs[platform=linux-64]"), "group")),
		"build");
	json_decref(doc);
	free(out);
	/* No GPU here has 1 EiB: the artifact is deferred, as a GPU test
	 * would be, and what needs it waits with it. */
	out = ok(dir, 4, run);
	doc = parse(out);
	cr_expect_str_eq(node_field(doc, "artifact:lib[platform=linux-64]",
				    "status"), "ok");
	cr_expect_str_eq(node_field(doc, "artifact:docs[platform=linux-64]",
				    "status"), "deferred");
	cr_expect_str_eq(node_field(doc, "artifact:site[platform=linux-64]",
				    "status"), "deferred");
	json_decref(doc);
	free(out);
	t_rmtree(dir);
	free(dir);
}

static const char rewrite_yml[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [\"src/**\", VERSION]}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    inputs: [src]\n"
	"    command: \"echo 26.06.00a42 > VERSION && mkdir -p out && "
	"cp VERSION out/w\"\n"
	"    outputs: [out/w]\n"
	"    rewrites: [VERSION]\n";

static char *
git_status(const char *dir)
{
	struct run_result r = t_sh(dir, "git status --porcelain");
	char *out = strdup(r.out);

	t_result_release(&r);
	return out;
}

static char *
read_rel(const char *dir, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return t_read(path);
}

Test(e2e_ci_rules, a_build_that_rewrites_version_does_not_block_the_next_run)
{
	char *dir = make_repo(rewrite_yml), *text;
	const char *run1[] = { "run", "--run-id", "r1", NULL };
	const char *run2[] = { "run", "--run-id", "r2", "--base", "HEAD~1",
			       "--json", NULL };
	char *out;
	json_t *doc;

	t_write(dir, "VERSION", "26.06.00\n");
	cr_assert_eq(t_git_commit(dir, "version"), 0);
	free(ok(dir, 0, run1));
	text = read_rel(dir, "out/w");
	cr_expect_str_eq(text, "26.06.00a42\n", "the action saw its rewrite");
	free(text);
	text = read_rel(dir, "VERSION");
	cr_expect_str_eq(text, "26.06.00\n", "restored as committed");
	free(text);
	text = git_status(dir);
	cr_expect_str_eq(text, "", "a clean checkout after the run");
	free(text);
	t_write(dir, "src/lib.txt", "hello again\n");
	cr_assert_eq(t_git_commit(dir, "change"), 0);
	out = ok(dir, 0, run2);
	doc = parse(out);
	cr_expect_str_eq(node_field(doc, "artifact:wheel", "status"), "ok");
	json_decref(doc);
	free(out);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci_rules, an_undeclared_rewrite_is_named_and_fails_the_node)
{
	char *dir, *rules = strdup(rewrite_yml), *out;
	const char *run[] = { "run", "--run-id", "r1", NULL };
	struct run_result r;

	*strstr(rules, "    rewrites:") = '\0';
	dir = make_repo(rules);
	t_write(dir, "VERSION", "26.06.00\n");
	cr_assert_eq(t_git_commit(dir, "version"), 0);
	r = t_ripple(dir, run);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect_not_null(strstr(r.out, "FAILED: artifact:wheel: modified "
				  "tracked file 'VERSION' while it ran: "
				  "declare it in rewrites:"), "%s", r.out);
	t_result_release(&r);
	out = git_status(dir);
	cr_expect_str_eq(out, " M VERSION\n", "an undeclared file is left");
	free(out);
	free(rules);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci_rules, restoring_never_writes_through_a_link)
{
	static const char yml[] =
		"version: 1\n"
		"artifacts:\n"
		"  wheel:\n"
		"    command: \"rm -f VERSION && ln -s \\\"$OUTSIDE\\\" VERSION "
		"&& rm -rf conf && ln -s \\\"$OUTSIDE_DIR\\\" conf\"\n"
		"    pass-env: [OUTSIDE, OUTSIDE_DIR]\n"
		"    rewrites: [VERSION, conf/VERSION]\n";
	char *dir = make_repo(yml), *outside = t_tmpdir(), *text;
	const char *run[] = { "run", "--run-id", "r1", NULL };
	char target[PATH_MAX];
	struct run_result r;

	t_write(dir, "VERSION", "26.06.00\n");
	t_write(dir, "conf/VERSION", "1.0\n");
	cr_assert_eq(t_git_commit(dir, "version"), 0);
	t_write(outside, "target", "outside\n");
	snprintf(target, sizeof(target), "%s/target", outside);
	setenv("OUTSIDE", target, 1);
	setenv("OUTSIDE_DIR", outside, 1);
	r = t_ripple(dir, run);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect_not_null(strstr(r.out, "cannot restore 'conf/VERSION': "
				  "'conf' is a link"), "%s", r.out);
	t_result_release(&r);
	text = t_read(target);
	cr_expect_str_eq(text, "outside\n", "nothing written outside");
	free(text);
	text = read_rel(dir, "VERSION");
	cr_expect_str_eq(text, "26.06.00\n", "the link itself replaced");
	free(text);
	r = t_sh(dir, "test -L VERSION");
	cr_expect_neq(r.status, 0, "VERSION is a file again");
	t_result_release(&r);
	t_rmtree(outside);
	free(outside);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci_rules, a_worktree_run_restores_the_edit_it_began_with)
{
	char *dir = make_repo(rewrite_yml), *text;
	const char *run[] = { "run", "--run-id", "r1", "--worktree", NULL };

	t_write(dir, "VERSION", "26.06.00\n");
	cr_assert_eq(t_git_commit(dir, "version"), 0);
	t_write(dir, "VERSION", "26.08.00\n");
	free(ok(dir, 0, run));
	text = read_rel(dir, "VERSION");
	cr_expect_str_eq(text, "26.08.00\n", "the uncommitted edit stays");
	free(text);
	t_rmtree(dir);
	free(dir);
}

static const char groups_yml[] =
	"version: 1\n"
	"sources:\n"
	"  cpp: {paths: [\"cpp/**\"]}\n"
	"  cpp-tests: {paths: [\"cpp-tests/**\"]}\n"
	"artifacts:\n"
	"  libfoo:\n"
	"    inputs: [cpp, cpp-tests]\n"
	"    command: \"mkdir -p out/lib out/tests && cp cpp/* out/lib/ && "
	"cp cpp-tests/* out/tests/\"\n"
	"    outputs: {lib: [\"out/lib/*\"], tests: [\"out/tests/*\"]}\n"
	"  foo-py:\n"
	"    needs: [libfoo.lib]\n"
	"    command: \"echo py >> out/py.log\"\n"
	"tests:\n"
	"  libfoo-tests:\n"
	"    needs: [libfoo.tests]\n"
	"    command: \"echo t >> out/t.log\"\n"
	"  whole:\n"
	"    needs: [libfoo]\n"
	"    command: \"echo w >> out/w.log\"\n";

static char *
groups_repo(void)
{
	char *dir = t_git_init();

	t_write(dir, ".gitignore", ".ripple/\nout/\n");
	t_write(dir, "ripple.yml", groups_yml);
	t_write(dir, "cpp/foo.h", "int foo(void);\n");
	t_write(dir, "cpp-tests/test_foo.c", "int main(void) {}\n");
	cr_assert_eq(t_git_commit(dir, "initial"), 0);
	return dir;
}

Test(e2e_ci_rules, a_change_to_the_tests_part_rebuilds_its_users_only)
{
	char *dir = groups_repo(), *out, *log;
	const char *run1[] = { "run", "--run-id", "r1", NULL };
	const char *run2[] = { "run", "--run-id", "r2", "--base", "HEAD~1",
			       "--json", NULL };
	const char *run3[] = { "run", "--run-id", "r3", "--base", "HEAD",
			       "--json", NULL };
	const char *run4[] = { "run", "--run-id", "r4", "--base", "HEAD~1",
			       "--json", NULL };
	json_t *doc;

	free(ok(dir, 0, run1));
	t_write(dir, "cpp-tests/test_foo.c", "int main(void) { return 0; }\n");
	cr_assert_eq(t_git_commit(dir, "tests part"), 0);
	out = ok(dir, 0, run2);
	doc = parse(out);
	cr_expect_str_eq(node_field(doc, "artifact:libfoo", "status"), "ok");
	cr_expect_str_eq(node_field(doc, "artifact:foo-py", "status"),
			 "cutoff", "its part is unchanged: %s", out);
	cr_expect_str_eq(node_field(doc, "test:libfoo-tests", "status"), "ok");
	cr_expect_str_eq(node_field(doc, "test:whole", "status"), "ok");
	json_decref(doc);
	free(out);
	log = read_rel(dir, "out/py.log");
	cr_expect_str_eq(log, "py\n", "foo-py ran once");
	free(log);
	log = read_rel(dir, "out/t.log");
	cr_expect_str_eq(log, "t\nt\n", "libfoo-tests ran twice");
	free(log);
	/* Plans key on the recorded group digests: nothing changed. */
	out = ok(dir, 0, run3);
	doc = parse(out);
	cr_expect_str_eq(node_field(doc, "artifact:foo-py", "status"),
			 "reused", "%s", out);
	cr_expect_str_eq(node_field(doc, "test:libfoo-tests", "status"),
			 "reused", "%s", out);
	json_decref(doc);
	free(out);
	/* The lib part: its users rebuild. */
	t_write(dir, "cpp/foo.h", "int foo(int);\n");
	cr_assert_eq(t_git_commit(dir, "lib part"), 0);
	out = ok(dir, 0, run4);
	doc = parse(out);
	cr_expect_str_eq(node_field(doc, "artifact:foo-py", "status"), "ok");
	cr_expect_str_eq(node_field(doc, "test:libfoo-tests", "status"),
			 "cutoff", "%s", out);
	json_decref(doc);
	free(out);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci_rules, a_group_that_does_not_exist_is_an_error)
{
	static const char bad[] =
		"version: 1\n"
		"artifacts:\n"
		"  libfoo:\n"
		"    command: [true]\n"
		"    outputs: {lib: [\"out/lib/*\"], tests: [\"out/t/*\"]}\n"
		"  plain:\n"
		"    command: [true]\n"
		"    outputs: [\"out/p\"]\n"
		"  foo-py:\n"
		"    needs: [libfoo.examples, plain.lib]\n"
		"    command: [true]\n";
	char *dir = make_repo(bad);
	const char *check[] = { "check", NULL };
	struct run_result r = t_ripple(dir, check);

	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "ripple.yml:10:13: error: artifact "
				  "'libfoo' has no output group 'examples'\n"
				  "  hint: its groups: lib, tests"), "%s",
			   r.err);
	cr_expect_not_null(strstr(r.err, "ripple.yml:10:30: error: artifact "
				  "'plain' has no output groups"), "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

static const char matrix_yaml[] =
	"# owned by the shared workflows\n"
	"pull-request:\n"
	"  - {ARCH: amd64, PY_VER: \"3.11\", CUDA_VER: \"12.9.1\", "
	"DRIVER: latest, DEPENDENCIES: latest}\n"
	"  - {ARCH: arm64, PY_VER: \"3.13\", CUDA_VER: \"13.0.2\", "
	"DRIVER: latest, DEPENDENCIES: latest}\n"
	"nightly:\n"
	"  - {ARCH: amd64, PY_VER: \"3.11\", CUDA_VER: \"12.9.1\", "
	"DRIVER: earliest, DEPENDENCIES: oldest}\n"
	"  - {ARCH: amd64, PY_VER: \"3.13\", CUDA_VER: \"13.0.2\", "
	"DRIVER: latest, DEPENDENCIES: latest}\n"
	"  - {ARCH: arm64, PY_VER: \"3.13\", CUDA_VER: \"13.0.2\", "
	"DRIVER: latest, DEPENDENCIES: latest}\n";

static const char matrix_rules[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [\"src/**\"]}\n"
	"  ci: {paths: [\"ci/**\"]}\n"
	"axes:\n"
	"  cuda: [\"12\", \"13\"]\n"
	"  python: [\"3.11\", \"3.13\"]\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {cuda: axes.cuda, python: axes.python}\n"
	"    inputs: [src]\n"
	"    command: [true]\n"
	"tests:\n"
	"  pr-test:\n"
	"    each:\n"
	"      from: {file: ci/matrix.yaml, select: pull-request, axes: "
	"{cuda: {field: CUDA_VER, parts: 1}, python: PY_VER}}\n"
	"    needs: [wheel, ci]\n"
	"    command: [true]\n"
	"  nightly-test:\n"
	"    each:\n"
	"      from:\n"
	"        file: ci/matrix.yaml\n"
	"        select: nightly\n"
	"        where: {ARCH: amd64}\n"
	"        axes: {cuda: {field: CUDA_VER, parts: 1}, python: PY_VER, "
	"driver: DRIVER, deps: DEPENDENCIES}\n"
	"    needs: [wheel, ci]\n"
	"    command: [\"echo\", \"driver ${driver} deps ${deps}\"]\n"
	"targets:\n"
	"  pr: [pr-test]\n"
	"  nightly: [nightly-test]\n";

/* Node ids of a graph --format json document, in its order. */
static char *
node_ids(const char *dir, const char *target)
{
	const char *argv[] = { "graph", target, "--format", "json", NULL };
	char *out = ok(dir, 0, argv), *ids;
	json_t *doc = parse(out), *n;
	size_t i, len = 0;

	ids = calloc(1, 65536);
	cr_assert_not_null(ids);
	json_array_foreach(json_object_get(doc, "nodes"), i, n)
		len += (size_t)snprintf(ids + len, 65536 - len, "%s\n",
					json_string_value(json_object_get(
						n, "id")));
	json_decref(doc);
	free(out);
	return ids;
}

Test(e2e_ci_rules, axes_come_from_the_committed_matrix_file)
{
	char *dir = make_repo(matrix_rules), *ids;

	t_write(dir, "ci/matrix.yaml", matrix_yaml);
	cr_assert_eq(t_git_commit(dir, "matrix"), 0);
	ids = node_ids(dir, "nightly");
	cr_expect_str_eq(ids,
		"artifact:wheel[cuda=12,python=3.11]\n"
		"artifact:wheel[cuda=13,python=3.13]\n"
		"test:nightly-test[cuda=12,deps=oldest,driver=earliest,"
		"python=3.11]\n"
		"test:nightly-test[cuda=13,deps=latest,driver=latest,"
		"python=3.13]\n", "%s", ids);
	free(ids);
	/* An uncommitted edit of the matrix: plans read the commit's. */
	t_write(dir, "ci/matrix.yaml", "pull-request: []\nnightly: []\n");
	{
		const char *plan[] = { "plan", "pr", "--json", NULL };
		char *out = ok(dir, 0, plan);

		cr_expect_not_null(strstr(out, "test:pr-test[cuda=13,"
					  "python=3.13]"), "%s", out);
		free(out);
	}
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci_rules, matrix_file_problems_are_reported_where_they_are)
{
	char *dir = make_repo(matrix_rules), *rules;
	const char *check[] = { "check", NULL };
	struct run_result r;

	t_write(dir, "ci/matrix.yaml", matrix_yaml);
	rules = strdup(matrix_rules);
	memcpy(strstr(rules, "DEPENDENCIES}"), "DEPENDENCIEZ}", 13);
	t_write(dir, "ripple.yml", rules);
	r = t_ripple(dir, check);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "ci/matrix.yaml:6:5: error: matrix "
				  "entry has no field 'DEPENDENCIEZ' (axis "
				  "'deps')"), "%s", r.err);
	cr_expect_null(strstr(r.err, "unknown variable"), "%s", r.err);
	t_result_release(&r);
	memcpy(strstr(rules, "select: nightly"), "select: nighty ", 15);
	t_write(dir, "ripple.yml", rules);
	r = t_ripple(dir, check);
	cr_expect_not_null(strstr(r.err, "ripple.yml:23:17: error: 'nighty' "
				  "is not a list in matrix file "
				  "'ci/matrix.yaml'"), "%s", r.err);
	t_result_release(&r);
	t_write(dir, "ripple.yml", matrix_rules);
	t_write(dir, "ci/matrix.yaml", "nightly: [\n");
	r = t_ripple(dir, check);
	cr_expect_not_null(strstr(r.err, "ci/matrix.yaml:2:1: error: invalid "
				  "YAML"), "%s", r.err);
	t_result_release(&r);
	r = t_sh(dir, "rm ci/matrix.yaml && ln -s /etc/passwd ci/matrix.yaml");
	t_result_release(&r);
	r = t_ripple(dir, check);
	cr_expect_not_null(strstr(r.err, "outside the repository"), "%s",
			   r.err);
	t_result_release(&r);
	free(rules);
	t_rmtree(dir);
	free(dir);
}

/*
 * With --rules naming a file in a subfolder, a matrix file is still a
 * repository path (docs/rules.md), read from the repository's root, not
 * from the rules file's folder (seen failing: "cannot open").
 */
Test(e2e_ci_rules, matrix_file_is_read_from_the_repository_with_rules_elsewhere)
{
	char *dir = make_repo(matrix_rules);
	const char *check[] = { "check", "--rules", "sub/r.yml", NULL };
	const char *graph[] = { "graph", "nightly", "--rules", "sub/r.yml",
				"--format", "json", NULL };
	struct run_result r;

	t_write(dir, "ci/matrix.yaml", matrix_yaml);
	t_write(dir, "sub/r.yml", matrix_rules);
	cr_assert_eq(t_git_commit(dir, "matrix"), 0);
	r = t_ripple(dir, check);
	cr_expect_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(dir, graph);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(strstr(r.out, "test:nightly-test[cuda=13,"),
			   "%s", r.out);
	t_result_release(&r);
	/* A missing matrix file says where it was looked for. */
	r = t_sh(dir, "rm ci/matrix.yaml");
	t_result_release(&r);
	r = t_ripple(dir, check);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "read from the repository's root"), "%s",
			   r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* With a (fake) CUDA runtime that reports one sm_90 GPU, a GPU artifact
 * gets its device as a GPU test would; one needing more waits (defers).
 * The fake is ripple-tests' own (built with it); the test sets its device
 * count, whatever the caller's environment says. */
Test(e2e_ci_rules, a_gpu_artifact_gets_a_device_that_fits)
{
	static const char yml[] =
		"version: 1\n"
		"artifacts:\n"
		"  docs:\n"
		"    gpu: {count: 1, min-compute-capability: \"9.0\"}\n"
		"    command: \"mkdir -p out && echo $$CUDA_VISIBLE_DEVICES > "
		"out/docs\"\n"
		"    outputs: [out/docs]\n"
		"  big:\n"
		"    gpu: {count: 2}\n"
		"    command: [true]\n";
	char *home = t_fake_cuda_home("13.0"), *dir, *text, *out;
	const char *run[] = { "run", "--run-id", "r1", "--json", NULL };
	char lib[4096];
	json_t *doc;

	snprintf(lib, sizeof(lib), "%s/lib64/libcudart.so.13", home);
	if (access(lib, R_OK)) {
		free(home);
		cr_skip_test("no fake CUDA runtime at %s (`ninja fake-cuda` "
			     "builds it beside build/ripple-tests)", lib);
	}
	dir = make_repo(yml);
	setenv("CUDA_HOME", home, 1);
	setenv("RIPPLE_FAKE_CUDA_DEVICES", "1", 1);
	unsetenv("CUDA_VISIBLE_DEVICES");
	out = ok(dir, 4, run);
	doc = parse(out);
	cr_expect_str_eq(node_field(doc, "artifact:docs", "status"), "ok",
			 "%s", out);
	cr_expect_str_eq(node_field(doc, "artifact:big", "status"),
			 "deferred", "one GPU here, two needed");
	json_decref(doc);
	free(out);
	text = read_rel(dir, "out/docs");
	cr_expect_str_eq(text, "0\n", "the action was given GPU 0");
	free(text);
	free(home);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci_rules, rewriting_the_same_bytes_or_an_earlier_edit_is_no_change)
{
	static const char yml[] =
		"version: 1\n"
		"sources:\n"
		"  src: {paths: [\"src/**\"]}\n"
		"artifacts:\n"
		"  lib:\n"
		"    inputs: [src]\n"
		"    command: \"cp src/lib.txt lib.tmp && mv lib.tmp "
		"src/lib.txt && touch src/lib.txt\"\n";
	char *dir = make_repo(yml);
	const char *run1[] = { "run", "--run-id", "r1", "--json", NULL };
	const char *run2[] = { "run", "--run-id", "r2", "--worktree",
			       "--reuse", "none", "--json", NULL };
	char *out;
	json_t *doc;

	out = ok(dir, 0, run1);
	doc = parse(out);
	cr_expect_str_eq(node_field(doc, "artifact:lib", "status"), "ok",
			 "a new inode and time, the same bytes: %s", out);
	json_decref(doc);
	free(out);
	/* An edit made before the run is the run's starting point. */
	t_write(dir, "src/lib.txt", "edited before the run\n");
	out = ok(dir, 0, run2);
	doc = parse(out);
	cr_expect_str_eq(node_field(doc, "artifact:lib", "status"), "ok",
			 "%s", out);
	json_decref(doc);
	free(out);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_ci_rules, ripple_record_keeps_output_group_digests)
{
	char *dir = groups_repo(), *out;
	const char *record[] = { "record", "--run", "x1", "--node",
				 "artifact:libfoo", "--status", "ok",
				 "--artifact", "out/lib/foo.h", "--artifact",
				 "out/tests/test_foo.c", NULL };
	const char *export[] = { "cache", "export", "--run", "x1", NULL };

	t_write(dir, "out/lib/foo.h", "int foo(void);\n");
	t_write(dir, "out/tests/test_foo.c", "int main(void) {}\n");
	free(ok(dir, 0, record));
	out = ok(dir, 0, export);
	cr_expect_not_null(strstr(out, "ripple.output.lib"), "%s", out);
	cr_expect_not_null(strstr(out, "ripple.output.tests"), "%s", out);
	free(out);
	t_rmtree(dir);
	free(dir);
}

/* A remote cache (nginx with WebDAV on loopback) holds the records and
 * outputs of a run with credentials passed through: none of the values. */
Test(e2e_ci_rules, pass_env_values_never_reach_the_remote_cache,
     .init = t_fx_setup, .fini = t_fx_teardown, .timeout = 120)
{
	char *dir, *out;
	struct run_result r;

	t_fx_serve();
	dir = make_repo(pass_yml);
	setenv("GH_TOKEN", TOKEN, 1);
	setenv("SCCACHE_BUCKET", BUCKET, 1);
	{
		const char *run[] = { "run", "--run-id", "r1",
				      "--remote-cache", t_fx.ng.url, "--json",
				      NULL };

		out = ok(dir, 0, run);
		cr_expect_null(strstr(out, TOKEN));
		free(out);
	}
	r = t_sh(t_fx.ng.root, "find . -type f | wc -l");
	cr_expect_neq(atoi(r.out), 0, "the run published to the cache");
	t_result_release(&r);
	expect_nowhere(t_fx.ng.root, ".", TOKEN);
	expect_nowhere(t_fx.ng.root, ".", BUCKET);
	t_rmtree(dir);
	free(dir);
}
