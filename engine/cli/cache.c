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

#include <git2.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "cache/cache.h"
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

int
cli_cache_path(const struct cli_ctx *ctx, const char *opt, char *out,
	       size_t n)
{
	const char *env = getenv("RIPPLE_CACHE");
	const char *dir = ctx->dir ? ctx->dir : ".";
	git_buf gitdir = { NULL, 0, 0 };
	git_repository *repo = NULL;
	const char *root = NULL;
	struct error err;
	int len;

	error_init(&err);
	if ((opt && opt[0]) || (env && env[0])) {
		const char *p = opt && opt[0] ? opt : env;

		if (join_dir(ctx, p, out, n) == 0)
			return 0;
		error_set(&err, ERROR_INVALID, "cache path '%s' is too long",
			  p);
		cli_print_error(ctx, &err);
		return ERROR_INVALID;
	}
	if (git_repository_discover(&gitdir, dir, 0, NULL) == 0 &&
	    git_repository_open(&repo, gitdir.ptr) == 0)
		root = git_repository_workdir(repo);
	if (!root)
		root = dir;
	len = snprintf(out, n, "%s%s.ripple/cache.db", root,
		       root[strlen(root) - 1] == '/' ? "" : "/");
	git_repository_free(repo);
	git_buf_dispose(&gitdir);
	if (len < 0 || (size_t)len >= n) {
		error_set(&err, ERROR_INVALID, "cache path under '%s' is too "
			  "long", dir);
		cli_print_error(ctx, &err);
		return ERROR_INVALID;
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

	while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (ch) {
		case 'r': run = optarg; break;
		case 'c': cpath = optarg; break;
		case 'o': outname = optarg; break;
		case 'h': usage(stdout); return CLI_OK;
		default: return cli_usage_error(ctx, "cache export",
						"bad option");
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
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'c': cpath = optarg; break;
		case 'R': flags |= CACHE_IMPORT_REPLACE; break;
		case 'h': usage(stdout); return CLI_OK;
		default: return cli_usage_error(ctx, "cache import",
						"bad option");
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

	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'c': cpath = optarg; break;
		case 'h': usage(stdout); return CLI_OK;
		default: return cli_usage_error(ctx, "cache check",
						"bad option");
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
