/*
 * Suite engine_plan_nomem: every allocation in graph_build,
 * graph_keys_compute and plan_compute made to fail in turn; each failure
 * must come back as an error (ERROR_NOMEM) and leave nothing behind.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/mem.h"
#include "engine/plan/plan.h"
#include "graph/digest.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "rules/rules.h"

static const char rules_text[] =
	"version: 1\n"
	"toolkits:\n"
	"  ctk12: {version: 12.9.1}\n"
	"  ctk13: {version: 13.0.2}\n"
	"roots:\n"
	"  b12: {path: b12, toolkit: ctk12}\n"
	"  b13: {path: b13, toolkit: ctk13}\n"
	"sources:\n"
	"  core-src: {paths: ['core/**'], exclude: ['core/tests/**']}\n"
	"axes:\n"
	"  python: ['3.12', '3.13']\n"
	"  cuda: ['12', '13']\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots, python: axes.python}\n"
	"    inputs: [root.sources]\n"
	"    toolkit: root.toolkit\n"
	"    env: {PY: '${python}'}\n"
	"    command: [build, '${root.path}', '${python}', '${toolkit.version}']\n"
	"  core-variant:\n"
	"    each: {cuda: axes.cuda}\n"
	"    inputs: [core-src]\n"
	"    needs: [{node: wheel, where: {root: 'roots[toolkit.major=${cuda}]'}}]\n"
	"    toolkit: 'toolkits[major=${cuda}]'\n"
	"    command: [build-core, '${cuda}']\n"
	"tests:\n"
	"  t:\n"
	"    each: {root: roots}\n"
	"    needs: [wheel, core-variant]\n"
	"    command: [pytest]\n";

/* Reused nodes only, so a reused record's strings are the last allocations. */
static const char flat_text[] =
	"version: 1\n"
	"roots:\n"
	"  b12: {path: b12}\n"
	"  b13: {path: b13}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots}\n"
	"    inputs: [root.sources]\n"
	"    command: [build, '${root.path}']\n";

struct world {
	const struct graph *graph;
	const struct graph_keys *base;
	const char *salt;
};

static int
fake_source(void *payload, const struct graph_input *in, struct digest *out,
	    struct error *err)
{
	struct world *w = payload;
	char buf[256];

	(void)err;
	snprintf(buf, sizeof(buf), "%s|%s", in->name,
		 strstr(in->name, "b12") || strstr(in->name, "core")
		 ? w->salt : "");
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
	out->run_id = "run-1";
	out->key = k->key.hex;
	out->ok = 1;
	out->output_digest = "0123456789abcdef0123456789abcdef";
	out->components = k->components;
	out->n_components = k->n_components;
	return 1;
}

static int
fake_input_diff(void *payload, struct arena *a, const char *name,
		const char *old_key, const char *new_key,
		struct plan_file_diff **out, size_t *n, struct error *err)
{
	struct plan_file_diff *d = arena_alloc(a, 2 * sizeof(*d));

	(void)payload;
	(void)name;
	(void)old_key;
	(void)new_key;
	if (!d)
		return error_set(err, ERROR_NOMEM, "out of memory");
	d[0].path = "core/a.py";
	d[0].status = PLAN_FILE_MODIFIED;
	d[0].old_id = "aaaa";
	d[0].new_id = "bbbb";
	d[1].path = "core/b.py";
	d[1].status = PLAN_FILE_ADDED;
	d[1].new_id = "cccc";
	*out = d;
	*n = 2;
	return 1;
}

/*
 * One pass: build the graph, the "recorded" keys (salt "old") and a plan
 * against them (salt "new"). Returns 0 or the first error.
 */
static int
one_pass(const struct rules *rules, struct error *err)
{
	struct world w = { NULL, NULL, "old" };
	struct graph_key_sources src = { fake_source, NULL, NULL, &w, NULL };
	struct plan_history h;
	struct plan_options o = { .reuse = PLAN_REUSE_SCOPE_BASELINE };
	struct graph *g = NULL;
	struct graph_keys *base = NULL;
	struct plan *p = NULL;
	int rc;

	rc = graph_build(rules, &g, err);
	if (rc)
		goto done;
	w.graph = g;
	rc = graph_keys_compute(g, NULL, &src, &base, err);
	if (rc)
		goto done;
	w.base = base;
	w.salt = "new";
	memset(&h, 0, sizeof(h));
	h.baseline_record = fake_record;
	h.input_diff = fake_input_diff;
	h.payload = &w;
	h.has_baseline = 1;
	h.baseline_label = "run-1";
	rc = plan_compute(g, NULL, NULL, &src, &h, &o, &p, err);
	if (rc)
		goto done;
	/* Every node decided, every reused record's strings copied. */
	{
		size_t i, j;

		for (i = 0; i < p->n; i++) {
			const struct plan_item *it = &p->items[i];

			if (it->decision == PLAN_REUSE &&
			    (!it->reused_run || !it->output_digest))
				rc = error_set(err, ERROR_INTERNAL,
					       "lost reuse strings");
			for (j = 0; j < it->n_changes; j++)
				if (!it->changes[j].name)
					rc = error_set(err, ERROR_INTERNAL,
						       "lost change name");
		}
	}
done:
	plan_free(p);
	graph_keys_free(base);
	graph_free(g);
	return rc;
}

Test(engine_plan_nomem, every_allocation_failure_is_reported)
{
	struct error_list errors;
	struct rules *rules = NULL;
	struct error err;
	long n;
	int rc, failures = 0;

	error_list_init(&errors, 10);
	cr_assert_eq(rules_load_buffer("t.yml", rules_text,
				       strlen(rules_text), &rules, &errors),
		     0);
	error_list_release(&errors);

	/* The pass succeeds without faults and has something to explain. */
	error_init(&err);
	cr_assert_eq(one_pass(rules, &err), 0, "%s", err.msg);

	for (n = 0; n < 100000; n++) {
		error_init(&err);
		mem_fault_after(n);
		rc = one_pass(rules, &err);
		if (!mem_fault_fired()) {
			mem_fault_after(-1);
			cr_assert_eq(rc, 0, "n=%ld: %s", n, err.msg);
			break;
		}
		mem_fault_after(-1);
		cr_assert_neq(rc, 0, "allocation %ld failed silently", n);
		cr_assert_neq(rc, ERROR_INTERNAL, "n=%ld: %s", n, err.msg);
		failures++;
	}
	cr_expect_gt(failures, 50);
	rules_free(rules);
}

/* Plans with reuse: the strings copied from a reused record are checked. */
Test(engine_plan_nomem, reuse_strings_allocation_failure_is_reported)
{
	struct error_list errors;
	struct rules *rules = NULL;
	struct graph *g = NULL;
	struct graph_keys *base = NULL;
	struct world w = { NULL, NULL, "same" };
	struct graph_key_sources src = { fake_source, NULL, NULL, &w, NULL };
	struct plan_history h;
	struct plan_options o = { .reuse = PLAN_REUSE_SCOPE_BASELINE };
	struct error err;
	long n;
	int rc;
	size_t reused = 0;

	error_list_init(&errors, 10);
	cr_assert_eq(rules_load_buffer("t.yml", flat_text,
				       strlen(flat_text), &rules, &errors),
		     0);
	error_list_release(&errors);
	error_init(&err);
	cr_assert_eq(graph_build(rules, &g, &err), 0);
	w.graph = g;
	cr_assert_eq(graph_keys_compute(g, NULL, &src, &base, &err), 0);
	w.base = base;
	memset(&h, 0, sizeof(h));
	h.baseline_record = fake_record;
	h.payload = &w;
	h.has_baseline = 1;
	for (n = 0; n < 100000; n++) {
		struct plan *p = NULL;
		size_t i;

		error_init(&err);
		mem_fault_after(n);
		rc = plan_compute(g, NULL, NULL, &src, &h, &o, &p, &err);
		mem_fault_after(-1);
		if (rc) {
			cr_assert_null(p);
			continue;
		}
		for (i = 0; i < p->n; i++) {
			if (p->items[i].decision != PLAN_REUSE)
				continue;
			reused++;
			cr_assert_not_null(p->items[i].reused_run,
					   "n=%ld: reused_run lost", n);
			cr_assert_not_null(p->items[i].output_digest,
					   "n=%ld: output_digest lost", n);
		}
		plan_free(p);
		if (!mem_fault_fired())
			break;
	}
	cr_expect_gt(reused, 0);
	graph_keys_free(base);
	graph_free(g);
	rules_free(rules);
}

/* Build the graph, base keys and plan of rules_text without faults. */
struct fixture {
	struct rules *rules;
	struct graph *g;
	struct graph_keys *base;
	struct world w;
	struct plan_history h;
};

static void
fixture_setup(struct fixture *f)
{
	struct graph_key_sources src = { fake_source, NULL, NULL, &f->w, NULL };
	struct error_list errors;
	struct error err;

	memset(f, 0, sizeof(*f));
	f->w.salt = "old";
	error_list_init(&errors, 10);
	cr_assert_eq(rules_load_buffer("t.yml", rules_text,
				       strlen(rules_text), &f->rules, &errors),
		     0);
	error_list_release(&errors);
	error_init(&err);
	cr_assert_eq(graph_build(f->rules, &f->g, &err), 0);
	f->w.graph = f->g;
	cr_assert_eq(graph_keys_compute(f->g, NULL, &src, &f->base, &err), 0);
	f->w.base = f->base;
	f->w.salt = "new";
	f->h.baseline_record = fake_record;
	f->h.input_diff = fake_input_diff;
	f->h.payload = &f->w;
	f->h.has_baseline = 1;
}

/*
 * One allocation failing at a time (later ones succeed): plan_compute
 * either fails with ERROR_NOMEM or gives the fault-free plan.
 */
Test(engine_plan_nomem, one_failed_allocation_fails_or_changes_nothing)
{
	struct fixture f;
	struct graph_key_sources src = { fake_source, NULL, NULL, &f.w, NULL };
	struct plan_options o = { .reuse = PLAN_REUSE_SCOPE_BASELINE };
	struct plan *want = NULL;
	struct error err;
	size_t i, j;
	long n;

	fixture_setup(&f);
	error_init(&err);
	cr_assert_eq(plan_compute(f.g, NULL, NULL, &src, &f.h, &o, &want,
				  &err), 0, "%s", err.msg);
	for (n = 0; n < 100000; n++) {
		struct plan *p = NULL;
		int rc, fired;

		error_init(&err);
		mem_fault_once(n);
		rc = plan_compute(f.g, NULL, NULL, &src, &f.h, &o, &p, &err);
		fired = mem_fault_fired();
		mem_fault_after(-1);
		if (rc) {
			cr_assert_eq(rc, ERROR_NOMEM, "n=%ld: %s", n, err.msg);
			cr_assert_null(p);
			continue;
		}
		for (i = 0; i < p->n; i++) {
			const struct plan_item *a = &p->items[i];
			const struct plan_item *b = &want->items[i];

			cr_assert_eq(a->decision, b->decision, "n=%ld", n);
			cr_assert_eq(a->reason, b->reason, "n=%ld", n);
			cr_assert_str_eq(a->key.hex, b->key.hex, "n=%ld", n);
			cr_assert_eq(a->n_changes, b->n_changes, "n=%ld", n);
			for (j = 0; j < a->n_changes; j++)
				cr_assert_str_eq(a->changes[j].name,
						 b->changes[j].name, "n=%ld",
						 n);
		}
		plan_free(p);
		if (!fired)
			break;
	}
	plan_free(want);
	graph_keys_free(f.base);
	graph_free(f.g);
	rules_free(f.rules);
}
