/*
 * Suite engine_release: `ripple release TAG --dry-run` end to end on
 * repositories made here, with runs recorded through the cache API.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "base/error.h"
#include "base/strv.h"
#include "cache/cache.h"
#include "engine/plan/record.h"
#include "graph/digest.h"
#include "tests/support/support.h"

/* A tiny two-root layout in the spirit of examples/cuda-bindings. */
static const char rules_text[] =
	"version: 1\n"
	"roots:\n"
	"  b12: {path: b12, role: maintenance, tags: \"v12.9.*\", "
	"exclude-tags: [v12.9.0]}\n"
	"  b13: {path: b13, role: current, tags: \"v13.*\"}\n"
	"axes:\n"
	"  python: {values: [\"3.12\", \"3.13\", \"3.14t\"], "
	"experimental: [\"3.14t\"]}\n"
	"  platform: [linux-64]\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots, python: axes.python, "
	"platform: axes.platform}\n"
	"    command: [build, \"${root.path}\", \"${python}\"]\n"
	"  wheel-tests:\n"
	"    each: {root: roots, python: axes.python, "
	"platform: axes.platform}\n"
	"    command: [build-tests, \"${root.path}\"]\n"
	"  meta:\n"
	"    each: {root: roots}\n"
	"    command: [build-meta, \"${root.path}\"]\n"
	"releases:\n"
	"  bindings:\n"
	"    each: {root: roots}\n"
	"    tag: root.tags\n"
	"    artifacts: [wheel, wheel-tests]\n"
	"    exclude: [\"*-tests\"]\n"
	"    notes: \"${root.path}/notes/${version}.rst\"\n"
	"    notes-skip-post: true\n"
	"    require-meta:\n"
	"      - {artifact: meta, key: requires, final: \"b~=${version}\", "
	"dev: \"b==${version}\"}\n";

static const char key[] = "0123456789abcdef0123456789abcdef";

struct fx {
	char *dir;		/* the repository */
	char *cdir;		/* holds the cache, outside the repository */
	char cache[4096];
	struct cache *c;
};

static void
sh(const char *dir, const char *fmt, ...)
{
	struct run_result r;
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	t_result_release(&r);
}

/* Annotated tag NAME on HEAD. */
static void
tag(const struct fx *f, const char *name)
{
	sh(f->dir, "git -c user.name=T -c user.email=t@example.com "
		   "tag -a -m 'release %s' '%s'", name, name);
}

/* A repository with the rules and notes for 12.9.9 and 13.0.1. */
static void
fx_init(struct fx *f, const char *rules)
{
	struct error err;

	memset(f, 0, sizeof(*f));
	f->dir = t_git_init();
	f->cdir = t_tmpdir();
	snprintf(f->cache, sizeof(f->cache), "%s/cache.db", f->cdir);
	if (rules)
		t_write(f->dir, "ripple.yml", rules);
	t_write(f->dir, "b12/src.py", "print(12)\n");
	t_write(f->dir, "b13/src.py", "print(13)\n");
	t_write(f->dir, "b12/notes/12.9.9.rst", "Fixed things.\n");
	t_write(f->dir, "b13/notes/13.0.1.rst", "New things.\n");
	cr_assert_eq(t_git_commit(f->dir, "one"), 0);
	error_init(&err);
	cr_assert_eq(cache_open(f->cache, CACHE_OPEN_CREATE, &f->c, &err), 0,
		     "%s", err.msg);
}

static void
fx_done(struct fx *f)
{
	cache_close(f->c);
	t_rmtree(f->dir);
	t_rmtree(f->cdir);
	free(f->dir);
	free(f->cdir);
}

static void
run_add(struct fx *f, const char *id, const char *commit, const char *ref,
	const char *tagname, enum cache_run_status st, int64_t started)
{
	struct cache_run run;
	struct error err;

	memset(&run, 0, sizeof(run));
	run.id = (char *)id;
	run.commit = (char *)commit;
	run.ref = (char *)ref;
	run.tag = (char *)tagname;
	run.status = st;
	run.started_ms = started;
	run.ended_ms = started + 1000;
	error_init(&err);
	cr_assert_eq(cache_run_create(f->c, &run, &err), 0, "%s", err.msg);
}

/*
 * Record NODE in RUN: version, one file (may be NULL), one "K=V" meta.
 * The file is written in the repository (its text is its path) and the
 * record holds its real output digest: a release reads the bytes.
 */
static void
rec(struct fx *f, const char *run, const char *node, const char *version,
    const char *file, const char *meta, enum cache_record_status st)
{
	struct cache_record r;
	struct error err;
	struct digest d;

	cache_record_init(&r);
	error_init(&err);
	r.run = (char *)run;
	r.node_id = (char *)node;
	memcpy(r.key, key, sizeof(r.key));
	r.status = st;
	r.output_digest = (char *)"fedcba9876543210fedcba9876543210";
	if (file && file[0] != '/')
		t_write(f->dir, file, file);
	if (file && !record_output_digest(f->dir, &file, 1, &d, &err))
		r.output_digest = d.hex;
	error_init(&err);
	r.version = (char *)version;
	if (file)
		cr_assert_eq(strv_push(&r.artifacts, file, &err), 0);
	if (meta)
		cr_assert_eq(strv_push(&r.metadata, meta, &err), 0);
	cr_assert_eq(cache_record_put(f->c, &r, NULL, &err), 0, "%s",
		     err.msg);
	strv_release(&r.artifacts);
	strv_release(&r.metadata);
}

static void
wheel(struct fx *f, const char *run, const char *root, const char *py,
      const char *version)
{
	char node[256], file[256];

	snprintf(node, sizeof(node),
		 "artifact:wheel[platform=linux-64,python=%s,root=%s]", py,
		 root);
	snprintf(file, sizeof(file), "dist/%s/b-%s-cp%s-none-linux_64.whl",
		 root, version, py);
	rec(f, run, node, version, file, NULL, CACHE_RECORD_STATUS_OK);
}

/* A successful run of TAG at HEAD with every expected artifact. */
static char *
clean_run(struct fx *f, const char *run, const char *tagname,
	  const char *root, const char *version, const char *requires)
{
	char *commit = t_git_rev(f->dir, tagname);
	char node[128], meta[128];

	run_add(f, run, commit, NULL, tagname, CACHE_RUN_STATUS_OK, 1000);
	wheel(f, run, root, "3.12", version);
	wheel(f, run, root, "3.13", version);
	snprintf(node, sizeof(node), "artifact:meta[root=%s]", root);
	snprintf(meta, sizeof(meta), "requires=%s", requires);
	rec(f, run, node, version, "dist/meta-0-py3-none-any.tar", meta,
	    CACHE_RECORD_STATUS_OK);
	return commit;
}

/* Run `ripple release TAG --dry-run --cache CACHE` plus up to 4 args. */
static struct run_result
release(struct fx *f, const char *tagname, const char *a1, const char *a2,
	const char *a3)
{
	const char *argv[] = { "release", tagname, "--dry-run", "--cache",
			       f->cache, a1, a2, a3, NULL };

	return t_ripple(f->dir, argv);
}

/* How many times needle stands in hay. */
static int
count_of(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

#define HAS(r, s) cr_expect(strstr((r).out, (s)) != NULL, \
			    "missing '%s' in:\n%s\n%s", (s), (r).out, (r).err)
#define HASNT(r, s) cr_expect(strstr((r).out, (s)) == NULL, \
			      "unexpected '%s' in:\n%s", (s), (r).out)

Test(engine_release, clean_release_of_each_line)
{
	struct fx f;
	struct run_result r;
	char mpath[4200], *m, *c12, *c13;
	json_t *doc, *arts;
	json_error_t jerr;

	fx_init(&f, rules_text);
	tag(&f, "v12.9.9");
	tag(&f, "v13.0.1");
	c12 = clean_run(&f, "r12", "v12.9.9", "b12", "12.9.9", "b~=12.9.9");
	c13 = clean_run(&f, "r13", "v13.0.1", "b13", "13.0.1", "b~=13.0.1");
	cache_close(f.c);
	f.c = NULL;
	snprintf(mpath, sizeof(mpath), "%s/manifest.json", f.cdir);

	r = release(&f, "v12.9.9", "--manifest", mpath, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	HAS(r, "ok    tag-family    claimed by release:bindings[root=b12]");
	HAS(r, "ok    run           run r12");
	HAS(r, "ok    artifacts     2 expected artifacts recorded ok");
	HAS(r, "ok    versions      2 artifacts at version 12.9.9");
	HAS(r, "ok    notes         b12/notes/12.9.9.rst");
	HAS(r, "ok    metadata      1 records checked (final release)");
	HAS(r, "annotated tag 'v12.9.9'");
	t_result_release(&r);
	m = t_read(mpath);
	cr_assert_not_null(m, "manifest not written");
	/* The manifest file is JSON too: ninja check validates it. */
	t_keep_json("ripple release v12.9.9 --dry-run --manifest -", m);
	doc = json_loads(m, 0, &jerr);
	cr_assert_not_null(doc, "%s", jerr.text);
	cr_expect_str_eq(json_string_value(json_object_get(doc, "commit")),
			 c12);
	cr_expect_str_eq(json_string_value(json_object_get(doc, "run")),
			 "r12");
	arts = json_object_get(doc, "artifacts");
	cr_expect_eq(json_array_size(arts), 2);
	cr_expect_str_eq(json_string_value(json_object_get(
				 json_array_get(arts, 0), "node")),
			 "artifact:wheel[platform=linux-64,python=3.12,"
			 "root=b12]");
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(
				 json_array_get(arts, 1), "locators"), 0)),
			 "dist/b12/b-12.9.9-cp3.13-none-linux_64.whl");
	json_decref(doc);
	free(m);

	r = release(&f, "v13.0.1", "--json", NULL, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	doc = json_loads(r.out, 0, &jerr);
	cr_assert_not_null(doc, "%s", jerr.text);
	cr_expect(json_is_true(json_object_get(doc, "ok")));
	cr_expect_str_eq(json_string_value(json_object_get(doc, "release")),
			 "release:bindings[root=b13]");
	cr_expect_str_eq(json_string_value(json_object_get(
				 json_object_get(doc, "manifest"), "commit")),
			 c13);
	json_decref(doc);
	t_result_release(&r);
	free(c12);
	free(c13);
	fx_done(&f);
}

Test(engine_release, missing_extra_and_failed_wheels)
{
	struct fx f;
	struct run_result r;
	char *c;

	fx_init(&f, rules_text);
	tag(&f, "v12.9.9");
	c = t_git_rev(f.dir, "v12.9.9");
	run_add(&f, "r", c, NULL, "v12.9.9", CACHE_RUN_STATUS_OK, 1);
	wheel(&f, "r", "b12", "3.12", "12.9.9");	/* 3.13 missing */
	wheel(&f, "r", "b12", "3.11", "12.9.9");	/* not in the rules */
	wheel(&f, "r", "b13", "3.13", "12.9.9");	/* another line */
	rec(&f, "r", "artifact:meta[root=b12]", "12.9.9", NULL,
	    "requires=b~=12.9.9", CACHE_RECORD_STATUS_OK);
	r = release(&f, "v12.9.9", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	HAS(r, "FAIL  artifacts     1 missing, 0 failed, 1 extra, 0 duplicate");
	HAS(r, "- missing wheel platform=linux-64,python=3.13,root=b12: "
	       "no record in the run");
	HAS(r, "- extra wheel platform=linux-64,python=3.11,root=b12");
	HASNT(r, "root=b13");
	t_result_release(&r);

	/* A failed record counts as missing, with its status named. */
	rec(&f, "r", "artifact:wheel[platform=linux-64,python=3.13,root=b12]",
	    "12.9.9", NULL, NULL, CACHE_RECORD_STATUS_TIMEOUT);
	r = release(&f, "v12.9.9", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1);
	HAS(r, "- failed wheel platform=linux-64,python=3.13,root=b12: "
	       "recorded as timeout");
	t_result_release(&r);
	free(c);
	fx_done(&f);
}

Test(engine_release, duplicate_wheels)
{
	struct fx f;
	struct run_result r;
	char *c;

	fx_init(&f, rules_text);
	tag(&f, "v12.9.9");
	c = clean_run(&f, "r", "v12.9.9", "b12", "12.9.9", "b~=12.9.9");
	/* The same artifact recorded again under a non-canonical id. */
	rec(&f, "r", "artifact:wheel[root=b12,python=3.12,platform=linux-64]",
	    "12.9.9", "dist/other-12.9.9-py3-none-any.whl", NULL, CACHE_RECORD_STATUS_OK);
	r = release(&f, "v12.9.9", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	HAS(r, "- duplicate wheel platform=linux-64,python=3.12,root=b12: "
	       "2 records of one artifact");
	t_result_release(&r);
	fx_done(&f);
	free(c);

	/* Two artifacts that would upload one file name. */
	fx_init(&f, rules_text);
	tag(&f, "v12.9.9");
	c = t_git_rev(f.dir, "v12.9.9");
	run_add(&f, "r", c, NULL, "v12.9.9", CACHE_RUN_STATUS_OK, 1);
	rec(&f, "r", "artifact:wheel[platform=linux-64,python=3.12,root=b12]",
	    "12.9.9", "a/b-12.9.9-py3-none-any.whl", NULL,
	    CACHE_RECORD_STATUS_OK);
	rec(&f, "r", "artifact:wheel[platform=linux-64,python=3.13,root=b12]",
	    "12.9.9", "b/b-12.9.9-py3-none-any.whl", NULL,
	    CACHE_RECORD_STATUS_OK);
	rec(&f, "r", "artifact:meta[root=b12]", "12.9.9", NULL,
	    "requires=b~=12.9.9", CACHE_RECORD_STATUS_OK);
	r = release(&f, "v12.9.9", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	HAS(r, "0 extra, 2 duplicate");
	HAS(r, "file 'b-12.9.9-py3-none-any.whl' also from "
	       "artifact:wheel[platform=linux-64,python=3.13,root=b12]");
	t_result_release(&r);
	free(c);
	fx_done(&f);
}

Test(engine_release, test_wheel_and_experimental_python_are_ignored)
{
	struct fx f;
	struct run_result r;
	char *c, mpath[4200], *m;

	fx_init(&f, rules_text);
	tag(&f, "v12.9.9");
	c = clean_run(&f, "r", "v12.9.9", "b12", "12.9.9", "b~=12.9.9");
	rec(&f, "r",
	    "artifact:wheel-tests[platform=linux-64,python=3.12,root=b12]",
	    "12.9.9", "dist/b-tests.whl", NULL, CACHE_RECORD_STATUS_OK);
	wheel(&f, "r", "b12", "3.14t", "12.9.9");
	snprintf(mpath, sizeof(mpath), "%s/m.json", f.cdir);
	r = release(&f, "v12.9.9", "--manifest", mpath, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	HAS(r, "(2 ignored)");
	HAS(r, "(excluded by '*-tests')");
	HAS(r, "(experimental python=3.14t)");
	t_result_release(&r);
	m = t_read(mpath);
	cr_assert_not_null(m);
	cr_expect(strstr(m, "wheel-tests") == NULL, "%s", m);
	cr_expect(strstr(m, "3.14t") == NULL, "%s", m);
	free(m);
	free(c);
	fx_done(&f);
}

Test(engine_release, run_of_another_ref_is_a_named_near_miss)
{
	struct fx f;
	struct run_result r;
	char *c, *head;

	fx_init(&f, rules_text);
	tag(&f, "v12.9.9");
	c = t_git_rev(f.dir, "v12.9.9");
	/* The same commit built by a branch push: does not count. */
	run_add(&f, "ci-main", c, "refs/heads/main", NULL,
		CACHE_RUN_STATUS_OK, 1);
	wheel(&f, "ci-main", "b12", "3.12", "12.9.9");
	t_write(f.dir, "b12/src.py", "print(12.1)\n");
	cr_assert_eq(t_git_commit(f.dir, "two"), 0);
	head = t_git_rev(f.dir, "HEAD");
	/* The tag name at another commit: does not count either. */
	run_add(&f, "ci-moved", head, "refs/tags/v12.9.9", "v12.9.9",
		CACHE_RUN_STATUS_OK, 2);
	r = release(&f, "v12.9.9", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	HAS(r, "FAIL  run           no successful run for tag 'v12.9.9'");
	HAS(r, "near miss: run ci-main (same commit under another ref): "
	       "ref refs/heads/main");
	HAS(r, "near miss: run ci-moved (the tag at another commit)");
	HAS(r, "skip  artifacts     no qualifying run");
	t_result_release(&r);

	/* Naming the run explicitly is still checked. */
	r = release(&f, "v12.9.9", "--run", "ci-main", NULL);
	cr_expect_eq(r.status, 1);
	HAS(r, "run 'ci-main' does not qualify: same commit under another ref");
	t_result_release(&r);
	free(head);
	free(c);
	fx_done(&f);
}

Test(engine_release, tagged_rules_win_over_current_rules)
{
	struct fx f;
	struct run_result r;
	char *c, *later;

	fx_init(&f, rules_text);
	tag(&f, "v12.9.9");
	c = clean_run(&f, "r", "v12.9.9", "b12", "12.9.9", "b~=12.9.9");
	/* Later rules add Python 3.11 and drop the notes: not the tag's. */
	later = strdup(rules_text);
	cr_assert_not_null(later);
	memcpy(strstr(later, "\"3.12\", \"3.13\""), "\"3.11\", \"3.13\"", 14);
	t_write(f.dir, "ripple.yml", later);
	cr_assert_eq(t_git_commit(f.dir, "new rules"), 0);
	t_write(f.dir, "ripple.yml", "version: [broken\n");
	r = release(&f, "v12.9.9", NULL, NULL, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	HAS(r, "ok    rules         read from the tagged tree");
	HASNT(r, "3.11");
	HASNT(r, "warning");
	t_result_release(&r);
	free(later);
	free(c);
	fx_done(&f);
}

Test(engine_release, notes_missing_empty_and_post_release)
{
	struct fx f;
	struct run_result r;
	char *c;

	fx_init(&f, rules_text);
	/* 12.9.8: no notes file. */
	tag(&f, "v12.9.8");
	c = clean_run(&f, "r8", "v12.9.8", "b12", "12.9.8", "b~=12.9.8");
	free(c);
	r = release(&f, "v12.9.8", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1);
	HAS(r, "FAIL  notes         missing: b12/notes/12.9.8.rst is not in "
	       "the tagged tree");
	t_result_release(&r);
	/* 12.9.9 with an empty file, 12.9.10 with whitespace only. */
	t_write(f.dir, "b12/notes/12.9.9.rst", "");
	t_write(f.dir, "b12/notes/12.9.10.rst", " \n\t\n");
	cr_assert_eq(t_git_commit(f.dir, "empty notes"), 0);
	tag(&f, "v12.9.9");
	tag(&f, "v12.9.10");
	c = clean_run(&f, "r9", "v12.9.9", "b12", "12.9.9", "b~=12.9.9");
	free(c);
	c = clean_run(&f, "r10", "v12.9.10", "b12", "12.9.10", "b~=12.9.10");
	free(c);
	r = release(&f, "v12.9.9", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1);
	HAS(r, "FAIL  notes         empty: b12/notes/12.9.9.rst has zero "
	       "bytes");
	t_result_release(&r);
	r = release(&f, "v12.9.10", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1);
	HAS(r, "FAIL  notes         empty: b12/notes/12.9.10.rst has only "
	       "whitespace");
	t_result_release(&r);
	/* A post-release needs none (notes-skip-post). */
	tag(&f, "v12.9.9.post1");
	c = clean_run(&f, "rp", "v12.9.9.post1", "b12", "12.9.9.post1",
		      "b~=12.9.9.post1");
	free(c);
	r = release(&f, "v12.9.9.post1", NULL, NULL, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	HAS(r, "ok    notes         post-release: notes not required");
	t_result_release(&r);
	fx_done(&f);
}

Test(engine_release, non_canonical_tag_is_refused)
{
	struct fx f;
	struct run_result r;
	char *c;

	fx_init(&f, rules_text);
	tag(&f, "v13.4.01");
	c = clean_run(&f, "r", "v13.4.01", "b13", "13.4.1", "b~=13.4.1");
	r = release(&f, "v13.4.01", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	/* The patterns name it: the spelling is what is wrong (issue 25). */
	HAS(r, "FAIL  tag-family    tag 'v13.4.01' matches the tag patterns "
	       "of release:bindings[root=b13] but is not spelled");
	HAS(r, "FAIL  tag-spelling");
	HAS(r, "leading zero");
	HAS(r, "skip  versions");
	t_result_release(&r);
	free(c);
	fx_done(&f);
}

Test(engine_release, unknown_and_ambiguous_tag_families)
{
	static const char extra[] =
		"  other:\n"
		"    tag: \"v13.0.*\"\n"
		"    artifacts: [meta]\n";
	struct fx f;
	struct run_result r;
	char *text = malloc(sizeof(rules_text) + sizeof(extra));

	cr_assert_not_null(text);
	snprintf(text, sizeof(rules_text) + sizeof(extra), "%s%s", rules_text,
		 extra);
	fx_init(&f, text);
	tag(&f, "v14.0.0");
	tag(&f, "v13.0.1");
	r = release(&f, "v14.0.0", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1);
	HAS(r, "FAIL  tag-family    no configured release line matches tag "
	       "'v14.0.0' (3 known)");
	HAS(r, "- not release:bindings[root=b12] 'v12.9.*' excluding "
	       "'v12.9.0'");
	HAS(r, "- not release:other 'v13.0.*'");
	t_result_release(&r);
	r = release(&f, "v13.0.1", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1);
	/* One tag may release several nodes (issue 17, item 1). */
	HAS(r, "ok    tag-family    claimed by 2 release nodes");
	HAS(r, "- claimed by release:bindings[root=b13]");
	HAS(r, "- claimed by release:other");
	t_result_release(&r);
	free(text);
	fx_done(&f);
}

Test(engine_release, dev_local_and_wrong_versions_are_refused)
{
	struct fx f;
	struct run_result r;
	char *c;

	fx_init(&f, rules_text);
	tag(&f, "v12.9.9");
	c = t_git_rev(f.dir, "v12.9.9");
	run_add(&f, "r", c, NULL, "v12.9.9", CACHE_RUN_STATUS_OK, 1);
	wheel(&f, "r", "b12", "3.12", "12.9.9.dev1");
	wheel(&f, "r", "b12", "3.13", "12.9.9+g1234567");
	rec(&f, "r", "artifact:meta[root=b12]", "12.9.8", NULL,
	    "requires=b==12.9.9", CACHE_RECORD_STATUS_OK);
	r = release(&f, "v12.9.9", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1);
	HAS(r, "FAIL  versions      2 version problems");
	HAS(r, "python=3.12,root=b12]: dev version '12.9.9.dev1' refused");
	HAS(r, "python=3.13,root=b12]: local version '12.9.9+g1234567' "
	       "refused");
	/* Metadata: a final release requires the compatible-release pin. */
	HAS(r, "FAIL  metadata");
	HAS(r, "artifact:meta[root=b12]: requires is 'b==12.9.9', want "
	       "'b~=12.9.9' (final release)");
	t_result_release(&r);
	free(c);
	fx_done(&f);
}

Test(engine_release, file_names_must_carry_the_tags_version)
{
	struct fx f;
	struct run_result r;
	char *c;

	fx_init(&f, rules_text);
	tag(&f, "v12.9.9");
	c = t_git_rev(f.dir, "v12.9.9");
	run_add(&f, "r", c, NULL, "v12.9.9", CACHE_RUN_STATUS_OK, 1);
	/* Recorded right, but the build stamped its file with a template. */
	rec(&f, "r", "artifact:wheel[platform=linux-64,python=3.12,root=b12]",
	    "12.9.9", "dist/b-${root.version}-cp312-cp312-linux_64.whl", NULL,
	    CACHE_RECORD_STATUS_OK);
	rec(&f, "r", "artifact:wheel[platform=linux-64,python=3.13,root=b12]",
	    "12.9.9", "dist/b-12.9.9-linux.whl", NULL, CACHE_RECORD_STATUS_OK);
	rec(&f, "r", "artifact:meta[root=b12]", "12.9.9", NULL,
	    "requires=b~=12.9.9", CACHE_RECORD_STATUS_OK);
	r = release(&f, "v12.9.9", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1);
	HAS(r, "FAIL  versions      2 version problems");
	HAS(r, "file 'dist/b-${root.version}-cp312-cp312-linux_64.whl' "
	       "carries version '${root.version}', not the tag's '12.9.9'");
	HAS(r, "'dist/b-12.9.9-linux.whl' is not a valid wheel or conda package name");
	t_result_release(&r);
	free(c);
	fx_done(&f);
}

Test(engine_release, pre_release_metadata_uses_the_dev_form)
{
	struct fx f;
	struct run_result r;
	char *c;

	fx_init(&f, rules_text);
	t_write(f.dir, "b13/notes/13.0.2rc1.rst", "Candidate.\n");
	cr_assert_eq(t_git_commit(f.dir, "rc notes"), 0);
	tag(&f, "v13.0.2rc1");
	c = clean_run(&f, "r", "v13.0.2rc1", "b13", "13.0.2rc1",
		      "numpy, b==13.0.2rc1");
	r = release(&f, "v13.0.2rc1", NULL, NULL, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	HAS(r, "ok    metadata      1 records checked (pre/dev release)");
	t_result_release(&r);
	free(c);
	fx_done(&f);
}

Test(engine_release, tagged_tree_without_rules_stops)
{
	struct fx f;
	struct run_result r;
	char *c;

	fx_init(&f, NULL);
	tag(&f, "v12.9.9");
	c = clean_run(&f, "r", "v12.9.9", "b12", "12.9.9", "b~=12.9.9");
	t_write(f.dir, "ripple.yml", rules_text);
	cr_assert_eq(t_git_commit(f.dir, "add rules"), 0);
	r = release(&f, "v12.9.9", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1);
	HAS(r, "FAIL  rules         the tagged tree of 'v12.9.9' has no "
	       "ripple.yml");
	HAS(r, "--use-current-rules");
	HAS(r, "skip  artifacts");
	HAS(r, "ok    run           run r");
	t_result_release(&r);
	r = release(&f, "v12.9.9", "--use-current-rules", NULL, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	HAS(r, "ok    rules         the tagged tree has no ripple.yml; using "
	       "the current rules");
	HAS(r, "ok    artifacts");
	/* Said once, naming the checks that rest on them (it was printed
	 * under each of eight lines). */
	HAS(r, "\nwarning: rules from ");
	HAS(r, "not from the tag (tag-family, tag-spelling, rules, "
	       "artifacts, versions, notes, metadata, tests)\n");
	cr_expect_eq(count_of(r.out, "rules from "), 1, "%s", r.out);
	t_result_release(&r);
	free(c);
	fx_done(&f);
}

Test(engine_release, broken_tagged_rules_are_reported)
{
	struct fx f;
	struct run_result r;

	fx_init(&f, "version: 1\nroots: {b: {path: b, tags: [\"v*\"]}}\n"
		    "releases: {r: {tag: root.tags, artifacts: [nope]}}\n");
	tag(&f, "v1.0.0");
	r = release(&f, "v1.0.0", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	HAS(r, "FAIL  rules         the tagged rules do not load");
	HAS(r, "- ripple.yml@");
	HAS(r, "skip  tag-family");
	t_result_release(&r);
	fx_done(&f);
}

/* The bytes of a file, or NULL. */
static char *
slurp(const char *path)
{
	return t_read(path);
}

Test(engine_release, dry_run_never_writes_to_the_cache)
{
	struct fx f;
	struct run_result r;
	char *c, *before, *after, wal[4200];
	struct stat st0, st1;

	fx_init(&f, rules_text);
	tag(&f, "v12.9.9");
	c = clean_run(&f, "r", "v12.9.9", "b12", "12.9.9", "b~=12.9.9");
	cache_close(f.c);
	f.c = NULL;
	cr_assert_eq(stat(f.cache, &st0), 0);
	before = slurp(f.cache);
	cr_assert_not_null(before);
	cr_assert_eq(chmod(f.cache, 0444), 0);
	r = release(&f, "v12.9.9", NULL, NULL, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	r = release(&f, "v12.9.8", "--json", NULL, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	t_result_release(&r);
	cr_assert_eq(stat(f.cache, &st1), 0);
	after = slurp(f.cache);
	cr_expect_eq(st0.st_size, st1.st_size);
	cr_expect(!memcmp(before, after, (size_t)st0.st_size),
		  "cache bytes changed");
	snprintf(wal, sizeof(wal), "%s-wal", f.cache);
	cr_expect(stat(wal, &st1) != 0 || st1.st_size == 0,
		  "a WAL was written");
	free(before);
	free(after);
	free(c);
	fx_done(&f);
}

Test(engine_release, usage_and_missing_cache)
{
	struct fx f;
	struct run_result r;
	const char *argv[] = { "release", "v12.9.9", NULL };

	fx_init(&f, rules_text);
	tag(&f, "v12.9.9");
	r = t_ripple(f.dir, argv);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "ripple never publishes; pass --dry-run"),
		  "%s", r.err);
	t_result_release(&r);
	cache_close(f.c);
	f.c = NULL;
	t_rmtree(f.cdir);
	r = release(&f, "v12.9.9", NULL, NULL, NULL);
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "does not exist") != NULL, "%s", r.err);
	t_result_release(&r);
	cr_assert_eq(mkdir(f.cdir, 0700), 0);
	r = release(&f, "v12.9.77", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	HAS(r, "FAIL  tag-commit    tag 'v12.9.77' does not resolve");
	HAS(r, "warning: rules from ");
	t_result_release(&r);
	fx_done(&f);
}

/*
 * Issue 17, item 1: cuda-python releases its bindings and the metapackage
 * from one v* tag (two roots of one family); rmm its librmm and rmm
 * wheels. Every claimant is evaluated and its artifacts listed.
 */
static const char two_packages[] =
	"version: 1\n"
	"roots:\n"
	"  bindings: {path: b13, tags: \"v13.*\"}\n"
	"  python: {path: py, tags: \"v13.*\"}\n"
	"axes:\n"
	"  python: [\"3.12\", \"3.13\"]\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: [bindings], python: axes.python}\n"
	"    command: [build]\n"
	"  meta:\n"
	"    each: {root: [python]}\n"
	"    command: [build-meta]\n"
	"releases:\n"
	"  bindings: {each: {root: [bindings]}, tag: root.tags, "
	"artifacts: [wheel]}\n"
	"  python:\n"
	"    each: {root: [python]}\n"
	"    tag: root.tags\n"
	"    artifacts: [meta]\n"
	"    notes: \"${root.path}/notes/${version}.rst\"\n";

Test(engine_release, one_tag_releases_several_nodes)
{
	struct fx f;
	struct run_result r;
	char mpath[4200], *m, *c;

	fx_init(&f, two_packages);
	t_write(f.dir, "py/notes/13.0.1.rst", "Meta.\n");
	t_write(f.dir, "py/setup.py", "pass\n");
	cr_assert_eq(t_git_commit(f.dir, "meta"), 0);
	tag(&f, "v13.0.1");
	tag(&f, "v13.0.2");
	c = t_git_rev(f.dir, "v13.0.1");
	run_add(&f, "r1", c, NULL, "v13.0.1", CACHE_RUN_STATUS_OK, 1000);
	rec(&f, "r1", "artifact:wheel[python=3.12,root=bindings]", "13.0.1",
	    "dist/b-13.0.1-cp312-cp312-linux_x86_64.whl", NULL,
	    CACHE_RECORD_STATUS_OK);
	rec(&f, "r1", "artifact:wheel[python=3.13,root=bindings]", "13.0.1",
	    "dist/b-13.0.1-cp313-cp313-linux_x86_64.whl", NULL,
	    CACHE_RECORD_STATUS_OK);
	rec(&f, "r1", "artifact:meta[root=python]", "13.0.1",
	    "dist/m-13.0.1-py3-none-any.whl", NULL, CACHE_RECORD_STATUS_OK);
	/* v13.0.2's run lacks the metapackage, and it has no notes. */
	run_add(&f, "r2", c, NULL, "v13.0.2", CACHE_RUN_STATUS_OK, 2000);
	rec(&f, "r2", "artifact:wheel[python=3.12,root=bindings]", "13.0.2",
	    "dist/b-13.0.2-cp312-cp312-linux_x86_64.whl", NULL,
	    CACHE_RECORD_STATUS_OK);
	rec(&f, "r2", "artifact:wheel[python=3.13,root=bindings]", "13.0.2",
	    "dist/b-13.0.2-cp313-cp313-linux_x86_64.whl", NULL,
	    CACHE_RECORD_STATUS_OK);
	cache_close(f.c);
	f.c = NULL;
	snprintf(mpath, sizeof(mpath), "%s/manifest.json", f.cdir);

	r = release(&f, "v13.0.1", "--manifest", mpath, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	HAS(r, "release v13.0.1: release:bindings[root=bindings] + "
	       "release:python[root=python], version 13.0.1");
	HAS(r, "ok    tag-family    claimed by 2 release nodes");
	HAS(r, "ok    artifacts     3 expected artifacts recorded ok");
	HAS(r, "ok    notes         release:bindings[root=bindings]: no notes "
	       "declared; release:python[root=python]: py/notes/13.0.1.rst");
	m = t_read(mpath);
	cr_assert_not_null(m);
	cr_expect(strstr(m, "\"releases\": [\n    "
			    "\"release:bindings[root=bindings]\",\n    "
			    "\"release:python[root=python]\"\n  ]") != NULL,
		  "%s", m);
	cr_expect(strstr(m, "artifact:meta[root=python]") != NULL, "%s", m);
	free(m);
	t_result_release(&r);

	r = release(&f, "v13.0.2", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	HAS(r, "FAIL  artifacts     1 missing");
	HAS(r, "- missing meta root=python: no record in the run");
	HAS(r, "FAIL  notes         release:bindings[root=bindings]: no notes "
	       "declared; release:python[root=python]: missing: "
	       "py/notes/13.0.2.rst");
	t_result_release(&r);
	free(c);
	fx_done(&f);
}

/*
 * Issue 17, item 6 (case 58): a release reads the bytes it would publish.
 * A deleted or changed artifact file fails the artifacts check and no
 * manifest is written; a good one gives SHA256SUMS as sha256sum -c reads.
 */
Test(engine_release, release_reads_the_artifact_bytes)
{
	static const char one[] =
		"version: 1\n"
		"artifacts:\n"
		"  w: {command: [\"true\"]}\n"
		"releases:\n"
		"  rel: {tag: \"v*\", artifacts: [w]}\n";
	struct fx f;
	struct run_result r;
	char store[4200], whl[4300], mpath[4300], spath[4300], *c, *text;

	fx_init(&f, one);
	tag(&f, "v1.0.0");
	c = t_git_rev(f.dir, "v1.0.0");
	snprintf(store, sizeof(store), "%s/store", f.cdir);
	snprintf(whl, sizeof(whl), "%s/pkg-1.0.0-py3-none-any.whl", store);
	t_write(store, "pkg-1.0.0-py3-none-any.whl", "wheel bytes\n");
	run_add(&f, "t1", c, NULL, "v1.0.0", CACHE_RUN_STATUS_OK, 1000);
	rec(&f, "t1", "artifact:w", "1.0.0", whl, NULL,
	    CACHE_RECORD_STATUS_OK);
	cache_close(f.c);
	f.c = NULL;
	snprintf(mpath, sizeof(mpath), "%s/m.json", f.cdir);
	snprintf(spath, sizeof(spath), "%s/SHA256SUMS", store);

	{
		const char *argv[] = { "release", "v1.0.0", "--dry-run",
				       "--cache", f.cache, "--manifest", mpath,
				       "--sha256sums", spath, NULL };

		r = t_ripple(f.dir, argv);
	}
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	HAS(r, "ok    artifacts     1 expected artifacts recorded ok");
	t_result_release(&r);
	text = t_read(spath);
	cr_assert_not_null(text);
	cr_expect_str_eq(text, "d0995fbab28019f357bfaa8021396aa90224dafc0b6bda"
			 "07afeeb2a83097fdd6  pkg-1.0.0-py3-none-any.whl\n");
	free(text);
	r = t_sh(store, "sha256sum -c SHA256SUMS");
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "pkg-1.0.0-py3-none-any.whl: OK") != NULL,
		  "%s", r.out);
	t_result_release(&r);
	text = t_read(mpath);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "\"sha256\": [\n        \"d0995fba") != NULL,
		  "%s", text);
	free(text);

	/* Other bytes under the same name: refused, nothing written. */
	t_write(store, "pkg-1.0.0-py3-none-any.whl", "other bytes\n");
	remove(mpath);
	r = release(&f, "v1.0.0", "--manifest", mpath, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	HAS(r, "FAIL  artifacts     0 missing, 1 failed");
	HAS(r, "the files' bytes differ from the record: output digest");
	cr_expect_null(t_read(mpath));
	t_result_release(&r);

	/* Case 58: the file is gone. */
	remove(whl);
	r = release(&f, "v1.0.0", "--manifest", mpath, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	HAS(r, "artifact file missing: ");
	HAS(r, "store/pkg-1.0.0-py3-none-any.whl");
	cr_expect_null(t_read(mpath));
	t_result_release(&r);
	free(c);
	fx_done(&f);
}

/* Issue 17, item 8: a release requires its tests' ok records. */
Test(engine_release, release_requires_its_tests)
{
	static const char with_tests[] =
		"version: 1\n"
		"roots:\n"
		"  b13: {path: b13, tags: \"v13.*\"}\n"
		"axes:\n"
		"  python: {values: [\"3.12\", \"3.14t\"], experimental: "
		"[\"3.14t\"]}\n"
		"artifacts:\n"
		"  wheel: {each: {root: [b13]}, command: [build]}\n"
		"tests:\n"
		"  gpu: {each: {root: [b13], python: axes.python}, "
		"needs: [wheel], command: [t]}\n"
		"releases:\n"
		"  bindings: {each: {root: [b13]}, tag: root.tags, "
		"artifacts: [wheel], tests: [gpu]}\n";
	struct fx f;
	struct run_result r;
	char *c;

	fx_init(&f, with_tests);
	tag(&f, "v13.0.1");
	tag(&f, "v13.0.2");
	c = t_git_rev(f.dir, "v13.0.1");
	run_add(&f, "r1", c, NULL, "v13.0.1", CACHE_RUN_STATUS_OK, 1000);
	rec(&f, "r1", "artifact:wheel[root=b13]", "13.0.1",
	    "dist/b-13.0.1-py3-none-any.whl", NULL, CACHE_RECORD_STATUS_OK);
	rec(&f, "r1", "test:gpu[python=3.12,root=b13]", NULL, NULL, NULL,
	    CACHE_RECORD_STATUS_OK);
	run_add(&f, "r2", c, NULL, "v13.0.2", CACHE_RUN_STATUS_OK, 2000);
	rec(&f, "r2", "artifact:wheel[root=b13]", "13.0.2",
	    "dist/b-13.0.2-py3-none-any.whl", NULL, CACHE_RECORD_STATUS_OK);
	rec(&f, "r2", "test:gpu[python=3.12,root=b13]", NULL, NULL, NULL,
	    CACHE_RECORD_STATUS_FAILED);
	cache_close(f.c);
	f.c = NULL;
	r = release(&f, "v13.0.1", NULL, NULL, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	HAS(r, "ok    tests         1 required tests passed in run r1");
	t_result_release(&r);
	r = release(&f, "v13.0.2", NULL, NULL, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	HAS(r, "FAIL  tests         1 of 1 required tests did not pass");
	HAS(r, "- test:gpu[python=3.12,root=b13]: recorded as failed");
	t_result_release(&r);
	free(c);
	fx_done(&f);
}
