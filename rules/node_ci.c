/*
 * What CI needs of an artifact or test rule beyond its action (issue 26):
 * `pass-env:` (variables passed to the action but never keyed or recorded),
 * `container:`, `rewrites:` and named output groups. node.c calls these;
 * the keys and the run's use of them are in graph/ and engine/run/.
 */
#include "rules/load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fnmatch.h"
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

const char *const rules_env_always[RULES_ENV_ALWAYS_COUNT + 1] = {
	"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TERM", "USER",
	"CUDA_HOME", "LD_LIBRARY_PATH", NULL,
};

/*
 * 1 when pass-env name p (no glob) is one every action gets anyway:
 * listing it would look like a choice and change nothing.
 */
static int
passed_anyway(const char *p)
{
	size_t i;

	for (i = 0; rules_env_always[i]; i++)
		if (!strcmp(p, rules_env_always[i]))
			return 1;
	return 0;
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
		if (!strncmp(p, "RIPPLE_", 7) ||
		    !strcmp(p, "CUDA_VISIBLE_DEVICES")) {
			rules_load_error(L, it, "ripple sets RIPPLE_* and "
					 "CUDA_VISIBLE_DEVICES itself and never "
					 "passes them; drop the entry",
					 "pass-env '%s' names a variable ripple "
					 "never passes", p);
			continue;
		}
		if (passed_anyway(p)) {
			rules_load_error(L, it, "every action gets PATH, HOME, "
					 "LANG, LC_ALL, TMPDIR, TERM, USER, "
					 "CUDA_HOME and LD_LIBRARY_PATH "
					 "(docs/rules.md); drop the entry",
					 "pass-env '%s' names a variable every "
					 "action already gets", p);
			continue;
		}
		for (k = 0; k < node->n_env; k++)
			if (fnmatch_match(p, node->env[k].key))
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
	c->pos = rules_load_pos(img);
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

/* A `rewrites:` entry with its position, for sorting both together. */
struct rewrite {
	const char *path;
	struct rules_pos pos;
};

static int
cmp_rewrite(const void *a, const void *b)
{
	const struct rewrite *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	if (x->pos.line != y->pos.line)
		return x->pos.line < y->pos.line ? -1 : 1;
	return (x->pos.col > y->pos.col) - (x->pos.col < y->pos.col);
}

/* Sort node->rewrites by path, each position moving with its path. */
static void
sort_rewrites(struct rules_load *L, struct rules_node *node)
{
	struct rewrite *rw = rules_load_alloc(L, (node->n_rewrites + 1) *
						 sizeof(*rw));
	size_t i;

	if (!rw)
		return;
	for (i = 0; i < node->n_rewrites; i++) {
		rw[i].path = node->rewrites[i];
		rw[i].pos = node->rewrite_pos[i];
	}
	qsort(rw, node->n_rewrites, sizeof(*rw), cmp_rewrite);
	for (i = 0; i < node->n_rewrites; i++) {
		node->rewrites[i] = rw[i].path;
		node->rewrite_pos[i] = rw[i].pos;
	}
}

void
rules_load_rewrites(struct rules_load *L, const struct rules_ynode *v,
		    struct rules_node *node, const struct rules_tvars *tv)
{
	size_t i, k;

	if (rules_load_strings(L, v, "rewrites", 1, &node->rewrites,
			       &node->n_rewrites))
		return;
	node->rewrite_pos = rules_load_item_pos(L, v, node->n_rewrites);
	if (!node->rewrite_pos)
		return;
	for (i = 0; i < node->n_rewrites; i++) {
		const struct rules_ynode *it = v->kind == RULES_YNODE_SEQ
			? v->items[i] : v;
		const char *p = node->rewrites[i];

		if (!p[0] || p[0] == '/' || strpbrk(p, "*?[\\") ||
		    p[strlen(p) - 1] == '/') {
			rules_load_error(L, it, "name a tracked file from the "
					 "repository root: VERSION, "
					 "python/foo/foo/VERSION",
					 "'rewrites' entry '%s' is not a file "
					 "path", p);
			continue;
		}
		if (rules_syntax_pattern(L, it, p) ||
		    rules_syntax_template(L, it, p, tv))
			continue;
		for (k = 0; k < i; k++)
			if (!strcmp(node->rewrites[k], p))
				rules_load_error(L, it, NULL, "duplicate "
						 "'rewrites' entry '%s'", p);
	}
	sort_rewrites(L, node);
}

void
rules_load_output_groups(struct rules_load *L, const struct rules_ynode *v,
			 struct rules_node *node, const struct rules_tvars *tv)
{
	size_t i, k, total = 0, at = 0;

	if (node->kind == RULES_NODE_TEST) {
		rules_load_error(L, v, "a test's outputs are one list",
				 "output groups are for artifacts");
		return;
	}
	for (i = 0; i < v->n; i++) {
		const struct rules_ynode *val = v->items[2 * i + 1];

		total += val->kind == RULES_YNODE_SEQ ? val->n : 1;
	}
	node->groups = rules_load_alloc(L, (v->n ? v->n : 1) *
					   sizeof(*node->groups));
	node->outputs = rules_load_alloc(L, (total ? total : 1) *
					    sizeof(*node->outputs));
	node->output_pos = rules_load_alloc(L, (total ? total : 1) *
					       sizeof(*node->output_pos));
	if (!node->groups || !node->outputs || !node->output_pos)
		return;
	for (i = 0; i < v->n; i++) {
		const struct rules_ynode *key = v->items[2 * i];
		const struct rules_ynode *val = v->items[2 * i + 1];
		struct rules_output_group *g = &node->groups[node->n_groups];

		if (rules_load_name(L, key, "output group"))
			continue;
		if (rules_load_strings(L, val, key->str, 1, &g->outputs,
				       &g->n_outputs))
			continue;
		if (!g->n_outputs) {
			rules_load_error(L, val, NULL, "empty output group "
					 "'%s'", key->str);
			continue;
		}
		g->name = key->str;
		g->pos = rules_load_pos(key);
		for (k = 0; k < g->n_outputs; k++) {
			const struct rules_ynode *it =
				val->kind == RULES_YNODE_SEQ ? val->items[k]
							     : val;

			if (!rules_syntax_output(L, it, g->outputs[k]))
				rules_syntax_template(L, it, g->outputs[k],
						      tv);
			node->output_pos[at] = rules_load_pos(it);
			node->outputs[at++] = g->outputs[k];
		}
		node->n_groups++;
	}
	node->n_outputs = at;
}

/* The output group `name` of artifact rule `a`, or NULL. */
static const struct rules_output_group *
find_group(const struct rules_node *a, const char *name)
{
	size_t i;

	for (i = 0; a && i < a->n_groups; i++)
		if (!strcmp(a->groups[i].name, name))
			return &a->groups[i];
	return NULL;
}

void
rules_check_groups(struct rules_load *L)
{
	const struct rules *r = L->r;
	size_t i, k, j;

	for (i = 0; i < r->n_artifacts + r->n_tests; i++) {
		const struct rules_node *n = i < r->n_artifacts
			? &r->artifacts[i] : &r->tests[i - r->n_artifacts];

		for (k = 0; k < n->n_deps; k++) {
			const struct rules_dep *d = &n->deps[k];
			const struct rules_node *a;
			char hint[256];
			size_t used;

			if (!d->group)
				continue;
			a = rules_find_artifact(r, d->name);
			if (find_group(a, d->group))
				continue;
			if (!a || !a->n_groups) {
				rules_load_error_at(L, d->pos.line, d->pos.col,
						    "give its outputs: groups "
						    "({lib: [...], tests: "
						    "[...]})", "artifact '%s' "
						    "has no output groups "
						    "(needed as '%s.%s')",
						    d->name, d->name, d->group);
				continue;
			}
			used = (size_t)snprintf(hint, sizeof(hint),
						"its groups:");
			for (j = 0; j < a->n_groups && used < sizeof(hint);
			     j++)
				used += (size_t)snprintf(hint + used,
							 sizeof(hint) - used,
							 "%s %s", j ? "," : "",
							 a->groups[j].name);
			rules_load_error_at(L, d->pos.line, d->pos.col, hint,
					    "artifact '%s' has no output group "
					    "'%s'", d->name, d->group);
		}
	}
}

int
rules_dep_group(struct rules_load *L, const char *name, struct rules_dep *d)
{
	const char *dot = strrchr(name, '.');
	char *art;

	if (!dot || dot == name || !dot[1])
		return 0;
	art = rules_load_alloc(L, (size_t)(dot - name) + 1);
	if (!art)
		return 0;
	memcpy(art, name, (size_t)(dot - name));
	art[dot - name] = '\0';
	if (!rules_load_has_name(L->art_sorted, L->n_art_names, art))
		return 0;
	d->name = art;
	d->group = dot + 1;
	return 1;
}
