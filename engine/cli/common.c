/*
 * Pieces several commands share: opening the repository and an evaluation
 * with every rule error printed, and writing a buffer to a file or stdout.
 */
#include "engine/cli/cli.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/host.h"
#include "cache/cache.h"
#include "engine/plan/eval.h"
#include "engine/plan/planner.h"
#include "graph/graph.h"
#include "graph/repo.h"
#include "rules/drift.h"
#include "base/banned.h"

int
cli_repo_root(const struct cli_ctx *ctx, char *out, size_t n)
{
	struct graph_repo *repo = NULL;
	struct error err;
	int rc, len;

	error_init(&err);
	rc = graph_repo_open(".", &repo, &err);
	if (rc == ERROR_NOT_FOUND || rc == ERROR_UNSUPPORTED) {
		/* In no repository, or a bare one: no working tree. */
		snprintf(out, n, ".");
		return 0;
	}
	if (rc) {
		cli_print_error(ctx, &err);
		return rc;
	}
	len = snprintf(out, n, "%s", graph_repo_root(repo));
	graph_repo_close(repo);
	if (len < 0 || (size_t)len >= n) {
		error_set(&err, ERROR_INVALID, "repository path is too long");
		cli_print_error(ctx, &err);
		return ERROR_INVALID;
	}
	return 1;
}

int
cli_rules_path(const struct cli_ctx *ctx, const char *opt, char *out,
	       size_t n, const char **display)
{
	struct error err;
	char root[4096];
	int rc, len;

	if (opt) {
		*display = opt;
		len = snprintf(out, n, "%s", opt);
	} else {
		*display = "ripple.yml";
		rc = cli_repo_root(ctx, root, sizeof(root));
		if (rc < 0)
			return rc;
		len = snprintf(out, n, "%s/ripple.yml", root);
	}
	if (len < 0 || (size_t)len >= n) {
		error_init(&err);
		error_set(&err, ERROR_INVALID, "rules path '%s' is too long",
			  opt ? opt : "ripple.yml");
		cli_print_error(ctx, &err);
		return ERROR_INVALID;
	}
	return 0;
}

void
cli_graph_limits(const struct cli_ctx *ctx, struct graph_limits *out)
{
	out->max_nodes = ctx->max_nodes;
	out->max_edges = ctx->max_edges;
}

int
cli_open_eval(const struct cli_ctx *ctx, const char *rev, int worktree,
	      const char *rules_file, struct graph_repo **repo,
	      struct eval **ev)
{
	return cli_open_eval_memo(ctx, rev, worktree, rules_file, NULL, repo,
				  ev);
}

int
cli_open_eval_memo(const struct cli_ctx *ctx, const char *rev, int worktree,
		   const char *rules_file, struct cache *memo,
		   struct graph_repo **repo, struct eval **ev)
{
	struct graph_limits limits;
	struct error_list errors;
	struct error err;
	size_t i;
	int rc;

	error_init(&err);
	*ev = NULL;
	if (!*repo) {
		rc = graph_repo_open(ctx->dir, repo, &err);
		if (rc) {
			cli_print_error(ctx, &err);
			return cli_exit_for(rc);
		}
	}
	error_list_init(&errors, 50);
	cli_graph_limits(ctx, &limits);
	rc = eval_open_memo(*repo, rev, worktree, rules_file, &limits, memo,
			    memo != NULL, &errors, ev, &err);
	if (rc) {
		if (errors.n) {
			for (i = 0; i < errors.n; i++)
				cli_print_error(ctx, &errors.items[i]);
			if (errors.dropped)
				cli_say(ctx, "note", "%zu more errors not "
					"shown", errors.dropped);
		} else {
			cli_print_error(ctx, &err);
		}
		error_list_release(&errors);
		return cli_exit_for(rc);
	}
	error_list_release(&errors);
	return 0;
}

int
cli_date_epoch(const struct cli_ctx *ctx, long long *out)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v;

	if (!s || !s[0]) {
		*out = (long long)time(NULL);
		return 0;
	}
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < 0) {
		struct error e;

		error_init(&e);
		error_set(&e, ERROR_INVALID,
			  "SOURCE_DATE_EPOCH '%s' is not a number of seconds",
			  s);
		cli_print_error(ctx, &e);
		return -1;
	}
	*out = v;
	return 0;
}

int
cli_write_out(const struct cli_ctx *ctx, const char *path, int append,
	      const struct buf *b)
{
	FILE *f = stdout;
	struct error err;
	int bad;

	error_init(&err);
	if (path && strcmp(path, "-")) {
		f = fopen(path, append ? "ab" : "wb");
		if (!f) {
			error_set(&err, ERROR_IO, "cannot write '%s': %s", path,
				  strerror(errno));
			cli_print_error(ctx, &err);
			return CLI_ERROR;
		}
	}
	/* A full disk or a closed pipe is an error, not an empty success. */
	bad = fwrite(b->data, 1, b->len, f) != b->len;
	if (f != stdout)
		bad |= fclose(f) != 0;
	else
		bad |= fflush(stdout) != 0;
	if (bad && f == stdout) {
		error_set(&err, ERROR_IO, "cannot write the output: %s",
			  strerror(errno));
		cli_print_error(ctx, &err);
		return CLI_ERROR;
	}
	if (bad) {
		error_set(&err, ERROR_IO, "cannot write '%s': %s", path,
			  strerror(errno));
		cli_print_error(ctx, &err);
		return CLI_ERROR;
	}
	return 0;
}

int
cli_print_json(const struct cli_ctx *ctx, json_t *doc, size_t flags)
{
	char *text = doc ? json_dumps(doc, flags | JSON_SORT_KEYS) : NULL;
	struct error err;
	int rc = 0;

	json_decref(doc);
	if (!text) {
		error_init(&err);
		error_set(&err, ERROR_NOMEM, "cannot render the JSON output: "
			  "out of memory");
		return cli_fail(ctx, &err);
	}
	if (fputs(text, stdout) < 0 || fputc('\n', stdout) == EOF ||
	    fflush(stdout)) {
		error_init(&err);
		error_set(&err, ERROR_IO, "cannot write the output: %s",
			  strerror(errno));
		rc = cli_fail(ctx, &err);
	}
	free(text);
	return rc;
}

/*
 * How the working tree's ripple.yml stands to the one committed at
 * `commit`: 0 the same (or no file on disk, or it cannot be told), 1
 * edited, 2 the commit has none.
 */
static int
rules_vs_commit(struct graph_repo *repo, const struct graph_oid *commit)
{
	struct buf committed, disk;
	struct error err;
	int rc, state = 0;

	error_init(&err);
	buf_init(&committed, 0);
	buf_init(&disk, 0);
	if (rules_drift_read_dir((void *)graph_repo_root(repo), "ripple.yml",
				 &disk, &err))
		goto done;
	rc = graph_repo_read_blob(repo, commit, "ripple.yml", &committed,
				  &err);
	if (rc == ERROR_NOT_FOUND)
		state = 2;
	else if (!rc && (committed.len != disk.len ||
			 memcmp(committed.data, disk.data, disk.len)))
		state = 1;
done:
	buf_release(&committed);
	buf_release(&disk);
	return state;
}

/*
 * `ripple check` reads the working tree's ripple.yml, plans read the
 * commit's: say so when they differ, so an uncommitted edit is not
 * silently ignored.
 */
static void
note_uncommitted_rules(const struct cli_ctx *ctx, struct graph_repo *repo,
		       const struct eval *head)
{
	if (rules_vs_commit(repo, &head->commit) == 1)
		cli_say(ctx, "note", "ripple.yml has uncommitted changes; "
			"this uses the rules of commit %.9s (--worktree reads "
			"the working tree's)", head->commit_hex);
}

void
cli_note_checked_rules(const struct cli_ctx *ctx)
{
	struct graph_repo *repo = NULL;
	struct graph_oid head;
	struct error err;
	char hex[GRAPH_OID_HEX];
	int state;

	error_init(&err);
	if (graph_repo_open(ctx->dir, &repo, &err) ||
	    graph_repo_is_bare(repo) ||
	    graph_repo_resolve(repo, "HEAD", &head, &err))
		goto done;	/* no commit to differ from */
	graph_oid_hex(&head, hex);
	state = rules_vs_commit(repo, &head);
	if (state == 1)
		cli_say(ctx, "note", "ripple.yml has uncommitted changes; "
			"this checks the working tree's, plan and run read "
			"the rules of commit %.9s (HEAD) unless --worktree",
			hex);
	else if (state == 2)
		cli_say(ctx, "note", "ripple.yml is not in commit %.9s "
			"(HEAD): plan and run read the rules of the commit; "
			"commit it, or plan --worktree", hex);
done:
	graph_repo_close(repo);
}

int
cli_job_count(const struct cli_ctx *ctx, const char *cmd, long given,
	      size_t *out)
{
	const char *env = getenv("RIPPLE_JOBS");
	char *end;
	long v;

	*out = given > 0 ? (size_t)given : host_cpus();
	if (given > 0 || !env || !env[0])
		return 0;
	errno = 0;
	v = strtol(env, &end, 10);
	if (errno || *end || v <= 0 || v > 4096)
		return cli_usage_error(ctx, cmd, "RIPPLE_JOBS takes a number "
				       "from 1 to 4096, not '%s'", env);
	*out = (size_t)v;
	return 0;
}

int
cli_planner(const struct cli_ctx *ctx, struct graph_repo *repo,
	    struct cache *cache, const struct planner_options *po,
	    struct planner **out)
{
	struct planner_options o = *po;
	struct graph_limits limits;
	const char *full;
	struct error_list errors;
	struct error err;
	size_t i;
	int rc;

	if (!o.jobs && cli_job_count(ctx, ctx->cmd ? ctx->cmd : "plan", 0,
				     &o.jobs))
		return CLI_USAGE;
	error_init(&err);
	error_list_init(&errors, 50);
	if (!o.limits) {
		cli_graph_limits(ctx, &limits);
		o.limits = &limits;
	}
	/* The slow reference path, for checking the fast ones against it
	 * (docs/performance.md): no source-key memo. */
	full = getenv("RIPPLE_FULL_WALK");
	if (full && full[0] && strcmp(full, "0"))
		o.full_walk = 1;
	rc = planner_run(repo, cache, &o, &errors, out, &err);
	/* The gate judges a commit: it refuses --worktree, so it never
	 * suggests it (issue 25). */
	if (rc && ctx->cmd && !strcmp(ctx->cmd, "gate") &&
	    strstr(err.hint, "--worktree"))
		snprintf(err.hint, sizeof(err.hint), "the gate reads the rules "
			 "of the commit: commit ripple.yml, or pass --rules "
			 "FILE");
	if (rc) {
		if (errors.n)
			for (i = 0; i < errors.n; i++)
				cli_print_error(ctx, &errors.items[i]);
		else
			cli_print_error(ctx, &err);
		rc = cli_exit_for(rc);
	}
	error_list_release(&errors);
	/* Only the checked-out commit has a working tree to differ from. */
	if (!rc && !po->worktree && !po->rules_file &&
	    (!po->head || !strcmp(po->head, "HEAD")))
		note_uncommitted_rules(ctx, repo, (*out)->head);
	return rc;
}
