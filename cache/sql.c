/*
 * SQL plumbing of the cache: the prepared-statement table, its one
 * step/reset/error helper, binding and column helpers, transactions, and
 * turning SQLite's result codes into our errors. The lowest file of
 * cache/: every other file calls it, and it calls none of them.
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"


#define RUN_COLS "id, \"commit\", ref, tag, status, rules_digest, " \
	"started_ms, ended_ms, " \
	"(SELECT count(*) FROM records WHERE records.run = runs.id)"
#define RECORD_COLS "r.run, r.node_id, r.key, r.status, r.output_digest, " \
	"r.artifacts, r.version, r.metadata, r.duration_ms, r.recorded_ms, " \
	"(SELECT count(*) FROM record_conflicts k " \
	"WHERE k.run = r.run AND k.node_id = r.node_id)"
/* RECORD_COLS for the records of run ?1: the conflicts counted per row
 * only when the run has any (a run's 500 records: 0.7 M instructions of
 * a warm plan); the EXISTS, not correlated, runs once a statement, so
 * both read one snapshot. */
#define RUN_RECORD_COLS "r.run, r.node_id, r.key, r.status, " \
	"r.output_digest, r.artifacts, r.version, r.metadata, r.duration_ms, " \
	"r.recorded_ms, CASE WHEN EXISTS (SELECT 1 FROM record_conflicts " \
	"WHERE run = ?1) THEN (SELECT count(*) FROM record_conflicts k " \
	"WHERE k.run = r.run AND k.node_id = r.node_id) ELSE 0 END"
#define CONFLICT_COLS "r.run, r.node_id, r.key, r.status, " \
	"r.output_digest, r.artifacts, r.version, r.metadata, r.duration_ms, " \
	"r.recorded_ms, 0"

static const char *const stmt_sql[CACHE_STMT_COUNT] = {
	[CACHE_STMT_RUN_INSERT] =
		"INSERT INTO runs (id, \"commit\", ref, tag, status, "
		"rules_digest, started_ms, ended_ms) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[CACHE_STMT_RUN_JOIN] =
		"INSERT INTO runs (id, \"commit\", ref, tag, status, "
		"rules_digest, started_ms, ended_ms) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
		"ON CONFLICT (id) DO NOTHING",
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
	[CACHE_STMT_RUN_RUNNING] =
		"SELECT id FROM runs WHERE status = 'running' ORDER BY id",
	[CACHE_STMT_RUN_INTERRUPT] =
		"UPDATE runs SET status = 'interrupted', ended_ms = ?2 "
		"WHERE id = ?1 AND status = 'running'",
	[CACHE_STMT_RECORD_PUT] =
		"INSERT OR REPLACE INTO records (run, node_id, key, status, "
		"output_digest, artifacts, version, metadata, duration_ms, "
		"recorded_ms) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	[CACHE_STMT_RECORD_GET] =
		"SELECT " RECORD_COLS " FROM records r "
		"WHERE r.run = ?1 AND r.node_id = ?2",
	[CACHE_STMT_RECORD_LIST] =
		"SELECT " RUN_RECORD_COLS " FROM records r WHERE r.run = ?1 "
		"ORDER BY r.node_id",
	[CACHE_STMT_RECORD_STATUSES] =
		"SELECT node_id, status FROM records WHERE run = ?1",
	[CACHE_STMT_RECORD_FIND_RUN] =
		"SELECT " RECORD_COLS " FROM records r "
		"WHERE r.key = ?1 AND r.run = ?2 AND r.status = 'ok' "
		"ORDER BY r.node_id",
	[CACHE_STMT_RECORD_FIND_ANY] =
		"SELECT " RECORD_COLS " FROM records r "
		"JOIN runs u ON u.id = r.run "
		"WHERE r.key = ?1 AND r.status = 'ok' "
		"ORDER BY u.started_ms DESC, u.id DESC, r.node_id",
	[CACHE_STMT_RECORD_NODE_ARTIFACTS] =
		"SELECT r.artifacts FROM records r WHERE r.node_id = ?1",
	[CACHE_STMT_CONFLICT_PUT] =
		"INSERT OR IGNORE INTO record_conflicts (run, node_id, key, "
		"status, output_digest, artifacts, version, metadata, "
		"duration_ms, recorded_ms) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	[CACHE_STMT_CONFLICT_LIST] =
		"SELECT " CONFLICT_COLS " FROM record_conflicts r "
		"WHERE r.run = ?1 AND (?2 IS NULL OR r.node_id = ?2) "
		"ORDER BY r.node_id, r.key, r.status, "
		"coalesce(r.output_digest, '')",
	[CACHE_STMT_CONFLICT_CLEAR] =
		"DELETE FROM record_conflicts WHERE run = ?1 AND node_id = ?2",
	/* JSON text: manifests stored before schema 7, read only. */
	[CACHE_STMT_MANIFEST_GET] =
		"SELECT components FROM manifests WHERE key = ?1",
	[CACHE_STMT_MANIFEST_KEY_PUT] =
		"INSERT OR IGNORE INTO manifest_keys (key, components) "
		"VALUES (?1, ?2)",
	[CACHE_STMT_MANIFEST_KEY_GET] =
		"SELECT id, components FROM manifest_keys WHERE key = ?1",
	[CACHE_STMT_MANIFEST_COMP_PUT] =
		"INSERT INTO manifest_components (manifest, pos, kind, name, "
		"digest, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[CACHE_STMT_MANIFEST_COMP_GET] =
		"SELECT kind, name, digest, detail FROM manifest_components "
		"WHERE manifest = ?1 ORDER BY pos",
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
	[CACHE_STMT_SOURCE_KEY_ALL] =
		"SELECT memo, key FROM source_keys",
	[CACHE_STMT_SOURCE_KEY_ROWS] =
		"SELECT max(rowid) FROM source_keys",
	[CACHE_STMT_TREE_SCAN_GET] =
		"SELECT height, canon, sum FROM tree_scans WHERE tree = ?1",
	[CACHE_STMT_TREE_SCAN_PUT] =
		"INSERT OR IGNORE INTO tree_scans (tree, height, canon, sum) "
		"VALUES (?1, ?2, ?3, ?4)",
	[CACHE_STMT_RULES_TREE_GET] =
		"SELECT tree FROM rules_trees WHERE digest = ?1",
	[CACHE_STMT_RULES_TREE_PUT] =
		"INSERT OR REPLACE INTO rules_trees (digest, tree, stored_ms) "
		"VALUES (?1, ?2, ?3)",
	[CACHE_STMT_RULES_TREE_TRIM] =
		"DELETE FROM rules_trees WHERE digest NOT IN (SELECT digest "
		"FROM rules_trees ORDER BY stored_ms DESC, digest LIMIT ?1)",
	[CACHE_STMT_PUBLISHED_HAS] =
		"SELECT 1 FROM published WHERE node_id = ?1 AND key = ?2 "
		"AND server = ?3",
	[CACHE_STMT_PUBLISHED_MARK] =
		"INSERT OR IGNORE INTO published (node_id, key, server) "
		"VALUES (?1, ?2, ?3)",
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
		error_hint(err, CACHE_CORRUPT_HINT);
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
cache_stmt_bind_texts(struct cache *c, enum cache_stmt id,
		      const char *const *texts, int n, sqlite3_stmt **out,
		      struct error *err)
{
	sqlite3_stmt *st = cache_stmt_get(c, id, err);
	int i, rc = 0;

	*out = st;
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	for (i = 0; !rc && i < n; i++)
		rc = cache_bind_text(c, st, i + 1, texts[i], err);
	return rc;
}

int
cache_stmt_lookup(struct cache *c, enum cache_stmt id,
		  const char *const *texts, int n, sqlite3_stmt **out,
		  struct error *err)
{
	int rc = cache_stmt_bind_texts(c, id, texts, n, out, err);

	return rc ? rc : cache_stmt_step(c, *out, err);
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
