/*
 * How every command prints an error and picks its exit code: the
 * `FILE:LINE:COL: error:` form, the `ripple CMD: error:` form (usage
 * errors and bad options too), warnings and notes, and the mapping from
 * error codes to exit codes. The lowest file of the CLI: it calls nothing
 * else in engine/cli/.
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/spell.h"
#include "base/banned.h"

/* "ripple CMD" or "ripple" before a command is chosen. */
static void
print_prefix(const struct cli_ctx *ctx, const char *cmd)
{
	const char *prog = ctx && ctx->prog ? ctx->prog : "ripple";

	if (!cmd && ctx)
		cmd = ctx->cmd;
	if (cmd)
		fprintf(stderr, "%s %s: ", prog, cmd);
	else
		fprintf(stderr, "%s: ", prog);
}

static void
print_kind(const struct cli_ctx *ctx, const char *kind)
{
	int color = ctx && ctx->color_err;
	const char *on = !color ? ""
			 : !strcmp(kind, "error") ? "\033[1;31m"
			 : !strcmp(kind, "warning") ? "\033[1;35m"
						    : "\033[1;36m";

	fprintf(stderr, "%s%s:%s ", on, kind, color ? "\033[0m" : "");
}

static void
print_diag(const struct cli_ctx *ctx, const char *kind,
	   const struct error *err)
{
	if (err->file[0] && err->line)
		fprintf(stderr, "%s:%u:%u: ", err->file, err->line, err->col);
	else if (err->file[0])
		fprintf(stderr, "%s: ", err->file);
	else
		print_prefix(ctx, NULL);
	print_kind(ctx, kind);
	fprintf(stderr, "%s\n", err->msg);
	if (err->node[0])
		fprintf(stderr, "  node: %s\n", err->node);
	if (err->hint[0])
		fprintf(stderr, "  hint: %s\n", err->hint);
}

void
cli_print_error(const struct cli_ctx *ctx, const struct error *err)
{
	print_diag(ctx, "error", err);
}

void
cli_print_warning(const struct cli_ctx *ctx, const struct error *w)
{
	print_diag(ctx, "warning", w);
}

void
cli_say(const struct cli_ctx *ctx, const char *kind, const char *fmt, ...)
{
	va_list ap;

	print_prefix(ctx, NULL);
	print_kind(ctx, kind);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int
cli_exit_for(int code)
{
	return code == ERROR_INVALID || code == ERROR_NOT_FOUND ||
			       code == ERROR_CONFLICT
		       ? CLI_USAGE
		       : CLI_ERROR;
}

static void
try_help(const struct cli_ctx *ctx, const char *cmd)
{
	fprintf(stderr, "Try '%s%s%s --help'.\n",
		ctx && ctx->prog ? ctx->prog : "ripple", cmd ? " " : "",
		cmd ? cmd : "");
}

int
cli_usage_error(const struct cli_ctx *ctx, const char *cmd, const char *fmt,
		...)
{
	va_list ap;

	print_prefix(ctx, cmd);
	print_kind(ctx, "error");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	try_help(ctx, cmd);
	return CLI_USAGE;
}

/* The closest long option name to `name` as "--NAME", into out; or "". */
static void
suggest_long(const char *name, const struct option *lo, char *out, size_t n)
{
	const char *names[128];
	const char *s;
	size_t k = 0;

	out[0] = '\0';
	for (; lo && lo->name && k < 128; lo++)
		names[k++] = lo->name;
	s = spell_suggest(name, names, k);
	if (s)
		snprintf(out, n, "--%s", s);
}

/* Long options whose name starts with the first len bytes of name. */
static size_t
prefix_matches(const char *name, size_t len, const struct option *lo,
	       const struct option **hit)
{
	size_t n = 0;

	*hit = NULL;
	for (; lo && lo->name; lo++) {
		if (strlen(lo->name) == len && !strncmp(lo->name, name, len)) {
			*hit = lo;
			return 1;
		}
		if (!strncmp(lo->name, name, len)) {
			*hit = lo;
			n++;
		}
	}
	return n;
}

/* Report the long option argv[optind - 1] that getopt refused. */
static void
bad_long(const struct cli_ctx *ctx, const char *cmd, const char *arg,
	 const struct option *lo)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct option *hit;
	char word[128], sugg[136];
	size_t n = prefix_matches(name, len, lo, &hit);

	snprintf(word, sizeof(word), "%.*s", (int)len, name);
	print_prefix(ctx, cmd);
	print_kind(ctx, "error");
	if (n == 1 && eq && hit->has_arg == no_argument) {
		fprintf(stderr, "option '--%s' takes no value\n", hit->name);
	} else if (n == 1 && hit->has_arg == required_argument) {
		fprintf(stderr, "option '--%s' needs a value\n", hit->name);
	} else if (n > 1) {
		fprintf(stderr, "option '--%s' is ambiguous\n", word);
	} else {
		fprintf(stderr, "unknown option '--%s'\n", word);
		suggest_long(word, lo, sugg, sizeof(sugg));
		if (sugg[0])
			fprintf(stderr, "  hint: did you mean '%s'?\n", sugg);
	}
}

int
cli_getopt(const struct cli_ctx *ctx, const char *cmd, int argc, char **argv,
	   const char *shortopts, const struct option *longopts)
{
	int c = getopt_long(argc, argv, shortopts, longopts, NULL);
	const char *arg;
	char sc;

	if (c != '?' && c != ':')
		return c;
	arg = optind > 0 && optind <= argc ? argv[optind - 1] : NULL;
	if (arg && !strncmp(arg, "--", 2) && arg[2]) {
		bad_long(ctx, cmd, arg, longopts);
	} else {
		sc = (char)optopt;
		print_prefix(ctx, cmd);
		print_kind(ctx, "error");
		if (sc && sc != ':' && strchr(shortopts, sc))
			fprintf(stderr, "option '-%c' needs a value\n", sc);
		else if (sc)
			fprintf(stderr, "unknown option '-%c'\n", sc);
		else
			fprintf(stderr, "unknown option '%s'\n",
				arg ? arg : "?");
	}
	try_help(ctx, cmd);
	return '?';
}

int
cli_fail(const struct cli_ctx *ctx, const struct error *err)
{
	cli_print_error(ctx, err);
	return cli_exit_for(err->code);
}
