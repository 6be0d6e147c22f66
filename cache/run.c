/*
 * Runs: creating, reading, finishing and listing them, their status names,
 * and sortable run ids made from a clock reading and random bits (both
 * passed in, so tests are deterministic).
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/random.h"
#include "base/banned.h"

static const char *const run_status_names[] = {
	[CACHE_RUN_STATUS_RUNNING] = "running",
	[CACHE_RUN_STATUS_OK] = "ok",
	[CACHE_RUN_STATUS_FAILED] = "failed",
	[CACHE_RUN_STATUS_INTERRUPTED] = "interrupted",
};

#define N_RUN_STATUS (sizeof(run_status_names) / sizeof(run_status_names[0]))

const char *
cache_run_status_name(enum cache_run_status status)
{
	return (unsigned)status < N_RUN_STATUS ? run_status_names[status]
					       : "?";
}

int
cache_run_status_parse(const char *name, enum cache_run_status *out,
		       struct error *err)
{
	size_t i;

	for (i = 0; name && i < N_RUN_STATUS; i++) {
		if (!strcmp(name, run_status_names[i])) {
			*out = (enum cache_run_status)i;
			return 0;
		}
	}
	return error_set(err, ERROR_INVALID, "unknown run status '%s'",
			 name ? name : "(null)");
}

void
cache_run_release(struct cache_run *run)
{
	if (!run)
		return;
	mem_free(run->id);
	mem_free(run->commit);
	mem_free(run->ref);
	mem_free(run->tag);
	mem_free(run->rules_digest);
	memset(run, 0, sizeof(*run));
}

void
cache_run_list_release(struct cache_run_list *list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->n; i++)
		cache_run_release(&list->items[i]);
	mem_free(list->items);
	list->items = NULL;
	list->n = 0;
}

/* s with bytes outside printable ASCII as \xHH, cut to fit out (n > 4). */
static void
printable(const char *s, char *out, size_t n)
{
	size_t o = 0;

	for (; *s && o + 5 < n; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f)
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, n - o, "\\x%02x", c);
	}
	out[o] = '\0';
}

int
cache_run_id_check(const char *id, struct error *err)
{
	char shown[200];
	size_t i, n = id ? strlen(id) : 0;

	if (!n)
		return error_set(err, ERROR_INVALID, "empty run id");
	for (i = 0; i < n; i++) {
		char c = id[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') ||
		      (i > 0 && (c == '.' || c == '_' || c == '-' ||
				 c == '+'))))
			break;
	}
	if (i == n && n <= CACHE_RUN_ID_MAX)
		return 0;
	printable(id, shown, sizeof(shown));
	if (i == n)
		error_set(err, ERROR_INVALID, "run id '%.40s...' is longer than "
			  "%d bytes", shown, CACHE_RUN_ID_MAX);
	else
		error_set(err, ERROR_INVALID, "run id '%s' is refused: byte "
			  "%zu is not %s", shown, i + 1, i ? "a letter, a "
			  "digit, '.', '_', '-' or '+'" : "a letter or a digit");
	error_hint(err, "run ids name folders and appear in every output: "
		   "use letters, digits, '.', '_', '-' and '+', starting with "
		   "a letter or digit, e.g. gh-12345-1");
	return ERROR_INVALID;
}

/* Bind *run's fields to a RUN_INSERT or RUN_JOIN statement. */
static int
bind_run(struct cache *c, sqlite3_stmt *st, const struct cache_run *run,
	 struct error *err)
{
	int rc;

	if ((rc = cache_bind_text(c, st, 1, run->id, err)) ||
	    (rc = cache_bind_text(c, st, 2, run->commit, err)) ||
	    (rc = cache_bind_text(c, st, 3, run->ref, err)) ||
	    (rc = cache_bind_text(c, st, 4, run->tag, err)) ||
	    (rc = cache_bind_text(c, st, 5,
				  cache_run_status_name(run->status), err)) ||
	    (rc = cache_bind_text(c, st, 6, run->rules_digest, err)) ||
	    (rc = cache_bind_int(c, st, 7, run->started_ms, err)) ||
	    (rc = cache_bind_int(c, st, 8, run->ended_ms, err)))
		return rc;
	return 0;
}

int
cache_run_create(struct cache *c, const struct cache_run *run,
		 struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	rc = cache_run_id_check(run->id, err);
	if (rc)
		return rc;
	st = cache_stmt_get(c, CACHE_STMT_RUN_INSERT, err);
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	rc = bind_run(c, st, run, err);
	if (rc)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_reset(st);
		return 0;
	}
	sqlite3_reset(st);
	if ((rc & 0xff) == SQLITE_CONSTRAINT)
		return error_set(err, ERROR_CONFLICT, "run '%s' exists already",
				 run->id);
	return cache_sqlite_error(c, rc, err);
}

int
cache_run_join_in_txn(struct cache *c, const struct cache_run *run,
		      int *joined, struct error *err)
{
	struct cache_run have;
	sqlite3_stmt *st;
	int rc, added;

	if (!run->id || !run->id[0])
		return error_set(err, ERROR_INVALID, "empty run id");
	st = cache_stmt_get(c, CACHE_STMT_RUN_JOIN, err);
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	rc = bind_run(c, st, run, err);
	if (rc)
		return rc;
	rc = cache_stmt_step(c, st, err);
	if (rc < 0)
		return rc;
	added = sqlite3_changes(c->db) > 0;
	if (joined)
		*joined = !added;
	if (added)
		return 0;
	rc = cache_run_get(c, run->id, &have, err);
	if (rc)
		return rc;
	if (run->commit && (!have.commit || strcmp(have.commit, run->commit))) {
		error_set(err, ERROR_CONFLICT, "run '%s' is at commit %.12s, "
			  "not %.12s", run->id, have.commit ? have.commit : "?",
			  run->commit);
		error_hint(err, "runners join a run only at its commit; pick "
			   "another run id");
		rc = ERROR_CONFLICT;
	}
	cache_run_release(&have);
	return rc;
}

int
cache_run_join(struct cache *c, const struct cache_run *run, int *joined,
	       struct error *err)
{
	int rc = cache_txn_begin(c, err);

	if (rc)
		return rc;
	rc = cache_run_join_in_txn(c, run, joined, err);
	if (rc) {
		cache_txn_rollback(c);
		return rc;
	}
	return cache_txn_commit(c, err);
}

/* Read the current row of a RUN_COLS statement. */
static int
read_run(struct cache *c, sqlite3_stmt *st, struct cache_run *run,
	 struct error *err)
{
	int rc;

	memset(run, 0, sizeof(*run));
	if ((rc = cache_column_dup(st, 0, &run->id, err)) ||
	    (rc = cache_column_dup(st, 1, &run->commit, err)) ||
	    (rc = cache_column_dup(st, 2, &run->ref, err)) ||
	    (rc = cache_column_dup(st, 3, &run->tag, err)) ||
	    (rc = cache_column_dup(st, 5, &run->rules_digest, err)))
		goto fail;
	rc = cache_run_status_parse((const char *)sqlite3_column_text(st, 4),
				    &run->status, err);
	if (rc) {
		error_prefix(err, "run '%s'", run->id);
		rc = ERROR_CORRUPT;
		if (err)
			err->code = ERROR_CORRUPT;
		goto fail;
	}
	run->started_ms = sqlite3_column_int64(st, 6);
	run->ended_ms = sqlite3_column_int64(st, 7);
	run->records = (long)sqlite3_column_int64(st, 8);
	/* its runners are gone, even if nobody marked it so yet */
	if (run->status == CACHE_RUN_STATUS_RUNNING &&
	    cache_owner_gone(c, run->id))
		run->status = CACHE_RUN_STATUS_INTERRUPTED;
	return 0;
fail:
	cache_run_release(run);
	return rc;
}

int
cache_run_get(struct cache *c, const char *id, struct cache_run *out,
	      struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = cache_stmt_lookup(c, CACHE_STMT_RUN_GET, &id, 1, &st, err);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return error_set(err, ERROR_NOT_FOUND, "no run '%s' in the cache",
				 id);
	rc = read_run(c, st, out, err);
	sqlite3_reset(st);
	return rc;
}

int
cache_run_status_rank(int status)
{
	switch ((enum cache_run_status)status) {
	case CACHE_RUN_STATUS_OK:
		return 0;
	case CACHE_RUN_STATUS_RUNNING:
		return 1;
	case CACHE_RUN_STATUS_INTERRUPTED:
		return 2;
	case CACHE_RUN_STATUS_FAILED:
		return 3;
	}
	return 3;
}

static int
set_status(struct cache *c, const char *id, enum cache_run_status status,
	   int64_t ended_ms, struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	st = cache_stmt_get(c, CACHE_STMT_RUN_FINISH, err);
	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	if ((rc = cache_bind_text(c, st, 1, id, err)) ||
	    (rc = cache_bind_text(c, st, 2, cache_run_status_name(status),
				  err)) ||
	    (rc = cache_bind_int(c, st, 3, ended_ms, err)))
		return rc;
	rc = cache_stmt_step(c, st, err);
	if (rc < 0)
		return rc;
	if (sqlite3_changes(c->db) == 0)
		return error_set(err, ERROR_NOT_FOUND, "no run '%s' in the cache",
				 id);
	return 0;
}

/*
 * Finishing a run this handle owns, in one transaction with the other
 * owners' files looked at: the last live owner sets the worst status
 * (interrupted when an owner died unfinished); one that leaves others
 * running removes its file before the commit, so the next to finish sees
 * itself last.
 */
static int
finish_owned(struct cache *c, const char *id, enum cache_run_status status,
	     int64_t ended_ms, struct error *err)
{
	struct cache_owners o;
	struct cache_run have;
	int rc, last;

	memset(&o, 0, sizeof(o));
	rc = cache_txn_begin(c, err);
	if (rc)
		return rc;
	rc = cache_owners_scan(c, id, 1, &o, err);
	if (!rc)
		rc = cache_run_get(c, id, &have, err);
	if (rc)
		goto fail;
	last = o.alive == 0;
	if (o.n_dead && cache_run_status_rank(status) <
			cache_run_status_rank(CACHE_RUN_STATUS_INTERRUPTED))
		status = CACHE_RUN_STATUS_INTERRUPTED;
	if (cache_run_status_rank(have.status) >
	    cache_run_status_rank(status) &&
	    have.status != CACHE_RUN_STATUS_RUNNING)
		status = have.status;
	if (last)
		rc = set_status(c, id, status, ended_ms, err);
	else if (cache_run_status_rank(status) >
		 cache_run_status_rank(have.status))
		rc = set_status(c, id, status, have.ended_ms, err);
	cache_run_release(&have);
	if (rc)
		goto fail;
	if (!last) {
		cache_owners_release(&o, 0);
		cache_owner_drop(c, 1);
	}
	rc = cache_txn_commit(c, err);
	cache_owner_drop(c, !rc);
	cache_owners_release(&o, !rc);
	return rc;
fail:
	cache_txn_rollback(c);
	cache_owners_release(&o, 0);
	cache_owner_drop(c, 0);
	return rc;
}

int
cache_run_finish(struct cache *c, const char *id,
		 enum cache_run_status status, int64_t ended_ms,
		 struct error *err)
{
	if (cache_owner_holds(c, id))
		return finish_owned(c, id, status, ended_ms, err);
	return set_status(c, id, status, ended_ms, err);
}

int
cache_run_list(struct cache *c, const struct cache_run_filter *filter,
	       struct cache_run_list *out, struct error *err)
{
	static const struct cache_run_filter all = CACHE_RUN_FILTER_INIT;
	const char *texts[4];
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	out->items = NULL;
	out->n = 0;
	if (!filter)
		filter = &all;
	texts[0] = filter->commit;
	texts[1] = filter->ref;
	texts[2] = filter->tag;
	texts[3] = filter->status < 0 ? NULL : cache_run_status_name(
		(enum cache_run_status)filter->status);
	rc = cache_stmt_bind_texts(c, CACHE_STMT_RUN_LIST, texts, 4, &st, err);
	if (rc)
		return rc;
	while ((rc = cache_stmt_step(c, st, err)) == 1) {
		if (out->n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct cache_run *p = mem_realloc(
				out->items, ncap * sizeof(*p));

			if (!p) {
				rc = error_set(err, ERROR_NOMEM,
					       "out of memory");
				goto fail;
			}
			out->items = p;
			cap = ncap;
		}
		rc = read_run(c, st, &out->items[out->n], err);
		if (rc)
			goto fail;
		if (filter->status >= 0 &&
		    out->items[out->n].status != (enum cache_run_status)
						  filter->status) {
			cache_run_release(&out->items[out->n]);
			continue;
		}
		out->n++;
	}
	if (rc < 0)
		goto fail;
	return 0;
fail:
	sqlite3_reset(st);
	cache_run_list_release(out);
	return rc;
}

int
cache_run_new_id(int64_t now_ms, uint64_t entropy, char *out, size_t n,
		 struct error *err)
{
	time_t secs;
	struct tm tm;
	int len;

	if (now_ms < 0)
		return error_set(err, ERROR_INVALID,
				 "negative time %" PRId64 " ms", now_ms);
	secs = (time_t)(now_ms / 1000);
	if (!gmtime_r(&secs, &tm) || tm.tm_year + 1900 > 9999)
		return error_set(err, ERROR_INVALID,
				 "time %" PRId64 " ms is out of range", now_ms);
	len = snprintf(out, n, "%04d%02d%02dT%02d%02d%02d.%03dZ-%012" PRIx64,
		       tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		       tm.tm_hour, tm.tm_min, tm.tm_sec,
		       (int)(now_ms % 1000),
		       entropy & UINT64_C(0xffffffffffff));
	if (len < 0 || (size_t)len >= n)
		return error_set(err, ERROR_INVALID,
				 "run id needs %d bytes, have %zu", len + 1, n);
	return 0;
}

int64_t
cache_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
cache_entropy(uint64_t *out, struct error *err)
{
	int e = random_bytes(out, sizeof(*out), 0);

	if (e)
		return error_set(err, ERROR_IO, "cannot read random bits: %s",
				 e == EIO ? "short read" : strerror(e));
	return 0;
}
