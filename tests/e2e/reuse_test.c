/*
 * Suite e2e_reuse: never a wrong reuse (issue 13). Each test builds a small
 * repository, records what `ripple run` (or `ripple record`) made, changes
 * something a reuse must notice, and checks that `plan` and `run` rebuild,
 * refuse or pick the right record, with the reason they give.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "cache/remote.h"
#include "engine/cuda/load.h"
#include "engine/cuda/probe.h"
#include "tests/support/support.h"

static void
sh_ok(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);

	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	t_result_release(&r);
}

/* Run ripple; assert the exit status; return the result (release it). */
static struct run_result
ripple_expect(const char *dir, int status, const char *const *argv)
{
	struct run_result r = t_ripple(dir, argv);

	cr_assert_eq(r.status, status, "ripple %s: exit %d, expected %d\n"
		     "stdout: %s\nstderr: %s", argv[0], r.status, status,
		     r.out, r.err);
	return r;
}

static void
ripple_ok(const char *dir, const char *const *argv)
{
	struct run_result r = ripple_expect(dir, 0, argv);

	t_result_release(&r);
}

static json_t *
json_of(const char *text)
{
	json_error_t je;
	json_t *doc = json_loads(text, 0, &je);

	cr_assert_not_null(doc, "bad JSON: %s\n%s", je.text, text);
	return doc;
}

/* The node with `id` of a plan document; asserts it is there. */
static json_t *
node_of(json_t *plan, const char *id)
{
	json_t *n;
	size_t i;

	json_array_foreach(json_object_get(plan, "nodes"), i, n)
		if (!strcmp(json_string_value(json_object_get(n, "id")), id))
			return n;
	cr_assert_fail("no node %s", id);
	return NULL;
}

static const char *
field(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* `ripple plan ARGS... --json` parsed. */
static json_t *
plan_json(const char *dir, const char *const *argv)
{
	const char *v[16];
	struct run_result r;
	json_t *doc;
	size_t n = 0;

	v[n++] = "plan";
	while (*argv && n < 14)
		v[n++] = *argv++;
	v[n++] = "--json";
	v[n] = NULL;
	r = ripple_expect(dir, 0, v);
	doc = json_of(r.out);
	t_result_release(&r);
	return doc;
}

static void
expect_decision(json_t *plan, const char *id, const char *decision,
		const char *reason)
{
	json_t *n = node_of(plan, id);

	cr_expect_str_eq(field(n, "decision"), decision, "%s", id);
	cr_expect_str_eq(field(n, "reason"), reason, "%s", id);
}

static char *
new_repo(const char *rules)
{
	char *dir = t_git_init();

	t_write(dir, ".gitignore", ".ripple/\nout/\ndist/\nstore/\n");
	t_write(dir, "ripple.yml", rules);
	return dir;
}

/*
 * Item 1: a link a/l1 -> ../x/l2 with x/l2 -> ../a/f. Retargeting x/l2
 * (nothing under a/ changes) changes what the artifact reads; the
 * source-key memo `run` wrote must not hand the old key to the plan.
 */
Test(e2e_reuse, retargeting_an_outside_symlink_hop_is_not_reused)
{
	char *dir = new_repo(
		"version: 1\n"
		"sources:\n"
		"  a: {paths: [\"a/**\"]}\n"
		"  x: {paths: [\"x/**\"]}\n"
		"artifacts:\n"
		"  copy:\n"
		"    inputs: [a]\n"
		"    command: \"mkdir -p out && cat a/l1 > out/c\"\n"
		"    outputs: [out/c]\n"
		"  other:\n"
		"    inputs: [x]\n"
		"    command: [\"true\"]\n");
	const char *run[] = { "run", "--run-id", "base", NULL };
	const char *args[] = { "--base", "main", NULL };
	json_t *p;

	t_write(dir, "a/f", "f\n");
	t_write(dir, "a/g", "g\n");
	t_write(dir, "x/other", "unclaimed\n");
	sh_ok(dir, "ln -s ../a/f x/l2 && ln -s ../x/l2 a/l1");
	cr_assert_eq(t_git_commit(dir, "links"), 0);
	ripple_ok(dir, run);
	sh_ok(dir, "git checkout -q -b pr && ln -sfn ../a/g x/l2");
	cr_assert_eq(t_git_commit(dir, "retarget x/l2"), 0);
	p = plan_json(dir, args);
	expect_decision(p, "artifact:copy", "build", "input-content-changed");
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 8 (recipe 57): with --reuse any, the newest record with the key
 * lost its artifact file; an older run's record with the same key still
 * has its file and is reused.
 */
Test(e2e_reuse, reuse_any_walks_back_past_a_record_whose_file_is_gone)
{
	char *dir = new_repo("version: 1\nartifacts:\n  w: {command: [true]}\n");
	char old_file[4096], new_file[4096];
	const char *rec_old[] = { "record", "--run", "100", "--ref", "main",
				  "--node", "artifact:w", "--status", "ok",
				  "--artifact", old_file, NULL };
	const char *fin_old[] = { "record", "--run", "100", "--finish", "ok",
				  NULL };
	const char *rec_new[] = { "record", "--run", "300", "--ref", "main",
				  "--node", "artifact:w", "--status", "ok",
				  "--artifact", new_file, NULL };
	const char *fin_new[] = { "record", "--run", "300", "--finish", "ok",
				  NULL };
	const char *any[] = { "--base", "main", "--reuse", "any", NULL };
	json_t *p;

	cr_assert_eq(t_git_commit(dir, "c"), 0);
	snprintf(old_file, sizeof(old_file), "%s/store/100/w.whl", dir);
	snprintf(new_file, sizeof(new_file), "%s/store/300/w.whl", dir);
	t_write(dir, "store/100/w.whl", "a\n");
	t_write(dir, "store/300/w.whl", "b\n");
	ripple_ok(dir, rec_old);
	ripple_ok(dir, fin_old);
	sh_ok(dir, "sleep 1");
	ripple_ok(dir, rec_new);
	ripple_ok(dir, fin_new);
	sh_ok(dir, "rm store/300/w.whl");
	p = plan_json(dir, any);
	expect_decision(p, "artifact:w", "reuse", "reused");
	cr_expect_str_eq(field(node_of(p, "artifact:w"), "reused_from_run"),
			 "100");
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 5: a later run at the merge base that recorded one node must not
 * become the baseline over the run that recorded every node; the plan
 * names the baseline with its coverage.
 */
Test(e2e_reuse, the_baseline_is_the_run_that_covers_the_target)
{
	char *dir = new_repo(
		"version: 1\n"
		"sources:\n"
		"  s: {paths: [\"src/**\"]}\n"
		"  t: {paths: [\"other/**\"]}\n"
		"artifacts:\n"
		"  a: {inputs: [s], command: [\"true\"]}\n"
		"  b: {inputs: [s], command: [\"true\"]}\n"
		"  c: {inputs: [t], command: [\"true\"]}\n");
	const char *full[] = { "run", "--run-id", "full", NULL };
	const char *tiny[] = { "run", "artifact:a", "--run-id", "tiny",
			       "--reuse", "none", NULL };
	const char *args[] = { "--base", "main", NULL };
	const char *text[] = { "plan", "--base", "main", NULL };
	struct run_result r;
	json_t *p, *cov;

	t_write(dir, "src/x", "x\n");
	t_write(dir, "other/y", "y\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	ripple_ok(dir, full);
	sh_ok(dir, "sleep 1");
	ripple_ok(dir, tiny);
	sh_ok(dir, "git checkout -q -b pr && echo z >> other/y");
	cr_assert_eq(t_git_commit(dir, "pr"), 0);
	p = plan_json(dir, args);
	cr_expect_str_eq(field(p, "baseline_run"), "full");
	cov = json_object_get(p, "baseline_coverage");
	cr_expect_eq(json_integer_value(json_object_get(cov, "covered")), 3);
	cr_expect_eq(json_integer_value(json_object_get(cov, "nodes")), 3);
	expect_decision(p, "artifact:a", "reuse", "reused");
	expect_decision(p, "artifact:b", "reuse", "reused");
	expect_decision(p, "artifact:c", "build", "input-content-changed");
	json_decref(p);
	r = ripple_expect(dir, 0, text);
	cr_expect(strstr(r.out, "baseline  run full (merge base ") != NULL &&
		  strstr(r.out, ") covers 3 of 3 nodes\n") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 2 (recipe x2): `ripple run` of a commit with an uncommitted edit of
 * a claimed input refuses, naming the file, and records nothing; edits
 * nothing claims (or that policy.ignore drops) do not block; --worktree
 * runs the working tree as it is.
 */
Test(e2e_reuse, run_refuses_uncommitted_edits_of_claimed_inputs)
{
	char *dir = new_repo(
		"version: 1\n"
		"sources:\n"
		"  src: {paths: [\"src/**\"]}\n"
		"artifacts:\n"
		"  copy:\n"
		"    inputs: [src]\n"
		"    command: \"mkdir -p out && cp src/a.txt out/a.txt\"\n"
		"    outputs: [out/a.txt]\n"
		"policy: {ignore: [\"src/*.md\"], unclaimed-paths: ignore}\n");
	const char *r1[] = { "run", "--run-id", "r1", NULL };
	const char *r2[] = { "run", "--run-id", "r2", NULL };
	const char *r3[] = { "run", "--run-id", "r3", "--worktree", NULL };
	const char *runs[] = { "runs", NULL };
	struct run_result r;
	char path[4096], *out;

	t_write(dir, "src/a.txt", "committed\n");
	t_write(dir, "shared/h", "h1\n");
	sh_ok(dir, "ln -s ../shared/h src/link");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	/* An unclaimed file a claimed link reads counts. */
	t_write(dir, "shared/h", "h2\n");
	r = ripple_expect(dir, 2, r1);
	cr_expect(strstr(r.err, "src/link") != NULL, "%s", r.err);
	t_result_release(&r);
	sh_ok(dir, "git checkout -q shared/h");
	t_write(dir, "src/a.txt", "uncommitted edit\n");
	r = ripple_expect(dir, 2, r1);
	cr_expect(strstr(r.err, "working tree changes 1 claimed input file") &&
		  strstr(r.err, "src/a.txt"), "%s", r.err);
	cr_expect(strstr(r.err, "--worktree") != NULL, "%s", r.err);
	t_result_release(&r);
	r = ripple_expect(dir, 0, runs);
	cr_expect(strstr(r.out, "r1") == NULL, "no run recorded: %s", r.out);
	t_result_release(&r);
	/* Unclaimed and ignored edits do not block. */
	sh_ok(dir, "git checkout -q src/a.txt && echo n > notes.txt && "
		   "echo n > src/README.md");
	ripple_ok(dir, r2);
	t_write(dir, "src/a.txt", "uncommitted edit\n");
	ripple_ok(dir, r3);
	snprintf(path, sizeof(path), "%s/out/a.txt", dir);
	out = t_read(path);
	cr_expect_str_eq(out, "uncommitted edit\n");
	free(out);
	t_rmtree(dir);
	free(dir);
}

static const char versioned_yml[] =
	"version: 1\n"
	"roots:\n"
	"  pkg: {path: pkg, tags: \"v*\"}\n"
	"sources:\n"
	"  lib-src: {paths: [\"lib/**\"]}\n"
	"  other-src: {paths: [\"other/**\"]}\n"
	"artifacts:\n"
	"  lib:\n"
	"    inputs: [lib-src]\n"
	"    command: \"mkdir -p dist && grep -v '^#' lib/l.txt > dist/lib\"\n"
	"    outputs: [dist/lib]\n"
	"  wheel:\n"
	"    each: {root: roots}\n"
	"    inputs: [root.sources]\n"
	"    needs: [lib]\n"
	"    command: \"mkdir -p dist && echo $RIPPLE_VERSION > dist/w\"\n"
	"    outputs: [dist/w]\n"
	"    version: \"${root.version}\"\n"
	"  other:\n"
	"    inputs: [other-src]\n"
	"    command: [\"true\"]\n";

#define WHEEL "artifact:wheel[root=pkg]"

static char *
versioned_repo(const char *extra_rules)
{
	char rules[2048];
	char *dir;

	snprintf(rules, sizeof(rules), "%s%s", versioned_yml, extra_rules);
	dir = new_repo(rules);
	t_write(dir, "pkg/a.py", "a\n");
	t_write(dir, "lib/l.txt", "# comment\nlib\n");
	t_write(dir, "other/o.txt", "o\n");
	cr_assert_eq(t_git_commit(dir, "c1"), 0);
	sh_ok(dir, "git tag v13.0.0");
	t_write(dir, "pkg/a.py", "a2\n");
	cr_assert_eq(t_git_commit(dir, "c2"), 0);
	return dir;
}

static char *
file_text(const char *dir, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return t_read(path);
}

/*
 * Item 3: a tag run does not reuse a record of the same key built on the
 * branch at a dev version; plan --tag and why give the reason with both
 * versions, and the run stamps the tag's version.
 */
Test(e2e_reuse, a_tag_run_rebuilds_what_was_recorded_at_another_version)
{
	char *dir = versioned_repo("");
	const char *base[] = { "run", "--run-id", "base", NULL };
	const char *plan_tag[] = { "--base", "main", "--tag", "v13.0.1", NULL };
	const char *why[] = { "why", WHEEL, "--base", "main", "--tag",
			      "v13.0.1", NULL };
	const char *tag_run[] = { "run", "--run-id", "t", "--tag", "v13.0.1",
				  "--base", "main", NULL };
	const char *plain[] = { "--base", "main", NULL };
	struct run_result r;
	json_t *p, *c;
	char *w;

	ripple_ok(dir, base);
	sh_ok(dir, "git tag v13.0.1");
	/* Without a tag the record's version is not checked. */
	p = plan_json(dir, plain);
	expect_decision(p, WHEEL, "reuse", "reused");
	json_decref(p);
	p = plan_json(dir, plan_tag);
	expect_decision(p, WHEEL, "build", "version-differs");
	expect_decision(p, "artifact:lib", "reuse", "reused");
	c = json_array_get(json_object_get(node_of(p, WHEEL), "changes"), 0);
	cr_expect_str_eq(field(c, "kind"), "version");
	cr_expect(!strncmp(field(c, "old"), "13.0.1.dev1+g", 13), "%s",
		  field(c, "old"));
	cr_expect_str_eq(field(c, "new"), "13.0.1");
	json_decref(p);
	r = ripple_expect(dir, 0, why);
	cr_expect(strstr(r.out, "version-differs: 13.0.1.dev1+g") &&
		  strstr(r.out, " -> 13.0.1\n"), "%s", r.out);
	t_result_release(&r);
	ripple_ok(dir, tag_run);
	w = file_text(dir, "dist/w");
	cr_expect_str_eq(w, "13.0.1\n");
	free(w);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 3, early cutoff: a versioned cascade whose recomputed key equals
 * its record's is not cut off to a record of another version.
 */
Test(e2e_reuse, a_tag_run_does_not_cut_off_to_another_version)
{
	char *dir = versioned_repo("");
	const char *base[] = { "run", "--run-id", "base", NULL };
	const char *tag_run[] = { "run", "--run-id", "t", "--tag", "v13.0.1",
				  "--base", "main", "--json", NULL };
	struct run_result r;
	json_t *doc, *n;
	size_t i;
	char *w;

	ripple_ok(dir, base);
	/* lib rebuilds to the same bytes: the wheel is a cascade that
	 * would be cut off. */
	sh_ok(dir, "git checkout -q -b rel && "
		   "printf '# other comment\\nlib\\n' > lib/l.txt");
	cr_assert_eq(t_git_commit(dir, "comment"), 0);
	sh_ok(dir, "git tag v13.0.1");
	r = ripple_expect(dir, 0, tag_run);
	doc = json_of(r.out);
	json_array_foreach(json_object_get(doc, "nodes"), i, n)
		if (!strcmp(field(n, "id"), WHEEL))
			cr_expect_str_eq(field(n, "status"), "ok",
					 "built, not cut off");
	json_decref(doc);
	t_result_release(&r);
	w = file_text(dir, "dist/w");
	cr_expect_str_eq(w, "13.0.1\n");
	free(w);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 3: policy reuse-versions: exact compares versions in every plan;
 * --reuse any walks past a newer record of the same key at another
 * version to one at the version now.
 */
Test(e2e_reuse, reuse_versions_exact_and_reuse_any_pick_the_version_now)
{
	char *dir = versioned_repo("policy: {reuse-versions: exact}\n");
	const char *base[] = { "run", "--run-id", "base", NULL };
	const char *later[] = { "run", "--run-id", "later", "--base", "main",
				NULL };
	const char *plan_c3[] = { "--base", "main", NULL };
	const char *any[] = { "--head", "v13.0.1", "--reuse", "any",
			      "--baseline-run", "later", NULL };
	json_t *p;

	ripple_ok(dir, base);	/* at v13.0.1 before the tag: a dev version */
	sh_ok(dir, "git tag v13.0.1 && git checkout -q -b pr && "
		   "echo o2 > other/o.txt && git commit -qam c3");
	/* c3 changes only other/: the wheel's key is the same, its version
	 * (13.0.2.dev1+g...) is not. */
	p = plan_json(dir, plan_c3);
	expect_decision(p, "artifact:other", "build", "input-content-changed");
	expect_decision(p, WHEEL, "build", "version-differs");
	json_decref(p);
	sh_ok(dir, "git checkout -q v13.0.1");
	{
		const char *at_tag[] = { "run", "--run-id", "t", "--tag",
					 "v13.0.1", "--reuse", "none", NULL };

		ripple_ok(dir, at_tag);
	}
	sh_ok(dir, "git checkout -q pr");
	ripple_ok(dir, later);	/* newest record of the key: 13.0.2.dev1 */
	p = plan_json(dir, any);
	expect_decision(p, WHEEL, "reuse", "reused");
	cr_expect_str_eq(field(node_of(p, WHEEL), "reused_from_run"), "t");
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

/* Recipe 21: a metapackage that pins its bindings by exact version. */
static const char group_yml[] =
	"version: 1\n"
	"toolkits: {ctk12: {version: \"12.9.1\"}}\n"
	"roots:\n"
	"  bindings-12: {path: b12, toolkit: ctk12, tags: \"v12.9.*\", "
	"fallback-version: 12.9.10.dev0, fallback-pretend: true}\n"
	"sources:\n"
	"  metapackage: {paths: [meta/**]}\n"
	"artifacts:\n"
	"  bindings-wheel:\n"
	"    each: {root: roots}\n"
	"    inputs: [root.sources]\n"
	"    command: [sh, -c, \"mkdir -p dist/b && echo $$RIPPLE_VERSION > "
	"dist/b/w\"]\n"
	"    outputs: [\"dist/b/w\"]\n"
	"    version: \"${root.version}\"\n"
	"%s"
	"  python-meta:\n"
	"    each: {root: roots}\n"
	"    inputs: [metapackage]\n"
	"    command: [sh, -c, \"mkdir -p dist/m && echo "
	"cuda-bindings==$$RIPPLE_VERSION > dist/m/w\"]\n"
	"    outputs: [\"dist/m/w\"]\n"
	"    version: \"${root.version}\"\n"
	"%s";

#define BW "artifact:bindings-wheel[root=bindings-12]"
#define PM "artifact:python-meta[root=bindings-12]"

static char *
group_repo(int grouped)
{
	const char *g = grouped ? "    version-group: \"bindings-${root}\"\n" : "";
	char rules[2048];
	char *dir;

	snprintf(rules, sizeof(rules), group_yml, g, g);
	dir = new_repo(rules);
	t_write(dir, "b12/cuda/driver.pyx", "x\n");
	t_write(dir, "meta/pyproject.toml", "[project]\n");
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	return dir;
}

/*
 * Item 4 (recipe 21): the metapackage is rebuilt; the bindings wheel of
 * its version group rebuilds with it (reason version-group, a follower of
 * the metapackage's root cause), so both carry the head's version.
 */
Test(e2e_reuse, a_version_group_rebuilds_together)
{
	char *dir = group_repo(1);
	const char *base[] = { "run", "--run-id", "base", NULL };
	const char *pr[] = { "run", "--run-id", "pr", "--base", "main", NULL };
	const char *args[] = { "--base", "main", NULL };
	char *m, *b, want[256];
	json_t *p;

	ripple_ok(dir, base);
	sh_ok(dir, "git checkout -qb pr && echo '# edit' >> meta/pyproject.toml"
		   " && git commit -qam pr");
	p = plan_json(dir, args);
	expect_decision(p, PM, "build", "input-content-changed");
	expect_decision(p, BW, "build", "version-group");
	cr_expect_str_eq(field(node_of(p, BW), "cascade_of"), PM);
	cr_expect_str_eq(field(node_of(p, BW), "root_cause"), PM);
	cr_expect_eq(json_integer_value(json_object_get(p, "root_causes")), 1);
	json_decref(p);
	ripple_ok(dir, pr);
	m = file_text(dir, "dist/m/w");
	b = file_text(dir, "dist/b/w");
	snprintf(want, sizeof(want), "cuda-bindings==%s", b);
	cr_expect_str_eq(m, want, "metapackage pins the wheel built with it");
	free(m);
	free(b);
	t_rmtree(dir);
	free(dir);
}

/*
 * Item 4: members reused at versions that disagree (records of different
 * runs) rebuild together, each a root cause; a group changes no key.
 * `ripple record` stores the version the rule gives (issue 25), so the
 * disagreeing versions come in through an imported run, as records made
 * elsewhere would.
 */
Test(e2e_reuse, a_version_group_reused_at_two_versions_rebuilds)
{
	char *dir = group_repo(1), *plain = group_repo(0);
	const char *r1[] = { "record", "--run", "mixed", "--ref", "main",
			     "--node", BW, "--status", "ok", NULL };
	const char *r2[] = { "record", "--run", "mixed", "--node", PM,
			     "--status", "ok", NULL };
	const char *fin[] = { "record", "--run", "mixed", "--finish", "ok",
			      NULL };
	const char *exp[] = { "cache", "export", "--run", "mixed", "-o",
			      "m.json", NULL };
	const char *imp[] = { "cache", "import", "m.json", NULL };
	const char *args[] = { "--base", "main", NULL };
	const char *keys[] = { "keys", NULL };
	struct run_result k1, k2;
	json_t *p;

	ripple_ok(dir, r1);
	ripple_ok(dir, r2);
	ripple_ok(dir, fin);
	ripple_ok(dir, exp);
	sh_ok(dir, "python3 -c \"import json; d = json.load(open('m.json')); "
		   "rs = sorted(d['records'], key=lambda r: r['node_id']); "
		   "[r.update(version=r['version'] + ('a' if i == 0 else "
		   "'b')) for i, r in enumerate(rs)]; "
		   "json.dump(d, open('m.json', 'w'))\" && rm -rf .ripple");
	ripple_ok(dir, imp);
	p = plan_json(dir, args);
	expect_decision(p, BW, "build", "version-group");
	expect_decision(p, PM, "build", "version-group");
	cr_expect_eq(json_integer_value(json_object_get(p, "root_causes")), 2);
	json_decref(p);
	k1 = ripple_expect(dir, 0, keys);
	k2 = ripple_expect(plain, 0, keys);
	cr_expect_str_eq(k1.out, k2.out, "version-group is not in keys");
	t_result_release(&k1);
	t_result_release(&k2);
	t_rmtree(dir);
	t_rmtree(plain);
	free(dir);
	free(plain);
}

/* The machine's toolkit home ($CUDA_HOME, else /usr/local/cuda). */
static const char *
cuda_home(void)
{
	const char *h = getenv("CUDA_HOME");

	return h && h[0] ? h : "/usr/local/cuda";
}

/*
 * The pin that agrees with the toolkit at cuda_home() into pin (version.json's
 * "cuda" when it has one, else NVRTC's MAJOR.MINOR.0), or skip the test.
 */
static void
pin_or_skip(char *pin, size_t n)
{
	struct cuda_toolkit_info info;
	struct cuda_libs *libs = NULL;
	struct error err;
	size_t k;

	error_init(&err);
	memset(&info, 0, sizeof(info));
	if (cuda_libs_open(cuda_home(), &libs, &err) ||
	    cuda_toolkit_probe(libs, "tk", NULL, &info, &err)) {
		cuda_libs_close(libs);
		cr_skip_test("no CUDA toolkit at %s: %s", cuda_home(), err.msg);
	}
	snprintf(pin, n, "%d.%d.0", info.nvrtc_major, info.nvrtc_minor);
	for (k = 0; k < info.n_components; k++)
		if (!strcmp(info.components[k].name, "cuda"))
			snprintf(pin, n, "%s", info.components[k].value);
	cuda_toolkit_info_release(&info);
	cuda_libs_close(libs);
}

static char *
toolkit_repo(const char *pin, const char *home)
{
	char rules[2048];
	char *dir;

	snprintf(rules, sizeof(rules),
		 "version: 1\n"
		 "toolkits:\n"
		 "  tk: {version: \"%s\", home: \"%s\"}\n"
		 "artifacts:\n"
		 "  a: {toolkit: tk, command: [\"true\"]}\n", pin, home);
	dir = new_repo(rules);
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	return dir;
}

/*
 * Item 6: a toolkit whose home exists is probed; a pin its libraries
 * disagree with is an error in plan and run before anything runs, naming
 * both; with the right pin, the record carries the probed identity.
 */
Test(e2e_reuse, a_toolkit_that_is_not_its_pin_is_an_error)
{
	char pin[64], *dir, *bad;
	const char *plan[] = { "plan", NULL };
	const char *run[] = { "run", "--run-id", "r1", NULL };
	const char *export[] = { "cache", "export", "--run", "r1", NULL };
	struct run_result r;

	pin_or_skip(pin, sizeof(pin));
	bad = toolkit_repo("1.0.0", cuda_home());
	r = ripple_expect(bad, 2, plan);
	cr_expect(strstr(r.err, "toolkit 'tk' is pinned to 1.0.0 but ") &&
		  strstr(r.err, cuda_home()), "%s", r.err);
	t_result_release(&r);
	r = ripple_expect(bad, 2, run);
	cr_expect(strstr(r.err, "pinned to 1.0.0") != NULL, "%s", r.err);
	cr_expect(strstr(r.err, "[1/1]") == NULL, "nothing ran: %s", r.err);
	t_result_release(&r);
	dir = toolkit_repo(pin, cuda_home());
	ripple_ok(dir, plan);
	ripple_ok(dir, run);
	r = ripple_expect(dir, 0, export);
	cr_expect(strstr(r.out, "\"toolkit-identity\": \"tk ") &&
		  strstr(r.out, " nvrtc="), "%s", r.out);
	t_result_release(&r);
	t_rmtree(bad);
	t_rmtree(dir);
	free(bad);
	free(dir);
}

/* Item 6: where the home does not exist nothing is probed or required. */
Test(e2e_reuse, a_toolkit_without_a_home_here_is_not_probed)
{
	char *dir = toolkit_repo("1.0.0", "/nonexistent/cuda-1.0");
	const char *plan[] = { "plan", NULL };
	const char *run[] = { "run", "--run-id", "r1", NULL };
	const char *export[] = { "cache", "export", "--run", "r1", NULL };
	struct run_result r;

	ripple_ok(dir, plan);
	ripple_ok(dir, run);
	r = ripple_expect(dir, 0, export);
	cr_expect(strstr(r.out, "toolkit-identity") == NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * A record a pull request's run reused from its own trust domain of the
 * remote cache (metadata trust-domain=ID, as engine/run/store.c writes
 * it) is never reused for main: the plan says so, naming the run and the
 * domain, instead of "no-baseline-run" (reuse any) or "new-node" (the
 * pull request's run as baseline), and the pull request reuses it.
 */
Test(e2e_reuse, a_record_of_another_trust_domain_is_named_not_new)
{
	char *dir = new_repo("version: 1\nartifacts:\n  w: {command: [true]}\n");
	char dom[REMOTE_DOMAIN_SIZE], meta[128];
	const char *rec[] = { "record", "--run", "pr1", "--ref",
			      "refs/pull/1/merge", "--node", "artifact:w",
			      "--status", "ok", "--meta", meta, NULL };
	const char *fin[] = { "record", "--run", "pr1", "--finish", "ok",
			      NULL };
	const char *any[] = { "--reuse", "any", "--ref", "refs/heads/main",
			      NULL };
	const char *base[] = { "--base", "HEAD", "--ref", "refs/heads/main",
			       NULL };
	const char *pr[] = { "--reuse", "any", "--ref", "refs/pull/1/merge",
			     NULL };
	const char *why[] = { "why", "artifact:w", "--reuse", "any", "--ref",
			      "refs/heads/main", NULL };
	struct run_result r;
	struct error err;
	json_t *p, *ch;

	error_init(&err);
	cr_assert_eq(remote_domain_id("refs/pull/1/merge", dom, &err), 0);
	snprintf(meta, sizeof(meta), "trust-domain=%s", dom);
	cr_assert_eq(t_git_commit(dir, "c"), 0);
	ripple_ok(dir, rec);
	ripple_ok(dir, fin);
	p = plan_json(dir, pr);
	expect_decision(p, "artifact:w", "reuse", "reused");
	json_decref(p);
	p = plan_json(dir, any);
	expect_decision(p, "artifact:w", "build",
			"record-in-other-trust-domain");
	ch = json_array_get(json_object_get(node_of(p, "artifact:w"),
					    "changes"), 0);
	cr_expect_str_eq(field(ch, "name"), "trust-domain");
	cr_expect_str_eq(field(ch, "old"), dom);
	cr_expect_str_eq(field(ch, "new"), "trusted");
	json_decref(p);
	p = plan_json(dir, base);
	expect_decision(p, "artifact:w", "build",
			"record-in-other-trust-domain");
	json_decref(p);
	r = ripple_expect(dir, 0, why);
	cr_expect(strstr(r.out, "record of run pr1 came from trust domain "
			 "'pull-1-merge-") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
