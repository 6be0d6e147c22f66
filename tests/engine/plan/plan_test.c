/* Suite engine_plan: decisions and reasons over a fake history. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "engine/plan/plan.h"
#include "graph/digest.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "rules/rules.h"

static const char rules_text[] =
	"version: 1\n"
	"roots:\n"
	"  b12: {path: b12}\n"
	"  b13: {path: b13}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots}\n"
	"    inputs: [root.sources]\n"
	"    command: [build, '${root.path}']\n"
	"tests:\n"
	"  t:\n"
	"    each: {root: roots}\n"
	"    needs: [wheel]\n"
	"    command: [pytest]\n";

struct world {
	struct rules *rules;
	struct graph *graph;
	struct graph_keys *base;	/* the "recorded" keys */
	const char *salt_b12;		/* changes b12's input key */
	const char *failed_id;		/* recorded as failed */
	const char *missing_id;		/* not recorded */
	const char *version;		/* every record's version... */
	const char *odd_id;		/* ...but this node's record's: */
	const char *odd_version;
};

static int
fake_source(void *payload, const struct graph_input *in, struct digest *out,
	    struct error *err)
{
	struct world *w = payload;
	char buf[256];

	(void)err;
	snprintf(buf, sizeof(buf), "%s|%s", in->name,
		 w->salt_b12 && strstr(in->name, "b12") ? w->salt_b12 : "");
	digest_bytes(buf, strlen(buf), out);
	return 0;
}

static int
fake_record(void *payload, const char *id, struct plan_record *out,
	    struct error *err)
{
	struct world *w = payload;
	const struct graph_node *n = graph_find(w->graph, id);
	const struct graph_node_key *k;

	(void)err;
	if (!n || (w->missing_id && !strcmp(id, w->missing_id)))
		return 0;
	k = &w->base->keys[n->index];
	memset(out, 0, sizeof(*out));
	out->run_id = "run-1";
	out->key = k->key.hex;
	out->ok = !(w->failed_id && !strcmp(id, w->failed_id));
	out->version = w->odd_id && !strcmp(id, w->odd_id) ? w->odd_version
							   : w->version;
	out->components = k->components;
	out->n_components = k->n_components;
	return 1;
}

static void
setup_world_from(struct world *w, const char *text)
{
	struct error_list errors;
	struct graph_key_sources src = { fake_source, NULL, NULL, w, NULL };
	struct error err;

	memset(w, 0, sizeof(*w));
	error_list_init(&errors, 10);
	cr_assert_eq(rules_load_buffer("t.yml", text, strlen(text), &w->rules,
				       &errors), 0);
	error_list_release(&errors);
	error_init(&err);
	cr_assert_eq(graph_build(w->rules, &w->graph, &err), 0);
	cr_assert_eq(graph_keys_compute(w->graph, NULL, &src, &w->base,
					&err), 0);
}

static void
setup_world(struct world *w)
{
	setup_world_from(w, rules_text);
}

static void
teardown_world(struct world *w)
{
	graph_keys_free(w->base);
	graph_free(w->graph);
	rules_free(w->rules);
}

static struct plan *
plan_with(struct world *w, const struct plan_options *o)
{
	struct graph_key_sources src = { fake_source, NULL, NULL, w, NULL };
	struct plan_history h;
	struct plan *p = NULL;
	struct error err;

	memset(&h, 0, sizeof(h));
	h.baseline_record = fake_record;
	h.payload = w;
	h.has_baseline = 1;
	h.baseline_label = "run-1";
	error_init(&err);
	cr_assert_eq(plan_compute(w->graph, NULL, NULL, &src, &h, o, &p,
				  &err), 0, "%s", err.msg);
	return p;
}

static struct plan *
plan(struct world *w, int has_baseline, enum plan_reuse reuse,
     const char *forced)
{
	struct graph_key_sources src = { fake_source, NULL, NULL, w, NULL };
	struct plan_history h;
	struct plan_options o = { .reuse = reuse, .forced_reason = forced };
	struct plan *p = NULL;
	struct error err;

	memset(&h, 0, sizeof(h));
	h.baseline_record = fake_record;
	h.payload = w;
	h.has_baseline = has_baseline;
	h.baseline_label = "run-1";
	error_init(&err);
	cr_assert_eq(plan_compute(w->graph, NULL, NULL, &src, &h, &o, &p,
				  &err), 0, "%s", err.msg);
	return p;
}

static const struct plan_item *
item(struct world *w, struct plan *p, const char *id)
{
	const struct graph_node *n = graph_find(w->graph, id);

	cr_assert_not_null(n, "%s", id);
	return &p->items[n->index];
}

Test(engine_plan, no_baseline_builds_everything)
{
	struct world w;
	struct plan *p;

	setup_world(&w);
	p = plan(&w, 0, PLAN_REUSE_SCOPE_BASELINE, NULL);
	cr_expect_eq(p->counts[PLAN_BUILD], 2);
	cr_expect_eq(p->counts[PLAN_TEST], 2);
	cr_expect_eq(item(&w, p, "test:t[root=b12]")->reason,
		     PLAN_REASON_NO_BASELINE);
	plan_free(p);
	teardown_world(&w);
}

Test(engine_plan, same_keys_are_reused_from_the_baseline)
{
	struct world w;
	struct plan *p;

	setup_world(&w);
	p = plan(&w, 1, PLAN_REUSE_SCOPE_BASELINE, NULL);
	cr_expect_eq(p->counts[PLAN_REUSE], 4);
	cr_expect_eq(p->root_causes, 0);
	cr_expect_str_eq(item(&w, p, "artifact:wheel[root=b13]")->reused_run,
			 "run-1");
	plan_free(p);
	teardown_world(&w);
}

Test(engine_plan, changed_input_is_a_root_cause_and_users_cascade)
{
	struct world w;
	struct plan *p;
	const struct plan_item *wheel, *test;

	setup_world(&w);
	w.salt_b12 = "edited";
	p = plan(&w, 1, PLAN_REUSE_SCOPE_BASELINE, NULL);
	wheel = item(&w, p, "artifact:wheel[root=b12]");
	test = item(&w, p, "test:t[root=b12]");
	cr_expect_eq(wheel->decision, PLAN_BUILD);
	cr_expect_eq(wheel->reason, PLAN_REASON_INPUT_CHANGED);
	cr_assert_eq(wheel->n_changes, 1);
	cr_expect_eq(wheel->changes[0].kind, PLAN_CHANGE_INPUT);
	cr_expect_str_eq(wheel->changes[0].name, "root.sources:b12");
	cr_expect_eq(test->decision, PLAN_TEST);
	cr_expect_eq(test->reason, PLAN_REASON_UPSTREAM_REBUILT);
	cr_expect_eq(test->cause, (long)graph_find(w.graph,
		     "artifact:wheel[root=b12]")->index);
	cr_expect_eq(test->root_cause, test->cause);
	cr_expect_eq(item(&w, p, "test:t[root=b13]")->decision, PLAN_REUSE);
	cr_expect_eq(p->root_causes, 1);
	plan_free(p);
	teardown_world(&w);
}

Test(engine_plan, failed_and_missing_records_rebuild_themselves_and_users)
{
	struct world w;
	struct plan *p;

	setup_world(&w);
	w.failed_id = "artifact:wheel[root=b13]";
	w.missing_id = "test:t[root=b12]";
	p = plan(&w, 1, PLAN_REUSE_SCOPE_BASELINE, NULL);
	cr_expect_eq(item(&w, p, "artifact:wheel[root=b13]")->reason,
		     PLAN_REASON_BASELINE_FAILED);
	cr_expect_eq(item(&w, p, "test:t[root=b12]")->reason,
		     PLAN_REASON_NEW_NODE);
	cr_expect_eq(item(&w, p, "artifact:wheel[root=b12]")->decision,
		     PLAN_REUSE);
	/*
	 * The failed wheel keeps its key, but it must build again: its test
	 * follows it as a cascade rather than trusting an equal key.
	 */
	cr_expect_eq(item(&w, p, "test:t[root=b13]")->decision, PLAN_TEST);
	cr_expect_eq(item(&w, p, "test:t[root=b13]")->reason,
		     PLAN_REASON_UPSTREAM_REBUILT);
	plan_free(p);
	teardown_world(&w);
}

Test(engine_plan, forced_and_reuse_none_build_everything)
{
	struct world w;
	struct plan *p;

	setup_world(&w);
	p = plan(&w, 1, PLAN_REUSE_SCOPE_BASELINE, "unclaimed path 'x'");
	cr_expect_eq(p->counts[PLAN_REUSE], 0);
	cr_expect_eq(item(&w, p, "test:t[root=b13]")->reason,
		     PLAN_REASON_FORCED);
	plan_free(p);
	p = plan(&w, 1, PLAN_REUSE_SCOPE_NONE, NULL);
	cr_expect_eq(p->counts[PLAN_BUILD], 2);
	plan_free(p);
	teardown_world(&w);
}

/* A wheel and a metapackage that pins it, one version group per root. */
static const char group_text[] =
	"version: 1\n"
	"roots:\n"
	"  b12: {path: b12}\n"
	"  b13: {path: b13}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots}\n"
	"    inputs: [root.sources]\n"
	"    command: [build]\n"
	"    version: '${root.version}'\n"
	"    version-group: 'b-${root}'\n"
	"  meta:\n"
	"    each: {root: roots}\n"
	"    command: [meta]\n"
	"    version: '${root.version}'\n"
	"    version-group: 'b-${root}'\n"
	"  user:\n"
	"    each: {root: roots}\n"
	"    needs: [wheel]\n"
	"    command: [use]\n";

Test(engine_plan, versions_are_compared_only_when_asked)
{
	struct rules_kv now[] = { { "b12", "1.0", { 0, 0 } },
				  { "b13", "1.0.dev2+g123", { 0, 0 } } };
	struct plan_options o = { .reuse = PLAN_REUSE_SCOPE_BASELINE };
	const struct plan_item *it;
	struct world w;
	struct plan *p;

	setup_world_from(&w, group_text);
	w.version = "1.0.dev2+g123";
	p = plan_with(&w, &o);
	cr_expect_eq(p->counts[PLAN_REUSE], 6, "no check: all reused");
	plan_free(p);
	o.check_versions = 1;
	o.versions = now;
	o.n_versions = 2;
	p = plan_with(&w, &o);
	it = item(&w, p, "artifact:wheel[root=b12]");
	cr_expect_eq(it->reason, PLAN_REASON_VERSION_DIFFERS);
	cr_assert_eq(it->n_changes, 1);
	cr_expect_eq(it->changes[0].kind, PLAN_CHANGE_VERSION);
	cr_expect_str_eq(it->changes[0].old_value, "1.0.dev2+g123");
	cr_expect_str_eq(it->changes[0].new_value, "1.0");
	cr_expect_eq(item(&w, p, "artifact:wheel[root=b13]")->decision,
		     PLAN_REUSE);
	/* Unversioned users follow the rebuilt wheel as cascades. */
	cr_expect_eq(item(&w, p, "artifact:user[root=b12]")->reason,
		     PLAN_REASON_UPSTREAM_REBUILT);
	cr_expect_eq(p->root_causes, 2);
	plan_free(p);
	teardown_world(&w);
}

Test(engine_plan, a_version_group_rebuilds_together_per_root)
{
	struct plan_options o = { .reuse = PLAN_REUSE_SCOPE_BASELINE };
	const struct plan_item *meta, *user;
	struct world w;
	struct plan *p;

	setup_world_from(&w, group_text);
	w.salt_b12 = "edited";
	p = plan_with(&w, &o);
	meta = item(&w, p, "artifact:meta[root=b12]");
	user = item(&w, p, "artifact:user[root=b12]");
	cr_expect_eq(meta->decision, PLAN_BUILD);
	cr_expect_eq(meta->reason, PLAN_REASON_VERSION_GROUP);
	cr_expect_eq(meta->cause, (long)graph_find(w.graph,
		     "artifact:wheel[root=b12]")->index);
	cr_expect_eq(meta->root_cause, meta->cause);
	cr_expect_eq(user->reason, PLAN_REASON_UPSTREAM_REBUILT);
	cr_expect_eq(p->root_causes, 1, "the group member is no root cause");
	cr_expect_eq(item(&w, p, "artifact:meta[root=b13]")->decision,
		     PLAN_REUSE, "another root's group");
	cr_expect_eq(item(&w, p, "artifact:wheel[root=b13]")->decision,
		     PLAN_REUSE);
	plan_free(p);
	/* Reused at versions that disagree: the whole group rebuilds. */
	w.salt_b12 = NULL;
	w.version = "1.0.dev1+g1";
	p = plan_with(&w, &o);
	cr_expect_eq(p->counts[PLAN_REUSE], 6, "versions agree");
	plan_free(p);
	w.odd_id = "artifact:meta[root=b12]";
	w.odd_version = "1.0.dev9+g9";
	p = plan_with(&w, &o);
	meta = item(&w, p, "artifact:meta[root=b12]");
	cr_expect_eq(meta->reason, PLAN_REASON_VERSION_GROUP);
	cr_expect_eq(meta->cause, -1);
	cr_expect_eq(item(&w, p, "artifact:wheel[root=b12]")->reason,
		     PLAN_REASON_VERSION_GROUP);
	cr_expect_eq(item(&w, p, "artifact:user[root=b12]")->reason,
		     PLAN_REASON_UPSTREAM_REBUILT);
	cr_expect_eq(p->root_causes, 2);
	cr_expect_eq(p->counts[PLAN_REUSE], 3);
	plan_free(p);
	teardown_world(&w);
}

Test(engine_plan, reason_names_are_stable)
{
	cr_expect_str_eq(plan_reason_name(PLAN_REASON_INPUT_CHANGED),
			 "input-content-changed");
	cr_expect_str_eq(plan_reason_name(PLAN_REASON_NO_BASELINE),
			 "no-baseline-run");
	cr_expect_str_eq(plan_reason_name(PLAN_REASON_ARTIFACT_MISSING),
			 "key-equal-artifact-missing");
	cr_expect_str_eq(plan_reason_name(PLAN_REASON_VERSION_DIFFERS),
			 "version-differs");
	cr_expect_str_eq(plan_reason_name(PLAN_REASON_VERSION_GROUP),
			 "version-group");
	cr_expect_str_eq(plan_decision_name(PLAN_REUSE), "reuse");
}

/* A remote cache stand-in: records only for keys prefetched before. */
struct batches {
	struct world *w;
	char seen[8][33];	/* keys prefetched so far */
	size_t n_seen;
	size_t sizes[4];	/* ids per prefetch call */
	size_t calls;
	int early;		/* a record asked before its prefetch */
};

static int
fake_prefetch(void *payload, const char *const *ids, const char *const *keys,
	      size_t n, struct error *err)
{
	struct batches *b = payload;
	size_t i;

	(void)ids;
	(void)err;
	cr_assert_lt(b->calls, 4);
	b->sizes[b->calls++] = n;
	for (i = 0; i < n && b->n_seen < 8; i++)
		snprintf(b->seen[b->n_seen++], 33, "%s", keys[i]);
	return 0;
}

static int
fake_by_key(void *payload, const char *key, size_t nth,
	    struct plan_record *out, struct error *err)
{
	struct batches *b = payload;
	size_t i;

	(void)err;
	if (nth)
		return 0;	/* one record per key */
	for (i = 0; i < b->n_seen; i++)
		if (!strcmp(b->seen[i], key))
			break;
	if (i == b->n_seen) {
		b->early = 1;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	out->run_id = "remote-run";
	out->key = b->seen[i];
	out->ok = 1;
	return 1;
}

/*
 * Keys depend on upstream decisions, so a remote cache is asked once per
 * topological level, with every node of that level, before any of them is
 * decided.
 */
Test(engine_plan, records_by_key_are_prefetched_a_level_at_a_time)
{
	struct graph_key_sources src = { fake_source, NULL, NULL, NULL, NULL };
	struct plan_options o = { .reuse = PLAN_REUSE_SCOPE_ANY };
	struct plan_history h;
	struct batches b;
	struct world w;
	struct plan *p = NULL;
	struct error err;

	setup_world(&w);
	src.payload = &w;
	memset(&b, 0, sizeof(b));
	b.w = &w;
	memset(&h, 0, sizeof(h));
	h.record_by_key = fake_by_key;
	h.prefetch = fake_prefetch;
	h.payload = &b;
	error_init(&err);
	cr_assert_eq(plan_compute(w.graph, NULL, NULL, &src, &h, &o, &p,
				  &err), 0, "%s", err.msg);
	cr_expect_eq(b.calls, 2, "two levels: wheels, then tests");
	cr_expect_eq(b.sizes[0], 2);
	cr_expect_eq(b.sizes[1], 2);
	cr_expect_eq(b.early, 0, "no record asked before its batch");
	cr_expect_eq(p->counts[PLAN_REUSE], 4);
	cr_expect_str_eq(item(&w, p, "test:t[root=b13]")->reused_run,
			 "remote-run");
	plan_free(p);
	teardown_world(&w);
}
