/*
 * GitHub Actions renderings of a plan: the `$GITHUB_OUTPUT` lines (the plan
 * by decision, and one matrix of jobs per job group with something to run,
 * jobs from jobs.c) and the `$GITHUB_STEP_SUMMARY` Markdown with a Mermaid
 * graph kept within Mermaid's limits.
 *
 * Limits, as GitHub and Mermaid document them:
 * - outputs: 1 MB per job in all, "approximated based on UTF-16 encoding"
 *   (docs.github.com, Passing information between jobs): we count names
 *   and values in UTF-16 bytes and refuse to write more;
 * - a matrix: 256 jobs (jobs.c packs within that), never empty (GitHub
 *   rejects `{"include":[]}`): a group with nothing to run gets only
 *   `has-GROUP=false`;
 * - a workflow's jobs are fixed in its YAML: with --github-stages N the
 *   matrices (build, build-2, ..., test, gpu, ...) go to generic slots
 *   stage-1..N in run order, and a target that needs more than N stages is
 *   refused here, before any job starts, so no stage is silently left out;
 * - Mermaid: 500 edges and 50,000 characters by default (maxEdges,
 *   maxTextSize): larger plans fold into one box per rule, with counts.
 */
#include "engine/plan/report.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "engine/plan/jobs.h"
#include "engine/plan/plan.h"
#include "graph/graph.h"
#include "base/banned.h"

#define MERMAID_MAX_EDGES 500
#define MERMAID_MAX_TEXT 50000

static int
runs(const struct plan_item *it)
{
	return it->decision == PLAN_BUILD || it->decision == PLAN_TEST;
}

/* Bytes of `s` in UTF-16: 4 for a 4-byte UTF-8 sequence, else 2 a char. */
static size_t
utf16_bytes(const char *s, size_t n)
{
	size_t i, b = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c & 0xc0) == 0x80)
			continue;
		b += c >= 0xf0 ? 4 : 2;
	}
	return b;
}

/* One "name=value" line; adds its UTF-16 size to *size. */
static int
output(struct buf *out, size_t *size, const char *name, const char *value,
       struct error *err)
{
	*size += utf16_bytes(name, strlen(name)) +
		 utf16_bytes(value, strlen(value));
	return buf_addf(out, err, "%s=%s\n", name, value);
}

static int
job_runs(const struct plan *p, const struct plan_job *job)
{
	size_t k;

	for (k = 0; k < job->n_nodes; k++)
		if (p->in_closure[job->nodes[k]] &&
		    runs(&p->items[job->nodes[k]]))
			return 1;
	return 0;
}

/* The matrix of jobs [lo, hi) (one matrix name) that have work. */
static json_t *
matrix_json(const struct plan *p, const struct plan_jobs *j, size_t lo,
	    size_t hi)
{
	json_t *include = json_array(), *doc = json_object();
	size_t i, k, n;

	for (i = lo; i < hi; i++) {
		const struct plan_job *job = &j->jobs[i];
		json_t *e = json_object(), *labels = json_array();

		if (!job_runs(p, job)) {
			json_decref(e);
			json_decref(labels);
			continue;
		}
		for (k = 0; k < job->n_runs_on; k++)
			json_array_append_new(labels,
					      json_string(job->runs_on[k]));
		for (k = n = 0; k < job->n_nodes; k++)
			n += runs(&p->items[job->nodes[k]]);
		json_object_set_new(e, "job", json_string(job->name));
		json_object_set_new(e, "runs-on", labels);
		if (job->container_image)
			json_object_set_new(e, "container",
					    plan_job_container_json(job));
		json_object_set_new(e, "platform",
				    job->platform ? json_string(job->platform)
						  : json_null());
		json_object_set_new(e, "label", json_string(job->label));
		json_object_set_new(e, "nodes", json_integer((json_int_t)n));
		json_array_append_new(include, e);
	}
	json_object_set_new(doc, "include", include);
	return doc;
}

/* Matrices of j in run order: starts[k] is the first job of matrix k. */
static size_t
matrix_starts(const struct plan_jobs *j, size_t *starts)
{
	size_t lo, n = 0;

	for (lo = 0; lo < j->n; lo++)
		if (!lo || strcmp(j->jobs[lo].matrix, j->jobs[lo - 1].matrix))
			starts[n++] = lo;
	starts[n] = j->n;
	return n;
}

/* The stage-K outputs for a workflow of `slots` generic job slots. */
static int
stage_outputs(const struct plan *p, const struct plan_jobs *j,
	      unsigned slots, struct buf *out, size_t *size,
	      struct error *err)
{
	size_t *starts = mem_alloc((j->n + 2) * sizeof(size_t));
	size_t n, k, x, work;
	char name[64], num[32], *s;
	struct buf list;
	int rc = 0;

	if (!starts)
		return error_set(err, ERROR_NOMEM, "out of memory");
	n = matrix_starts(j, starts);
	if (n > slots) {
		const struct plan_job *deep = &j->jobs[starts[n - 1]];

		buf_init(&list, 0);
		for (k = 0; !rc && k < n; k++)
			rc = buf_addf(&list, err, "%s%s", k ? ", " : "",
				      j->jobs[starts[k]].matrix);
		if (!rc) {
			error_set(err, ERROR_INVALID, "the target's jobs need "
				  "%zu stages in order (%s), but the workflow "
				  "runs %u (--github-stages %u): jobs of a "
				  "stage past %u would never run; the deepest "
				  "is %s (%s)", n, list.data, slots, slots,
				  slots, deep->name, deep->label);
			error_hint(err, "each stage is a job of another "
				   "platform or runner that needs the one "
				   "before; shorten that chain in the rules, "
				   "plan a narrower target per workflow, or "
				   "give the workflow more stage jobs");
			rc = ERROR_INVALID;
		}
		buf_release(&list);
		mem_free(starts);
		return rc;
	}
	snprintf(num, sizeof(num), "%zu", n);
	rc = output(out, size, "stages", num, err);
	for (k = 0; !rc && k < slots; k++) {
		snprintf(name, sizeof(name), "has-stage-%zu", k + 1);
		work = 0;
		for (x = k < n ? starts[k] : 0; k < n && x < starts[k + 1]; x++)
			work += job_runs(p, &j->jobs[x]);
		rc = output(out, size, name, work ? "true" : "false", err);
		if (rc || k >= n)
			continue;
		snprintf(name, sizeof(name), "name-stage-%zu", k + 1);
		rc = output(out, size, name, j->jobs[starts[k]].matrix, err);
		if (rc || !work)
			continue;
		{
			json_t *doc = matrix_json(p, j, starts[k],
						  starts[k + 1]);

			s = doc ? json_dumps(doc, JSON_COMPACT |
					     JSON_SORT_KEYS) : NULL;
			json_decref(doc);
		}
		if (!s) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			break;
		}
		snprintf(name, sizeof(name), "matrix-stage-%zu", k + 1);
		rc = output(out, size, name, s, err);
		free(s);
	}
	mem_free(starts);
	return rc;
}

int
report_plan_github(const struct graph *g, const struct plan *p,
		   const struct plan_meta *m, struct buf *out,
		   struct error *err)
{
	struct plan_jobs *j = NULL;
	json_t *doc = json_object();
	size_t i, nb = 0, nt = 0, size = 0, start = out->len, lo;
	char *s = NULL, name[96];
	int rc;

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
	rc = output(out, &size, "plan", s, err);
	free(s);
	s = NULL;
	if (!rc)
		rc = output(out, &size, "build", nb ? "true" : "false", err);
	if (!rc)
		rc = output(out, &size, "test", nt ? "true" : "false", err);
	if (!rc)
		rc = plan_jobs_compute(g, p->in_closure, &j, err);
	if (!rc && m->github_stages)
		rc = stage_outputs(p, j, m->github_stages, out, &size, err);
	for (lo = 0; !rc && j && lo < j->n;) {
		size_t hi = lo, k, work = 0;

		while (hi < j->n && !strcmp(j->jobs[hi].matrix,
					    j->jobs[lo].matrix))
			hi++;
		for (k = lo; k < hi; k++)
			work += job_runs(p, &j->jobs[k]);
		snprintf(name, sizeof(name), "has-%s", j->jobs[lo].matrix);
		rc = output(out, &size, name, work ? "true" : "false", err);
		if (!rc && work) {
			doc = matrix_json(p, j, lo, hi);
			s = doc ? json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS)
				: NULL;
			json_decref(doc);
			if (!s) {
				rc = error_set(err, ERROR_NOMEM,
					       "out of memory");
				break;
			}
			snprintf(name, sizeof(name), "matrix-%s",
				 j->jobs[lo].matrix);
			rc = output(out, &size, name, s, err);
			free(s);
			s = NULL;
		}
		lo = hi;
	}
	plan_jobs_free(j);
	if (!rc && size > REPORT_GHA_OUTPUT_MAX) {
		out->len = start;
		if (out->data)
			out->data[start] = '\0';
		rc = error_set(err, ERROR_INVALID,
			       "the GitHub outputs are %zu bytes as GitHub "
			       "counts them (UTF-16), over its 1 MB per job",
			       size);
		error_hint(err, "plan a narrower target per workflow, or "
			   "read the plan with --json from a file");
	}
	return rc;
}

/* Mermaid-safe text: no quotes, brackets or newlines inside labels. */
static void
label_text(struct buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '"': buf_addstr(b, "#quot;", NULL); break;
		case '<': buf_addstr(b, "#lt;", NULL); break;
		case '>': buf_addstr(b, "#gt;", NULL); break;
		case '\n': case '\r': case '\t': buf_addch(b, ' ', NULL); break;
		default: buf_addch(b, *s, NULL); break;
		}
	}
}

/* "bindings-wheel<br/>3.12 · linux-64 · bindings-12" */
static void
node_label(struct buf *b, const struct graph_node *n)
{
	size_t k;

	label_text(b, graph_node_kind_name(n->kind));
	buf_addch(b, ' ', NULL);
	label_text(b, n->name);
	for (k = 0; k < n->n_axes; k++) {
		buf_addstr(b, k ? " · " : "<br/>", NULL);
		label_text(b, n->axes[k].value);
	}
}

static const char *
decision_class(enum plan_decision d)
{
	switch (d) {
	case PLAN_BUILD: case PLAN_TEST: return "run";
	case PLAN_REUSE: return "reuse";
	case PLAN_BLOCKED: return "blocked";
	default: return "skip";
	}
}

static const char legend[] =
	"  classDef run fill:#f9d77e,stroke:#b08800\n"
	"  classDef reuse fill:#a6e3a1,stroke:#2f7d32\n"
	"  classDef skip fill:#dddddd,stroke:#888888\n"
	"  classDef blocked fill:#f4a6a6,stroke:#b00020\n"
	"```\n\nColours: yellow runs here (build or test), green is reused "
	"from a record, grey is skipped or runs elsewhere, red is blocked.\n";

/* One box per node; returns the number of edges. */
static size_t
node_graph(const struct graph *g, const struct plan *p, struct buf *b)
{
	size_t i, k, edges = 0;

	for (i = 0; i < p->n; i++) {
		if (!p->in_closure[i])
			continue;
		buf_addf(b, NULL, "  n%zu[\"", i);
		node_label(b, &g->nodes[i]);
		buf_addf(b, NULL, "\"]:::%s\n",
			 decision_class(p->items[i].decision));
		for (k = 0; k < g->nodes[i].n_deps; k++)
			if (p->in_closure[g->nodes[i].deps[k]]) {
				buf_addf(b, NULL, "  n%zu --> n%zu\n",
					 g->nodes[i].deps[k], i);
				edges++;
			}
	}
	return edges;
}

/*
 * One box per rule (kind and name), counting its nodes per decision, and
 * one edge per pair of rules with a dependency. Rules are identified by
 * their first node (graph order); edges are deduplicated with a bitmap
 * over rule pairs when there are few rules, else by sorting.
 */
static int
rule_graph(const struct graph *g, const struct plan *p, struct buf *b,
	   size_t *n_edges, struct error *err)
{
	size_t n = p->n, i, k, nr = 0, ne = 0, *rule = NULL, *first = NULL;
	size_t (*cnt)[4] = NULL;
	unsigned long long *pairs = NULL;
	int rc = 0;

	rule = mem_alloc((n + 1) * sizeof(size_t));
	first = mem_alloc((n + 1) * sizeof(size_t));
	cnt = mem_calloc(n + 1, sizeof(*cnt));
	pairs = mem_alloc((n + 1) * sizeof(*pairs));
	if (!rule || !first || !cnt || !pairs) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < n; i++) {
		rule[i] = (size_t)-1;
		if (!p->in_closure[i])
			continue;
		for (k = 0; k < nr; k++)
			if (g->nodes[first[k]].kind == g->nodes[i].kind &&
			    !strcmp(g->nodes[first[k]].name, g->nodes[i].name))
				break;
		if (k == nr)
			first[nr++] = i;
		rule[i] = k;
		cnt[k][runs(&p->items[i]) ? 0
		       : p->items[i].decision == PLAN_REUSE ? 1
		       : p->items[i].decision == PLAN_BLOCKED ? 3 : 2]++;
	}
	for (k = 0; k < nr; k++) {
		const struct graph_node *f = &g->nodes[first[k]];

		buf_addf(b, NULL, "  r%zu[\"", k);
		label_text(b, graph_node_kind_name(f->kind));
		buf_addch(b, ' ', NULL);
		label_text(b, f->name);
		buf_addf(b, NULL, "<br/>%zu run · %zu reuse · %zu skip%s\"]:::%s\n",
			 cnt[k][0], cnt[k][1], cnt[k][2] + cnt[k][3],
			 cnt[k][3] ? " (some blocked)" : "",
			 cnt[k][3] ? "blocked" : cnt[k][0] ? "run"
				 : cnt[k][1] ? "reuse" : "skip");
	}
	for (i = 0; i < n; i++)
		for (k = 0; rule[i] != (size_t)-1 && k < g->nodes[i].n_deps;
		     k++) {
			size_t d = g->nodes[i].deps[k], x;
			unsigned long long key;

			if (rule[d] == (size_t)-1 || rule[d] == rule[i])
				continue;
			key = (unsigned long long)rule[d] * (nr + 1) + rule[i];
			for (x = 0; x < ne && pairs[x] != key; x++)
				;
			if (x < ne)
				continue;
			pairs[ne++] = key;
		}
	for (i = 0; i < ne && i < MERMAID_MAX_EDGES; i++)
		buf_addf(b, NULL, "  r%llu --> r%llu\n", pairs[i] / (nr + 1),
			 pairs[i] % (nr + 1));
	if (ne > MERMAID_MAX_EDGES)
		buf_addf(b, NULL, "  %%%% %zu more edges left out\n",
			 ne - MERMAID_MAX_EDGES);
	*n_edges = ne;
done:
	mem_free(rule);
	mem_free(first);
	mem_free(cnt);
	mem_free(pairs);
	return rc;
}

int
report_plan_summary(const struct graph *g, const struct plan *p,
		    const struct plan_meta *m, struct buf *out,
		    struct error *err)
{
	struct buf graph;
	size_t i, start = out->len, edges, n_closure = 0;
	int rc = 0, folded = 0;

	buf_addf(out, err, "## ripple plan\n\n| build | test | reuse | skip | "
		 "root causes |\n|---|---|---|---|---|\n| %zu | %zu | %zu | "
		 "%zu | %zu |\n\n", p->counts[PLAN_BUILD],
		 p->counts[PLAN_TEST], p->counts[PLAN_REUSE],
		 p->counts[PLAN_SKIP], p->root_causes);
	buf_addf(out, err, "Baseline: %s\n\n",
		 m->baseline_label ? m->baseline_label : "none");
	if (p->expected[PLAN_EXPECT_CUTOFF] ||
	    p->expected[PLAN_EXPECT_IF_PAYLOAD])
		buf_addf(out, err, "Early cutoff foreseen: %zu expected (their "
			 "rebuilt upstreams only re-version unchanged "
			 "payloads), %zu if the rebuilt payloads are "
			 "unchanged; the run decides from the bytes.\n\n",
			 p->expected[PLAN_EXPECT_CUTOFF],
			 p->expected[PLAN_EXPECT_IF_PAYLOAD]);
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

		n_closure += p->in_closure[i];
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
	edges = node_graph(g, p, &graph);
	if (edges > MERMAID_MAX_EDGES || graph.len > MERMAID_MAX_TEXT) {
		folded = 1;
		buf_reset(&graph);
		buf_addf(&graph, err, "\n### Graph\n\n%zu nodes, folded into "
			 "one box per rule (Mermaid draws at most %d edges "
			 "and %d characters).\n\n```mermaid\nflowchart LR\n",
			 n_closure, MERMAID_MAX_EDGES, MERMAID_MAX_TEXT);
		rc = rule_graph(g, p, &graph, &edges, err);
	}
	buf_addstr(&graph, legend, err);
	if (!rc && graph.len <= MERMAID_MAX_TEXT + 4096 &&
	    out->len - start + graph.len <= REPORT_GHA_SUMMARY_MAX)
		buf_add(out, graph.data, graph.len, err);
	else if (!rc)
		buf_addf(out, err, "\n(The graph is left out: even folded "
			 "into rules%s it exceeds Mermaid's or GitHub's "
			 "limits.)\n", folded ? "" : " it would not fit;");
	buf_release(&graph);
	if (rc)
		return rc;
	return err && err->code ? err->code : 0;
}
