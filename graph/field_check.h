/*
 * Internal to graph/: checks of a node's fields once templates are filled
 * in (graph/field_check.c), for what only substitution can make: an axis
 * value "..", a toolkit home "/opt/x". The loader refuses the literal
 * spellings; graph/expand.c gives these errors their position and node.
 */
#ifndef RIPPLE_GRAPH_FIELD_CHECK_H
#define RIPPLE_GRAPH_FIELD_CHECK_H

struct error;
struct graph_node;

/*
 * `value`, path template `tmpl` of `field` ("outputs", "cwd", "rewrites")
 * expanded: relative, no '..' component, no control character. NULL is
 * fine. Returns 0, ERROR_INVALID (message names field, template and
 * value, with a hint) or ERROR_NOMEM.
 */
int graph_field_path(const char *field, const char *tmpl, const char *value,
		     struct error *err);

/*
 * An output pattern `value` (template `tmpl`) whose name is another file
 * than it says (base/path.h, path_name_refused): on every system, and
 * also as Windows reads names for a node of a win-* platform. NULL is
 * fine. Returns 0 or ERROR_INVALID.
 */
int graph_field_names(const struct graph_node *node, const char *tmpl,
		      const char *value, struct error *err);

/*
 * Expanded container image reference `image` (template `tmpl`):
 * [REGISTRY/]PATH[:TAG][@sha256:DIGEST], not empty, not starting with
 * '-', no spaces or control characters. Returns 0 or ERROR_INVALID.
 */
int graph_field_image(const char *tmpl, const char *image,
		      struct error *err);

#endif
