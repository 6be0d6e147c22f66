/*
 * District engine/release/: release dry runs: the tag, the tagged rules, the
 * CI run (ci_run.c), artifacts and versions (artifacts.c), notes and
 * metadata (notes.c), the checks' outcomes (problem.c) and the JSON
 * manifest (json.c). May use engine/plan/, graph/, cache/, rules/ and
 * base/; never engine/run/ or engine/cli/.
 *
 * Release dry runs: is a tag releasable, and exactly what would be
 * published? release_check evaluates every release node that claims the
 * tag (one tag can release several packages: bindings and metapackage)
 * under the rules of the tagged commit, finds the CI run of exactly that
 * tag and commit in the cache, and checks artifacts, versions, notes and
 * declared metadata. It reads only: the cache is opened read-only by the
 * caller and nothing is ever published. docs/release.md has the checks and
 * the JSON schema.
 */
#ifndef RIPPLE_ENGINE_RELEASE_RELEASE_H
#define RIPPLE_ENGINE_RELEASE_RELEASE_H

#include <stddef.h>

#include "base/arena.h"
#include "graph/repo.h"

struct cache;
struct error;
struct graph_limits;
struct graph_repo;
struct plan_remote;

/* The checks, in report order. */
enum release_check_id {
	RELEASE_CHECK_TAG_FAMILY,	/* release nodes claim it */
	RELEASE_CHECK_TAG_SPELLING,	/* canonical PEP 440 after the prefix */
	RELEASE_CHECK_TAG_COMMIT,	/* the tag resolves to a commit */
	RELEASE_CHECK_RULES,		/* the rules of the tagged tree */
	RELEASE_CHECK_RUN,		/* a successful run of tag and commit */
	RELEASE_CHECK_ARTIFACTS,	/* expected set: none missing/extra/dup */
	RELEASE_CHECK_VERSIONS,		/* every version equals the tag's */
	RELEASE_CHECK_NOTES,		/* release notes exist, not empty */
	RELEASE_CHECK_METADATA,		/* require-meta entries hold */
	RELEASE_CHECK_TESTS,		/* the release's tests passed */
	RELEASE_CHECK_COUNT,
};

enum release_status {
	RELEASE_STATUS_OK,
	RELEASE_STATUS_FAIL,
	RELEASE_STATUS_SKIP,	/* not evaluated: an earlier check failed */
};

/* One check's outcome. Strings live in the report's arena. */
struct release_check {
	const char *name;	/* "tag-family", "tag-spelling", ... */
	enum release_status status;
	const char *detail;	/* one line: what was found or why it failed */
	const char **problems;	/* every individual problem, sorted */
	size_t n_problems;
	const char *warning;	/* set when the result rests on the current
				   (not the tagged) rules; else NULL */
};

enum release_artifact_state {
	RELEASE_ARTIFACT_OK,		/* expected and recorded ok */
	RELEASE_ARTIFACT_MISSING,	/* expected, no record */
	RELEASE_ARTIFACT_FAILED,	/* expected, record status not ok */
	RELEASE_ARTIFACT_DUPLICATE,	/* several records, or a file name
					   another artifact also publishes */
	RELEASE_ARTIFACT_EXTRA,		/* recorded, same rule and root, not
					   expected */
	RELEASE_ARTIFACT_IGNORED,	/* excluded name or experimental value */
};

/* One row of the artifact table. Strings live in the report's arena. */
struct release_artifact {
	const char *node_id;	/* canonical id */
	const char *rule;	/* artifact rule name */
	const char *axes;	/* "platform=linux-64,python=3.12" or "" */
	enum release_artifact_state state;
	const char *detail;	/* why (status, duplicate of, excluded by) */
	const char *record_id;	/* node id as recorded, or NULL */
	const char *version;	/* recorded version, or NULL */
	const char *output_digest;	/* or NULL */
	const char **locators;	/* recorded artifact locators */
	size_t n_locators;
	const char **sha256s;	/* SHA-256 (64 hex) of each locator's
				   file as read now, NULL where not read
				   (a URL, or the row is not ok) */
};

/* A run that nearly qualifies (check 3), for the report. */
struct release_near_miss {
	const char *run;
	const char *commit;	/* or NULL */
	const char *ref;	/* or NULL */
	const char *tag;	/* or NULL */
	const char *status;	/* run status name */
	const char *why;	/* "another ref", "tag at another commit", ... */
};

struct release_report {
	const char *tag;
	const char *release_node;	/* the first claiming node id (sorted),
					   or NULL */
	const char **release_nodes;	/* every claiming node id, sorted */
	size_t n_release_nodes;
	const char *version;		/* canonical version text, or NULL */
	char commit[GRAPH_OID_HEX];	/* "" when the tag does not resolve */
	const char *rules_source;	/* "ripple.yml@<tag>", the current
					   file, or NULL */
	const char *run;		/* the run used, or NULL */
	struct release_check checks[RELEASE_CHECK_COUNT];
	struct release_artifact *artifacts;	/* sorted: rule, then axes */
	size_t n_artifacts;
	struct release_near_miss *near_misses;	/* sorted by run id */
	size_t n_near_misses;
	int ok;				/* 1 when every check is ok */
	struct arena arena;		/* owns everything above */
};

struct release_options {
	const char *tag;	/* the tag name, without refs/tags/ */
	const char *run;	/* an explicit run id, or NULL: look it up */
	/*
	 * 1: when the tagged tree has no ripple.yml, use the working tree's
	 * ripple.yml (every dependent check carries a warning). The tagged
	 * rules are used whenever they exist.
	 */
	int use_current_rules;
	const char *cache_path;	/* for messages; may be NULL */
	/*
	 * Where repository-relative locators are read (the folder a
	 * release job downloaded the artifacts into); NULL: the
	 * repository's root. Absolute locators are read where they are.
	 */
	const char *artifacts_dir;
	/*
	 * A remote cache (borrowed), or NULL. When no run in `cache`
	 * qualifies, check 3 asks it instead: the records the tag's own run
	 * published, at the tag's commit, with every output blob present
	 * (docs/remote-cache.md). So a fresh clone decides alone.
	 */
	struct plan_remote *remote;
	/* The graph's ceilings (borrowed), or NULL: the defaults. */
	const struct graph_limits *limits;
	/*
	 * The reader's ref (--ref), whose own trust domain is read before
	 * the trusted one, or NULL: the trusted domain only.
	 * default_branch: as planner_options' (trusted with tags when the
	 * tagged rules set no trusted-refs), or NULL.
	 */
	const char *ref;
	const char *default_branch;
};

/*
 * Evaluate the release of opt->tag in `repo` against `cache` (opened
 * read-only by the caller; NULL: no cache file, so the run check fails).
 * Every check runs that can: a failed check never hides an independent
 * one; checks that need a failed one are RELEASE_STATUS_SKIP. The outcome
 * is the report, not the return code: *out is a new report (free with
 * release_report_free) whenever 0 is returned, and out->ok says whether
 * the tag is releasable. Errors (no report): ERROR_INVALID (empty tag),
 * ERROR_NOMEM, and ERROR_IO/ERROR_CORRUPT/ERROR_INTERNAL from the cache or
 * libgit2 when reading fails outright.
 *
 * Rules followed: PEP 440 (equality, canonical spelling, dev and local
 * versions are not releasable: "Local version identifiers" are not for
 * public index servers); tag families as `git describe --match` (see
 * graph/version.h).
 */
int release_check(struct graph_repo *repo, struct cache *cache,
		  const struct release_options *opt,
		  struct release_report **out, struct error *err);

/*
 * SHA256SUMS for the artifacts in state ok, in the format `sha256sum -c`
 * reads ("HEX  NAME\n", two spaces): one line per file read, named by
 * its base name (the name it is published under; a release has no two
 * files of one name). *out is mem_alloc'd, "" when there are none.
 * Errors: ERROR_NOMEM.
 */
int release_report_sha256sums(const struct release_report *r, char **out,
			      struct error *err);

/* Free a report. Accepts NULL. */
void release_report_free(struct release_report *r);

/* "ok", "FAIL" or "skip". Static text. */
const char *release_status_name(enum release_status s);

/* "ok", "missing", "failed", "duplicate", "extra", "ignored". Static. */
const char *release_artifact_state_name(enum release_artifact_state s);

/*
 * The report as JSON text (schema in docs/release.md; sorted keys, two-space
 * indent, a final newline not included). With `manifest_only` only the
 * manifest object: {tag, commit, run, release, version, artifacts:[{node,
 * version, output_digest, locators}]} listing the artifacts in state ok.
 * *out is mem_alloc'd (free with mem_free). Errors: ERROR_NOMEM.
 */
int release_report_json(const struct release_report *r, int manifest_only,
			char **out, struct error *err);

#endif
