/*
 * The cache handle: opening (folders, WAL, busy timeout, foreign keys,
 * schema, marking runs whose runners are gone interrupted), closing and
 * the integrity check. The statement table, its one
 * step/reset/error helper and transactions live in sql.c (below schema.c,
 * which this file calls); the tables' users in run.c, record.c, kernel.c,
 * export.c and import.c.
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/fsys.h"
#include "base/mem.h"
#include "base/banned.h"

#define BUSY_TIMEOUT_MS 10000

/* mkdir -p of the folder holding `path`. */
static int
make_parents(const char *path, struct error *err)
{
	char *dir = mem_strdup(path);
	char *s;
	int rc = 0, e;

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
		e = fsys_mkdir(dir);
		if (e && e != EEXIST) {
			rc = error_set(err, ERROR_IO,
				       "cannot create folder '%s': %s", dir,
				       strerror(e));
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

void
cache_global_init(void)
{
	/* SQLITE_MISUSE once SQLite is initialized: then it keeps its
	 * defaults. */
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	/* No buffer of ours: a bulk allocation per connection of -N KiB,
	 * capped by SQLite at the cache's size (cache_size, -2000 KiB). */
	(void)sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, -2048);
}

int
cache_open(const char *path, int flags, struct cache **out,
	   struct error *err)
{
	struct cache *c = NULL;
	struct fsys_stat st;
	int oflags, rc, e;

	*out = NULL;
	if (!path || !path[0])
		return error_set(err, ERROR_INVALID, "empty cache path");
	e = fsys_stat(path, &st);
	if (e) {
		if (e != ENOENT || !(flags & CACHE_OPEN_CREATE) ||
		    (flags & CACHE_OPEN_READONLY))
			return error_at(err, e == ENOENT ? ERROR_NOT_FOUND
							 : ERROR_IO,
					path, 0, 0, "cannot open cache: %s",
					strerror(e));
		rc = make_parents(path, err);
		if (rc)
			return rc;
	} else if (st.kind == FSYS_DIR) {
		error_at(err, ERROR_INVALID, path, 0, 0, "the cache is a "
			 "directory");
		error_hint(err, "name the cache file, e.g. %s/cache.db", path);
		return ERROR_INVALID;
	} else if (st.kind != FSYS_REG) {
		/* SQLite would wait forever on a FIFO, fail on a device. */
		error_at(err, ERROR_INVALID, path, 0, 0, "the cache is not a "
			 "regular file (%s)", st.kind == FSYS_FIFO ? "a FIFO"
			 : st.kind == FSYS_CHR || st.kind == FSYS_BLK
			 ? "a device" : st.kind == FSYS_SOCK ? "a socket"
			 : "not a file");
		error_hint(err, "the cache is an SQLite file: name a regular "
			   "file, or one that does not exist yet");
		return ERROR_INVALID;
	}
	c = mem_calloc(1, sizeof(*c));
	if (c)
		c->owner_fd = -1;
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
	{
		/* Best effort: a failure here is no reason to refuse the
		 * cache, and readers show such runs interrupted anyway. */
		struct error e2;

		error_init(&e2);
		cache_owner_sweep(c, cache_clock_ms(), &e2);
	}
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
	cache_owner_drop(c, 0);
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
	error_hint(err, CACHE_CORRUPT_HINT);
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
