/*
 * The remote cache for the commands that use one (plan, why, jobs, gate,
 * run, release, fetch): opening the client and the plans' index from the
 * global options, printing its faults as warnings, the ref a command works
 * for (trust), and the one summary line of what the cache served.
 */
#include "engine/cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "cache/remote.h"
#include "engine/plan/remote.h"
#include "graph/repo.h"
#include "base/banned.h"

/*
 * Transfers at once: RIPPLE_REMOTE_PARALLEL (1 to 256), else 32. A plan's
 * lookups are hundreds of small requests; waves of 32 instead of the
 * client's default 8 cut a 500-node plan's lookups by half on loopback.
 */
static unsigned
transfers_at_once(void)
{
	const char *v = getenv("RIPPLE_REMOTE_PARALLEL");
	long n = v && v[0] ? strtol(v, NULL, 10) : 32;

	return n >= 1 && n <= 256 ? (unsigned)n : 32;
}

static void
warn(void *payload, const struct error *e)
{
	cli_print_warning(payload, e);
}

int
cli_remote_open(const struct cli_ctx *ctx, struct cli_remote *out)
{
	struct remote_options ro = REMOTE_OPTIONS_INIT;
	struct plan_remote_options po;
	struct error err;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!ctx->remote_url || !ctx->remote_url[0])
		return 0;
	error_init(&err);
	remote_options_from_env(&ro);
	rc = remote_options_limits_from_env(&ro, &err);
	if (!rc && ctx->remote_timeout)
		rc = remote_options_timeout(&ro, ctx->remote_timeout, &err);
	if (!rc && ctx->remote_low_speed)
		rc = remote_options_low_speed(&ro, ctx->remote_low_speed, &err);
	if (rc)
		return cli_fail(ctx, &err);
	ro.cancel = cli_stop_flag();
	ro.read_only = ctx->remote_read_only;
	ro.max_parallel = transfers_at_once();
	rc = remote_open(ctx->remote_url, &ro, &out->client, &err);
	if (rc) {
		error_hint(&err, "--remote-cache (or RIPPLE_REMOTE_CACHE) takes "
			   "http[s]://HOST[:PORT][/PREFIX]; credentials come "
			   "from RIPPLE_REMOTE_CACHE_HEADER or RIPPLE_REMOTE_NETRC");
		return cli_fail(ctx, &err);
	}
	memset(&po, 0, sizeof(po));
	po.required = ctx->remote_required;
	po.warn = warn;
	po.payload = (void *)ctx;
	rc = plan_remote_new(out->client, &po, &out->index, &err);
	if (rc) {
		cli_remote_close(out);
		return cli_fail(ctx, &err);
	}
	return 0;
}

void
cli_remote_close(struct cli_remote *r)
{
	plan_remote_free(r->index);
	remote_close(r->client);
	r->index = NULL;
	r->client = NULL;
}

int
cli_remote_ref(const struct cli_ctx *ctx, struct graph_repo *repo,
	       const char *ref, const char *tag, char *out, size_t n)
{
	const char *env = getenv("RIPPLE_REF");
	struct error err;
	int len = 0;

	if (ref && ref[0])
		len = snprintf(out, n, "%s", ref);
	else if (env && env[0])
		len = snprintf(out, n, "%s", env);
	else if (tag && tag[0])
		len = snprintf(out, n, "refs/tags/%s", tag);
	else if (!cli_github_ref(out, n) &&
		 !graph_repo_head_ref(repo, out, n))
		out[0] = '\0';
	if (len >= 0 && (size_t)len < n)
		return 0;
	out[0] = '\0';
	error_init(&err);
	error_set(&err, ERROR_INVALID, "the ref to work for is %d bytes long, "
		  "more than %zu", len, n - 1);
	error_hint(&err, "a ref cut short would be judged as another ref; "
		   "name a shorter one with --ref");
	return cli_fail(ctx, &err);
}

void
cli_remote_default_branch(struct graph_repo *repo, char *out, size_t n)
{
	if (!cli_github_default_branch(out, n) &&
	    !graph_repo_default_branch(repo, out, n))
		out[0] = '\0';
}

void
cli_remote_summary(const struct cli_remote *r)
{
	const struct plan_remote_stats *st;

	if (!r->index)
		return;
	st = plan_remote_stats(r->index);
	fprintf(stderr, "remote cache %s: %zu looked up, %zu found",
		plan_remote_url(r->index), st->asked, st->hits);
	if (st->untrusted)
		fprintf(stderr, ", %zu not trusted", st->untrusted);
	if (st->faults)
		fprintf(stderr, ", %zu faults", st->faults);
	fprintf(stderr, "; fetched %zu files, %lld bytes", st->fetched_files,
		(long long)st->fetched_bytes);
	fprintf(stderr, "; published %zu nodes%s\n", st->uploaded,
		remote_read_only(r->client) ? " (read-only)"
		: plan_remote_writes_refused(r->index)
		? " (read-only: the server refused a write)"
		: plan_remote_kept_local(r->index)
		? " (read-only: committed links checked out as files)"
		: !plan_remote_own_ref(r->index) ? " (read-only: no ref)" : "");
}
