/*
 * Suite e2e_remote_heal: what is left of issue 22 (Trust III), against a
 * real nginx on loopback: a blob damaged after main uploaded it fails a
 * release check and a fetch by name, and the next run of its node
 * repairs it; a node with thousands of outputs is fetched under a low
 * descriptor limit; temporary files a killed fetch left in deep folders
 * of a node's outputs are swept by the next fetch or run; `fetch --to
 * DIR` writes what `release --artifacts DIR` reads; a pull request's
 * credential cannot write a blob main reads; an entry path holding a C1
 * control or a byte that is not UTF-8 writes nothing.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "cache/remote.h"
#include "engine/plan/record.h"
#include "graph/digest.h"
#include "tests/support/nginx.h"
#include "tests/support/support.h"

TestSuite(e2e_remote_heal, .init = t_fx_setup, .fini = t_fx_teardown,
	  .timeout = 300);

/* A shell command in the test's folder that must succeed: its stdout. */
static char *
sh(const char *cmd)
{
	return t_sh_out(t_fx.tmp, cmd);
}

/* The ripple binary as an absolute path (for shell commands); free it. */
static char *
bin(void)
{
	const char *b = getenv("RIPPLE_BIN");
	char *abs = realpath(b && b[0] ? b : "build/ripple", NULL);

	cr_assert_not_null(abs);
	return abs;
}

/*
 * nginx; an origin on main (tagged a-v1.0.0) with `rules`, cloned to
 * producer `a` and consumer `b`; the producer runs `producer_run`.
 */
static void
start(const char *rules, const char *const *producer_run)
{
	struct run_result r;

	t_fx_serve();
	free(sh("git init -q -b main origin"));
	t_write(t_fx.tmp, "origin/ripple.yml", rules);
	t_write(t_fx.tmp, "origin/.gitignore", ".ripple/\ndist/\nout/\nbig/\n"
		"wheelhouse/\n");
	t_write(t_fx.tmp, "origin/src/a.c", "int a;\n");
	t_write(t_fx.tmp, "origin/a/x.py", "x = 1\n");
	free(sh("cd origin && git add -A && git -c user.name=t -c "
		"user.email=t@example.com commit -qm init && git tag a-v1.0.0 "
		"&& cd .. && git clone -q origin a && git clone -q origin b"));
	r = t_fx_ripple("a", producer_run, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
}

static const char release_rules[] =
	"version: 1\n"
	"roots:\n"
	"  a: {path: a, tags: \"a-v*\"}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots}\n"
	"    inputs: [root.sources]\n"
	"    command: [sh, -c, 'mkdir -p dist/a && echo whl > "
	"dist/a/a-${root.version}-py3-none-any.whl']\n"
	"    outputs: [\"dist/a/*.whl\"]\n"
	"    version: \"${root.version}\"\n"
	"releases:\n"
	"  lib: {each: {root: roots}, tag: root.tags, artifacts: [wheel]}\n"
	"policy:\n"
	"  trusted-refs: [refs/heads/main, \"refs/tags/*\"]\n";

static const char *const tag_run[] = { "run", "--tag", "a-v1.0.0", NULL };

/*
 * Item 4: the release job of docs/github.md with a folder of its own:
 * `ripple fetch --to wheelhouse` of the tag's wheel, then `ripple release
 * TAG --artifacts wheelhouse` over those bytes, SHA256SUMS checked there.
 * fetch wrote base names and release read repository paths under the
 * folder: "artifact file missing: wheelhouse/dist/a/a-1.0.0-...".
 */
Test(e2e_remote_heal, fetch_to_a_folder_then_release_from_it)
{
	const char *fetch[] = { "fetch", "artifact:wheel*", "--to",
				"wheelhouse", NULL };
	const char *rel[] = { "release", "a-v1.0.0", "--dry-run",
			      "--artifacts", "wheelhouse", "--sha256sums",
			      "wheelhouse/SHA256SUMS", NULL };
	struct run_result r;
	char *s;

	start(release_rules, tag_run);
	free(sh("cd b && git checkout -q a-v1.0.0"));
	r = t_fx_ripple("b", fetch, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	r = t_fx_ripple("b", rel, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	s = sh("cd b/wheelhouse && sha256sum -c SHA256SUMS");
	cr_expect_str_eq(s, "a-1.0.0-py3-none-any.whl: OK");
	free(s);
	/* The files are read: one changed there fails the release. */
	free(sh("echo WHL > b/wheelhouse/a-1.0.0-py3-none-any.whl"));
	rel[5] = NULL;
	r = t_fx_ripple("b", rel, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "differ from the record") != NULL, "%s",
		  r.out);
	t_result_release(&r);
}

/*
 * Item 1: the tag's wheel blob is damaged on the server after the tag's
 * run uploaded it (same size: a HEAD sees nothing wrong). `release
 * --dry-run` must not vouch for it: it reads and hashes what it vouches
 * for, and names the damaged blob; `fetch` names it damaged too. The
 * next run of the node (which uploads its true bytes even though the
 * server says it holds the blob) repairs the cache: the release passes
 * and the fetch gets the true bytes. Before: the release passed, and
 * nothing but a rebuild could help the fetch.
 */
Test(e2e_remote_heal, a_blob_damaged_after_upload_fails_release_until_a_run)
{
	const char *rel[] = { "release", "a-v1.0.0", "--dry-run", NULL };
	const char *fetch[] = { "fetch", "artifact:wheel*", NULL };
	const char *rebuild[] = { "run", "--tag", "a-v1.0.0", "--reuse",
				  "none", NULL };
	char at[PATH_MAX], *h, *s;
	struct run_result r;

	start(release_rules, tag_run);
	free(sh("cd b && git checkout -q a-v1.0.0"));
	h = sh("echo whl | sha256sum | cut -c1-64");
	snprintf(at, sizeof(at), "cas/%s", h);
	t_write(t_fx.ng.root, at, "WHL\n");
	r = t_fx_ripple("b", rel, NULL);
	cr_expect_eq(r.status, 1, "a damaged blob was vouched for: %s%s",
		     r.out, r.err);
	cr_expect(strstr(r.out, "damaged") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, h) != NULL, "names the blob: %s", r.out);
	t_result_release(&r);
	r = t_fx_ripple("b", fetch, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "damaged") != NULL, "%s", r.err);
	cr_expect(strstr(r.err, h) != NULL, "names the blob: %s", r.err);
	t_result_release(&r);
	s = sh("cd b && find . -name '*.whl*' | wc -l");
	cr_expect_str_eq(s, "0", "nothing placed");
	free(s);
	r = t_fx_ripple("a", rebuild, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	r = t_fx_ripple("b", rel, NULL);
	cr_expect_eq(r.status, 0, "healed: %s%s", r.out, r.err);
	t_result_release(&r);
	r = t_fx_ripple("b", fetch, NULL);
	cr_expect_eq(r.status, 0, "healed: %s%s", r.out, r.err);
	t_result_release(&r);
	s = sh("cat b/dist/a/a-1.0.0-py3-none-any.whl");
	cr_expect_str_eq(s, "whl");
	free(s);
	free(h);
}

static const char many_rules[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [src/**]}\n"
	"artifacts:\n"
	"  big:\n"
	"    inputs: [src]\n"
	"    command: [sh, -c, 'for d in $(seq 0 29); do mkdir -p big/d$d; "
	"for f in $(seq 0 99); do echo $d.$f > big/d$d/f$f.txt; done; "
	"done']\n"
	"    outputs: [\"big/**\"]\n"
	"  deep:\n"
	"    inputs: [src]\n"
	"    command: [sh, -c, 'mkdir -p out/a/b && cat src/a.c > "
	"out/a/b/c.txt']\n"
	"    outputs: [\"out/**\"]\n"
	"policy:\n"
	"  trusted-refs: [refs/heads/main]\n";

static const char *const main_run[] = { "run", "big", "deep", NULL };

/*
 * Item 2: 3000 outputs fetched with at most 256 descriptors (a staged
 * file held two: ~125 outputs were the most, "Too many open files").
 */
Test(e2e_remote_heal, three_thousand_outputs_are_fetched_with_few_fds)
{
	char cmd[2 * PATH_MAX], *b = bin(), *s;

	start(many_rules, main_run);
	snprintf(cmd, sizeof(cmd), "cd b && ulimit -n 256 && '%s' "
		 "--remote-cache %s fetch big", b, t_fx.ng.url);
	s = sh(cmd);
	cr_expect_str_eq(s, "artifact:big: 3000 files");
	free(s);
	s = sh("cd b && find big -type f | wc -l && cat big/d29/f99.txt && "
	       "diff -r ../a/big big && echo same");
	cr_expect_str_eq(s, "3000\n29.99\nsame");
	free(s);
	free(b);
}

/* A temp file of a placement by a process that is gone, at rel in b. */
static void
stale_temp(const char *rel)
{
	char cmd[PATH_MAX + 256], *pid;

	pid = sh("sh -c 'exit 0' & wait; echo $!");
	snprintf(cmd, sizeof(cmd), "mkdir -p \"b/$(dirname '%s')\" && "
		 "echo partial > 'b/%s.ripple-tmp-%s-0badcafe'", rel, rel, pid);
	free(sh(cmd));
	free(pid);
}

/*
 * Item 3: a killed fetch of an older entry left temp files two folders
 * below the fixed folder of the glob out/STARSTAR (out/old/sub/, where no
 * output of today's entry lies): the next fetch of the node removes them,
 * and so does the next run of the node, which must not take one for an
 * output.
 * Before: only the folders of today's outputs and the pattern's fixed
 * folder were swept.
 */
Test(e2e_remote_heal, deep_temp_files_of_a_killed_fetch_are_swept)
{
	const char *fetch[] = { "fetch", "deep", NULL };
	const char *run[] = { "run", "deep", "--reuse", "none", NULL };
	struct run_result r;
	char *s;

	start(many_rules, main_run);
	stale_temp("out/old/sub/c.txt");
	stale_temp("out/a/b/x/y/c.txt");
	r = t_fx_ripple("b", fetch, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	s = sh("cd b && find . -name '*.ripple-tmp-*' | wc -l");
	cr_expect_str_eq(s, "0", "the fetch swept them");
	free(s);
	stale_temp("out/old/sub/c.txt");
	stale_temp("out/q/r/s/t.txt");
	/* Outside the node's output folders: not ripple's to sweep. */
	stale_temp("keep/deep/x.txt");
	r = t_fx_ripple("b", run, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	s = sh("cd b && find . -name '*.ripple-tmp-*' | sed 's/-tmp-.*//'");
	cr_expect_str_eq(s, "./keep/deep/x.txt.ripple", "%s", s);
	free(s);
}

static const char unit_rules[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [src/**]}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    inputs: [src]\n"
	"    command: [sh, -c, 'mkdir -p dist && cat src/a.c > dist/w.whl "
	"&& echo w >> dist/w.whl']\n"
	"    outputs: [dist/w.whl]\n"
	"tests:\n"
	"  unit:\n"
	"    needs: [wheel]\n"
	"    command: [sh, -c, 'printf \"int a;\\nw\\n\" | cmp - dist/w.whl']\n"
	"policy:\n"
	"  trusted-refs: [refs/heads/main]\n";

/* ripple ARGV (one shell word list) in TMP/dir with credential header. */
static struct run_result
rip_as(const char *dir, const char *header, const char *args)
{
	char cmd[4 * PATH_MAX], *b = bin();
	struct run_result r;

	snprintf(cmd, sizeof(cmd), "cd %s && RIPPLE_REMOTE_CACHE_HEADER='%s' "
		 "'%s' --remote-cache %s %s", dir, header ? header : "", b,
		 t_fx.ng.url, args);
	r = t_sh(t_fx.tmp, cmd);
	free(b);
	return r;
}

/*
 * Item 1, the server's side (examples/nginx/ripple-cache.conf): a pull
 * request's credential can no longer PUT into the trusted CAS, so it
 * cannot damage a blob main uploaded (or will upload); its runs write
 * their blobs into their own domain's CAS (d/<id>/cas/), where its later
 * jobs read them, and main's readers never look. Before: the PUT of
 * garbage at the wheel's predictable digest was accepted (201), and a
 * pull request's blobs went to the trusted CAS.
 */
Test(e2e_remote_heal, a_pull_request_cannot_write_a_blob_main_reads)
{
	char cmd[2 * PATH_MAX], domain[REMOTE_DOMAIN_SIZE], *h, *s;
	struct run_result r;
	struct error err;
	int reads;

	t_fx_serve_domains();
	free(sh("git init -q -b main origin"));
	t_write(t_fx.tmp, "origin/ripple.yml", unit_rules);
	t_write(t_fx.tmp, "origin/.gitignore", ".ripple/\ndist/\n");
	t_write(t_fx.tmp, "origin/src/a.c", "int a;\n");
	free(sh("cd origin && git add -A && git -c user.name=t -c "
		"user.email=t@example.com commit -qm init && cd .. && "
		"for c in main pr pr2 fresh; do git clone -q origin $c; done"));
	h = sh("printf 'int a;\\nw\\n' | sha256sum | cut -c1-64");
	/* The attack: garbage of the right size at the predicted digest. */
	snprintf(cmd, sizeof(cmd), "printf 'INT A;\\nW\\n' | curl -s -o "
		 "/dev/null -w '%%{http_code}' -X PUT --data-binary @- -H '%s' "
		 "%s/cas/%s", T_NGINX_PR_HEADER, t_fx.ng.url, h);
	s = sh(cmd);
	cr_expect_str_eq(s, "401", "a PR's credential wrote the trusted CAS");
	free(s);
	/* The pull request publishes into its own domain, blobs too. */
	r = rip_as("pr", T_NGINX_PR_HEADER, "run wheel --ref "
		   "refs/pull/5/merge");
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "published 1 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	error_init(&err);
	cr_assert_eq(remote_domain_id("refs/pull/5/merge", domain, &err), 0);
	snprintf(cmd, sizeof(cmd), "test -f '%s/d/%s/cas/%s' && ! test -e "
		 "'%s/cas/%s' && echo ok", t_fx.ng.root, domain, h,
		 t_fx.ng.root, h);
	s = sh(cmd);
	cr_expect_str_eq(s, "ok", "the PR's blob is in its domain's CAS");
	free(s);
	/* Its next job reads it there. */
	r = rip_as("pr2", NULL, "run --only 'test:*' --reuse any --ref "
		   "refs/pull/5/merge");
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "0 built, 1 reused") != NULL, "%s", r.out);
	cr_expect(strstr(r.err, "fetched 1 files") != NULL, "%s", r.err);
	t_result_release(&r);
	snprintf(cmd, sizeof(cmd), "\"GET /d/%s/cas/%s ", domain, h);
	cr_expect_eq(t_nginx_count(&t_fx.ng, cmd, 1), 1, "read in its domain");
	reads = t_nginx_count(&t_fx.ng, "\"GET /d/", 1);
	/* Main publishes into the trusted CAS; a fresh clone of main reads
	 * it there. */
	r = rip_as("main", T_NGINX_MAIN_HEADER, "run wheel --ref "
		   "refs/heads/main");
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "published 1 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	r = rip_as("fresh", NULL, "run --only 'test:*' --reuse any --ref "
		   "refs/heads/main");
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "0 built, 1 reused") != NULL, "%s", r.out);
	t_result_release(&r);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"GET /d/", reads), reads,
		     "main never reads a pull request's domain");
	s = sh("cd fresh && cmp dist/w.whl ../main/dist/w.whl && echo same");
	cr_expect_str_eq(s, "same");
	free(s);
	free(h);
}

/* ---- raw protobuf: what a hostile writer writes, unchecked ---- */

static size_t
varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static size_t
field_bytes(unsigned char *p, unsigned field, const void *s, size_t len)
{
	size_t n = varint(p, (uint64_t)field << 3 | 2);

	n += varint(p + n, len);
	memcpy(p + n, s, len);
	return n + len;
}

/* An OutputFile (path, digest) as ActionResult field 2. */
static size_t
pb_output(unsigned char *p, const char *path, const struct remote_digest *d)
{
	unsigned char dg[128], of[8192];
	size_t nd = field_bytes(dg, 1, d->hash, 64), no;

	nd += varint(dg + nd, 2 << 3);
	nd += varint(dg + nd, (uint64_t)d->size);
	no = field_bytes(of, 1, path, strlen(path));
	no += field_bytes(of + no, 2, dg, nd);
	return field_bytes(p, 2, of, no);
}

/*
 * Rewrite every AC entry of the tag's wheel as a writer would: its one
 * output renamed to `path` (same bytes), listed so in the record, whose
 * output digest is made right for it. Returns how many were rewritten.
 */
static int
rename_wheel_output(const char *path)
{
	char dir[PATH_MAX], at[2 * PATH_MAX];
	struct dirent *de;
	FILE *f;
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/ac", t_fx.ng.root);
	d = opendir(dir);
	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		unsigned char buf[65536];
		struct remote_action a;
		struct remote_digest recd;
		struct digest od;
		struct error err;
		const char *names[1], *files[1];
		char blob[2 * PATH_MAX], *s;
		json_t *j, *arts;
		size_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(at, sizeof(at), "%s/%s", dir, de->d_name);
		f = fopen(at, "rb");
		cr_assert_not_null(f, "%s", at);
		len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		error_init(&err);
		cr_assert_eq(remote_action_decode(buf, len, &a, &err), 0, "%s",
			     err.msg);
		j = json_loadb(a.record_text, a.record_len, 0, NULL);
		cr_assert_not_null(j);
		if (strcmp(json_string_value(json_object_get(j, "node")),
			   "artifact:wheel[root=a]") || a.n != 1) {
			json_decref(j);
			remote_action_release(&a);
			continue;
		}
		arts = json_array();
		json_array_append_new(arts, json_string(path));
		json_object_set_new(j, "artifacts", arts);
		snprintf(blob, sizeof(blob), "%s/cas/%s", t_fx.ng.root,
			 a.outputs[0].digest.hash);
		names[0] = path;
		files[0] = blob;
		error_init(&err);
		cr_assert_eq(record_output_digest_files(names, files, 1, &od,
							&err), 0);
		json_object_set_new(j, "output_digest", json_string(od.hex));
		s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
		t_fx_cas_put(s, strlen(s), &recd);
		len = pb_output(buf, path, &a.outputs[0].digest);
		len += pb_output(buf + len, REMOTE_RECORD_PATH, &recd);
		t_write_bytes(at, buf, len);
		free(s);
		json_decref(j);
		remote_action_release(&a);
		n++;
	}
	closedir(d);
	return n;
}

/*
 * Item 5, in entries: a writer renames the tag's wheel to a name that
 * matches the node's glob (dist/a/STAR.whl) but holds U+0085 (NEL, a line
 * break to some readers: it would forge a line of SHA256SUMS) or a byte
 * that is not UTF-8. The entry is corrupt: nothing is written, the node
 * has no usable record. Before: fetch wrote 'a<NEL>-1.0.0-...whl'.
 */
Test(e2e_remote_heal, an_entry_path_with_a_c1_control_writes_nothing)
{
	static const char *const paths[] = {
		"dist/a/a\xc2\x85" "0000  evil.whl-1.0.0-py3-none-any.whl",
		"dist/a/a\xff-1.0.0-py3-none-any.whl",
	};
	const char *fetch[] = { "fetch", "artifact:wheel*", "--to",
				"wheelhouse", NULL };
	char cmd[3 * PATH_MAX], *s;
	struct run_result r;
	size_t i;

	start(release_rules, tag_run);
	free(sh("cd b && git checkout -q a-v1.0.0"));
	snprintf(cmd, sizeof(cmd), "cp -a '%s/ac' '%s/ac.orig'", t_fx.ng.root,
		 t_fx.ng.root);
	free(sh(cmd));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/ac' && cp -a '%s/ac.orig' "
		 "'%s/ac'", t_fx.ng.root, t_fx.ng.root, t_fx.ng.root);
	for (i = 0; i < 2; i++) {
		free(sh(cmd));
		cr_assert_gt(rename_wheel_output(paths[i]), 0);
		r = t_fx_ripple("b", fetch, NULL);
		cr_expect_eq(r.status, 1, "%s: %s%s", paths[i], r.out, r.err);
		cr_expect(strstr(r.err, "no ok record") != NULL, "%s", r.err);
		t_result_release(&r);
		s = sh("cd b && find . -path ./.git -prune -o -name '*.whl*' "
		       "-print | wc -l");
		cr_expect_str_eq(s, "0", "nothing written for %s", paths[i]);
		free(s);
	}
}
