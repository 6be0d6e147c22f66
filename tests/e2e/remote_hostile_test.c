/*
 * Suite e2e_remote_hostile: what a hostile cache writer tried after
 * issues 22 and 23 (a red-team pass), against a real nginx on loopback.
 * A producer publishes honestly; its entries are then rewritten as a
 * writer would (the record edited with jansson, the entry re-encoded) and
 * a consumer clone fetches or releases. Each test states what
 * docs/security.md promises; both failed on main before the fix.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "cache/remote.h"
#include "engine/plan/record.h"
#include "graph/digest.h"
#include "tests/support/nginx.h"
#include "tests/support/support.h"

TestSuite(e2e_remote_hostile, .init = t_fx_setup, .fini = t_fx_teardown,
	  .timeout = 240);

static char *
sh(const char *cmd)
{
	return t_sh_out(t_fx.tmp, cmd);
}

/* An entry on the server whose record names `node`, as a writer sees it. */
struct entry {
	char ac[PATH_MAX + 512];
	struct remote_action a;
	json_t *rec;
};

/* Load the nth (0-based) entry of `node` under ROOT/SPACE (ac, or
 * d/ID/ac); 0 when found. */
static int
entry_load_in(struct entry *e, const char *space, const char *node, int nth)
{
	char dir[PATH_MAX];
	struct dirent *de;
	struct error err;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", t_fx.ng.root, space);
	d = opendir(dir);
	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		unsigned char *p;
		size_t n;
		json_t *j;

		if (de->d_name[0] == '.')
			continue;
		snprintf(e->ac, sizeof(e->ac), "%s/%s", dir, de->d_name);
		p = t_read_bytes(e->ac, &n);
		error_init(&err);
		cr_assert_eq(remote_action_decode(p, n, &e->a, &err), 0, "%s",
			     err.msg);
		free(p);
		j = json_loadb(e->a.record_text, e->a.record_len, 0, NULL);
		cr_assert_not_null(j);
		/* A run's bundle (node ripple:bundle) is no node's. */
		if (json_is_string(json_object_get(j, "node")) &&
		    !strcmp(json_string_value(json_object_get(j, "node")),
			    node) && nth-- == 0) {
			e->rec = j;
			closedir(d);
			return 0;
		}
		json_decref(j);
		remote_action_release(&e->a);
	}
	closedir(d);
	return -1;
}

static int
entry_load(struct entry *e, const char *node, int nth)
{
	return entry_load_in(e, "ac", node, nth);
}

/* Write e back: its (edited) outputs, and its (edited) record inline,
 * the record's blob into ROOT/CAS (cas, or d/ID/cas). */
static void
entry_store_in(struct entry *e, const char *cas)
{
	struct remote_action a = e->a;
	unsigned char *bytes = NULL;
	struct error err;
	char *blob = json_dumps(e->rec, JSON_SORT_KEYS | JSON_COMPACT);
	char path[PATH_MAX];
	size_t n = 0;

	error_init(&err);
	cr_assert_eq(remote_digest_buf(blob, strlen(blob), &a.record, &err),
		     0, "%s", err.msg);
	snprintf(path, sizeof(path), "%s/%s/%s", t_fx.ng.root, cas,
		 a.record.hash);
	t_write_bytes(path, blob, strlen(blob));
	a.record_text = blob;
	a.record_len = strlen(blob);
	error_init(&err);
	cr_assert_eq(remote_action_encode(&a, &bytes, &n, &err), 0, "%s",
		     err.msg);
	t_write_bytes(e->ac, bytes, n);
	free(bytes);
	free(blob);
}

static void
entry_store(struct entry *e)
{
	entry_store_in(e, "cas");
}

static void
entry_release(struct entry *e)
{
	remote_action_release(&e->a);
	json_decref(e->rec);
}

static const char site_rules[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [src/**]}\n"
	"artifacts:\n"
	"  docs:\n"
	"    inputs: [src]\n"
	"    command: [sh, -c, 'mkdir -p site && echo doc > site/index.html']\n"
	"    outputs: [\"site/**\"]\n"
	"policy:\n"
	"  trusted-refs: [refs/heads/main]\n";

static void
start(const char *rules, const char *producer_run)
{
	char cmd[1024];
	struct run_result r;
	const char *argv[8] = { NULL };
	char *copy, *tok, *save = NULL;
	size_t n = 0;

	t_fx_serve();
	free(sh("git init -q -b main origin"));
	t_write(t_fx.tmp, "origin/ripple.yml", rules);
	t_write(t_fx.tmp, "origin/.gitignore", ".ripple/\ndist/\nsite/\n");
	t_write(t_fx.tmp, "origin/src/a.c", "int a;\n");
	t_write(t_fx.tmp, "origin/a/x.py", "x = 1\n");
	snprintf(cmd, sizeof(cmd), "cd origin && git add -A && git -c "
		 "user.name=t -c user.email=t@example.com commit -qm init && "
		 "git tag a-v1.0.0 && cd .. && git clone -q origin a && "
		 "git clone -q origin b");
	free(sh(cmd));
	copy = strdup(producer_run);
	for (tok = strtok_r(copy, " ", &save); tok && n < 7;
	     tok = strtok_r(NULL, " ", &save))
		argv[n++] = tok;
	argv[n] = NULL;
	r = t_fx_ripple("a", argv, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	free(copy);
}

/*
 * docs/security.md: "Never ... leave part of a set in place". An entry
 * of a node with a glob output lists `site/index.html`, `site/q` and
 * `site/q/x` (all match the glob site/STARSTAR, the set's output digest is right).
 * Staging site/q/x makes the folder site/q, so site/q cannot be renamed
 * into place; but site/index.html was renamed just before: the fetch
 * fails and leaves the writer's site/index.html behind.
 */
Test(e2e_remote_hostile, a_prefix_folder_entry_leaves_no_file_in_place)
{
	const char *fetch[] = { "fetch", "docs", NULL };
	struct remote_output outs[3];
	struct remote_digest evil, q;
	const char *names[3], *files[3];
	char f0[PATH_MAX], f1[PATH_MAX], *before, *after;
	struct digest od;
	struct entry e;
	struct error err;
	struct run_result r;
	json_t *arts;
	size_t i;

	start(site_rules, "run docs");
	memset(&e, 0, sizeof(e));
	cr_assert_eq(entry_load(&e, "artifact:docs", 0), 0);
	t_fx_cas_put("evil index\n", 11, &evil);
	t_fx_cas_put("q\n", 2, &q);
	memset(outs, 0, sizeof(outs));
	outs[0].path = "site/index.html";
	outs[0].digest = evil;
	outs[1].path = "site/q";
	outs[1].digest = q;
	outs[2].path = "site/q/x";
	outs[2].digest = q;
	snprintf(f0, sizeof(f0), "%s/cas/%s", t_fx.ng.root, evil.hash);
	snprintf(f1, sizeof(f1), "%s/cas/%s", t_fx.ng.root, q.hash);
	arts = json_array();
	for (i = 0; i < 3; i++) {
		names[i] = outs[i].path;
		files[i] = i ? f1 : f0;
		json_array_append_new(arts, json_string(outs[i].path));
	}
	error_init(&err);
	cr_assert_eq(record_output_digest_files(names, files, 3, &od, &err),
		     0, "%s", err.msg);
	json_object_set_new(e.rec, "artifacts", arts);
	json_object_set_new(e.rec, "output_digest", json_string(od.hex));
	/* The outputs are the test's; keep the decoded ones to free. */
	{
		struct remote_output *keep = e.a.outputs;
		size_t kn = e.a.n;

		e.a.outputs = outs;
		e.a.n = 3;
		entry_store(&e);
		e.a.outputs = keep;
		e.a.n = kn;
	}
	before = sh("cd b && find . -path ./.git -prune -o -path ./.ripple "
		    "-prune -o -print | LC_ALL=C sort");
	r = t_fx_ripple("b", fetch, NULL);
	cr_expect_neq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	after = sh("cd b && find . -path ./.git -prune -o -path ./.ripple "
		   "-prune -o -print | LC_ALL=C sort");
	cr_expect_str_eq(after, before, "a failed fetch left files: %s",
			 after);
	free(before);
	free(after);
	entry_release(&e);
}

static const char release_rules[] =
	"version: 1\n"
	"roots:\n"
	"  a: {path: a, tags: \"a-v*\"}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots}\n"
	"    inputs: [root.sources]\n"
	"    command: [sh, -c, 'mkdir -p dist && echo whl > "
	"dist/a-${root.version}-py3-none-any.whl']\n"
	"    outputs: [\"dist/*.whl\"]\n"
	"    version: \"${root.version}\"\n"
	"releases:\n"
	"  lib: {each: {root: roots}, tag: root.tags, artifacts: [wheel]}\n"
	"policy:\n"
	"  trusted-refs: [refs/heads/main, \"refs/tags/*\"]\n";

/*
 * docs/security.md: an entry writes (and names) only its node's declared
 * outputs. A record's artifacts may also hold absolute paths, which the
 * checks skip ("a locator outside: not ours"). A writer adds
 * /home/runner/.ssh/id_rsa (here: a secret file of the test) to the
 * records of a tag's wheel: `release --dry-run` from the remote cache
 * says the tag is releasable and the publish manifest, "what a
 * publishing job would upload", lists the secret file.
 */
Test(e2e_remote_hostile, a_remote_record_cannot_add_a_host_file_to_a_release)
{
	const char *rel[] = { "release", "a-v1.0.0", "--dry-run", "--manifest",
			      NULL, NULL };
	char man[PATH_MAX], secret[PATH_MAX];
	struct entry e;
	struct run_result r;
	int nth, found = 0;
	char *text;

	start(release_rules, "run --tag a-v1.0.0");
	snprintf(secret, sizeof(secret), "%s/secret.txt", t_fx.tmp);
	t_write(t_fx.tmp, "secret.txt", "TOP SECRET\n");
	for (nth = 0; nth < 4; nth++) {
		memset(&e, 0, sizeof(e));
		if (entry_load(&e, "artifact:wheel[root=a]", nth))
			break;
		json_array_append_new(json_object_get(e.rec, "artifacts"),
				      json_string(secret));
		entry_store(&e);
		entry_release(&e);
		found++;
	}
	cr_assert(found > 0);
	free(sh("cd b && git checkout -q a-v1.0.0"));
	snprintf(man, sizeof(man), "%s/manifest.json", t_fx.tmp);
	rel[4] = man;
	r = t_fx_ripple("b", rel, NULL);
	text = t_read(man);
	cr_expect(r.status != 0 || !text || !strstr(text, secret),
		  "a hostile record put a host file into the publish "
		  "manifest:\n%s\n%s", text ? text : "", r.out);
	t_result_release(&r);
	free(text);
}

static const char meta_rules[] =
	"version: 1\n"
	"roots:\n"
	"  a: {path: a, tags: \"a-v*\"}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots}\n"
	"    inputs: [root.sources]\n"
	"    command: [sh, -c, 'mkdir -p dist && echo whl > "
	"dist/a-${root.version}-py3-none-any.whl']\n"
	"    outputs: [\"dist/*.whl\"]\n"
	"    version: \"${root.version}\"\n"
	"    meta: {flavor: plain}\n"
	"releases:\n"
	"  lib:\n"
	"    each: {root: roots}\n"
	"    tag: root.tags\n"
	"    artifacts: [wheel]\n"
	"    require-meta:\n"
	"      - {artifact: wheel, key: flavor, value: plain}\n"
	"policy:\n"
	"  trusted-refs: [refs/heads/main, \"refs/tags/*\"]\n";

/*
 * docs/security.md: remote cache contents with control characters (C0 or
 * C1) are refused. A record's metadata values were not checked: a writer
 * puts a newline, an escape sequence and a C1 CSI into the tag's wheel's
 * `flavor`, and `release --dry-run` prints them raw in the metadata
 * check's problem line (a forged line of the report, a terminal escape).
 */
Test(e2e_remote_hostile, a_remote_record_metadata_holds_no_control_character)
{
	const char *rel[] = { "release", "a-v1.0.0", "--dry-run", NULL };
	const char *evil = "x\ncheck metadata  ok  FORGED\x1b[2J\xc2\x9b" "1m";
	struct entry e;
	struct run_result r;
	int nth, found = 0;

	start(meta_rules, "run --tag a-v1.0.0");
	for (nth = 0; nth < 4; nth++) {
		memset(&e, 0, sizeof(e));
		if (entry_load(&e, "artifact:wheel[root=a]", nth))
			break;
		json_object_set_new(json_object_get(e.rec, "metadata"),
				    "flavor", json_string(evil));
		entry_store(&e);
		entry_release(&e);
		found++;
	}
	cr_assert(found > 0);
	free(sh("cd b && git checkout -q a-v1.0.0"));
	r = t_fx_ripple("b", rel, NULL);
	cr_expect(!strstr(r.out, "FORGED") && !strstr(r.err, "FORGED"),
		  "a remote record's metadata reached the report raw:\n%s%s",
		  r.out, r.err);
	cr_expect(!strchr(r.out, '\x1b') && !strstr(r.out, "\xc2\x9b"),
		  "an escape sequence from a remote record was printed");
	t_result_release(&r);
}

/*
 * The counterpart of the test above: the honest records pass the same
 * metadata check. A require-meta value without `$` was compared with
 * freed memory (release's expand() handed back template_expand's input,
 * a buffer it had just released): `flavor is 'plain', want '<garbage>'`.
 */
Test(e2e_remote_hostile, an_honest_record_passes_a_literal_require_meta)
{
	const char *rel[] = { "release", "a-v1.0.0", "--dry-run", NULL };
	struct run_result r;

	start(meta_rules, "run --tag a-v1.0.0");
	free(sh("cd b && git checkout -q a-v1.0.0"));
	r = t_fx_ripple("b", rel, NULL);
	cr_expect(strstr(r.out, "ok    metadata") != NULL,
		  "the honest metadata failed its check:\n%s%s", r.out,
		  r.err);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
}

/*
 * docs/remote-cache.md: release --dry-run downloads and hashes every blob
 * it vouches for, keeping nothing. A writer replaces the wheel's blob with
 * 1 GiB (a sparse file nginx streams at loopback speed): the release must
 * stop reading at the blob's size, within bounded memory and time, and
 * name the blob as damaged.
 */
Test(e2e_remote_hostile, a_huge_blob_costs_release_no_memory_and_no_time)
{
	struct remote_digest d;
	struct run_result r;
	char path[PATH_MAX], args[512];
	FILE *f;

	start(release_rules, "run --tag a-v1.0.0");
	{
		struct error err;

		error_init(&err);
		cr_assert_eq(remote_digest_buf("whl\n", 4, &d, &err), 0);
	}
	snprintf(path, sizeof(path), "%s/cas/%s", t_fx.ng.root, d.hash);
	f = fopen(path, "r+");
	cr_assert_not_null(f, "no blob %s", path);
	cr_assert_eq(ftruncate(fileno(f), 1L << 30), 0);
	fclose(f);
	free(sh("cd b && git checkout -q a-v1.0.0"));
	snprintf(args, sizeof(args), "release a-v1.0.0 --dry-run "
		 "--remote-cache %s", t_fx.ng.url);
	snprintf(path, sizeof(path), "%s/b", t_fx.tmp);
	r = t_ripple_bounded(path, 256 * 1024, 20, args);
	cr_expect_neq(r.status, 137, "release was killed (memory or time)");
	cr_expect_neq(r.status, 0, "a huge blob was vouched for:\n%s", r.out);
	cr_expect(strstr(r.out, d.hash) != NULL, "the blob is not named:\n"
		  "%s%s", r.out, r.err);
	t_result_release(&r);
}

static const char untrusted_tag_rules[] =
	"version: 1\n"
	"roots:\n"
	"  a: {path: a, tags: \"a-v*\"}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots}\n"
	"    inputs: [root.sources]\n"
	"    command: [sh, -c, 'mkdir -p dist && echo whl > "
	"dist/a-${root.version}-py3-none-any.whl']\n"
	"    outputs: [\"dist/*.whl\"]\n"
	"    version: \"${root.version}\"\n"
	"releases:\n"
	"  lib: {each: {root: roots}, tag: root.tags, artifacts: [wheel]}\n"
	"policy:\n"
	"  trusted-refs: [refs/heads/main]\n";

/*
 * docs/security.md: a pull request's credential writes /d/ (every
 * untrusted ref's domain) and can do nothing to main and tags. With
 * trusted-refs that leave tags out, a tag's run publishes into the tag's
 * own domain, under /d/, and `release TAG --dry-run --ref refs/tags/TAG`
 * (or RIPPLE_REF set for the job) read it: a pull request's credential
 * replaces the tag's wheel there (provenance and commit copied), and the
 * release vouched for the pull request's bytes. A release vouches only
 * for records of a trusted ref.
 */
Test(e2e_remote_hostile, a_release_never_vouches_for_an_untrusted_domain)
{
	const char *rel[] = { "release", "a-v1.0.0", "--dry-run", "--ref",
			      "refs/tags/a-v1.0.0", NULL };
	const char *run[] = { "run", "--tag", "a-v1.0.0", NULL };
	char cmd[2048], space[PATH_MAX], f0[PATH_MAX];
	struct remote_digest evil;
	struct run_result r;
	struct digest od;
	struct entry e;
	struct error err;
	const char *names[1], *files[1];
	char *id;
	int nth, found = 0;

	t_fx_serve_domains();
	free(sh("git init -q -b main origin"));
	t_write(t_fx.tmp, "origin/ripple.yml", untrusted_tag_rules);
	t_write(t_fx.tmp, "origin/.gitignore", ".ripple/\ndist/\n");
	t_write(t_fx.tmp, "origin/a/x.py", "x = 1\n");
	free(sh("cd origin && git add -A && git -c user.name=t -c "
		"user.email=t@example.com commit -qm init && git tag a-v1.0.0 "
		"&& cd .. && git clone -q origin a && git clone -q origin b"));
	setenv("RIPPLE_REMOTE_CACHE_HEADER", T_NGINX_MAIN_HEADER, 1);
	r = t_fx_ripple("a", run, NULL);
	unsetenv("RIPPLE_REMOTE_CACHE_HEADER");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	snprintf(cmd, sizeof(cmd), "ls '%s/d'", t_fx.ng.root);
	id = sh(cmd);
	cr_assert(id && id[0], "the tag's run published nothing under /d/");
	id[strcspn(id, "\n")] = '\0';
	/* The pull request's credential may write there: one real PUT. */
	snprintf(cmd, sizeof(cmd), "printf 'evil wheel\\n' > evil && curl -s "
		 "-o /dev/null -w '%%{http_code}' -X PUT -H '%s' --data-binary "
		 "@evil %s/d/%s/cas/%s", T_NGINX_PR_HEADER, t_fx.ng.url, id,
		 "db4c20ec10e8ffffffffffffffffffffffffffffffffffffffffffffffffffff");
	{
		char *code = sh(cmd);

		cr_assert(strstr(code, "201") || strstr(code, "204"),
			  "the PR credential cannot write /d/: %s", code);
		free(code);
	}
	/* What a pull request then writes, as that PUT would. */
	error_init(&err);
	cr_assert_eq(remote_digest_buf("evil wheel\n", 11, &evil, &err), 0);
	snprintf(f0, sizeof(f0), "d/%s/cas/%s", id, evil.hash);
	t_write(t_fx.ng.root, f0, "evil wheel\n");
	snprintf(f0, sizeof(f0), "%s/d/%s/cas/%s", t_fx.ng.root, id, evil.hash);
	snprintf(space, sizeof(space), "d/%s/ac", id);
	for (nth = 0; nth < 4; nth++) {
		memset(&e, 0, sizeof(e));
		if (entry_load_in(&e, space, "artifact:wheel[root=a]", nth))
			break;
		cr_assert_eq(e.a.n, 1);
		e.a.outputs[0].digest = evil;
		names[0] = e.a.outputs[0].path;
		files[0] = f0;
		cr_assert_eq(record_output_digest_files(names, files, 1, &od,
							&err), 0, "%s", err.msg);
		json_object_set_new(e.rec, "output_digest",
				    json_string(od.hex));
		snprintf(f0, sizeof(f0), "d/%s/cas", id);
		entry_store_in(&e, f0);
		snprintf(f0, sizeof(f0), "%s/d/%s/cas/%s", t_fx.ng.root, id,
			 evil.hash);
		entry_release(&e);
		found++;
	}
	cr_assert(found > 0, "no entry of the wheel under %s", space);
	free(sh("cd b && git checkout -q a-v1.0.0"));
	r = t_fx_ripple("b", rel, NULL);
	cr_expect_neq(r.status, 0, "the release vouched for a pull "
		      "request's bytes:\n%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "policy: trusted-refs") != NULL, "the "
		  "release does not say why:\n%s%s", r.out, r.err);
	t_result_release(&r);
	free(id);
}
