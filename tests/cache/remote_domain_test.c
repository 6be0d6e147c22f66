/*
 * Suite cache_remote_domain: trust domain ids (cache/remote_domain.c) are
 * safe URL path segments whatever the ref holds, tell refs apart, and a
 * handle's domain decides where AC entries are written (against a real
 * nginx: URL/ac/ for the trusted domain, URL/d/ID/ac/ for others).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/mem.h"
#include "cache/remote.h"
#include "tests/support/nginx.h"

TestSuite(cache_remote_domain, .init = t_fx_setup_client,
	  .fini = t_fx_teardown_client);

static void
id(const char *ref, char *out)
{
	struct error err;

	error_init(&err);
	cr_assert_eq(remote_domain_id(ref, out, &err), 0, "%s", err.msg);
	cr_assert(remote_domain_valid(out), "'%s' of '%s'", out, ref);
}

Test(cache_remote_domain, an_id_is_a_slug_and_a_hash_of_the_ref)
{
	char d[REMOTE_DOMAIN_SIZE];
	const char *h;

	id("refs/pull/12/merge", d);
	cr_expect_eq(strncmp(d, "pull-12-merge-", 14), 0, "%s", d);
	cr_expect_eq(strlen(d), 14 + REMOTE_DOMAIN_HASH_LEN, "%s", d);
	/* printf 'ripple-domain-v1\0refs/pull/12/merge' | sha256sum */
	h = d + 14;
	cr_expect_eq(strspn(h, "0123456789abcdef"), REMOTE_DOMAIN_HASH_LEN);
	id("refs/heads/Feature/ÜBER_x", d);
	cr_expect_eq(strncmp(d, "heads-feature-ber-x-", 20), 0, "%s", d);
}

Test(cache_remote_domain, the_hash_matches_sha256sum)
{
	char d[REMOTE_DOMAIN_SIZE];
	char sum[128] = "";
	FILE *p = popen("printf 'ripple-domain-v1\\0refs/pull/12/merge' | "
			"sha256sum", "r");

	cr_assert_not_null(p);
	cr_assert_not_null(fgets(sum, sizeof(sum), p));
	pclose(p);
	id("refs/pull/12/merge", d);
	cr_expect_eq(strncmp(d + 14, sum, REMOTE_DOMAIN_HASH_LEN), 0,
		     "%s vs %s", d, sum);
}

/* Refs that slug alike are still apart; hostile names stay one segment. */
Test(cache_remote_domain, hostile_and_similar_refs_make_distinct_safe_ids)
{
	const char *refs[] = {
		"refs/heads/a/b", "refs/heads/a-b", "refs/heads/a_b",
		"refs/heads/A/B", "refs/tags/a/b", "a/b",
		"refs/heads/../../../etc/passwd", "refs/heads/..",
		"refs/heads/%2e%2e%2f", "refs/heads/x\ny", "/", "-", ".",
		"refs/heads/" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	size_t n = sizeof(refs) / sizeof(refs[0]), i, k;
	char d[16][REMOTE_DOMAIN_SIZE];

	for (i = 0; i < n; i++) {
		id(refs[i], d[i]);
		cr_expect_null(strchr(d[i], '/'), "%s", d[i]);
		cr_expect_null(strchr(d[i], '.'), "%s", d[i]);
		cr_expect_neq(d[i][0], '-', "%s", d[i]);
		cr_expect_leq(strlen(d[i]), REMOTE_DOMAIN_SIZE - 1);
		for (k = 0; k < i; k++)
			cr_expect_str_neq(d[i], d[k], "%s and %s", refs[i],
					  refs[k]);
	}
}

Test(cache_remote_domain, bad_ids_and_empty_refs_are_refused)
{
	char d[REMOTE_DOMAIN_SIZE];
	struct error err;

	error_init(&err);
	cr_expect_eq(remote_domain_id("", d, &err), ERROR_INVALID);
	cr_expect_not(remote_domain_valid(""));
	cr_expect_not(remote_domain_valid(".."));
	cr_expect_not(remote_domain_valid("a/b"));
	cr_expect_not(remote_domain_valid("-a"));
	cr_expect_not(remote_domain_valid("A"));
	cr_expect(remote_domain_valid("pull-1-merge-0123"));
}

/*
 * remote_set_domain moves the handle's AC writes and reads, and its CAS
 * writes: a domain's blobs are at d/<id>/cas/, never in the trusted CAS
 * (issue 22: a pull request's credential could put garbage over a blob
 * main uploaded).
 */
Test(cache_remote_domain, writes_go_to_the_handles_domain)
{
	struct remote *r = NULL;
	struct remote_action a;
	struct remote_digest blob;
	unsigned char *bytes = NULL;
	char ac[REMOTE_HASH_SIZE], d[REMOTE_DOMAIN_SIZE];
	char path[1024];
	size_t n = 0;
	struct error err;

	t_fx_serve();
	error_init(&err);
	cr_assert_eq(remote_open(t_fx.ng.url, NULL, &r, &err), 0, "%s",
		     err.msg);
	id("refs/pull/3/merge", d);
	cr_expect_eq(remote_set_domain(r, "../x", &err), ERROR_INVALID);
	cr_assert_eq(remote_set_domain(r, d, &err), 0);
	cr_expect_str_eq(remote_domain(r), d);
	memset(&a, 0, sizeof(a));
	cr_assert_eq(remote_cas_put_buf(r, "{}", 2, &blob, &err), 0, "%s",
		     err.msg);
	a.record = blob;
	cr_assert_eq(remote_action_encode(&a, &bytes, &n, &err), 0);
	cr_assert_eq(remote_ac_key("artifact:x", "00112233445566778899aabbc"
				   "cddeeff", ac, &err), 0);
	cr_assert_eq(remote_ac_put(r, ac, bytes, n, &err), 0, "%s", err.msg);
	snprintf(path, sizeof(path), "%s/d/%s/ac/%s", t_fx.ng.root, d, ac);
	cr_expect_eq(access(path, F_OK), 0, "%s", path);
	snprintf(path, sizeof(path), "%s/ac/%s", t_fx.ng.root, ac);
	cr_expect_neq(access(path, F_OK), 0, "not in the trusted domain");
	snprintf(path, sizeof(path), "%s/d/%s/cas/%s", t_fx.ng.root, d,
		 blob.hash);
	cr_expect_eq(access(path, F_OK), 0, "in the domain's CAS: %s", path);
	snprintf(path, sizeof(path), "%s/cas/%s", t_fx.ng.root, blob.hash);
	cr_expect_neq(access(path, F_OK), 0, "not in the trusted CAS");
	remote_action_release(&a);
	cr_expect_eq(remote_ac_get(r, ac, &a, &err), 1, "%s", err.msg);
	remote_action_release(&a);
	cr_assert_eq(remote_set_domain(r, NULL, &err), 0);
	cr_expect_null(remote_domain(r));
	cr_expect_eq(remote_ac_get(r, ac, &a, &err), 0, "a miss there");
	mem_free(bytes);
	remote_close(r);
}

/* One AC entry put through a client with `header` into `domain`. */
static int
put_entry(const char *url, const char *header, const char *domain,
	  struct error *err)
{
	struct remote_options o = REMOTE_OPTIONS_INIT;
	struct remote *r = NULL;
	struct remote_action a;
	unsigned char *bytes = NULL;
	char ac[REMOTE_HASH_SIZE];
	size_t n = 0;
	int rc;

	o.headers = header;
	cr_assert_eq(remote_open(url, &o, &r, err), 0, "%s", err->msg);
	cr_assert_eq(remote_set_domain(r, domain, err), 0);
	memset(&a, 0, sizeof(a));
	rc = remote_cas_put_buf(r, header ? header : "none", 4, &a.record,
				err);
	if (!rc)
		rc = remote_action_encode(&a, &bytes, &n, err);
	if (!rc)
		rc = remote_ac_key("artifact:x", "00112233445566778899aabbccdd"
				   "eeff", ac, err);
	if (!rc)
		rc = remote_ac_put(r, ac, bytes, n, err);
	mem_free(bytes);
	remote_close(r);
	return rc;
}

/*
 * examples/nginx/ripple-cache.conf: anyone reads; the trusted domain
 * takes writes with main's credential only; the CAS and other domains
 * with a pull request's too; no credential writes nothing. The server
 * refuses (401), ripple reports ERROR_UNSUPPORTED (a refused write).
 */
Test(cache_remote_domain, the_documented_nginx_config_enforces_domains)
{
	struct remote *r = NULL;
	struct remote_action a;
	char d[REMOTE_DOMAIN_SIZE], ac[REMOTE_HASH_SIZE];
	struct error err;

	t_fx_serve_domains();
	error_init(&err);
	id("refs/pull/9/merge", d);
	cr_expect_eq(put_entry(t_fx.ng.url, NULL, NULL, &err),
		     ERROR_UNSUPPORTED,
		     "no credential: %s", err.msg);
	cr_expect(strstr(err.msg, "HTTP 401") != NULL, "%s", err.msg);
	cr_expect(strstr(err.msg, "bWFp") == NULL, "no secret in messages");
	error_init(&err);
	cr_expect_eq(put_entry(t_fx.ng.url, NULL, d, &err), ERROR_UNSUPPORTED);
	error_init(&err);
	cr_expect_eq(put_entry(t_fx.ng.url, T_NGINX_PR_HEADER, NULL, &err),
		     ERROR_UNSUPPORTED, "a PR may not write the trusted");
	/* Not even a blob: its first write, the record blob, is refused. */
	cr_expect(strstr(err.msg, "PUT cas/") != NULL, "%s", err.msg);
	cr_expect(strstr(err.msg, T_NGINX_PR_SECRET) == NULL, "%s", err.msg);
	error_init(&err);
	cr_expect_eq(put_entry(t_fx.ng.url, T_NGINX_PR_HEADER, d, &err), 0,
		     "%s", err.msg);
	cr_expect_eq(put_entry(t_fx.ng.url, T_NGINX_MAIN_HEADER, NULL, &err),
		     0, "%s", err.msg);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"PUT /ac/", 1), 1, "main only");
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"PUT /d/", 3), 3,
		     "PR's blob, AC");
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\" 401 ", 3), 3,
		     "three refusals");
	/* Reads need nothing. */
	cr_assert_eq(remote_open(t_fx.ng.url, NULL, &r, &err), 0);
	cr_assert_eq(remote_ac_key("artifact:x", "00112233445566778899aabbcc"
				   "ddeeff", ac, &err), 0);
	cr_expect_eq(remote_ac_get(r, ac, &a, &err), 1, "%s", err.msg);
	remote_action_release(&a);
	cr_assert_eq(remote_set_domain(r, d, &err), 0);
	cr_expect_eq(remote_ac_get(r, ac, &a, &err), 1, "%s", err.msg);
	remote_action_release(&a);
	remote_close(r);
}

/* A server that forbids writes (403): a refused write, not a fault. */
Test(cache_remote_domain, a_forbidden_write_is_a_refused_write)
{
	char url[128];
	struct error err;

	t_fx_serve();
	error_init(&err);
	snprintf(url, sizeof(url), "%s/readonly", t_fx.ng.url);
	cr_expect_eq(put_entry(url, T_NGINX_PR_HEADER, NULL, &err),
		     ERROR_UNSUPPORTED, "%s", err.msg);
	cr_expect(strstr(err.msg, "HTTP 403") != NULL, "%s", err.msg);
	cr_expect(strstr(err.hint, "RIPPLE_REMOTE_CACHE_HEADER") != NULL,
		  "%s", err.hint);
}

/*
 * Reads name the domain of the entry: its CAS first, then the trusted
 * one (entries an older ripple wrote into a domain, blobs adopted from a
 * trusted entry); a trusted read never looks into a domain's CAS, so a
 * blob only there is a miss for it.
 */
Test(cache_remote_domain, reads_ask_the_domains_cas_then_the_trusted_one)
{
	struct remote *r = NULL;
	struct remote_digest shared, own, both[2];
	struct remote_check c[2];
	unsigned char have[2];
	const char *doms[2];
	char d[REMOTE_DOMAIN_SIZE], needle[200];
	struct error err;

	t_fx_serve();
	error_init(&err);
	cr_assert_eq(remote_open(t_fx.ng.url, NULL, &r, &err), 0, "%s",
		     err.msg);
	id("refs/pull/4/merge", d);
	cr_assert_eq(remote_cas_put_buf(r, "shared\n", 7, &shared, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(remote_set_domain(r, d, &err), 0);
	cr_assert_eq(remote_cas_put_buf(r, "own\n", 4, &own, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(remote_set_domain(r, NULL, &err), 0);
	/* The domain's reader finds both, the second by the fallback. */
	memset(c, 0, sizeof(c));
	c[0].digest = own;
	c[1].digest = shared;
	c[0].domain = c[1].domain = d;
	cr_assert_eq(remote_cas_verify(r, c, 2, &err), 0, "%s", err.msg);
	cr_expect_eq(c[0].result, 1, "%s", c[0].err.msg);
	cr_expect_eq(c[1].result, 1, "%s", c[1].err.msg);
	doms[0] = doms[1] = d;
	both[0] = own;
	both[1] = shared;
	cr_assert_eq(remote_cas_has(r, both, 2, doms, have, &err), 0, "%s",
		     err.msg);
	cr_expect(have[0] && have[1]);
	snprintf(needle, sizeof(needle), "\"GET /d/%s/cas/%s ", d, shared.hash);
	cr_expect_eq(t_nginx_count(&t_fx.ng, needle, 1), 1,
		     "asked there first");
	snprintf(needle, sizeof(needle), "\"GET /cas/%s ", shared.hash);
	cr_expect_eq(t_nginx_count(&t_fx.ng, needle, 1), 1, "then the trusted");
	/* A trusted reader: the domain's blob is not there for it. */
	c[0].domain = c[1].domain = NULL;
	cr_assert_eq(remote_cas_verify(r, c, 2, &err), 0, "%s", err.msg);
	cr_expect_eq(c[0].result, 0, "never read from a domain");
	cr_expect_eq(c[1].result, 1, "%s", c[1].err.msg);
	cr_expect_eq(remote_cas_has(r, &own, 1, NULL, have, &err), 0);
	cr_expect_eq(have[0], 0);
	/* A malformed domain is refused before anything is sent. */
	c[0].domain = "../x";
	cr_expect_eq(remote_cas_verify(r, c, 1, &err), ERROR_INVALID);
	remote_close(r);
}
