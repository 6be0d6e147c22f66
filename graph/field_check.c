/*
 * A node's fields once templates are filled in: what expansion may not
 * produce though the loader accepted the template (graph/expand.c uses
 * these; the loader refuses the literal spellings).
 */
#include "graph/field_check.h"

#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/path.h"
#include "graph/graph.h"
#include "base/banned.h"

/*
 * An output pattern or cwd that leaves the repository once its templates
 * are filled in (an axis value "..", a toolkit home "/opt/x"): the loader
 * refuses the literal spellings, this catches what only substitution makes.
 */
static int
check_inside(const char *field, const char *tmpl, const char *value,
	     struct error *err)
{
	if (!value || !path_leaves(value))
		return 0;
	if (strcmp(tmpl, value))
		error_set(err, ERROR_INVALID, "%s '%s' becomes '%s', which "
			  "can leave the repository", field, tmpl, value);
	else
		error_set(err, ERROR_INVALID, "%s '%s' can leave the "
			  "repository", field, value);
	error_hint(err, "%s is relative to the repository root: no leading "
		   "'/' and no '..' component, after templates too", field);
	return ERROR_INVALID;
}

int
graph_image_pinned(const char *image)
{
	const char *at = image ? strstr(image, "@sha256:") : NULL;
	size_t i;

	if (!at)
		return 0;
	for (i = 0; i < 64; i++)
		if (!((at[8 + i] >= '0' && at[8 + i] <= '9') ||
		      (at[8 + i] >= 'a' && at[8 + i] <= 'f')))
			return 0;
	return at[8 + 64] == '\0';
}

/*
 * A container image reference once expanded: [REGISTRY/]PATH[:TAG]
 * [@sha256:DIGEST], never empty, never starting with '-' (docker would read
 * an option), no spaces or control characters; a digest is 64 lowercase
 * hex digits.
 */
int
graph_field_image(const char *tmpl, const char *image, struct error *err)
{
	size_t i;

	for (i = 0; image[i]; i++) {
		unsigned char c = (unsigned char)image[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || strchr("._/:@-", c)))
			break;
	}
	if (image[0] && image[0] != '-' && !image[i] &&
	    (!strchr(image, '@') || graph_image_pinned(image)))
		return 0;
	error_set(err, ERROR_INVALID, "container image '%s' (from '%s') is "
		  "not an image reference", image, tmpl);
	error_hint(err, "write [REGISTRY/]NAME[:TAG][@sha256:64 hex digits]");
	return ERROR_INVALID;
}

/*
 * An output pattern or cwd that holds a control character once its
 * templates are filled in (an axis value "a\nb"): the loader refuses the
 * literal spellings, this catches what only substitution makes.
 */
static int
check_chars(const char *field, const char *tmpl, const char *value,
	    struct error *err)
{
	struct buf text = BUF_INIT;

	if (!value || !path_bad_char(value, strlen(value), NULL))
		return 0;
	if (path_escape_controls(&text, value, err)) {
		buf_release(&text);
		return ERROR_NOMEM;
	}
	error_set(err, ERROR_INVALID, "%s '%s' becomes '%s', which holds a "
		  "control character", field, tmpl, text.data);
	error_hint(err, "paths hold no control characters: a newline or an "
		   "escape in a path forges lines of logs and SHA256SUMS");
	buf_release(&text);
	return ERROR_INVALID;
}

/*
 * An output pattern whose name, once templates are filled in, is another
 * file than it says (base/path.h, path_name_refused): on every system,
 * and for a node of a win-64 (or win-arm64) platform also as Windows
 * reads names, since that node's outputs are written there.
 */
int
graph_field_names(const struct graph_node *node, const char *tmpl,
		  const char *value, struct error *err)
{
	const char *plat = graph_node_axis(node, "platform");
	unsigned flags = PATH_NAMES_GLOB;
	const char *why, *hint = PATH_HINT_ALIAS;
	size_t at, len;

	if (!value)
		return 0;
	why = path_name_refused(value, strlen(value), flags, &at, &len);
	if (!why && plat && !strncmp(plat, "win-", 4)) {
		why = path_name_refused(value, strlen(value),
					flags | PATH_NAMES_WINDOWS, &at, &len);
		hint = PATH_HINT_WINDOWS;
	}
	if (!why)
		return 0;
	if (strcmp(tmpl, value))
		error_set(err, ERROR_INVALID, "outputs '%s' becomes '%s', "
			  "which %s ('%.*s')", tmpl, value, why, (int)len,
			  value + at);
	else
		error_set(err, ERROR_INVALID, "outputs '%s' %s ('%.*s')", tmpl,
			  why, (int)len, value + at);
	error_hint(err, "%s", hint);
	return ERROR_INVALID;
}

int
graph_field_path(const char *field, const char *tmpl, const char *value,
		 struct error *err)
{
	int rc = check_inside(field, tmpl, value, err);

	return rc ? rc : check_chars(field, tmpl, value, err);
}
