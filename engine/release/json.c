/*
 * The release report and its manifest as JSON (jansson, sorted keys): the
 * schema documented in docs/release.md. The manifest lists what a
 * publishing job would upload: the artifacts in state ok.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "base/mem.h"
#include "engine/release/release.h"
#include "engine/plan/report.h"
#include "base/banned.h"

/* Text from data: escaped where it is not UTF-8 (report_json_text). */
static json_t *
str_or_null(const char *s)
{
	return report_json_text(s);
}

static json_t *
strings(const char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* n strings, NULL entries as null; a NULL array: all null. */
static json_t *
maybe_strings(const char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, str_or_null(v ? v[i] : NULL));
	return a;
}

static json_t *
manifest(const struct release_report *r)
{
	json_t *arts = json_array();
	size_t i;

	for (i = 0; arts && i < r->n_artifacts; i++) {
		const struct release_artifact *a = &r->artifacts[i];

		if (a->state != RELEASE_ARTIFACT_OK)
			continue;
		json_array_append_new(arts, json_pack(
			"{s:s, s:o, s:o, s:o, s:o}", "node", a->node_id,
			"version", str_or_null(a->version),
			"output_digest", str_or_null(a->output_digest),
			"locators", strings(a->locators, a->n_locators),
			"sha256", maybe_strings(a->sha256s, a->n_locators)));
	}
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "tag", r->tag,
			 "commit", str_or_null(r->commit[0] ? r->commit : NULL),
			 "run", str_or_null(r->run),
			 "release", str_or_null(r->release_node),
			 "releases", strings(r->release_nodes,
					     r->n_release_nodes),
			 "version", str_or_null(r->version), "artifacts", arts);
}

static json_t *
report(const struct release_report *r)
{
	json_t *checks = json_array(), *arts = json_array(),
	       *miss = json_array();
	size_t i;

	for (i = 0; checks && i < RELEASE_CHECK_COUNT; i++) {
		const struct release_check *c = &r->checks[i];
		const char *st = c->status == RELEASE_STATUS_OK ? "ok"
			: c->status == RELEASE_STATUS_FAIL ? "fail" : "skip";

		json_array_append_new(checks, json_pack(
			"{s:s, s:s, s:s, s:o, s:o}", "name", c->name,
			"status", st, "detail", c->detail,
			"problems", strings(c->problems, c->n_problems),
			"warning", str_or_null(c->warning)));
	}
	for (i = 0; arts && i < r->n_artifacts; i++) {
		const struct release_artifact *a = &r->artifacts[i];

		json_array_append_new(arts, json_pack(
			"{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o}",
			"node", a->node_id, "rule", a->rule, "axes", a->axes,
			"state", release_artifact_state_name(a->state),
			"detail", str_or_null(a->detail),
			"record", str_or_null(a->record_id),
			"version", str_or_null(a->version),
			"output_digest", str_or_null(a->output_digest),
			"locators", strings(a->locators, a->n_locators)));
	}
	for (i = 0; miss && i < r->n_near_misses; i++) {
		const struct release_near_miss *m = &r->near_misses[i];

		json_array_append_new(miss, json_pack(
			"{s:s, s:o, s:o, s:o, s:s, s:s}", "run", m->run,
			"commit", str_or_null(m->commit),
			"ref", str_or_null(m->ref), "tag", str_or_null(m->tag),
			"status", m->status, "why", m->why));
	}
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, "
			 "s:o, s:o}", "tag", r->tag,
			 "commit", str_or_null(r->commit[0] ? r->commit : NULL),
			 "release", str_or_null(r->release_node),
			 "releases", strings(r->release_nodes,
					     r->n_release_nodes),
			 "version", str_or_null(r->version),
			 "run", str_or_null(r->run),
			 "rules", str_or_null(r->rules_source), "ok", r->ok,
			 "checks", checks, "artifacts", arts,
			 "near_misses", miss, "manifest", manifest(r));
}

int
release_report_json(const struct release_report *r, int manifest_only,
		    char **out, struct error *err)
{
	json_t *doc = manifest_only ? manifest(r) : report(r);
	char *s = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS)
		      : NULL;

	json_decref(doc);
	*out = NULL;
	if (!s)
		return error_set(err, ERROR_NOMEM, "out of memory");
	*out = mem_strdup(s);
	free(s);
	if (!*out)
		return error_set(err, ERROR_NOMEM, "out of memory");
	return 0;
}
