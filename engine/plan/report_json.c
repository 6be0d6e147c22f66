/*
 * Machine renderings of plans: JSON (ripple-plan-v1) and why (ripple-why-v1).
 * GitHub Actions outputs and the step summary are in report_github.c.
 */
#include "engine/plan/report.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/utf8.h"
#include "engine/plan/plan.h"
#include "engine/plan/remote.h"
#include "graph/graph.h"
#include "base/banned.h"

/*
 * A document built and dumped inside a scope allocates from an arena: the
 * plan of the 100k bench makes some 20,000 jansson values and hashtable
 * pairs, and malloc, free and json_decref's walk over them cost 9 M
 * instructions of a warm plan's 84 M (fifth round, docs/performance.md).
 * The arena is dropped whole and the document is never decref'd.
 * jansson's allocator is process-wide and takes no payload, so the scope
 * it reaches is this thread's `scope_now` (the one mutable static of the
 * library; set only between scope_begin and scope_end, which restore the
 * functions that were installed). Another thread's jansson calls meet a
 * NULL scope_now and get malloc and free as before; values made outside
 * a scope are never freed inside one, nor the reverse. jansson answers a
 * failed allocation by leaving the value out (a setter given NULL sets
 * nothing), so the scope remembers any failure and the report is
 * ERROR_NOMEM, never a document with holes. jansson initializes what it
 * allocates, so the arena's items are not zeroed first; a table's names
 * and the empty {} and [] are made once a scope and shared: with the
 * literal keys' lengths, 4.0 M -> 2.8 M instructions for the 500 nodes
 * of the 100k bench (the dump itself, 12.6 M, is jansson's).
 */
#define NAMES 64	/* distinct table names a scope shares (a power of 2) */

struct json_scope {
	struct arena arena;
	int failed;		/* an allocation in the scope failed */
	json_malloc_t old_malloc;
	json_free_t old_free;
	/* Values every item repeats, made once per scope and shared (a
	 * jansson value may sit in many containers; the arena frees it):
	 * {} and [] for a node without axes or changes, and each name
	 * from a fixed table by its address (the tables' strings are
	 * static, so one address is one name). */
	json_t *empty_object, *empty_array;
	const char *name_of[NAMES];
	json_t *name_value[NAMES];
};

static _Thread_local struct json_scope *scope_now;

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
	if (!j && scope_now)
		scope_now->failed = 1;	/* out of memory: no value */
	return j;
}

json_t *
report_json_text(const char *s)
{
	return s ? text(s) : json_null();
}

/*
 * Plans and whys are jansson trees dumped with JSON_INDENT(2): the bytes
 * every consumer and the schema saw from JSON_SORT_KEYS, because each
 * object gets its keys in strcmp order here (literal keys written in that
 * order, axes and counts sorted first) and the dump keeps insertion
 * order (JSON_PRESERVE_ORDER; always so since jansson 2.8). Sorting
 * while dumping cost a fifth of a warm plan of the 100k bench. Literal
 * keys are ASCII, so they go in with the _nocheck setters, their lengths
 * known when compiled (SET takes a literal only); values from data still
 * pass jansson's UTF-8 check (text()).
 * tests/engine/plan/report_json_test.c compares with a JSON_SORT_KEYS
 * dump of the same document.
 */
#define SET(o, k, v)                                                          \
	json_object_setn_new_nocheck((o), "" k, sizeof(k) - 1, (v))

static json_t *
str_or_null(const char *s)
{
	return report_json_text(s);
}

/* A literal or a name from a fixed table: ASCII, never NULL. */
static json_t *
name(const char *s)
{
	return json_string_nocheck(s);
}

/*
 * name(s) for a string of a fixed table (a decision's, reason's, kind's
 * or status's name), the same value each time s is the same address: a
 * reference that the setter it is given to takes. Outside a scope, or
 * with the scope's table full, a new value as name() makes it.
 */
static json_t *
table_name(const char *s)
{
	struct json_scope *sc = scope_now;
	size_t h, k;

	if (!sc)
		return name(s);
	h = (size_t)(((uint64_t)(uintptr_t)s >> 3) *
		     UINT64_C(0x9e3779b97f4a7c15) >> 58);
	for (k = 0; k < NAMES; k++, h = (h + 1) & (NAMES - 1)) {
		if (sc->name_of[h] == s)
			return json_incref(sc->name_value[h]);
		if (sc->name_of[h])
			continue;
		sc->name_value[h] = name(s);
		if (!sc->name_value[h])
			return NULL;	/* out of memory, remembered */
		sc->name_of[h] = s;
		return json_incref(sc->name_value[h]);
	}
	return name(s);
}

/* The scope's one {} (one []), shared by every node without axes (without
 * changes); new outside a scope. */
static json_t *
empty_object(void)
{
	if (!scope_now)
		return json_object();
	if (!scope_now->empty_object)
		scope_now->empty_object = json_object();
	return json_incref(scope_now->empty_object);
}

static json_t *
empty_array(void)
{
	if (!scope_now)
		return json_array();
	if (!scope_now->empty_array)
		scope_now->empty_array = json_array();
	return json_incref(scope_now->empty_array);
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

	/* Keys in strcmp order. */
	SET(o, "kind", table_name(kinds[c->kind]));
	SET(o, "name", str_or_null(c->name));
	SET(o, "new", str_or_null(c->new_value));
	SET(o, "old", str_or_null(c->old_value));
	if (c->kind == PLAN_CHANGE_FILE) {
		SET(o, "path", text(c->path));
		SET(o, "status", table_name(plan_file_status_name(c->status)));
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
	SET(o, "covered", json_integer((json_int_t)m->baseline_covered));
	SET(o, "nodes", json_integer((json_int_t)m->baseline_nodes));
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
	SET(o, "kind", table_name(it->expect == PLAN_EXPECT_CUTOFF
				  ? "expected" : "if-payload-unchanged"));
	SET(o, "on", it->expect_on >= 0
		? json_string(g->nodes[it->expect_on].id) : json_null());
	return o;
}

/*
 * Positions 0..n-1 of names[] into idx in strcmp order, equal names in
 * the order given (an object set twice keeps the later value, as
 * json_object_set_new does).
 */
static void
sort_names(const char *const *names, size_t n, size_t *idx)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		for (k = i; k > 0 && strcmp(names[idx[k - 1]], names[i]) > 0;
		     k--)
			idx[k] = idx[k - 1];
		idx[k] = i;
	}
}

/* The node's axes as an object, keys in strcmp order; NULL out of memory. */
static json_t *
axes_json(const struct graph_node *n)
{
	const char *small_names[8], **names = small_names;
	size_t small_idx[8], *idx = small_idx, k;
	json_t *axes;

	if (!n->n_axes)
		return empty_object();
	axes = json_object();
	if (!axes)
		return NULL;
	if (n->n_axes > 8) {
		names = mem_calloc(n->n_axes, sizeof(*names));
		idx = mem_calloc(n->n_axes, sizeof(*idx));
		if (!names || !idx) {
			json_decref(axes);
			axes = NULL;
			if (scope_now)
				scope_now->failed = 1;
			goto done;
		}
	}
	for (k = 0; k < n->n_axes; k++)
		names[k] = n->axes[k].axis;
	sort_names(names, n->n_axes, idx);
	for (k = 0; k < n->n_axes; k++)
		json_object_set_new(axes, n->axes[idx[k]].axis,
				    json_string(n->axes[idx[k]].value));
done:
	if (names != small_names)
		mem_free(names);
	if (idx != small_idx)
		mem_free(idx);
	return axes;
}

static json_t *
item_json(const struct graph *g, const struct plan *p, size_t i)
{
	const struct graph_node *n = &g->nodes[i];
	const struct plan_item *it = &p->items[i];
	json_t *o = json_object(), *ch;
	size_t k;

	ch = it->n_changes ? json_array() : empty_array();
	for (k = 0; ch && k < it->n_changes; k++)
		json_array_append_new(ch, report_change_json(&it->changes[k]));
	/* Keys in strcmp order. */
	SET(o, "axes", axes_json(n));
	SET(o, "cascade_of", it->cause >= 0
		? json_string(g->nodes[it->cause].id) : json_null());
	SET(o, "changes", ch);
	SET(o, "decision", table_name(plan_decision_name(it->decision)));
	SET(o, "expected_cutoff", expect_json(g, it));
	SET(o, "id", json_string(n->id));
	/* A key is 32 hex digits. */
	SET(o, "key", it->decision == PLAN_SKIP ? json_null()
						: name(it->key.hex));
	SET(o, "kind", table_name(graph_node_kind_name(n->kind)));
	SET(o, "output_digest", str_or_null(it->output_digest));
	SET(o, "reason", table_name(plan_reason_name(it->reason)));
	SET(o, "reused_from_remote", it->remote
		? json_string(it->remote->url) : json_null());
	SET(o, "reused_from_run", str_or_null(it->reused_run));
	SET(o, "root_cause", it->root_cause >= 0
		? json_string(g->nodes[it->root_cause].id) : json_null());
	SET(o, "rule", json_string(n->name));
	SET(o, "selected", json_boolean(it->selected));
	return o;
}

static void *
scope_malloc(size_t n)
{
	void *p;

	if (!scope_now)
		return malloc(n);
	/* jansson initializes what it allocates, as after malloc. */
	p = arena_alloc_raw(&scope_now->arena, n);
	if (!p)
		scope_now->failed = 1;
	return p;
}

static void
scope_free(void *p)
{
	if (!scope_now)
		free(p);
}

static void
scope_begin(struct json_scope *s)
{
	memset(s, 0, sizeof(*s));
	arena_init(&s->arena);
	json_get_alloc_funcs(&s->old_malloc, &s->old_free);
	scope_now = s;
	json_set_alloc_funcs(scope_malloc, scope_free);
}

/* Every value made in the scope is gone after this; rc, or ERROR_NOMEM
 * when an allocation of the scope failed. */
static int
scope_end(struct json_scope *s, int rc, struct error *err)
{
	json_set_alloc_funcs(s->old_malloc, s->old_free);
	scope_now = NULL;
	arena_release(&s->arena);
	return !rc && s->failed ? error_nomem(err) : rc;
}

/*
 * doc (made in the caller's scope) dumped at the end of out, then a
 * newline. hint:
 * the bytes expected; json_dumpb writes into the buffer's free room and
 * says how much it needed, so a larger document is dumped again into room
 * grown to fit.
 */
static int
dump(json_t *doc, size_t hint, struct buf *out, struct error *err)
{
	size_t room, need = 0;
	int rc;

	if (!doc)
		return error_set(err, ERROR_NOMEM, "out of memory");
	rc = buf_grow(out, hint, err);
	while (!rc) {
		room = out->cap - out->len - 1;
		/* Keys already in order: no JSON_SORT_KEYS (see above);
		 * JSON_PRESERVE_ORDER for a jansson before 2.8. */
		need = json_dumpb(doc, out->data + out->len, room,
				  JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (!need)
			rc = error_set(err, ERROR_NOMEM, "out of memory");
		else if (need > room)
			rc = buf_grow(out, need, err);
		else
			break;
	}
	if (rc)
		return rc;
	out->len += need;
	out->data[out->len] = '\0';
	return buf_addch(out, '\n', err);
}

int
report_plan_json(const struct graph *g, const struct plan *p,
		 const struct plan_meta *m, struct buf *out, struct error *err)
{
	struct json_scope scope;
	json_t *doc, *nodes, *counts;
	const char *names[PLAN_REMOTE + 1];
	size_t idx[PLAN_REMOTE + 1], i;
	int rc;

	scope_begin(&scope);
	doc = json_object();
	nodes = json_array();
	counts = json_object();
	/* Every node, skipped ones too, so the counts add up. */
	for (i = 0; nodes && i < p->n; i++)
		json_array_append_new(nodes, item_json(g, p, i));
	for (i = 0; i <= PLAN_REMOTE; i++)
		names[i] = plan_decision_name(i);
	sort_names(names, PLAN_REMOTE + 1, idx);
	for (i = 0; counts && i <= PLAN_REMOTE; i++)
		json_object_set_new_nocheck(counts, names[idx[i]],
		    json_integer((json_int_t)p->counts[idx[i]]));
	/* Keys in strcmp order. */
	SET(doc, "base", str_or_null(m->base));
	SET(doc, "baseline_coverage", coverage_json(m));
	SET(doc, "baseline_run", str_or_null(m->baseline_run));
	SET(doc, "changed_paths", strings(m->changed, m->n_changed));
	SET(doc, "counts", counts);
	SET(doc, "expected_cutoff", json_pack(
		"{s:I,s:I}", "expected",
		(json_int_t)p->expected[PLAN_EXPECT_CUTOFF],
		"if_payload_unchanged",
		(json_int_t)p->expected[PLAN_EXPECT_IF_PAYLOAD]));
	SET(doc, "forced", str_or_null(m->forced_reason));
	SET(doc, "head", str_or_null(m->head));
	SET(doc, "ignored_paths", strings(m->ignored, m->n_ignored));
	SET(doc, "mode", str_or_null(m->mode));
	SET(doc, "nodes", nodes);
	SET(doc, "root_causes", json_integer((json_int_t)p->root_causes));
	SET(doc, "schema", name("ripple-plan-v1"));
	SET(doc, "unclaimed_paths", strings(m->unclaimed, m->n_unclaimed));
	/* Some 450 bytes a node. */
	rc = scope.failed ? error_nomem(err)
			  : dump(doc, 1024 + 512 * p->n, out, err);
	return scope_end(&scope, rc, err);
}

int
report_why_json(const struct graph *g, const struct plan *p, size_t i,
		const struct plan_meta *m, struct buf *out, struct error *err)
{
	struct json_scope scope;
	json_t *doc, *chain;
	long at;
	size_t guard = 0;
	int rc;

	scope_begin(&scope);
	doc = json_object();
	chain = json_array();
	if (plan_item_follows(&p->items[i]))
		for (at = p->items[i].cause; at >= 0 && guard++ < p->n;
		     at = p->items[at].cause) {
			json_array_append_new(chain, item_json(g, p,
							       (size_t)at));
			if (!plan_item_follows(&p->items[at]))
				break;
		}
	/* Keys in strcmp order. */
	SET(doc, "baseline_coverage", coverage_json(m));
	SET(doc, "baseline_run", str_or_null(m->baseline_run));
	SET(doc, "chain", chain);
	SET(doc, "compared_with", str_or_null(m->baseline_label));
	SET(doc, "forced", str_or_null(m->forced_reason));
	SET(doc, "node", item_json(g, p, i));
	SET(doc, "schema", name("ripple-why-v1"));
	rc = scope.failed ? error_nomem(err)
			  : dump(doc, 2048 + 512 * guard, out, err);
	return scope_end(&scope, rc, err);
}
