/*
 * Component-list comparison for explanations. Both lists are sorted by
 * (kind, name), so one merge walk finds every added, removed and changed
 * component; file-level detail comes from the history's input_diff.
 */
#include "engine/plan/explain.h"

#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/mem.h"
#include "engine/plan/plan.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "base/banned.h"

struct changes {
	struct plan_change *v;
	size_t n, cap;
};

static struct plan_change *
add(struct changes *c, struct error *err)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		struct plan_change *v = mem_realloc(c->v, cap * sizeof(*v));

		if (!v) {
			error_set(err, ERROR_NOMEM, "out of memory");
			return NULL;
		}
		c->v = v;
		c->cap = cap;
	}
	memset(&c->v[c->n], 0, sizeof(c->v[0]));
	return &c->v[c->n++];
}

static int
cmp(const struct graph_component *a, const struct graph_component *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return strcmp(a->name, b->name);
}

static enum plan_change_kind
change_kind(enum graph_comp_kind k)
{
	switch (k) {
	case GRAPH_COMP_RULE: return PLAN_CHANGE_RULE;
	case GRAPH_COMP_TOOLKIT: return PLAN_CHANGE_TOOLKIT;
	case GRAPH_COMP_INPUT: return PLAN_CHANGE_INPUT;
	case GRAPH_COMP_UPSTREAM: return PLAN_CHANGE_UPSTREAM;
	default: return PLAN_CHANGE_OTHER;
	}
}

static const char *
value_of(const struct graph_component *c)
{
	if (!c)
		return NULL;
	if (c->kind == GRAPH_COMP_UPSTREAM || c->kind == GRAPH_COMP_INPUT)
		return c->digest;
	return c->detail ? c->detail : c->digest;
}

/* Expand an input change into file changes when the history knows them. */
static int
input_files(struct arena *a, const struct plan_history *h,
	    const struct graph_component *old, const struct graph_component *new,
	    struct changes *out, unsigned *seen, struct error *err)
{
	struct plan_file_diff *d = NULL;
	size_t n = 0, i;
	int rc = 0;

	if (h->input_diff && old && new)
		rc = h->input_diff(h->payload, a, new->name,
				   old->digest, new->digest, &d, &n, err);
	if (rc < 0)
		return rc;
	if (rc == 0 || n == 0) {
		struct plan_change *c = add(out, err);

		if (!c)
			return ERROR_NOMEM;
		c->kind = PLAN_CHANGE_INPUT;
		c->name = (new ? new : old)->name;
		c->old_value = value_of(old);
		c->new_value = value_of(new);
		*seen |= 1u << PLAN_FILE_MODIFIED;
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct plan_change *c = add(out, err);

		if (!c)
			return ERROR_NOMEM;
		c->kind = PLAN_CHANGE_FILE;
		c->name = new->name;
		c->path = d[i].path;
		c->status = d[i].status;
		c->old_value = d[i].old_id;
		c->new_value = d[i].new_id;
		*seen |= 1u << d[i].status;
	}
	return 0;
}

static enum plan_reason
input_reason(unsigned seen)
{
	if (seen & (1u << PLAN_FILE_RETARGETED))
		return PLAN_REASON_SYMLINK_RETARGETED;
	if (seen == (1u << PLAN_FILE_ADDED))
		return PLAN_REASON_INPUT_ADDED;
	if (seen == (1u << PLAN_FILE_REMOVED))
		return PLAN_REASON_INPUT_REMOVED;
	return PLAN_REASON_INPUT_CHANGED;
}

/* Copy the texts into the arena: records are only borrowed. */
static int
own_strings(struct arena *a, struct changes *ch, struct error *err)
{
	size_t i;

	for (i = 0; i < ch->n; i++) {
		struct plan_change *c = &ch->v[i];

		if (c->name && !(c->name = arena_strdup(a, c->name)))
			goto nomem;
		if (c->path && !(c->path = arena_strdup(a, c->path)))
			goto nomem;
		if (c->old_value &&
		    !(c->old_value = arena_strdup(a, c->old_value)))
			goto nomem;
		if (c->new_value &&
		    !(c->new_value = arena_strdup(a, c->new_value)))
			goto nomem;
	}
	return 0;
nomem:
	return error_set(err, ERROR_NOMEM, "out of memory");
}

int
explain_components(struct arena *arena, const struct graph_component *a,
		   size_t na, const struct graph_component *b, size_t nb,
		   const struct plan_history *h, struct explain_diff *out,
		   struct error *err)
{
	struct changes ch = { NULL, 0, 0 };
	int rule = 0, toolkit = 0, input = 0, rc = 0;
	size_t x = 0, y = 0;
	unsigned seen = 0;

	memset(out, 0, sizeof(*out));
	while (!rc && (x < na || y < nb)) {
		const struct graph_component *o = NULL, *n = NULL;
		int c = x >= na ? 1 : y >= nb ? -1 : cmp(&a[x], &b[y]);
		struct plan_change *pc;

		if (c <= 0)
			o = &a[x++];
		if (c >= 0)
			n = &b[y++];
		if (o && n && !strcmp(o->digest, n->digest))
			continue;
		switch ((o ? o : n)->kind) {
		case GRAPH_COMP_INPUT:
			input = 1;
			rc = input_files(arena, h, o, n, &ch, &seen, err);
			continue;
		case GRAPH_COMP_TOOLKIT:
			toolkit = 1;
			break;
		case GRAPH_COMP_UPSTREAM:
			break;
		default:
			rule = 1;
			break;
		}
		pc = add(&ch, err);
		if (!pc) {
			rc = ERROR_NOMEM;
			break;
		}
		pc->kind = change_kind((o ? o : n)->kind);
		pc->name = (o ? o : n)->name;
		pc->old_value = value_of(o);
		pc->new_value = value_of(n);
	}
	if (rc)
		goto done;
	if (rule)
		out->reason = PLAN_REASON_RULE_CHANGED;
	else if (toolkit)
		out->reason = PLAN_REASON_TOOLKIT_CHANGED;
	else if (input)
		out->reason = input_reason(seen);
	else if (ch.n)
		out->reason = PLAN_REASON_UPSTREAM_REBUILT;
	else
		out->reason = PLAN_REASON_KEY_CHANGED;
	rc = own_strings(arena, &ch, err);
	if (rc || !ch.n)
		goto done;
	out->changes = arena_memdup(arena, ch.v, ch.n * sizeof(*ch.v));
	if (!out->changes) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	out->n_changes = ch.n;
done:
	mem_free(ch.v);
	return rc;
}

int
explain_difference(const struct graph *g, struct plan *p, size_t i,
		   const struct plan_record *rec, const struct plan_history *h,
		   struct error *err)
{
	struct plan_item *it = &p->items[i];
	const struct graph_node_key *k = &p->keys->keys[i];
	struct explain_diff d;
	const struct graph_node *up = NULL;
	size_t j;
	int rc;

	if (!rec->components) {
		it->reason = PLAN_REASON_KEY_CHANGED;
		return 0;
	}
	rc = explain_components(&p->arena, rec->components,
				rec->n_components, k->components,
				k->n_components, h, &d, err);
	if (rc)
		return rc;
	it->reason = d.reason;
	it->changes = d.changes;
	it->n_changes = d.n_changes;
	/* Only a cascade names a cause: a root cause stands alone. The
	 * cause is the first differing upstream (by id) that rebuilds,
	 * else the first differing upstream. */
	if (d.reason != PLAN_REASON_UPSTREAM_REBUILT)
		return 0;
	for (j = 0; j < d.n_changes && !up; j++) {
		const struct plan_change *c = &d.changes[j];
		const struct graph_node *n;

		if (c->kind != PLAN_CHANGE_UPSTREAM || !c->new_value)
			continue;
		n = graph_find(g, c->name);
		if (n && p->items[n->index].decision != PLAN_REUSE)
			up = n;
	}
	for (j = 0; j < d.n_changes && !up; j++)
		if (d.changes[j].kind == PLAN_CHANGE_UPSTREAM)
			up = graph_find(g, d.changes[j].name);
	it->cause = up ? (long)up->index : -1;
	return 0;
}
