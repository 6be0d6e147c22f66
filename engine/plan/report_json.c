/*
 * Machine renderings of plans: JSON (ripple-plan-v1) and why (ripple-why-v1).
 * GitHub Actions outputs and the step summary are in report_github.c.
 */
#include "engine/plan/report.h"

#include <stdio.h>
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

/* The kind names of plan changes, as the schema spells them. */
static const char *const change_kinds[] = {
	[PLAN_CHANGE_FILE] = "file", [PLAN_CHANGE_RULE] = "rule",
	[PLAN_CHANGE_TOOLKIT] = "toolkit",
	[PLAN_CHANGE_INPUT] = "input",
	[PLAN_CHANGE_UPSTREAM] = "upstream",
	[PLAN_CHANGE_OTHER] = "other",
	[PLAN_CHANGE_VERSION] = "version",
};

json_t *
report_change_json(const struct plan_change *c)
{
	json_t *o = json_object();

	json_object_set_new(o, "kind", json_string(change_kinds[c->kind]));
	json_object_set_new(o, "name", report_json_text(c->name));
	json_object_set_new(o, "old", report_json_text(c->old_value));
	json_object_set_new(o, "new", report_json_text(c->new_value));
	if (c->kind == PLAN_CHANGE_FILE) {
		json_object_set_new(o, "path", text(c->path));
		json_object_set_new(o, "status", json_string(
			plan_file_status_name(c->status)));
	}
	return o;
}

/*
 * Plans and whys are written straight into the output buffer, in the
 * bytes jansson's json_dumps(JSON_INDENT(2) | JSON_SORT_KEYS) gave when
 * they were built as trees (the schema and every consumer saw those): keys
 * in strcmp order, two spaces a level, ": " after a key, "[]" and "{}"
 * when empty, control characters as \b \f \n \r \t or \u00XX (uppercase
 * hex). A plan of 500 nodes is 200 KB; building the tree and dumping it
 * cost more than planning (tests/engine/plan/report_json_test.c checks
 * the bytes against jansson's).
 */
#define JW_DEPTH 8

struct jw {
	struct buf *b;
	struct error *err;
	int rc;
	int depth;
	unsigned char first[JW_DEPTH];	/* nothing written at this level */
};

static void
jw_raw(struct jw *w, const char *s, size_t n)
{
	struct buf *b = w->b;

	if (w->rc)
		return;
	if (b->cap && !b->max && b->len + n < b->cap) {
		/* The common case, without buf_add's checks. */
		memcpy(b->data + b->len, s, n);
		b->len += n;
		b->data[b->len] = '\0';
		return;
	}
	w->rc = buf_add(b, s, n, w->err);
}

/* The separator before a member or element: ",", newline, indent. */
static void
jw_next(struct jw *w)
{
	static const char spaces[] = "                ";
	int n = 2 * w->depth;

	if (!w->first[w->depth])
		jw_raw(w, ",", 1);
	w->first[w->depth] = 0;
	jw_raw(w, "\n", 1);
	for (; n > 0; n -= 16)
		jw_raw(w, spaces, n < 16 ? (size_t)n : 16);
}

static void
jw_open(struct jw *w, char c)
{
	jw_raw(w, &c, 1);
	if (w->depth + 1 >= JW_DEPTH) {
		if (!w->rc)
			w->rc = error_set(w->err, ERROR_INTERNAL,
					  "JSON nested too deep");
		return;
	}
	w->first[++w->depth] = 1;
}

static void
jw_close(struct jw *w, char c)
{
	int empty = w->first[w->depth];
	int n = 2 * --w->depth;

	if (!empty) {
		jw_raw(w, "\n", 1);
		for (; n > 0; n--)
			jw_raw(w, " ", 1);
	}
	jw_raw(w, &c, 1);
}

/* A string's bytes, escaped as jansson escapes them (valid UTF-8). */
static void
jw_quoted(struct jw *w, const char *s)
{
	const char *run = s;
	char esc[8];

	jw_raw(w, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		const char *e = NULL;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		jw_raw(w, run, (size_t)(s - run));
		run = s + 1;
		switch (c) {
		case '"': e = "\\\""; break;
		case '\\': e = "\\\\"; break;
		case '\b': e = "\\b"; break;
		case '\f': e = "\\f"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		default:
			snprintf(esc, sizeof(esc), "\\u%04X", c);
			e = esc;
		}
		jw_raw(w, e, strlen(e));
	}
	jw_raw(w, run, (size_t)(s - run));
	jw_raw(w, "\"", 1);
}

/* Text from data: NULL is null, bytes not UTF-8 become "\xHH". */
static void
jw_str(struct jw *w, const char *s)
{
	char *esc;

	if (!s) {
		jw_raw(w, "null", 4);
	} else if (utf8_is_valid(s)) {
		jw_quoted(w, s);
	} else {
		esc = utf8_escape(s);
		if (!esc && !w->rc)
			w->rc = error_set(w->err, ERROR_NOMEM,
					  "out of memory");
		if (esc)
			jw_quoted(w, esc);
		mem_free(esc);
	}
}

static void
jw_key(struct jw *w, const char *k)
{
	jw_next(w);
	jw_quoted(w, k);
	jw_raw(w, ": ", 2);
}

static void
jw_kstr(struct jw *w, const char *k, const char *v)
{
	jw_key(w, k);
	jw_str(w, v);
}

static void
jw_kint(struct jw *w, const char *k, long long v)
{
	char num[32];

	jw_key(w, k);
	snprintf(num, sizeof(num), "%lld", v);
	jw_raw(w, num, strlen(num));
}

static void
jw_strings(struct jw *w, const char *k, const char *const *v, size_t n)
{
	size_t i;

	jw_key(w, k);
	jw_open(w, '[');
	for (i = 0; i < n; i++) {
		jw_next(w);
		jw_str(w, v[i]);
	}
	jw_close(w, ']');
}

/*
 * Indices 0..n-1 of names[] in strcmp order, a later equal name replacing
 * an earlier one (an object holds a key once), into idx; how many.
 */
static size_t
sorted_names(const char *const *names, size_t n, size_t *idx)
{
	size_t i, k, m = 0;

	for (i = 0; i < n; i++) {
		for (k = 0; k < m && strcmp(names[idx[k]], names[i]); k++)
			;
		if (k < m) {
			idx[k] = i;
			continue;
		}
		for (k = m++; k > 0 && strcmp(names[idx[k - 1]], names[i]) > 0;
		     k--)
			idx[k] = idx[k - 1];
		idx[k] = i;
	}
	return m;
}

static void
jw_change(struct jw *w, const struct plan_change *c)
{
	jw_open(w, '{');
	jw_kstr(w, "kind", change_kinds[c->kind]);
	jw_kstr(w, "name", c->name);
	jw_kstr(w, "new", c->new_value);
	jw_kstr(w, "old", c->old_value);
	if (c->kind == PLAN_CHANGE_FILE) {
		if (c->path)
			jw_kstr(w, "path", c->path);
		jw_kstr(w, "status", plan_file_status_name(c->status));
	}
	jw_close(w, '}');
}

/* {"covered": N, "nodes": M} for a baseline run, else null. */
static void
jw_coverage(struct jw *w, const struct plan_meta *m)
{
	jw_key(w, "baseline_coverage");
	if (!m->baseline_run || m->baseline_nodes < 0) {
		jw_raw(w, "null", 4);
		return;
	}
	jw_open(w, '{');
	jw_kint(w, "covered", m->baseline_covered);
	jw_kint(w, "nodes", m->baseline_nodes);
	jw_close(w, '}');
}

static void
jw_axes(struct jw *w, const struct graph_node *n)
{
	const char **names = NULL;
	size_t *idx = NULL, i, m;

	jw_key(w, "axes");
	jw_open(w, '{');
	if (n->n_axes) {
		names = mem_calloc(n->n_axes, sizeof(*names));
		idx = mem_calloc(n->n_axes, sizeof(*idx));
		if (!names || !idx) {
			if (!w->rc)
				w->rc = error_set(w->err, ERROR_NOMEM,
						  "out of memory");
			n = NULL;
		}
	}
	for (i = 0; n && i < n->n_axes; i++)
		names[i] = n->axes[i].axis;
	m = n ? sorted_names(names, n->n_axes, idx) : 0;
	for (i = 0; i < m; i++) {
		jw_key(w, n->axes[idx[i]].axis);
		jw_str(w, n->axes[idx[i]].value);
	}
	mem_free(names);
	mem_free(idx);
	jw_close(w, '}');
}

/* {"kind": "expected"|"if-payload-unchanged", "on": ID}, or null. */
static void
jw_expect(struct jw *w, const struct graph *g, const struct plan_item *it)
{
	jw_key(w, "expected_cutoff");
	if (it->expect == PLAN_EXPECT_NONE) {
		jw_raw(w, "null", 4);
		return;
	}
	jw_open(w, '{');
	jw_kstr(w, "kind", it->expect == PLAN_EXPECT_CUTOFF
		? "expected" : "if-payload-unchanged");
	jw_kstr(w, "on", it->expect_on >= 0 ? g->nodes[it->expect_on].id
					    : NULL);
	jw_close(w, '}');
}

static void
jw_item(struct jw *w, const struct graph *g, const struct plan *p, size_t i)
{
	const struct graph_node *n = &g->nodes[i];
	const struct plan_item *it = &p->items[i];
	size_t k;

	jw_open(w, '{');
	jw_axes(w, n);
	jw_kstr(w, "cascade_of", it->cause >= 0 ? g->nodes[it->cause].id
						 : NULL);
	jw_key(w, "changes");
	jw_open(w, '[');
	for (k = 0; k < it->n_changes; k++) {
		jw_next(w);
		jw_change(w, &it->changes[k]);
	}
	jw_close(w, ']');
	jw_kstr(w, "decision", plan_decision_name(it->decision));
	jw_expect(w, g, it);
	jw_kstr(w, "id", n->id);
	jw_kstr(w, "key", it->decision == PLAN_SKIP ? NULL : it->key.hex);
	jw_kstr(w, "kind", graph_node_kind_name(n->kind));
	jw_kstr(w, "output_digest", it->output_digest);
	jw_kstr(w, "reason", plan_reason_name(it->reason));
	jw_kstr(w, "reused_from_remote", it->remote ? it->remote->url : NULL);
	jw_kstr(w, "reused_from_run", it->reused_run);
	jw_kstr(w, "root_cause", it->root_cause >= 0
		? g->nodes[it->root_cause].id : NULL);
	jw_kstr(w, "rule", n->name);
	jw_key(w, "selected");
	if (it->selected)
		jw_raw(w, "true", 4);
	else
		jw_raw(w, "false", 5);
	jw_close(w, '}');
}

static void
jw_counts(struct jw *w, const struct plan *p)
{
	const char *names[PLAN_REMOTE + 1];
	size_t idx[PLAN_REMOTE + 1], i, m;

	for (i = 0; i <= PLAN_REMOTE; i++)
		names[i] = plan_decision_name(i);
	m = sorted_names(names, PLAN_REMOTE + 1, idx);
	jw_key(w, "counts");
	jw_open(w, '{');
	for (i = 0; i < m; i++)
		jw_kint(w, names[idx[i]], (long long)p->counts[idx[i]]);
	jw_close(w, '}');
}

int
report_plan_json(const struct graph *g, const struct plan *p,
		 const struct plan_meta *m, struct buf *out, struct error *err)
{
	struct jw w = { out, err, 0, 0, { 1 } };
	size_t i;

	/* Some 430 bytes a node; one allocation for most plans. */
	w.rc = buf_grow(out, 1024 + 512 * p->n, err);
	jw_open(&w, '{');
	jw_kstr(&w, "base", m->base);
	jw_coverage(&w, m);
	jw_kstr(&w, "baseline_run", m->baseline_run);
	jw_strings(&w, "changed_paths", m->changed, m->n_changed);
	jw_counts(&w, p);
	jw_key(&w, "expected_cutoff");
	jw_open(&w, '{');
	jw_kint(&w, "expected", (long long)p->expected[PLAN_EXPECT_CUTOFF]);
	jw_kint(&w, "if_payload_unchanged",
		(long long)p->expected[PLAN_EXPECT_IF_PAYLOAD]);
	jw_close(&w, '}');
	jw_kstr(&w, "forced", m->forced_reason);
	jw_kstr(&w, "head", m->head);
	jw_strings(&w, "ignored_paths", m->ignored, m->n_ignored);
	jw_kstr(&w, "mode", m->mode);
	/* Every node, skipped ones too, so the counts add up. */
	jw_key(&w, "nodes");
	jw_open(&w, '[');
	for (i = 0; i < p->n; i++) {
		jw_next(&w);
		jw_item(&w, g, p, i);
	}
	jw_close(&w, ']');
	jw_kint(&w, "root_causes", (long long)p->root_causes);
	jw_kstr(&w, "schema", "ripple-plan-v1");
	jw_strings(&w, "unclaimed_paths", m->unclaimed, m->n_unclaimed);
	jw_close(&w, '}');
	jw_raw(&w, "\n", 1);
	return w.rc;
}

int
report_why_json(const struct graph *g, const struct plan *p, size_t i,
		const struct plan_meta *m, struct buf *out, struct error *err)
{
	struct jw w = { out, err, 0, 0, { 1 } };
	long at;
	size_t guard = 0;

	jw_open(&w, '{');
	jw_coverage(&w, m);
	jw_kstr(&w, "baseline_run", m->baseline_run);
	jw_key(&w, "chain");
	jw_open(&w, '[');
	if (plan_item_follows(&p->items[i]))
		for (at = p->items[i].cause; at >= 0 && guard++ < p->n;
		     at = p->items[at].cause) {
			jw_next(&w);
			jw_item(&w, g, p, (size_t)at);
			if (!plan_item_follows(&p->items[at]))
				break;
		}
	jw_close(&w, ']');
	jw_kstr(&w, "compared_with", m->baseline_label);
	jw_kstr(&w, "forced", m->forced_reason);
	jw_key(&w, "node");
	jw_item(&w, g, p, i);
	jw_kstr(&w, "schema", "ripple-why-v1");
	jw_close(&w, '}');
	jw_raw(&w, "\n", 1);
	return w.rc;
}
