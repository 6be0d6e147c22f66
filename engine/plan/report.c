/*
 * Text rendering of plans: one line per node, aligned, root causes first,
 * then cascades, then (with verbose) reuse and skip. Colour only when the
 * CLI says the terminal wants it.
 */
#include "engine/plan/report.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "engine/plan/plan.h"
#include "engine/plan/remote.h"
#include "graph/graph.h"
#include "base/banned.h"

static const char *
short_id(const char *id)
{
	static const char none[] = "(none)";

	return id ? id : none;
}

static void
abbrev(struct buf *out, const char *v)
{
	if (!v)
		buf_addstr(out, "(none)", NULL);
	else if (strlen(v) == 40 || strlen(v) == 32)
		buf_add(out, v, 9, NULL);
	else
		buf_addstr(out, v, NULL);
}

/* "; expected cut off ..." for a cascade the run will likely cut off. */
static void
expect_text(const struct graph *g, const struct plan_item *it,
	    struct buf *out, struct error *err)
{
	const char *on = it->expect_on >= 0 ? g->nodes[it->expect_on].id
					    : "an upstream";

	if (it->expect == PLAN_EXPECT_CUTOFF)
		buf_addf(out, err, "; expected cut off: %s only re-versions "
			 "an unchanged payload", on);
	else if (it->expect == PLAN_EXPECT_IF_PAYLOAD)
		buf_addf(out, err, "; cut off if the payload of %s is "
			 "unchanged", on);
}

int
report_item_reason(const struct graph *g, const struct plan *p, size_t i,
		   struct buf *out, struct error *err)
{
	const struct plan_item *it = &p->items[i];
	size_t k, shown = 0;

	buf_addstr(out, plan_reason_name(it->reason), err);
	if (it->reason == PLAN_REASON_REUSED && it->remote) {
		buf_addf(out, err, " from %s", it->remote->label);
		return err && err->code ? err->code : 0;
	}
	if (it->reason == PLAN_REASON_REUSED && it->reused_run) {
		buf_addf(out, err, " from run %s", it->reused_run);
		return err && err->code ? err->code : 0;
	}
	if (it->reason == PLAN_REASON_UPSTREAM_REBUILT && it->cause >= 0) {
		buf_addf(out, err, " (cascade of %s",
			 g->nodes[it->cause].id);
		if (it->root_cause >= 0 && it->root_cause != it->cause)
			buf_addf(out, err, "; root cause %s",
				 g->nodes[it->root_cause].id);
		expect_text(g, it, out, err);
		buf_addch(out, ')', err);
		return err && err->code ? err->code : 0;
	}
	if (it->reason == PLAN_REASON_VERSION_GROUP) {
		buf_addf(out, err, ": %s ", g->nodes[i].version_group);
		if (it->cause >= 0)
			buf_addf(out, err, "(rebuilds with %s)",
				 g->nodes[it->cause].id);
		else
			buf_addstr(out, "(the members' recorded versions "
				   "differ)", err);
		return err && err->code ? err->code : 0;
	}
	if (it->reason == PLAN_REASON_OTHER_DOMAIN && it->n_changes) {
		const struct plan_change *c = &it->changes[0];
		const char *rd = short_id(c->new_value);

		buf_addf(out, err, ": the record of run %s came from trust "
			 "domain '%s', which %s%s%s does not reuse",
			 short_id(c->path), short_id(c->old_value),
			 strcmp(rd, "trusted") ? "domain '" : "the trusted",
			 strcmp(rd, "trusted") ? rd : " domain",
			 strcmp(rd, "trusted") ? "'" : "");
		return err && err->code ? err->code : 0;
	}
	for (k = 0; k < it->n_changes && shown < 3; k++) {
		const struct plan_change *c = &it->changes[k];

		if (c->kind == PLAN_CHANGE_UPSTREAM)
			continue;
		buf_addstr(out, shown ? ", " : ": ", err);
		shown++;
		switch (c->kind) {
		case PLAN_CHANGE_FILE:
			buf_addf(out, err, "%s %s (", c->path,
				 plan_file_status_name(c->status));
			abbrev(out, c->old_value);
			buf_addstr(out, " -> ", err);
			abbrev(out, c->new_value);
			buf_addch(out, ')', err);
			break;
		case PLAN_CHANGE_RULE:
			buf_addf(out, err, "rule field '%s'", c->name);
			break;
		case PLAN_CHANGE_TOOLKIT:
			buf_addf(out, err, "toolkit '%s' %s -> %s", c->name,
				 short_id(c->old_value),
				 short_id(c->new_value));
			break;
		case PLAN_CHANGE_VERSION:
			buf_addf(out, err, "%s -> %s", short_id(c->old_value),
				 short_id(c->new_value));
			break;
		default:
			buf_addf(out, err, "%s", c->name);
			break;
		}
	}
	if (k < it->n_changes && shown == 3)
		buf_addstr(out, ", ...", err);
	return err && err->code ? err->code : 0;
}

/* The text's groups: root causes, cascades, baseline-deferred, ... */
static int
group_of(const struct plan_item *it)
{
	if (it->decision == PLAN_SKIP)
		return 4;
	if (it->decision == PLAN_REUSE)
		return 3;
	if (it->reason == PLAN_REASON_BASELINE_DEFERRED)
		return 2;
	if (plan_item_follows(it))
		return 1;
	return 0;
}

static int
cmp_path(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ", from N changed files (PATH, ...)": what the root causes share. */
static void
changed_files(const struct plan *p, struct buf *out, struct error *err)
{
	const char **v;
	size_t i, k, n = 0, uniq = 0, cap = 0;

	for (i = 0; i < p->n; i++)
		cap += p->items[i].n_changes;
	if (!cap)
		return;
	v = mem_calloc(cap, sizeof(*v));
	if (!v)
		return;
	for (i = 0; i < p->n; i++)
		for (k = 0; k < p->items[i].n_changes; k++)
			if (p->items[i].changes[k].kind == PLAN_CHANGE_FILE)
				v[n++] = p->items[i].changes[k].path;
	qsort(v, n, sizeof(*v), cmp_path);
	for (i = 0; i < n; i++)
		if (!i || strcmp(v[i - 1], v[i]))
			v[uniq++] = v[i];
	if (uniq) {
		buf_addf(out, err, ", from %zu changed file%s (", uniq,
			 uniq == 1 ? "" : "s");
		for (i = 0; i < uniq && i < 3; i++)
			buf_addf(out, err, "%s%s", i ? ", " : "", v[i]);
		buf_addstr(out, uniq > 3 ? ", ...)" : ")", err);
	}
	mem_free(v);
}

int
report_plan_text(const struct graph *g, const struct plan *p,
		 const struct plan_meta *m, struct buf *out, struct error *err)
{
	static const char *const titles[] = {
		"root causes", "cascades",
		"deferred in the baseline run (GPU; not caused by the change)",
		"reused", "skipped" };
	const char *on = "", *off = m->color ? "\033[0m" : "";
	size_t i, width = 0;
	int grp;

	for (i = 0; i < p->n; i++)
		if (p->in_closure[i] && strlen(g->nodes[i].id) > width)
			width = strlen(g->nodes[i].id);
	if (m->head)
		buf_addf(out, err, "head      %s\n", m->head);
	if (m->base)
		buf_addf(out, err, "base      %s\n", m->base);
	buf_addf(out, err, "baseline  %s\n",
		 m->baseline_label ? m->baseline_label : "none");
	if (m->forced_reason)
		buf_addf(out, err, "forced    %s\n", m->forced_reason);
	for (i = 0; i < m->n_unclaimed; i++)
		buf_addf(out, err, "unclaimed %s\n", m->unclaimed[i]);
	if (m->n_ignored)
		buf_addf(out, err, "ignored   %zu changed path%s (policy)\n",
			 m->n_ignored, m->n_ignored == 1 ? "" : "s");
	for (grp = 0; grp < 5; grp++) {
		size_t shown = 0, hidden = 0;

		for (i = 0; i < p->n; i++) {
			const struct plan_item *it = &p->items[i];

			if (group_of(it) != grp ||
			    (grp == 4 && !p->in_closure[i] && !m->verbose))
				continue;
			if (grp >= 3 && !m->verbose) {
				hidden++;
				continue;
			}
			if (!shown++)
				buf_addf(out, err, "\n%s:\n", titles[grp]);
			if (m->color)
				on = it->decision == PLAN_REUSE ? "\033[32m"
				     : it->decision == PLAN_SKIP ? "\033[2m"
								 : "\033[33m";
			buf_addf(out, err, "  %s%-6s%s %-*s  ", on,
				 plan_decision_name(it->decision), off,
				 (int)width, g->nodes[i].id);
			report_item_reason(g, p, i, out, err);
			buf_addch(out, '\n', err);
		}
		if (hidden)
			buf_addf(out, err, "\n%s: %zu (--verbose lists them)\n",
				 titles[grp], hidden);
	}
	buf_addf(out, err,
		 "\n%zu build, %zu test, %zu reuse, %zu skip; "
		 "%zu root cause%s", p->counts[PLAN_BUILD],
		 p->counts[PLAN_TEST], p->counts[PLAN_REUSE],
		 p->counts[PLAN_SKIP], p->root_causes,
		 p->root_causes == 1 ? "" : "s");
	changed_files(p, out, err);
	if (p->expected[PLAN_EXPECT_CUTOFF])
		buf_addf(out, err, "; %zu expected cut off (re-versioned "
			 "payloads unchanged)", p->expected[PLAN_EXPECT_CUTOFF]);
	if (p->expected[PLAN_EXPECT_IF_PAYLOAD])
		buf_addf(out, err, "; %zu cut off if rebuilt payloads are "
			 "unchanged", p->expected[PLAN_EXPECT_IF_PAYLOAD]);
	buf_addch(out, '\n', err);
	return err && err->code ? err->code : 0;
}

void
report_change_text(struct buf *out, const struct plan_change *c)
{
	switch (c->kind) {
	case PLAN_CHANGE_FILE:
		buf_addf(out, NULL, "    file      %s  %s  %s -> %s  (input %s)\n",
			 c->path, plan_file_status_name(c->status),
			 short_id(c->old_value), short_id(c->new_value),
			 c->name);
		break;
	case PLAN_CHANGE_RULE:
		buf_addf(out, NULL, "    rule      %s: %s -> %s\n", c->name,
			 short_id(c->old_value), short_id(c->new_value));
		break;
	case PLAN_CHANGE_TOOLKIT:
		buf_addf(out, NULL, "    toolkit   %s: %s -> %s\n", c->name,
			 short_id(c->old_value), short_id(c->new_value));
		break;
	case PLAN_CHANGE_INPUT:
		buf_addf(out, NULL, "    input     %s: key %s -> %s (file list "
			 "not stored)\n", c->name, short_id(c->old_value),
			 short_id(c->new_value));
		break;
	case PLAN_CHANGE_UPSTREAM:
		buf_addf(out, NULL, "    upstream  %s: %s -> %s\n", c->name,
			 short_id(c->old_value), short_id(c->new_value));
		break;
	case PLAN_CHANGE_OTHER:
	case PLAN_CHANGE_VERSION:
		buf_addf(out, NULL, "    %-9s %s -> %s\n", c->name,
			 short_id(c->old_value), short_id(c->new_value));
		break;
	}
}

static void
item_text(const struct graph *g, const struct plan *p, size_t i,
	  struct buf *out)
{
	const struct plan_item *it = &p->items[i];
	size_t k;

	buf_addf(out, NULL, "%s: %s\n", g->nodes[i].id,
		 plan_decision_name(it->decision));
	buf_addf(out, NULL, "  reason    ");
	report_item_reason(g, p, i, out, NULL);
	buf_addch(out, '\n', NULL);
	if (it->decision != PLAN_SKIP)
		buf_addf(out, NULL, "  key       %s%s\n", it->key.hex,
			 it->cutoff ? " (uses upstream output digests)" : "");
	if (it->expect == PLAN_EXPECT_CUTOFF)
		buf_addf(out, NULL, "  cutoff    expected: every upstream it "
			 "differs by only re-versions a payload its record "
			 "was made with (%s; `cutoff: payload` leaves the "
			 "version out); the run checks the rebuilt bytes\n",
			 g->nodes[it->expect_on].id);
	else if (it->expect == PLAN_EXPECT_IF_PAYLOAD)
		buf_addf(out, NULL, "  cutoff    if the payload digest of %s "
			 "(`cutoff: payload`) stays the recorded one once "
			 "rebuilt, the run reuses this node's record\n",
			 g->nodes[it->expect_on].id);
	if (it->n_changes)
		buf_addstr(out, "  changes\n", NULL);
	for (k = 0; k < it->n_changes; k++)
		report_change_text(out, &it->changes[k]);
}

int
report_why_text(const struct graph *g, const struct plan *p, size_t i,
		const struct plan_meta *m, struct buf *out, struct error *err)
{
	const struct plan_item *it = &p->items[i];
	long at;
	size_t guard = 0;

	item_text(g, p, i, out);
	buf_addf(out, err, "  compared  %s\n",
		 m->baseline_label ? m->baseline_label : "nothing (no baseline)");
	if (m->forced_reason)
		buf_addf(out, err, "  forced    %s\n", m->forced_reason);
	if (!plan_item_follows(it))
		return err && err->code ? err->code : 0;
	buf_addstr(out, "\nchain to the root cause:\n", err);
	for (at = it->cause; at >= 0 && guard++ < p->n;
	     at = p->items[at].cause) {
		buf_addch(out, '\n', err);
		item_text(g, p, (size_t)at, out);
		if (!plan_item_follows(&p->items[at]))
			break;
	}
	return err && err->code ? err->code : 0;
}
