/*
 * Inside the cache: the handle, the table of prepared statements, and the
 * one step/reset/error helper every query goes through. Not for use
 * outside cache/.
 */
#ifndef RIPPLE_CACHE_INTERNAL_H
#define RIPPLE_CACHE_INTERNAL_H

/* The hint for a cache SQLite calls corrupt. */
#define CACHE_CORRUPT_HINT "move it aside; ripple makes a new one"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct error;

/* Every statement the cache runs more than once; SQL in sql.c. */
enum cache_stmt {
	CACHE_STMT_RUN_INSERT,
	CACHE_STMT_RUN_JOIN,
	CACHE_STMT_RUN_GET,
	CACHE_STMT_RUN_FINISH,
	CACHE_STMT_RUN_LIST,
	CACHE_STMT_RUN_UPDATE,
	CACHE_STMT_RUN_RUNNING,
	CACHE_STMT_RUN_INTERRUPT,
	CACHE_STMT_RECORD_PUT,
	CACHE_STMT_RECORD_GET,
	CACHE_STMT_RECORD_LIST,
	CACHE_STMT_RECORD_STATUSES,
	CACHE_STMT_RECORD_FIND_RUN,
	CACHE_STMT_RECORD_FIND_ANY,
	CACHE_STMT_RECORD_NODE_ARTIFACTS,
	CACHE_STMT_CONFLICT_PUT,
	CACHE_STMT_CONFLICT_LIST,
	CACHE_STMT_CONFLICT_CLEAR,
	CACHE_STMT_MANIFEST_GET,
	CACHE_STMT_MANIFEST_KEY_PUT,
	CACHE_STMT_MANIFEST_KEY_GET,
	CACHE_STMT_MANIFEST_COMP_PUT,
	CACHE_STMT_MANIFEST_COMP_GET,
	CACHE_STMT_KERNEL_PUT,
	CACHE_STMT_KERNEL_GET,
	CACHE_STMT_SOURCE_KEY_GET,
	CACHE_STMT_SOURCE_KEY_PUT,
	CACHE_STMT_SOURCE_KEY_ALL,
	CACHE_STMT_SOURCE_KEY_ROWS,
	CACHE_STMT_TREE_SCAN_GET,
	CACHE_STMT_TREE_SCAN_PUT,
	CACHE_STMT_RULES_TREE_GET,
	CACHE_STMT_RULES_TREE_PUT,
	CACHE_STMT_RULES_TREE_TRIM,
	CACHE_STMT_PUBLISHED_HAS,
	CACHE_STMT_PUBLISHED_MARK,
	CACHE_STMT_COUNT
};

struct cache {
	sqlite3 *db;
	char *path;			/* as given to cache_open, owned */
	int readonly;
	int version;			/* schema version of the file */
	sqlite3_stmt *stmt[CACHE_STMT_COUNT];	/* prepared on first use */
	int owner_fd;			/* this handle's owner file of the run
					   it runs (cache_run_own), locked;
					   or -1 */
	char *owner_id;			/* that run's id, owned, or NULL */
	char *owner_path;		/* that file, owned, or NULL */
};

/*
 * Turn SQLite result `rc` into our error: NOTADB and CORRUPT become
 * ERROR_CORRUPT with the move-aside hint, BUSY and I/O ERROR_IO,
 * CONSTRAINT ERROR_CONFLICT, NOMEM ERROR_NOMEM, the rest ERROR_INTERNAL;
 * the message is sqlite3_errmsg and the error's file the cache path.
 * Returns the code.
 */
int cache_sqlite_error(struct cache *c, int rc, struct error *err);

/*
 * The statement `id`, prepared on first use, reset and with bindings
 * cleared. NULL on error (set in err).
 */
sqlite3_stmt *cache_stmt_get(struct cache *c, enum cache_stmt id,
			     struct error *err);

/*
 * Step `st`: 1 for a row, 0 when done (the statement is then reset), or a
 * negative error (reset too). Callers that stop reading rows early call
 * sqlite3_reset themselves or leave it to the next cache_stmt_get.
 */
int cache_stmt_step(struct cache *c, sqlite3_stmt *st, struct error *err);

/*
 * Statement `id` (cache_stmt_get) into *out with its parameters 1..n
 * bound to texts[0..n-1] (NULL binds SQL NULL). Returns 0, or an error
 * set in err (*out NULL when the statement could not be prepared).
 */
int cache_stmt_bind_texts(struct cache *c, enum cache_stmt id,
			  const char *const *texts, int n, sqlite3_stmt **out,
			  struct error *err);

/*
 * The lookup the gets share: cache_stmt_bind_texts, then one step. 1 for
 * a row (read its columns, then sqlite3_reset *out), 0 for none (reset),
 * or a negative error, set in err.
 */
int cache_stmt_lookup(struct cache *c, enum cache_stmt id,
		      const char *const *texts, int n, sqlite3_stmt **out,
		      struct error *err);

/* Bind text (NULL binds SQL NULL) or an integer. Returns 0 or an error. */
int cache_bind_text(struct cache *c, sqlite3_stmt *st, int idx,
		    const char *s, struct error *err);
int cache_bind_int(struct cache *c, sqlite3_stmt *st, int idx, int64_t v,
		   struct error *err);

/* A copy of text column `col` (NULL for SQL NULL); ERROR_NOMEM on failure. */
int cache_column_dup(sqlite3_stmt *st, int col, char **out,
		     struct error *err);

/* Run SQL text with no results (one or more statements). */
int cache_exec(struct cache *c, const char *sql, struct error *err);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK (rollback never fails). */
int cache_txn_begin(struct cache *c, struct error *err);
int cache_txn_commit(struct cache *c, struct error *err);
void cache_txn_rollback(struct cache *c);

/*
 * Bring the file's schema to CACHE_SCHEMA_VERSION (schema.c): make a new
 * one, or back up and upgrade an older one. Sets c->version.
 */
int cache_schema_apply(struct cache *c, struct error *err);

/* Read PRAGMA user_version into *out. */
int cache_schema_read(struct cache *c, int *out, struct error *err);

/* Writing without a transaction, for put and import (record.c,
 * manifest.c). */
struct cache_record;
struct cache_manifest;
int cache_record_write(struct cache *c, const struct cache_record *rec,
		       struct error *err);
int cache_manifest_write(struct cache *c, const struct cache_manifest *m,
			 int *added, struct error *err);

/*
 * How bad a run status is, for merging runners' outcomes (run.c):
 * failed 3 > interrupted 2 > running 1 > ok 0.
 */
int cache_run_status_rank(int status);

/*
 * cache_run_join without its transaction, for a caller that holds one
 * (record.c: a record and the run it makes are one transaction).
 */
struct cache_run;
int cache_run_join_in_txn(struct cache *c, const struct cache_run *run,
			  int *joined, struct error *err);

/*
 * Keep an imported record that conflicts with the stored one of its node
 * (record.c); *added (may be NULL) is 0 when that copy was kept before.
 * cache_conflict_clear forgets the copies of one node of a run.
 */
int cache_conflict_write(struct cache *c, const struct cache_record *rec,
			 int *added, struct error *err);
int cache_conflict_clear(struct cache *c, const char *run,
			 const char *node_id, struct error *err);

/*
 * The key of a metadata entry "K=V" with %25 and %3D turned back into '%'
 * and '=', into *out (mem_alloc'd; record.c). Errors: ERROR_NOMEM.
 */
int cache_metadata_key(const char *entry, char **out, struct error *err);

/*
 * Run owners (owner.c). cache_owner_holds: this handle owns run `id`.
 * cache_owner_drop: let this handle's owner lock go (remove: delete its
 * file first, for an owner that finished). cache_owners_scan: the other
 * owners of run `id`: how many are alive, and the files of the dead ones
 * (with lock set, each write-locked by us so nobody else acts on them;
 * without, only counted); release with cache_owners_release (remove:
 * delete the dead files and the run's folder when it is empty).
 * cache_owner_gone: the run has owner files and no live owner.
 * cache_owner_sweep: mark every run marked running whose owners are all
 * gone interrupted at now_ms, and remove their files.
 */
struct cache_owners {
	char *dir;			/* PATH.owners/<run id>, owned */
	size_t alive;			/* owners other than this handle */
	struct cache_dead_owner {
		char *path;		/* owned */
		int fd;			/* locked when scanned with lock */
	} *dead;
	size_t n_dead;
};

int cache_owner_holds(const struct cache *c, const char *id);
void cache_owner_drop(struct cache *c, int remove);
int cache_owners_scan(struct cache *c, const char *id, int lock,
		      struct cache_owners *o, struct error *err);
void cache_owners_release(struct cache_owners *o, int remove);
int cache_owner_gone(struct cache *c, const char *id);
int cache_owner_sweep(struct cache *c, int64_t now_ms, struct error *err);

/* Read the current row of a record statement into *rec (record.c). */
int cache_record_read_row(struct cache *c, sqlite3_stmt *st,
			  struct cache_record *rec, struct error *err);

/*
 * Dump `j` (reference stolen; NULL means out of memory) compactly with
 * sorted keys into *out, mem_alloc'd (manifest.c).
 */
struct json_t;
int cache_json_dump(struct json_t *j, char **out, struct error *err);

/*
 * A JSON string of s (a path or name from git or the file system, bytes),
 * its invalid UTF-8 bytes written "\xHH" as utf8_escape does, since JSON
 * text must be UTF-8. Returns a new reference, or NULL when out of memory.
 */
struct json_t *cache_json_text(const char *s);

/* ERROR_INVALID: `key` is not 32 lowercase hex digits (manifest.c). */
int cache_key_error(const char *key, struct error *err);

/* Components to and from their JSON text (manifest.c). */
int cache_components_encode(const struct cache_manifest *m, char **out,
			    struct error *err);
int cache_components_decode(struct cache *c, const char *text,
			    struct cache_manifest *m, struct error *err);

#endif
