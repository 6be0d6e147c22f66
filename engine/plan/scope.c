/*
 * What a scoped plan plans: a job's nodes (`run --job`, `jobs`) or one
 * node (`why`), with what they need and the members of their version
 * groups, so its lookups and keys are its own, not the whole target's.
 */
#include "engine/plan/scope.h"

#include <string.h>

#include "base/error.h"
#include "base/fnmatch.h"
#include "base/mem.h"
#include "engine/plan/eval.h"
#include "engine/plan/jobs.h"
#include "base/strmap.h"
#include "graph/graph.h"
#include "base/banned.h"

/* Mark what scoped nodes need, transitively (deps come first). */
static void
scope_add_needs(const struct graph *g, unsigned char *scope)
{
	size_t i, k;

	for (i = g->n_nodes; i-- > 0;)
		for (k = 0; scope[i] && k < g->nodes[i].n_deps; k++)
			scope[g->nodes[i].deps[k]] = 1;
}

/*
 * Members of the version groups of scoped nodes (in the closure): the
 * groups in one map, then one pass over the nodes. 1 when some were added,
 * 0 when none, or ERROR_NOMEM.
 */
static int
scope_add_groups(const struct graph *g, const unsigned char *closure,
		 unsigned char *scope, struct error *err)
{
	struct strmap groups = STRMAP_INIT;
	size_t i;
	int more = 0, rc = 0;

	for (i = 0; !rc && i < g->n_nodes; i++)
		if (scope[i] && g->nodes[i].version_group)
			rc = strmap_put(&groups, g->nodes[i].version_group,
					(void *)&g->nodes[i], err);
	for (i = 0; !rc && groups.n && i < g->n_nodes; i++) {
		const char *vg = g->nodes[i].version_group;

		if (scope[i] || !closure[i] || !vg || !strmap_get(&groups, vg))
			continue;
		scope[i] = 1;
		more = 1;
	}
	strmap_release(&groups);
	return rc ? rc : more;
}

/*
 * --job: plan only the job's nodes, what they need, and the members of
 * their version groups (a group decides together) with what those need:
 * a job's lookups are its own, not the whole target's (issue 23). A name
 * that is no job leaves the scope NULL (the CLI's check names it).
 */
int
planner_job_scope(struct planner *p, const char *name, struct error *err)
{
	const struct graph *g = p->head->graph;
	const struct plan_job *job;
	struct plan_jobs *jobs = NULL;
	struct error e2;
	size_t i;
	int rc = 0;

	error_init(&e2);
	rc = plan_jobs_compute(g, p->closure, &jobs, &e2);
	if (rc == ERROR_NOMEM)
		*err = e2;
	if (rc)	/* a target that cuts into no jobs: run's check says so */
		return rc == ERROR_NOMEM ? rc : 0;
	job = plan_jobs_find(jobs, name);
	if (job) {
		p->scope = mem_calloc(g->n_nodes + 1, 1);
		if (!p->scope) {
			plan_jobs_free(jobs);
			return error_set(err, ERROR_NOMEM, "out of memory");
		}
		for (i = 0; i < job->n_nodes; i++)
			p->scope[job->nodes[i]] = 1;
		do {
			scope_add_needs(g, p->scope);
			rc = scope_add_groups(g, p->closure, p->scope, err);
		} while (rc == 1);
	}
	plan_jobs_free(jobs);
	return rc < 0 ? rc : 0;
}

long
planner_node(const struct graph *g, const char *pat, size_t *n)
{
	const struct graph_node *exact = graph_find(g, pat);
	long hit = -1;
	size_t i;

	*n = exact ? 1 : 0;
	if (exact)
		return (long)exact->index;
	for (i = 0; i < g->n_nodes; i++)
		if (fnmatch_match(pat, g->nodes[i].id) ||
		    !strcmp(pat, g->nodes[i].name)) {
			hit = (long)i;
			(*n)++;
		}
	return *n == 1 ? hit : -1;
}

/*
 * why NODE: plan the node, what it needs and the members of its version
 * groups with what those need (job_scope's closure): every decision the
 * node's and its chain's depend on, and nothing else.
 */
int
planner_why_scope(struct planner *p, const char *pat, struct error *err)
{
	const struct graph *g = p->head->graph;
	size_t n;
	long at = planner_node(g, pat, &n);
	int rc;

	if (at < 0 || !p->closure[at])
		return 0;	/* the CLI names the problem */
	p->scope = mem_calloc(g->n_nodes + 1, 1);
	if (!p->scope)
		return error_set(err, ERROR_NOMEM, "out of memory");
	p->scope[at] = 1;
	do {
		scope_add_needs(g, p->scope);
		rc = scope_add_groups(g, p->closure, p->scope, err);
	} while (rc == 1);
	return rc < 0 ? rc : 0;
}
