/*
 * Inside jobs.c, jobs_parts.c and jobs_host.c: the work state of one cut,
 * the component-graph steps (union-find, circles, stages) that
 * jobs_parts.c does for jobs.c, and where nodes run (jobs_host.c). Not
 * for use elsewhere.
 */
#ifndef RIPPLE_ENGINE_PLAN_JOBS_INT_H
#define RIPPLE_ENGINE_PLAN_JOBS_INT_H

#include <stddef.h>

struct error;
struct graph;
struct plan_jobs;

struct info {
	int group;		/* enum plan_job_group, or -1: not a job node */
	const char *platform;
	const char *host;	/* the platform ripple runs as, or NULL */
	const char **labels;
	size_t n_labels;
	const char *container;	/* image and options as one key, or "" */
	const char *bucket;	/* group, platform, labels and container as
				   one key */
};

struct work {
	const struct graph *g;
	struct plan_jobs *j;
	struct info *in;
	size_t *parent;		/* union-find over nodes */
	size_t *comp;		/* node -> component, (size_t)-1: none */
	size_t n_comp;
	size_t *comp_first;	/* component -> its first node (topological) */
	unsigned *stage;	/* component -> stage */
	size_t *cn_off;		/* component c's nodes: cn[cn_off[c] ..] */
	size_t *cn;
};

/* Union-find over node indices; the smaller index stays the root. */
size_t jobs_find(size_t *parent, size_t i);
void jobs_unite(size_t *parent, size_t a, size_t b);

/* Number union-find roots of job nodes as components (w->comp, w->n_comp,
 * w->comp_first), in topological order of their first node. */
void jobs_number(struct work *w);

/* Component edges of one group as CSR arrays (mem_free both). */
int jobs_edges(struct work *w, size_t **off, size_t **adj, struct error *err);

/* Merge components on a circle: 1 merged, 0 acyclic, or ERROR_INVALID when
 * a circle holds two platforms, ERROR_NOMEM. */
int jobs_merge_circles(struct work *w, const size_t *off, const size_t *adj,
		       struct error *err);

/* Longest-path stages (w->stage) over the acyclic component graph. */
int jobs_stages(struct work *w, const size_t *off, const size_t *adj,
		struct error *err);

/* The runner label of a platform's jobs without a runners: entry or a
 * rule's runs-on: ubuntu-24.04-arm (linux-aarch64), windows-latest
 * (win-64), else ubuntu-latest. Static text. */
const char *jobs_default_label(const char *platform);

/* The GPU runner labels of a host platform without gpu-runs-on:
 * [self-hosted, windows, gpu] for win-64, else [self-hosted, linux, gpu];
 * their count in *n. Static. */
const char **jobs_default_gpu_labels(const char *host, size_t *n);

/* 0 when node i's runner labels (w->in[i]) send it where ripple runs as
 * its host platform; else ERROR_INVALID naming the node, the label and
 * what to write in runners:. */
int jobs_check_host(struct work *w, size_t i, struct error *err);

#endif
