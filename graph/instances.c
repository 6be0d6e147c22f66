/*
 * A rule's instances among nodes sorted by id: binary searches for the
 * run of ids sharing a prefix (see graph/instances.h).
 */
#include "graph/instances.h"

#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "graph/graph.h"
#include "rules/rules.h"
#include "base/banned.h"

/* The first of nodes[lo, hi) whose id's first len bytes compare >= (or,
 * with `after`, >) the prefix p. */
static size_t
bound(const struct graph_node *nodes, size_t lo, size_t hi, const char *p,
      size_t len, int after)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(nodes[mid].id, p, len);

		if (c < 0 || (after && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Narrow [*lo, *hi) to the ids starting with p. */
static void
narrow(const struct graph_node *nodes, const char *p, size_t len,
       size_t *lo, size_t *hi)
{
	size_t a = bound(nodes, *lo, *hi, p, len, 0);

	*hi = bound(nodes, a, *hi, p, len, 1);
	*lo = a;
}

static int
mapped(const struct rules_dep *d, const char *axis)
{
	size_t k;

	for (k = 0; d && k < d->n_where; k++)
		if (!strcmp(d->where[k].key, axis))
			return 1;
	return 0;
}

int
graph_instances_range(const struct graph_node *nodes, size_t n,
		      const char *kind, const char *name,
		      const struct graph_node *node,
		      const struct rules_dep *d, size_t *lo, size_t *hi,
		      struct error *err)
{
	struct buf p = BUF_INIT;
	const struct graph_node *first;
	const char *want;
	size_t k, base;
	int rc;

	*lo = 0;
	*hi = n;
	if (!(rc = buf_addstr(&p, kind, err)) &&
	    !(rc = buf_addch(&p, ':', err)))
		rc = buf_addstr(&p, name, err);
	if (rc)
		goto done;
	/* A rule without axes: the one id "KIND:NAME". */
	base = bound(nodes, 0, n, p.data, p.len + 1, 0);
	if (base < n && !strcmp(nodes[base].id, p.data)) {
		*lo = base;
		*hi = base + 1;
		goto done;
	}
	rc = buf_addch(&p, '[', err);
	if (rc)
		goto done;
	narrow(nodes, p.data, p.len, lo, hi);
	if (*lo == *hi)
		goto done;
	/* Every instance has the same axes (a rule's each); the first's
	 * give their names, in id order. */
	first = &nodes[*lo];
	for (k = 0; k < first->n_axes; k++) {
		const char *axis = first->axes[k].axis;

		if (mapped(d, axis))
			break;
		want = graph_node_axis(node, axis);
		if (!want)
			break;
		if (!(rc = buf_addstr(&p, axis, err)) &&
		    !(rc = buf_addch(&p, '=', err)) &&
		    !(rc = buf_addstr(&p, want, err)))
			rc = buf_addch(&p, k + 1 < first->n_axes ? ',' : ']',
				       err);
		if (rc)
			goto done;
		narrow(nodes, p.data, p.len, lo, hi);
	}
done:
	buf_release(&p);
	return rc;
}
