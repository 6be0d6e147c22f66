/*
 * Suite cache_remote: the remote cache client against a real server
 * (Debian's nginx with WebDAV PUT, tests/support/nginx.h; the tests that
 * need it skip when it is not installed), and its encoders and checks
 * without one: blobs and AC entries round trip, protoc decodes what is
 * stored, and every fault (tampered, truncated or longer blob, stopped,
 * failing or slow server, hostile ActionResult) is an error or a miss
 * that names the server, never a file in place.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "cache/remote.h"
#include "tests/support/nginx.h"
#include "tests/support/support.h"

#define KEY1 "00112233445566778899aabbccddeeff"
#define NODE1 "artifact:wheel[python=3.12]"

TestSuite(cache_remote, .init = t_fx_setup_client,
	  .fini = t_fx_teardown_client);

static struct remote *
open_url(const char *url, const struct remote_options *o)
{
	struct remote *r = NULL;
	struct error err;

	error_init(&err);
	cr_assert_eq(remote_open(url, o, &r, &err), 0, "%s", err.msg);
	return r;
}

/* Options for fault tests: quick retries. */
static struct remote_options
quick(void)
{
	struct remote_options o = REMOTE_OPTIONS_INIT;

	o.backoff_ms = 20;
	o.connect_timeout_ms = 2000;
	return o;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* t_fx.tmp/NAME, in a static-free malloc'd string. */
static char *
scratch(const char *name)
{
	size_t n = strlen(t_fx.tmp) + strlen(name) + 2;
	char *p = malloc(n);

	cr_assert(p);
	snprintf(p, n, "%s/%s", t_fx.tmp, name);
	return p;
}

/* Where nginx keeps blob `hash` of space ("cas" or "ac"). */
static char *
stored(const char *space, const char *hash)
{
	size_t n = strlen(t_fx.ng.root) + strlen(space) + strlen(hash) + 3;
	char *p = malloc(n);

	cr_assert(p);
	snprintf(p, n, "%s/%s/%s", t_fx.ng.root, space, hash);
	return p;
}

/* Entries in t_fx.tmp other than "." and "..". */
static int
entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void
put_text(struct remote *r, const char *text, struct remote_digest *d)
{
	struct error err;

	error_init(&err);
	cr_assert_eq(remote_cas_put_buf(r, text, strlen(text), d, &err), 0,
		     "%s", err.msg);
}

Test(cache_remote, cas_blob_round_trips_and_put_is_idempotent)
{
	struct remote *r;
	struct remote_digest d, d2;
	unsigned char present = 0;
	struct error err;
	char *buf = NULL, *dest, *got;
	size_t len = 0;

	t_fx_serve();
	r = open_url(t_fx.ng.url, NULL);
	error_init(&err);
	put_text(r, "hello, cache\n", &d);
	cr_expect_eq(d.size, 13);
	cr_assert_eq(remote_cas_has(r, &d, 1, NULL, &present, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(present, 1);
	cr_assert_eq(remote_cas_get_buf(r, &d, 100, &buf, &len, &err), 1,
		     "%s", err.msg);
	cr_expect_eq(len, 13);
	cr_expect_str_eq(buf, "hello, cache\n");
	mem_free(buf);
	dest = scratch("out.txt");
	cr_assert_eq(remote_cas_get_file(r, &d, dest, 0644, &err), 1, "%s",
		     err.msg);
	got = t_read(dest);
	cr_expect_str_eq(got, "hello, cache\n");
	free(got);
	/* A second put sends the bytes again (one request, no HEAD): a
	 * blob the server claims to hold may be garbage of the right size. */
	put_text(r, "hello, cache\n", &d2);
	cr_expect_str_eq(d2.hash, d.hash);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"PUT /cas/", 2), 2);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"HEAD /cas/", 1), 1);
	/* The empty blob needs no server. */
	cr_assert_eq(remote_cas_put_buf(r, "", 0, &d2, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(remote_cas_get_file(r, &d2, dest, 0644, &err), 1, "%s",
		     err.msg);
	got = t_read(dest);
	cr_expect_str_eq(got, "");
	free(got);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"PUT /cas/", 2), 2);
	free(dest);
	remote_close(r);
}

/*
 * Issue 22 item 4: garbage of the right size PUT at the SHA-256 of a
 * file (by a writer who can predict it) is replaced by the next honest
 * upload of that file, from a buffer or from a file.
 */
Test(cache_remote, a_poisoned_blob_is_overwritten_by_the_next_upload)
{
	const char *text = "the true bytes of a wheel\n";
	struct remote *r;
	struct remote_digest d;
	struct error err;
	char *at, *got, *src, *evil;
	const char *paths[1];

	t_fx_serve();
	r = open_url(t_fx.ng.url, NULL);
	error_init(&err);
	cr_assert_eq(remote_digest_buf(text, strlen(text), &d, &err), 0);
	at = stored("cas", d.hash);
	evil = strdup(text);
	cr_assert(evil);
	evil[0] ^= 1;	/* same size, another digest */
	t_write(t_fx.ng.root, at + strlen(t_fx.ng.root) + 1, evil);
	put_text(r, text, NULL);
	got = t_read(at);
	cr_expect_str_eq(got, text, "the buffer's upload replaced garbage");
	free(got);
	t_write(t_fx.ng.root, at + strlen(t_fx.ng.root) + 1, evil);
	src = scratch("w.whl");
	t_write(t_fx.tmp, "w.whl", text);
	paths[0] = src;
	cr_assert_eq(remote_cas_put_files(r, paths, NULL, 1, NULL, &err), 0,
		     "%s", err.msg);
	got = t_read(at);
	cr_expect_str_eq(got, text, "the file's upload replaced garbage");
	free(got);
	free(evil);
	free(src);
	free(at);
	remote_close(r);
}

Test(cache_remote, digest_matches_sha256sum)
{
	struct run_result res;
	struct remote_digest d;
	struct error err;
	char *path = scratch("f.bin");

	t_write(t_fx.tmp, "f.bin", "some bytes\n");
	error_init(&err);
	cr_assert_eq(remote_digest_file(path, &d, &err), 0, "%s", err.msg);
	cr_expect_eq(d.size, 11);
	res = t_sh(t_fx.tmp, "sha256sum f.bin | cut -c1-64");
	cr_expect_eq(strncmp(res.out, d.hash, 64), 0, "%s vs %s", res.out,
		     d.hash);
	t_result_release(&res);
	cr_expect_eq(remote_digest_file("/nonexistent/x", &d, &err),
		     ERROR_NOT_FOUND);
	free(path);
}

Test(cache_remote, ac_key_is_sha256_of_the_namespaced_node_key)
{
	char key[REMOTE_HASH_SIZE];
	struct run_result res;
	struct error err;

	error_init(&err);
	cr_assert_eq(remote_ac_key(NODE1, KEY1, key, &err), 0, "%s", err.msg);
	res = t_sh(t_fx.tmp, "printf 'ripple-ac-v1\\000" NODE1 "\\000" KEY1
		   "' | sha256sum | cut -c1-64");
	cr_expect_eq(strncmp(res.out, key, 64), 0, "%s vs %s", res.out, key);
	t_result_release(&res);
	cr_expect_eq(remote_ac_key(NODE1, "XYZ", key, &err), ERROR_INVALID);
	error_init(&err);
	cr_expect_eq(remote_ac_key("", KEY1, key, &err), ERROR_INVALID);
}

/* A record of NODE1 with KEY1, a manifest and a run. */
static void
sample_record(char **text, size_t *len)
{
	struct cache_record rec;
	struct cache_manifest m;
	struct cache_run run;
	struct error err;

	error_init(&err);
	cache_record_init(&rec);
	memset(&m, 0, sizeof(m));
	memset(&run, 0, sizeof(run));
	rec.run = "20260101T000000.000Z-000000000001";
	rec.node_id = NODE1;
	memcpy(rec.key, KEY1, CACHE_KEY_SIZE);
	rec.status = CACHE_RECORD_STATUS_OK;
	rec.version = "1.2.3";
	rec.duration_ms = 1500;
	rec.recorded_ms = 1767225600000;
	cr_assert_eq(strv_push(&rec.metadata, "wheel=demo-1.2.3.whl", &err), 0);
	cr_assert_eq(strv_push(&rec.metadata, "abi=cp312", &err), 0);
	cr_assert_eq(strv_push(&rec.artifacts, "dist/demo.whl", &err), 0);
	memcpy(m.key, KEY1, CACHE_KEY_SIZE);
	cr_assert_eq(cache_manifest_add(&m, "file", "src/a.c", "b1", "", &err),
		     0);
	run.id = rec.run;
	run.commit = "0123456789abcdef0123456789abcdef01234567";
	run.ref = "refs/heads/main";
	run.started_ms = 1767225500000;
	cr_assert_eq(remote_record_encode(&rec, &m, &run, "runner-a", text,
					  len, &err), 0, "%s", err.msg);
	strv_release(&rec.metadata);
	strv_release(&rec.artifacts);
	cache_manifest_release(&m);
}

Test(cache_remote, record_blob_round_trips_with_sorted_keys)
{
	struct remote_record rr;
	struct error err;
	char *text;
	size_t len;

	sample_record(&text, &len);
	cr_expect_eq(strlen(text), len);
	cr_expect(strncmp(text, "{\"artifacts\":", 13) == 0, "%s", text);
	cr_expect(strstr(text, "\"metadata\":{\"abi\":\"cp312\",\"wheel\":"));
	cr_expect(strstr(text, "\"format\":\"ripple-record\""));
	cr_expect(strstr(text, "\"provenance\":{\"commit\":\"0123"));
	error_init(&err);
	cr_assert_eq(remote_record_decode(text, len, &rr, &err), 0, "%s",
		     err.msg);
	cr_expect_str_eq(rr.rec.node_id, NODE1);
	cr_expect_str_eq(rr.rec.key, KEY1);
	cr_expect_eq(rr.rec.status, CACHE_RECORD_STATUS_OK);
	cr_expect_str_eq(rr.rec.version, "1.2.3");
	cr_assert_eq(rr.rec.metadata.n, 2);
	cr_expect_str_eq(rr.rec.metadata.v[0], "abi=cp312");
	cr_expect_str_eq(rr.rec.artifacts.v[0], "dist/demo.whl");
	cr_expect_eq(rr.rec.duration_ms, 1500);
	cr_assert_eq(rr.manifest.n, 1);
	cr_expect_str_eq(rr.manifest.items[0].name, "src/a.c");
	cr_expect_str_eq(rr.run.ref, "refs/heads/main");
	cr_expect_null(rr.run.tag);
	cr_expect_str_eq(rr.runner, "runner-a");
	remote_record_release(&rr);
	cr_expect_eq(remote_record_decode("{\"format\":\"x\"}", 14, &rr, &err),
		     ERROR_CORRUPT);
	mem_free(text);
}

/*
 * A record's one-line fields (provenance, node, version) never hold a
 * control byte: a writer's "r1\nforged" run id was reused and printed as
 * two lines (red team: log lines and GitHub "::" commands forged).
 */
Test(cache_remote, control_bytes_in_a_records_fields_are_refused)
{
	static const char *const swaps[][2] = {
		{ "\"ref\":\"refs/heads/main\"",
		  "\"ref\":\"refs/heads/main\\n::error::x\"" },
		{ "\"version\":\"1.2.3\"", "\"version\":\"1.2.3\\u001b[2J\"" },
		{ "\"runner\":\"runner-a\"", "\"runner\":\"runner-a\\r\"" },
		{ "\"ref\":\"refs/heads/main\"",
		  "\"ref\":\"refs/heads/main\\u0085::error::x\"" },
		{ "\"version\":\"1.2.3\"", "\"version\":\"1.2.3\\u009b2J\"" },
	};
	struct remote_record rr;
	struct error err;
	size_t i, len;
	char *text;

	sample_record(&text, &len);
	for (i = 0; i < sizeof(swaps) / sizeof(swaps[0]); i++) {
		char *at = strstr(text, swaps[i][0]), buf[8192];

		cr_assert_not_null(at, "%s in %s", swaps[i][0], text);
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - text), text,
			 swaps[i][1], at + strlen(swaps[i][0]));
		error_init(&err);
		cr_expect_eq(remote_record_decode(buf, strlen(buf), &rr, &err),
			     ERROR_CORRUPT, "%s", buf);
		cr_expect(strstr(err.msg, "control") != NULL, "%s", err.msg);
	}
	mem_free(text);
}

/* Three output files in t_fx.tmp: a.txt, sub/b.bin (executable), empty. */
static void
sample_files(struct remote_upload_file *f, char **paths)
{
	t_write(t_fx.tmp, "a.txt", "alpha\n");
	t_write(t_fx.tmp, "sub/b.bin", "beta beta\n");
	t_write(t_fx.tmp, "empty", "");
	paths[0] = scratch("a.txt");
	paths[1] = scratch("sub/b.bin");
	paths[2] = scratch("empty");
	f[0] = (struct remote_upload_file){ paths[0], "dist/a.txt", 0 };
	f[1] = (struct remote_upload_file){ paths[1], "bin/b", 1 };
	f[2] = (struct remote_upload_file){ paths[2], "dist/empty", 0 };
}

Test(cache_remote, node_round_trips_and_protoc_decodes_the_ac_entry)
{
	struct remote_upload_file f[3];
	struct remote_lookup l[2];
	struct remote_record rr;
	struct run_result res;
	struct remote *r;
	struct error err;
	char *paths[3], *text, *ac_file, ac[REMOTE_HASH_SIZE], cmd[2048];
	size_t len, i;

	t_fx_serve();
	r = open_url(t_fx.ng.url, NULL);
	sample_files(f, paths);
	sample_record(&text, &len);
	error_init(&err);
	cr_assert_eq(remote_node_put(r, NODE1, KEY1, f, 3, text, len, 0,
				     "runner-a", &err), 0, "%s", err.msg);
	memset(l, 0, sizeof(l));
	l[0].node_id = NODE1;
	l[0].key = KEY1;
	l[1].node_id = "other";
	l[1].key = KEY1;
	cr_assert_eq(remote_node_lookup(r, l, 2, &err), 0, "%s", err.msg);
	cr_assert_eq(l[0].found, 1, "%s", l[0].err.msg);
	cr_expect_eq(l[1].found, 0, "%s", l[1].err.msg);
	cr_assert_eq(l[0].action.n, 3);
	cr_expect_str_eq(l[0].action.outputs[0].path, "bin/b");
	cr_expect_eq(l[0].action.outputs[0].executable, 1);
	cr_expect_str_eq(l[0].action.outputs[1].path, "dist/a.txt");
	cr_expect_eq(l[0].action.outputs[1].digest.size, 6);
	cr_expect_str_eq(l[0].action.outputs[2].path, "dist/empty");
	cr_expect_str_eq(l[0].action.worker, "runner-a");
	cr_expect_eq(l[0].record_len, len);
	cr_expect_eq(memcmp(l[0].record, text, len), 0);
	error_init(&err);
	cr_assert_eq(remote_record_decode(l[0].record, l[0].record_len, &rr,
					  &err), 0, "%s", err.msg);
	cr_expect_str_eq(rr.run.commit,
			 "0123456789abcdef0123456789abcdef01234567");
	remote_record_release(&rr);
	/* Fetch an output the way `ripple fetch` would. */
	for (i = 0; i < 3; i++)
		unlink(paths[i]);
	cr_assert_eq(remote_cas_get_file(r, &l[0].action.outputs[0].digest,
					 paths[1], 0755, &err), 1, "%s",
		     err.msg);
	{
		char *b = t_read(paths[1]);
		struct stat st;

		cr_expect_str_eq(b, "beta beta\n");
		free(b);
		cr_assert_eq(stat(paths[1], &st), 0);
		cr_expect_eq(st.st_mode & 0777, 0755);
	}
	/* The stored bytes are an ActionResult to protoc too. */
	cr_assert_eq(remote_ac_key(NODE1, KEY1, ac, &err), 0);
	ac_file = stored("ac", ac);
	if (access("/usr/bin/protoc", X_OK) == 0) {
		snprintf(cmd, sizeof(cmd), "protoc --proto_path='%s' "
			 "--decode=build.bazel.remote.execution.v2.ActionResult"
			 " cache/reapi.proto < '%s'", t_srcdir(), ac_file);
		res = t_sh(t_srcdir(), cmd);
		cr_expect_eq(res.status, 0, "%s", res.err);
		cr_expect(strstr(res.out, "path: \".ripple/record.json\""),
			  "%s", res.out);
		cr_expect(strstr(res.out, "path: \"bin/b\""), "%s", res.out);
		cr_expect(strstr(res.out, "is_executable: true"), "%s",
			  res.out);
		cr_expect(strstr(res.out, l[0].action.outputs[1].digest.hash),
			  "%s", res.out);
		cr_expect(strstr(res.out, "worker: \"runner-a\""), "%s",
			  res.out);
		t_result_release(&res);
	}
	free(ac_file);
	for (i = 0; i < 2; i++)
		remote_lookup_release(&l[i]);
	for (i = 0; i < 3; i++)
		free(paths[i]);
	mem_free(text);
	remote_close(r);
}

Test(cache_remote, node_put_writes_no_ac_entry_when_an_output_fails)
{
	struct remote_upload_file f[3];
	struct remote *r;
	struct error err;
	char *paths[3], *text, *acdir;
	size_t len;

	t_fx_serve();
	r = open_url(t_fx.ng.url, NULL);
	sample_files(f, paths);
	f[1].path = "/nonexistent/file";
	sample_record(&text, &len);
	error_init(&err);
	cr_expect_eq(remote_node_put(r, NODE1, KEY1, f, 2, text, len, 0, NULL,
				     &err), ERROR_NOT_FOUND);
	acdir = stored("ac", "");
	cr_expect_neq(access(acdir, F_OK), 0);
	free(acdir);
	/* A reserved or hostile output name is refused before any upload. */
	f[0].name = ".ripple/record.json";
	error_init(&err);
	cr_expect_eq(remote_node_put(r, NODE1, KEY1, f, 1, text, len, 0, NULL,
				     &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "reserved"), "%s", err.msg);
	f[0].name = "../escape";
	error_init(&err);
	cr_expect_eq(remote_node_put(r, NODE1, KEY1, f, 1, text, len, 0, NULL,
				     &err), ERROR_INVALID);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"PUT /ac/", 0), 0);
	mem_free(text);
	free(paths[0]);
	free(paths[1]);
	free(paths[2]);
	remote_close(r);
}

/* Put a file blob; return its digest and where nginx stores it. */
static char *
stored_blob(struct remote *r, const char *text, struct remote_digest *d)
{
	put_text(r, text, d);
	return stored("cas", d->hash);
}

/* get_file of d must fail with `code`, naming the server and digest, and
 * leave t_fx.tmp as it was. */
static void
expect_refused(struct remote *r, const struct remote_digest *d, int code,
	       const char *why)
{
	struct error err;
	char *dest = scratch("fetched");
	int before = entries(t_fx.tmp);

	error_init(&err);
	cr_expect_eq(remote_cas_get_file(r, d, dest, 0644, &err), code, "%s",
		     err.msg);
	cr_expect(strstr(err.msg, t_fx.ng.url), "%s", err.msg);
	cr_expect(strstr(err.msg, d->hash), "%s", err.msg);
	cr_expect(strstr(err.msg, why), "%s", err.msg);
	cr_expect_neq(access(dest, F_OK), 0, "a refused blob is in place");
	cr_expect_eq(entries(t_fx.tmp), before, "a temp file was left behind");
	free(dest);
}

Test(cache_remote, tampered_truncated_or_longer_blob_is_refused)
{
	struct remote *r;
	struct remote_digest d;
	char *path, *big;
	FILE *f;

	t_fx_serve();
	r = open_url(t_fx.ng.url, NULL);
	path = stored_blob(r, "the real wheel bytes\n", &d);
	t_write(t_fx.ng.root, "cas/x", "");
	/* Same size, one byte changed. */
	f = fopen(path, "r+");
	cr_assert(f);
	fputc('T', f);
	fclose(f);
	expect_refused(r, &d, ERROR_CORRUPT, "digest mismatch");
	/* Shorter. */
	cr_assert_eq(truncate(path, 5), 0);
	expect_refused(r, &d, ERROR_CORRUPT, "truncated");
	/* Longer: cut off at the expected size. */
	big = malloc(1 << 20);
	cr_assert(big);
	memset(big, 'x', 1 << 20);
	f = fopen(path, "w");
	cr_assert(f);
	fwrite(big, 1, 1 << 20, f);
	fclose(f);
	expect_refused(r, &d, ERROR_CORRUPT, "longer than");
	/* The same checks hold for blobs read into memory. */
	{
		struct error err;
		char *buf = NULL;
		size_t len;

		error_init(&err);
		cr_expect_eq(remote_cas_get_buf(r, &d, 1 << 20, &buf, &len,
						&err), ERROR_CORRUPT);
		cr_expect_null(buf);
	}
	free(big);
	free(path);
	remote_close(r);
}

Test(cache_remote, missing_blob_and_entry_are_misses)
{
	struct remote *r;
	struct remote_digest d;
	struct remote_action a;
	struct remote_lookup l;
	struct error err;
	unsigned char present = 1;
	char *dest = scratch("never"), *buf = NULL;
	size_t len;

	t_fx_serve();
	r = open_url(t_fx.ng.url, NULL);
	error_init(&err);
	cr_assert_eq(remote_digest_buf("absent", 6, &d, &err), 0);
	cr_expect_eq(remote_cas_has(r, &d, 1, NULL, &present, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(present, 0);
	cr_expect_eq(remote_cas_get_file(r, &d, dest, 0644, &err), 0, "%s",
		     err.msg);
	cr_expect_neq(access(dest, F_OK), 0);
	cr_expect_eq(entries(t_fx.tmp), 0);
	cr_expect_eq(remote_cas_get_buf(r, &d, 100, &buf, &len, &err), 0);
	cr_expect_eq(remote_ac_get(r, d.hash, &a, &err), 0, "%s", err.msg);
	memset(&l, 0, sizeof(l));
	l.node_id = NODE1;
	l.key = KEY1;
	cr_expect_eq(remote_node_lookup(r, &l, 1, &err), 0);
	cr_expect_eq(l.found, 0, "%s", l.err.msg);
	cr_expect_eq(err.code, 0, "%s", err.msg);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\" 404 ", 5), 5);
	free(dest);
	remote_close(r);
}

Test(cache_remote, stopped_server_is_a_quick_clear_error)
{
	struct remote_options o = quick();
	struct remote *r;
	struct remote_digest d;
	struct remote_lookup l;
	unsigned char present;
	struct error err;
	double t0;
	char *dest;

	t_fx_serve();
	t_nginx_stop(&t_fx.ng);
	r = open_url(t_fx.ng.url, &o);
	error_init(&err);
	cr_assert_eq(remote_digest_buf("x", 1, &d, &err), 0);
	t0 = now_s();
	cr_expect_eq(remote_cas_has(r, &d, 1, NULL, &present, &err), ERROR_IO);
	cr_expect_lt(now_s() - t0, 5.0);
	cr_expect(strstr(err.msg, t_fx.ng.url), "%s", err.msg);
	cr_expect(strstr(err.msg, "HEAD cas/"), "%s", err.msg);
	cr_expect(strstr(err.msg, "3 attempts"), "%s", err.msg);
	cr_log_info("stopped server: %s (%.3f s)", err.msg, now_s() - t0);
	dest = scratch("fetched");
	error_init(&err);
	cr_expect_eq(remote_cas_get_file(r, &d, dest, 0644, &err), ERROR_IO);
	cr_expect_eq(entries(t_fx.tmp), 0);
	memset(&l, 0, sizeof(l));
	l.node_id = NODE1;
	l.key = KEY1;
	error_init(&err);
	cr_expect_eq(remote_node_lookup(r, &l, 1, &err), 0);
	cr_expect_eq(l.found, ERROR_IO);
	cr_expect(strstr(l.err.msg, "GET ac/"), "%s", l.err.msg);
	free(dest);
	remote_close(r);
}

Test(cache_remote, server_error_is_retried_then_reported)
{
	struct remote_options o = quick();
	struct remote *r;
	struct remote_digest d;
	struct error err;
	char url[128], *buf = NULL;
	size_t len;

	t_fx_serve();
	snprintf(url, sizeof(url), "%s/broken/", t_fx.ng.url);
	r = open_url(url, &o);
	url[strlen(url) - 1] = '\0';
	cr_expect_str_eq(remote_url(r), url);
	error_init(&err);
	cr_assert_eq(remote_digest_buf("x", 1, &d, &err), 0);
	cr_expect_eq(remote_cas_get_buf(r, &d, 10, &buf, &len, &err),
		     ERROR_IO);
	cr_expect(strstr(err.msg, "HTTP 500 (3 attempts)"), "%s", err.msg);
	cr_expect(strstr(err.msg, "/broken: GET cas/"), "%s", err.msg);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "GET /broken/cas/", 3), 3);
	error_init(&err);
	cr_expect_eq(remote_cas_put_buf(r, "x", 1, NULL, &err), ERROR_IO);
	cr_expect(strstr(err.msg, "PUT cas/"), "%s", err.msg);
	remote_close(r);
}

Test(cache_remote, slow_server_times_out)
{
	struct remote_options o = quick();
	struct remote *r, *slow;
	struct remote_digest d;
	struct error err;
	char url[128], *big, *buf = NULL;
	size_t len, n = 20000;
	double t0;

	t_fx_serve();
	r = open_url(t_fx.ng.url, NULL);
	big = malloc(n);
	cr_assert(big);
	memset(big, 's', n);
	error_init(&err);
	cr_assert_eq(remote_cas_put_buf(r, big, n, &d, &err), 0, "%s",
		     err.msg);
	o.low_speed_limit = 1000;
	o.low_speed_time_s = 1;
	o.retries = 0;
	snprintf(url, sizeof(url), "%s/slow", t_fx.ng.url);
	slow = open_url(url, &o);
	t0 = now_s();
	cr_expect_eq(remote_cas_get_buf(slow, &d, n, &buf, &len, &err),
		     ERROR_IO);
	cr_expect_lt(now_s() - t0, 5.0);
	cr_expect(strstr(err.msg, "too slow"), "%s", err.msg);
	cr_log_info("slow server: %s (%.3f s)", err.msg, now_s() - t0);
	free(big);
	remote_close(slow);
	remote_close(r);
}

/* Protobuf wire format by hand, to build what our encoder refuses. */
static size_t
pb_varint(unsigned char *p, unsigned long long v)
{
	size_t n = 0;

	do {
		p[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static size_t
pb_bytes(unsigned char *p, unsigned field, const void *data, size_t len)
{
	size_t n = pb_varint(p, (field << 3) | 2);

	n += pb_varint(p + n, len);
	memcpy(p + n, data, len);
	return n + len;
}

/* An OutputFile {path, digest {hash, size}}. */
static size_t
pb_output(unsigned char *p, const char *path, size_t plen, const char *hash)
{
	unsigned char dig[128], file[8192];
	size_t dn, fn;

	dn = pb_bytes(dig, 1, hash, strlen(hash));
	dn += pb_varint(dig + dn, 2 << 3);
	dn += pb_varint(dig + dn, 1);
	fn = pb_bytes(file, 1, path, plen);
	fn += pb_bytes(file + fn, 2, dig, dn);
	return pb_bytes(p, 2, file, fn);
}

/* An ActionResult with the record and one output at path (plen bytes). */
static size_t
hostile(unsigned char *p, const char *path, size_t plen)
{
	static const char h[] = "e3b0c44298fc1c149afbf4c8996fb924"
				"27ae41e4649b934ca495991b7852b855";
	size_t n = pb_output(p, REMOTE_RECORD_PATH,
			     strlen(REMOTE_RECORD_PATH), h);

	return n + pb_output(p + n, path, plen, h);
}

Test(cache_remote, hostile_action_result_paths_are_refused)
{
	static const struct { const char *path; size_t len; const char *why; }
	cases[] = {
		{ "../x", 4, "'..'" },
		{ "/etc/passwd", 11, "absolute" },
		{ "a/../../x", 9, "'..'" },
		{ "a\0b", 3, "NUL" },
		{ "", 0, "empty" },
		{ "a//b", 4, "empty or '.'" },
		{ "./a", 3, "empty or '.'" },
		{ "a\\..\\b", 6, "backslash" },
		{ ".ripple/other", 13, "reserved" },
		{ "dir/", 4, "ends in '/'" },
		{ "dist/a\nb", 8, "control character" },
		{ "dist/\033[2Jx", 10, "control character" },
		{ "dist/\177", 6, "control character" },
		/* C1 controls, UTF-8 encoded: U+0085 (NEL, a line break to
		 * some readers) and U+009B (CSI, an escape to a terminal) */
		{ "dist/a\xc2\x85" "b", 9, "control character" },
		{ "dist/\xc2\x9b" "2Jx", 10, "control character" },
		/* not UTF-8: a stray byte, an overlong '/', a cut sequence */
		{ "dist/\xffx", 7, "not UTF-8" },
		{ "dist/\xc0\xafx", 8, "not UTF-8" },
		{ "dist/x\xe2\x82", 8, "not UTF-8" },
		{ ".git/hooks/post-checkout", 24, "'.git'" },
		{ "sub/.GiT/config", 15, "'.git'" },
	};
	unsigned char bytes[16384];
	struct remote_action a;
	struct error err;
	size_t i, n;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = hostile(bytes, cases[i].path, cases[i].len);
		error_init(&err);
		cr_expect_eq(remote_action_decode(bytes, n, &a, &err),
			     ERROR_CORRUPT, "%s", cases[i].path);
		cr_expect(strstr(err.msg, cases[i].why), "%s: %s",
			  cases[i].path, err.msg);
		cr_expect_eq(a.n, 0);
	}
	/* A good one decodes; no record, two records, junk do not. */
	n = hostile(bytes, "ok/file", 7);
	error_init(&err);
	cr_assert_eq(remote_action_decode(bytes, n, &a, &err), 0, "%s",
		     err.msg);
	cr_expect_str_eq(a.outputs[0].path, "ok/file");
	remote_action_release(&a);
	n = hostile(bytes, REMOTE_RECORD_PATH, strlen(REMOTE_RECORD_PATH));
	cr_expect_eq(remote_action_decode(bytes, n, &a, &err), ERROR_CORRUPT);
	n = pb_output(bytes, "x", 1, "e3b0c44298fc1c149afbf4c8996fb924"
		      "27ae41e4649b934ca495991b7852b855");
	error_init(&err);
	cr_expect_eq(remote_action_decode(bytes, n, &a, &err), ERROR_CORRUPT);
	cr_expect(strstr(err.msg, "0 record"), "%s", err.msg);
	n = pb_output(bytes, REMOTE_RECORD_PATH, strlen(REMOTE_RECORD_PATH),
		      "E3B0C44298FC1C149AFBF4C8996FB924"
		      "27AE41E4649B934CA495991B7852B855");
	error_init(&err);
	cr_expect_eq(remote_action_decode(bytes, n, &a, &err), ERROR_CORRUPT);
	cr_expect(strstr(err.msg, "malformed digest"), "%s", err.msg);
	error_init(&err);
	cr_expect_eq(remote_action_decode("\xff\xff\xff", 3, &a, &err),
		     ERROR_CORRUPT);
}

/* An OutputFile with no path field at all: protobuf-c gives NULL, 0. */
Test(cache_remote, an_output_without_a_path_is_refused)
{
	static const char h[] = "e3b0c44298fc1c149afbf4c8996fb924"
				"27ae41e4649b934ca495991b7852b855";
	unsigned char bytes[512], dig[128], file[256];
	struct remote_action a;
	struct error err;
	size_t n, dn, fn;

	n = pb_output(bytes, REMOTE_RECORD_PATH, strlen(REMOTE_RECORD_PATH),
		      h);
	dn = pb_bytes(dig, 1, h, strlen(h));
	fn = pb_bytes(file, 2, dig, dn);
	n += pb_bytes(bytes + n, 2, file, fn);
	error_init(&err);
	cr_expect_eq(remote_action_decode(bytes, n, &a, &err), ERROR_CORRUPT);
	cr_expect_str_eq(err.msg, "ActionResult refused: empty output path");
}

Test(cache_remote, hostile_entry_from_the_server_is_a_clear_error)
{
	unsigned char bytes[16384];
	struct remote_lookup l;
	struct remote *r;
	struct error err;
	char ac[REMOTE_HASH_SIZE];
	size_t n;

	t_fx_serve();
	r = open_url(t_fx.ng.url, NULL);
	error_init(&err);
	cr_assert_eq(remote_ac_key(NODE1, KEY1, ac, &err), 0);
	n = hostile(bytes, "../../etc/passwd", 16);
	cr_assert_eq(remote_ac_put(r, ac, bytes, n, &err), 0, "%s", err.msg);
	memset(&l, 0, sizeof(l));
	l.node_id = NODE1;
	l.key = KEY1;
	cr_assert_eq(remote_node_lookup(r, &l, 1, &err), 0, "%s", err.msg);
	cr_expect_eq(l.found, ERROR_CORRUPT);
	cr_expect(strstr(l.err.msg, t_fx.ng.url), "%s", l.err.msg);
	cr_expect(strstr(l.err.msg, "'..'"), "%s", l.err.msg);
	cr_log_info("hostile entry: %s", l.err.msg);
	remote_lookup_release(&l);
	remote_close(r);
}

/*
 * Rewrite the AC entry of node_id/key as entries were before records went
 * inline (the record only in the CAS), as an older ripple wrote it.
 */
static void
old_format_entry(struct remote *r, const char *node_id, const char *key)
{
	struct remote_lookup l;
	unsigned char *bytes = NULL;
	char ac[REMOTE_HASH_SIZE];
	struct error err;
	size_t n = 0;

	memset(&l, 0, sizeof(l));
	l.node_id = node_id;
	l.key = key;
	error_init(&err);
	cr_assert_eq(remote_node_lookup(r, &l, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(l.found, 1, "%s", l.err.msg);
	cr_assert_null(l.action.record_text);
	cr_assert_eq(remote_action_encode(&l.action, &bytes, &n, &err), 0);
	cr_assert_eq(remote_ac_key(node_id, key, ac, &err), 0);
	cr_assert_eq(remote_ac_put(r, ac, bytes, n, &err), 0, "%s", err.msg);
	mem_free(bytes);
	remote_lookup_release(&l);
}

/*
 * A hit is one request: the record travels inside the AC entry (REAPI's
 * OutputFile.contents), checked against its digest; tampered contents
 * are refused; an older entry without them is read through the CAS.
 */
Test(cache_remote, a_lookup_hit_is_one_request_with_the_record_inline)
{
	struct remote_upload_file f[3];
	struct remote_lookup l;
	struct remote *r;
	struct error err;
	char *paths[3], *text, *entry, ac[REMOTE_HASH_SIZE], *at;
	size_t len, n;
	FILE *fp;

	t_fx_serve();
	r = open_url(t_fx.ng.url, NULL);
	sample_files(f, paths);
	sample_record(&text, &len);
	error_init(&err);
	cr_assert_eq(remote_node_put(r, NODE1, KEY1, f, 3, text, len, 0, NULL,
				     &err), 0, "%s", err.msg);
	memset(&l, 0, sizeof(l));
	l.node_id = NODE1;
	l.key = KEY1;
	cr_assert_eq(remote_node_lookup(r, &l, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(l.found, 1, "%s", l.err.msg);
	cr_expect_eq(l.record_len, len);
	cr_expect_eq(memcmp(l.record, text, len), 0);
	remote_lookup_release(&l);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"GET /ac/", 1), 1);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"GET /cas/", 0), 0,
		     "no second request for the record");
	/* One byte of the inline record changed: refused, naming it. */
	cr_assert_eq(remote_ac_key(NODE1, KEY1, ac, &err), 0);
	at = stored("ac", ac);
	entry = t_read(at);
	cr_assert_not_null(entry);
	fp = fopen(at, "rb");
	cr_assert(fp);
	{
		char buf[65536];

		n = fread(buf, 1, sizeof(buf), fp);
		fclose(fp);
		cr_assert(n > len);
		{
			size_t k;

			for (k = 0; k + len <= n; k++)
				if (!memcmp(buf + k, text, len))
					break;
			cr_assert(k + len <= n, "the record is inline");
			buf[k + len / 2] ^= 1;
		}
		fp = fopen(at, "wb");
		cr_assert(fp);
		cr_assert_eq(fwrite(buf, 1, n, fp), n);
		fclose(fp);
	}
	cr_assert_eq(remote_node_lookup(r, &l, 1, &err), 0, "%s", err.msg);
	cr_expect_eq(l.found, ERROR_CORRUPT, "%s", l.err.msg);
	cr_expect(strstr(l.err.msg, "inline record"), "%s", l.err.msg);
	remote_lookup_release(&l);
	free(entry);
	free(at);
	/* An entry as older ripples wrote it: two requests, same record. */
	cr_assert_eq(remote_node_put(r, NODE1, KEY1, f, 3, text, len, 0, NULL,
				     &err), 0, "%s", err.msg);
	old_format_entry(r, NODE1, KEY1);
	cr_assert_eq(remote_node_lookup(r, &l, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(l.found, 1, "%s", l.err.msg);
	cr_expect_eq(memcmp(l.record, text, len), 0);
	remote_lookup_release(&l);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"GET /cas/", 1), 1);
	free(paths[0]);
	free(paths[1]);
	free(paths[2]);
	mem_free(text);
	remote_close(r);
}

/* Older entries (the record only in the CAS): a tampered record blob. */
Test(cache_remote, lookup_refuses_a_tampered_record_blob)
{
	struct remote_upload_file f[3];
	struct remote_lookup l;
	struct remote *r;
	struct error err;
	char *paths[3], *text, *blob;
	struct remote_digest d;
	size_t len;
	FILE *fp;

	t_fx_serve();
	r = open_url(t_fx.ng.url, NULL);
	sample_files(f, paths);
	sample_record(&text, &len);
	error_init(&err);
	cr_assert_eq(remote_node_put(r, NODE1, KEY1, f, 3, text, len, 0, NULL,
				     &err), 0, "%s", err.msg);
	old_format_entry(r, NODE1, KEY1);
	cr_assert_eq(remote_digest_buf(text, len, &d, &err), 0);
	blob = stored("cas", d.hash);
	fp = fopen(blob, "r+");
	cr_assert(fp);
	fputc(' ', fp);
	fclose(fp);
	memset(&l, 0, sizeof(l));
	l.node_id = NODE1;
	l.key = KEY1;
	cr_assert_eq(remote_node_lookup(r, &l, 1, &err), 0, "%s", err.msg);
	cr_expect_eq(l.found, ERROR_CORRUPT, "%s", l.err.msg);
	cr_expect(strstr(l.err.msg, d.hash), "%s", l.err.msg);
	cr_expect_null(l.record);
	/* An evicted record blob is a miss. */
	unlink(blob);
	cr_assert_eq(remote_node_lookup(r, &l, 1, &err), 0, "%s", err.msg);
	cr_expect_eq(l.found, 0, "%s", l.err.msg);
	free(blob);
	free(paths[0]);
	free(paths[1]);
	free(paths[2]);
	mem_free(text);
	remote_close(r);
}

Test(cache_remote, has_checks_a_batch_of_50_in_parallel)
{
	struct remote_digest d[50];
	unsigned char present[50];
	struct remote *r;
	struct error err;
	char text[32];
	double t0;
	size_t i;

	t_fx_serve();
	r = open_url(t_fx.ng.url, NULL);
	error_init(&err);
	for (i = 0; i < 50; i++) {
		snprintf(text, sizeof(text), "blob %zu", i);
		if (i % 2 == 0)
			put_text(r, text, &d[i]);
		else
			cr_assert_eq(remote_digest_buf(text, strlen(text),
						       &d[i], &err), 0);
	}
	t0 = now_s();
	cr_assert_eq(remote_cas_has(r, d, 50, NULL, present, &err), 0, "%s",
		     err.msg);
	cr_log_info("50 HEADs: %.1f ms", (now_s() - t0) * 1000);
	for (i = 0; i < 50; i++)
		cr_expect_eq(present[i], i % 2 == 0, "blob %zu", i);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"HEAD /cas/", 50), 50);
	remote_close(r);
}

/* Peak resident memory of this process, KiB. */
static long
peak_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

Test(cache_remote, large_blob_streams_without_being_held_in_memory)
{
	const size_t mb = 20, chunk = 1 << 20;
	struct remote_digest d, back;
	const char *paths[1];
	struct remote *r;
	struct error err;
	char *src = scratch("big.bin"), *dest = scratch("big.out"), *buf;
	long before, grew;
	double t0, up, down;
	size_t i;
	FILE *f;

	t_fx_serve();
	r = open_url(t_fx.ng.url, NULL);
	buf = malloc(chunk);
	cr_assert(buf);
	f = fopen(src, "wb");
	cr_assert(f);
	for (i = 0; i < mb; i++) {
		memset(buf, (int)('a' + i), chunk);
		cr_assert_eq(fwrite(buf, 1, chunk, f), chunk);
	}
	fclose(f);
	free(buf);
	before = peak_kib();
	error_init(&err);
	paths[0] = src;
	t0 = now_s();
	cr_assert_eq(remote_cas_put_files(r, paths, NULL, 1, &d, &err), 0,
		     "%s", err.msg);
	up = now_s() - t0;
	cr_expect_eq(d.size, (int64_t)(mb * chunk));
	t0 = now_s();
	cr_assert_eq(remote_cas_get_file(r, &d, dest, 0644, &err), 1, "%s",
		     err.msg);
	down = now_s() - t0;
	grew = peak_kib() - before;
	cr_assert_eq(remote_digest_file(dest, &back, &err), 0);
	cr_expect_str_eq(back.hash, d.hash);
	cr_expect_lt(grew, 4096, "peak memory grew by %ld KiB", grew);
	cr_log_info("20 MB: put %.0f ms, get %.0f ms, peak memory +%ld KiB",
		    up * 1000, down * 1000, grew);
	free(src);
	free(dest);
	remote_close(r);
}

Test(cache_remote, open_checks_url_and_headers_without_leaking_secrets)
{
	struct remote_options o = REMOTE_OPTIONS_INIT;
	struct remote *r = NULL;
	struct error err;

	error_init(&err);
	cr_expect_eq(remote_open("http://user:s3cret@host/x", NULL, &r, &err),
		     ERROR_INVALID);
	cr_expect_null(strstr(err.msg, "s3cret"), "%s", err.msg);
	cr_expect_null(r);
	error_init(&err);
	cr_expect_eq(remote_open("ftp://host/x", NULL, &r, &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "not http or https"), "%s", err.msg);
	error_init(&err);
	cr_expect_eq(remote_open("http://host/x?token=1", NULL, &r, &err),
		     ERROR_INVALID);
	error_init(&err);
	cr_expect_eq(remote_open("not a url", NULL, &r, &err),
		     ERROR_INVALID);
	o.headers = "Authorization: Bearer s3cret\nX-Other s3cret";
	error_init(&err);
	cr_expect_eq(remote_open("http://host/x", &o, &r, &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "line 2"), "%s", err.msg);
	cr_expect_null(strstr(err.msg, "s3cret"), "%s", err.msg);
	o.headers = "Authorization: Bearer s3cret\r\nX: y";
	error_init(&err);
	cr_expect_eq(remote_open("http://host/x", &o, &r, &err),
		     ERROR_INVALID);
	cr_expect_null(strstr(err.msg, "s3cret"), "%s", err.msg);
	o.headers = "Authorization: Bearer s3cret\n\nX-Two: 2\n";
	error_init(&err);
	cr_assert_eq(remote_open("HTTPS://Host:8443/cache//", &o, &r, &err), 0,
		     "%s", err.msg);
	cr_expect_str_eq(remote_url(r), "https://Host:8443/cache");
	remote_close(r);
}

Test(cache_remote, headers_reach_the_server_and_read_only_refuses_writes)
{
	struct remote_options o = REMOTE_OPTIONS_INIT;
	struct remote_upload_file f[3];
	struct remote *r;
	struct remote_digest d;
	struct error err;
	char *paths[3];

	t_fx_serve();
	o.read_only = 1;
	r = open_url(t_fx.ng.url, &o);
	cr_expect(remote_read_only(r));
	error_init(&err);
	cr_expect_eq(remote_cas_put_buf(r, "x", 1, &d, &err),
		     ERROR_UNSUPPORTED);
	cr_expect(strstr(err.msg, "read-only"), "%s", err.msg);
	sample_files(f, paths);
	error_init(&err);
	cr_expect_eq(remote_node_put(r, NODE1, KEY1, f, 3, "{}", 2, 0, NULL,
				     &err), ERROR_UNSUPPORTED);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"PUT ", 0), 0);
	remote_close(r);
	/* Credentials headers are sent with every request. */
	o = (struct remote_options)REMOTE_OPTIONS_INIT;
	o.headers = "Authorization: Bearer t0ken\nX-Extra: 1";
	r = open_url(t_fx.ng.url, &o);
	error_init(&err);
	cr_expect_eq(remote_cas_put_buf(r, "x", 1, &d, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "auth=\"Bearer t0ken\"", 1), 1);
	free(paths[0]);
	free(paths[1]);
	free(paths[2]);
	remote_close(r);
}

/* Every allocation failure in the encoders and decoders is ERROR_NOMEM. */
Test(cache_remote, out_of_memory_at_every_allocation)
{
	struct remote_output outs[2] = {
		{ "b/out", { "", 3 }, 1 }, { "a/out", { "", 5 }, 0 },
	};
	struct remote_action a, back;
	struct remote_record rr;
	unsigned char *bytes = NULL;
	struct error err;
	char *text;
	size_t len, rlen;
	long n;
	int rc, fired, step;

	sample_record(&text, &rlen);
	memset(&a, 0, sizeof(a));
	memset(outs[0].digest.hash, 'a', REMOTE_HASH_LEN);
	memset(outs[1].digest.hash, 'b', REMOTE_HASH_LEN);
	memset(a.record.hash, 'c', REMOTE_HASH_LEN);
	a.outputs = outs;
	a.n = 2;
	a.worker = "w";
	for (step = 0; step < 3; step++)
	for (n = 0; n < 1000; n++) {
		error_init(&err);
		if (step == 1)
			cr_assert_eq(remote_action_encode(&a, &bytes, &len,
							  NULL), 0);
		mem_fault_once(n);
		if (step == 0) {
			rc = remote_action_encode(&a, &bytes, &len, &err);
		} else if (step == 1) {
			rc = remote_action_decode(bytes, len, &back, &err);
			mem_free(bytes);
			if (!rc) {
				cr_expect_str_eq(back.outputs[0].path, "a/out");
				remote_action_release(&back);
			}
		} else {
			rc = remote_record_decode(text, rlen, &rr, &err);
			if (!rc)
				remote_record_release(&rr);
		}
		fired = mem_fault_fired();
		mem_fault_after(-1);
		if (rc) {
			cr_assert_eq(rc, ERROR_NOMEM, "step %d n=%ld: %s",
				     step, n, err.msg);
			continue;
		}
		if (step == 0)
			mem_free(bytes);
		if (!fired)
			break;
	}
	mem_free(text);
}

/*
 * remote_cas_verify downloads and hashes, keeping nothing: a blob damaged
 * after its upload (same size: HEAD calls it present) is ERROR_CORRUPT,
 * a short one too, a missing one 0, the empty blob is never asked for,
 * and no file appears anywhere.
 */
Test(cache_remote, verify_tells_damaged_blobs_from_intact_ones)
{
	struct remote *r;
	struct remote_check c[5];
	struct error err;
	unsigned char present = 0;
	char *at;

	t_fx_serve();
	r = open_url(t_fx.ng.url, NULL);
	memset(c, 0, sizeof(c));
	put_text(r, "intact\n", &c[0].digest);
	put_text(r, "damaged\n", &c[1].digest);
	put_text(r, "short\n", &c[2].digest);
	error_init(&err);
	cr_assert_eq(remote_digest_buf("absent", 6, &c[3].digest, &err), 0);
	cr_assert_eq(remote_digest_buf("", 0, &c[4].digest, &err), 0);
	at = stored("cas", c[1].digest.hash);
	t_write(t_fx.ng.root, at + strlen(t_fx.ng.root) + 1, "DAMAGED\n");
	free(at);
	at = stored("cas", c[2].digest.hash);
	t_write(t_fx.ng.root, at + strlen(t_fx.ng.root) + 1, "sho");
	free(at);
	cr_expect_eq(remote_cas_has(r, &c[1].digest, 1, NULL, &present,
				    &err), 0);
	cr_expect_eq(present, 1, "a HEAD cannot tell");
	cr_assert_eq(remote_cas_verify(r, c, 5, &err), 0, "%s", err.msg);
	cr_expect_eq(c[0].result, 1, "%s", c[0].err.msg);
	cr_expect_eq(c[1].result, ERROR_CORRUPT);
	cr_expect(strstr(c[1].err.msg, "digest mismatch") != NULL, "%s",
		  c[1].err.msg);
	cr_expect(strstr(c[1].err.msg, c[1].digest.hash) != NULL, "%s",
		  c[1].err.msg);
	cr_expect_eq(c[2].result, ERROR_CORRUPT);
	cr_expect(strstr(c[2].err.msg, "truncated") != NULL, "%s",
		  c[2].err.msg);
	cr_expect_eq(c[3].result, 0, "%s", c[3].err.msg);
	cr_expect_eq(c[4].result, 1);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"GET /cas/", 4), 4);
	cr_expect_eq(entries(t_fx.tmp), 0, "nothing written");
	remote_close(r);
}
