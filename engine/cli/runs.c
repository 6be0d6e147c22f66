/*
 * `ripple runs`: the runs recorded in the cache, oldest first, as an
 * aligned table for people or as JSON.
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "base/error.h"
#include "cache/cache.h"
#include "engine/plan/report.h"
#include "base/banned.h"

#define SHORT_COMMIT 12

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: ripple runs [--cache PATH] [--json] [--commit SHA] "
		"[--ref REF] [--tag TAG]\n"
		"\n"
		"List the runs recorded in the cache, oldest first: id, commit "
		"(short),\n"
		"ref, tag, status, number of records, start time (UTC).\n"
		"\n"
		"  --cache PATH   the cache (else $RIPPLE_CACHE, else "
		".ripple/cache.db\n"
		"                 at the repository's root)\n"
		"  --json         a JSON array, keys sorted\n"
		"  --commit SHA   only runs of this full commit id\n"
		"  --ref REF      only runs of this ref\n"
		"  --tag TAG      only runs of this tag\n");
}

/* ms since the epoch as "YYYY-MM-DDTHH:MM:SSZ". */
static void
iso_utc(int64_t ms, char *out, size_t n)
{
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;

	if (ms < 0 || !gmtime_r(&secs, &tm) ||
	    !strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, n, "-");
}

/* Text from data: escaped where it is not UTF-8 (report_json_text). */
static json_t *
str_or_null(const char *s)
{
	return report_json_text(s);
}

static int
print_json(const struct cli_ctx *ctx, const struct cache_run_list *list)
{
	json_t *arr = json_array();
	char when[32];
	size_t i;

	for (i = 0; arr && i < list->n; i++) {
		const struct cache_run *r = &list->items[i];

		iso_utc(r->started_ms, when, sizeof(when));
		json_array_append_new(arr, json_pack(
			"{s:s, s:o, s:o, s:o, s:s, s:o, s:I, s:s, s:I, s:I}",
			"id", r->id, "commit", str_or_null(r->commit),
			"ref", str_or_null(r->ref), "tag", str_or_null(r->tag),
			"status", cache_run_status_name(r->status),
			"rules_digest", str_or_null(r->rules_digest),
			"records", (json_int_t)r->records, "started", when,
			"started_ms", (json_int_t)r->started_ms,
			"ended_ms", (json_int_t)r->ended_ms));
	}
	return cli_print_json(ctx, arr, JSON_INDENT(2));
}

static int
width(const char *s, int w)
{
	int n = s ? (int)strlen(s) : 1;

	return n > w ? n : w;
}

static void
print_table(const struct cache_run_list *list)
{
	int wid = 2, wref = 3, wtag = 3, wst = 6;
	char when[32], commit[SHORT_COMMIT + 1];
	size_t i;

	for (i = 0; i < list->n; i++) {
		wid = width(list->items[i].id, wid);
		wref = width(list->items[i].ref, wref);
		wtag = width(list->items[i].tag, wtag);
		wst = width(cache_run_status_name(list->items[i].status),
			    wst);
	}
	printf("%-*s  %-*s  %-*s  %-*s  %-*s  %7s  %s\n", wid, "ID",
	       SHORT_COMMIT, "COMMIT", wref, "REF", wtag, "TAG", wst,
	       "STATUS", "RECORDS", "STARTED");
	for (i = 0; i < list->n; i++) {
		const struct cache_run *r = &list->items[i];

		snprintf(commit, sizeof(commit), "%s",
			 r->commit ? r->commit : "-");
		iso_utc(r->started_ms, when, sizeof(when));
		printf("%-*s  %-*s  %-*s  %-*s  %-*s  %7ld  %s\n", wid, r->id,
		       SHORT_COMMIT, commit, wref, r->ref ? r->ref : "-",
		       wtag, r->tag ? r->tag : "-", wst,
		       cache_run_status_name(r->status), r->records, when);
	}
}

int
cli_runs(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "commit", required_argument, NULL, 'C' },
		{ "ref", required_argument, NULL, 'r' },
		{ "tag", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cache_run_filter filter = CACHE_RUN_FILTER_INIT;
	struct cache_run_list list = { NULL, 0 };
	const char *cpath = NULL;
	struct cache *c = NULL;
	struct error err;
	char path[4096];
	int ch, rc, json = 0;

	while ((ch = cli_getopt(ctx, "runs", argc, argv, "h", opts)) != -1) {
		switch (ch) {
		case 'c': cpath = optarg; break;
		case 'j': json = 1; break;
		case 'C': filter.commit = optarg; break;
		case 'r': filter.ref = optarg; break;
		case 't': filter.tag = optarg; break;
		case 'h': usage(stdout); return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error(ctx, "runs", "unexpected argument '%s'",
				       argv[optind]);
	rc = cli_cache_path(ctx, cpath, path, sizeof(path));
	if (rc)
		return cli_exit_for(rc);
	error_init(&err);
	rc = cache_open(path, 0, &c, &err);
	if (rc == ERROR_NOT_FOUND) {
		/* No cache yet: no runs. */
		rc = 0;
	} else if (!rc) {
		rc = cache_run_list(c, &filter, &list, &err);
	}
	cache_close(c);
	if (rc) {
		cli_print_error(ctx, &err);
		return cli_exit_for(rc);
	}
	if (json)
		rc = print_json(ctx, &list);
	else
		print_table(&list);
	cache_run_list_release(&list);
	return rc;
}
