/*
 * Finding nodes: by exact id, and by targets (declared target names, kinds,
 * rule names, id globs) with their upstream closure.
 */
#include "graph/graph.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/fnmatch.h"
#include "base/mem.h"
#include "base/spell.h"
#include "graph/version.h"
#include "rules/rules.h"
#include "base/banned.h"

const struct graph_node *
graph_find(const struct graph *g, const char *id)
{
	size_t lo = 0, hi = g->n_nodes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct graph_node *n = &g->nodes[g->by_id[mid]];
		int c = strcmp(n->id, id);

		if (!c)
			return n;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const struct rules_target *
find_target(const struct rules *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n_targets; i++)
		if (!strcmp(r->targets[i].name, name))
			return &r->targets[i];
	return NULL;
}

void
graph_release_family(const struct graph_node *n, struct version_params *p,
		     const char **narrow, char *prefix, size_t size)
{
	const struct rules_release *rel = n->release;

	*narrow = NULL;
	if (n->root) {
		version_params_from_root(n->root, p);
		if (strcmp(rel->tag, "root.tags"))
			*narrow = rel->tag;
		return;
	}
	memset(p, 0, sizeof(*p));
	snprintf(prefix, size, "%.*s",
		 (int)strcspn(rel->tag, "0123456789*?[\\"), rel->tag);
	p->patterns = &rel->tag;
	p->n_patterns = 1;
	p->prefix = prefix;
}

int
graph_release_claims(const struct graph *g, const struct graph_node *n,
		     const char *tag, struct error *err)
{
	struct version_params p;
	const char *narrow;
	char prefix[256];

	if (n->kind != GRAPH_NODE_RELEASE || !n->release)
		return 0;
	graph_release_family(n, &p, &narrow, prefix, sizeof(prefix));
	p.regex_file = g->rules ? g->rules->file : NULL;
	if (narrow && !fnmatch_match(narrow, tag) && strcmp(narrow, tag))
		return 0;
	return version_tag_claims(&p, tag, NULL, err);
}

static size_t
mark(const struct graph *g, const char *ref, unsigned char *sel)
{
	const struct graph_node *exact = graph_find(g, ref);
	size_t i, hits = 0;

	if (exact) {
		sel[exact->index] = 1;
		return 1;
	}
	for (i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];
		int hit;

		if (!strcmp(ref, "artifacts"))
			hit = n->kind == GRAPH_NODE_ARTIFACT;
		else if (!strcmp(ref, "tests"))
			hit = n->kind == GRAPH_NODE_TEST;
		else if (!strcmp(ref, "releases"))
			hit = n->kind == GRAPH_NODE_RELEASE;
		else if (!strncmp(ref, "releases@", 9))
			hit = 0;	/* select_ref: errors to report */
		else
			hit = !strcmp(n->name, ref) || fnmatch_match(ref, n->id);
		if (hit) {
			sel[i] = 1;
			hits++;
		}
	}
	return hits;
}

static int
not_found(const struct graph *g, const char *ref, struct error *err)
{
	const struct rules *r = g->rules;
	const char **names;
	size_t n = 0, i, cap = r->n_targets + r->n_artifacts + r->n_tests +
			      r->n_releases + 3;
	const char *s = NULL;

	error_set(err, ERROR_NOT_FOUND, "target '%s' selects no node", ref);
	if (!strncmp(ref, "releases@", 9)) {
		error_hint(err, "no release line's tag family claims '%s' "
			   "(`ripple release %s --dry-run` says why)",
			   ref + 9, ref + 9);
		return ERROR_NOT_FOUND;
	}
	names = mem_calloc(cap, sizeof(*names));
	if (!names)
		return ERROR_NOT_FOUND;
	for (i = 0; i < r->n_targets; i++)
		names[n++] = r->targets[i].name;
	for (i = 0; i < r->n_artifacts; i++)
		names[n++] = r->artifacts[i].name;
	for (i = 0; i < r->n_tests; i++)
		names[n++] = r->tests[i].name;
	for (i = 0; i < r->n_releases; i++)
		names[n++] = r->releases[i].name;
	names[n++] = "artifacts";
	names[n++] = "tests";
	names[n++] = "releases";
	s = spell_suggest(ref, names, n);
	if (s)
		error_hint(err, "did you mean '%s'?", s);
	else
		error_hint(err, "a target is a declared target, a rule name, "
				"'artifacts', 'tests', 'releases' or a glob "
				"over node ids");
	mem_free(names);
	return ERROR_NOT_FOUND;
}

static int
select_ref(const struct graph *g, const char *ref, unsigned char *sel,
	   int depth, struct error *err)
{
	const struct rules_target *t = find_target(g->rules, ref);
	size_t i;
	int rc;

	if (t && depth < 8) {
		for (i = 0; i < t->n_refs; i++) {
			rc = select_ref(g, t->refs[i], sel, depth + 1, err);
			if (rc)
				return rc;
		}
		return 0;
	}
	if (!strncmp(ref, "releases@", 9)) {
		size_t hits = 0;

		for (i = 0; i < g->n_nodes; i++) {
			rc = graph_release_claims(g, &g->nodes[i], ref + 9,
						  err);
			if (rc < 0)
				return rc;
			if (rc) {
				sel[i] = 1;
				hits++;
			}
		}
		return hits ? 0 : not_found(g, ref, err);
	}
	if (!mark(g, ref, sel))
		return not_found(g, ref, err);
	return 0;
}

int
graph_select(const struct graph *g, const char *const *targets, size_t n,
	     unsigned char *selected, unsigned char *closure,
	     struct error *err)
{
	unsigned char *sel = mem_calloc(g->n_nodes + 1, 1);
	size_t i, k;
	int rc = 0;

	if (!sel)
		return error_set(err, ERROR_NOMEM, "out of memory");
	if (n == 0) {
		for (i = 0; i < g->n_nodes; i++)
			sel[i] = g->nodes[i].kind != GRAPH_NODE_RELEASE;
	}
	for (i = 0; !rc && i < n; i++)
		rc = select_ref(g, targets[i], sel, 0, err);
	if (rc)
		goto done;
	if (selected)
		memcpy(selected, sel, g->n_nodes);
	if (closure) {
		memcpy(closure, sel, g->n_nodes);
		/* Users come after their dependencies: walk backwards. */
		for (i = g->n_nodes; i-- > 0;)
			if (closure[i])
				for (k = 0; k < g->nodes[i].n_deps; k++)
					closure[g->nodes[i].deps[k]] = 1;
	}
done:
	mem_free(sel);
	return rc;
}
