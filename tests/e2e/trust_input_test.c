/*
 * Suite e2e_trust_input: hostile and odd input (issue 14, items 6, 7, 8
 * and 10): FIFOs and devices where files belong never hang ripple or grow
 * its memory, cache paths that cannot be right are errors, text that is not
 * UTF-8 is refused or escaped, an empty repository says so.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support/support.h"

#define GIT_ENV "GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent " \
	"GIT_AUTHOR_NAME=Test GIT_AUTHOR_EMAIL=test@example.com " \
	"GIT_COMMITTER_NAME=Test GIT_COMMITTER_EMAIL=test@example.com "

static const char rules_yml[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [src/**]}\n"
	"artifacts:\n"
	"  a: {inputs: [src], command: [\"true\"]}\n";

static char *
make_repo(void)
{
	char *dir = t_git_init();

	t_write(dir, ".gitignore", ".ripple/\n*.fifo\n");
	t_write(dir, "ripple.yml", rules_yml);
	t_write(dir, "src/a.c", "int a;\n");
	cr_assert_eq(t_git_commit(dir, "init"), 0);
	return dir;
}

/*
 * Run `ripple ARGS` through the shell, killed after 20 s and limited to
 * 1 GiB of memory: a hang gives 137, runaway memory a failure.
 */
static struct run_result
ripple_sh(const char *dir, const char *args)
{
	return t_ripple_bounded(dir, 1024 * 1024, 20, args);
}

static void
expect_has(const char *text, const char *needle)
{
	cr_expect(strstr(text, needle) != NULL, "'%s' not in:\n%s", needle,
		  text);
}

/* Item 6: a FIFO as the cache, as ripple.yml and as an artifact. */
Test(e2e_trust_input, a_fifo_where_a_file_belongs_is_refused_not_waited_on)
{
	char *dir = make_repo();
	struct run_result r;

	r = t_sh(dir, "mkfifo c.fifo a.fifo");
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = ripple_sh(dir, "plan --cache c.fifo");
	cr_expect(r.status == 2 || r.status == 3, "plan: %d %s", r.status,
		  r.err);
	expect_has(r.err, "not a regular file");
	t_result_release(&r);
	r = ripple_sh(dir, "record --run r1 --node artifact:a --status ok "
		      "--artifact a.fifo");
	cr_expect_eq(r.status, 2, "record: %d %s", r.status, r.err);
	expect_has(r.err, "not a regular file");
	t_result_release(&r);
	r = t_sh(dir, "rm ripple.yml && mkfifo ripple.yml");
	t_result_release(&r);
	r = ripple_sh(dir, "check");
	cr_expect(r.status == 2 || r.status == 3, "check: %d %s", r.status,
		  r.err);
	expect_has(r.err, "not a regular file");
	t_result_release(&r);
	r = ripple_sh(dir, "plan");
	cr_expect_eq(r.status, 0, "plan: %d %s", r.status, r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* Item 6: /dev/null, a folder, and a path whose folder does not exist. */
Test(e2e_trust_input, a_cache_path_that_cannot_be_a_cache_is_an_error)
{
	char *dir = make_repo();
	struct run_result r;

	r = ripple_sh(dir, "plan --cache /dev/null");
	cr_expect_neq(r.status, 0, "%s", r.out);
	expect_has(r.err, "not a regular file");
	t_result_release(&r);
	r = ripple_sh(dir, "run --cache src");
	cr_expect_neq(r.status, 0, "%s", r.out);
	expect_has(r.err, "is a directory");
	t_result_release(&r);
	r = ripple_sh(dir, "plan --cache typo/cache.db");
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	expect_has(r.err, "typo");
	t_result_release(&r);
	r = ripple_sh(dir, "run --cache typo/cache.db");
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	t_result_release(&r);
	cr_expect_neq(access("typo", F_OK), 0, "run made the folder");
	{
		char cmd[PATH_MAX + 64];
		char *abs = realpath(getenv("RIPPLE_BIN") ?
				     getenv("RIPPLE_BIN") : "build/ripple",
				     NULL);

		snprintf(cmd, sizeof(cmd), "RIPPLE_CACHE=typo/cache.db '%s' "
			 "plan", abs);
		r = t_sh(dir, cmd);
		cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
		expect_has(r.err, "RIPPLE_CACHE");
		t_result_release(&r);
		free(abs);
	}
	t_rmtree(dir);
	free(dir);
}

/* Item 7: run ids are refused at the door unless they are plain text. */
Test(e2e_trust_input, a_run_id_that_is_not_utf8_is_refused)
{
	char *dir = make_repo();
	struct run_result r;

	r = ripple_sh(dir, "run --run-id \"$(printf 'r\\377')\"");
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	expect_has(r.err, "run id");
	t_result_release(&r);
	r = ripple_sh(dir, "record --run \"$(printf 'r\\377')\" --node "
		      "artifact:a --status ok");
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* Item 7: imported run ids with newlines and escapes are refused. */
Test(e2e_trust_input, an_imported_run_id_with_control_bytes_is_refused)
{
	char *dir = make_repo();
	struct run_result r;

	{
		char cmd[PATH_MAX + 256];
		char *abs = realpath(getenv("RIPPLE_BIN") ?
				     getenv("RIPPLE_BIN") : "build/ripple",
				     NULL);

		snprintf(cmd, sizeof(cmd), "R='%s'; \"$R\" record --run r1 "
			 "--node artifact:a --status ok >/dev/null && "
			 "\"$R\" cache export --run r1 | sed 's/\"id\": "
			 "\"r1\"/\"id\": \"x\\\\n\\\\u001b[31my\"/' > e.json && "
			 "grep -q u001b e.json && \"$R\" cache import e.json",
			 abs);
		r = t_sh(dir, cmd);
		cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
		expect_has(r.err, "run id");
		cr_expect(strchr(r.err, '\033') == NULL, "%s", r.err);
		t_result_release(&r);
		free(abs);
	}
	t_rmtree(dir);
	free(dir);
}

/*
 * docs/security.md: imported caches with control characters (C0 or C1)
 * in refs, versions (and any text a record prints) are refused. An
 * export edited to hold a C1 CSI (U+009B) in the run's ref, a C1 NEL in a
 * record's version, a newline in a metadata value or in an artifact was
 * imported, and `ripple runs` printed the CSI raw. Each is refused here.
 */
Test(e2e_trust_input, an_import_with_c1_or_newlines_in_its_texts_is_refused)
{
	static const char *const edits[] = { "ref", "version", "meta",
					     "artifact" };
	char *dir = make_repo();
	struct run_result r;
	size_t i;

	r = ripple_sh(dir, "record --run r1 --node artifact:a --status ok");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	for (i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		json_t *doc, *rec;
		char *text, id[16];

		r = ripple_sh(dir, "cache export --run r1");
		cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
		doc = json_loads(r.out, 0, NULL);
		cr_assert_not_null(doc, "%s", r.out);
		t_result_release(&r);
		snprintf(id, sizeof(id), "r%zu", i + 2);
		json_object_set_new(json_object_get(doc, "run"), "id",
				    json_string(id));
		rec = json_array_get(json_object_get(doc, "records"), 0);
		cr_assert_not_null(rec);
		if (json_object_get(rec, "run"))
			json_object_set_new(rec, "run", json_string(id));
		if (!strcmp(edits[i], "ref"))
			json_object_set_new(json_object_get(doc, "run"), "ref",
					    json_string("refs/heads/x\xc2\x9b"
							"31mEVIL"));
		else if (!strcmp(edits[i], "version"))
			json_object_set_new(rec, "version",
					    json_string("1.0\xc2\x85x"));
		else if (!strcmp(edits[i], "meta"))
			json_object_set_new(rec, "metadata", json_pack(
				"{s:s}", "k", "v\nFORGED"));
		else
			json_object_set_new(rec, "artifacts", json_pack(
				"[s]", "dist/a\nFORGED"));
		text = json_dumps(doc, 0);
		t_write(dir, "e.json", text);
		free(text);
		json_decref(doc);
		r = ripple_sh(dir, "cache import e.json");
		cr_expect_eq(r.status, 2, "%s accepted: %s%s", edits[i],
			     r.out, r.err);
		cr_expect(!strstr(r.err, "\xc2\x9b") &&
			  !strstr(r.err, "\nFORGED"), "%s", r.err);
		t_result_release(&r);
	}
	r = ripple_sh(dir, "runs");
	cr_expect(!strstr(r.out, "\xc2\x9b") && !strstr(r.out, "\nr2") &&
		  !strstr(r.out, "\nr5"), "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* Item 7: a tag that is not UTF-8 is escaped in exports and JSON. */
Test(e2e_trust_input, a_tag_that_is_not_utf8_is_escaped_in_json)
{
	char *dir = make_repo();
	struct run_result r;
	json_t *doc;

	r = t_sh(dir, GIT_ENV "git tag \"$(printf 'v1\\377')\"");
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = ripple_sh(dir, "record --run r1 --node artifact:a --status ok "
		      "--tag \"$(printf 'v1\\377')\"");
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	r = ripple_sh(dir, "cache export --run r1");
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	doc = json_loads(r.out, 0, NULL);
	cr_expect_not_null(doc, "%s", r.out);
	cr_expect_str_eq(json_string_value(json_object_get(
		json_object_get(doc, "run"), "tag")), "v1\\xff");
	json_decref(doc);
	t_result_release(&r);
	r = ripple_sh(dir, "runs --json");
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	doc = json_loads(r.out, 0, NULL);
	cr_expect_not_null(doc, "%s", r.out);
	json_decref(doc);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* Item 8: a repository without commits says so. */
Test(e2e_trust_input, an_empty_repository_says_it_has_no_commits)
{
	char *dir = t_git_init();
	const char *plan[] = { "plan", NULL };
	struct run_result r;

	t_write(dir, "ripple.yml", rules_yml);
	r = t_ripple(dir, plan);
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	expect_has(r.err, "no commits yet");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* Item 10: /dev/zero as an artifact, and outputs hashed by streaming. */
Test(e2e_trust_input, outputs_are_hashed_in_bounded_memory)
{
	static const char big[] =
		"version: 1\n"
		"artifacts:\n"
		"  big:\n"
		"    command: [sh, -c, \"mkdir -p out && truncate -s 1200M "
		"out/big.bin\"]\n"
		"    outputs: [out/big.bin]\n";
	char *dir = make_repo();
	struct run_result r;

	r = ripple_sh(dir, "record --run r1 --node artifact:a --status ok "
		      "--artifact /dev/zero");
	cr_expect_eq(r.status, 2, "%d %s%s", r.status, r.out, r.err);
	expect_has(r.err, "not a regular file");
	t_result_release(&r);
	t_write(dir, ".gitignore", ".ripple/\nout/\n");
	t_write(dir, "ripple.yml", big);
	cr_assert_eq(t_git_commit(dir, "big"), 0);
	r = ripple_sh(dir, "run --run-id r2");
	cr_expect_eq(r.status, 0, "%d %s%s", r.status, r.out, r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
