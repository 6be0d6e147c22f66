/*
 * Machine renderings of plans: JSON (ripple-plan-v1), GitHub Actions
 * outputs with matrices per job group, and the Markdown step summary.
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

static json_t *
str_or_null(const char *s)
{
	return s ? text(s) : json_null();
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
	json_object_set_new(o, "output_digest", str_or_null(it->output_digest));
	json_object_set_new(o, "selected", json_boolean(it->selected));
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
	json_object_set_new(doc, "nodes", nodes);
	rc = dump(doc, JSON_INDENT(2), out, err);
	if (!rc)
		rc = buf_addch(out, '\n', err);
	return rc;
}

static int
runs(const struct plan_item *it)
{
	return it->decision == PLAN_BUILD || it->decision == PLAN_TEST;
}

/* One matrix for the nodes of one rule that must run. */
static int
group_matrix(const struct graph *g, const struct plan *p, const char *kind,
	     const char *name, struct buf *out, struct error *err)
{
	json_t *include = json_array(), *doc = json_object();
	size_t i, n = 0, per, k, at = 0;
	json_t *entry = NULL;
	struct buf ids;
	char *s;
	int rc = 0;

	for (i = 0; i < p->n; i++)
		if (p->in_closure[i] && runs(&p->items[i]) &&
		    !strcmp(g->nodes[i].name, name) &&
		    !strcmp(graph_node_kind_name(g->nodes[i].kind), kind))
			n++;
	per = (n + REPORT_GHA_MATRIX_MAX - 1) / REPORT_GHA_MATRIX_MAX;
	if (!per)
		per = 1;
	buf_init(&ids, 0);
	for (i = 0; i < p->n; i++) {
		const struct graph_node *node = &g->nodes[i];

		if (!p->in_closure[i] || !runs(&p->items[i]) ||
		    strcmp(node->name, name) ||
		    strcmp(graph_node_kind_name(node->kind), kind))
			continue;
		if (!entry) {
			entry = json_object();
			if (per == 1)
				for (k = 0; k < node->n_axes; k++)
					json_object_set_new(entry,
						node->axes[k].axis,
						json_string(node->axes[k].value));
			buf_reset(&ids);
		}
		buf_addf(&ids, NULL, "%s%s", ids.len ? " " : "", node->id);
		if (++at % per == 0) {
			json_object_set_new(entry, "nodes",
					    json_string(ids.data));
			json_array_append_new(include, entry);
			entry = NULL;
		}
	}
	if (entry) {
		json_object_set_new(entry, "nodes", json_string(ids.data));
		json_array_append_new(include, entry);
	}
	buf_release(&ids);
	json_object_set_new(doc, "include", include);
	s = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(doc);
	if (!s)
		return error_set(err, ERROR_NOMEM, "out of memory");
	if (strlen(s) > REPORT_GHA_OUTPUT_MAX)
		rc = error_set(err, ERROR_INVALID,
			       "matrix-%s-%s is %zu bytes, over GitHub's "
			       "1 MB output limit", kind, name, strlen(s));
	else
		rc = buf_addf(out, err, "matrix-%s-%s=%s\n", kind, name, s);
	free(s);
	return rc;
}

int
report_plan_github(const struct graph *g, const struct plan *p,
		   const struct plan_meta *m, struct buf *out,
		   struct error *err)
{
	json_t *doc = json_object();
	size_t i, j, nb = 0, nt = 0;
	int rc;
	char *s;

	(void)m;
	for (i = 0; i <= PLAN_REMOTE; i++)
		json_object_set_new(doc, plan_decision_name(i), json_array());
	for (i = 0; i < p->n; i++) {
		if (!p->in_closure[i])
			continue;
		json_array_append_new(
			json_object_get(doc, plan_decision_name(
					p->items[i].decision)),
			json_string(g->nodes[i].id));
		nb += p->items[i].decision == PLAN_BUILD;
		nt += p->items[i].decision == PLAN_TEST;
	}
	s = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(doc);
	if (!s)
		return error_set(err, ERROR_NOMEM, "out of memory");
	if (strlen(s) > REPORT_GHA_OUTPUT_MAX) {
		free(s);
		return error_set(err, ERROR_INVALID,
				 "the plan output is over GitHub's 1 MB "
				 "output limit");
	}
	rc = buf_addf(out, err, "plan=%s\nbuild=%s\ntest=%s\n", s,
		      nb ? "true" : "false", nt ? "true" : "false");
	free(s);
	/* Job groups in (kind, rule) order, each once. */
	for (j = 0; !rc && j < 2; j++) {
		const char *kind = j ? "test" : "artifact";

		for (i = 0; !rc && i < p->n; i++) {
			const struct graph_node *n = &g->nodes[i];
			size_t k;
			int first = 1;

			if (strcmp(graph_node_kind_name(n->kind), kind))
				continue;
			for (k = 0; k < i && first; k++)
				if (g->nodes[k].kind == n->kind &&
				    !strcmp(g->nodes[k].name, n->name))
					first = 0;
			if (first)
				rc = group_matrix(g, p, kind, n->name, out,
						  err);
		}
	}
	return rc;
}

static void
mermaid_id(struct buf *b, size_t i)
{
	buf_addf(b, NULL, "n%zu", i);
}

int
report_plan_summary(const struct graph *g, const struct plan *p,
		    const struct plan_meta *m, struct buf *out,
		    struct error *err)
{
	struct buf graph;
	size_t i, k, start = out->len;

	buf_addf(out, err, "## ripple plan\n\n| build | test | reuse | skip | "
		 "root causes |\n|---|---|---|---|---|\n| %zu | %zu | %zu | "
		 "%zu | %zu |\n\n", p->counts[PLAN_BUILD],
		 p->counts[PLAN_TEST], p->counts[PLAN_REUSE],
		 p->counts[PLAN_SKIP], p->root_causes);
	buf_addf(out, err, "Baseline: %s\n\n",
		 m->baseline_label ? m->baseline_label : "none");
	if (m->forced_reason)
		buf_addf(out, err, "Everything runs: %s\n\n", m->forced_reason);
	if (m->n_unclaimed) {
		buf_addstr(out, "### Unclaimed paths\n\n", err);
		for (i = 0; i < m->n_unclaimed; i++)
			buf_addf(out, err, "- `%s`\n", m->unclaimed[i]);
		buf_addch(out, '\n', err);
	}
	buf_addstr(out, "### Root causes\n\n", err);
	for (i = 0; i < p->n; i++) {
		const struct plan_item *it = &p->items[i];

		if (!p->in_closure[i] || it->decision == PLAN_REUSE ||
		    plan_item_follows(it))
			continue;
		buf_addf(out, err, "- `%s`: ", g->nodes[i].id);
		report_item_reason(g, p, i, out, err);
		buf_addch(out, '\n', err);
		if (out->len - start > REPORT_GHA_SUMMARY_MAX / 2) {
			buf_addstr(out, "- ... (list cut to fit GitHub's "
					"summary limit)\n", err);
			break;
		}
	}
	buf_init(&graph, 0);
	buf_addstr(&graph, "\n### Graph\n\n```mermaid\nflowchart LR\n", err);
	for (i = 0; i < p->n; i++) {
		if (!p->in_closure[i])
			continue;
		buf_addstr(&graph, "  ", NULL);
		mermaid_id(&graph, i);
		buf_addf(&graph, NULL, "[\"%s\"]:::%s\n", g->nodes[i].id,
			 plan_decision_name(p->items[i].decision));
		for (k = 0; k < g->nodes[i].n_deps; k++) {
			buf_addstr(&graph, "  ", NULL);
			mermaid_id(&graph, g->nodes[i].deps[k]);
			buf_addstr(&graph, " --> ", NULL);
			mermaid_id(&graph, i);
			buf_addch(&graph, '\n', NULL);
		}
	}
	buf_addstr(&graph,
		   "  classDef build fill:#f9d77e\n"
		   "  classDef test fill:#f9d77e\n"
		   "  classDef reuse fill:#a6e3a1\n"
		   "  classDef skip fill:#dddddd\n```\n", NULL);
	if (out->len - start + graph.len <= REPORT_GHA_SUMMARY_MAX)
		buf_add(out, graph.data, graph.len, err);
	else
		buf_addstr(out, "\n(The graph is left out: it would exceed "
				"GitHub's 1 MiB summary limit.)\n", err);
	buf_release(&graph);
	return err && err->code ? err->code : 0;
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
