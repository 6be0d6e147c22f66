/*
 * Suite engine_plan_remote: the plans' index over a remote cache
 * (engine/plan/remote.h) against a real nginx: which records count as
 * hits (trusted writer, ok status, the node and key asked for), faults as
 * warnings and misses (or errors when required), a server that is down.
 * Skips, saying why, when nginx is not installed.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "cache/remote.h"
#include "engine/plan/remote.h"
#include "tests/support/nginx.h"
#include "tests/support/support.h"

#define KEY1 "00112233445566778899aabbccddeeff"
#define KEY2 "ffeeddccbbaa99887766554433221100"
#define NODE1 "artifact:wheel[python=3.12]"
#define NODE2 "artifact:wheel[python=3.13]"

static struct remote *client;
static struct plan_remote *pr;
static int warnings;
static char last_warning[512];

static void
count_warning(void *payload, const struct error *e)
{
	(void)payload;
	warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", e->msg);
}

static void
setup(void)
{
	t_fx_setup_client();
	warnings = 0;
	last_warning[0] = '\0';
}

static void
teardown(void)
{
	plan_remote_free(pr);
	pr = NULL;
	remote_close(client);
	client = NULL;
	t_fx_teardown_client();
}

TestSuite(engine_plan_remote, .init = setup, .fini = teardown);

/* A client of url and an index over it (required or not). */
static void
open_index(const char *url, int required)
{
	struct remote_options o = REMOTE_OPTIONS_INIT;
	struct plan_remote_options po = { required, count_warning, NULL };
	struct error err;

	o.backoff_ms = 10;
	o.retries = 1;
	error_init(&err);
	cr_assert_eq(remote_open(url, &o, &client, &err), 0, "%s", err.msg);
	cr_assert_eq(plan_remote_new(client, &po, &pr, &err), 0, "%s",
		     err.msg);
}

static void
server(void)
{
	t_fx_serve();
	open_index(t_fx.ng.url, 0);
}

/* Publish a record of `as_node` under (node, key), written by `ref`. */
static void
publish(const char *node, const char *key, const char *as_node,
	const char *ref, enum cache_record_status status)
{
	struct cache_record rec;
	struct cache_run run;
	struct error err;
	char *text = NULL;
	size_t len = 0;

	cache_record_init(&rec);
	memset(&run, 0, sizeof(run));
	rec.run = "run-1";
	rec.node_id = (char *)as_node;
	memcpy(rec.key, key, CACHE_KEY_SIZE);
	rec.status = status;
	run.id = "run-1";
	run.commit = "0123456789abcdef0123456789abcdef01234567";
	run.ref = (char *)ref;
	error_init(&err);
	cr_assert_eq(remote_record_encode(&rec, NULL, &run, "runner-1", &text,
					  &len, &err), 0, "%s", err.msg);
	cr_assert_eq(remote_node_put(client, node, key, NULL, 0, text, len,
				     status == CACHE_RECORD_STATUS_OK ? 0 : 1,
				     "runner-1", &err), 0, "%s", err.msg);
	mem_free(text);
}

static int
lookup(const char *node, const char *key)
{
	struct error err;

	error_init(&err);
	cr_assert_eq(plan_remote_lookup(pr, NULL, &node, &key, 1, &err), 0,
		     "%s", err.msg);
	return plan_remote_find(pr, NULL, key) != NULL;
}

Test(engine_plan_remote, a_trusted_record_is_a_hit_with_its_provenance)
{
	const struct plan_remote_hit *h;
	const char *globs[] = { "refs/heads/main", "refs/tags/*" };
	struct error err;

	server();
	publish(NODE1, KEY1, NODE1, "refs/heads/main", CACHE_RECORD_STATUS_OK);
	error_init(&err);
	cr_assert_eq(plan_remote_trust(pr, globs, 2, NULL, NULL, &err), 0);
	cr_assert(lookup(NODE1, KEY1));
	h = plan_remote_find(pr, NULL, KEY1);
	cr_expect_str_eq(h->node_id, NODE1);
	cr_expect(strstr(h->label, "run run-1, commit 012345678, ref "
			 "refs/heads/main") != NULL, "%s", h->label);
	cr_expect_eq(plan_remote_stats(pr)->hits, 1);
	cr_expect_eq(warnings, 0);
}

/*
 * Records in the trusted domain whose writer is not a trusted ref (an
 * older ripple, a server open to every writer) are never hits, not even
 * for the ref that wrote them: its own records live in its own domain.
 */
Test(engine_plan_remote, records_of_untrusted_refs_are_not_hits)
{
	const char *globs[] = { "refs/heads/main", "refs/heads/release/*" };
	struct error err;

	server();
	publish(NODE1, KEY1, NODE1, "refs/heads/pr/evil",
		CACHE_RECORD_STATUS_OK);
	publish(NODE2, KEY2, NODE2, NULL, CACHE_RECORD_STATUS_OK);
	error_init(&err);
	cr_assert_eq(plan_remote_trust(pr, globs, 2, NULL, "refs/heads/main",
				       &err), 0);
	cr_expect_not(lookup(NODE1, KEY1));
	cr_expect_not(lookup(NODE2, KEY2), "no ref: not trusted");
	cr_expect_eq(plan_remote_stats(pr)->untrusted, 2);
	cr_expect_eq(warnings, 0, "distrust is not a fault");
	plan_remote_free(pr);
	pr = NULL;
	cr_assert_eq(plan_remote_new(client, NULL, &pr, &err), 0);
	cr_assert_eq(plan_remote_trust(pr, globs, 2, NULL,
				       "refs/heads/pr/evil", &err), 0);
	cr_expect_not(lookup(NODE1, KEY1), "not in its own domain");
}

/*
 * A pull request writes its own domain (URL/d/ID/ac/); it reads that
 * first, then the trusted one; main reads only the trusted one.
 */
Test(engine_plan_remote, a_pull_request_reads_its_domain_then_the_trusted)
{
	const char *globs[] = { "refs/heads/main", "refs/tags/*" };
	const char *pr_ref = "refs/pull/7/merge";
	char dom[REMOTE_DOMAIN_SIZE], ac[REMOTE_HASH_SIZE], rel[256];
	const struct plan_remote_hit *h;
	struct error err;

	server();
	error_init(&err);
	/* main's records of both keys, in the trusted domain */
	publish(NODE1, KEY1, NODE1, "refs/heads/main", CACHE_RECORD_STATUS_OK);
	publish(NODE2, KEY2, NODE2, "refs/heads/main", CACHE_RECORD_STATUS_OK);
	/* the pull request rebuilt NODE2: its record in its own domain */
	cr_assert_eq(plan_remote_trust(pr, globs, 2, NULL, pr_ref, &err), 0);
	cr_assert_eq(remote_domain_id(pr_ref, dom, &err), 0);
	cr_expect_str_eq(plan_remote_domain(pr), dom);
	cr_expect_str_eq(remote_domain(client), dom);
	publish(NODE2, KEY2, NODE2, pr_ref, CACHE_RECORD_STATUS_OK);
	cr_assert_eq(remote_ac_key(NODE2, KEY2, ac, &err), 0);
	snprintf(rel, sizeof(rel), "%s/d/%s/ac/%s", t_fx.ng.root, dom, ac);
	cr_expect_eq(access(rel, F_OK), 0, "%s", rel);
	cr_expect(lookup(NODE1, KEY1), "main's record, from the trusted one");
	cr_expect(lookup(NODE2, KEY2), "its own record");
	h = plan_remote_find(pr, NULL, KEY2);
	cr_expect_str_eq(h->rec.run.ref, pr_ref);
	cr_expect(strstr(h->label, "this ref's domain") != NULL, "%s",
		  h->label);
	h = plan_remote_find(pr, NULL, KEY1);
	cr_expect_str_eq(h->rec.run.ref, "refs/heads/main");
	/* each hit's label is its own run's, ref and domain (labels of
	 * one run are shared, never those of another) */
	cr_expect(strstr(h->label, "ref refs/heads/main)") != NULL, "%s",
		  h->label);
	cr_expect(strstr(h->label, "this ref's domain") == NULL, "%s",
		  h->label);
	cr_expect_neq(h->label, plan_remote_find(pr, NULL, KEY2)->label);
	/* main: its own record of KEY2, never the pull request's */
	plan_remote_free(pr);
	pr = NULL;
	cr_assert_eq(plan_remote_new(client, NULL, &pr, &err), 0);
	cr_assert_eq(plan_remote_trust(pr, globs, 2, NULL, "refs/heads/main",
				       &err), 0);
	cr_expect_null(plan_remote_domain(pr));
	cr_expect_null(remote_domain(client));
	cr_expect(lookup(NODE2, KEY2));
	h = plan_remote_find(pr, NULL, KEY2);
	cr_expect_str_eq(h->rec.run.ref, "refs/heads/main");
	cr_expect_eq(warnings, 0);
}

/* Without trusted-refs: the default branch and tags are trusted. */
Test(engine_plan_remote, default_trust_is_the_default_branch_and_tags)
{
	struct error err;

	server();
	error_init(&err);
	cr_assert_eq(plan_remote_trust(pr, NULL, 0, "refs/heads/trunk",
				       "refs/heads/trunk", &err), 0);
	cr_expect_null(plan_remote_domain(pr), "trunk writes the trusted");
	cr_assert_eq(plan_remote_trust(pr, NULL, 0, "refs/heads/trunk",
				       "refs/tags/v1.0", &err), 0);
	cr_expect_null(plan_remote_domain(pr), "so do tags");
	cr_assert_eq(plan_remote_trust(pr, NULL, 0, "refs/heads/trunk",
				       "refs/heads/main", &err), 0);
	cr_expect_not_null(plan_remote_domain(pr), "main is not trunk");
	cr_assert_eq(plan_remote_trust(pr, NULL, 0, NULL, "refs/heads/master",
				       &err), 0);
	cr_expect_null(plan_remote_domain(pr), "no default: main, master");
	cr_expect(plan_remote_may_write(pr));
	cr_assert_eq(plan_remote_trust(pr, NULL, 0, NULL, NULL, &err), 0);
	cr_expect_not(plan_remote_may_write(pr), "no ref: nothing written");
	cr_assert_eq(plan_remote_trust(pr, NULL, 0, NULL, "refs/heads/x",
				       &err), 0);
	cr_expect(plan_remote_may_write(pr));
	plan_remote_refuse_writes(pr);
	cr_expect_not(plan_remote_may_write(pr), "refused: read-only");
}

Test(engine_plan_remote, a_failed_record_is_a_miss)
{
	server();
	publish(NODE1, KEY1, NODE1, "refs/heads/main",
		CACHE_RECORD_STATUS_FAILED);
	cr_expect_not(lookup(NODE1, KEY1));
	cr_expect_eq(warnings, 0);
}

/* An AC entry whose record names another node: a fault, never a hit. */
Test(engine_plan_remote, a_record_of_another_node_is_a_fault)
{
	server();
	publish(NODE1, KEY1, NODE2, "refs/heads/main", CACHE_RECORD_STATUS_OK);
	cr_expect_not(lookup(NODE1, KEY1));
	cr_expect_eq(warnings, 1);
	cr_expect(strstr(last_warning, t_fx.ng.url) != NULL, "%s",
		  last_warning);
	cr_expect(strstr(last_warning, "is of " NODE2) != NULL, "%s",
		  last_warning);
}

Test(engine_plan_remote, a_corrupt_ac_entry_is_a_fault)
{
	char ac[REMOTE_HASH_SIZE], rel[128];
	struct error err;

	server();
	error_init(&err);
	cr_assert_eq(remote_ac_key(NODE1, KEY1, ac, &err), 0);
	snprintf(rel, sizeof(rel), "ac/%s", ac);
	t_write(t_fx.ng.root, rel, "not a protobuf at all \xff\xff\xff");
	cr_expect_not(lookup(NODE1, KEY1));
	cr_expect_eq(warnings, 1, "%s", last_warning);
	cr_expect_eq(plan_remote_stats(pr)->faults, 1);
}

/* Connection refused: one warning, then nothing more is sent. */
Test(engine_plan_remote, a_server_that_is_down_warns_once)
{
	const char *ids[] = { NODE1, NODE2 };
	const char *keys[] = { KEY1, KEY2 };
	struct error err;

	open_index("http://127.0.0.1:1", 0);
	error_init(&err);
	cr_assert_eq(plan_remote_lookup(pr, NULL, ids, keys, 2, &err), 0);
	cr_expect_eq(warnings, 1);
	cr_expect(strstr(last_warning, "http://127.0.0.1:1") != NULL, "%s",
		  last_warning);
	cr_expect_not(plan_remote_up(pr));
	cr_assert_eq(plan_remote_lookup(pr, NULL, ids, keys, 2, &err), 0);
	cr_expect_eq(warnings, 1, "down: nothing asked again");
	cr_expect_null(plan_remote_find(pr, NULL, KEY1));
}

Test(engine_plan_remote, a_required_cache_that_is_down_is_an_error)
{
	const char *id = NODE1, *key = KEY1;
	struct error err;

	open_index("http://127.0.0.1:1", 1);
	error_init(&err);
	cr_expect_eq(plan_remote_lookup(pr, NULL, &id, &key, 1, &err),
		     ERROR_IO);
	cr_expect(strstr(err.msg, "http://127.0.0.1:1") != NULL, "%s",
		  err.msg);
	cr_expect(strstr(err.hint, "--remote-required") != NULL, "%s",
		  err.hint);
	cr_expect_eq(warnings, 0);
}
