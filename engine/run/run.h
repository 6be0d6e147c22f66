/*
 * District engine/run/: carrying out a plan: the scheduler (run.c), starting
 * one node's action (start.c), processes (exec.c) and a run's records
 * (store.c). May use engine/plan/, engine/cuda/, graph/, cache/, rules/
 * and base/; never engine/release/ or engine/cli/.
 *
 * The executor's scheduler: takes the planner's plan and carries it out.
 * Reused nodes are recorded into the run (so every run can serve as a later
 * baseline); build and test nodes start when their dependencies are done,
 * up to `jobs` at once, ready nodes in topological-index order; a failure
 * blocks its dependents; nodes for another platform are `remote`; GPU
 * nodes draw devices from a pool and wait without holding a CPU slot;
 * cascades whose key, recomputed with this run's output digests, equals the
 * baseline's are cut off (reused). Processes come through struct
 * exec_runner and outcomes go to struct run_store, so the logic is tested
 * with fakes.
 */
#ifndef RIPPLE_ENGINE_RUN_RUN_H
#define RIPPLE_ENGINE_RUN_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/run/exec.h"

struct error;
struct graph_node;
struct graph;
struct plan;
struct rules_kv;

enum run_state {
	RUN_STATE_NONE,		/* outside the closure, or planned skip */
	RUN_STATE_PENDING,	/* not decided yet (internal) */
	RUN_STATE_RUNNING,	/* started (internal) */
	RUN_STATE_REUSED,	/* planned reuse, recorded from the baseline */
	RUN_STATE_CUTOFF,	/* cascade whose key matched: reused */
	RUN_STATE_OK,		/* built or tested here */
	RUN_STATE_FAILED,	/* non-zero exit, signal, or missing output */
	RUN_STATE_TIMEOUT,	/* killed after its timeout */
	RUN_STATE_INTERRUPTED,	/* killed by Ctrl-C or SIGTERM */
	RUN_STATE_BLOCKED,	/* an upstream node failed */
	RUN_STATE_DEFERRED,	/* GPU test with no matching device here */
	RUN_STATE_REMOTE,	/* another platform's node (or needs one) */
	RUN_STATE_SKIPPED,	/* --only, or not started after a failure
				   or an interrupt */
};

#define RUN_STATE_COUNT (RUN_STATE_SKIPPED + 1)

/* One node's outcome (indexed like graph->nodes). */
struct run_node {
	enum run_state state;
	long cause;		/* BLOCKED/REMOTE/SKIPPED/DEFERRED: the
				   upstream responsible; CUTOFF: the node
				   whose rebuilt output was unchanged; -1 */
	int64_t duration_ms;	/* wall time of the action */
	int exit_code;		/* -1 when killed or never run */
	int signal;		/* signal that ended it, 0 if none */
	char gpus[256];		/* CUDA_VISIBLE_DEVICES given, or "" */
	char message[512];	/* why it failed, was deferred or skipped;
				   for a gap rebuild, the gap */
	int gap;		/* 1: rebuilt here because of a cache gap (a
				   reused node whose bytes could not be had,
				   or an upstream of a selected node with no
				   usable record): message says which */
	char *log_path;		/* the action's log (owned), or NULL */
	/* internal */
	long handle;
	int64_t started_ms, deadline_ms, kill_ms;
	int timed_out, stopped;
	unsigned long long gpu_mask;
};

/* A GPU the pool hands out. */
struct run_gpu {
	int index;		/* CUDA ordinal in this process's view (an
				   index into visible_devices when set) */
	int cc_major, cc_minor;
	unsigned long long memory_mib;
};

enum run_event_kind {
	RUN_EVENT_START,	/* an action started */
	RUN_EVENT_END,		/* a node reached its final state */
};

struct run_event {
	enum run_event_kind kind;
	size_t node;
	const struct run_node *rn;
	size_t done, total;	/* actions finished / to run here */
};

/*
 * Where outcomes go. All return 0 or a negative ERROR_* (which stops the
 * run: the cache is unusable).
 * cutoff: for a cascade node about to start, 1 when its key computed with
 *   this run's recorded upstream output digests equals the baseline
 *   record's key (a successful record), 0 when not.
 * record: record rn's outcome for node (states REUSED, CUTOFF, OK, FAILED,
 *   TIMEOUT, INTERRUPTED) in one transaction. For OK it hashes the declared
 *   outputs first and may turn the state into FAILED with a message (an
 *   output that matches nothing), recording that instead.
 */
struct run_store {
	/*
	 * Before a node's action starts (may be NULL): remove its stale
	 * declared outputs, so a rebuild never records a file an earlier
	 * build left behind.
	 */
	int (*prepare)(void *payload, size_t node, struct error *err);
	/*
	 * Before a node's action starts (may be NULL): make the bytes of
	 * its reused dependencies be here (fetched from the remote cache).
	 * Returns 0; RUN_FETCH_GAP with *gap the dependency whose bytes
	 * cannot be had (evicted, damaged, untrusted, server down) and err
	 * saying why; or a negative error of the run's own (out of memory).
	 */
	int (*fetch)(void *payload, size_t node, size_t *gap,
		     struct error *err);
	int (*cutoff)(void *payload, size_t node, struct error *err);
	int (*record)(void *payload, size_t node, struct run_node *rn,
		      struct error *err);
	void *payload;
};

/* run_store.fetch: a dependency's bytes cannot be had. */
#define RUN_FETCH_GAP 1

/* How the message of a gap rebuild starts; the gap follows. */
#define RUN_GAP_PREFIX "rebuilt because of a cache gap: "

struct run_options {
	size_t jobs;			/* CPU slots; 0: 1 */
	/*
	 * 0: a cache gap is a slowdown: a reused dependency whose bytes
	 * cannot be had is rebuilt here (and what it needs), and the node
	 * waits for it. 1 (--strict-cache): the node fails, as a node
	 * whose input is missing.
	 */
	int strict_cache;
	const unsigned char *gap;	/* n_nodes bytes or NULL: selected
					   only because a selected node needs
					   them and they have no usable record
					   (reported as gap rebuilds) */
	int keep_going;			/* run every node not blocked */
	const char *only;		/* fnmatch glob over ids, or NULL */
	const unsigned char *select;	/* n_nodes bytes: nodes that may run
					   here, or NULL (all) */
	const char *select_note;	/* why the others are skipped */
	int64_t timeout_ms;		/* > 0: every node's timeout */
	int64_t default_timeout_ms;	/* rules without timeout; 0: 30 min */
	int64_t grace_ms;		/* SIGTERM to SIGKILL; 0: 5000 */
	const char *run_id;		/* RIPPLE_RUN */
	const char *root;		/* repository root (absolute) */
	const char *log_dir;		/* per-node logs (absolute, exists) */
	const char *out_dir;		/* per-node RIPPLE_OUT_DIR parent */
	const char *self_exe;		/* ripple binary, for builtins */
	const char *cuda_home;		/* toolkit home for builtins without
					   a toolkit; NULL: /usr/local/cuda */
	const char *host_platform;	/* run_host_platform() or a test's */
	const struct run_gpu *gpus;	/* the pool */
	size_t n_gpus;
	const char *visible_devices;	/* the runner's own
					   CUDA_VISIBLE_DEVICES, or NULL when
					   unset: the pool's ordinals index
					   this list, and a node gets the
					   entries of its devices */
	const char *const *base_env;	/* allow-listed "K=V" */
	size_t n_base_env;
	const char *const *pass_env;	/* the process environment ("K=V",
					   NULL-terminated) that rules'
					   `pass-env:` draw from, or NULL:
					   nothing passes */
	const struct rules_kv *versions;	/* root name -> version */
	size_t n_versions;
	const volatile sig_atomic_t *stop;	/* set by a signal handler */
	void (*progress)(void *payload, const struct run_event *ev);
	void *progress_payload;
};

struct run_result {
	struct run_node *nodes;		/* n, indexed like graph->nodes */
	size_t n;
	size_t counts[RUN_STATE_COUNT];
	size_t built, tested;		/* OK by kind */
	size_t gaps;			/* nodes with gap set (any state) */
	int interrupted;		/* the stop flag was seen */
	int64_t elapsed_ms;
};

/*
 * Execute plan `p` over graph `g`. On return (success or not) *out holds
 * every node's state (release with run_result_release). Returns 0 when the
 * schedule ran to its end (failures are states, not errors); a negative
 * ERROR_* from the store or the runner's wait (the run stops; running
 * actions are killed).
 */
int run_execute(const struct graph *g, const struct plan *p,
		const struct exec_runner *ex, const struct run_store *st,
		const struct run_options *o, struct run_result *out,
		struct error *err);

/* Free the result's logs paths and array. Accepts NULL. */
void run_result_release(struct run_result *r);

/* "reused", "cutoff", "ok", "failed", ...; static text. */
const char *run_state_name(enum run_state s);

/*
 * This host's value of the `platform` axis: "linux-64" (x86_64 Linux),
 * "linux-aarch64" (aarch64 Linux), or NULL elsewhere (then every node with
 * a platform axis is remote). win-64 is never this host.
 */
const char *run_host_platform(void);

/* Room for run_file_name's result, NUL included (a name of <= 200). */
#define RUN_FILE_NAME_SIZE 201

/*
 * A node id as one file name (logs, RIPPLE_OUT_DIR), one to one: bytes
 * outside [A-Za-z0-9] and "._=,+-[]@", a leading '.', and '%' itself
 * become "%HH" (uppercase hex), so "artifact:w[py=3.12]" is
 * "artifact%3Aw[py=3.12]" and no two ids share a name. A name that would
 * be longer than 200 bytes keeps its first (at most 167) and ends in "~", the
 * id's 32-digit XXH3-128 ('~' is never kept, so it cannot collide with a
 * whole name). out holds RUN_FILE_NAME_SIZE bytes.
 */
void run_file_name(const char *id, char out[RUN_FILE_NAME_SIZE]);

#endif
