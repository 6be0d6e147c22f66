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
#include "base/mem.h"
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
		"  --ref REF      only runs of this ref (a short name such as\n"
		"                 12.9.x also matches refs/heads/ and refs/tags/)\n"
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

static int
cmp_run(const void *a, const void *b)
{
	const struct cache_run *x = a, *y = b;

	if (x->started_ms != y->started_ms)
		return x->started_ms < y->started_ms ? -1 : 1;
	return strcmp(x->id, y->id);
}

/*
 * A short --ref (`12.9.x`, `main`) names the branch or tag as git does:
 * the runs of refs/heads/NAME and refs/tags/NAME join those of the text
 * as given, in the list's order (started, then id).
 */
static int
short_ref(struct cache *c, struct cache_run_filter *filter,
	  struct cache_run_list *list, struct error *err)
{
	static const char *const prefixes[] = { "refs/heads/", "refs/tags/" };
	const char *given = filter->ref;
	char ref[1024];
	size_t i, k;
	int rc = 0;

	for (i = 0; !rc && i < 2; i++) {
		struct cache_run_list more = { NULL, 0 };
		struct cache_run *v;

		snprintf(ref, sizeof(ref), "%s%s", prefixes[i], given);
		filter->ref = ref;
		rc = cache_run_list(c, filter, &more, err);
		if (!rc && more.n) {
			v = mem_realloc(list->items, (list->n + more.n) *
					sizeof(*v));
			if (!v) {
				rc = error_set(err, ERROR_NOMEM,
					       "out of memory");
			} else {
				list->items = v;
				for (k = 0; k < more.n; k++)
					v[list->n++] = more.items[k];
				more.n = 0;	/* moved */
			}
		}
		cache_run_list_release(&more);
	}
	filter->ref = given;
	if (!rc && list->n > 1)
		qsort(list->items, list->n, sizeof(*list->items), cmp_run);
	return rc;
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
		if (!rc && filter.ref && strncmp(filter.ref, "refs/", 5))
			rc = short_ref(c, &filter, &list, &err);
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
