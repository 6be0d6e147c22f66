/*
 * The `runners:` section: which GitHub Actions runner labels a platform's
 * CI jobs need, and its GPU tests. Keys are values of the `platform` axis
 * or `default`; each names `runs-on` (a label or a list) and optionally
 * `gpu-runs-on`. Labels are checked for what GitHub accepts in a label.
 * `host: PLATFORM` says the runners are of another platform that builds
 * this one's nodes (a cross-build: win-64 wheels made on linux-64); it must
 * be a value of the platform axis.
 */
#include "rules/load.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "rules/yaml.h"
#include "base/banned.h"

/* GitHub labels: printable ASCII without spaces, at most 100 bytes. */
static int
label_ok(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if ((unsigned char)s[n] <= ' ' || (unsigned char)s[n] >= 127)
			return 0;
	return n > 0 && n <= 100;
}

static void
labels(struct rules_load *L, const struct rules_ynode *v, const char *field,
       const char ***out, size_t *n)
{
	size_t i;

	if (rules_load_strings(L, v, field, 1, out, n))
		return;
	if (!*n)
		rules_load_error(L, v, "name at least one runner label",
				 "'%s' is empty", field);
	for (i = 0; i < *n; i++)
		if (!label_ok((*out)[i]))
			rules_load_error(L, v, "labels are printable ASCII "
					 "without spaces, 1 to 100 bytes",
					 "bad runner label '%s' in '%s'",
					 (*out)[i], field);
}

static void
load_runner(struct rules_load *L, const struct rules_ynode *k,
	    const struct rules_ynode *v, struct rules_runner *rn)
{
	static const char *const keys[] = { "runs-on", "gpu-runs-on", "host",
					    NULL };
	const struct rules_axis *ax = rules_find_axis(L->r, "platform");
	const struct rules_ynode *f;
	char what[160];
	size_t i;

	rn->platform = k->str;
	rn->pos = rules_load_pos(k);
	if (strcmp(k->str, "default")) {
		for (i = 0; ax && i < ax->n_values; i++)
			if (!strcmp(ax->values[i], k->str))
				break;
		if (!ax)
			rules_load_error(L, k, "declare axis 'platform', or use "
					 "the key 'default'",
					 "runner '%s' names a platform, but "
					 "there is no 'platform' axis", k->str);
		else if (i == ax->n_values)
			rules_load_unknown(L, k, "platform", k->str,
					   ax->values, ax->n_values);
	}
	rules_load_what(what, sizeof(what), "runner", k->str);
	if (rules_load_keys(L, v, what, keys))
		return;
	f = rules_ynode_get(v, "runs-on");
	if (!f)
		rules_load_error(L, k, "add runs-on: [LABEL, ...]",
				 "runner '%s' has no 'runs-on'", k->str);
	else
		labels(L, f, "runs-on", &rn->runs_on, &rn->n_runs_on);
	f = rules_ynode_get(v, "gpu-runs-on");
	if (f)
		labels(L, f, "gpu-runs-on", &rn->gpu_runs_on,
		       &rn->n_gpu_runs_on);
	f = rules_ynode_get(v, "host");
	if (!f)
		return;
	if (f->kind != RULES_YNODE_SCALAR) {
		rules_load_error(L, f, "host: PLATFORM, one value of the "
				 "platform axis", "runner '%s': 'host' is not "
				 "a platform name", k->str);
		return;
	}
	for (i = 0; ax && i < ax->n_values; i++)
		if (!strcmp(ax->values[i], f->str))
			break;
	if (!ax || i == ax->n_values)
		rules_load_unknown(L, f, "platform", f->str,
				   ax ? ax->values : NULL,
				   ax ? ax->n_values : 0);
	else
		rn->host = f->str;
}

void
rules_load_runners(struct rules_load *L, const struct rules_ynode *m)
{
	struct rules *r = L->r;
	size_t i;

	if (!m->n)
		return;
	r->runners = rules_load_alloc(L, m->n * sizeof(*r->runners));
	if (!r->runners)
		return;
	memset(r->runners, 0, m->n * sizeof(*r->runners));
	r->n_runners = m->n;
	for (i = 0; i < m->n; i++) {
		load_runner(L, m->items[2 * i], m->items[2 * i + 1],
			    &r->runners[i]);
		if (rules_load_failed_nomem(L))
			return;
	}
}
