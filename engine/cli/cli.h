/*
 * District engine/cli/: every command; the only code that prints, picks
 * exit codes or exits. main.c dispatches; output.c prints errors (the
 * lowest file); common.c opens repositories and planners for several
 * commands. May use every other district; nothing uses it.
 *
 * The ripple command line: one file per command (engine/cli/<name>.c), each
 * exporting a `cli_<name>` entry point listed in the table in main.c.
 *
 * Exit codes: 0 success, 1 the question's answer is "no" or an action
 * failed, 2 usage errors and invalid rules, 3 internal or I/O errors.
 */
#ifndef RIPPLE_ENGINE_CLI_CLI_H
#define RIPPLE_ENGINE_CLI_CLI_H

#include <stdio.h>

struct error;

enum cli_exit {
	CLI_OK = 0,
	CLI_FAIL = 1,
	CLI_USAGE = 2,
	CLI_ERROR = 3,
};

struct cli_ctx {
	const char *dir;	/* -C DIR, or "." */
	const char *prog;	/* argv[0]'s base name, for messages */
	int color_out;		/* stdout is a TTY and NO_COLOR is unset */
	int color_err;		/* the same for stderr */
	const char *remote_url;	/* --remote-cache / RIPPLE_REMOTE_CACHE,
				   or NULL (no remote cache) */
	int remote_read_only;	/* --remote-read-only: never write */
	int remote_required;	/* --remote-required: faults are errors */
};

struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv, const struct cli_ctx *ctx);
	const char *summary;	/* one line for `ripple --help` */
};

/*
 * Print *err to stderr as `FILE:LINE:COL: error: MESSAGE` (or
 * `ripple: error: MESSAGE` when it names no file), then `  node: ID` and
 * `  hint: HINT` lines where set.
 */
void cli_print_error(const struct cli_ctx *ctx, const struct error *err);

/* Print *err as `ripple: warning: MESSAGE` with node and hint lines. */
void cli_print_warning(const struct cli_ctx *ctx, const struct error *err);

/*
 * The exit code for an error code: invalid input, something not found and
 * two facts that disagree are 2 (the user can fix them); anything else 3.
 */
int cli_exit_for(int code);

/* Print *err (cli_print_error) and return its exit code (cli_exit_for). */
int cli_fail(const struct cli_ctx *ctx, const struct error *err);

/* Print "ripple CMD: MESSAGE" and a pointer to --help; returns CLI_USAGE. */
int cli_usage_error(const struct cli_ctx *ctx, const char *cmd,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

struct buf;
struct eval;
struct graph_repo;

/*
 * Open the repository (when *repo is NULL) from ctx->dir and evaluate it at
 * `rev` (or the working tree); print every rule error. Returns 0, or the
 * exit code to return. On success the caller frees *ev (eval_free) and
 * closes *repo (graph_repo_close).
 */
int cli_open_eval(const struct cli_ctx *ctx, const char *rev, int worktree,
		  const char *rules_file, struct graph_repo **repo,
		  struct eval **ev);

/*
 * Run the planner (engine/plan/planner.h) and print every rule error or the
 * error. Returns 0 with *out set (planner_free it), or the exit code.
 */
struct cache;
struct planner;
struct planner_options;
int cli_planner(const struct cli_ctx *ctx, struct graph_repo *repo,
		struct cache *cache, const struct planner_options *po,
		struct planner **out);

/* Write b to `path` ("-" or NULL: stdout), appending when asked. */
int cli_write_out(const struct cli_ctx *ctx, const char *path, int append,
		  const struct buf *b);

/* `ripple graph`: nodes and edges of a closure (engine/cli/graph.c). */
int cli_graph(int argc, char **argv, const struct cli_ctx *ctx);

/* `ripple keys`: node keys and their components (engine/cli/graph.c). */
int cli_keys(int argc, char **argv, const struct cli_ctx *ctx);

/*
 * `ripple check [--rules FILE] [--no-drift]`: validate the rules and
 * evaluate their drift checks (engine/cli/check.c).
 */
int cli_check(int argc, char **argv, const struct cli_ctx *ctx);

/* Commands (engine/cli/<name>.c). */
int cli_cuda_smoke(int argc, char **argv, const struct cli_ctx *ctx);
int cli_devices(int argc, char **argv, const struct cli_ctx *ctx);
int cli_toolkits(int argc, char **argv, const struct cli_ctx *ctx);

/*
 * The cache file a command uses, into out (n bytes): `opt` (--cache) when
 * given, else $RIPPLE_CACHE, else `.ripple/cache.db` under the working
 * tree root of the repository that contains ctx->dir (found with libgit2's
 * git_repository_discover), else under ctx->dir itself. A relative path
 * from --cache or $RIPPLE_CACHE is taken relative to ctx->dir (-C DIR).
 * Returns 0, or prints the error (cli_print_error) and returns a negative
 * ERROR_* code (ERROR_INVALID: the path does not fit in n bytes); pass it
 * to cli_exit_for.
 */
int cli_cache_path(const struct cli_ctx *ctx, const char *opt, char *out,
		   size_t n);

/*
 * Open the cache named by `opt` (cli_cache_path) read-only when the file
 * exists (read-write when only that can open it); *out NULL when there is
 * no file (no history). Prints errors; 0 or the exit code.
 */
struct cache;
int cli_cache_open_read(const struct cli_ctx *ctx, const char *opt,
			struct cache **out);

/* `ripple cache export|import|check` (engine/cli/cache.c). */
int cli_cache(int argc, char **argv, const struct cli_ctx *ctx);

/* `ripple release TAG --dry-run` (engine/cli/release.c). */
int cli_release(int argc, char **argv, const struct cli_ctx *ctx);
/* `ripple jobs`: the CI jobs of a target (engine/cli/ci.c). */
int cli_jobs(int argc, char **argv, const struct cli_ctx *ctx);
/* `ripple gate`: is this commit's CI complete and green (engine/cli/ci.c). */
int cli_gate(int argc, char **argv, const struct cli_ctx *ctx);
/* `ripple diff RUN_A RUN_B [GLOB...]` (engine/cli/diff.c). */
int cli_diff(int argc, char **argv, const struct cli_ctx *ctx);

/* `ripple runs` (engine/cli/runs.c). */
int cli_runs(int argc, char **argv, const struct cli_ctx *ctx);

/* `ripple plan`: decisions for a target (engine/cli/plan.c). */
int cli_plan(int argc, char **argv, const struct cli_ctx *ctx);

/* `ripple why NODE`: one decision explained (engine/cli/plan.c). */
int cli_why(int argc, char **argv, const struct cli_ctx *ctx);

/* `ripple record`: record outcomes of nodes (engine/cli/record.c). */
int cli_record(int argc, char **argv, const struct cli_ctx *ctx);

/* `ripple version ROOT`: a root's version from tags (engine/cli/version.c). */
int cli_version(int argc, char **argv, const struct cli_ctx *ctx);

/*
 * The remote cache of a command (engine/cli/remote.c): the client and the
 * plans' index over it, faults printed as warnings. Both NULL when no URL
 * is set.
 */
struct remote;
struct plan_remote;
struct graph_repo;
struct cli_remote {
	struct remote *client;
	struct plan_remote *index;
};

/*
 * Open ctx->remote_url (credentials from RIPPLE_REMOTE_HEADER and
 * RIPPLE_REMOTE_NETRC) into *out; nothing when no URL is set. Prints
 * errors; 0 or the exit code (2 for a bad URL).
 */
int cli_remote_open(const struct cli_ctx *ctx, struct cli_remote *out);

/* Close both. Accepts a zeroed one. */
void cli_remote_close(struct cli_remote *r);

/*
 * The ref a command works for, into out (n bytes; "" when none): `ref`
 * (--ref) when given, else refs/tags/TAG for `tag`, else the checked-out
 * branch.
 */
void cli_remote_ref(struct graph_repo *repo, const char *ref, const char *tag,
		    char *out, size_t n);

/*
 * One line on stderr: what the remote cache served and took (lookups,
 * hits, untrusted records, faults, files and bytes fetched, nodes
 * published). Nothing without a remote cache.
 */
void cli_remote_summary(const struct cli_remote *r);

/* `ripple fetch NODE... [--to DIR]` (engine/cli/fetch.c). */
int cli_fetch(int argc, char **argv, const struct cli_ctx *ctx);

/* `ripple run`: carry out the plan and record it (engine/cli/run.c). */
int cli_run(int argc, char **argv, const struct cli_ctx *ctx);

#endif
