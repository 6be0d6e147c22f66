/*
 * Shared state of one release evaluation, between engine/release/release.c (tag,
 * rules, run, notes, metadata) and engine/release/artifacts.c (artifact
 * selection and versions). Not a public interface.
 */
#ifndef RIPPLE_ENGINE_RELEASE_INTERNAL_H
#define RIPPLE_ENGINE_RELEASE_INTERNAL_H

#include <stddef.h>

#include "base/strv.h"
#include "cache/cache.h"
#include "engine/release/release.h"
#include "graph/pep440.h"
#include "graph/repo.h"

struct eval;
struct graph_binding;
struct graph_node;

struct release_ctx {
	struct release_report *r;
	struct arena *a;			/* r->arena */
	struct graph_repo *repo;
	struct cache *cache;			/* may be NULL */
	const struct release_options *opt;
	struct eval *ev;			/* rules in effect, or NULL */
	const struct graph_node **nodes;	/* the claiming releases, by id */
	size_t n_nodes;
	const struct graph_node *node;		/* the one a check is at */
	const struct graph_node *named;		/* with no claimant: a release
						   whose tag patterns name the
						   tag (spelled otherwise) */
	const char *named_out_by;		/* or whose root's family claims
						   it but its tag: glob (this,
						   narrowing) leaves it out */
	struct pep440 ver;			/* the tag's version */
	int have_ver;
	struct graph_oid commit;
	int have_commit;
	struct cache_record_list recs;		/* the run's records */
	int have_run;
	int from_remote;			/* the run's records came from the
						   remote cache (check 3) */
	struct strv problems[RELEASE_CHECK_COUNT];	/* arena strings */
};

/* A record's node id taken apart. Strings in the arena. */
struct release_parsed_id {
	const char *kind;		/* "artifact", ... */
	const char *name;		/* rule name */
	struct graph_binding *axes;	/* sorted by axis */
	size_t n_axes;
	const char *canon;		/* canonical id */
	const char *axes_text;		/* "a=1,b=2" or "" */
};

/*
 * Parse `id` ("KIND:NAME[a=v,...]", axes in any order) into *out. Returns
 * 0, -1 when it is not an id of that shape, ERROR_NOMEM.
 */
int release_parse_id(struct arena *a, const char *id,
		     struct release_parsed_id *out);

/* The value bound to `axis` in a parsed id, or NULL. */
const char *release_parsed_axis(const struct release_parsed_id *p,
				const char *axis);

/* Set a check's status and printf-style detail. */
void release_set(struct release_ctx *x, enum release_check_id id,
		 enum release_status st, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Add a printf-style problem line to a check. Returns 0 or ERROR_NOMEM. */
int release_problem(struct release_ctx *x, enum release_check_id id,
		    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Check 3 from the remote cache (engine/release/remote.c), when no local
 * run qualifies and opt->remote is set: the tag's published records. Needs
 * x->ev and x->node. Errors: ERROR_NOMEM, remote faults when required.
 */
int release_check_remote(struct release_ctx *x, struct error *err);

/* Check 3 (engine/release/ci_run.c). Errors: cache errors, ERROR_NOMEM. */
int release_check_run(struct release_ctx *x, struct error *err);

/* Checks 6 and 7 (engine/release/notes.c). Errors: ERROR_NOMEM. */
int release_check_notes(struct release_ctx *x, struct error *err);
int release_check_metadata(struct release_ctx *x, struct error *err);

/*
 * The bytes of the ok rows (engine/release/bytes.c): every file locator
 * is read (relative ones under opt->artifacts_dir, else the repository's
 * root), its SHA-256 kept in the row, and the files' output digest
 * compared with the recorded one; a missing file or other bytes make the
 * row failed, naming the file. URLs are not read, nor records from the
 * remote cache without opt->artifacts_dir. Errors: ERROR_NOMEM.
 */
int release_verify_bytes(struct release_ctx *x, struct release_artifact *rows,
			 size_t n, struct error *err);

/*
 * Check 8 (engine/release/tests.c): every instance of the release's
 * `tests:` (the claimants' test dependencies, experimental axis values
 * left out) has an ok record in the run. Errors: ERROR_NOMEM.
 */
int release_check_tests(struct release_ctx *x, struct error *err);

/* Checks 4 and 5 (engine/release/artifacts.c). Errors: ERROR_NOMEM. */
int release_check_artifacts(struct release_ctx *x, struct error *err);
int release_check_versions(struct release_ctx *x, struct error *err);

#endif
