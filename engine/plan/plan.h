/*
 * District engine/plan/: evaluation of the rules at a commit (eval.c),
 * decisions (plan.c, planner.c; version groups group.c; versions
 * versions.c), the baseline run and history (history.c, record.c,
 * filediff.c), the working tree's changes to claimed inputs (dirty.c),
 * explanations (explain.c, rundiff.c) and the
 * renderings of a plan (report.c text, GitHub outputs and Mermaid;
 * report_json.c JSON). Renderings live here, not in cli/, because they are
 * pure functions of a plan into a buffer that release/ and cli/ both use;
 * cli/ only writes the bytes. May use graph/, cache/, rules/ and base/;
 * nothing in engine/ above it (run/, release/, cli/).
 *
 * The planner's decisions: for every node in a target's closure, in
 * topological order, `reuse`, `build`/`test` or `skip`, each with a reason
 * from a closed set and the changes behind it. This file owns the decision
 * logic only; where keys and history come from is behind the callbacks of
 * struct plan_history (the SQLite baseline run, or the base commit's own
 * keys in --assume-base-built mode), so the logic is tested without I/O.
 *
 * Reuse and early cutoff: a reused upstream contributes its recorded output
 * digest to its users' keys, as the run that recorded it did; an upstream
 * that must build contributes its key, so its users rebuild as a cascade
 * until the executor learns the new output digest.
 */
#ifndef RIPPLE_ENGINE_PLAN_PLAN_H
#define RIPPLE_ENGINE_PLAN_PLAN_H

#include <stddef.h>

#include "base/arena.h"
#include "graph/digest.h"

struct error;
struct graph;
struct graph_keys;
struct graph_component;
struct graph_key_sources;
struct plan_remote_hit;
struct record_source;

enum plan_decision {
	PLAN_BUILD,
	PLAN_TEST,
	PLAN_REUSE,
	PLAN_SKIP,
	PLAN_BLOCKED,	/* run: an upstream node failed */
	PLAN_DEFERRED,	/* run: a GPU test with no matching device */
	PLAN_REMOTE,	/* run: the node's platform is not this host's */
};

/* Early cutoff the plan foresees (engine/plan/predict.h). */
enum plan_expect {
	PLAN_EXPECT_NONE,
	PLAN_EXPECT_CUTOFF,	/* its rebuilt upstreams only re-version
				   unchanged payloads: cut off in the run */
	PLAN_EXPECT_IF_PAYLOAD,	/* cut off if the rebuilt `cutoff: payload`
				   upstreams' payload digests stay */
};

/* The closed set of reasons (docs/plan.md documents each). */
enum plan_reason {
	PLAN_REASON_REUSED,		/* same key, successful record */
	PLAN_REASON_NEW_NODE,		/* the baseline has no such node */
	PLAN_REASON_INPUT_CHANGED,	/* a file's content changed */
	PLAN_REASON_INPUT_ADDED,	/* a file now claimed was added */
	PLAN_REASON_INPUT_REMOVED,	/* a claimed file was removed */
	PLAN_REASON_SYMLINK_RETARGETED,	/* a claimed link points elsewhere */
	PLAN_REASON_RULE_CHANGED,	/* an expanded rule field changed */
	PLAN_REASON_TOOLKIT_CHANGED,	/* a toolkit pin or probe changed */
	PLAN_REASON_UPSTREAM_REBUILT,	/* cascade of an upstream node */
	PLAN_REASON_NO_BASELINE,	/* no baseline run to compare with */
	PLAN_REASON_BASELINE_FAILED,	/* the baseline record failed */
	PLAN_REASON_ARTIFACT_MISSING,	/* key equal, artifact is gone */
	PLAN_REASON_FORCED,		/* --reuse none, or policy */
	PLAN_REASON_KEY_CHANGED,	/* differs; components not stored */
	PLAN_REASON_NOT_SELECTED,	/* skip: outside the targets */
	PLAN_REASON_NOT_REPRODUCIBLE,	/* diff: one key, two outputs */
	PLAN_REASON_VERSION_DIFFERS,	/* key equal, recorded version is
					   not the version it has now */
	PLAN_REASON_VERSION_GROUP,	/* rebuilt with its version group */
	PLAN_REASON_BASELINE_DEFERRED,	/* a GPU node the baseline run's
					   commit declared but the run did
					   not record: deferred there */
	PLAN_REASON_RECORD_CONFLICT,	/* key equal, an import disagrees */
	PLAN_REASON_OTHER_DOMAIN,	/* the record it would compare with
					   or reuse is another trust
					   domain's: not this ref's */
};

enum plan_change_kind {
	PLAN_CHANGE_FILE,	/* path with old and new blob id */
	PLAN_CHANGE_RULE,	/* rule field with old and new text */
	PLAN_CHANGE_TOOLKIT,	/* toolkit with old and new identity */
	PLAN_CHANGE_INPUT,	/* input key changed, files unknown */
	PLAN_CHANGE_UPSTREAM,	/* upstream id with old and new key */
	PLAN_CHANGE_OTHER,	/* schema or id */
	PLAN_CHANGE_VERSION,	/* recorded version and the version now */
};

enum plan_file_status {
	PLAN_FILE_MODIFIED,
	PLAN_FILE_ADDED,
	PLAN_FILE_REMOVED,
	PLAN_FILE_RETARGETED,	/* symlink target text changed */
	PLAN_FILE_MODE,		/* mode bits only */
};

struct plan_change {
	enum plan_change_kind kind;
	const char *name;	/* field, toolkit, input or upstream id */
	const char *path;	/* FILE: repository path */
	enum plan_file_status status;	/* FILE */
	const char *old_value;	/* blob id, text, key; NULL when absent */
	const char *new_value;
};

/* A recorded node as the planner needs it (all fields borrowed). */
struct plan_record {
	const char *run_id;
	const char *key;		/* 32 hex */
	int ok;				/* 1: status ok */
	const char *output_digest;	/* 32 hex, or NULL */
	const char *key_digest;	/* what users' keys take from it: the
					   payload digest of a `cutoff: payload`
					   artifact, or NULL: output_digest */
	int artifact_missing;		/* 1: an absolute locator is gone */
	const char *missing_artifact;	/* that locator, or NULL */
	const char *version;		/* the version recorded, or NULL */
	const char *output_groups;	/* "GROUP=DIGEST\n"... of its output
					   groups (record metadata
					   ripple.output.GROUP), or NULL */
	int conflict;			/* 1: an imported record of this node
					   and key has another status or
					   output digest: reuse neither */
	const char *conflict_have;	/* "STATUS, output DIGEST|none" of
					   this record, when conflict */
	const char *conflict_import;	/* the same for the import's copy */
	const struct graph_component *components;	/* NULL: unknown */
	size_t n_components;
	const struct plan_remote_hit *remote;	/* found in the remote
						   cache (engine/plan/
						   remote.h), or NULL */
	struct record_source *source;	/* the record source that handed
					   it out (engine/plan/source.h;
					   histories' business), or NULL */
};

/* A file difference inside one input, for explanations. */
struct plan_file_diff {
	const char *path;
	enum plan_file_status status;
	const char *old_id;	/* blob id (or link target), NULL if added */
	const char *new_id;	/* NULL if removed */
};

struct plan_history {
	/*
	 * The baseline's record for node `id`: return 1 and fill *out, 0
	 * when the baseline has no record of it, negative on error. NULL
	 * callback, or has_baseline 0: there is no baseline.
	 */
	int (*baseline_record)(void *payload, const char *id,
			       struct plan_record *out, struct error *err);
	/*
	 * The nth (0: the newest) successful record with this key in any
	 * run (reuse any), newest run first: 1 and *out filled, 0 when there
	 * are no more, negative on error. The planner walks back past
	 * records it cannot use (an artifact gone, another version).
	 */
	int (*record_by_key)(void *payload, const char *key, size_t nth,
			     struct plan_record *out, struct error *err);
	/*
	 * Fill rec->components and n_components of a record handed out
	 * without them (loaded only when a key differs); leave them NULL
	 * when not stored. NULL callback: records carry their components.
	 */
	int (*record_components)(void *payload, struct plan_record *rec,
				 struct error *err);
	/*
	 * Files that differ within input `name` between its old and new key
	 * (allocated in `a`). Return 1 when known, 0 when not.
	 */
	int (*input_diff)(void *payload, struct arena *a, const char *name,
			  const char *old_key, const char *new_key,
			  struct plan_file_diff **out, size_t *n,
			  struct error *err);
	/*
	 * 1 when the baseline run's commit declares node `id` (its rules
	 * expand to that id), 0 when not or when that cannot be told;
	 * negative on error (out of memory). Asked only for a GPU node the
	 * baseline has no record of: a runner without a matching GPU
	 * defers such nodes and records nothing. NULL: never.
	 */
	int (*baseline_declared)(void *payload, const char *id,
				 struct error *err);
	/*
	 * Called (may be NULL) before the nodes of one topological level
	 * are decided, with their n ids and keys, when records by key will
	 * be asked for: a chance to look them all up in one batch (a
	 * remote cache). Keys depend on upstream decisions, so there is no
	 * earlier moment to know them. Returns 0 or an error.
	 */
	int (*prefetch)(void *payload, const char *const *ids,
			const char *const *keys, size_t n, struct error *err);
	/*
	 * Asked (may be NULL) when the plan found no record to compare with
	 * or reuse: a local record left out because this plan's trust
	 * domain may not reuse it (a pull request's reuse from its own
	 * domain, read for main): the baseline run's record of node `id`,
	 * else (key not NULL: reuse any) one of key `key`. 1 with *run,
	 * *domain (the record's) and *reader (the plan's domain, "" the
	 * trusted one), borrowed until the next call; 0 when none,
	 * negative on error.
	 */
	int (*hidden_record)(void *payload, const char *id, const char *key,
			     const char **run, const char **domain,
			     const char **reader, struct error *err);
	void *payload;
	int has_baseline;
	const char *baseline_label;	/* "run 42 (commit abc1234)" */
};

enum plan_reuse {
	PLAN_REUSE_SCOPE_BASELINE,
	PLAN_REUSE_SCOPE_ANY,
	PLAN_REUSE_SCOPE_NONE,
};

struct rules_kv;

struct plan_options {
	enum plan_reuse reuse;
	const char *forced_reason;	/* non-NULL: everything builds, e.g.
					   "unclaimed path 'pytest.ini'" */
	/*
	 * 1: a node with `version:` is reused only from a record of the
	 * version it has now (a tag run; policy reuse-versions: exact);
	 * else reason version-differs. versions: root name -> version at
	 * the head (engine/plan/versions.h), n_versions of them.
	 */
	int check_versions;
	const struct rules_kv *versions;
	size_t n_versions;
	/*
	 * 1: the history is the base commit's own keys, assumed built
	 * (--assume-base-built): its records key on upstream keys, so a
	 * node whose key equals its record's while an upstream builds is
	 * cut off exactly when that upstream's output stays the base's.
	 */
	int assumed_base;
};

struct plan_item {
	size_t node;			/* index in graph->nodes */
	enum plan_decision decision;
	enum plan_reason reason;
	struct digest key;		/* the key decided on */
	const char *reused_run;		/* REUSE: the record's run */
	const struct plan_remote_hit *remote;	/* REUSE: from the remote
						   cache, or NULL (local) */
	const char *output_digest;	/* REUSE: the record's digest */
	const char *key_digest;		/* REUSE: users' keys take this one
					   when set (plan_record.key_digest) */
	const char *reused_version;	/* REUSE: the record's version */
	const char *output_groups;	/* REUSE: the record's output group
					   digests (plan_record), or NULL */
	long cause;			/* UPSTREAM_REBUILT: upstream index;
					   VERSION_GROUP: the member it
					   rebuilds with (-1: the members'
					   recorded versions disagree) */
	long group_next;		/* the next member of its version
					   group on its root (a ring in id
					   order), or -1 */
	long root_cause;		/* first root cause up the chain */
	struct plan_change *changes;	/* what differs, sorted */
	size_t n_changes;
	int selected;			/* in the targets themselves */
	int cutoff;			/* key used an output digest */
	enum plan_expect expect;	/* BUILD/TEST: the run's cutoff of it,
					   as foreseen (predict.h) */
	enum plan_expect output_expect;	/* what its users may take: its
					   recorded output (NONE: unknown) */
	long expect_on;			/* expect set: the upstream that
					   decides it (for IF_PAYLOAD the
					   rebuilt `cutoff: payload` one;
					   for CUTOFF the re-versioned
					   member), else -1 */
};

struct plan {
	struct plan_item *items;	/* indexed like graph->nodes */
	size_t n;
	unsigned char *in_closure;	/* n bytes */
	struct graph_keys *keys;	/* keys decided on, owned */
	size_t counts[PLAN_REMOTE + 1];	/* per decision, closure only */
	size_t root_causes;		/* non-cascade rebuilds */
	size_t expected[PLAN_EXPECT_IF_PAYLOAD + 1];	/* BUILD/TEST items
					   per expect, closure only */
	struct arena arena;
};

/*
 * Decide every node of `closure` (g->n_nodes bytes; `selected` marks the
 * targets themselves; both from graph_select). `src` gives source keys and
 * toolkit identities (its output_digest is ignored: the planner supplies
 * reused digests itself). On success *out is a new plan (plan_free).
 * Errors: those of the callbacks, with the node id; ERROR_NOMEM.
 */
int plan_compute(const struct graph *g, const unsigned char *selected,
		 const unsigned char *closure,
		 const struct graph_key_sources *src,
		 const struct plan_history *hist,
		 const struct plan_options *opts, struct plan **out,
		 struct error *err);

/* Free a plan. Accepts NULL. */
void plan_free(struct plan *p);

/* "build", "test", "reuse", "skip", "blocked", "deferred", "remote". */
const char *plan_decision_name(enum plan_decision d);

/* Stable kebab-case names: "new-node", "input-content-changed", ... */
const char *plan_reason_name(enum plan_reason r);

/*
 * 1 when the item is no root cause of its own but follows another node's
 * rebuild through `cause`: a cascade (upstream-rebuilt), or a member
 * rebuilt with its version group. `why` and the counts follow the chain.
 */
int plan_item_follows(const struct plan_item *it);

/* "modified", "added", "removed", "retargeted", "mode". */
const char *plan_file_status_name(enum plan_file_status s);

#endif
