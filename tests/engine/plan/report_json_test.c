/*
 * Suite engine_report_json: the plan and why documents are jansson trees
 * whose objects get their keys in strcmp order, dumped without
 * JSON_SORT_KEYS (report_json.c); the bytes must be the ones
 * json_dumps(JSON_INDENT(2) | JSON_SORT_KEYS) gives for the same document:
 * each one is read back with jansson and dumped again with sorted keys,
 * and the two must be equal byte for byte, over strings holding every
 * control byte, quotes, backslashes, DEL, non-ASCII text and bytes that
 * are not UTF-8.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "engine/plan/plan.h"
#include "engine/plan/remote.h"
#include "engine/plan/report.h"
#include "graph/digest.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "rules/rules.h"

static const char rules_text[] =
	"version: 1\n"
	"axes:\n"
	"  python: ['3.12', '3.13']\n"
	"  platform: [linux-64]\n"
	"roots:\n"
	"  b12: {path: b12}\n"
	"  zz: {path: zz}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots, python: axes.python, platform: axes.platform}\n"
	"    inputs: [root.sources]\n"
	"    command: [build, '${root.path}']\n"
	"tests:\n"
	"  t:\n"
	"    each: {root: roots}\n"
	"    needs: [wheel]\n"
	"    command: [pytest]\n";

static int
fake_source(void *payload, const struct graph_input *in, struct digest *out,
	    struct error *err)
{
	(void)payload;
	(void)err;
	digest_bytes(in->name, strlen(in->name), out);
	return 0;
}

/* Every byte 1..255 once, then text that is valid UTF-8. */
static char nasty[300];

static void
fill_nasty(void)
{
	size_t i;

	for (i = 1; i < 256; i++)
		nasty[i - 1] = (char)i;
	strcpy(nasty + 255, "\"q\" \\ / \xc3\xa9 \xe2\x80\xa8 \xf0\x9f\x98\x80");
}

/* doc must be what jansson writes for the document it holds. */
static void
expect_jansson_bytes(const char *doc)
{
	json_error_t je;
	json_t *j = json_loads(doc, 0, &je);
	char *again;
	size_t n = strlen(doc);

	cr_assert_not_null(j, "not JSON (%s at %d:%d): %s", je.text, je.line,
			   je.column, doc);
	again = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
	cr_assert_not_null(again);
	cr_assert(n > 0 && doc[n - 1] == '\n');
	cr_expect(strlen(again) == n - 1 && !strncmp(again, doc, n - 1),
		  "written:\n%s\njansson:\n%s\n", doc, again);
	free(again);
	json_decref(j);
}

Test(engine_report_json, plan_and_why_are_jansson_bytes)
{
	struct graph_key_sources src = { fake_source, NULL, NULL, NULL, NULL };
	struct plan_options o = { .reuse = PLAN_REUSE_SCOPE_BASELINE };
	struct plan_history h;
	struct plan_remote_hit hit;
	struct plan_change ch[3];
	struct error_list errors;
	struct rules *rules = NULL;
	struct graph *g = NULL;
	struct plan *p = NULL;
	struct plan_meta m;
	const char *paths[] = { nasty, "a/\xff\xfe.c", "plain/path.py" };
	struct buf out;
	struct error err;
	size_t i;

	fill_nasty();
	error_list_init(&errors, 10);
	cr_assert_eq(rules_load_buffer("t.yml", rules_text,
				       strlen(rules_text), &rules, &errors), 0);
	error_list_release(&errors);
	error_init(&err);
	cr_assert_eq(graph_build(rules, &g, &err), 0);
	memset(&h, 0, sizeof(h));
	h.baseline_label = "none";
	cr_assert_eq(plan_compute(g, NULL, NULL, &src, &h, &o, &p, &err), 0,
		     "%s", err.msg);
	cr_assert_gt(p->n, 4);
	/* Changes of every shape, reuse from a run and from a remote. */
	memset(ch, 0, sizeof(ch));
	ch[0].kind = PLAN_CHANGE_FILE;
	ch[0].name = "root.sources:b12";
	ch[0].path = nasty;
	ch[0].status = PLAN_FILE_MODIFIED;
	ch[0].old_value = "0123";
	ch[1].kind = PLAN_CHANGE_RULE;
	ch[1].name = "command";
	ch[1].old_value = "a\x01\x7f\t";
	ch[1].new_value = "b\xc0\xaf";
	ch[2].kind = PLAN_CHANGE_VERSION;
	ch[2].name = "version";
	p->items[0].changes = ch;
	p->items[0].n_changes = 3;
	p->items[1].decision = PLAN_REUSE;
	p->items[1].reused_run = "run \"1\"";
	p->items[1].output_digest = "00ff";
	memset(&hit, 0, sizeof(hit));
	hit.url = "https://cache.example/\\x";
	p->items[2].decision = PLAN_REUSE;
	p->items[2].remote = &hit;
	p->items[3].decision = PLAN_SKIP;
	p->items[1].expect = PLAN_EXPECT_CUTOFF;
	p->items[1].expect_on = 0;
	p->items[4].expect = PLAN_EXPECT_IF_PAYLOAD;
	p->items[4].expect_on = -1;
	p->expected[PLAN_EXPECT_CUTOFF] = 1;
	p->expected[PLAN_EXPECT_IF_PAYLOAD] = 1;
	p->items[p->n - 1].cause = 0;
	p->items[p->n - 1].reason = PLAN_REASON_UPSTREAM_REBUILT;
	memset(&m, 0, sizeof(m));
	m.head = "worktree";
	m.mode = "baseline";
	m.baseline_run = "r\x1f";
	m.baseline_label = nasty;
	m.baseline_covered = 3;
	m.baseline_nodes = 7;
	m.changed = paths;
	m.n_changed = 3;
	m.unclaimed = paths + 1;
	m.n_unclaimed = 1;
	buf_init(&out, 0);
	cr_assert_eq(report_plan_json(g, p, &m, &out, &err), 0);
	cr_expect(strstr(out.data, "\"if-payload-unchanged\"") != NULL,
		  "%s", out.data);
	cr_expect(strstr(out.data, "\\\\xff\\\\xfe") != NULL,
		  "bytes that are not UTF-8 are named: %s", out.data);
	expect_jansson_bytes(out.data);
	for (i = 0; i < p->n; i++) {
		buf_reset(&out);
		cr_assert_eq(report_why_json(g, p, i, &m, &out, &err), 0);
		expect_jansson_bytes(out.data);
	}
	/* No baseline: coverage null, empty lists. */
	memset(&m, 0, sizeof(m));
	buf_reset(&out);
	cr_assert_eq(report_plan_json(g, p, &m, &out, &err), 0);
	expect_jansson_bytes(out.data);
	buf_release(&out);
	plan_free(p);
	graph_free(g);
	rules_free(rules);
}

/* Allocations through the functions installed before a report. */
static size_t outer_mallocs, outer_frees;

static void *
outer_malloc(size_t n)
{
	outer_mallocs++;
	return malloc(n);
}

static void
outer_free(void *p)
{
	if (p)
		outer_frees++;
	free(p);
}

/*
 * A report's document lives in an arena of its own (report_json.c): none
 * of its values reaches the allocator installed before, which is
 * installed again after, and values made before are freed by it after.
 */
Test(engine_report_json, documents_use_their_own_arena)
{
	struct graph_key_sources src = { fake_source, NULL, NULL, NULL, NULL };
	struct plan_options o = { .reuse = PLAN_REUSE_SCOPE_BASELINE };
	struct plan_history h;
	struct error_list errors;
	struct rules *rules = NULL;
	struct graph *g = NULL;
	struct plan *p = NULL;
	struct plan_meta m;
	json_malloc_t mf;
	json_free_t ff;
	json_t *before;
	struct buf out;
	struct error err;

	error_list_init(&errors, 10);
	cr_assert_eq(rules_load_buffer("t.yml", rules_text,
				       strlen(rules_text), &rules, &errors), 0);
	error_list_release(&errors);
	error_init(&err);
	cr_assert_eq(graph_build(rules, &g, &err), 0);
	memset(&h, 0, sizeof(h));
	h.baseline_label = "none";
	cr_assert_eq(plan_compute(g, NULL, NULL, &src, &h, &o, &p, &err), 0);
	memset(&m, 0, sizeof(m));
	m.head = "worktree";
	buf_init(&out, 0);
	json_set_alloc_funcs(outer_malloc, outer_free);
	before = json_pack("{s:[s]}", "made", "before");
	cr_assert_not_null(before);
	outer_mallocs = outer_frees = 0;
	cr_assert_eq(report_plan_json(g, p, &m, &out, &err), 0);
	cr_assert_eq(report_why_json(g, p, 0, &m, &out, &err), 0);
	cr_expect_eq(outer_mallocs, 0, "%zu values of the report were "
		     "allocated outside its arena", outer_mallocs);
	cr_expect_eq(outer_frees, 0);
	json_get_alloc_funcs(&mf, &ff);
	cr_expect(mf == outer_malloc && ff == outer_free,
		  "the allocator installed before is installed again");
	json_decref(before);
	cr_expect_gt(outer_frees, 0, "a value made before is freed by the "
		     "allocator it came from");
	json_set_alloc_funcs(malloc, free);
	cr_expect(strstr(out.data, "\"schema\": \"ripple-plan-v1\"") != NULL);
	cr_expect(strstr(out.data, "\"schema\": \"ripple-why-v1\"") != NULL);
	buf_release(&out);
	plan_free(p);
	graph_free(g);
	rules_free(rules);
}

/*
 * jansson leaves a value out when its allocation fails; a report must
 * then fail (ERROR_NOMEM), never print a document with holes. Every
 * allocation of the plan and why documents is failed once in turn.
 */
Test(engine_report_json, a_failed_allocation_fails_the_report)
{
	struct graph_key_sources src = { fake_source, NULL, NULL, NULL, NULL };
	struct plan_options o = { .reuse = PLAN_REUSE_SCOPE_BASELINE };
	struct plan_history h;
	struct error_list errors;
	struct rules *rules = NULL;
	struct graph *g = NULL;
	struct plan *p = NULL;
	struct plan_meta m;
	const char *paths[] = { "a/\xff.c", "plain/path.py" };
	struct buf want, got;
	struct error err;
	long n, failed = 0;
	int why, rc, fired;

	error_list_init(&errors, 10);
	cr_assert_eq(rules_load_buffer("t.yml", rules_text,
				       strlen(rules_text), &rules, &errors), 0);
	error_list_release(&errors);
	error_init(&err);
	cr_assert_eq(graph_build(rules, &g, &err), 0);
	memset(&h, 0, sizeof(h));
	h.baseline_label = "none";
	cr_assert_eq(plan_compute(g, NULL, NULL, &src, &h, &o, &p, &err), 0);
	memset(&m, 0, sizeof(m));
	m.head = "worktree";
	m.changed = paths;
	m.n_changed = 2;
	for (why = 0; why < 2; why++) {
		buf_init(&want, 0);
		rc = why ? report_why_json(g, p, p->n - 1, &m, &want, &err)
			 : report_plan_json(g, p, &m, &want, &err);
		cr_assert_eq(rc, 0);
		for (n = 0; n < 100000; n++) {
			buf_init(&got, 0);
			error_init(&err);
			mem_fault_once(n);
			rc = why ? report_why_json(g, p, p->n - 1, &m, &got,
						   &err)
				 : report_plan_json(g, p, &m, &got, &err);
			fired = mem_fault_fired();
			mem_fault_after(-1);
			if (rc) {
				cr_assert_eq(rc, ERROR_NOMEM, "n=%ld", n);
				failed++;
			} else {
				cr_assert_str_eq(got.data, want.data,
						 "n=%ld: a document with holes",
						 n);
			}
			buf_release(&got);
			if (!fired)
				break;
		}
		buf_release(&want);
	}
	cr_expect_gt(failed, 0, "no allocation was failed");
	plan_free(p);
	graph_free(g);
	rules_free(rules);
}
