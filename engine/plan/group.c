/*
 * Version groups: the rings of members and the members a pass must force
 * to rebuild with their group.
 */
#include "engine/plan/group.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/buf.h"
#include "engine/plan/plan.h"
#include "engine/plan/versions.h"
#include "graph/graph.h"
#include "base/banned.h"

struct member {
	const char *group;	/* the expanded version-group */
	const char *id;
	size_t index;
};

static int
cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = strcmp(x->group, y->group);

	return c ? c : strcmp(x->id, y->id);
}

static int
same_ring(const struct member *x, const struct member *y)
{
	return !strcmp(x->group, y->group);
}

int
plan_groups_link(const struct graph *g, struct plan *p, struct error *err)
{
	struct member *v;
	size_t i, n = 0, start;
	int rings = 0;

	for (i = 0; i < p->n; i++)
		p->items[i].group_next = -1;
	v = mem_calloc(p->n + 1, sizeof(*v));
	if (!v)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; i < g->n_nodes; i++) {
		const struct graph_node *node = &g->nodes[i];

		if (!p->in_closure[i] || !node->version_group)
			continue;
		v[n].group = node->version_group;
		v[n].id = node->id;
		v[n].index = i;
		n++;
	}
	qsort(v, n, sizeof(*v), cmp_member);
	for (start = 0; start < n; start = i) {
		for (i = start + 1; i < n && same_ring(&v[start], &v[i]); i++)
			p->items[v[i - 1].index].group_next = (long)v[i].index;
		if (i - start < 2) {
			p->items[v[start].index].group_next = -1;
			continue;
		}
		p->items[v[i - 1].index].group_next = (long)v[start].index;
		rings = 1;
	}
	mem_free(v);
	return rings;
}

int
plan_group_builds(const struct plan *p, size_t i)
{
	long at;

	for (at = p->items[i].group_next; at >= 0 && (size_t)at != i;
	     at = p->items[at].group_next)
		if (p->items[at].decision != PLAN_REUSE)
			return 1;
	return 0;
}

static int
same_version(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* The versioned reused member whose recorded version differs from the
 * first versioned member's, or -1 when they agree. */
static long
version_split(const struct graph *g, const struct plan *p, size_t head)
{
	long at = (long)head, ref = -1;

	do {
		const struct plan_item *it = &p->items[at];

		if (g->nodes[at].version) {
			if (ref < 0)
				ref = at;
			else if (!same_version(p->items[ref].reused_version,
					       it->reused_version))
				return at;
		}
		at = it->group_next;
	} while (at >= 0 && (size_t)at != head);
	return -1;
}

int
plan_group_member_current(const struct graph_node *n, const char *recorded,
			  const struct rules_kv *versions, size_t n_v)
{
	struct buf now;
	int rc;

	if (!versions || !n->version || !recorded)
		return 0;
	buf_init(&now, 0);
	rc = plan_version_matches(n, versions, n_v, recorded, &now, NULL);
	buf_release(&now);
	return rc == 1;
}

size_t
plan_groups_force(const struct graph *g, const struct plan *p, long *forced,
		  const struct rules_kv *versions, size_t n_v)
{
	size_t i, marked = 0;

	for (i = 0; i < p->n; i++) {
		const struct plan_item *it = &p->items[i];
		long at, cause = -1;

		/* Each ring once, from its member with the lowest index. */
		if (it->group_next < 0)
			continue;
		for (at = it->group_next; (size_t)at != i;
		     at = p->items[at].group_next)
			if ((size_t)at < i)
				break;
		if ((size_t)at != i)
			continue;
		at = (long)i;
		do {
			if (p->items[at].decision != PLAN_REUSE && cause < 0)
				cause = at;
			at = p->items[at].group_next;
		} while ((size_t)at != i);
		if (cause < 0 && version_split(g, p, i) >= 0)
			cause = -2;
		if (cause == -1)
			continue;
		at = (long)i;
		do {
			/* Re-versioning is why a group rebuilds: a member
			 * whose record has the version it has now needs no
			 * new build (issue 25). */
			if (p->items[at].decision == PLAN_REUSE &&
			    forced[at] == -1 &&
			    !plan_group_member_current(
				    &g->nodes[at], p->items[at].reused_version,
				    versions, n_v)) {
				forced[at] = cause;
				marked++;
			}
			at = p->items[at].group_next;
		} while ((size_t)at != i);
	}
	return marked;
}
