/*
 * How every command prints an error and picks its exit code: the
 * `FILE:LINE:COL: error:` form, the usage-error form, and the mapping from
 * error codes to exit codes. The lowest file of the CLI: it calls nothing
 * else in engine/cli/.
 */
#include "engine/cli/cli.h"

#include <stdarg.h>
#include <stdio.h>

#include "base/error.h"
#include "base/banned.h"

void
cli_print_error(const struct cli_ctx *ctx, const struct error *err)
{
	const char *red = ctx && ctx->color_err ? "\033[1;31m" : "";
	const char *off = ctx && ctx->color_err ? "\033[0m" : "";

	if (err->file[0] && err->line)
		fprintf(stderr, "%s:%u:%u: %serror:%s %s\n", err->file,
			err->line, err->col, red, off, err->msg);
	else if (err->file[0])
		fprintf(stderr, "%s: %serror:%s %s\n", err->file, red, off,
			err->msg);
	else
		fprintf(stderr, "ripple: %serror:%s %s\n", red, off, err->msg);
	if (err->node[0])
		fprintf(stderr, "  node: %s\n", err->node);
	if (err->hint[0])
		fprintf(stderr, "  hint: %s\n", err->hint);
}

void
cli_print_warning(const struct cli_ctx *ctx, const struct error *err)
{
	const char *mag = ctx && ctx->color_err ? "\033[1;35m" : "";
	const char *off = ctx && ctx->color_err ? "\033[0m" : "";

	fprintf(stderr, "ripple: %swarning:%s %s\n", mag, off, err->msg);
	if (err->node[0])
		fprintf(stderr, "  node: %s\n", err->node);
	if (err->hint[0])
		fprintf(stderr, "  hint: %s\n", err->hint);
	fflush(stderr);
}

int
cli_exit_for(int code)
{
	return code == ERROR_INVALID || code == ERROR_NOT_FOUND ||
			       code == ERROR_CONFLICT
		       ? CLI_USAGE
		       : CLI_ERROR;
}

int
cli_usage_error(const struct cli_ctx *ctx, const char *cmd, const char *fmt,
		...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", ctx ? ctx->prog : "ripple", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s %s --help'.\n", ctx ? ctx->prog : "ripple",
		cmd);
	return CLI_USAGE;
}

int
cli_fail(const struct cli_ctx *ctx, const struct error *err)
{
	cli_print_error(ctx, err);
	return cli_exit_for(err->code);
}
