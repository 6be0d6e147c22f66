/*
 * The metadata a run's record carries about its node: the rule's meta:
 * with the root's version filled in, what the first wheel among the
 * outputs says about itself, and the identity of the toolkit it was
 * built with.
 */
#include "engine/run/store.h"

#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/strv.h"
#include "engine/plan/versions.h"
#include "engine/run/run.h"
#include "engine/run/wheel.h"
#include "graph/graph.h"
#include "base/banned.h"

/*
 * What the record says about the artifact: the rule's meta: (with
 * ${root.version} filled in), then what the first wheel among the
 * outputs says about itself (Version, Requires-Dist). A wheel whose
 * METADATA cannot be read fails the node.
 */
int
run_store_node_meta(const struct run_cache_store *s,
		    const struct graph_node *n, const struct strv *arts,
		    struct run_node *rn, struct strv *meta, struct error *err)
{
	const char *ver = plan_root_version(s->versions, s->n_versions, n);
	struct buf b;
	char path[4096];
	size_t i, len;
	int rc = 0;

	buf_init(&b, 0);
	for (i = 0; !rc && i < n->n_meta; i++) {
		buf_reset(&b);
		rc = buf_addf(&b, err, "%s=", n->meta[i].key);
		if (!rc)
			rc = plan_fill_version(&b, n->meta[i].value, ver, err);
		if (!rc)
			rc = strv_push(meta, b.data, err);
	}
	buf_release(&b);
	for (i = 0; !rc && i < arts->n; i++) {
		struct error werr;

		len = strlen(arts->v[i]);
		if (len < 4 || strcmp(arts->v[i] + len - 4, ".whl"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->root, arts->v[i]);
		error_init(&werr);
		rc = run_wheel_metadata(path, meta, &werr);
		if (rc == ERROR_NOMEM) {
			*err = werr;
		} else if (rc < 0) {
			snprintf(rn->message, sizeof(rn->message), "%s",
				 werr.msg);
			rn->state = RUN_STATE_FAILED;
			rc = 0;
		} else if (rc == 0) {
			break;	/* the first wheel read speaks for the node */
		} else {
			rc = 0;
		}
	}
	return rc;
}

/*
 * "toolkit-identity=NAME PAIRS" for a node built with a toolkit probed
 * here (its pin checked before the run started), so the record says what
 * the build ran against; nothing when the home was not here.
 */
int
run_store_toolkit_meta(const struct run_cache_store *s,
		       const struct graph_node *n, struct strv *meta,
		       struct error *err)
{
	struct buf line;
	size_t i;
	int rc = 0;

	for (i = 0; i < s->n_toolkit_ids; i++) {
		if (strcmp(s->toolkit_ids[i].key, n->toolkit->name))
			continue;
		buf_init(&line, 0);
		rc = buf_addf(&line, err, "toolkit-identity=%s %s",
			      n->toolkit->name, s->toolkit_ids[i].value);
		if (!rc)
			rc = strv_push(meta, line.data, err);
		buf_release(&line);
		break;
	}
	return rc;
}
