/*
 * Moving runs between machines, the receiving side: merging an exported
 * document (export.c) into the cache in one transaction: runs joined,
 * records added, records that disagree with the stored one of their node
 * and key kept as conflicts, manifests added.
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/path.h"
#include "base/mem.h"
#include "base/banned.h"

#define FORMAT_NAME "ripple-cache-export"
#define FORMAT_VERSION 1
#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")

/* An optional string member: absent or null gives NULL. */
static int
opt_str(json_t *obj, const char *name, char **out, const char *what,
	struct error *err)
{
	json_t *v = json_object_get(obj, name);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return error_set(err, ERROR_INVALID, "%s: '%s' is not a "
				 "string", what, name);
	*out = mem_strdup(json_string_value(v));
	return *out ? 0 : OOM(err);
}

static int
req_str(json_t *obj, const char *name, char **out, const char *what,
	struct error *err)
{
	int rc = opt_str(obj, name, out, what, err);

	if (!rc && (!*out || !(*out)[0]))
		return error_set(err, ERROR_INVALID, "%s: '%s' is missing",
				 what, name);
	return rc;
}

static int
req_int(json_t *obj, const char *name, int64_t *out, const char *what,
	struct error *err)
{
	json_t *v = json_object_get(obj, name);

	if (!json_is_integer(v))
		return error_set(err, ERROR_INVALID, "%s: '%s' is not an "
				 "integer", what, name);
	*out = (int64_t)json_integer_value(v);
	return 0;
}

/*
 * An imported id or name holding a control byte (a newline, an escape
 * sequence) is refused: imported caches are never trusted, and these texts
 * are printed by `runs`, `diff` and `why`.
 */
static int
plain(const char *s, const char *what, struct error *err)
{
	char why[PATH_BAD_WHAT];

	/* C1 controls (U+0080..U+009F: a CSI) drive terminals too
	 * (docs/security.md), as do bytes that are not UTF-8. */
	if (s && path_bad_char(s, strlen(s), why))
		return error_set(err, ERROR_INVALID, "%s holds a %s", what,
				 why);
	return 0;
}

static int
parse_run(json_t *j, struct cache_run *run, struct error *err)
{
	char *status = NULL;
	int rc;

	memset(run, 0, sizeof(*run));
	if (!json_is_object(j))
		return error_set(err, ERROR_INVALID, "'run' is not an object");
	rc = 0;
	if ((rc = req_str(j, "id", &run->id, "run", err)) ||
	    (rc = cache_run_id_check(run->id, err)) ||
	    (rc = opt_str(j, "commit", &run->commit, "run", err)) ||
	    (rc = opt_str(j, "ref", &run->ref, "run", err)) ||
	    (rc = opt_str(j, "tag", &run->tag, "run", err)) ||
	    (rc = opt_str(j, "rules_digest", &run->rules_digest, "run",
			  err)) ||
	    (rc = req_str(j, "status", &status, "run", err)) ||
	    (rc = cache_run_status_parse(status, &run->status, err)) ||
	    (rc = req_int(j, "started_ms", &run->started_ms, "run", err)) ||
	    (rc = req_int(j, "ended_ms", &run->ended_ms, "run", err)) ||
	    (rc = plain(run->ref, "run: 'ref'", err)) ||
	    (rc = plain(run->tag, "run: 'tag'", err)) ||
	    (rc = plain(run->commit, "run: 'commit'", err)))
		cache_run_release(run);
	mem_free(status);
	return rc;
}

static int
parse_record(json_t *j, const char *run, struct cache_record *rec,
	     struct error *err)
{
	char *key = NULL, *status = NULL;
	json_t *arts, *meta, *v;
	const char *k;
	size_t i;
	int rc;

	cache_record_init(rec);
	if (!json_is_object(j))
		return error_set(err, ERROR_INVALID, "a record is not an "
				 "object");
	arts = json_object_get(j, "artifacts");
	meta = json_object_get(j, "metadata");
	if ((rc = req_str(j, "node_id", &rec->node_id, "record", err)) ||
	    (rc = req_str(j, "key", &key, "record", err)) ||
	    (rc = req_str(j, "status", &status, "record", err)) ||
	    (rc = cache_record_status_parse(status, &rec->status, err)) ||
	    (rc = opt_str(j, "output_digest", &rec->output_digest, "record",
			  err)) ||
	    (rc = opt_str(j, "version", &rec->version, "record", err)) ||
	    (rc = req_int(j, "duration_ms", &rec->duration_ms, "record",
			  err)) ||
	    (rc = req_int(j, "recorded_ms", &rec->recorded_ms, "record",
			  err)) ||
	    (rc = plain(rec->node_id, "record: 'node_id'", err)) ||
	    (rc = plain(rec->version, "record: 'version'", err)))
		goto done;
	if (!cache_key_valid(key)) {
		rc = error_set(err, ERROR_INVALID, "key '%s' is not 32 "
			       "lowercase hex digits", key);
		goto done;
	}
	memcpy(rec->key, key, CACHE_KEY_SIZE);
	if (!(rec->run = mem_strdup(run))) {
		rc = OOM(err);
		goto done;
	}
	if (arts && !json_is_array(arts)) {
		rc = error_set(err, ERROR_INVALID, "'artifacts' is not an "
			       "array");
		goto done;
	}
	json_array_foreach(arts, i, v) {
		if (!json_is_string(v)) {
			rc = error_set(err, ERROR_INVALID, "artifact %zu is "
				       "not a string", i);
			goto done;
		}
		if ((rc = plain(json_string_value(v), "an artifact", err)) ||
		    (rc = strv_push(&rec->artifacts, json_string_value(v),
				    err)))
			goto done;
	}
	if (meta && !json_is_object(meta)) {
		rc = error_set(err, ERROR_INVALID, "'metadata' is not an "
			       "object");
		goto done;
	}
	json_object_foreach(meta, k, v) {
		char *kv;

		if (!json_is_string(v) || !k[0]) {
			rc = error_set(err, ERROR_INVALID, "metadata '%s' is "
				       "not a string", k);
			goto done;
		}
		rc = plain(k, "a metadata key", err);
		if (!rc)
			rc = plain(json_string_value(v), "a metadata value",
				   err);
		if (rc)
			goto done;
		rc = cache_metadata_entry(k, json_string_value(v), &kv, err);
		if (rc)
			goto done;
		if ((rc = strv_push_ref(&rec->metadata, kv, err))) {
			mem_free(kv);
			goto done;
		}
	}
done:
	if (rc)
		error_node(err, rec->node_id);
	mem_free(status);
	mem_free(key);
	return rc;
}

/* Fill *dst from src when *dst is unset. */
static int
fill(char **dst, const char *src, struct error *err)
{
	if (*dst || !src)
		return 0;
	*dst = mem_strdup(src);
	return *dst ? 0 : OOM(err);
}

static int
update_run(struct cache *c, const struct cache_run *r, struct error *err)
{
	sqlite3_stmt *st = cache_stmt_get(c, CACHE_STMT_RUN_UPDATE, err);
	int rc;

	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	if ((rc = cache_bind_text(c, st, 1, r->id, err)) ||
	    (rc = cache_bind_text(c, st, 2, r->commit, err)) ||
	    (rc = cache_bind_text(c, st, 3, r->ref, err)) ||
	    (rc = cache_bind_text(c, st, 4, r->tag, err)) ||
	    (rc = cache_bind_text(c, st, 5, cache_run_status_name(r->status),
				  err)) ||
	    (rc = cache_bind_text(c, st, 6, r->rules_digest, err)) ||
	    (rc = cache_bind_int(c, st, 7, r->started_ms, err)) ||
	    (rc = cache_bind_int(c, st, 8, r->ended_ms, err)))
		return rc;
	rc = cache_stmt_step(c, st, err);
	return rc < 0 ? rc : 0;
}

static int
merge_run(struct cache *c, const struct cache_run *in, int flags,
	  struct cache_import_stats *stats, struct error *err)
{
	struct cache_run have;
	struct error probe;
	int rc;

	error_init(&probe);
	rc = cache_run_get(c, in->id, &have, &probe);
	if (rc == ERROR_NOT_FOUND) {
		stats->runs_added++;
		return cache_run_create(c, in, err);
	}
	if (rc) {
		if (err && !err->code)
			*err = probe;
		return rc;
	}
	if (flags & CACHE_IMPORT_REPLACE) {
		rc = update_run(c, in, err);
		goto done;
	}
	if (have.commit && in->commit && strcmp(have.commit, in->commit)) {
		rc = error_set(err, ERROR_CONFLICT, "run '%s' is of commit "
			       "'%s' in the cache and of commit '%s' in the "
			       "import", in->id, have.commit, in->commit);
		error_hint(err, "pass --replace to take the imported run");
		goto done;
	}
	if ((rc = fill(&have.commit, in->commit, err)) ||
	    (rc = fill(&have.ref, in->ref, err)) ||
	    (rc = fill(&have.tag, in->tag, err)) ||
	    (rc = fill(&have.rules_digest, in->rules_digest, err)))
		goto done;
	if (cache_run_status_rank(in->status) >
	    cache_run_status_rank(have.status))
		have.status = in->status;
	if (in->started_ms < have.started_ms)
		have.started_ms = in->started_ms;
	if (in->ended_ms > have.ended_ms)
		have.ended_ms = in->ended_ms;
	rc = update_run(c, &have, err);
done:
	cache_run_release(&have);
	return rc;
}

/* Same outcome: status and output digest (both absent counts as equal). */
static int
same_outcome(const struct cache_record *a, const struct cache_record *b)
{
	if (a->status != b->status)
		return 0;
	if (!a->output_digest || !b->output_digest)
		return !a->output_digest && !b->output_digest;
	return !strcmp(a->output_digest, b->output_digest);
}

/* Keep `in` as a conflict of the stored record and list it in stats. */
static int
keep_conflict(struct cache *c, const struct cache_record *in,
	      struct cache_import_stats *stats, struct error *err)
{
	struct cache_record_list *l = &stats->conflicts;
	struct cache_record *p;
	int rc = cache_conflict_write(c, in, NULL, err);
	size_t i;

	if (rc)
		return rc;
	stats->records_conflicting++;
	p = mem_realloc(l->items, (l->n + 1) * sizeof(*p));
	if (!p)
		return OOM(err);
	l->items = p;
	p = &l->items[l->n];
	cache_record_init(p);
	l->n++;
	memcpy(p->key, in->key, CACHE_KEY_SIZE);
	p->status = in->status;
	p->duration_ms = in->duration_ms;
	p->recorded_ms = in->recorded_ms;
	if (!(p->run = mem_strdup(in->run)) ||
	    !(p->node_id = mem_strdup(in->node_id)) ||
	    (in->output_digest &&
	     !(p->output_digest = mem_strdup(in->output_digest))) ||
	    (in->version && !(p->version = mem_strdup(in->version))))
		return OOM(err);
	for (i = 0; !rc && i < in->artifacts.n; i++)
		rc = strv_push(&p->artifacts, in->artifacts.v[i], err);
	for (i = 0; !rc && i < in->metadata.n; i++)
		rc = strv_push(&p->metadata, in->metadata.v[i], err);
	return rc;
}

/*
 * One imported record against the stored one of its node: new, the same,
 * another key (ERROR_CONFLICT unless REPLACE), or the same key with another
 * status or output digest: a conflict, kept beside the stored record (the
 * planner reuses neither) unless REPLACE. `kept`: the document's own
 * conflicts list, whose entries never replace anything.
 */
static int
merge_record(struct cache *c, const struct cache_record *in, int flags,
	     int kept, struct cache_import_stats *stats, struct error *err)
{
	struct cache_record have;
	struct error probe;
	int rc;

	error_init(&probe);
	rc = cache_record_get(c, in->run, in->node_id, &have, &probe);
	if (rc == ERROR_NOT_FOUND && kept)
		return 0;	/* a conflict of nothing stored */
	if (rc == ERROR_NOT_FOUND) {
		stats->records_added++;
		return cache_record_write(c, in, err);
	}
	if (rc) {
		if (err && !err->code)
			*err = probe;
		return rc;
	}
	if (!strcmp(have.key, in->key) && same_outcome(&have, in)) {
		if (!kept)
			stats->records_unchanged++;
		rc = flags & CACHE_IMPORT_REPLACE && !kept
			? cache_record_write(c, in, err) : 0;
	} else if (kept || (!strcmp(have.key, in->key) &&
			    !(flags & CACHE_IMPORT_REPLACE))) {
		rc = keep_conflict(c, in, stats, err);
	} else if (flags & CACHE_IMPORT_REPLACE) {
		stats->records_replaced++;
		rc = cache_record_write(c, in, err);
		if (!rc)
			rc = cache_conflict_clear(c, in->run, in->node_id,
						  err);
	} else {
		rc = error_set(err, ERROR_CONFLICT, "node '%s' of run '%s' has "
			       "key '%s' in the cache and key '%s' in the "
			       "import", in->node_id, in->run, have.key,
			       in->key);
		error_node(err, in->node_id);
		error_hint(err, "pass --replace to take the imported record");
	}
	cache_record_release(&have);
	return rc;
}

static int
import_manifests(struct cache *c, json_t *obj,
		 struct cache_import_stats *stats, struct error *err)
{
	const char *key;
	json_t *v;
	char *text;
	int rc, added;

	if (obj && !json_is_object(obj))
		return error_set(err, ERROR_INVALID, "'manifests' is not an "
				 "object");
	json_object_foreach(obj, key, v) {
		struct cache_manifest m;

		memset(&m, 0, sizeof(m));
		if (!cache_key_valid(key))
			return error_set(err, ERROR_INVALID, "manifest key "
					 "'%s' is not 32 lowercase hex digits",
					 key);
		memcpy(m.key, key, CACHE_KEY_SIZE);
		text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		if (!text)
			return OOM(err);
		rc = cache_components_decode(NULL, text, &m, err);
		free(text);
		if (rc && err && rc == ERROR_CORRUPT)
			err->code = rc = ERROR_INVALID;
		if (!rc)
			rc = cache_manifest_write(c, &m, &added, err);
		cache_manifest_release(&m);
		if (rc)
			return rc;
		stats->manifests_added += (size_t)added;
	}
	return 0;
}

static int
import_doc(struct cache *c, json_t *doc, int flags,
	   struct cache_import_stats *stats, struct error *err)
{
	struct cache_run run;
	struct cache_record rec;
	json_t *records, *conflicts, *fmt, *ver, *v;
	size_t i;
	int rc;

	memset(&run, 0, sizeof(run));
	fmt = json_object_get(doc, "format");
	ver = json_object_get(doc, "version");
	if (!json_is_string(fmt) || strcmp(json_string_value(fmt),
					   FORMAT_NAME) || !json_is_integer(ver))
		return error_set(err, ERROR_INVALID, "not a ripple cache "
				 "export (format '%s' expected)", FORMAT_NAME);
	if (json_integer_value(ver) > FORMAT_VERSION)
		return error_set(err, ERROR_UNSUPPORTED, "export format version "
				 "%lld is newer than this ripple understands "
				 "(%d)", (long long)json_integer_value(ver),
				 FORMAT_VERSION);
	records = json_object_get(doc, "records");
	conflicts = json_object_get(doc, "conflicts");
	if (!json_is_array(records))
		return error_set(err, ERROR_INVALID, "'records' is not an "
				 "array");
	rc = parse_run(json_object_get(doc, "run"), &run, err);
	if (rc)
		goto done;
	rc = merge_run(c, &run, flags, stats, err);
	if (rc)
		goto done;
	json_array_foreach(records, i, v) {
		rc = parse_record(v, run.id, &rec, err);
		if (!rc)
			rc = merge_record(c, &rec, flags, 0, stats, err);
		cache_record_release(&rec);
		if (rc)
			goto done;
	}
	if (conflicts && !json_is_array(conflicts)) {
		rc = error_set(err, ERROR_INVALID, "'conflicts' is not an "
			       "array");
		goto done;
	}
	json_array_foreach(conflicts, i, v) {
		rc = parse_record(v, run.id, &rec, err);
		if (!rc)
			rc = merge_record(c, &rec, flags, 1, stats, err);
		cache_record_release(&rec);
		if (rc)
			goto done;
	}
	rc = import_manifests(c, json_object_get(doc, "manifests"), stats,
			      err);
done:
	cache_run_release(&run);
	return rc;
}

int
cache_import(struct cache *c, const char *text, size_t len, int flags,
	     struct cache_import_stats *stats, struct error *err)
{
	struct cache_import_stats local;
	json_error_t jerr;
	json_t *doc;
	int rc;

	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc)
		return error_set(err, ERROR_INVALID, "invalid JSON at line %d "
				 "column %d: %s", jerr.line, jerr.column,
				 jerr.text);
	if (!json_is_object(doc)) {
		json_decref(doc);
		return error_set(err, ERROR_INVALID, "not a ripple cache "
				 "export (not a JSON object)");
	}
	rc = cache_txn_begin(c, err);
	if (rc)
		goto done;
	rc = import_doc(c, doc, flags, stats, err);
	if (rc)
		cache_txn_rollback(c);
	else
		rc = cache_txn_commit(c, err);
done:
	json_decref(doc);
	if (rc)
		cache_import_stats_release(stats);
	if (stats == &local)
		cache_import_stats_release(stats);
	return rc;
}

void
cache_import_stats_release(struct cache_import_stats *stats)
{
	if (!stats)
		return;
	cache_record_list_release(&stats->conflicts);
	memset(stats, 0, sizeof(*stats));
}
