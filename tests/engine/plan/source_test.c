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
