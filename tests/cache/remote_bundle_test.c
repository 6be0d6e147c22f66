/*
 * Suite cache_remote_bundle: a run's bundle (cache/remote_bundle.c)
 * round trips, shares one provenance per run, and is read as hostile
 * data: every field a record blob or an AC entry would refuse is refused
 * here too (a bad output path, a control byte in a one-line field, a bad
 * key, digest or memo id, a newer format).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "cache/remote.h"

#define KEY1 "00112233445566778899aabbccddeeff"
#define KEY2 "ffeeddccbbaa99887766554433221100"
#define SHA "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define SHA2 "5c54cbae0ca8e34b2a6a3c3a76f8e4bd7b32b1b0a9eadd2ca72d3d0f0a1f3b7e"

static struct remote_output out1 = { "dist/w.whl", { SHA2, 12 }, 0 };

/* One ok record of `node` in run r1 of main at commit c, with sources. */
static void
entry(struct remote_bundle_entry *e, const char *node, const char *key)
{
	struct error err;

	memset(e, 0, sizeof(*e));
	cache_record_init(&e->rec.rec);
	strv_init(&e->sources, 1);
	e->rec.rec.node_id = (char *)node;
	memcpy(e->rec.rec.key, key, CACHE_KEY_SIZE);
	e->rec.rec.status = CACHE_RECORD_STATUS_OK;
	e->rec.rec.output_digest = KEY2;
	e->rec.rec.duration_ms = 5;
	e->rec.rec.recorded_ms = 7;
	e->rec.run.id = "r1";
	e->rec.run.commit = "c0ffee";
	e->rec.run.ref = "refs/heads/main";
	e->rec.run.started_ms = 3;
	e->action.outputs = &out1;
	e->action.n = 1;
	memcpy(e->action.record.hash, SHA, REMOTE_HASH_SIZE);
	e->action.record.size = 40;
	error_init(&err);
	cr_assert_eq(strv_push(&e->sources, KEY2, &err), 0);
	cr_assert_eq(strv_push(&e->sources, KEY1, &err), 0);
	cr_assert_eq(strv_push(&e->rec.rec.artifacts, "dist/w.whl",
			       &err), 0);
}

static char *
encode2(size_t *len)
{
	struct remote_bundle_entry e[2];
	struct error err;
	char *text;

	entry(&e[0], "artifact:a", KEY1);
	entry(&e[1], "artifact:b", KEY2);
	error_init(&err);
	cr_assert_eq(remote_bundle_encode(e, 2, "c0ffee", &text, len, &err),
		     0, "%s", err.msg);
	strv_release(&e[0].sources);
	strv_release(&e[1].sources);
	strv_release(&e[0].rec.rec.artifacts);
	strv_release(&e[1].rec.rec.artifacts);
	return text;
}

static int
count(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

Test(cache_remote_bundle, records_round_trip_with_one_provenance_per_run)
{
	struct remote_bundle b;
	struct error err;
	size_t len;
	char *text = encode2(&len);

	cr_expect(strstr(text, "\"runs\":[{") != NULL, "%s", text);
	cr_expect_eq(count(text, "refs/heads/main"), 1, "one provenance: %s",
		     text);
	error_init(&err);
	cr_assert_eq(remote_bundle_decode(text, len, &b, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(b.n, 2);
	cr_expect_str_eq(b.items[1].rec.rec.node_id, "artifact:b");
	cr_expect_str_eq(b.items[1].rec.rec.key, KEY2);
	cr_expect_eq(b.items[1].rec.rec.status, CACHE_RECORD_STATUS_OK);
	cr_expect_str_eq(b.items[1].rec.rec.output_digest, KEY2);
	cr_expect_str_eq(b.items[1].rec.run.ref, "refs/heads/main");
	cr_expect_str_eq(b.items[1].rec.rec.run, "r1");
	cr_expect_eq(b.items[1].action.n, 1);
	cr_expect_str_eq(b.items[1].action.outputs[0].path, "dist/w.whl");
	cr_expect_str_eq(b.items[1].action.outputs[0].digest.hash, SHA2);
	cr_expect_str_eq(b.items[1].action.record.hash, SHA);
	cr_expect_eq(b.items[1].sources.n, 2);
	cr_expect_str_eq(b.items[1].sources.v[0], KEY2);
	cr_expect_eq(b.items[1].rec.manifest.n, 0, "no components");
	remote_bundle_release(&b);
	mem_free(text);
}

/* text with the first `from` replaced by `to`, decoded: the error code. */
static int
decode_edited(const char *from, const char *to, struct error *err)
{
	struct remote_bundle b;
	char buf[8192], *at;
	size_t len;
	char *text = encode2(&len);
	int rc;

	at = strstr(text, from);
	cr_assert_not_null(at, "'%s' in %s", from, text);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - text), text, to,
		 at + strlen(from));
	mem_free(text);
	error_init(err);
	rc = remote_bundle_decode(buf, strlen(buf), &b, err);
	if (!rc)
		remote_bundle_release(&b);
	return rc;
}

Test(cache_remote_bundle, hostile_bundles_are_refused)
{
	static const char *const cases[][2] = {
		{ "\"dist/w.whl\",\"" SHA2 "\"", "\"../w.whl\",\"" SHA2 "\"" },
		{ "\"dist/w.whl\",\"" SHA2 "\"", "\".git/hooks/x\",\"" SHA2 "\"" },
		{ "[\"dist/w.whl\"]", "[\"/etc/passwd\"]" },
		{ "\"artifact:a\"", "\"artifact:a\\nforged\"" },
		{ "\"refs/heads/main\"", "\"refs/heads/main\\u001b[2J\"" },
		{ "\"" KEY1 "\",null", "\"0011\",null" },
		{ "\"" SHA "\"", "\"not-a-digest\"" },
		{ "[\"" KEY2 "\",\"" KEY1 "\"]", "[\"" KEY2 "\"]" },
		{ "[\"" KEY2 "\",\"" KEY1 "\"]", "[\"" KEY2 "\",\"XY\"]" },
		{ "\"run\":\"r1\"", "\"run\":7" },
		{ ",0,[[", ",9,[[" },
		{ "\"format_version\":1", "\"format_version\":\"1\"" },
	};
	struct error err;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = decode_edited(cases[i][0], cases[i][1], &err);

		cr_expect_eq(rc, ERROR_CORRUPT, "case %zu (%s): %d %s", i,
			     cases[i][1], rc, err.msg);
	}
	cr_expect_eq(decode_edited("\"format_version\":1",
				   "\"format_version\":2", &err),
		     ERROR_UNSUPPORTED, "%s", err.msg);
}

Test(cache_remote_bundle, the_key_of_a_commit_is_fixed)
{
	char key[CACHE_KEY_SIZE];
	struct error err;

	/* printf 'ripple-bundle-v1\0c0ffee' | sha256sum | cut -c1-32 */
	error_init(&err);
	cr_assert_eq(remote_bundle_key("c0ffee", key, &err), 0);
	cr_expect_str_eq(key, "f6ccf5cda3e61963dbf3fea8d039670c");
	cr_expect_eq(remote_bundle_key("", key, &err), ERROR_INVALID);
}
