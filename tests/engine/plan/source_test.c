/*
 * Suite engine_plan_source: record sources behind one interface
 * (engine/plan/source.h). A history over a local cache and a remote one
 * (a real nginx) hands out records of a key local first, then remote;
 * the remote source is asked, in one batch, only for keys the local cache
 * has no record of; each record's components come from its own source.
 * Skips, saying why, when nginx is not installed.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/strv.h"
#include "cache/cache.h"
#include "cache/remote.h"
#include "engine/plan/history.h"
#include "engine/plan/plan.h"
#include "engine/plan/remote.h"
#include "engine/plan/source.h"
#include "tests/cache/helpers.h"
#include "tests/support/nginx.h"
#include "tests/support/support.h"

#define NODE1 "artifact:a"
#define NODE2 "artifact:b"

TestSuite(engine_plan_source, .init = t_fx_setup_client,
	  .fini = t_fx_teardown_client);

/* Publish a record of node with key, written by main, with a component. */
static void
publish(struct remote *r, const char *node, const char *key)
{
	struct cache_record rec;
	struct cache_manifest m;
	struct cache_run run;
	struct error err;
	char *text = NULL;
	size_t len = 0;

	cache_record_init(&rec);
	memset(&run, 0, sizeof(run));
	memset(&m, 0, sizeof(m));
	rec.run = "remote-run";
	rec.node_id = (char *)node;
	memcpy(rec.key, key, CACHE_KEY_SIZE);
	rec.status = CACHE_RECORD_STATUS_OK;
	run.id = "remote-run";
	run.commit = "0123456789abcdef0123456789abcdef01234567";
	run.ref = "refs/heads/main";
	error_init(&err);
	cr_assert_eq(cache_manifest_add(&m, "input", "src", key, "files",
					&err), 0);
	cr_assert_eq(remote_record_encode(&rec, &m, &run, NULL, &text, &len,
					  &err), 0, "%s", err.msg);
	cr_assert_eq(remote_node_put(r, node, key, NULL, 0, text, len, 0, NULL,
				     &err), 0, "%s", err.msg);
	cache_manifest_release(&m);
	mem_free(text);
}

Test(engine_plan_source, local_first_then_remote_and_only_missing_keys_asked)
{
	char *dir, *path = tc_tmp_cache_path(&dir), k1[33], k2[33];
	const char *ids[2] = { NODE1, NODE2 }, *keys[2];
	const struct plan_history *ph;
	struct cache_record rec;
	struct plan_remote *pr = NULL;
	struct history *h = NULL;
	struct plan_record out;
	struct remote *r = NULL;
	struct cache *c;
	struct error err;

	t_fx_serve();
	error_init(&err);
	c = tc_open(path);
	tc_run(c, "local-run", "c1", 10);
	tc_record(&rec, "local-run", NODE1, 1);
	cr_assert_eq(cache_record_put(c, &rec, NULL, &err), 0, "%s", err.msg);
	cache_record_release(&rec);
	tc_key(1, k1);
	tc_key(2, k2);
	keys[0] = k1;
	keys[1] = k2;
	cr_assert_eq(remote_open(t_fx.ng.url, NULL, &r, &err), 0);
	publish(r, NODE1, k1);
	publish(r, NODE2, k2);
	cr_assert_eq(plan_remote_new(r, NULL, &pr, &err), 0);
	cr_assert_eq(plan_remote_trust(pr, NULL, 0, NULL, "refs/heads/main",
				       &err), 0);
	cr_assert_eq(history_from_run(c, pr, NULL, NULL, NULL, NULL, &h, &err),
		     0, "%s", err.msg);
	ph = history_plan(h);
	cr_assert_not_null(ph->prefetch);
	cr_assert_eq(ph->prefetch(ph->payload, ids, keys, 2, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(plan_remote_stats(pr)->asked, 1, "only the key the "
		     "local cache lacks");
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"GET /ac/", 1), 1);
	/* NODE1: the local record, and nothing after it. */
	cr_assert_eq(ph->record_by_key(ph->payload, k1, 0, &out, &err), 1);
	cr_expect_str_eq(out.run_id, "local-run");
	cr_expect_null(out.remote);
	cr_expect_eq(ph->record_by_key(ph->payload, k1, 1, &out, &err), 0);
	/* NODE2: the remote one, with its label and its own components. */
	cr_assert_eq(ph->record_by_key(ph->payload, k2, 0, &out, &err), 1);
	cr_expect_str_eq(out.run_id, "remote-run");
	cr_assert_not_null(out.remote);
	cr_expect(strstr(out.remote->label, "ref refs/heads/main") != NULL,
		  "%s", out.remote->label);
	cr_assert_eq(ph->record_components(ph->payload, &out, &err), 0);
	cr_expect_eq(out.n_components, 1);
	cr_expect_eq(ph->record_by_key(ph->payload, k2, 1, &out, &err), 0);
	/* Remote only (a release's view): NODE1 from the remote cache. */
	cr_assert_eq(history_remote_only(h, NULL, &err), 0);
	cr_assert_eq(ph->prefetch(ph->payload, ids, keys, 1, &err), 0);
	cr_assert_eq(ph->record_by_key(ph->payload, k1, 0, &out, &err), 1);
	cr_expect_not_null(out.remote);
	history_free(h);
	plan_remote_free(pr);
	remote_close(r);
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

/* A record of NODE1, key seed 1, in run `run` at ms, with `meta`. */
static void
put_with(struct cache *c, const char *run, int64_t ms, const char *meta)
{
	struct cache_record rec;
	struct error err;

	error_init(&err);
	tc_run(c, run, "c1", ms);
	tc_record(&rec, run, NODE1, 1);
	if (meta)
		cr_assert_eq(strv_push(&rec.metadata, meta, &err), 0);
	cr_assert_eq(cache_record_put(c, &rec, NULL, &err), 0, "%s", err.msg);
	cache_record_release(&rec);
}

/* The run ids of the local records of key seed 1 that `domain` reads. */
static void
expect_read(struct cache *c, const char *domain, const char *want)
{
	struct history *h = NULL;
	const struct plan_history *ph;
	struct plan_record out;
	struct error err;
	char got[256] = "", k1[33];
	size_t i;

	error_init(&err);
	tc_key(1, k1);
	cr_assert_eq(history_from_run(c, NULL, NULL, NULL, NULL, NULL, &h,
				      &err), 0, "%s", err.msg);
	cr_assert_eq(history_set_reader(h, domain, &err), 0, "%s", err.msg);
	ph = history_plan(h);
	for (i = 0; ph->record_by_key(ph->payload, k1, i, &out, &err) == 1;
	     i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
			 i ? " " : "", out.run_id);
	cr_expect_str_eq(got, want, "reader '%s'", domain ? domain : "");
	history_free(h);
}

/*
 * Issue 23 (red team): a record a run reused from a pull request's own
 * domain serves that domain only; records built here or reused from the
 * trusted domain serve every reader; an old record whose label names
 * "this ref's domain" but no domain serves no one.
 */
Test(engine_plan_source, local_records_of_a_refs_domain_serve_that_domain)
{
	char *dir, *path = tc_tmp_cache_path(&dir);
	char d1[REMOTE_DOMAIN_SIZE], d2[REMOTE_DOMAIN_SIZE], line[256];
	struct cache *c;
	struct error err;

	error_init(&err);
	c = tc_open(path);
	cr_assert_eq(remote_domain_id("refs/pull/1/merge", d1, &err), 0);
	cr_assert_eq(remote_domain_id("refs/pull/2/merge", d2, &err), 0);
	snprintf(line, sizeof(line), RECORD_SOURCE_DOMAIN_META "%s", d1);
	put_with(c, "built", 10, NULL);
	put_with(c, "trusted", 20, "reused-from-remote=remote cache http://x "
		 "(run r, commit c, ref refs/heads/main)");
	put_with(c, "pr1", 30, line);
	put_with(c, "old", 40, "reused-from-remote=remote cache http://x, "
		 "this ref's domain (run r, commit c, ref refs/pull/1/merge)");
	expect_read(c, NULL, "trusted built");
	expect_read(c, "", "trusted built");
	expect_read(c, d1, "pr1 trusted built");
	expect_read(c, d2, "trusted built");
	{
		struct history *h = NULL;

		cr_assert_eq(history_from_run(c, NULL, NULL, NULL, NULL, NULL,
					      &h, &err), 0);
		cr_expect_eq(history_set_reader(h, "../ac", &err),
			     ERROR_INVALID);
		history_free(h);
	}
	cache_close(c);
	t_rmtree(dir);
	free(dir);
	free(path);
}

/* The reader's domain by policy trusted-refs, without a remote cache. */
Test(engine_plan_source, the_trust_domain_of_a_ref_follows_trusted_refs)
{
	const char *globs[] = { "refs/heads/release-*" };
	char d[REMOTE_DOMAIN_SIZE], want[REMOTE_DOMAIN_SIZE];
	struct error err;

	error_init(&err);
	cr_assert_eq(plan_trust_domain(NULL, 0, NULL, "refs/heads/main", d,
				       &err), 0);
	cr_expect_str_eq(d, "");
	cr_assert_eq(plan_trust_domain(NULL, 0, NULL, "refs/tags/v1", d,
				       &err), 0);
	cr_expect_str_eq(d, "");
	cr_assert_eq(plan_trust_domain(NULL, 0, NULL, NULL, d, &err), 0);
	cr_expect_str_eq(d, "", "no ref: the trusted domain's rules");
	cr_assert_eq(plan_trust_domain(NULL, 0, NULL, "refs/pull/1/merge", d,
				       &err), 0);
	cr_assert_eq(remote_domain_id("refs/pull/1/merge", want, &err), 0);
	cr_expect_str_eq(d, want);
	cr_assert_eq(plan_trust_domain(NULL, 0, "refs/heads/trunk",
				       "refs/heads/main", d, &err), 0);
	cr_expect_neq(d[0], '\0', "main is not trusted when trunk is");
	cr_assert_eq(plan_trust_domain(globs, 1, NULL, "refs/heads/release-2",
				       d, &err), 0);
	cr_expect_str_eq(d, "");
	cr_assert_eq(plan_trust_domain(globs, 1, NULL, "refs/tags/v1", d,
				       &err), 0);
	cr_expect_neq(d[0], '\0', "trusted-refs replaces the default");
}
