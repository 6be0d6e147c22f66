/*
 * Machine renderings of plans: JSON (ripple-plan-v1) and why (ripple-why-v1).
 * GitHub Actions outputs and the step summary are in report_github.c.
 */
#include "engine/plan/report.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/utf8.h"
#include "engine/plan/plan.h"
#include "engine/plan/remote.h"
#include "graph/graph.h"
#include "base/banned.h"

/* Paths are bytes: invalid UTF-8 bytes become "\xHH" (utf8_escape). */
static json_t *
text(const char *s)
{
	json_t *j = json_string(s);
	char *esc;

	if (j || !s)
		return j;
	esc = utf8_escape(s);
	j = esc ? json_string(esc) : NULL;
	mem_free(esc);
	return j;
}

json_t *
report_json_text(const char *s)
{
	return s ? text(s) : json_null();
}

static json_t *
str_or_null(const char *s)
{
	return report_json_text(s);
}

static json_t *
strings(const char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, text(v[i]));
	return a;
}

json_t *
report_change_json(const struct plan_change *c)
{
	static const char *const kinds[] = {
		[PLAN_CHANGE_FILE] = "file", [PLAN_CHANGE_RULE] = "rule",
		[PLAN_CHANGE_TOOLKIT] = "toolkit",
		[PLAN_CHANGE_INPUT] = "input",
		[PLAN_CHANGE_UPSTREAM] = "upstream",
		[PLAN_CHANGE_OTHER] = "other",
		[PLAN_CHANGE_VERSION] = "version",
	};
	json_t *o = json_object();

	json_object_set_new(o, "kind", json_string(kinds[c->kind]));
	json_object_set_new(o, "name", str_or_null(c->name));
	json_object_set_new(o, "old", str_or_null(c->old_value));
	json_object_set_new(o, "new", str_or_null(c->new_value));
	if (c->kind == PLAN_CHANGE_FILE) {
		json_object_set_new(o, "path", text(c->path));
		json_object_set_new(o, "status", json_string(
			plan_file_status_name(c->status)));
	}
	return o;
}

/* {"covered": N, "nodes": M} for a baseline run, else null. */
static json_t *
coverage_json(const struct plan_meta *m)
{
	json_t *o;

	if (!m->baseline_run || m->baseline_nodes < 0)
		return json_null();
	o = json_object();
	json_object_set_new(o, "covered",
			    json_integer((json_int_t)m->baseline_covered));
	json_object_set_new(o, "nodes",
			    json_integer((json_int_t)m->baseline_nodes));
	return o;
}

/* {"kind": "expected"|"if-payload-unchanged", "on": ID}, or null. */
static json_t *
expect_json(const struct graph *g, const struct plan_item *it)
{
	json_t *o;

	if (it->expect == PLAN_EXPECT_NONE)
		return json_null();
	o = json_object();
	json_object_set_new(o, "kind", json_string(
		it->expect == PLAN_EXPECT_CUTOFF ? "expected"
						 : "if-payload-unchanged"));
	json_object_set_new(o, "on", it->expect_on >= 0
		? json_string(g->nodes[it->expect_on].id) : json_null());
	return o;
}

static json_t *
item_json(const struct graph *g, const struct plan *p, size_t i)
{
	const struct graph_node *n = &g->nodes[i];
	const struct plan_item *it = &p->items[i];
	json_t *o = json_object(), *axes = json_object(), *ch = json_array();
	size_t k;

	for (k = 0; k < n->n_axes; k++)
		json_object_set_new(axes, n->axes[k].axis,
				    json_string(n->axes[k].value));
	for (k = 0; k < it->n_changes; k++)
		json_array_append_new(ch, report_change_json(&it->changes[k]));
	json_object_set_new(o, "id", json_string(n->id));
	json_object_set_new(o, "kind",
			    json_string(graph_node_kind_name(n->kind)));
	json_object_set_new(o, "rule", json_string(n->name));
	json_object_set_new(o, "axes", axes);
	json_object_set_new(o, "decision",
			    json_string(plan_decision_name(it->decision)));
	json_object_set_new(o, "reason",
			    json_string(plan_reason_name(it->reason)));
	json_object_set_new(o, "key", it->decision == PLAN_SKIP
					      ? json_null()
					      : json_string(it->key.hex));
	json_object_set_new(o, "cascade_of", it->cause >= 0
		? json_string(g->nodes[it->cause].id) : json_null());
	json_object_set_new(o, "root_cause", it->root_cause >= 0
		? json_string(g->nodes[it->root_cause].id) : json_null());
	json_object_set_new(o, "reused_from_run", str_or_null(it->reused_run));
	json_object_set_new(o, "reused_from_remote", it->remote
		? json_string(it->remote->url) : json_null());
	json_object_set_new(o, "output_digest", str_or_null(it->output_digest));
	json_object_set_new(o, "selected", json_boolean(it->selected));
	json_object_set_new(o, "expected_cutoff", expect_json(g, it));
	json_object_set_new(o, "changes", ch);
	return o;
}

static int
dump(json_t *doc, size_t flags, struct buf *out, struct error *err)
{
	char *s;
	int rc;

	if (!doc)
		return error_set(err, ERROR_NOMEM, "out of memory");
	s = json_dumps(doc, flags | JSON_SORT_KEYS);
	json_decref(doc);
	if (!s)
		return error_set(err, ERROR_NOMEM, "out of memory");
	rc = buf_addstr(out, s, err);
	free(s);
	return rc;
}

int
report_plan_json(const struct graph *g, const struct plan *p,
		 const struct plan_meta *m, struct buf *out, struct error *err)
{
	json_t *doc = json_object(), *nodes = json_array(),
	       *counts = json_object();
	size_t i;
	int rc;

	/* Every node, skipped ones too, so the counts add up. */
	for (i = 0; i < p->n; i++)
		json_array_append_new(nodes, item_json(g, p, i));
	for (i = 0; i <= PLAN_REMOTE; i++)
		json_object_set_new(counts, plan_decision_name(i),
				    json_integer((json_int_t)p->counts[i]));
	json_object_set_new(doc, "schema", json_string("ripple-plan-v1"));
	json_object_set_new(doc, "head", str_or_null(m->head));
	json_object_set_new(doc, "base", str_or_null(m->base));
	json_object_set_new(doc, "mode", str_or_null(m->mode));
	json_object_set_new(doc, "baseline_run", str_or_null(m->baseline_run));
	json_object_set_new(doc, "baseline_coverage", coverage_json(m));
	json_object_set_new(doc, "forced", str_or_null(m->forced_reason));
	json_object_set_new(doc, "changed_paths",
			    strings(m->changed, m->n_changed));
	json_object_set_new(doc, "unclaimed_paths",
			    strings(m->unclaimed, m->n_unclaimed));
	json_object_set_new(doc, "ignored_paths",
			    strings(m->ignored, m->n_ignored));
	json_object_set_new(doc, "counts", counts);
	json_object_set_new(doc, "root_causes",
			    json_integer((json_int_t)p->root_causes));
	json_object_set_new(doc, "expected_cutoff", json_pack(
		"{s:I,s:I}", "expected",
		(json_int_t)p->expected[PLAN_EXPECT_CUTOFF],
		"if_payload_unchanged",
		(json_int_t)p->expected[PLAN_EXPECT_IF_PAYLOAD]));
	json_object_set_new(doc, "nodes", nodes);
	rc = dump(doc, JSON_INDENT(2), out, err);
	if (!rc)
		rc = buf_addch(out, '\n', err);
	return rc;
}

int
report_why_json(const struct graph *g, const struct plan *p, size_t i,
		const struct plan_meta *m, struct buf *out, struct error *err)
{
	json_t *doc = json_object(), *chain = json_array();
	long at;
	size_t guard = 0;
	int rc;

	json_object_set_new(doc, "schema", json_string("ripple-why-v1"));
	json_object_set_new(doc, "node", item_json(g, p, i));
	json_object_set_new(doc, "baseline_run", str_or_null(m->baseline_run));
	json_object_set_new(doc, "baseline_coverage", coverage_json(m));
	json_object_set_new(doc, "compared_with",
			    str_or_null(m->baseline_label));
	json_object_set_new(doc, "forced", str_or_null(m->forced_reason));
	if (plan_item_follows(&p->items[i]))
		for (at = p->items[i].cause; at >= 0 && guard++ < p->n;
		     at = p->items[at].cause) {
			json_array_append_new(chain, item_json(g, p,
							       (size_t)at));
			if (!plan_item_follows(&p->items[at]))
				break;
		}
	json_object_set_new(doc, "chain", chain);
	rc = dump(doc, JSON_INDENT(2), out, err);
	if (!rc)
		rc = buf_addch(out, '\n', err);
	return rc;
}
