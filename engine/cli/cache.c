/*
 * `ripple cache export|import|check`: moving runs between machines and
 * checking the file; and cli_cache_path, which every command that opens
 * the cache uses to find it (--cache, $RIPPLE_CACHE, the repository's
 * .ripple/cache.db).
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/path.h"
#include "cache/cache.h"
#include "graph/repo.h"
#include "base/banned.h"

#define IMPORT_MAX ((size_t)1 << 30)	/* bytes of one export document */

/* `rel` against ctx->dir unless absolute or dir is ".". */
static int
join_dir(const struct cli_ctx *ctx, const char *rel, char *out, size_t n)
{
	int len;

	if (rel[0] == '/' || !ctx->dir || !strcmp(ctx->dir, "."))
		len = snprintf(out, n, "%s", rel);
	else
		len = snprintf(out, n, "%s/%s", ctx->dir, rel);
	return len < 0 || (size_t)len >= n ? -1 : 0;
}

/*
 * An explicit cache path must name a file in a folder that exists: a typo
 * in --cache or $RIPPLE_CACHE would otherwise mean "no cache" (a plan that
 * rebuilds everything) or a new tree of folders.
 */
static int
check_folder(const char *path, const char *from, struct error *err)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!slash)
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash == path ? 1
			: slash - path), path);
	if (!stat(dir, &st) && S_ISDIR(st.st_mode))
		return 0;
	error_set(err, ERROR_INVALID, "the folder '%s' of the cache '%s' "
		  "(from %s) does not exist", dir, path, from);
	error_hint(err, "make the folder first, or fix %s", from);
	return ERROR_INVALID;
}

int
cli_cache_path(const struct cli_ctx *ctx, const char *opt, char *out,
	       size_t n)
{
	const char *env = getenv("RIPPLE_CACHE");
	const char *dir = ctx->dir ? ctx->dir : ".";
	struct graph_repo *repo = NULL;
	char where[PATH_RESOLVED_MAX];
	struct error err, probe;
	int len;

	error_init(&err);
	error_init(&probe);
	if ((opt && opt[0]) || (env && env[0])) {
		const char *p = opt && opt[0] ? opt : env;

		if (join_dir(ctx, p, out, n)) {
			error_set(&err, ERROR_INVALID, "cache path '%s' is too "
				  "long", p);
		} else {
			check_folder(out, opt && opt[0] ? "--cache"
				     : "$RIPPLE_CACHE", &err);
		}
		goto done;
	}
	/* The repository as every command opens it: a bare one (or a
	 * mirror without config) keeps its cache in its own folder. */
	if (graph_repo_open(dir, &repo, NULL)) {
		len = snprintf(out, n, "%s/.ripple/cache.db", dir);
	} else {
		const char *root = graph_repo_root(repo);

		len = snprintf(out, n, "%s/.ripple/cache.db", root);
		/* A committed `.ripple` link must not move the cache out. */
		if (path_resolve_under(root, ".ripple", 1, where,
				       sizeof(where), &probe) == 0) {
			error_set(&err, ERROR_INVALID, "'%s/.ripple' resolves "
				  "to '%s', outside the repository", root,
				  where);
			error_hint(&err, "remove the link, or name the cache "
				   "with --cache PATH or $RIPPLE_CACHE");
		}
	}
	graph_repo_close(repo);
	if (!err.code && (len < 0 || (size_t)len >= n))
		error_set(&err, ERROR_INVALID, "cache path under '%s' is too "
			  "long", dir);
done:
	if (!err.code)
		return 0;
	cli_print_error(ctx, &err);
	return err.code;
}

int
cli_cache_open_existing(const struct cli_ctx *ctx, const char *opt,
			struct cache **out)
{
	char path[4096];
	struct error err;
	struct stat st;
	int rc;

	*out = NULL;
	rc = cli_cache_path(ctx, opt, path, sizeof(path));
	if (rc)
		return cli_exit_for(rc);
	if (stat(path, &st))
		return 0;
	error_init(&err);
	rc = cache_open(path, CACHE_OPEN_READONLY, out, &err);
	if (rc == ERROR_UNSUPPORTED && err.msg[0] &&
	    !strstr(err.msg, "newer")) {
		error_init(&err);
		rc = cache_open(path, 0, out, &err);
	}
	if (rc) {
		cli_print_error(ctx, &err);
		return cli_exit_for(rc);
	}
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: ripple cache export --run ID [--cache PATH] [-o FILE]\n"
		"       ripple cache import FILE... [--cache PATH] [--replace]\n"
		"       ripple cache check [--cache PATH]\n"
		"\n"
		"export  write run ID, its records (and their conflicts), "
		"their key\n"
		"        manifests and their inputs' file lists as JSON "
		"(stdout, or\n"
		"        FILE with -o)\n"
		"import  merge exported runs into the cache (FILE '-' is "
		"stdin);\n"
		"        importing a file twice changes nothing; a record of "
		"another\n"
		"        key for the same run and node is an error unless "
		"--replace;\n"
		"        one of the same key with another status or output "
		"digest is a\n"
		"        conflict: kept, reported, and neither is reused\n"
		"check   run SQLite's integrity check on the cache; exit 1 if "
		"damaged\n"
		"\n"
		"The cache is --cache PATH, else $RIPPLE_CACHE, else "
		".ripple/cache.db\n"
		"at the repository's root.\n");
}

/* Open the cache for a subcommand; prints the error. */
static int
open_cache(const struct cli_ctx *ctx, const char *opt, int flags,
	   struct cache **c, char *path, size_t n)
{
	struct error err;
	int rc = cli_cache_path(ctx, opt, path, n);

	if (rc)
		return cli_exit_for(rc);
	error_init(&err);
	rc = cache_open(path, flags, c, &err);
	if (rc) {
		cli_print_error(ctx, &err);
		return rc == ERROR_CORRUPT ? CLI_FAIL : cli_exit_for(rc);
	}
	return 0;
}

static int
cmd_export(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "cache", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *run = NULL, *cpath = NULL, *outname = NULL;
	struct cache *c = NULL;
	struct error err;
	char path[4096], opath[4096], *text = NULL;
	size_t len = 0;
	FILE *f;
	int ch, rc;

	while ((ch = cli_getopt(ctx, "cache export", argc, argv, "ho:",
					opts)) != -1) {
		switch (ch) {
		case 'r': run = optarg; break;
		case 'c': cpath = optarg; break;
		case 'o': outname = optarg; break;
		case 'h': usage(stdout); return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	if (!run)
		return cli_usage_error(ctx, "cache export", "--run ID is "
				       "required");
	if (optind < argc)
		return cli_usage_error(ctx, "cache export", "unexpected "
				       "argument '%s'", argv[optind]);
	rc = open_cache(ctx, cpath, 0, &c, path, sizeof(path));
	if (rc)
		return rc;
	error_init(&err);
	rc = cache_run_export(c, run, &text, &len, &err);
	cache_close(c);
	if (rc) {
		cli_print_error(ctx, &err);
		return cli_exit_for(rc);
	}
	if (outname && join_dir(ctx, outname, opath, sizeof(opath)))
		return cli_usage_error(ctx, "cache export", "path too long");
	f = outname ? fopen(opath, "wb") : stdout;
	rc = f && fwrite(text, 1, len, f) == len ? 0 : -1;
	if (outname && f && fclose(f))
		rc = -1;
	else if (!outname && fflush(stdout))
		rc = -1;
	mem_free(text);
	if (rc) {
		error_set(&err, ERROR_IO, "cannot write '%s'",
			  outname ? outname : "(stdout)");
		cli_print_error(ctx, &err);
		return CLI_ERROR;
	}
	return CLI_OK;
}

static int
read_file(const struct cli_ctx *ctx, const char *name, struct buf *b,
	  struct error *err)
{
	char full[4096];
	FILE *f = stdin;
	char chunk[65536];
	size_t got;
	int rc = 0;

	if (strcmp(name, "-")) {
		f = join_dir(ctx, name, full, sizeof(full)) ? NULL
			: fopen(full, "rb");
		if (!f)
			return error_set(err, ERROR_NOT_FOUND,
					 "cannot read '%s'", name);
	}
	while (!rc && (got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		rc = buf_add(b, chunk, got, err);
	if (!rc && ferror(f))
		rc = error_set(err, ERROR_IO, "cannot read '%s'", name);
	if (f != stdin)
		fclose(f);
	return rc;
}

/*
 * Each imported record that disagrees with the stored one of its node and
 * key: both outcomes, on stderr. Neither is reused until the run is
 * recorded again or imported with --replace.
 */
static void
print_conflicts(struct cache *c, const char *file,
		const struct cache_import_stats *st)
{
	size_t i;

	for (i = 0; i < st->conflicts.n; i++) {
		const struct cache_record *in = &st->conflicts.items[i];
		struct cache_record have;
		struct error err;

		error_init(&err);
		if (cache_record_get(c, in->run, in->node_id, &have, &err))
			continue;
		fprintf(stderr, "%s: warning: conflict: node '%s' of run '%s' "
			"(key %.9s) is %s, output %s in the cache and %s, "
			"output %s in the import\n", file, in->node_id,
			in->run, in->key, cache_record_status_name(have.status),
			have.output_digest ? have.output_digest : "none",
			cache_record_status_name(in->status),
			in->output_digest ? in->output_digest : "none");
		cache_record_release(&have);
	}
	if (st->conflicts.n)
		fprintf(stderr, "  hint: both are kept and neither is reused "
			"(`ripple why` shows it); --replace takes the "
			"import's\n");
}

static int
cmd_import(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ "replace", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cpath = NULL;
	struct cache *c = NULL;
	struct cache_import_stats st;
	struct error err;
	struct buf b;
	char path[4096];
	int ch, rc, flags = 0, i;

	memset(&st, 0, sizeof(st));
	while ((ch = cli_getopt(ctx, "cache import", argc, argv, "h",
					opts)) != -1) {
		switch (ch) {
		case 'c': cpath = optarg; break;
		case 'R': flags |= CACHE_IMPORT_REPLACE; break;
		case 'h': usage(stdout); return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	if (optind >= argc)
		return cli_usage_error(ctx, "cache import", "no FILE given");
	rc = open_cache(ctx, cpath, CACHE_OPEN_CREATE, &c, path,
			sizeof(path));
	if (rc)
		return rc;
	buf_init(&b, IMPORT_MAX);
	for (i = optind; i < argc; i++) {
		error_init(&err);
		buf_reset(&b);
		rc = read_file(ctx, argv[i], &b, &err);
		if (!rc)
			rc = cache_import(c, b.data, b.len, flags, &st, &err);
		if (rc) {
			if (!err.file[0])
				snprintf(err.file, sizeof(err.file), "%s",
					 argv[i]);
			cli_print_error(ctx, &err);
			rc = cli_exit_for(rc);
			goto done;
		}
		printf("%s: %zu records added, %zu replaced, %zu unchanged, "
		       "%zu conflicting, %zu manifests added\n", argv[i],
		       st.records_added, st.records_replaced,
		       st.records_unchanged, st.records_conflicting,
		       st.manifests_added);
		print_conflicts(c, argv[i], &st);
		cache_import_stats_release(&st);
	}
	rc = CLI_OK;
done:
	buf_release(&b);
	cache_close(c);
	return rc;
}

static int
cmd_check(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cpath = NULL;
	struct cache *c = NULL;
	struct error err;
	char path[4096];
	int ch, rc;

	while ((ch = cli_getopt(ctx, "cache check", argc, argv, "h",
					opts)) != -1) {
		switch (ch) {
		case 'c': cpath = optarg; break;
		case 'h': usage(stdout); return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error(ctx, "cache check", "unexpected "
				       "argument '%s'", argv[optind]);
	rc = open_cache(ctx, cpath, 0, &c, path, sizeof(path));
	if (rc)
		return rc;
	error_init(&err);
	rc = cache_integrity_check(c, &err);
	if (!rc)
		printf("%s: ok (schema version %d)\n", path,
		       cache_schema_version(c));
	cache_close(c);
	if (rc) {
		cli_print_error(ctx, &err);
		return rc == ERROR_CORRUPT ? CLI_FAIL : cli_exit_for(rc);
	}
	return CLI_OK;
}

int
cli_cache(int argc, char **argv, const struct cli_ctx *ctx)
{
	const char *sub = argc > 1 ? argv[1] : NULL;

	if (!sub)
		return cli_usage_error(ctx, "cache", "no subcommand given "
				       "(export, import or check)");
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		usage(stdout);
		return CLI_OK;
	}
	optind = 0;
	if (!strcmp(sub, "export"))
		return cmd_export(argc - 1, argv + 1, ctx);
	if (!strcmp(sub, "import"))
		return cmd_import(argc - 1, argv + 1, ctx);
	if (!strcmp(sub, "check"))
		return cmd_check(argc - 1, argv + 1, ctx);
	return cli_usage_error(ctx, "cache", "unknown subcommand '%s'", sub);
}
