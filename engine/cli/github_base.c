/*
 * The base commit CI compares with, derived from the event that started
 * the workflow (`--base auto` on plan, jobs and run; `ripple base` shows
 * it), so a workflow needs no glue for it:
 *
 * - pull_request, pull_request_target: the target branch
 *   (GITHUB_BASE_REF, as origin/BRANCH after a full checkout, else the
 *   event's pull_request.base.sha); the planner takes the merge base.
 * - merge_group: the queue's base (merge_group.base_sha).
 * - a push to a bot-made `pull-request/N` branch (NVIDIA's copy-pr-bot
 *   flow, where the event says nothing about the target): the target
 *   branch from RIPPLE_TARGET_BRANCH, else the repository's default branch
 *   (event repository.default_branch, else main).
 * - a push that creates a branch (`before` all zeros): the default branch.
 * - any other push: the previous record-complete commit: starting at
 *   `before` when it is an ancestor of the head (else, after a force-push,
 *   at the merge base of `before` and the head), the first commit along
 *   first parents, at most WALK_MAX of them, whose target has an ok record
 *   of every build and test node (what `ripple gate` asks). A tag push
 *   starts at the tagged commit itself (main's CI usually recorded it).
 * - outside GitHub Actions (no GITHUB_EVENT_NAME): as a push from HEAD~1.
 *
 * The event is read from GITHUB_EVENT_PATH (JSON, as the runner writes it).
 * An explicit `--base REV` always wins; this is only `auto`.
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "cache/cache.h"
#include "engine/plan/eval.h"
#include "engine/plan/plan.h"
#include "engine/plan/planner.h"
#include "graph/graph.h"
#include "graph/repo.h"
#include "base/banned.h"

/* First-parent commits a push's base walk looks at, at most. */
#define WALK_MAX 32

static const char zeros[] = "0000000000000000000000000000000000000000";

/* The event's string at a path of object keys ("pull_request", "base",
 * "sha"), or NULL. */
static const char *
event_str(json_t *ev, const char *a, const char *b, const char *c)
{
	json_t *v = json_object_get(ev, a);

	if (b)
		v = json_object_get(v, b);
	if (c)
		v = json_object_get(v, c);
	return json_string_value(v);
}

/* A branch name as a revision: origin/BRANCH, else BRANCH. */
static int
branch_rev(struct graph_repo *repo, const char *branch, char *hex,
	   struct error *err)
{
	struct graph_oid oid;
	char rev[1200];

	snprintf(rev, sizeof(rev), "refs/remotes/origin/%s", branch);
	if (graph_repo_resolve(repo, rev, &oid, err)) {
		snprintf(rev, sizeof(rev), "refs/heads/%s", branch);
		error_init(err);
		if (graph_repo_resolve(repo, rev, &oid, err)) {
			error_init(err);
			error_set(err, ERROR_NOT_FOUND, "the target branch "
				  "'%s' is not here (neither origin/%s nor "
				  "a local branch)", branch, branch);
			error_hint(err, "check out with full history "
				   "(actions/checkout with fetch-depth: 0), "
				   "or pass --base REV");
			return ERROR_NOT_FOUND;
		}
	}
	graph_oid_hex(&oid, hex);
	return 0;
}

/*
 * 1 when every build and test node of the targets at `hex` has an ok
 * record of its key (the gate's question), 0 when not, -1 when the rules
 * do not plan there (printed; the walk stops: older commits will not do
 * better).
 */
static int
complete(const struct cli_ctx *ctx, struct graph_repo *repo,
	 struct cache *cache, const struct planner_options *po,
	 const char *hex)
{
	struct planner_options o = *po;
	struct planner *pl = NULL;
	const struct graph *g;
	size_t i;
	int rc;

	o.head = hex;
	o.worktree = 0;
	o.base = NULL;
	o.baseline_run = NULL;
	o.assume_base_built = 0;
	o.reuse = PLAN_REUSE_SCOPE_ANY;
	o.memo_write = 0;
	if (cli_planner(ctx, repo, cache, &o, &pl)) {
		planner_free(pl);
		return -1;
	}
	g = pl->head->graph;
	for (i = 0; i < g->n_nodes; i++) {
		enum plan_decision d = pl->plan->items[i].decision;
		const struct graph_node *n = &g->nodes[i];

		if (pl->plan->in_closure[i] && n->rule &&
		    (n->kind == GRAPH_NODE_ARTIFACT ||
		     n->kind == GRAPH_NODE_TEST) &&
		    (d == PLAN_BUILD || d == PLAN_TEST))
			break;
	}
	rc = i == g->n_nodes;
	planner_free(pl);
	return rc;
}

/* The previous record-complete commit from `start` along first parents. */
static int
walk(const struct cli_ctx *ctx, struct graph_repo *repo, struct cache *cache,
     const struct planner_options *po, const char *start,
     struct cli_base *out, struct error *err)
{
	struct graph_oid oid;
	char rev[128], hex[GRAPH_OID_HEX];
	int k, rc;

	for (k = 0; k < WALK_MAX; k++) {
		snprintf(rev, sizeof(rev), "%s~%d", start, k);
		if (graph_repo_resolve(repo, rev, &oid, err)) {
			error_init(err);
			break;		/* the root commit, or a shallow end */
		}
		graph_oid_hex(&oid, hex);
		rc = complete(ctx, repo, cache, po, hex);
		if (rc < 0)
			break;
		if (rc) {
			snprintf(out->hex, sizeof(out->hex), "%s", hex);
			snprintf(out->why + strlen(out->why),
				 sizeof(out->why) - strlen(out->why),
				 ": %.12s, the first record-complete commit "
				 "%d back", hex, k);
			return 0;
		}
	}
	/* None complete: the start itself (its records are partial); no
	 * start (the first commit): no base, everything is new. */
	if (graph_repo_resolve(repo, start, &oid, err)) {
		error_init(err);
		out->hex[0] = '\0';
		snprintf(out->why + strlen(out->why), sizeof(out->why) -
			 strlen(out->why), ": none (%s is not a commit here: "
			 "the first commit)", start);
		return 0;
	}
	graph_oid_hex(&oid, out->hex);
	snprintf(out->why + strlen(out->why), sizeof(out->why) -
		 strlen(out->why), ": %.12s (no record-complete commit in %d "
		 "first-parent commits)", out->hex, k);
	return 0;
}

static int
fail(const struct cli_ctx *ctx, struct error *err)
{
	return cli_fail(ctx, err);
}

int
cli_base_resolve(const struct cli_ctx *ctx, struct graph_repo *repo,
		 struct cache *cache, struct planner_options *po,
		 struct cli_base *b)
{
	int rc;

	if (!po->base || strcmp(po->base, "auto"))
		return 0;
	rc = cli_base_auto(ctx, repo, cache, po, b);
	if (rc)
		return rc;
	fprintf(stderr, "ripple: base %.12s: %s\n", b->hex[0] ? b->hex
							     : "none", b->why);
	po->base = b->hex[0] ? b->hex : NULL;
	return 0;
}

int
cli_base_auto(const struct cli_ctx *ctx, struct graph_repo *repo,
	      struct cache *cache, const struct planner_options *po,
	      struct cli_base *out)
{
	const char *event = getenv("GITHUB_EVENT_NAME");
	const char *path = getenv("GITHUB_EVENT_PATH");
	const char *ref = getenv("GITHUB_REF");
	const char *target = getenv("RIPPLE_TARGET_BRANCH");
	const char *s, *before, *def;
	struct graph_oid head, mb;
	char hex[GRAPH_OID_HEX];
	json_t *ev = NULL;
	json_error_t jerr;
	struct error err;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	error_init(&err);
	if (!event || !*event) {
		snprintf(out->why, sizeof(out->why), "not in GitHub Actions: "
			 "the previous record-complete commit from HEAD~1");
		return walk(ctx, repo, cache, po, "HEAD~1", out, &err);
	}
	if (path && *path) {
		ev = json_load_file(path, 0, &jerr);
		if (!ev) {
			error_set(&err, ERROR_INVALID, "GITHUB_EVENT_PATH %s: "
				  "%s (line %d)", path, jerr.text, jerr.line);
			error_hint(&err, "pass --base REV");
			return fail(ctx, &err);
		}
	}
	def = event_str(ev, "repository", "default_branch", NULL);
	if (!def || !*def)
		def = "main";
	if (!strcmp(event, "pull_request") ||
	    !strcmp(event, "pull_request_target")) {
		s = getenv("GITHUB_BASE_REF");
		if (!s || !*s)
			s = event_str(ev, "pull_request", "base", "ref");
		if (s && *s && !branch_rev(repo, s, out->hex, &err)) {
			snprintf(out->why, sizeof(out->why), "pull request "
				 "into %s: its merge base with origin/%s", s,
				 s);
			goto done;
		}
		error_init(&err);
		s = event_str(ev, "pull_request", "base", "sha");
		if (!s) {
			error_set(&err, ERROR_NOT_FOUND, "a pull_request event "
				  "without GITHUB_BASE_REF or "
				  "pull_request.base.sha");
			error_hint(&err, "pass --base REV");
			rc = fail(ctx, &err);
			goto done;
		}
		snprintf(out->hex, sizeof(out->hex), "%s", s);
		snprintf(out->why, sizeof(out->why), "pull request: the "
			 "event's base commit");
		goto done;
	}
	if (!strcmp(event, "merge_group") &&
	    (s = event_str(ev, "merge_group", "base_sha", NULL))) {
		snprintf(out->hex, sizeof(out->hex), "%s", s);
		snprintf(out->why, sizeof(out->why), "merge queue: its base");
		goto done;
	}
	if (ref && !strncmp(ref, "refs/tags/", 10)) {
		snprintf(out->why, sizeof(out->why), "tag %s: the previous "
			 "record-complete commit from the tag", ref + 10);
		rc = walk(ctx, repo, cache, po, "HEAD", out, &err);
		goto done;
	}
	if (ref && !strncmp(ref, "refs/heads/pull-request/", 24)) {
		const char *branch = target && *target ? target : def;

		rc = branch_rev(repo, branch, out->hex, &err);
		if (rc) {
			rc = fail(ctx, &err);
			goto done;
		}
		snprintf(out->why, sizeof(out->why), "bot branch %s: its merge "
			 "base with %s%s", ref + 11, branch,
			 target && *target ? " (RIPPLE_TARGET_BRANCH)" : "");
		goto done;
	}
	before = event_str(ev, "before", NULL, NULL);
	if (!strcmp(event, "push") && (!before || !strcmp(before, zeros))) {
		const char *branch = target && *target ? target : def;

		if (ref && !strcmp(ref + (strncmp(ref, "refs/heads/", 11) ? 0
					   : 11), branch)) {
			snprintf(out->why, sizeof(out->why), "first push of "
				 "%s: the previous record-complete commit from "
				 "HEAD~1", branch);
			rc = walk(ctx, repo, cache, po, "HEAD~1", out, &err);
			goto done;
		}
		rc = branch_rev(repo, branch, out->hex, &err);
		if (rc) {
			rc = fail(ctx, &err);
			goto done;
		}
		snprintf(out->why, sizeof(out->why), "new branch: its merge "
			 "base with %s", branch);
		goto done;
	}
	if (!strcmp(event, "push")) {
		struct graph_oid b;

		if (graph_repo_resolve(repo, "HEAD", &head, &err) ||
		    graph_repo_resolve(repo, before, &b, &err)) {
			/* A force-push's old commit may not be fetched. */
			error_init(&err);
			snprintf(out->why, sizeof(out->why), "push (before "
				 "%.12s is not here): the previous "
				 "record-complete commit from HEAD~1", before);
			rc = walk(ctx, repo, cache, po, "HEAD~1", out, &err);
			goto done;
		}
		graph_oid_hex(&head, hex);
		if (graph_repo_merge_base(repo, before, hex, &mb, &err)) {
			error_init(&err);
			snprintf(out->why, sizeof(out->why), "force-push "
				 "(before %.12s shares no history): the "
				 "previous record-complete commit from HEAD~1",
				 before);
			rc = walk(ctx, repo, cache, po, "HEAD~1", out, &err);
			goto done;
		}
		graph_oid_hex(&mb, hex);
		if (!memcmp(mb.id, b.id, sizeof(mb.id))) {
			snprintf(out->why, sizeof(out->why), "push from "
				 "%.12s: the previous record-complete commit",
				 before);
		} else {
			snprintf(out->why, sizeof(out->why), "force-push over "
				 "%.12s: the previous record-complete commit "
				 "from their merge base", before);
		}
		rc = walk(ctx, repo, cache, po, hex, out, &err);
		goto done;
	}
	snprintf(out->why, sizeof(out->why), "%s event: the previous "
		 "record-complete commit from HEAD~1", event);
	rc = walk(ctx, repo, cache, po, "HEAD~1", out, &err);
done:
	json_decref(ev);
	return rc;
}

static const char base_help[] =
	"usage: ripple base [TARGET...] [--rules FILE] [--cache PATH] [--json]\n"
	"\n"
	"The base commit CI compares with, as `--base auto` derives it from\n"
	"the GitHub Actions event (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH,\n"
	"GITHUB_REF, GITHUB_BASE_REF): the target branch of a pull request or\n"
	"of a bot-made pull-request/N branch (RIPPLE_TARGET_BRANCH, else the\n"
	"default branch), the default branch for a new branch, else the\n"
	"previous commit whose TARGET (default: every artifact and test) has\n"
	"an ok record of every node, from the push's `before` (after a\n"
	"force-push, from its merge base with the head). Prints the commit and\n"
	"why. docs/github.md.\n"
	"\n"
	"Exit 0; 2 bad arguments or rules; 3 internal or I/O errors.\n";

int
cli_base(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "rules", required_argument, NULL, 'r' },
		{ "cache", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct planner_options po;
	struct graph_repo *repo = NULL;
	struct cache *cache = NULL;
	struct cli_remote rem = { NULL, NULL };
	const char *cache_opt = NULL;
	struct cli_base b;
	struct error err;
	char ref[1024], dbranch[1024];
	int c, json = 0, rc;

	memset(&po, 0, sizeof(po));
	po.reuse = -1;
	while ((c = cli_getopt(ctx, "base", argc, argv, "h", opts)) != -1) {
		switch (c) {
		case 'r': po.rules_file = optarg; break;
		case 'c': cache_opt = optarg; break;
		case 'j': json = 1; break;
		case 'h':
			fputs(base_help, stdout);
			return CLI_OK;
		default:
			return CLI_USAGE;
		}
	}
	po.targets = (const char *const *)argv + optind;
	po.n_targets = (size_t)(argc - optind);
	error_init(&err);
	rc = graph_repo_open(ctx->dir, &repo, &err);
	if (rc)
		return cli_fail(ctx, &err);
	rc = cli_cache_open_existing(ctx, cache_opt, &cache);
	if (!rc)
		rc = cli_remote_open(ctx, &rem);
	if (rc)
		goto done;
	po.remote = rem.index;
	rc = cli_remote_ref(ctx, repo, NULL, NULL, ref, sizeof(ref));
	if (rc)
		goto done;
	po.ref = ref[0] ? ref : NULL;
	cli_remote_default_branch(repo, dbranch, sizeof(dbranch));
	po.default_branch = dbranch[0] ? dbranch : NULL;
	rc = cli_base_auto(ctx, repo, cache, &po, &b);
	if (rc)
		goto done;
	if (json) {
		json_t *doc = json_object();
		char *s;

		json_object_set_new(doc, "schema",
				    json_string("ripple-base-v1"));
		json_object_set_new(doc, "base", b.hex[0] ? json_string(b.hex)
							  : json_null());
		json_object_set_new(doc, "why", json_string(b.why));
		s = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
		json_decref(doc);
		if (s)
			printf("%s\n", s);
		free(s);
	} else {
		printf("%s  %s\n", b.hex[0] ? b.hex : "none", b.why);
	}
done:
	cli_remote_close(&rem);
	cache_close(cache);
	graph_repo_close(repo);
	return rc;
}
