/*
 * Cutting a closure's build and test nodes into CI jobs (see jobs.h for the
 * design): buckets by group, platform and runner labels; connected parts of
 * a bucket as jobs; circles between jobs merged; stages by longest path;
 * packing above GitHub's matrix limit within a bucket only.
 */
#include "engine/plan/jobs.h"
#include "engine/plan/jobs_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "graph/graph.h"
#include "graph/template.h"
#include "rules/rules.h"
#include "base/banned.h"


const char *
plan_job_group_name(enum plan_job_group g)
{
	switch (g) {
	case PLAN_JOB_BUILD: return "build";
	case PLAN_JOB_TEST: return "test";
	case PLAN_JOB_GPU: return "gpu";
	}
	return "?";
}

/* Group, platform and runner labels of node i; group -1 when not a job. */
static int
node_info(struct work *w, size_t i, struct error *err)
{
	const struct graph_node *n = &w->g->nodes[i];
	struct info *in = &w->in[i];
	const struct rules_runner *rn;
	struct arena *a = &w->j->arena;
	const char *const *own;
	struct buf key;
	size_t k;
	int rc = 0, gpu;

	in->group = -1;
	if (!n->rule || (n->kind != GRAPH_NODE_ARTIFACT &&
			 n->kind != GRAPH_NODE_TEST))
		return 0;
	in->group = n->kind == GRAPH_NODE_ARTIFACT ? PLAN_JOB_BUILD
		  : n->rule->gpu.count ? PLAN_JOB_GPU : PLAN_JOB_TEST;
	in->platform = graph_node_axis(n, "platform");
	rn = rules_find_runner(w->g->rules, in->platform);
	in->host = rn && rn->host && in->platform &&
		   !strcmp(rn->platform, in->platform) ? rn->host
						       : in->platform;
	/* A GPU artifact builds in the build group, on a GPU runner. */
	gpu = n->rule->gpu.count != 0;
	own = gpu ? n->rule->gpu.runs_on : n->rule->runs_on;
	if (own) {
		struct template_env env = { n->axes, n->n_axes, n->root,
					    n->toolkit, NULL };

		in->n_labels = gpu ? n->rule->gpu.n_runs_on
				   : n->rule->n_runs_on;
		in->labels = arena_alloc(a, in->n_labels * sizeof(char *));
		if (!in->labels)
			return error_set(err, ERROR_NOMEM, "out of memory");
		for (k = 0; k < in->n_labels; k++) {
			rc = template_expand(a, own[k], &env,
					     &in->labels[k], err);
			if (rc) {
				error_node(err, n->id);
				return rc;
			}
		}
	} else if (gpu) {
		if (rn && rn->n_gpu_runs_on) {
			in->labels = rn->gpu_runs_on;
			in->n_labels = rn->n_gpu_runs_on;
		} else {
			in->labels = jobs_default_gpu_labels(in->host,
							     &in->n_labels);
		}
	} else if (rn) {
		in->labels = rn->runs_on;
		in->n_labels = rn->n_runs_on;
	} else {
		in->labels = arena_alloc(a, sizeof(char *));
		if (!in->labels)
			return error_set(err, ERROR_NOMEM, "out of memory");
		in->labels[0] = jobs_default_label(in->platform);
		in->n_labels = 1;
	}
	rc = jobs_check_host(w, i, err);
	if (rc)
		return rc;
	in->container = n->container_image
		? arena_printf(a, "%s\t%s", n->container_image,
			       n->container_options ? n->container_options
						    : "")
		: "";
	if (!in->container)
		return error_set(err, ERROR_NOMEM, "out of memory");
	buf_init(&key, 0);
	rc = buf_addf(&key, err, "%d\t%s", in->group,
		      in->platform ? in->platform : "");
	for (k = 0; !rc && k < in->n_labels; k++)
		rc = buf_addf(&key, err, "\t%s", in->labels[k]);
	if (!rc && in->container[0])
		rc = buf_addf(&key, err, "\tcontainer\t%s", in->container);
	if (!rc) {
		in->bucket = arena_strdup(a, key.data);
		if (!in->bucket)
			rc = error_set(err, ERROR_NOMEM, "out of memory");
	}
	buf_release(&key);
	return rc;
}

/* An edge d -> i across groups must point forward (build, test, gpu). */
static int
check_order(struct work *w, size_t d, size_t i, struct error *err)
{
	const struct graph_node *n = &w->g->nodes[i];

	if (w->in[d].group <= w->in[i].group)
		return 0;
	error_set(err, ERROR_INVALID, "%s needs %s, but CI runs %s jobs "
		  "before %s jobs", n->id, w->g->nodes[d].id,
		  plan_job_group_name((enum plan_job_group)w->in[i].group),
		  plan_job_group_name((enum plan_job_group)w->in[d].group));
	error_node(err, n->id);
	error_hint(err, "an artifact cannot need a test, nor a CPU test a "
		   "GPU test; move the dependency");
	return ERROR_INVALID;
}

static int
index_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

struct slot {
	size_t comp;
	int group;
	unsigned stage;
	const char *bucket;
	size_t first;		/* first node: stable order */
};

static int
slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	int c;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	c = strcmp(x->bucket, y->bucket);
	if (c)
		return c;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Jobs for slots [lo, hi) of one matrix: one per component, or packed. */
static int
emit_matrix(struct work *w, const struct slot *s, size_t lo, size_t hi,
	    struct error *err)
{
	struct plan_jobs *j = w->j;
	struct arena *a = &j->arena;
	size_t total = hi - lo, nb = 0, i, b0, used;
	const char *matrix;
	char name[64];

	for (i = lo; i < hi; i++)
		nb += i == lo || strcmp(s[i].bucket, s[i - 1].bucket);
	if (nb > PLAN_JOBS_MATRIX_MAX)
		return error_set(err, ERROR_INVALID, "%zu kinds of runner in "
				 "one CI group, over GitHub's %d jobs per "
				 "matrix", nb, PLAN_JOBS_MATRIX_MAX);
	if (s[lo].stage > 1)
		snprintf(name, sizeof(name), "%s-%u",
			 plan_job_group_name((enum plan_job_group)s[lo].group),
			 s[lo].stage);
	else
		snprintf(name, sizeof(name), "%s",
			 plan_job_group_name((enum plan_job_group)s[lo].group));
	matrix = arena_strdup(a, name);
	if (!matrix)
		return error_set(err, ERROR_NOMEM, "out of memory");
	used = 0;
	for (b0 = lo; b0 < hi;) {
		size_t b1 = b0, cb, slots, k, per_platform = 0, x;
		const struct info *in = &w->in[s[b0].first];

		while (b1 < hi && !strcmp(s[b1].bucket, s[b0].bucket))
			b1++;
		cb = b1 - b0;
		/* Proportional share of the matrix, at least one job. */
		slots = total <= PLAN_JOBS_MATRIX_MAX ? cb
			: (size_t)((unsigned long long)cb *
				   (PLAN_JOBS_MATRIX_MAX - nb) / total) + 1;
		if (slots > cb)
			slots = cb;
		if (used + slots > PLAN_JOBS_MATRIX_MAX)
			slots = PLAN_JOBS_MATRIX_MAX - used;
		used += slots;
		/* Jobs of this platform already named in this matrix. */
		for (x = 0; x < j->n; x++)
			if (j->jobs[x].matrix == matrix ||
			    !strcmp(j->jobs[x].matrix, matrix))
				per_platform += (!in->platform &&
						 !j->jobs[x].platform) ||
						(in->platform &&
						 j->jobs[x].platform &&
						 !strcmp(in->platform,
							 j->jobs[x].platform));
		for (k = 0; k < slots; k++) {
			struct plan_job *job = &j->jobs[j->n];
			size_t c0 = b0 + cb * k / slots;
			size_t c1 = b0 + cb * (k + 1) / slots, c, nn = 0, m;

			job->matrix = matrix;
			job->group = (enum plan_job_group)s[b0].group;
			job->stage = s[b0].stage;
			job->platform = in->platform;
			job->host = in->host;
			job->runs_on = in->labels;
			job->n_runs_on = in->n_labels;
			job->container_image =
				w->g->nodes[s[b0].first].container_image;
			job->container_options =
				w->g->nodes[s[b0].first].container_options;
			job->name = arena_printf(a, "%s-%s-%zu", matrix,
						 in->platform ? in->platform
							      : "any",
						 per_platform + k + 1);
			if (!job->name)
				return error_set(err, ERROR_NOMEM,
						 "out of memory");
			for (c = c0; c < c1; c++)
				nn += w->cn_off[s[c].comp + 1] -
				      w->cn_off[s[c].comp];
			job->nodes = arena_alloc(a, (nn ? nn : 1) *
						    sizeof(size_t));
			if (!job->nodes)
				return error_set(err, ERROR_NOMEM,
						 "out of memory");
			for (c = c0; c < c1; c++)
				for (m = w->cn_off[s[c].comp];
				     m < w->cn_off[s[c].comp + 1]; m++) {
					j->job_of[w->cn[m]] = (long)j->n;
					job->nodes[job->n_nodes++] = w->cn[m];
				}
			qsort(job->nodes, job->n_nodes, sizeof(size_t),
			      index_cmp);
			job->label = nn > 1
				? arena_printf(a, "%s +%zu more",
					       w->g->nodes[job->nodes[0]].id,
					       nn - 1)
				: w->g->nodes[job->nodes[0]].id;
			if (!job->label)
				return error_set(err, ERROR_NOMEM,
						 "out of memory");
			j->n++;
		}
		b0 = b1;
	}
	return 0;
}

static int
cut(struct work *w, struct error *err)
{
	struct slot *s = mem_alloc((w->n_comp + 1) * sizeof(*s));
	size_t i, lo;
	int rc = 0;

	w->cn_off = mem_calloc(w->n_comp + 2, sizeof(size_t));
	w->cn = mem_alloc((w->g->n_nodes + 1) * sizeof(size_t));
	if (!s || !w->cn_off || !w->cn) {
		mem_free(s);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	for (i = 0; i < w->g->n_nodes; i++)
		if (w->comp[i] != (size_t)-1)
			w->cn_off[w->comp[i] + 2]++;
	for (i = 2; i < w->n_comp + 2; i++)
		w->cn_off[i] += w->cn_off[i - 1];
	for (i = 0; i < w->g->n_nodes; i++)
		if (w->comp[i] != (size_t)-1)
			w->cn[w->cn_off[w->comp[i] + 1]++] = i;
	for (i = 0; i < w->n_comp; i++) {
		size_t f = w->comp_first[i];

		s[i].comp = i;
		s[i].group = w->in[f].group;
		s[i].stage = w->stage[i];
		s[i].bucket = w->in[f].bucket;
		s[i].first = f;
	}
	qsort(s, w->n_comp, sizeof(*s), slot_cmp);
	w->j->jobs = arena_alloc(&w->j->arena,
				 (w->n_comp + 1) * sizeof(struct plan_job));
	if (!w->j->jobs) {
		mem_free(s);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	memset(w->j->jobs, 0, (w->n_comp + 1) * sizeof(struct plan_job));
	for (lo = 0; !rc && lo < w->n_comp;) {
		size_t hi = lo;

		while (hi < w->n_comp && s[hi].group == s[lo].group &&
		       s[hi].stage == s[lo].stage)
			hi++;
		rc = emit_matrix(w, s, lo, hi, err);
		lo = hi;
	}
	mem_free(s);
	return rc;
}

int
plan_jobs_compute(const struct graph *g, const unsigned char *closure,
		  struct plan_jobs **out, struct error *err)
{
	struct plan_jobs *j = mem_calloc(1, sizeof(*j));
	struct work w;
	size_t n = g->n_nodes, i, k, *off = NULL, *adj = NULL;
	int rc = 0;

	*out = NULL;
	memset(&w, 0, sizeof(w));
	if (!j)
		return error_set(err, ERROR_NOMEM, "out of memory");
	arena_init(&j->arena);
	w.g = g;
	w.j = j;
	w.in = mem_calloc(n + 1, sizeof(*w.in));
	w.parent = mem_alloc((n + 1) * sizeof(size_t));
	w.comp = mem_alloc((n + 1) * sizeof(size_t));
	w.comp_first = mem_alloc((n + 1) * sizeof(size_t));
	w.stage = mem_alloc((n + 1) * sizeof(unsigned));
	j->job_of = arena_alloc(&j->arena, (n + 1) * sizeof(long));
	if (!w.in || !w.parent || !w.comp || !w.comp_first || !w.stage ||
	    !j->job_of) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < n; i++) {
		w.parent[i] = i;
		j->job_of[i] = -1;
		w.in[i].group = -1;
		if (closure[i]) {
			rc = node_info(&w, i, err);
			if (rc)
				goto done;
		}
	}
	for (i = 0; i < n; i++)
		for (k = 0; w.in[i].group >= 0 && k < g->nodes[i].n_deps;
		     k++) {
			size_t d = g->nodes[i].deps[k];

			if (w.in[d].group < 0)
				continue;
			rc = check_order(&w, d, i, err);
			if (rc)
				goto done;
			if (w.in[d].group == w.in[i].group &&
			    !strcmp(w.in[d].bucket, w.in[i].bucket))
				jobs_unite(w.parent, d, i);
		}
	/* Each round merges at least two components; n rounds at most. */
	for (;;) {
		jobs_number(&w);
		rc = jobs_edges(&w, &off, &adj, err);
		if (rc)
			goto done;
		rc = jobs_merge_circles(&w, off, adj, err);
		if (rc <= 0)
			break;
		mem_free(off);
		mem_free(adj);
		off = adj = NULL;
	}
	if (rc < 0)
		goto done;
	/* Merged components keep the platform member's bucket. */
	for (i = 0; i < n; i++)
		if (w.comp[i] != (size_t)-1 && w.in[i].platform &&
		    !w.in[w.comp_first[w.comp[i]]].platform)
			w.comp_first[w.comp[i]] = i;
	rc = jobs_stages(&w, off, adj, err);
	if (!rc)
		rc = cut(&w, err);
done:
	mem_free(off);
	mem_free(adj);
	mem_free(w.in);
	mem_free(w.parent);
	mem_free(w.comp);
	mem_free(w.comp_first);
	mem_free(w.stage);
	mem_free(w.cn_off);
	mem_free(w.cn);
	if (rc) {
		plan_jobs_free(j);
		return rc;
	}
	*out = j;
	return 0;
}

void
plan_jobs_free(struct plan_jobs *j)
{
	if (!j)
		return;
	arena_release(&j->arena);
	mem_free(j);
}

const struct plan_job *
plan_jobs_find(const struct plan_jobs *j, const char *name)
{
	size_t i;

	for (i = 0; j && name && i < j->n; i++)
		if (!strcmp(j->jobs[i].name, name))
			return &j->jobs[i];
	return NULL;
}

json_t *
plan_job_container_json(const struct plan_job *job)
{
	json_t *c;

	if (!job->container_image)
		return NULL;
	c = json_object();
	if (!c)
		return NULL;
	json_object_set_new(c, "image", json_string(job->container_image));
	if (job->container_options)
		json_object_set_new(c, "options",
				    json_string(job->container_options));
	return c;
}
