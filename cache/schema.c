/*
 * The cache's schema: the DDL, as an upgrade table that moves a file from
 * version N to N+1 (a new file starts at 0), and the backup made before an
 * existing file is upgraded. The version is PRAGMA user_version.
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

struct upgrade {
	int from;		/* the version this step starts from */
	const char *why;	/* one sentence */
	const char *sql;
};

static const struct upgrade upgrades[] = {
	{ 0, "create the runs, records and key manifests tables",
	  "CREATE TABLE runs ("
	  " id TEXT PRIMARY KEY NOT NULL,"
	  " \"commit\" TEXT, ref TEXT, tag TEXT,"
	  " status TEXT NOT NULL CHECK (status IN"
	  "  ('running', 'ok', 'failed', 'interrupted')),"
	  " rules_digest TEXT,"
	  " started_ms INTEGER NOT NULL, ended_ms INTEGER NOT NULL DEFAULT 0);"
	  "CREATE INDEX runs_commit ON runs (\"commit\");"
	  "CREATE INDEX runs_ref ON runs (ref);"
	  "CREATE INDEX runs_tag ON runs (tag);"
	  "CREATE TABLE records ("
	  " run TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
	  " node_id TEXT NOT NULL,"
	  " key TEXT NOT NULL CHECK (length(key) = 32),"
	  " status TEXT NOT NULL CHECK (status IN"
	  "  ('ok', 'failed', 'interrupted', 'timeout')),"
	  " output_digest TEXT,"
	  " artifacts TEXT NOT NULL DEFAULT '[]',"
	  " version TEXT,"
	  " metadata TEXT NOT NULL DEFAULT '{}',"
	  " duration_ms INTEGER NOT NULL DEFAULT 0,"
	  " recorded_ms INTEGER NOT NULL,"
	  " PRIMARY KEY (run, node_id));"
	  "CREATE TABLE manifests ("
	  " key TEXT PRIMARY KEY NOT NULL,"
	  " components TEXT NOT NULL);" },
	{ 1, "add the kernels table for compiled GPU kernels and index "
	     "records by key for reuse lookups",
	  "CREATE TABLE kernels ("
	  " key TEXT PRIMARY KEY NOT NULL,"
	  " arch TEXT NOT NULL,"
	  " cubin BLOB NOT NULL,"
	  " created_ms INTEGER NOT NULL);"
	  "CREATE INDEX records_key ON records (key, status);" },
	{ 2, "add the source-key memo: a source set's key by the ids of the "
	     "entries at its fixed prefixes",
	  "CREATE TABLE source_keys ("
	  " memo TEXT PRIMARY KEY NOT NULL CHECK (length(memo) = 32),"
	  " key TEXT NOT NULL CHECK (length(key) = 32));" },
	{ 3, "keep imported records that disagree with the stored record of "
	     "their node and key (another status or output digest)",
	  "CREATE TABLE record_conflicts ("
	  " run TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
	  " node_id TEXT NOT NULL,"
	  " key TEXT NOT NULL CHECK (length(key) = 32),"
	  " status TEXT NOT NULL CHECK (status IN"
	  "  ('ok', 'failed', 'interrupted', 'timeout')),"
	  " output_digest TEXT,"
	  " artifacts TEXT NOT NULL DEFAULT '[]',"
	  " version TEXT,"
	  " metadata TEXT NOT NULL DEFAULT '{}',"
	  " duration_ms INTEGER NOT NULL DEFAULT 0,"
	  " recorded_ms INTEGER NOT NULL);"
	  "CREATE UNIQUE INDEX record_conflicts_one ON record_conflicts"
	  " (run, node_id, key, status, coalesce(output_digest, ''));" },
	{ 4, "remember which records the remote cache holds, so a record "
	     "whose upload died is published by the next run",
	  "CREATE TABLE published ("
	  " node_id TEXT NOT NULL,"
	  " key TEXT NOT NULL CHECK (length(key) = 32),"
	  " server TEXT NOT NULL,"
	  " PRIMARY KEY (node_id, key, server));" },
	{ 5, "remember parsed rules files by their text's digest, so a plan "
	     "reads ripple.yml without parsing it again",
	  "CREATE TABLE rules_trees ("
	  " digest TEXT PRIMARY KEY NOT NULL CHECK (length(digest) = 32),"
	  " tree BLOB NOT NULL,"
	  " stored_ms INTEGER NOT NULL);" },
	{ 6, "store key manifests as one row per component, so a plan reads "
	     "the file list of a changed source set without parsing JSON; "
	     "manifests stored before stay in the manifests table and are "
	     "read from there",
	  "CREATE TABLE manifest_keys ("
	  " id INTEGER PRIMARY KEY,"
	  " key TEXT NOT NULL UNIQUE CHECK (length(key) = 32),"
	  " components INTEGER NOT NULL CHECK (components >= 0));"
	  "CREATE TABLE manifest_components ("
	  " manifest INTEGER NOT NULL REFERENCES manifest_keys (id)"
	  "  ON DELETE CASCADE,"
	  " pos INTEGER NOT NULL,"
	  " kind TEXT NOT NULL, name TEXT NOT NULL,"
	  " digest TEXT NOT NULL, detail TEXT NOT NULL,"
	  " PRIMARY KEY (manifest, pos)) WITHOUT ROWID;" },
	{ 7, "remember what lies below a tree (no symlink, how deep, its "
	     "canonical id), so a plan reads again only the subtrees of a "
	     "changed folder whose ids changed",
	  "CREATE TABLE tree_scans ("
	  " tree BLOB PRIMARY KEY NOT NULL CHECK (length(tree) = 20),"
	  " height INTEGER NOT NULL CHECK (height >= 0 AND height < 4096),"
	  " canon BLOB NOT NULL CHECK (length(canon) = 20),"
	  " sum INTEGER NOT NULL) WITHOUT ROWID;" },
};

int
cache_schema_read(struct cache *c, int *out, struct error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(c->db, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		rc = cache_sqlite_error(c, rc, err);
		goto done;
	}
	*out = sqlite3_column_int(st, 0);
	rc = 0;
done:
	sqlite3_finalize(st);
	return rc;
}

/* Whether the file holds tables (a version-0 file should hold none). */
static int
has_tables(struct cache *c, int *out, struct error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(c->db,
				"SELECT count(*) FROM sqlite_master "
				"WHERE name NOT LIKE 'sqlite_%'",
				-1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		rc = cache_sqlite_error(c, rc, err);
		goto done;
	}
	*out = sqlite3_column_int(st, 0) > 0;
	rc = 0;
done:
	sqlite3_finalize(st);
	return rc;
}

/* Copy the whole file to PATH.bak-vN with SQLite's backup API. */
static int
backup(struct cache *c, int version, struct error *err)
{
	sqlite3 *dst = NULL;
	sqlite3_backup *b;
	size_t n = strlen(c->path) + 48;
	char *name = mem_alloc(n), *tmp = mem_alloc(n);
	int rc;

	if (!name || !tmp) {
		mem_free(name);
		mem_free(tmp);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	/* Write a private copy, then rename: concurrent upgraders each
	 * leave a whole backup. */
	snprintf(name, n, "%s.bak-v%d", c->path, version);
	snprintf(tmp, n, "%s.bak-v%d.%ld", c->path, version, (long)getpid());
	unlink(tmp);
	rc = sqlite3_open_v2(tmp, &dst,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK)
		goto fail;
	b = sqlite3_backup_init(dst, "main", c->db, "main");
	if (!b) {
		rc = sqlite3_errcode(dst);
		goto fail;
	}
	rc = sqlite3_backup_step(b, -1);
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		rc = rc ? rc : SQLITE_ERROR;
		goto fail;
	}
	sqlite3_close(dst);
	dst = NULL;
	if (rename(tmp, name)) {
		rc = error_at(err, ERROR_IO, name, 0, 0,
			      "cannot back up the cache: %s", strerror(errno));
		goto done;
	}
	rc = 0;
	goto done;
fail:
	error_at(err, ERROR_IO, name, 0, 0, "cannot back up the cache: %s",
		 dst ? sqlite3_errmsg(dst) : sqlite3_errstr(rc));
	rc = ERROR_IO;
done:
	sqlite3_close(dst);
	if (rc)
		unlink(tmp);
	mem_free(tmp);
	mem_free(name);
	return rc;
}

static int
upgrade_from(struct cache *c, int version, struct error *err)
{
	char sql[64];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(upgrades) / sizeof(upgrades[0]); i++) {
		if (upgrades[i].from != version)
			continue;
		rc = cache_exec(c, upgrades[i].sql, err);
		if (rc) {
			error_prefix(err, "upgrading the cache schema from "
				     "version %d (%s)", version,
				     upgrades[i].why);
			return rc;
		}
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
			 version + 1);
		return cache_exec(c, sql, err);
	}
	return error_at(err, ERROR_INTERNAL, c->path, 0, 0,
			"no upgrade from cache schema version %d", version);
}

int
cache_schema_apply(struct cache *c, struct error *err)
{
	int rc, tables = 0, version;

	if (c->version == CACHE_SCHEMA_VERSION)
		return 0;
	/* The backup API cannot read a file its connection is writing. */
	if (c->version > 0) {
		rc = backup(c, c->version, err);
		if (rc)
			return rc;
	}
	rc = cache_txn_begin(c, err);
	if (rc)
		return rc;
	/* Another process may have upgraded it since we looked. */
	rc = cache_schema_read(c, &version, err);
	if (rc)
		goto done;
	if (version == 0) {
		rc = has_tables(c, &tables, err);
		if (rc)
			goto done;
		if (tables) {
			rc = error_at(err, ERROR_INVALID, c->path, 0, 0,
				      "not a ripple cache: it holds tables "
				      "but no schema version");
			error_hint(err, "pass another --cache path");
			goto done;
		}
	} else if (version > CACHE_SCHEMA_VERSION) {
		rc = error_at(err, ERROR_UNSUPPORTED, c->path, 0, 0,
			      "cache schema version %d is newer than this "
			      "ripple understands (%d)", version,
			      CACHE_SCHEMA_VERSION);
		goto done;
	}
	for (; version < CACHE_SCHEMA_VERSION; version++) {
		rc = upgrade_from(c, version, err);
		if (rc)
			goto done;
	}
	rc = cache_txn_commit(c, err);
	if (rc)
		return rc;
	c->version = version;
	return 0;
done:
	cache_txn_rollback(c);
	return rc;
}
