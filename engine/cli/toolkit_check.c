/*
 * The toolkits a plan builds with, checked against their pins before
 * anything runs: for every toolkit a node to build or test uses, where its
 * home exists, NVRTC, nvJitLink and cudart (and version.json) are probed
 * (engine/cuda/probe.c) and must agree with the pin. Keys hash the pin
 * text only (docs/keys.md: a plan host without the toolkit must compute
 * the runner's keys), so this check is what makes the pin true; the probed
 * identity goes into each record the run makes. engine/plan never probes:
 * the identity comes down as data.
 */
#include "engine/cli/cli.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "engine/cuda/load.h"
#include "engine/cuda/probe.h"
#include "engine/plan/eval.h"
#include "engine/plan/plan.h"
#include "engine/plan/planner.h"
#include "graph/graph.h"
#include "rules/rules.h"
#include "base/banned.h"

int
cli_toolkit_home(const struct rules_toolkit *tk, char *out, size_t n)
{
	int len;

	if (tk->home)
		len = snprintf(out, n, "%s", tk->home);
	else
		len = snprintf(out, n, "/usr/local/cuda-%u.%u", tk->major,
			       tk->minor);
	return len < 0 || (size_t)len >= n ? -1 : 0;
}

/* 1 when some node the plan builds or tests uses toolkit tk. */
static int
used(const struct planner *pl, const struct rules_toolkit *tk)
{
	const struct graph *g = pl->head->graph;
	size_t i;

	for (i = 0; i < g->n_nodes; i++) {
		enum plan_decision d = pl->plan->items[i].decision;

		if (pl->plan->in_closure[i] && g->nodes[i].toolkit == tk &&
		    (d == PLAN_BUILD || d == PLAN_TEST))
			return 1;
	}
	return 0;
}

/* "cudart=13.0 nvjitlink=13.0 nvrtc=13.0 pin=13.0.2" in a. */
static const char *
identity_line(struct arena *a, const struct cuda_toolkit_info *info)
{
	struct buf b;
	const char *out;
	size_t k;

	buf_init(&b, 0);
	for (k = 0; k < info->n_identity; k++)
		buf_addf(&b, NULL, "%s%s=%s", k ? " " : "",
			 info->identity[k].name, info->identity[k].value);
	out = arena_strndup(a, b.data, b.len);
	buf_release(&b);
	return out;
}

/*
 * Probe one toolkit. Returns 0 with *identity set (or NULL: not probed,
 * no home here), or an exit code after printing the error.
 */
static int
probe(const struct cli_ctx *ctx, const struct rules_toolkit *tk,
      struct arena *a, const char **identity)
{
	struct cuda_toolkit_info info;
	struct cuda_libs *libs = NULL;
	char home[CUDA_PATH_MAX];
	struct error err;
	struct stat st;
	int rc;

	*identity = NULL;
	error_init(&err);
	if (cli_toolkit_home(tk, home, sizeof(home))) {
		/* Cut short, it would probe another toolkit. */
		error_set(&err, ERROR_INVALID, "toolkit '%s': home is too long "
			  "(%zu bytes)", tk->name, strlen(tk->home));
		return cli_fail(ctx, &err);
	}
	if (stat(home, &st) || !S_ISDIR(st.st_mode))
		return 0;
	error_init(&err);
	memset(&info, 0, sizeof(info));
	rc = cuda_libs_open(home, &libs, &err);
	if (!rc)
		rc = cuda_toolkit_probe(libs, tk->name, tk->version, &info,
					&err);
	cuda_libs_close(libs);
	if (rc) {
		/* A home without the libraries cannot be checked: say so. */
		fprintf(stderr, "ripple: note: toolkit '%s': cannot probe %s "
			"(%s); its pin %s is not checked\n", tk->name, home,
			err.msg, tk->version);
		cuda_toolkit_info_release(&info);
		return 0;
	}
	rc = cuda_toolkit_pin_check(&info, &err);
	if (rc) {
		error_hint(&err, "install the pinned toolkit there, or pin "
			   "what is installed (toolkits: %s: {version: ...}, "
			   "or home: ...)", tk->name);
		cuda_toolkit_info_release(&info);
		return cli_fail(ctx, &err);
	}
	*identity = identity_line(a, &info);
	cuda_toolkit_info_release(&info);
	if (!*identity) {
		error_set(&err, ERROR_NOMEM, "out of memory");
		return cli_fail(ctx, &err);
	}
	return 0;
}

int
cli_toolkits_check(const struct cli_ctx *ctx, const struct planner *pl,
		   struct arena *a, struct rules_kv **out, size_t *n)
{
	const struct rules *r = pl->head->rules;
	struct rules_kv *v = NULL;
	size_t i;
	int rc;

	if (out) {
		*out = NULL;
		*n = 0;
		v = arena_alloc(a, (r->n_toolkits + 1) * sizeof(*v));
		if (!v) {
			struct error err;

			error_init(&err);
			error_set(&err, ERROR_NOMEM, "out of memory");
			return cli_fail(ctx, &err);
		}
		*out = v;
	}
	for (i = 0; i < r->n_toolkits; i++) {
		const struct rules_toolkit *tk = &r->toolkits[i];
		const char *identity;

		if (!used(pl, tk))
			continue;
		rc = probe(ctx, tk, a, &identity);
		if (rc)
			return rc;
		if (identity && v) {
			v[*n].key = tk->name;
			v[*n].value = identity;
			(*n)++;
		}
	}
	return 0;
}
