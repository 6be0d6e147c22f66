/*
 * District engine/cli/: every command; the only code that prints, picks
 * exit codes or exits. main.c dispatches; output.c prints errors (the
 * lowest file); common.c opens repositories and planners for several
 * commands; toolkit_check.c checks a plan's toolkits against their pins
 * (plan, why, run). May use every other district; nothing uses it.
 *
 * The ripple command line: one file per command (engine/cli/<name>.c), each
 * exporting a `cli_<name>` entry point listed in the table in main.c.
 *
 * Exit codes: 0 success, 1 the question's answer is "no" or an action
 * failed, 2 usage errors and invalid rules, 3 internal or I/O errors.
 */
#ifndef RIPPLE_ENGINE_CLI_CLI_H
#define RIPPLE_ENGINE_CLI_CLI_H

#include <signal.h>
#include <stdio.h>

#include "base/interrupt.h"

struct error;

enum cli_exit {
	CLI_OK = 0,
	CLI_FAIL = 1,
	CLI_USAGE = 2,
	CLI_ERROR = 3,
	CLI_INTERRUPTED = 130,	/* SIGINT or SIGTERM (128 + 2) */
};

/*
 * What main() hands every command. -C DIR is applied by main() with
 * chdir(2), as git does, so every relative path a user gives (--rules,
 * --cache, -o, ...) is taken from DIR; `dir` is then ".".
 */
struct cli_ctx {
	const char *dir;	/* "." (main has changed into -C DIR) */
	const char *prog;	/* "ripple", for messages */
	const char *cmd;	/* the command's name, e.g. "plan"; NULL
				   before one is chosen */
	int color_out;		/* ANSI colour on stdout (--color, TERM,
				   NO_COLOR, a TTY) */
	int color_err;		/* the same for stderr */
	int smart_err;		/* stderr is a TTY that is not TERM=dumb:
				   status lines may be rewritten in place */
	const char *remote_url;	/* --remote-cache / RIPPLE_REMOTE_CACHE,
				   or NULL (no remote cache) */
	int remote_read_only;	/* --remote-read-only: never write */
	int remote_required;	/* --remote-required: faults are errors */
	const char *remote_timeout;	/* --remote-timeout SECONDS, or NULL */
	const char *remote_low_speed;	/* --remote-low-speed BYTES:SECONDS */
	unsigned long long max_nodes;	/* --max-nodes, or 0: the ceiling
					   GRAPH_MAX_NODES_DEFAULT */
	unsigned long long max_edges;	/* --max-edges, or 0: the ceiling
					   GRAPH_MAX_EDGES_DEFAULT */
};

struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv, const struct cli_ctx *ctx);
	const char *summary;	/* one line for `ripple --help` */
};

/*
 * Print *err to stderr as `FILE:LINE:COL: error: MESSAGE` (`FILE: error:`
 * without a line) or, when it names no file, `ripple CMD: error: MESSAGE`
 * (`ripple: error:` before a command is chosen), then `  node: ID` and
 * `  hint: HINT` lines where set. These two forms are every error ripple
 * prints (README "Errors").
 */
void cli_print_error(const struct cli_ctx *ctx, const struct error *err);

/* A warning in cli_print_error's form, `warning:` for `error:`. */
void cli_print_warning(const struct cli_ctx *ctx, const struct error *w);

/*
 * Print `ripple CMD: warning: MESSAGE` (kind "warning") or `ripple CMD:
 * note: MESSAGE` (kind "note") to stderr, in the error's form.
 */
void cli_say(const struct cli_ctx *ctx, const char *kind, const char *fmt,
	     ...) __attribute__((format(printf, 3, 4)));

/*
 * The exit code for an error code: invalid input, something not found and
 * two facts that disagree are 2 (the user can fix them); anything else 3.
 */
int cli_exit_for(int code);

/* Print *err (cli_print_error) and return its exit code (cli_exit_for). */
int cli_fail(const struct cli_ctx *ctx, const struct error *err);

/*
 * Print "ripple CMD: error: MESSAGE" and "Try 'ripple CMD --help'."; returns
 * CLI_USAGE.
 */
int cli_usage_error(const struct cli_ctx *ctx, const char *cmd,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

struct option;

/*
 * getopt_long(3) for a command: the same arguments and results, except
 * that an unknown option, a missing value or a value given to a flag is
 * reported here as a usage error of `cmd` (one line naming the option, a
 * "did you mean" hint, and "Try 'ripple CMD --help'.") and returns '?':
 * the caller returns CLI_USAGE. main() sets opterr to 0 so getopt itself
 * prints nothing.
 */
int cli_getopt(const struct cli_ctx *ctx, const char *cmd, int argc,
	       char **argv, const char *shortopts,
	       const struct option *longopts);

struct buf;
struct eval;
struct graph_limits;
struct graph_repo;

/*
 * The graph's ceilings a command runs under (--max-nodes, --max-edges;
 * 0 in a field: the default), into *out.
 */
void cli_graph_limits(const struct cli_ctx *ctx, struct graph_limits *out);

/*
 * The working tree root of the git repository that holds the current
 * directory (main has changed into -C DIR), into out (n bytes; absolute,
 * no trailing "/"). Every command finds its repository this way, as git
 * does: libgit2's discovery, up through the parents, not across file
 * systems (graph_repo_open). Returns 1 when found; 0 when the directory
 * is in no repository or a bare one (out is then "."); or, after printing
 * the error, a negative ERROR_* (an unreadable repository, a long path).
 */
int cli_repo_root(const struct cli_ctx *ctx, char *out, size_t n);

/*
 * The rules file a command reads from disk, into out (n bytes): `opt`
 * (--rules, relative to the current directory) when given, else
 * ripple.yml at the root of the repository holding the current directory
 * (cli_repo_root), else ./ripple.yml outside any repository. *display is
 * set to the name to print in messages (opt, or "ripple.yml"). Returns 0,
 * or a negative ERROR_* after printing the error.
 */
int cli_rules_path(const struct cli_ctx *ctx, const char *opt, char *out,
		   size_t n, const char **display);

/*
 * For `ripple check` of the repository's own ripple.yml: a note (stderr)
 * when it differs from HEAD's, or HEAD has none, since plan and run read
 * the commit's rules (unless --worktree). Silent outside a repository,
 * in a bare one, before the first commit, or when they agree.
 */
void cli_note_checked_rules(const struct cli_ctx *ctx);

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
 * As cli_open_eval, with the writable cache `memo` (borrowed, or NULL)
 * read and written as the evaluation's memos (eval_open_memo): source-set
 * keys and parsed rules trees.
 */
struct cache;
int cli_open_eval_memo(const struct cli_ctx *ctx, const char *rev,
		       int worktree, const char *rules_file,
		       struct cache *memo, struct graph_repo **repo,
		       struct eval **ev);

/*
 * How many at once, for `-j N` (given > 0: N), else $RIPPLE_JOBS, else
 * the processors ripple may use (host_cpus: affinity and cgroup CPU
 * quota): into *out. A malformed RIPPLE_JOBS
 * (not a number from 1 to 4096) is a usage error of `cmd`: returns
 * CLI_USAGE, else 0.
 */
int cli_job_count(const struct cli_ctx *ctx, const char *cmd, long given,
		  size_t *out);

/*
 * Run the planner (engine/plan/planner.h) and print every rule error or the
 * error. Returns 0 with *out set (planner_free it), or the exit code.
 * Source sets no memo knows are keyed on po->jobs threads (0: the
 * default of cli_job_count; at most EVAL_POOL_MAX_JOBS).
 */
struct cache;
struct planner;
struct planner_options;
int cli_planner(const struct cli_ctx *ctx, struct graph_repo *repo,
		struct cache *cache, const struct planner_options *po,
		struct planner **out);

/*
 * The time a dirty working-tree version is stamped with (.dYYYYMMDD):
 * SOURCE_DATE_EPOCH when set (the reproducible-builds convention), else
 * now, in seconds since the epoch. A malformed SOURCE_DATE_EPOCH is
 * printed as an error and gives -1.
 */
int cli_date_epoch(const struct cli_ctx *ctx, long long *out);

/*
 * Check the pin of every toolkit a node the plan builds or tests uses,
 * where its home (`home:`, else /usr/local/cuda-M.m) exists: the versions
 * NVRTC, nvJitLink and cudart report (and version.json's) must agree with
 * it (cuda_toolkit_pin_check). A disagreement is printed, naming both, and
 * its exit code returned; a home whose libraries cannot be loaded gets a
 * note on stderr and no check. With `out`, *out (allocated in `a`) gets
 * each probed toolkit's name and identity ("cudart=13.0 nvjitlink=13.0
 * nvrtc=13.0 pin=13.0.2"), *n of them. Returns 0 or an exit code.
 */
struct arena;
struct rules_kv;
int cli_toolkits_check(const struct cli_ctx *ctx, const struct planner *pl,
		       struct arena *a, struct rules_kv **out, size_t *n);

/*
 * Print `doc` (jansson; NULL when building it failed) to stdout with
 * JSON_SORT_KEYS | flags and a newline, then drop the reference. A doc
 * that is NULL or cannot be rendered, or output that cannot be written
 * (a full disk), prints an error and returns its exit code: a failed
 * --json never prints nothing and exits 0. Returns 0 otherwise.
 */
struct json_t;
int cli_print_json(const struct cli_ctx *ctx, struct json_t *doc,
		   size_t flags);

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
 * tree root of the repository that contains ctx->dir (found with
 * graph_repo_open; a bare repository's own folder), else under ctx->dir
 * itself. A relative path from --cache or $RIPPLE_CACHE is taken relative
 * to ctx->dir (-C DIR). Returns 0, or prints the error (cli_print_error)
 * and returns a negative ERROR_* code, ERROR_INVALID when the path does
 * not fit in n bytes, when the folder of a --cache or $RIPPLE_CACHE path
 * does not exist, or when the repository's `.ripple` resolves outside it;
 * pass it to cli_exit_for.
 */
int cli_cache_path(const struct cli_ctx *ctx, const char *opt, char *out,
		   size_t n);

/*
 * Open the cache a command reads (cli_cache_path) when it exists, read-only
 * where the file allows (an older schema is upgraded in place first); *out
 * is NULL, and nothing is created, when there is none. Returns 0, or the
 * exit code after printing the error.
 */
struct cache;
int cli_cache_open_existing(const struct cli_ctx *ctx, const char *opt,
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

/* `ripple roots`: the roots and their facts (engine/cli/roots.c). */
int cli_roots(int argc, char **argv, const struct cli_ctx *ctx);

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
 * Open ctx->remote_url (credentials from RIPPLE_REMOTE_CACHE_HEADER and
 * RIPPLE_REMOTE_NETRC) into *out; nothing when no URL is set. Prints
 * errors; 0 or the exit code (2 for a bad URL).
 */
int cli_remote_open(const struct cli_ctx *ctx, struct cli_remote *out);

/* Close both. Accepts a zeroed one. */
void cli_remote_close(struct cli_remote *r);

/*
 * The ref a command works for (its trust domain in the remote cache), into
 * out (n bytes; "" when none): `ref` (--ref) when given, else $RIPPLE_REF,
 * else refs/tags/TAG for `tag`, else what GitHub Actions says
 * (cli_github_ref), else the checked-out branch. Returns 0, or, after
 * printing why, CLI_USAGE when the ref does not fit in out: a ref cut
 * short would be judged as another ref.
 */
int cli_remote_ref(const struct cli_ctx *ctx, struct graph_repo *repo,
		   const char *ref, const char *tag, char *out, size_t n);

/*
 * The repository's default branch as "refs/heads/NAME" into out (n
 * bytes): GitHub Actions' event payload (repository.default_branch), else
 * the target of refs/remotes/origin/HEAD; "" when neither says (trust
 * then falls back to main and master).
 */
void cli_remote_default_branch(struct graph_repo *repo, char *out, size_t n);

/*
 * Inside GitHub Actions (GITHUB_ACTIONS=true), the ref of the job
 * (engine/cli/github_env.c): refs/pull/N/merge for pull_request events
 * (GITHUB_REF) and for pull_request_target (N from the event payload at
 * GITHUB_EVENT_PATH; GITHUB_REF is then the base branch, never used),
 * else GITHUB_REF (refs/heads/..., refs/tags/...). 1 and out (n bytes),
 * or 0 and "" outside Actions or when it cannot be told.
 */
int cli_github_ref(char *out, size_t n);

/*
 * Inside GitHub Actions, "refs/heads/" and the event payload's
 * repository.default_branch into out: 1, or 0 and "".
 */
int cli_github_default_branch(char *out, size_t n);

/*
 * One line on stderr: what the remote cache served and took (lookups,
 * hits, untrusted records, faults, files and bytes fetched, nodes
 * published). Nothing without a remote cache.
 */
void cli_remote_summary(const struct cli_remote *r);

/* Signal dispositions replaced by cli_stop_catch. */
struct cli_stop_saved {
	struct interrupt_saved saved;
};

/*
 * Catch SIGINT and SIGTERM (Ctrl-C, Ctrl-Break and the console closing on
 * Windows; base/interrupt.h): they set the stop flag instead of killing.
 * once: the next signal kills (SA_RESETHAND). saved (may be NULL)
 * receives the dispositions replaced.
 */
void cli_stop_catch(int once, struct cli_stop_saved *saved);

/* Put back what cli_stop_catch replaced. */
void cli_stop_restore(const struct cli_stop_saved *saved);

/*
 * The stop flag, for run_options.stop and remote_options.cancel (set only
 * while caught), and whether it is set.
 */
const volatile sig_atomic_t *cli_stop_flag(void);
int cli_stopped(void);

/* `ripple fetch NODE... [--to DIR]` (engine/cli/fetch.c). */
int cli_fetch(int argc, char **argv, const struct cli_ctx *ctx);

/* `ripple run`: carry out the plan and record it (engine/cli/run.c). */
int cli_run(int argc, char **argv, const struct cli_ctx *ctx);

struct rules_toolkit;

/* The toolkit's home: its `home:`, else /usr/local/cuda-MAJOR.MINOR (the
 * runner convention, docs/github.md), into out (n bytes). 0, or -1 when
 * it does not fit. */
int cli_toolkit_home(const struct rules_toolkit *tk, char *out, size_t n);

/* The base `--base auto` derives (engine/cli/github_base.c). */
struct cli_base {
	char hex[41];		/* the commit to pass as --base; "": none (a
				   push of the first commit) */
	char why[512];		/* for people: the event and the rule used */
};

struct cache;
struct planner_options;

/*
 * Derive the base commit from the GitHub Actions event (GITHUB_EVENT_NAME,
 * GITHUB_EVENT_PATH, GITHUB_REF, GITHUB_BASE_REF, RIPPLE_TARGET_BRANCH):
 * the target branch of a pull request or a pull-request/N bot branch, the
 * default branch for a new branch, else the previous record-complete
 * commit (every build and test node of po's targets has an ok record)
 * from the push's `before` (a force-push: its merge base with the head),
 * at most 32 first parents back. po supplies targets, rules, remote and
 * ref; it is not changed. Returns 0 with *out set, or an exit code after
 * printing the error (a missing target branch, a bad event file).
 */
int cli_base_auto(const struct cli_ctx *ctx, struct graph_repo *repo,
		  struct cache *cache, const struct planner_options *po,
		  struct cli_base *out);

/*
 * When po->base is "auto": derive it (cli_base_auto), note it on stderr,
 * and point po->base at b->hex (b must outlive po's use). Otherwise 0 and
 * nothing changes.
 */
int cli_base_resolve(const struct cli_ctx *ctx, struct graph_repo *repo,
		     struct cache *cache, struct planner_options *po,
		     struct cli_base *b);

/* `ripple base`: print the derived base (engine/cli/github_base.c). */
int cli_base(int argc, char **argv, const struct cli_ctx *ctx);

#endif
