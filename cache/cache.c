/*
 * The cache handle: opening (folders, WAL, busy timeout, foreign keys,
 * schema), closing, the prepared-statement table with its one
 * step/reset/error helper, transactions and the integrity check. The
 * schema itself lives in schema.c; the tables' users in run.c, record.c,
 * kernel.c and transfer.c.
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

#define BUSY_TIMEOUT_MS 10000
#define CORRUPT_HINT "move it aside; ripple makes a new one"

#define RUN_COLS "id, \"commit\", ref, tag, status, rules_digest, " \
	"started_ms, ended_ms, " \
	"(SELECT count(*) FROM records WHERE records.run = runs.id)"
#define RECORD_COLS "r.run, r.node_id, r.key, r.status, r.output_digest, " \
	"r.artifacts, r.version, r.metadata, r.duration_ms, r.recorded_ms"

static const char *const stmt_sql[CACHE_STMT_COUNT] = {
	[CACHE_STMT_RUN_INSERT] =
		"INSERT INTO runs (id, \"commit\", ref, tag, status, "
		"rules_digest, started_ms, ended_ms) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[CACHE_STMT_RUN_GET] =
		"SELECT " RUN_COLS " FROM runs WHERE id = ?1",
	[CACHE_STMT_RUN_FINISH] =
		"UPDATE runs SET status = ?2, ended_ms = ?3 WHERE id = ?1",
	[CACHE_STMT_RUN_LIST] =
		"SELECT " RUN_COLS " FROM runs "
		"WHERE (?1 IS NULL OR \"commit\" = ?1) "
		"AND (?2 IS NULL OR ref = ?2) AND (?3 IS NULL OR tag = ?3) "
		"AND (?4 IS NULL OR status = ?4) ORDER BY started_ms, id",
	[CACHE_STMT_RUN_UPDATE] =
		"UPDATE runs SET \"commit\" = ?2, ref = ?3, tag = ?4, "
		"status = ?5, rules_digest = ?6, started_ms = ?7, "
		"ended_ms = ?8 WHERE id = ?1",
	[CACHE_STMT_RECORD_PUT] =
		"INSERT OR REPLACE INTO records (run, node_id, key, status, "
		"output_digest, artifacts, version, metadata, duration_ms, "
		"recorded_ms) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	[CACHE_STMT_RECORD_GET] =
		"SELECT " RECORD_COLS " FROM records r "
		"WHERE r.run = ?1 AND r.node_id = ?2",
	[CACHE_STMT_RECORD_LIST] =
		"SELECT " RECORD_COLS " FROM records r WHERE r.run = ?1 "
		"ORDER BY r.node_id",
	[CACHE_STMT_RECORD_FIND_RUN] =
		"SELECT " RECORD_COLS " FROM records r "
		"WHERE r.key = ?1 AND r.run = ?2 AND r.status = 'ok' "
		"ORDER BY r.node_id",
	[CACHE_STMT_RECORD_FIND_ANY] =
		"SELECT " RECORD_COLS " FROM records r "
		"JOIN runs u ON u.id = r.run "
		"WHERE r.key = ?1 AND r.status = 'ok' "
		"ORDER BY u.started_ms DESC, u.id DESC, r.node_id",
	[CACHE_STMT_MANIFEST_PUT] =
		"INSERT OR IGNORE INTO manifests (key, components) "
		"VALUES (?1, ?2)",
	[CACHE_STMT_MANIFEST_GET] =
		"SELECT components FROM manifests WHERE key = ?1",
	[CACHE_STMT_KERNEL_PUT] =
		"INSERT OR REPLACE INTO kernels (key, arch, cubin, created_ms) "
		"VALUES (?1, ?2, ?3, ?4)",
	[CACHE_STMT_KERNEL_GET] =
		"SELECT key, arch, cubin, created_ms FROM kernels "
		"WHERE key = ?1",
	[CACHE_STMT_SOURCE_KEY_GET] =
		"SELECT key FROM source_keys WHERE memo = ?1",
	[CACHE_STMT_SOURCE_KEY_PUT] =
		"INSERT OR IGNORE INTO source_keys (memo, key) VALUES (?1, ?2)",
};

int
cache_sqlite_error(struct cache *c, int rc, struct error *err)
{
	const char *msg = c && c->db ? sqlite3_errmsg(c->db)
				     : sqlite3_errstr(rc);
	const char *path = c && c->path ? c->path : NULL;
	int code;

	switch (rc & 0xff) {
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		code = ERROR_CORRUPT;
		break;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
	case SQLITE_IOERR:
	case SQLITE_CANTOPEN:
	case SQLITE_READONLY:
	case SQLITE_FULL:
	case SQLITE_PERM:
		code = ERROR_IO;
		break;
	case SQLITE_CONSTRAINT:
		code = ERROR_CONFLICT;
		break;
	case SQLITE_NOMEM:
		code = ERROR_NOMEM;
		break;
	default:
		code = ERROR_INTERNAL;
		break;
	}
	if (err && err->code)
		return err->code;
	error_at(err, code, path, 0, 0, "%s", msg);
	if (code == ERROR_CORRUPT)
		error_hint(err, CORRUPT_HINT);
	return code;
}

sqlite3_stmt *
cache_stmt_get(struct cache *c, enum cache_stmt id, struct error *err)
{
	sqlite3_stmt *st = c->stmt[id];
	int rc;

	if (st) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		return st;
	}
	rc = sqlite3_prepare_v3(c->db, stmt_sql[id], -1,
				SQLITE_PREPARE_PERSISTENT, &st, NULL);
	if (rc != SQLITE_OK) {
		cache_sqlite_error(c, rc, err);
		sqlite3_finalize(st);
		return NULL;
	}
	c->stmt[id] = st;
	return st;
}

int
cache_stmt_step(struct cache *c, sqlite3_stmt *st, struct error *err)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE) {
		sqlite3_reset(st);
		return 0;
	}
	rc = cache_sqlite_error(c, rc, err);
	sqlite3_reset(st);
	return rc;
}

int
cache_bind_text(struct cache *c, sqlite3_stmt *st, int idx, const char *s,
		struct error *err)
{
	int rc = s ? sqlite3_bind_text(st, idx, s, -1, SQLITE_TRANSIENT)
		   : sqlite3_bind_null(st, idx);

	return rc == SQLITE_OK ? 0 : cache_sqlite_error(c, rc, err);
}

int
cache_bind_int(struct cache *c, sqlite3_stmt *st, int idx, int64_t v,
	       struct error *err)
{
	int rc = sqlite3_bind_int64(st, idx, (sqlite3_int64)v);

	return rc == SQLITE_OK ? 0 : cache_sqlite_error(c, rc, err);
}

int
cache_column_dup(sqlite3_stmt *st, int col, char **out, struct error *err)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	*out = NULL;
	if (!s)
		return 0;
	*out = mem_strdup((const char *)s);
	if (!*out)
		return error_set(err, ERROR_NOMEM, "out of memory");
	return 0;
}

int
cache_exec(struct cache *c, const char *sql, struct error *err)
{
	int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : cache_sqlite_error(c, rc, err);
}

int
cache_txn_begin(struct cache *c, struct error *err)
{
	return cache_exec(c, "BEGIN IMMEDIATE", err);
}

int
cache_txn_commit(struct cache *c, struct error *err)
{
	int rc = cache_exec(c, "COMMIT", err);

	if (rc)
		cache_txn_rollback(c);
	return rc;
}

void
cache_txn_rollback(struct cache *c)
{
	if (!sqlite3_get_autocommit(c->db))
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
}

/* mkdir -p of the folder holding `path`. */
static int
make_parents(const char *path, struct error *err)
{
	char *dir = mem_strdup(path);
	char *s;
	int rc = 0;

	if (!dir)
		return error_set(err, ERROR_NOMEM, "out of memory");
	s = strrchr(dir, '/');
	if (!s || s == dir)
		goto done;
	*s = '\0';
	for (s = dir + 1; ; s++) {
		char ch = *s;

		if (ch != '/' && ch != '\0')
			continue;
		*s = '\0';
		if (mkdir(dir, 0777) && errno != EEXIST) {
			rc = error_set(err, ERROR_IO,
				       "cannot create folder '%s': %s", dir,
				       strerror(errno));
			goto done;
		}
		*s = ch;
		if (!ch)
			break;
	}
done:
	mem_free(dir);
	return rc;
}

static int
check_version(struct cache *c, int flags, struct error *err)
{
	int rc = cache_schema_read(c, &c->version, err);

	if (rc)
		return rc;
	if (c->version > CACHE_SCHEMA_VERSION) {
		error_at(err, ERROR_UNSUPPORTED, c->path, 0, 0,
			 "cache schema version %d is newer than this ripple "
			 "understands (%d)", c->version, CACHE_SCHEMA_VERSION);
		error_hint(err, "use a newer ripple, or move the file aside");
		return ERROR_UNSUPPORTED;
	}
	if (c->version < CACHE_SCHEMA_VERSION &&
	    (flags & CACHE_OPEN_READONLY)) {
		error_at(err, ERROR_UNSUPPORTED, c->path, 0, 0,
			 "cache schema version %d is older than this ripple "
			 "uses (%d) and the cache is open read-only",
			 c->version, CACHE_SCHEMA_VERSION);
		error_hint(err, "open it once read-write to upgrade it "
			   "(e.g. `ripple cache check`)");
		return ERROR_UNSUPPORTED;
	}
	return 0;
}

/*
 * Version check, WAL and schema. Two processes opening a new file at once
 * race for the switch to WAL, which SQLite answers with SQLITE_BUSY
 * without calling the busy handler; such a step is retried (every 10 ms,
 * up to the busy timeout) instead of failing the open.
 */
static int
setup(struct cache *c, int flags, struct error *err)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	int rc, tries;

	for (tries = 0;; tries++) {
		struct error e2;

		error_init(&e2);
		rc = check_version(c, flags, &e2);
		if (!rc)
			rc = cache_exec(c, "PRAGMA foreign_keys = ON", &e2);
		if (!rc && !c->readonly)
			rc = cache_exec(c, "PRAGMA journal_mode = WAL", &e2);
		if (!rc && !c->readonly)
			rc = cache_schema_apply(c, &e2);
		if (!rc)
			return 0;
		if ((sqlite3_errcode(c->db) & 0xff) != SQLITE_BUSY ||
		    tries * 10 >= BUSY_TIMEOUT_MS) {
			*err = e2;
			return rc;
		}
		nanosleep(&pause, NULL);
	}
}

int
cache_open(const char *path, int flags, struct cache **out,
	   struct error *err)
{
	struct cache *c = NULL;
	struct stat st;
	int oflags, rc;

	*out = NULL;
	if (!path || !path[0])
		return error_set(err, ERROR_INVALID, "empty cache path");
	if (stat(path, &st)) {
		if (errno != ENOENT || !(flags & CACHE_OPEN_CREATE) ||
		    (flags & CACHE_OPEN_READONLY))
			return error_at(err, errno == ENOENT ? ERROR_NOT_FOUND
							     : ERROR_IO,
					path, 0, 0, "cannot open cache: %s",
					strerror(errno));
		rc = make_parents(path, err);
		if (rc)
			return rc;
	}
	c = mem_calloc(1, sizeof(*c));
	if (!c || !(c->path = mem_strdup(path))) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	c->readonly = !!(flags & CACHE_OPEN_READONLY);
	oflags = c->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
	if ((flags & CACHE_OPEN_CREATE) && !c->readonly)
		oflags |= SQLITE_OPEN_CREATE;
	rc = sqlite3_open_v2(path, &c->db, oflags | SQLITE_OPEN_NOMUTEX,
			     NULL);
	if (rc != SQLITE_OK) {
		rc = cache_sqlite_error(c, rc, err);
		goto done;
	}
	sqlite3_busy_timeout(c->db, BUSY_TIMEOUT_MS);
	rc = setup(c, flags, err);
	if (rc)
		goto done;
	*out = c;
	c = NULL;
done:
	cache_close(c);
	return rc;
}

void
cache_close(struct cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < CACHE_STMT_COUNT; i++)
		sqlite3_finalize(c->stmt[i]);
	sqlite3_close(c->db);
	mem_free(c->path);
	mem_free(c);
}

int
cache_schema_version(const struct cache *c)
{
	return c->version;
}

/* Run a check pragma; its first row, if any, is a problem. */
static int
check_pragma(struct cache *c, const char *sql, int ok_row,
	     struct error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(c->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK) {
		rc = cache_sqlite_error(c, rc, err);
		goto done;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		rc = 0;
		goto done;
	}
	if (rc != SQLITE_ROW) {
		rc = cache_sqlite_error(c, rc, err);
		goto done;
	}
	if (ok_row && !strcmp((const char *)sqlite3_column_text(st, 0),
			      "ok")) {
		rc = 0;
		goto done;
	}
	if (ok_row)
		error_at(err, ERROR_CORRUPT, c->path, 0, 0,
			 "integrity check failed: %s",
			 (const char *)sqlite3_column_text(st, 0));
	else
		error_at(err, ERROR_CORRUPT, c->path, 0, 0,
			 "table '%s' row %lld refers to a missing '%s' row",
			 (const char *)sqlite3_column_text(st, 0),
			 (long long)sqlite3_column_int64(st, 1),
			 (const char *)sqlite3_column_text(st, 2));
	error_hint(err, CORRUPT_HINT);
	rc = ERROR_CORRUPT;
done:
	sqlite3_finalize(st);
	return rc;
}

int
cache_integrity_check(struct cache *c, struct error *err)
{
	int rc = check_pragma(c, "PRAGMA integrity_check", 1, err);

	if (rc)
		return rc;
	return check_pragma(c, "PRAGMA foreign_key_check", 0, err);
}

int
cache_read_begin(struct cache *c, struct error *err)
{
	return cache_exec(c, "BEGIN DEFERRED", err);
}

void
cache_read_end(struct cache *c)
{
	if (c && !sqlite3_get_autocommit(c->db))
		sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
}
