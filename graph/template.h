/*
 * `${...}` templates in rules: substitution of axis values and root and
 * toolkit fields for one node, and the `COLLECTION[FIELD=VALUE]` selection
 * expressions used by `where:` and `toolkit:`.
 */
#ifndef RIPPLE_GRAPH_TEMPLATE_H
#define RIPPLE_GRAPH_TEMPLATE_H

#include <stddef.h>

struct arena;
struct error;
struct rules;
struct rules_root;
struct rules_toolkit;
struct graph_binding;

/* What a template may refer to, for one node. */
struct template_env {
	const struct graph_binding *axes;	/* sorted by axis */
	size_t n_axes;
	const struct rules_root *root;		/* or NULL */
	const struct rules_toolkit *toolkit;	/* or NULL */
	const char *version;	/* ${version} (releases), or NULL */
};

/*
 * Substitute every `${NAME}` in `tmpl` from env: an axis name, root.name,
 * root.path, root.toolkit, toolkit.name, toolkit.version, toolkit.major,
 * toolkit.minor, toolkit.home, version. `${root.version}` is left as written
 * (resolved at run time, outside keys). `$$` is a literal `$`, and so is a
 * `$` not followed by `{` (shell text such as `$(cmd)` or `$HOME`). The result is
 * allocated in `a`. Errors: ERROR_INVALID naming the variable ("unknown
 * variable '${x}'", "'${root.path}' needs a root axis"), ERROR_NOMEM.
 */
int template_expand(struct arena *a, const char *tmpl,
		    const struct template_env *env, const char **out,
		    struct error *err);

/*
 * Evaluate a selection expression `roots[FIELD=VALUE]` or
 * `toolkits[FIELD=VALUE]` (already substituted) against the rules. Root
 * fields: name, path, role, toolkit, toolkit.major, toolkit.minor,
 * toolkit.version; toolkit fields: name, version, major, minor. Sets
 * *names to the matching names in rule order (arena-allocated, *n of them,
 * possibly 0). Returns 1 when `expr` is a selection expression (evaluated),
 * 0 when it is a plain value (nothing set), or a negative error for a
 * malformed one.
 */
int template_select(struct arena *a, const struct rules *rules,
		    const char *expr, const char ***names, size_t *n,
		    struct error *err);

#endif
