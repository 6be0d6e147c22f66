/*
 * Suite engine_plan_predict: early cutoff foreseen by the plan
 * (engine/plan/predict.c) over a fake history whose records key on their
 * upstreams' keys, as the base commit's own keys do (--assume-base-built).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "engine/plan/plan.h"
#include "graph/digest.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "rules/rules.h"

/* lib and meta pin each other (one version group); t tests lib. */
static const char rules_text[] =
	"version: 1\n"
	"roots:\n"
	"  lib: {path: lib}\n"
	"  meta: {path: meta}\n"
	"artifacts:\n"
	"  lib-wheel:\n"
	"    each: {root: [lib]}\n"
	"    inputs: [root.sources]\n"
	"    command: [build]\n"
	"    cutoff: %s\n"
	"    version-group: pinned\n"
	"  meta-wheel:\n"
	"    each: {root: [meta]}\n"
	"    inputs: [root.sources]\n"
	"    command: [build]\n"
	"    cutoff: payload\n"
	"    version-group: pinned\n"
	"tests:\n"
	"  t:\n"
	"    each: {root: [lib]}\n"
	"    needs: [lib-wheel]\n"
	"    command: [pytest]\n";

struct world {
	struct rules *rules;
	struct graph *graph;
	struct graph_keys *base;
	const char *edited;	/* the root whose sources changed */
	int no_payload;		/* records hold no payload digest */
};

static int
fake_source(void *payload, const struct graph_input *in, struct digest *out,
	    struct error *err)
{
	struct world *w = payload;
	char buf[256];

	(void)err;
	snprintf(buf, sizeof(buf), "%s|%s", in->name,
		 w->edited && strstr(in->name, w->edited) ? "edited" : "");
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
	if (!n)
		return 0;
	k = &w->base->keys[n->index];
	memset(out, 0, sizeof(*out));
	out->run_id = "base";
	out->key = k->key.hex;
	out->ok = 1;
	/* A `cutoff: payload` artifact's record holds its payload digest. */
	if (n->rule && n->rule->cutoff_payload && !w->no_payload)
		out->key_digest = "0123456789abcdef0123456789abcdef";
	out->components = k->components;
	out->n_components = k->n_components;
	return 1;
}

static void
setup(struct world *w, const char *cutoff)
{
	struct graph_key_sources src = { fake_source, NULL, NULL, w, NULL };
	struct error_list errors;
	struct error err;
	char text[2048];

	memset(w, 0, sizeof(*w));
	snprintf(text, sizeof(text), rules_text, cutoff);
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
teardown(struct world *w)
{
	graph_keys_free(w->base);
	graph_free(w->graph);
	rules_free(w->rules);
}

static struct plan *
plan_for(struct world *w, int assumed_base)
{
	struct graph_key_sources src = { fake_source, NULL, NULL, w, NULL };
	struct plan_options o = { .reuse = PLAN_REUSE_SCOPE_BASELINE,
				  .assumed_base = assumed_base };
	struct plan_history h;
	struct plan *p = NULL;
	struct error err;

	memset(&h, 0, sizeof(h));
	h.baseline_record = fake_record;
	h.payload = w;
	h.has_baseline = 1;
	error_init(&err);
	cr_assert_eq(plan_compute(w->graph, NULL, NULL, &src, &h, &o, &p,
				  &err), 0, "%s", err.msg);
	return p;
}

static const struct plan_item *
item(const struct world *w, const struct plan *p, const char *id)
{
	const struct graph_node *n = graph_find(w->graph, id);

	cr_assert_not_null(n, "%s", id);
	return &p->items[n->index];
}

/* meta's sources change: lib re-versions (its key is its record's), and
 * its test is expected to be cut off, naming lib as what decides it. */
Test(engine_plan_predict, reversioned_member_users_expected_cut_off)
{
	struct world w;
	struct plan *p;
	const struct plan_item *lib, *t;

	setup(&w, "payload");
	w.edited = "meta";
	p = plan_for(&w, 1);
	lib = item(&w, p, "artifact:lib-wheel[root=lib]");
	t = item(&w, p, "test:t[root=lib]");
	cr_expect_eq(lib->reason, PLAN_REASON_VERSION_GROUP);
	cr_expect_eq(lib->output_expect, PLAN_EXPECT_CUTOFF);
	cr_expect_eq(t->decision, PLAN_TEST);
	cr_expect_eq(t->expect, PLAN_EXPECT_CUTOFF);
	cr_expect_eq(t->expect_on, (long)graph_find(w.graph,
			"artifact:lib-wheel[root=lib]")->index);
	cr_expect_eq(p->expected[PLAN_EXPECT_CUTOFF], 1);
	plan_free(p);
	teardown(&w);
}

/* Without `cutoff: payload` lib's users see its bytes, which carry the
 * new version: nothing is foreseen. */
Test(engine_plan_predict, reversioned_bytes_foresee_nothing)
{
	struct world w;
	struct plan *p;

	setup(&w, "bytes");
	w.edited = "meta";
	p = plan_for(&w, 1);
	cr_expect_eq(item(&w, p, "test:t[root=lib]")->expect,
		     PLAN_EXPECT_NONE);
	cr_expect_eq(p->expected[PLAN_EXPECT_CUTOFF], 0);
	plan_free(p);
	teardown(&w);
}

/* lib's own sources change: its payload is unknown until built, so its
 * test is cut off only if the payload stays. */
Test(engine_plan_predict, rebuilt_payload_users_cut_off_if_unchanged)
{
	struct world w;
	struct plan *p;
	const struct plan_item *t;

	setup(&w, "payload");
	w.edited = "lib";
	p = plan_for(&w, 0);
	t = item(&w, p, "test:t[root=lib]");
	cr_expect_eq(t->reason, PLAN_REASON_UPSTREAM_REBUILT);
	cr_expect_eq(t->expect, PLAN_EXPECT_IF_PAYLOAD);
	cr_expect_eq(p->expected[PLAN_EXPECT_IF_PAYLOAD], 1);
	plan_free(p);
	teardown(&w);
}

/* A run's record made before the rule said `cutoff: payload` has no
 * payload digest: its users took its bytes, so nothing is foreseen. */
Test(engine_plan_predict, record_without_payload_digest_foresees_nothing)
{
	struct world w;
	struct plan *p;

	setup(&w, "payload");
	w.no_payload = 1;
	w.edited = "lib";
	p = plan_for(&w, 0);
	cr_expect_eq(item(&w, p, "test:t[root=lib]")->expect,
		     PLAN_EXPECT_NONE);
	plan_free(p);
	teardown(&w);
}

/*
 * Against a run's records (not an assumed-built base), a key equal to
 * its record's while an upstream builds means the record was made
 * against that upstream's key, not its output: the run cannot cut it
 * off, so nothing is foreseen.
 */
Test(engine_plan_predict, equal_key_of_a_run_record_foresees_nothing)
{
	struct world w;
	struct plan *p;

	setup(&w, "payload");
	w.edited = "meta";
	p = plan_for(&w, 0);
	cr_expect_eq(item(&w, p, "test:t[root=lib]")->expect,
		     PLAN_EXPECT_NONE);
	plan_free(p);
	teardown(&w);
}
