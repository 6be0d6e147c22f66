/*
 * Template substitution and selection expressions. The loader has already
 * checked template syntax; errors here are for variables a node cannot bind.
 */
#include "graph/template.h"

#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "graph/graph.h"
#include "rules/rules.h"
#include "base/banned.h"

static const char *
axis_value(const struct template_env *env, const char *name)
{
	size_t i;

	for (i = 0; i < env->n_axes; i++)
		if (!strcmp(env->axes[i].axis, name))
			return env->axes[i].value;
	return NULL;
}

static int
lookup(struct arena *a, const struct template_env *env, const char *name,
       const char **val, struct error *err)
{
	const struct rules_toolkit *tk = env->toolkit;
	const struct rules_root *root = env->root;

	*val = axis_value(env, name);
	if (*val)
		return 0;
	if (!strncmp(name, "root.", 5)) {
		if (!root)
			return error_set(err, ERROR_INVALID,
					 "'${%s}' needs a root axis", name);
		if (!strcmp(name + 5, "name"))
			*val = root->name;
		else if (!strcmp(name + 5, "path"))
			*val = root->path;
		else if (!strcmp(name + 5, "toolkit"))
			*val = root->toolkit ? root->toolkit : "";
		else if (!strcmp(name + 5, "tag-prefix"))
			*val = root->tag_prefix ? root->tag_prefix : "";
		if (*val)
			return 0;
	} else if (!strncmp(name, "toolkit.", 8)) {
		if (!tk)
			return error_set(err, ERROR_INVALID,
					 "'${%s}' needs a toolkit", name);
		if (!strcmp(name + 8, "name"))
			*val = tk->name;
		else if (!strcmp(name + 8, "version"))
			*val = tk->version;
		else if (!strcmp(name + 8, "home"))
			*val = tk->home ? tk->home : "";
		else if (!strcmp(name + 8, "major"))
			*val = arena_printf(a, "%u", tk->major);
		else if (!strcmp(name + 8, "minor"))
			*val = arena_printf(a, "%u", tk->minor);
		if (*val)
			return 0;
	} else if (!strcmp(name, "version") && env->version) {
		*val = env->version;
		return 0;
	}
	return error_set(err, ERROR_INVALID, "unknown variable '${%s}'", name);
}

int
template_expand(struct arena *a, const char *tmpl,
		const struct template_env *env, const char **out,
		struct error *err)
{
	struct buf b;
	const char *p = tmpl;
	int rc = 0;

	*out = NULL;
	if (!tmpl)
		return 0;
	if (!strchr(tmpl, '$')) {
		*out = tmpl;
		return 0;
	}
	buf_init(&b, 0);
	while (*p) {
		const char *end, *val;
		char name[128];
		size_t n;

		if (p[0] != '$') {
			rc = buf_addch(&b, *p++, err);
			if (rc)
				goto done;
			continue;
		}
		if (p[1] == '$') {
			rc = buf_addch(&b, '$', err);
			if (rc)
				goto done;
			p += 2;
			continue;
		}
		if (p[1] != '{') {
			/* As the loader reads it: a lone `$` is itself. */
			rc = buf_addch(&b, *p++, err);
			if (rc)
				goto done;
			continue;
		}
		if (!(end = strchr(p + 2, '}'))) {
			rc = error_set(err, ERROR_INVALID,
				       "malformed template '%s'", tmpl);
			goto done;
		}
		n = (size_t)(end - (p + 2));
		if (n == 0 || n >= sizeof(name)) {
			rc = error_set(err, ERROR_INVALID,
				       "malformed template '%s'", tmpl);
			goto done;
		}
		memcpy(name, p + 2, n);
		name[n] = '\0';
		if (!strcmp(name, "root.version")) {
			rc = buf_add(&b, p, n + 3, err);
		} else {
			rc = lookup(a, env, name, &val, err);
			if (!rc && !val)
				rc = error_set(err, ERROR_NOMEM,
					       "out of memory");
			if (!rc)
				rc = buf_addstr(&b, val, err);
		}
		if (rc)
			goto done;
		p = end + 1;
	}
	*out = arena_strndup(a, b.data, b.len);
	if (!*out)
		rc = error_set(err, ERROR_NOMEM, "out of memory");
done:
	buf_release(&b);
	return rc;
}

static int
root_field(const struct rules *r, const struct rules_root *root,
	   const char *field, char *out, size_t n)
{
	const struct rules_toolkit *tk =
		root->toolkit ? rules_find_toolkit(r, root->toolkit) : NULL;

	if (!strcmp(field, "name"))
		snprintf(out, n, "%s", root->name);
	else if (!strcmp(field, "path"))
		snprintf(out, n, "%s", root->path);
	else if (!strcmp(field, "role"))
		snprintf(out, n, "%s",
			 root->role == RULES_ROLE_CURRENT ? "current"
			 : root->role == RULES_ROLE_MAINTENANCE ? "maintenance"
								: "");
	else if (!strcmp(field, "toolkit"))
		snprintf(out, n, "%s", root->toolkit ? root->toolkit : "");
	else if (!strncmp(field, "toolkit.", 8)) {
		if (!tk) {
			out[0] = '\0';
			return 0;
		}
		if (!strcmp(field + 8, "major"))
			snprintf(out, n, "%u", tk->major);
		else if (!strcmp(field + 8, "minor"))
			snprintf(out, n, "%u", tk->minor);
		else if (!strcmp(field + 8, "version"))
			snprintf(out, n, "%s", tk->version);
		else
			return -1;
	} else
		return -1;
	return 0;
}

static int
toolkit_field(const struct rules_toolkit *tk, const char *field, char *out,
	      size_t n)
{
	if (!strcmp(field, "name"))
		snprintf(out, n, "%s", tk->name);
	else if (!strcmp(field, "version"))
		snprintf(out, n, "%s", tk->version);
	else if (!strcmp(field, "major"))
		snprintf(out, n, "%u", tk->major);
	else if (!strcmp(field, "minor"))
		snprintf(out, n, "%u", tk->minor);
	else
		return -1;
	return 0;
}

int
template_select(struct arena *a, const struct rules *rules, const char *expr,
		const char ***names, size_t *n, struct error *err)
{
	const char *open = strchr(expr, '['), *eq;
	size_t len = strlen(expr), i, count = 0, total;
	char coll[16], field[64], value[128], have[256];
	int is_roots;

	*names = NULL;
	*n = 0;
	if (!open || len < 2 || expr[len - 1] != ']')
		return 0;
	if ((size_t)(open - expr) >= sizeof(coll))
		return 0;
	memcpy(coll, expr, (size_t)(open - expr));
	coll[open - expr] = '\0';
	if (strcmp(coll, "roots") && strcmp(coll, "toolkits"))
		return 0;
	is_roots = !strcmp(coll, "roots");
	eq = strchr(open, '=');
	if (!eq || (size_t)(eq - open - 1) >= sizeof(field) ||
	    (size_t)(expr + len - 1 - eq - 1) >= sizeof(value))
		return error_set(err, ERROR_INVALID,
				 "malformed selection '%s'", expr);
	memcpy(field, open + 1, (size_t)(eq - open - 1));
	field[eq - open - 1] = '\0';
	memcpy(value, eq + 1, (size_t)(expr + len - 1 - eq - 1));
	value[expr + len - 1 - eq - 1] = '\0';
	total = is_roots ? rules->n_roots : rules->n_toolkits;
	*names = arena_alloc(a, (total + 1) * sizeof(**names));
	if (!*names)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; i < total; i++) {
		int rc = is_roots
			? root_field(rules, &rules->roots[i], field, have,
				     sizeof(have))
			: toolkit_field(&rules->toolkits[i], field, have,
					sizeof(have));

		if (rc)
			return error_set(err, ERROR_INVALID,
					 "unknown field '%s' in '%s'", field,
					 expr);
		if (!strcmp(have, value))
			(*names)[count++] = is_roots ? rules->roots[i].name
						     : rules->toolkits[i].name;
	}
	*n = count;
	return 1;
}
