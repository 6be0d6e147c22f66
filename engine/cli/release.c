/*
 * `ripple release TAG --dry-run`: print the release evaluation of a tag
 * (engine/release/release.h) as one line per check and an artifact table, or as
 * JSON, and write the publish manifest when every check passes. ripple
 * never publishes: without --dry-run the command refuses.
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "engine/release/release.h"
#include "graph/graph.h"
#include "graph/repo.h"
#include "base/banned.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: ripple release TAG --dry-run [--run ID] [--json] "
		"[--manifest FILE]\n"
		"                      [--cache PATH] [--use-current-rules]\n"
		"                      [--artifacts DIR] [--sha256sums FILE] "
		"[--ref REF]\n"
		"\n"
		"Check whether TAG is releasable and show exactly what would be "
		"published.\n"
		"Every check runs; every failure is reported. ripple never "
		"publishes.\n"
		"\n"
		"  --dry-run            required: evaluate only\n"
		"  --run ID             use this run (it must still be a "
		"successful run\n"
		"                       of exactly TAG at the tag's commit)\n"
		"  --json               the report as JSON (docs/release.md)\n"
		"  --manifest FILE      write the publish manifest (JSON) to "
		"FILE when\n"
		"                       every check passes\n"
		"  --cache PATH         the cache (else $RIPPLE_CACHE, else "
		".ripple/cache.db);\n"
		"                       opened read-only\n"
		"  --use-current-rules  when the tagged tree has no ripple.yml, "
		"use the\n"
		"                       working tree's (a warning names the "
		"checks\n"
		"                       that rest on it)\n"
		"  --artifacts DIR      read repository-relative artifact files "
		"under DIR:\n"
		"                       DIR/PATH, else DIR/FILE-NAME as `ripple "
		"fetch --to\n"
		"                       DIR` writes them (default: the "
		"repository's root)\n"
		"  --ref REF            with a remote cache: read this ref's "
		"trust domain\n"
		"                       before the trusted one (default "
		"$RIPPLE_REF; else\n"
		"                       the trusted domain only); only "
		"records of a\n"
		"                       trusted ref are vouched for\n"
		"  --sha256sums FILE    write SHA256SUMS (sha256sum -c format) "
		"to FILE when\n"
		"                       every check passes\n"
		"\n"
		"From a remote cache, every output blob the release vouches for "
		"is\n"
		"downloaded and hashed (none is kept): a damaged one fails check "
		"run,\n"
		"named. With --artifacts DIR the files there are read instead.\n"
		"\n"
		"Exit: 0 releasable, 1 a check failed, 2 usage, 3 internal "
		"error.\n");
}

/* How many checks carry the warning of check i (0 when it has none). */
static size_t
shared_by(const struct release_report *r, size_t i)
{
	const char *w = r->checks[i].warning;
	size_t j, n = 0;

	for (j = 0; w && j < RELEASE_CHECK_COUNT; j++)
		if (r->checks[j].warning && !strcmp(r->checks[j].warning, w))
			n++;
	return n;
}

/*
 * A warning several checks carry (the current rules under every check
 * that rests on them) is said once, after the checks, naming them; the
 * JSON keeps it on each check.
 */
static void
print_shared_warnings(const struct release_report *r)
{
	size_t i, j, k;

	for (i = 0; i < RELEASE_CHECK_COUNT; i++) {
		const char *w = r->checks[i].warning;

		if (shared_by(r, i) < 2)
			continue;
		for (j = 0; j < i; j++)
			if (r->checks[j].warning &&
			    !strcmp(r->checks[j].warning, w))
				break;
		if (j < i)
			continue;	/* said already */
		printf("warning: %s (", w);
		for (k = i, j = 0; k < RELEASE_CHECK_COUNT; k++)
			if (r->checks[k].warning &&
			    !strcmp(r->checks[k].warning, w))
				printf("%s%s", j++ ? ", " : "",
				       r->checks[k].name);
		printf(")\n");
	}
}

static void
print_text(const struct release_report *r)
{
	size_t i, k;
	int wr = 4, wa = 4, wv = 7;

	if (!r->commit[0])
		printf("release %s: NOT RELEASABLE: no tag '%s' in this "
		       "repository (git tag -l lists the tags)\n", r->tag,
		       r->tag);
	else {
		printf("release %s: ", r->tag);
		for (i = 0; i < r->n_release_nodes; i++)
			printf("%s%s", i ? " + " : "", r->release_nodes[i]);
		printf("%s, version %s, commit %.12s, run %s\n",
		       r->n_release_nodes ? "" : "-",
		       r->version ? r->version : "-", r->commit,
		       r->run ? r->run : "-");
	}
	for (i = 0; i < RELEASE_CHECK_COUNT; i++) {
		const struct release_check *c = &r->checks[i];

		printf("%-4s  %-12s  %s\n", release_status_name(c->status),
		       c->name, c->detail);
		for (k = 0; k < c->n_problems; k++)
			printf("      - %s\n", c->problems[k]);
		if (c->warning && shared_by(r, i) == 1)
			printf("      warning: %s\n", c->warning);
	}
	print_shared_warnings(r);
	if (!r->n_artifacts)
		return;
	for (i = 0; i < r->n_artifacts; i++) {
		const struct release_artifact *a = &r->artifacts[i];
		int n;

		if ((n = (int)strlen(a->rule)) > wr)
			wr = n;
		if ((n = (int)strlen(a->axes)) > wa)
			wa = n;
		if (a->version && (n = (int)strlen(a->version)) > wv)
			wv = n;
	}
	printf("\n%-9s  %-*s  %-*s  %-*s  %-12s  %s\n", "STATE", wr, "RULE",
	       wa, "AXES", wv, "VERSION", "DIGEST", "FILES / DETAIL");
	for (i = 0; i < r->n_artifacts; i++) {
		const struct release_artifact *a = &r->artifacts[i];

		printf("%-9s  %-*s  %-*s  %-*s  %-12.12s  ",
		       release_artifact_state_name(a->state), wr, a->rule, wa,
		       a->axes[0] ? a->axes : "-", wv,
		       a->version ? a->version : "-",
		       a->output_digest ? a->output_digest : "-");
		for (k = 0; k < a->n_locators; k++)
			printf("%s%s", k ? " " : "", a->locators[k]);
		if (a->detail)
			printf("%s(%s)", a->n_locators ? " " : "", a->detail);
		printf("\n");
	}
}

/* SHA256SUMS of what would be published, as `sha256sum -c` reads it. */
static int
write_sums(const struct cli_ctx *ctx, const struct release_report *rep,
	   const char *path)
{
	struct error err;
	struct buf b;
	char *text = NULL;
	int rc;

	error_init(&err);
	rc = release_report_sha256sums(rep, &text, &err);
	if (rc) {
		cli_print_error(ctx, &err);
		return cli_exit_for(rc);
	}
	buf_init(&b, 0);
	rc = buf_add(&b, text, strlen(text), &err);
	if (!rc)
		rc = cli_write_out(ctx, path, 0, &b);
	buf_release(&b);
	mem_free(text);
	return rc ? CLI_ERROR : 0;
}

int
cli_release(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'd' },
		{ "run", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "manifest", required_argument, NULL, 'm' },
		{ "cache", required_argument, NULL, 'c' },
		{ "use-current-rules", no_argument, NULL, 'u' },
		{ "artifacts", required_argument, NULL, 'a' },
		{ "sha256sums", required_argument, NULL, 's' },
		{ "ref", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct release_options o;
	struct graph_limits limits;
	struct release_report *rep = NULL;
	struct graph_repo *repo = NULL;
	struct cache *c = NULL;
	struct cli_remote rem = { NULL, NULL };
	const char *cpath = NULL, *mpath = NULL, *spath = NULL, *ref = NULL;
	char path[4096], *text = NULL, dbranch[1024];
	struct error err;
	int ch, rc, json = 0, dry = 0, code = CLI_ERROR;

	memset(&o, 0, sizeof(o));
	cli_graph_limits(ctx, &limits);
	o.limits = &limits;
	while ((ch = cli_getopt(ctx, "release", argc, argv, "h", opts)) != -1) {
		switch (ch) {
		case 'd': dry = 1; break;
		case 'r': o.run = optarg; break;
		case 'j': json = 1; break;
		case 'm': mpath = optarg; break;
		case 'c': cpath = optarg; break;
		case 'u': o.use_current_rules = 1; break;
		case 'a': o.artifacts_dir = optarg; break;
		case 's': spath = optarg; break;
		case 'R': ref = optarg; break;
		case 'h': usage(stdout); return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	if (optind >= argc)
		return cli_usage_error(ctx, "release", "missing TAG");
	if (optind + 1 < argc)
		return cli_usage_error(ctx, "release",
				       "unexpected argument '%s'",
				       argv[optind + 1]);
	if (!dry)
		return cli_usage_error(ctx, "release",
				       "ripple never publishes; pass --dry-run");
	o.tag = argv[optind];
	if (!o.tag[0])
		return cli_usage_error(ctx, "release", "empty TAG");
	rc = cli_cache_path(ctx, cpath, path, sizeof(path));
	if (rc)
		return cli_exit_for(rc);
	o.cache_path = path;
	error_init(&err);
	rc = graph_repo_open(ctx->dir, &repo, &err);
	if (!rc) {
		rc = cache_open(path, CACHE_OPEN_READONLY, &c, &err);
		if (rc == ERROR_NOT_FOUND) {
			error_init(&err);
			c = NULL;
			rc = 0;
		}
	}
	if (!rc) {
		rc = cli_remote_open(ctx, &rem);
		if (rc) {
			code = rc;
			goto done;
		}
		o.remote = rem.index;
		/* Only an explicit ref: a release reads the trusted domain. */
		if (!ref || !ref[0])
			ref = getenv("RIPPLE_REF");
		o.ref = ref && ref[0] ? ref : NULL;
		cli_remote_default_branch(repo, dbranch, sizeof(dbranch));
		o.default_branch = dbranch[0] ? dbranch : NULL;
		rc = release_check(repo, c, &o, &rep, &err);
	}
	if (!rc && (json || (mpath && rep->ok)))
		rc = release_report_json(rep, !json, &text, &err);
	if (rc) {
		cli_print_error(ctx, &err);
		code = cli_exit_for(rc);
		goto done;
	}
	if (json)
		printf("%s\n", text);
	else
		print_text(rep);
	if (mpath && rep->ok) {
		struct buf b;

		if (json) {
			mem_free(text);
			text = NULL;
			rc = release_report_json(rep, 1, &text, &err);
			if (rc) {
				cli_print_error(ctx, &err);
				code = cli_exit_for(rc);
				goto done;
			}
		}
		buf_init(&b, 0);
		rc = buf_addf(&b, &err, "%s\n", text);
		if (!rc)
			rc = cli_write_out(ctx, mpath, 0, &b);
		buf_release(&b);
		if (rc) {
			code = CLI_ERROR;
			goto done;
		}
	} else if (mpath) {
		cli_say(ctx, "note", "manifest not written: '%s' is not "
			"releasable", o.tag);
	}
	if (spath && rep->ok) {
		rc = write_sums(ctx, rep, spath);
		if (rc) {
			code = rc;
			goto done;
		}
	} else if (spath) {
		fprintf(stderr, "ripple release: %s not written: '%s' is not "
			"releasable\n", spath, o.tag);
	}
	code = rep->ok ? CLI_OK : CLI_FAIL;
done:
	mem_free(text);
	release_report_free(rep);
	cli_remote_close(&rem);
	cache_close(c);
	graph_repo_close(repo);
	return code;
}
