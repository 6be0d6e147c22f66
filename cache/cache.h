/*
 * District cache/: may use base/ only. Inside, sql.c (statements,
 * transactions, SQLite errors) is the lowest file; cache.c calls schema.c,
 * never the reverse.
 *
 * The cache: one SQLite file holding runs, their per-node records, the key
 * manifests that explain each record's key, and compiled GPU kernels.
 *
 * Design choices and the numbers behind them:
 * - WAL mode and a 10 s busy timeout: CI jobs and a developer's shell may
 *   write at once; readers never block the writer.
 * - One transaction (BEGIN IMMEDIATE) per recorded node: a killed run keeps
 *   every node it finished, and two processes recording into one file at
 *   once lose nothing (tests/cache: 4 writers x 200 records).
 * - A manifest (the key's components) is stored once per distinct key, not
 *   once per record: thousands of runs of one unchanged node share a row.
 * - `PRAGMA user_version` is the schema version; an upgrade table moves a
 *   file forward one version at a time, after a backup to PATH.bak-vN
 *   (tup's version_check). A newer schema is refused.
 * - Statements are prepared once per handle, on first use.
 * - A run's live runners are known by kernel locks, not by pids written
 *   down (owner.c): a lock goes when its process goes, even by SIGKILL,
 *   and pids are reused; so a dead runner's run is seen as interrupted by
 *   the next command, with nothing to time out.
 * - Joining a run is one transaction (insert or ignore, then the commit
 *   check): runners racing to make one run id all get in (tests/e2e:
 *   8 runners x 50 rounds, 0 records lost).
 *
 * Strings in the structs below are owned by the struct (mem_alloc'd) and
 * freed by its _release function; NULL means "not set" where the field says
 * so. Times are milliseconds since the Unix epoch, UTC.
 */
#ifndef RIPPLE_CACHE_CACHE_H
#define RIPPLE_CACHE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "base/strv.h"

struct error;
struct cache;

/* The schema version this build writes (PRAGMA user_version). */
#define CACHE_SCHEMA_VERSION 8

/* A content key: 32 lowercase hex digits (XXH3-128), plus the NUL. */
#define CACHE_KEY_LEN 32
#define CACHE_KEY_SIZE (CACHE_KEY_LEN + 1)

/* Room for an id made by cache_run_new_id, NUL included. */
#define CACHE_RUN_ID_SIZE 40

/* The longest run id accepted, in bytes (cache_run_id_check). */
#define CACHE_RUN_ID_MAX 128

enum cache_open_flags {
	CACHE_OPEN_READONLY = 1 << 0,	/* never write; the file must exist */
	CACHE_OPEN_CREATE = 1 << 1,	/* make the file (and its folders) */
};

/*
 * SQLite's process-wide settings: call once in main, before any cache is
 * opened (as git_libgit2_init). SQLite then keeps no count of its memory
 * (sqlite3_memory_used and the heap limits, which ripple never reads):
 * its every allocation and free took a global mutex for the count, some
 * 0.3 M instructions of a warm plan. And a connection's page cache takes
 * its pages from one allocation of up to 2 MiB (the default cache's size,
 * touched only as pages are read), not one malloc and free each: a warm
 * plan's close freed some thousand pages one by one (0.26 M). Called
 * later, SQLite refuses both and keeps its defaults; nothing else
 * differs.
 */
void cache_global_init(void);

/*
 * Open the cache at `path` into *out (free with cache_close).
 * flags: 0 opens an existing file read-write; CACHE_OPEN_CREATE also makes
 * a missing file and its parent folders; CACHE_OPEN_READONLY opens an
 * existing file without writing (no schema upgrade, no WAL switch).
 * A read-write open upgrades an older schema after backing the file up to
 * PATH.bak-vN (N: the old version).
 * Errors: ERROR_NOT_FOUND (missing and not CACHE_OPEN_CREATE),
 * ERROR_CORRUPT (not a database, or damaged; the hint says to move it
 * aside), ERROR_UNSUPPORTED (schema newer than CACHE_SCHEMA_VERSION, or an
 * older schema opened read-only), ERROR_INVALID (a database that is not a
 * ripple cache, or a path that is a directory, a FIFO, a device: never
 * waited on), ERROR_IO, ERROR_NOMEM. The error's file is `path`.
 * A handle belongs to one thread at a time; processes may share the file.
 */
int cache_open(const char *path, int flags, struct cache **out,
	       struct error *err);

/* Finish statements, let go of an owned run, close the file. Accepts NULL. */
void cache_close(struct cache *c);

/* The schema version of the open file (CACHE_SCHEMA_VERSION once open). */
int cache_schema_version(const struct cache *c);

/*
 * Run SQLite's `PRAGMA integrity_check` and `PRAGMA foreign_key_check`.
 * Returns 0 when both find nothing; ERROR_CORRUPT with the first problem
 * as the message (and the move-aside hint) otherwise; ERROR_IO etc. when
 * the check itself cannot run.
 */
int cache_integrity_check(struct cache *c, struct error *err);

/*
 * Hold one read snapshot across many lookups (a plan makes hundreds): one
 * lock instead of one per statement, and every read sees the same state.
 * Writes must not happen in between; cache_read_end ends the snapshot and
 * accepts a cache with none open. Errors: those of SQLite's BEGIN.
 */
int cache_read_begin(struct cache *c, struct error *err);
void cache_read_end(struct cache *c);

/* ---- runs ---- */

enum cache_run_status {
	CACHE_RUN_STATUS_RUNNING,
	CACHE_RUN_STATUS_OK,
	CACHE_RUN_STATUS_FAILED,
	CACHE_RUN_STATUS_INTERRUPTED,
};

struct cache_run {
	char *id;		/* caller-chosen text, or cache_run_new_id */
	char *commit;		/* full commit id, or NULL */
	char *ref;		/* e.g. "refs/heads/main", or NULL */
	char *tag;		/* e.g. "v13.0.2", or NULL */
	enum cache_run_status status;
	char *rules_digest;	/* digest of the rules in effect, or NULL */
	int64_t started_ms;	/* ms since the epoch, UTC */
	int64_t ended_ms;	/* ms since the epoch; 0 while running */
	long records;		/* records in the run (filled by get/list) */
};

struct cache_run_list {
	struct cache_run *items;	/* n runs, owned */
	size_t n;
};

/* Which runs cache_run_list returns; NULL fields match anything. */
struct cache_run_filter {
	const char *commit;	/* exact full commit id */
	const char *ref;	/* exact ref name */
	const char *tag;	/* exact tag name */
	int status;		/* an enum cache_run_status, or -1 for any */
};

#define CACHE_RUN_FILTER_INIT { NULL, NULL, NULL, -1 }

/* Free the run's strings and zero it. Accepts NULL. */
void cache_run_release(struct cache_run *run);

/* Release every run and the array. Accepts NULL. */
void cache_run_list_release(struct cache_run_list *list);

/* "running", "ok", "failed", "interrupted"; static text ("?" if unknown). */
const char *cache_run_status_name(enum cache_run_status status);

/* Parse a run status name. Returns 0, or ERROR_INVALID naming `name`. */
int cache_run_status_parse(const char *name, enum cache_run_status *out,
			   struct error *err);

/*
 * Whether `id` may name a run: 1 to CACHE_RUN_ID_MAX bytes of ASCII
 * letters, digits, '.', '_', '-' and '+', the first a letter or a digit.
 * Run ids become folder names (.ripple/logs/ID) and appear in every
 * output, so nothing else is accepted: no '/', no "..", no control bytes,
 * nothing that is not UTF-8, no leading '-' that reads as an option.
 * Returns 0, or ERROR_INVALID naming the id (unprintable bytes as \xHH)
 * with a hint.
 */
int cache_run_id_check(const char *id, struct error *err);

/*
 * Add a run (all fields of *run but `records`; its strings are copied).
 * Errors: ERROR_INVALID (an id cache_run_id_check refuses),
 * ERROR_CONFLICT (the id exists), ERROR_IO and friends from SQLite.
 */
int cache_run_create(struct cache *c, const struct cache_run *run,
		     struct error *err);

/*
 * Make run *run, or join it: runners of one CI run share its id, and a run
 * that exists at the same commit takes their records too. The insert (a
 * no-op when the id exists) and the check of the commit are one
 * transaction, so any number of runners may join at once and each gets in.
 * A joined run keeps its stored fields. *joined (may be NULL) is set to 1
 * when the run existed, 0 when this call made it. run->commit NULL joins
 * a run at any commit.
 * Errors: ERROR_INVALID (empty id), ERROR_CONFLICT (the run exists at
 * another commit; the message names both), SQLite errors (ERROR_IO for a
 * writer busy past the timeout).
 */
int cache_run_join(struct cache *c, const struct cache_run *run, int *joined,
		   struct error *err);

/*
 * Own run `id` through this handle, as a process running it: a lock on a
 * file of this process's own in PATH.owners/<id>/ (an open-file-
 * description lock), held until cache_run_finish of that run or
 * cache_close. The kernel drops it when the process dies however it dies,
 * so an owner file nobody holds is a runner that died unfinished. A run
 * marked running with such files and no live owner has lost its runners:
 * a read-write cache_open marks it interrupted (ended at that time), and
 * cache_run_get and cache_run_list show it interrupted; with live owners
 * left, the last to finish makes it interrupted. Runs nobody owns (`ripple
 * record` runs) have no owner files and stay as they are. Call before
 * cache_run_join, so a new run is never without its owner. One run per
 * handle. Errors: ERROR_INVALID (a read-only handle, or one that owns a
 * run already), ERROR_IO naming the folder.
 */
int cache_run_own(struct cache *c, const char *id, struct error *err);

/*
 * Read run `id` into *out (release with cache_run_release; *out is zeroed
 * first). A run marked running whose owners are gone (cache_run_own) reads
 * as interrupted. Errors: ERROR_NOT_FOUND naming the id.
 */
int cache_run_get(struct cache *c, const char *id, struct cache_run *out,
		  struct error *err);

/*
 * Set a run's final status and end time (ms). For a run this handle owns
 * (cache_run_own), in one transaction with the owners' locks: when other
 * processes still run it, its status changes only to a worse one (failed
 * or interrupted; otherwise it stays running for them), and the last
 * owner to finish sets the worst of the stored status, the given one and
 * interrupted if an owner died unfinished (failed > interrupted > ok);
 * either way this handle owns it no more.
 * Errors: ERROR_NOT_FOUND.
 */
int cache_run_finish(struct cache *c, const char *id,
		     enum cache_run_status status, int64_t ended_ms,
		     struct error *err);

/*
 * Runs matching `filter` (NULL: all), sorted by started_ms then id (byte
 * order), into *out (release with cache_run_list_release). Finding the
 * runs of a commit, a ref or a tag is a filter with that field set.
 */
int cache_run_list(struct cache *c, const struct cache_run_filter *filter,
		   struct cache_run_list *out, struct error *err);

/*
 * A sortable, unique run id from a clock reading and random bits:
 * "YYYYMMDDTHHMMSS.mmmZ-" then 12 hex digits of `entropy`, e.g.
 * "20261130T132354.123Z-00c0ffee1234" (33 bytes). Ids made later sort
 * later (byte order) for times in years 0000-9999. The clock and the random
 * bits are arguments so that tests are deterministic; the CLI passes
 * cache_clock_ms() and cache_entropy(). n: size of out (CACHE_RUN_ID_SIZE
 * is enough). Errors: ERROR_INVALID (negative time, year past 9999, or n
 * too small).
 */
int cache_run_new_id(int64_t now_ms, uint64_t entropy, char *out, size_t n,
		     struct error *err);

/* The wall clock in ms since the epoch (CLOCK_REALTIME). */
int64_t cache_clock_ms(void);

/* 64 random bits from getrandom(2). Errors: ERROR_IO. */
int cache_entropy(uint64_t *out, struct error *err);

/* ---- manifests: the components of a key ---- */

/*
 * One component of a key, opaque to the cache: the caller decides what
 * kind, name, digest and detail mean (e.g. "file", "src/a.c", blob id, "").
 * All four are owned strings, never NULL in a stored manifest.
 */
struct cache_component {
	char *kind;
	char *name;
	char *digest;
	char *detail;
};

struct cache_manifest {
	char key[CACHE_KEY_SIZE];	/* 32 lowercase hex digits */
	struct cache_component *items;	/* n components in the caller's order */
	size_t n;
};

/* Free the components and zero the manifest. Accepts NULL. */
void cache_manifest_release(struct cache_manifest *m);

/*
 * Append a component (the strings are copied; NULL is stored as "").
 * Returns 0 or ERROR_NOMEM.
 */
int cache_manifest_add(struct cache_manifest *m, const char *kind,
		       const char *name, const char *digest,
		       const char *detail, struct error *err);

/*
 * Store a manifest unless its key is stored already (keys are content
 * hashes, so the first writer's components stand). Its own transaction.
 * Errors: ERROR_INVALID (key not 32 lowercase hex digits).
 */
int cache_manifest_put(struct cache *c, const struct cache_manifest *m,
		       struct error *err);

/*
 * Read the manifest of `key` into *out (release with
 * cache_manifest_release). Errors: ERROR_NOT_FOUND, ERROR_CORRUPT (the
 * stored JSON does not parse).
 */
int cache_manifest_get(struct cache *c, const char *key,
		       struct cache_manifest *out, struct error *err);

/*
 * Called by cache_manifest_each for component i of n (stored order); the
 * texts of *it are borrowed until it returns. Returns 0 to go on, or an
 * error code (< 0) that ends the walk and is returned.
 */
typedef int (*cache_component_fn)(void *payload, size_t i, size_t n,
				  const struct cache_component *it);

/*
 * fn over each component of the manifest of `key`, without copying them
 * (a changed source set's file list: thousands of components). Errors as
 * cache_manifest_get, and fn's.
 */
int cache_manifest_each(struct cache *c, const char *key,
			cache_component_fn fn, void *payload,
			struct error *err);

/*
 * 1 when a manifest of `key` is stored (as rows, or as JSON from before
 * schema 7), 0 when not, without reading its components; or an error
 * (ERROR_INVALID for a malformed key).
 */
int cache_manifest_stored(struct cache *c, const char *key,
			  struct error *err);

/* Whether `key` is 32 lowercase hex digits. */
int cache_key_valid(const char *key);

/* ---- the source-key memo ---- */

/*
 * A source set's key remembered under a memo id (32 hex digits: a digest
 * of the set's patterns and of the object ids at its fixed prefixes, see
 * graph/source.h), so a later plan of a commit whose prefixes hold the
 * same objects takes the key without walking the trees.
 * cache_source_key_get: 1 and key (33 bytes) filled on a hit, 0 on a
 * miss, or a negative error. cache_source_key_put: 0 or an error
 * (ERROR_INVALID for ids that are not 32 lowercase hex digits).
 */
int cache_source_key_get(struct cache *c, const char *memo, char *key,
			 struct error *err);
int cache_source_key_put(struct cache *c, const char *memo, const char *key,
			 struct error *err);

/* ---- the tree-scan memo ---- */

/*
 * What lies below a git tree that holds no symlink anywhere below it
 * (graph/source.h's struct graph_tree_scan), by the tree's id: the
 * folders in its deepest line below (0 .. 4095) and its canonical id.
 * Written by a run's walk, read by a plan's key-only walk.
 */
struct cache_tree_scan {
	unsigned char tree[20];
	int height;
	unsigned char canon[20];
};

/*
 * cache_tree_scan_get: 1 and *height and canon on a hit, 0 on a miss (a
 * row whose check sum does not match its fields is one; so is every tree
 * in a file of an older schema opened read-only), or a negative error.
 */
int cache_tree_scan_get(struct cache *c, const unsigned char tree[20],
			int *height, unsigned char canon[20],
			struct error *err);

/*
 * Store n scans (a row already there stays), inside the caller's
 * transaction or in one of its own. 0, or an error (ERROR_INVALID for a
 * height out of range: nothing is stored). A read-only cache stores
 * nothing and returns 0.
 */
int cache_tree_scans_put(struct cache *c, const struct cache_tree_scan *v,
			 size_t n, struct error *err);

/* cache_source_keys_get reads the memo whole up to this many rows per id
 * asked: reading a row costs some 1,400 instructions, a lookup 7,000. */
#define CACHE_SOURCE_KEYS_SCAN 4

/*
 * cache_source_key_get for n memo ids at once (in any order, repeats
 * allowed) by one read of the memo's rows, when it holds at most
 * CACHE_SOURCE_KEYS_SCAN rows per id: 1, and keys[33 * i] holds memo
 * i's key or "" on a miss, the answers cache_source_key_get gives. 0 when
 * the memo is larger (keys all ""): look them up one by one. A plan of
 * the 100k bench asks for 500 (fifth round, docs/performance.md).
 * Errors: ERROR_INVALID for an id that is not 32 lowercase hex digits,
 * ERROR_NOMEM, SQLite's.
 */
int cache_source_keys_get(struct cache *c, const char *const *memos,
			  size_t n, char *keys, struct error *err);

/* ---- parsed rules files (rules/yaml_memo.c) ---- */

/* The newest trees kept: older ones are dropped as new ones are stored. */
#define CACHE_RULES_TREES_KEPT 16

/*
 * The parsed tree of a rules text remembered under `digest` (32 hex
 * digits, rules_tree_memo.key), so a plan of an unchanged ripple.yml skips
 * libyaml. cache_rules_tree_get: 1 and the bytes appended to *out on a
 * hit, 0 on a miss (a cache older than the table misses too), or a
 * negative error. cache_rules_tree_put: stores them (the newest
 * CACHE_RULES_TREES_KEPT are kept); 0 or an error. The bytes are data:
 * the reader checks them (rules_ytree_decode).
 */
struct buf;
int cache_rules_tree_get(struct cache *c, const char *digest,
			 struct buf *out, struct error *err);
int cache_rules_tree_put(struct cache *c, const char *digest,
			 const void *tree, size_t len, struct error *err);

/*
 * As cache_rules_tree_get, the bytes lent to use() instead of copied (a
 * remembered model is 250 KB at 500 rules: its copy was a tenth of the
 * read): use(payload, bytes, len) runs once on a hit, the bytes valid
 * only during the call, and its result is returned; 0 on a miss, or a
 * negative error of the cache's.
 */
int cache_rules_tree_use(struct cache *c, const char *digest,
			 int (*use)(void *payload, const void *tree,
				    size_t len),
			 void *payload, struct error *err);

/* ---- what the remote cache holds (engine/run) ---- */

/*
 * Whether node `node_id`'s record of `key` is known to be in the remote
 * cache at `server` (its URL, with "/d/DOMAIN" for a ref's own trust
 * domain: plan_remote_write_server): marked after this machine published it or
 * reused it from there. A record recorded ok here but never published
 * (the upload died with the runner) is not marked, so the next run with
 * a credential publishes it. cache_published_has: 1, 0, or a negative
 * error; cache_published_mark: 0 or an error. Errors: ERROR_INVALID (a
 * bad key, an empty id or server), ERROR_IO, ERROR_NOMEM.
 */
int cache_published_has(struct cache *c, const char *node_id,
			const char *key, const char *server,
			struct error *err);
int cache_published_mark(struct cache *c, const char *node_id,
			 const char *key, const char *server,
			 struct error *err);

/* ---- records: one node's outcome in one run ---- */

enum cache_record_status {
	CACHE_RECORD_STATUS_OK,
	CACHE_RECORD_STATUS_FAILED,
	CACHE_RECORD_STATUS_INTERRUPTED,
	CACHE_RECORD_STATUS_TIMEOUT,
};

struct cache_record {
	char *run;			/* the run's id */
	char *node_id;			/* e.g. "artifact:wheel[python=3.12]" */
	char key[CACHE_KEY_SIZE];	/* 32 lowercase hex digits */
	enum cache_record_status status;
	char *output_digest;		/* digest of the outputs, or NULL */
	struct strv artifacts;		/* artifact locators, caller's order */
	char *version;			/* the version built, or NULL */
	struct strv metadata;		/* "K=V", sorted by K, keys unique;
					   '%' and '=' in K are written
					   %25 and %3D (cache_metadata_entry)
					   so the first '=' ends K */
	int64_t duration_ms;		/* wall time of the node, ms */
	int64_t recorded_ms;		/* when it was recorded, ms */
	long conflicts;			/* read only: imported copies of
					   this node and key with another
					   status or output digest
					   (cache_import); never written */
};

struct cache_record_list {
	struct cache_record *items;	/* n records, owned */
	size_t n;
};

/*
 * The metadata entry "K=V" for key `key` and value `value` into *out
 * (mem_alloc'd): '%' and '=' in the key become %25 and %3D, so a key may
 * hold '=' and the first '=' of an entry still ends its key. The value is
 * copied as is. Errors: ERROR_INVALID (empty key), ERROR_NOMEM.
 */
int cache_metadata_entry(const char *key, const char *value, char **out,
			 struct error *err);

/* Zero a record; its vectors own their strings. Allocates nothing. */
void cache_record_init(struct cache_record *rec);

/* Free the record's strings and vectors and re-init it. Accepts NULL. */
void cache_record_release(struct cache_record *rec);

/* Release every record and the array. Accepts NULL. */
void cache_record_list_release(struct cache_record_list *list);

/* "ok", "failed", "interrupted", "timeout"; static text ("?" if unknown). */
const char *cache_record_status_name(enum cache_record_status status);

/* Parse a record status name. Returns 0, or ERROR_INVALID naming `name`. */
int cache_record_status_parse(const char *name,
			      enum cache_record_status *out,
			      struct error *err);

/*
 * Record a node's outcome, and its key's manifest when `manifest` is not
 * NULL (stored once per key, as cache_manifest_put), in one transaction
 * (BEGIN IMMEDIATE). Recording (run, node_id) again replaces the record
 * and forgets the imported copies that conflicted with it.
 * metadata entries are "K=V" (sorted by K when stored).
 * Errors: ERROR_NOT_FOUND (no such run), ERROR_INVALID (bad key, a manifest
 * for another key, metadata without '=' or with a repeated key, empty node
 * id; the node id is attached), ERROR_IO (e.g. busy past the timeout).
 */
int cache_record_put(struct cache *c, const struct cache_record *rec,
		     const struct cache_manifest *manifest, struct error *err);

/*
 * cache_record_put that first makes or joins run *run (as cache_run_join;
 * run->id must be rec->run) in the same transaction: a record that cannot
 * be written leaves no new run behind. run NULL is cache_record_put.
 * Errors: those of cache_run_join and cache_record_put.
 */
int cache_record_put_in(struct cache *c, const struct cache_run *run,
			const struct cache_record *rec,
			const struct cache_manifest *manifest,
			struct error *err);

/*
 * Read the record of `node_id` in `run` into *out (release with
 * cache_record_release). Errors: ERROR_NOT_FOUND naming node and run.
 */
int cache_record_get(struct cache *c, const char *run, const char *node_id,
		     struct cache_record *out, struct error *err);

/* Every record of `run`, sorted by node id (byte order). */
int cache_record_list(struct cache *c, const char *run,
		      struct cache_record_list *out, struct error *err);

/*
 * fn(payload, node_id, status) for every record of `run`, in no
 * particular order, the texts borrowed for the call: what counting a
 * run's coverage needs, without reading the records (a why of the 100k
 * bench read 500 whole records to count them: 2.3 M instructions). fn
 * returns 0 to go on or an error that ends the walk. Errors: fn's,
 * ERROR_INVALID for a status that is not one of the four (as
 * cache_record_list), SQLite's.
 */
typedef int (*cache_status_fn)(void *payload, const char *node_id,
			       enum cache_record_status status);
int cache_record_statuses(struct cache *c, const char *run,
			  cache_status_fn fn, void *payload,
			  struct error *err);

/*
 * Successful (status ok) records with content key `key`: within `run`, or
 * in any run when `run` is NULL. Sorted newest run first (started_ms, then
 * run id, descending), then by node id. An empty list is not an error.
 */
int cache_record_find(struct cache *c, const char *key, const char *run,
		      struct cache_record_list *out, struct error *err);

/*
 * Every artifact locator that some record of `node_id` lists, in any run
 * and with any status, pushed onto *out, which is then sorted and unique:
 * what the node wrote before. `ripple run` removes only these (where its
 * outputs still match them) as stale outputs, never another node's files.
 * Errors: ERROR_CORRUPT (a stored list that does not parse), SQLite's.
 */
int cache_record_node_artifacts(struct cache *c, const char *node_id,
				struct strv *out, struct error *err);

/*
 * The imported copies that conflict with the record of `node_id` in `run`
 * (NULL: every node of the run), sorted by node id, key, status and output
 * digest; their `conflicts` field is 0. An empty list is not an error.
 */
int cache_record_conflicts(struct cache *c, const char *run,
			   const char *node_id, struct cache_record_list *out,
			   struct error *err);

/* ---- kernels: compiled GPU code by content key ---- */

struct cache_kernel {
	char *key;		/* the caller's content key */
	char *arch;		/* e.g. "sm_90" */
	unsigned char *cubin;	/* size bytes, owned */
	size_t size;
	int64_t created_ms;
};

/* Free the kernel's memory and zero it. Accepts NULL. */
void cache_kernel_release(struct cache_kernel *k);

/*
 * Store a compiled kernel under `k->key` (replacing one stored before).
 * Errors: ERROR_INVALID (empty key or arch).
 */
int cache_kernel_put(struct cache *c, const struct cache_kernel *k,
		     struct error *err);

/*
 * Read the kernel stored under `key` into *out (release with
 * cache_kernel_release). Errors: ERROR_NOT_FOUND.
 */
int cache_kernel_get(struct cache *c, const char *key,
		     struct cache_kernel *out, struct error *err);

/* ---- export and import: moving runs between machines ---- */

/* Import flags. */
enum cache_import_flags {
	CACHE_IMPORT_REPLACE = 1 << 0,	/* imported records and run win */
};

struct cache_import_stats {
	size_t runs_added;		/* runs that were not in the cache */
	size_t records_added;		/* (run, node) pairs that were new */
	size_t records_replaced;	/* overwritten (REPLACE only) */
	size_t records_unchanged;	/* already there with the same key,
					   status and output digest */
	size_t records_conflicting;	/* the same key with another status
					   or output digest: kept as
					   conflicts */
	size_t manifests_added;		/* keys whose manifest was new */
	struct cache_record_list conflicts;	/* those imported records,
					   in document order; owned */
};

/* Free stats->conflicts and zero the stats. Accepts NULL. */
void cache_import_stats_release(struct cache_import_stats *stats);

/*
 * The JSON document for run `id`: {"format": "ripple-cache-export",
 * "version": 1, "run": {...}, "records": [... by node id ...],
 * "conflicts": [... records, only when the run has some ...],
 * "manifests": {KEY: [{"kind","name","digest","detail"}...]}}, keys
 * sorted, 2-space indent, ending in a newline; the same cache contents
 * always give the same bytes. Absent strings are null. The manifests are
 * those of the records' keys and those their components name by digest
 * (the inputs' file lists, so `why` on the importing side names files).
 * Metadata keys are written as stored ('=' and '%' included). *out is mem_alloc'd
 * (free with mem_free), *len its length without the NUL (len may be NULL).
 * Errors: ERROR_NOT_FOUND (no such run), ERROR_NOMEM.
 */
int cache_run_export(struct cache *c, const char *id, char **out,
		     size_t *len, struct error *err);

/*
 * Merge an exported document (text of len bytes) into the cache in one
 * transaction: nothing changes if it fails. A new run is added; an existing
 * run with the same commit keeps its fields, gains a missing ref, tag or
 * rules digest, and takes the worse status (failed > interrupted > running
 * > ok), the earlier start and the later end. A record already present with
 * the same key, status and output digest is left as it is (importing a
 * file twice changes nothing). One with the same key but another status or
 * output digest is a conflict: the stored record stays, the imported one
 * is kept beside it (cache_record_conflicts, the record's `conflicts`) and
 * listed in stats->conflicts, and the planner reuses neither. A document's
 * own "conflicts" are kept the same way. With a different key it is
 * ERROR_CONFLICT naming the node and both keys, unless
 * CACHE_IMPORT_REPLACE, which makes imported run fields and records win
 * (and forgets the replaced record's conflicts). A run with another commit
 * is ERROR_CONFLICT unless REPLACE. stats may be NULL; release it with
 * cache_import_stats_release. Errors: ERROR_INVALID (not an export document, with
 * the line and column of a JSON error), ERROR_CONFLICT, ERROR_UNSUPPORTED
 * (a newer export format version).
 */
int cache_import(struct cache *c, const char *text, size_t len, int flags,
		 struct cache_import_stats *stats, struct error *err);

#endif
