/*
 * What CI needs of an artifact or test rule beyond its action (issue 26):
 * `pass-env:` (variables passed to the action but never keyed or recorded),
 * `container:`, `rewrites:` and named output groups. node.c calls these;
 * the keys and the run's use of them are in graph/ and engine/run/.
 */
#include "rules/load.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "rules/yaml.h"
#include "base/banned.h"

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* An environment variable name, with '*' and '?' allowed as globs. */
static int
env_glob_ok(const char *s)
{
	size_t j;

	if (!*s)
		return 0;
	for (j = 0; s[j]; j++) {
		char c = s[j];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      c == '_' || c == '*' || c == '?' ||
		      (j && c >= '0' && c <= '9')))
			return 0;
	}
	return 1;
}

void
rules_load_pass_env(struct rules_load *L, const struct rules_ynode *v,
		    struct rules_node *node)
{
	size_t i, k;

	if (rules_load_strings(L, v, "pass-env", 1, &node->pass_env,
			       &node->n_pass_env))
		return;
	for (i = 0; i < node->n_pass_env; i++) {
		const struct rules_ynode *it = v->kind == RULES_YNODE_SEQ
			? v->items[i] : v;
		const char *p = node->pass_env[i];

		if (!env_glob_ok(p)) {
			rules_load_error(L, it, "use letters, digits and '_', "
					 "with '*' and '?' as globs",
					 "invalid pass-env name '%s'", p);
			continue;
		}
		for (k = 0; k < node->n_env; k++)
			if (!fnmatch(p, node->env[k].key, 0))
				rules_load_error(L, it, "a variable is either "
						 "keyed (env:) or passed "
						 "through unkeyed (pass-env:)",
						 "'%s' is in both env and "
						 "pass-env", node->env[k].key);
		for (k = 0; k < i; k++)
			if (!strcmp(node->pass_env[k], p))
				rules_load_error(L, it, NULL,
						 "duplicate pass-env name '%s'",
						 p);
	}
	qsort(node->pass_env, node->n_pass_env, sizeof(*node->pass_env),
	      cmp_str);
}

void
rules_load_container(struct rules_load *L, const struct rules_ynode *v,
		     struct rules_node *node, const struct rules_tvars *tv)
{
	static const char *const keys[] = { "image", "options", NULL };
	const struct rules_ynode *img = v, *opt = NULL;
	struct rules_container *c = &node->container;

	c->pos = rules_load_pos(v);
	if (v->kind == RULES_YNODE_MAP) {
		if (rules_load_keys(L, v, "container", keys))
			return;
		img = rules_ynode_get(v, "image");
		opt = rules_ynode_get(v, "options");
		if (!img) {
			rules_load_error(L, v, "write {image: REF, options: "
					 "\"--shm-size=8g\"}",
					 "'container' has no 'image'");
			return;
		}
	}
	if (rules_load_string(L, img, "image", &c->image))
		return;
	if (!c->image[0])
		rules_load_error(L, img, "name an image: "
				 "\"rapidsai/ci-conda@sha256:...\"",
				 "empty container image");
	else
		rules_syntax_template(L, img, c->image, tv);
	if (opt && !rules_load_string(L, opt, "options", &c->options))
		rules_syntax_template(L, opt, c->options, tv);
}

void
rules_load_runs_on(struct rules_load *L, const struct rules_ynode *v,
		   struct rules_node *node, const struct rules_tvars *tv)
{
	size_t i;

	if (node->gpu.count) {
		rules_load_error(L, v, "write gpu: {count: N, runs-on: "
				 "[LABEL, ...]}",
				 "a GPU node's runner labels go in "
				 "'gpu: {runs-on:}'");
		return;
	}
	if (rules_load_strings(L, v, "runs-on", 1, &node->runs_on,
			       &node->n_runs_on))
		return;
	if (!node->n_runs_on)
		rules_load_error(L, v, NULL, "empty 'runs-on'");
	for (i = 0; i < node->n_runs_on; i++)
		rules_syntax_template(L, v->kind == RULES_YNODE_SEQ
				      ? v->items[i] : v, node->runs_on[i], tv);
}
