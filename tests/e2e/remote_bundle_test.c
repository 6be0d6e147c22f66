/*
 * Suite e2e_remote_bundle: a run's bundle and the source-key memo its
 * records attest (issue 23 item 7) against a real nginx
 * (tests/support/nginx.h). A plan that takes records and source keys
 * from bundles decides exactly what a plan that walks every tree and
 * looks every node up does; a stale bundle (the parent's) costs misses
 * for what changed; a forged memo entry (a record of one node claiming
 * another node's source key, written by a writer of the pull request's
 * domain) costs a walk, never a wrong reuse.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/error.h"
#include "base/mem.h"
#include "cache/remote.h"
#include "tests/support/nginx.h"
#include "tests/support/support.h"

TestSuite(e2e_remote_bundle, .init = t_fx_setup_client,
	  .fini = t_fx_teardown_client, .timeout = 300);

#define PKGS 20		/* past the 16 nodes from which plans use bundles */
#define PR_REF "refs/pull/9/merge"

/*
 * origin with PKGS packages (pkgNN/a.c -> dist/pkgNN.txt), clones. pre,
 * when not NULL, gives each package's command a shell prefix (NULL: none).
 */
static void
origin_pre(const char *const *clones, size_t n, const char *const *pre)
{
	char rules[8192], path[64], text[64], cmd[512];
	size_t i, len;

	len = (size_t)snprintf(rules, sizeof(rules),
			       "version: 1\nsources:\n");
	for (i = 0; i < PKGS; i++)
		len += (size_t)snprintf(rules + len, sizeof(rules) - len,
					"  src%02zu: {paths: [pkg%02zu/**]}\n",
					i, i);
	len += (size_t)snprintf(rules + len, sizeof(rules) - len,
				"artifacts:\n");
	for (i = 0; i < PKGS; i++)
		len += (size_t)snprintf(rules + len, sizeof(rules) - len,
					"  pkg%02zu:\n    inputs: [src%02zu]\n"
					"    command: [sh, -c, '%smkdir -p dist "
					"&& cat pkg%02zu/a.c > "
					"dist/pkg%02zu.txt']\n"
					"    outputs: [dist/pkg%02zu.txt]\n",
					i, i, pre && pre[i] ? pre[i] : "", i,
					i, i);
	free(t_sh_out(t_fx.tmp, "git init -q -b main origin"));
	t_write(t_fx.tmp, "origin/ripple.yml", rules);
	t_write(t_fx.tmp, "origin/.gitignore",
		".ripple/\ndist/\nhold\nheld\ngo\nbrk\nrun.rc\n");
	for (i = 0; i < PKGS; i++) {
		snprintf(path, sizeof(path), "origin/pkg%02zu/a.c", i);
		snprintf(text, sizeof(text), "int p%zu;\n", i);
		t_write(t_fx.tmp, path, text);
	}
	free(t_sh_out(t_fx.tmp, "cd origin && git add -A && git -c "
		      "user.name=t -c user.email=t@example.com commit -qm "
		      "c1"));
	for (i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "git clone -q origin %s", clones[i]);
		free(t_sh_out(t_fx.tmp, cmd));
	}
}

static void
origin(const char *const *clones, size_t n)
{
	origin_pre(clones, n, NULL);
}

/* Commit an edit of pkg00 on origin and move the clones to it. */
static void
edit_pkg00(const char *const *clones, size_t n)
{
	char cmd[512];
	size_t i;

	free(t_sh_out(t_fx.tmp, "cd origin && echo 'int changed;' >> "
		      "pkg00/a.c && git -c user.name=t -c "
		      "user.email=t@example.com commit -qam c2"));
	for (i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "cd %s && git pull -q --ff-only",
			 clones[i]);
		free(t_sh_out(t_fx.tmp, cmd));
	}
}

static char *
head_of(const char *clone)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "git -C %s rev-parse HEAD", clone);
	return t_sh_out(t_fx.tmp, cmd);
}

/* The bundle at `commit` in domain `ref`'s (NULL: trusted): decoded. */
static void
bundle_at(const char *commit, const char *ref, struct remote_bundle *b)
{
	char key[CACHE_KEY_SIZE], ac[REMOTE_HASH_SIZE], dom[REMOTE_DOMAIN_SIZE];
	char path[PATH_MAX];
	struct remote_action a;
	struct error err;
	size_t n;
	unsigned char *p;

	error_init(&err);
	cr_assert_eq(remote_bundle_key(commit, key, &err), 0, "%s", err.msg);
	cr_assert_eq(remote_ac_key(REMOTE_BUNDLE_NODE, key, ac, &err), 0);
	if (ref) {
		cr_assert_eq(remote_domain_id(ref, dom, &err), 0);
		snprintf(path, sizeof(path), "%s/d/%s/ac/%s", t_fx.ng.root,
			 dom, ac);
	} else {
		snprintf(path, sizeof(path), "%s/ac/%s", t_fx.ng.root, ac);
	}
	p = t_read_bytes(path, &n);
	cr_assert_not_null(p, "a bundle at %s: %s", commit, path);
	cr_assert_eq(remote_action_decode(p, n, &a, &err), 0, "%s", err.msg);
	free(p);
	/* Inline in its entry when small, else in its domain's CAS. */
	if (a.record_text) {
		cr_assert_eq(remote_bundle_decode(a.record_text, a.record_len,
						  b, &err), 0, "%s", err.msg);
		remote_action_release(&a);
		return;
	}
	if (ref)
		snprintf(path, sizeof(path), "%s/d/%s/cas/%s", t_fx.ng.root,
			 dom, a.record.hash);
	else
		snprintf(path, sizeof(path), "%s/cas/%s", t_fx.ng.root,
			 a.record.hash);
	p = t_read_bytes(path, &n);
	cr_assert_eq(remote_bundle_decode((const char *)p, n, b, &err), 0,
		     "%s", err.msg);
	free(p);
	remote_action_release(&a);
}

static struct remote_bundle_entry *
entry_of(struct remote_bundle *b, const char *node)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (!strcmp(b->items[i].rec.rec.node_id, node))
			return &b->items[i];
	cr_assert_fail("no record of %s in the bundle", node);
	return NULL;
}

/* Write bundle entries as the bundle of `commit` in ref's domain. */
static void
put_bundle(const struct remote_bundle_entry *items, size_t n,
	   const char *commit, const char *ref)
{
	char key[CACHE_KEY_SIZE], ac[REMOTE_HASH_SIZE], dom[REMOTE_DOMAIN_SIZE];
	char path[PATH_MAX], *text;
	unsigned char *bytes;
	struct remote_action a;
	struct error err;
	size_t len, blen;

	error_init(&err);
	cr_assert_eq(remote_bundle_encode(items, n, commit, &text, &len,
					  &err), 0, "%s", err.msg);
	memset(&a, 0, sizeof(a));
	cr_assert_eq(remote_digest_buf(text, len, &a.record, &err), 0);
	a.record_text = text;	/* inline, as a run writes a small one */
	a.record_len = len;
	cr_assert_eq(remote_action_encode(&a, &bytes, &blen, &err), 0);
	cr_assert_eq(remote_bundle_key(commit, key, &err), 0);
	cr_assert_eq(remote_ac_key(REMOTE_BUNDLE_NODE, key, ac, &err), 0);
	cr_assert_eq(remote_domain_id(ref, dom, &err), 0);
	/* Where a writer of that domain's credential puts it. */
	snprintf(path, sizeof(path), "mkdir -p '%s/d/%s/ac' '%s/d/%s/cas'",
		 t_fx.ng.root, dom, t_fx.ng.root, dom);
	free(t_sh_out(t_fx.tmp, path));
	snprintf(path, sizeof(path), "%s/d/%s/cas/%s", t_fx.ng.root, dom,
		 a.record.hash);
	t_write_bytes(path, text, len);
	snprintf(path, sizeof(path), "%s/d/%s/ac/%s", t_fx.ng.root, dom, ac);
	t_write_bytes(path, bytes, blen);
	mem_free(bytes);
	mem_free(text);
}

/* The decision, key and reason of every node of `plan --json` output. */
static char *
decisions(const char *json)
{
	json_t *doc = json_loads(json, 0, NULL), *n;
	size_t i, len = 0;
	char *out = calloc(1, 65536);

	cr_assert_not_null(doc, "%s", json);
	json_array_foreach(json_object_get(doc, "nodes"), i, n)
		len += (size_t)snprintf(out + len, 65536 - len, "%s=%s %s %s;",
			json_string_value(json_object_get(n, "id")),
			json_string_value(json_object_get(n, "decision")),
			json_string_value(json_object_get(n, "key")),
			json_string_value(json_object_get(n, "reason")));
	json_decref(doc);
	return out;
}

/*
 * plan --reuse any --json (or, with base, plan --base BASE --json) in
 * clone, with or without the remote cache.
 */
static char *
plan_decisions_base(const char *clone, const char *ref, int remote,
		    const char *base)
{
	const char *any[] = { "plan", "--reuse", "any", "--json", "--ref",
			      ref, NULL };
	const char *based[] = { "plan", "--base", base, "--json", "--ref",
				ref, NULL };
	const char *const *argv = base ? based : any;
	struct run_result r;
	char *d;

	if (remote) {
		r = t_fx_ripple(clone, argv, NULL);
	} else {
		/* The reference: every tree walked, every node asked. */
		setenv("RIPPLE_FULL_WALK", "1", 1);
		r = t_fx_ripple(clone, argv, NULL);
		unsetenv("RIPPLE_FULL_WALK");
	}
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	d = decisions(r.out);
	t_result_release(&r);
	return d;
}

static char *
plan_decisions(const char *clone, const char *ref, int remote)
{
	return plan_decisions_base(clone, ref, remote, NULL);
}

/*
 * main publishes at C1 (records and a bundle); pkg00 changes in C2. A
 * fresh clone of C2 plans from the parent's bundle: pkg00 builds, the
 * rest is reused, decisions and keys equal to the full walk's; the same
 * for a pull request's ref reading its (empty) domain, then main's.
 */
Test(e2e_remote_bundle, a_stale_bundle_costs_misses_never_a_decision)
{
	const char *clones[] = { "a", "b" };
	const char *run[] = { "run", NULL };
	struct remote_bundle b;
	struct run_result r;
	char *c1, *x, *y;
	int before;

	t_fx_serve();
	origin(clones, 2);
	r = t_fx_ripple("a", run, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "published 20 nodes") != NULL, "%s", r.err);
	t_result_release(&r);
	c1 = head_of("a");
	bundle_at(c1, NULL, &b);
	cr_expect_eq(b.n, PKGS, "one record per node in main's bundle");
	cr_expect_eq(entry_of(&b, "artifact:pkg00")->sources.n, 2,
		     "a memo id and key for pkg00's one input");
	remote_bundle_release(&b);
	edit_pkg00(clones, 2);
	before = t_nginx_count(&t_fx.ng, "\"GET /ac/", 0);
	x = plan_decisions("b", "refs/heads/main", 1);
	/* The bundles of C2 (none) and C1, and pkg00's changed key: not
	 * one request per node. */
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"GET /ac/", before + 3),
		     before + 3, "three AC requests for 20 nodes");
	y = plan_decisions("b", "refs/heads/main", 0);
	cr_expect_str_eq(x, y, "bundle and memo against the full walk");
	cr_expect(strstr(x, "artifact:pkg00=build") != NULL, "%s", x);
	cr_expect(strstr(x, "artifact:pkg01=reuse") != NULL, "%s", x);
	free(x);
	free(y);
	x = plan_decisions("b", PR_REF, 1);
	y = plan_decisions("b", PR_REF, 0);
	cr_expect_str_eq(x, y, "a pull request's plan: %s", x);
	free(x);
	free(y);
	/* A remote baseline from the bundle (its records have no key
	 * components): the same reasons as the full walk's, pkg00's being
	 * its changed input. */
	x = plan_decisions_base("b", "refs/heads/main", 1, c1);
	y = plan_decisions_base("b", "refs/heads/main", 0, c1);
	cr_expect_str_eq(x, y, "--base: decisions, keys and reasons");
	cr_expect(strstr(x, "artifact:pkg00=build") != NULL &&
		  strstr(x, " input-content-changed;") != NULL, "%s", x);
	free(x);
	free(y);
	free(c1);
}

/*
 * A writer of pull requests' domains (no trusted credential) forges the
 * bundle of C2 in a pull request's domain: pkg01's true record (so it is
 * reused) whose sources claim that pkg00's input at C2 (its memo id,
 * taken from a genuine bundle of C2) has pkg00's old source key. Taken
 * on trust, pkg00's key at C2 would be its C1 key, and main's C1 record
 * of pkg00 (old bytes) would be reused for new sources. The claim is no
 * record of pkg00's: pkg00's key is walked, the memo is found lying, and
 * the plan is made again: pkg00 builds, as in the full walk.
 */
Test(e2e_remote_bundle, a_forged_memo_entry_costs_a_walk_never_a_reuse)
{
	const char *clones[] = { "a", "b", "x" };
	const char *run[] = { "run", NULL };
	const char *scratch[] = { "run", "--ref", "refs/heads/scratch", NULL };
	struct remote_bundle b1, b2;
	struct remote_bundle_entry *old00, *new00, *e01;
	struct run_result r;
	struct error err;
	char *c1, *c2, *x, *y, *ref;

	t_fx_serve();
	origin(clones, 3);
	r = t_fx_ripple("a", run, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	c1 = head_of("a");
	edit_pkg00(clones, 3);
	c2 = head_of("x");
	/* A genuine bundle of C2 (another ref's domain): pkg00's memo id. */
	r = t_fx_ripple("x", scratch, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	bundle_at(c1, NULL, &b1);
	bundle_at(c2, "refs/heads/scratch", &b2);
	old00 = entry_of(&b1, "artifact:pkg00");
	new00 = entry_of(&b2, "artifact:pkg00");
	cr_assert_str_neq(old00->sources.v[0], new00->sources.v[0],
			  "pkg00's memo id moved with its tree");
	/* The forgery: pkg01's record, in the pull request's domain,
	 * claiming (pkg00's memo id at C2 -> pkg00's key at C1). */
	e01 = entry_of(&b1, "artifact:pkg01");
	ref = e01->rec.run.ref;
	e01->rec.run.ref = PR_REF;
	error_init(&err);
	strv_release(&e01->sources);
	strv_init(&e01->sources, 1);
	cr_assert_eq(strv_push(&e01->sources, new00->sources.v[0], &err), 0);
	cr_assert_eq(strv_push(&e01->sources, old00->sources.v[1], &err), 0);
	put_bundle(e01, 1, c2, PR_REF);
	e01->rec.run.ref = ref;
	x = plan_decisions("b", PR_REF, 1);
	y = plan_decisions("b", PR_REF, 0);
	cr_expect(strstr(x, "artifact:pkg00=build") != NULL,
		  "pkg00's old record is not reused for its new sources: %s",
		  x);
	cr_expect_str_eq(x, y, "decisions and keys as the full walk's");
	free(x);
	free(y);
	remote_bundle_release(&b1);
	remote_bundle_release(&b2);
	free(c1);
	free(c2);
}

/* Wait (at most 60 s) until file rel under t_fx.tmp exists. */
static void
wait_for(const char *rel)
{
	char path[PATH_MAX];
	int i;

	snprintf(path, sizeof(path), "%s/%s", t_fx.tmp, rel);
	for (i = 0; i < 1200 && access(path, F_OK); i++)
		usleep(50000);
	cr_assert_eq(access(path, F_OK), 0, "%s never came", rel);
}

/*
 * Two full runs of main at one commit overlap (two CI jobs, a rerun):
 * run A plans first, holds pkg00 while run B runs and publishes the
 * commit's bundle (20 records), then ends with pkg19 failed and
 * publishes its own. A's plan read no bundle; B's records that A did
 * not replace (pkg19's) must stay in the commit's bundle.
 */
Test(e2e_remote_bundle, overlapping_runs_at_one_commit_lose_no_record)
{
	const char *clones[] = { "a", "b" };
	const char *run[] = { "run", NULL };
	const char *pre[PKGS] = { NULL };
	const char *bin = getenv("RIPPLE_BIN");
	char cmd[PATH_MAX + 512], abin[PATH_MAX], *c1, *rc;
	struct remote_bundle b;
	struct run_result r;
	size_t i;

	pre[0] = "if [ -f hold ]; then : > held; while [ ! -f go ]; "
		 "do sleep 0.05; done; fi; ";
	pre[PKGS - 1] = "[ ! -f brk ] && ";
	t_fx_serve();
	origin_pre(clones, 2, pre);
	t_write(t_fx.tmp, "a/hold", "");
	t_write(t_fx.tmp, "a/brk", "");
	cr_assert_not_null(realpath(bin && bin[0] ? bin : "build/ripple",
				    abin));
	snprintf(cmd, sizeof(cmd), "cd a && ('%s' run --remote-cache %s "
		 ">run.log 2>&1; echo $? > run.rc) >/dev/null 2>&1 &", abin,
		 t_fx.ng.url);
	free(t_sh_out(t_fx.tmp, cmd));
	wait_for("a/held");
	r = t_fx_ripple("b", run, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	t_write(t_fx.tmp, "a/go", "");
	wait_for("a/run.rc");
	rc = t_sh_out(t_fx.tmp, "cat a/run.rc");
	cr_expect_str_neq(rc, "0", "run A fails pkg19");
	free(rc);
	c1 = head_of("a");
	bundle_at(c1, NULL, &b);
	for (i = 0; i < b.n; i++)
		if (!strcmp(b.items[i].rec.rec.node_id, "artifact:pkg19"))
			break;
	cr_expect_lt(i, b.n, "run B's record of pkg19 is in the bundle of "
		     "the commit (%zu records)", b.n);
	cr_expect_eq(b.n, PKGS, "one record per node");
	remote_bundle_release(&b);
	free(c1);
}
