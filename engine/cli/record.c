/*
 * `ripple record`: a CI job that ran nodes outside ripple records their
 * outcome (key at the run's commit, output digest of the artifacts, key
 * and input manifests), creating the run on first use; `--finish` closes
 * a run with its status, which is what baselines look for.
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fnmatch.h"
#include "base/mem.h"
#include "base/strv.h"
#include "cache/cache.h"
#include "engine/plan/eval.h"
#include "engine/plan/record.h"
#include "engine/plan/versions.h"
#include "engine/run/conda.h"
#include "engine/run/wheel.h"
#include "graph/distfile.h"
#include "graph/graph.h"
#include "graph/pep440.h"
#include "graph/repo.h"
#include "rules/rules.h"
#include "base/banned.h"

static const char record_help[] =
	"usage: ripple record --run ID --node ID|GLOB --status ok|failed|timeout\n"
	"                     [--artifact PATH]... [--meta K=V]... [--version V]\n"
	"                     [--duration-ms N] [--rev REV] [--ref REF] [--tag TAG]\n"
	"                     [--cache PATH] [--rules FILE]\n"
	"       ripple record --run ID --finish ok|failed|interrupted [--cache PATH]\n"
	"\n"
	"Record the outcome of nodes run outside ripple into run ID (made with\n"
	"its first record, at --rev, default HEAD, with --ref and --tag; a\n"
	"call that fails leaves no run; jobs may record into one ID at once).\n"
	"The output digest is the XXH3-128 of the artifact files. A glob\n"
	"records every node it matches with the same outcome; --node may\n"
	"repeat. --finish sets the run's final status: plans look for\n"
	"successful runs at the merge base.\n"
	"\n"
	"The version recorded is the one the rule gives the node (its\n"
	"version:, ${root.version} at the run's commit), as `ripple run`\n"
	"records it; --version is needed only where the rule says none.\n"
	"Each artifact must say the same: a wheel's METADATA Version (its\n"
	"Version and Requires-Dist are recorded as metadata), a conda\n"
	"package's info/index.json version (.conda or .tar.bz2, read with\n"
	"libarchive; the file must be named NAME-VERSION-BUILD from it), an\n"
	"sdist's file name; a mismatch, or a --version the rule contradicts,\n"
	"records nothing.\n";

enum {
	OPT_RUN = 256, OPT_NODE, OPT_STATUS, OPT_ARTIFACT, OPT_META,
	OPT_VERSION, OPT_DURATION, OPT_REV, OPT_REF, OPT_TAG, OPT_CACHE,
	OPT_RULES, OPT_FINISH,
};

static int
fail(const struct cli_ctx *ctx, const struct error *err)
{
	cli_print_error(ctx, err);
	return cli_exit_for(err->code);
}

/*
 * The commit of run `id`: the stored run's, which --rev must agree with,
 * or --rev's (default HEAD) for a run not made yet. The run itself is made
 * (or joined, if another process makes it meanwhile) with the first record,
 * in that record's transaction: a call that records nothing leaves no run.
 */
static int
run_commit(const struct cli_ctx *ctx, struct cache *c, struct graph_repo *repo,
	   const char *id, const char *rev, char *commit, size_t n)
{
	struct cache_run run;
	struct graph_oid oid;
	char hex[GRAPH_OID_HEX];
	struct error err;
	int rc;

	error_init(&err);
	rc = cache_run_get(c, id, &run, &err);
	if (rc && rc != ERROR_NOT_FOUND)
		return fail(ctx, &err);
	if (rc == 0)
		snprintf(commit, n, "%s", run.commit ? run.commit : "");
	cache_run_release(&run);
	if (rc == 0 && !rev)
		return 0;
	error_init(&err);
	if (graph_repo_resolve(repo, rev ? rev : "HEAD", &oid, &err))
		return fail(ctx, &err);
	graph_oid_hex(&oid, hex);
	if (rc == ERROR_NOT_FOUND) {
		snprintf(commit, n, "%s", hex);
		return 0;
	}
	if (strcmp(hex, commit)) {
		error_set(&err, ERROR_CONFLICT, "run '%s' is at commit %.9s, "
			  "not %.9s", id, commit, hex);
		error_hint(&err, "record into a new run for another commit");
		return fail(ctx, &err);
	}
	return 0;
}

/* Equal as PEP 440 versions (as text when either is no version). */
static int
same_version(const char *a, const char *b)
{
	struct pep440 x, y;

	if (pep440_parse(a, &x, NULL) || pep440_parse(b, &y, NULL))
		return !strcmp(a, b);
	return !pep440_compare(&x, &y) && !strcmp(x.local, y.local);
}

/* The value of "KEY=V" in meta, or NULL. */
static const char *
meta_value(const struct strv *meta, const char *key)
{
	size_t i, n = strlen(key);

	for (i = 0; i < meta->n; i++)
		if (!strncmp(meta->v[i], key, n) && meta->v[i][n] == '=')
			return meta->v[i] + n + 1;
	return NULL;
}

/*
 * A conda package's version from its info/index.json (issue 25), into ver:
 * the package must be named as conda-build names it from index.json's
 * name, version and build. A file that is no archive (a stub build's
 * placeholder) leaves the name's version.
 */
static int
conda_version(const char *full, const char *path, char *ver, size_t n,
	      const char **what, struct error *err)
{
	struct run_conda_index ix;
	const char *base = strrchr(path, '/');
	const char *ext = strlen(path) > 6 &&
				  !strcmp(path + strlen(path) - 6, ".conda")
			  ? ".conda" : ".tar.bz2";
	char want[1024];
	int rc;

	base = base ? base + 1 : path;
	rc = run_conda_index_read(full, &ix, err);
	if (rc == 1)
		return 0;
	if (!rc)
		rc = run_conda_file_name(&ix, ext, want, sizeof(want), err);
	if (rc)
		return rc;
	if (strcmp(base, want)) {
		rc = error_set(err, ERROR_CONFLICT, "conda package '%s' is "
			       "named version %s but its info/index.json says "
			       "name '%s', version '%s', build '%s' (named "
			       "'%s')", path, ver, ix.name, ix.version,
			       ix.build, want);
		error_hint(err, "record the package the build wrote, under "
			   "the name conda-build gives it");
		return rc;
	}
	snprintf(ver, n, "%s", ix.version);
	*what = "info/index.json version";
	return 0;
}

/*
 * What artifact `path` says its version is (`what` names the source), into
 * ver: the METADATA of a wheel that is a zip (its Version and Requires-Dist
 * go to *meta for the first wheel), else the file name's. "" when it says
 * nothing. A wheel whose name and METADATA disagree is an error.
 */
static int
artifact_version(const char *root, const char *path, int first_wheel,
		 struct strv *meta, char *ver, size_t n, const char **what,
		 struct error *err)
{
	struct strv wm = STRV_INIT;
	char full[4096];
	const char *mv;
	size_t i;
	int kind, rc = 0;

	kind = graph_dist_file_version(path, ver, n);
	*what = "file name";
	snprintf(full, sizeof(full), "%s%s%s", path[0] == '/' ? "" : root,
		 path[0] == '/' ? "" : "/", path);
	if (kind == GRAPH_DIST_CONDA)
		return conda_version(full, path, ver, n, what, err);
	if (kind != GRAPH_DIST_WHEEL)	/* a bad name: `release` says so */
		return 0;
	rc = run_wheel_metadata(full, &wm, err);
	if (rc == 1) {
		rc = 0;	/* no zip: the name speaks */
		goto done;
	}
	if (rc)
		goto done;
	mv = meta_value(&wm, "Version");
	if (mv && !same_version(mv, ver)) {
		rc = error_set(err, ERROR_CONFLICT, "wheel '%s' is named "
			       "version %s but its METADATA says Version %s",
			       path, ver, mv);
		goto done;
	}
	if (mv) {
		snprintf(ver, n, "%s", mv);
		*what = "METADATA Version";
	}
	for (i = 0; first_wheel && i < wm.n && !rc; i++)
		rc = strv_push(meta, wm.v[i], err);
done:
	strv_release(&wm);
	return rc;
}

/*
 * The version to record for node n (issue 25): --version, the rule's
 * (${root.version} at the commit) or the artifacts', which must all agree;
 * into *ver ("" for none). The first wheel's METADATA fields go to *meta.
 */
static int
node_version(const char *root, const struct graph_node *n,
	     const struct rules_kv *versions, size_t n_v, const char *opt,
	     const struct strv *arts, struct strv *meta, struct buf *ver,
	     struct error *err)
{
	struct buf rule = BUF_INIT;
	char av[256];
	const char *what, *want_from = NULL;
	size_t i;
	int wheel = 0, rc;

	rc = plan_node_version(n, versions, n_v, &rule, err);
	if (rc)
		goto done;
	if (opt && rule.len && !same_version(opt, rule.data)) {
		rc = error_set(err, ERROR_CONFLICT, "--version %s is not the "
			       "version the rule gives the node: %s", opt,
			       rule.data);
		error_hint(err, "leave --version out: the rule's version is "
			   "recorded");
		goto done;
	}
	if (opt) {
		rc = buf_addf(ver, err, "%s", opt);
		want_from = "--version";
	} else if (rule.len) {
		rc = buf_addf(ver, err, "%s", rule.data);
		want_from = "the rule";
	}
	for (i = 0; !rc && i < arts->n; i++) {
		int is_wheel = graph_dist_file_version(arts->v[i], av,
						       sizeof(av)) ==
			       GRAPH_DIST_WHEEL;

		rc = artifact_version(root, arts->v[i], is_wheel && !wheel,
				      meta, av, sizeof(av), &what, err);
		wheel |= is_wheel;
		if (rc || !av[0])
			continue;
		if (!ver->len) {
			rc = buf_addf(ver, err, "%s", av);
			want_from = arts->v[i];
		} else if (!same_version(av, ver->data)) {
			rc = error_set(err, ERROR_CONFLICT, "artifact '%s' is "
				       "version %s (its %s), but %s says %s",
				       arts->v[i], av, what, want_from,
				       ver->data);
			error_hint(err, "record the files built at this "
				   "commit, or fix the version the build "
				   "stamps");
		}
	}
done:
	buf_release(&rule);
	return rc;
}

/* Record node i with its version and the artifacts' metadata. */
static int
record_one(struct cache *c, struct eval *ev, const char *run, size_t i,
	   struct record_outcome *o, const struct strv *arts,
	   const struct strv *meta, const char *opt,
	   const struct rules_kv *versions, size_t n_v, struct error *err)
{
	struct strv m = STRV_INIT;
	struct buf ver = BUF_INIT;
	size_t k;
	int rc = 0;

	for (k = 0; k < meta->n && !rc; k++)
		rc = strv_push(&m, meta->v[k], err);
	/* Its output groups' digests, as a run records them. */
	if (!rc && !strcmp(o->status, "ok"))
		rc = record_group_meta(graph_repo_root(ev->repo),
				       &ev->graph->nodes[i], arts, &m, err);
	if (!rc && !strcmp(o->status, "ok"))
		rc = node_version(graph_repo_root(ev->repo),
				  &ev->graph->nodes[i], versions, n_v, opt,
				  arts, &m, &ver, err);
	else if (!rc && opt)
		rc = buf_addf(&ver, err, "%s", opt);
	if (!rc) {
		o->meta = (const char *const *)m.v;
		o->n_meta = m.n;
		o->version = ver.len ? ver.data : NULL;
		rc = record_node(c, ev, run, i, o, err);
	}
	if (rc)
		error_node(err, ev->graph->nodes[i].id);
	o->meta = NULL;
	o->version = NULL;
	buf_release(&ver);
	strv_release(&m);
	return rc;
}

int
cli_record(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, OPT_RUN },
		{ "node", required_argument, NULL, OPT_NODE },
		{ "status", required_argument, NULL, OPT_STATUS },
		{ "artifact", required_argument, NULL, OPT_ARTIFACT },
		{ "meta", required_argument, NULL, OPT_META },
		{ "version", required_argument, NULL, OPT_VERSION },
		{ "duration-ms", required_argument, NULL, OPT_DURATION },
		{ "rev", required_argument, NULL, OPT_REV },
		{ "ref", required_argument, NULL, OPT_REF },
		{ "tag", required_argument, NULL, OPT_TAG },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "rules", required_argument, NULL, OPT_RULES },
		{ "finish", required_argument, NULL, OPT_FINISH },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *run = NULL, *status = NULL, *version = NULL;
	struct strv nodes = STRV_INIT;
	const char *rev = NULL, *ref = NULL, *tag = NULL, *cache_opt = NULL;
	const char *rules = NULL, *finish = NULL;
	struct strv artifacts = STRV_INIT, meta = STRV_INIT;
	struct graph_repo *repo = NULL;
	struct cache *c = NULL;
	struct eval *ev = NULL;
	struct record_outcome o;
	struct cache_run made;
	struct rules_kv *versions = NULL;
	struct arena varena;
	size_t n_versions = 0;
	char path[4096], commit[GRAPH_OID_HEX] = "";
	struct error err;
	long duration = 0;
	size_t i, hits = 0;
	int ch, rc = 0;

	error_init(&err);
	arena_init(&varena);
	while ((ch = cli_getopt(ctx, "record", argc, argv, "h", opts)) != -1) {
		switch (ch) {
		case OPT_RUN: run = optarg; break;
		case OPT_NODE: strv_push(&nodes, optarg, NULL); break;
		case OPT_STATUS: status = optarg; break;
		case OPT_ARTIFACT: strv_push(&artifacts, optarg, NULL); break;
		case OPT_META: strv_push(&meta, optarg, NULL); break;
		case OPT_VERSION: version = optarg; break;
		case OPT_DURATION: duration = strtol(optarg, NULL, 10); break;
		case OPT_REV: rev = optarg; break;
		case OPT_REF: ref = optarg; break;
		case OPT_TAG: tag = optarg; break;
		case OPT_CACHE: cache_opt = optarg; break;
		case OPT_RULES: rules = optarg; break;
		case OPT_FINISH: finish = optarg; break;
		case 'h':
			fputs(record_help, stdout);
			rc = CLI_OK;
			goto done;
		default:
			rc = CLI_USAGE;
			goto done;
		}
	}
	if (!run || (!finish && (!nodes.n || !status))) {
		rc = cli_usage_error(ctx, "record", "--run and either --finish "
				     "or --node with --status are needed");
		goto done;
	}
	if (cache_run_id_check(run, &err)) {
		rc = fail(ctx, &err);
		goto done;
	}
	rc = cli_cache_path(ctx, cache_opt, path, sizeof(path));
	if (rc) {
		rc = cli_exit_for(rc);
		goto done;
	}
	rc = cache_open(path, CACHE_OPEN_CREATE, &c, &err);
	if (rc) {
		rc = fail(ctx, &err);
		goto done;
	}
	if (finish) {
		enum cache_run_status st;

		rc = cache_run_status_parse(finish, &st, &err);
		if (!rc)
			rc = cache_run_finish(c, run, st, cache_clock_ms(), &err);
		if (rc)
			rc = fail(ctx, &err);
		goto done;
	}
	rc = graph_repo_open(ctx->dir, &repo, &err);
	if (rc) {
		rc = fail(ctx, &err);
		goto done;
	}
	rc = run_commit(ctx, c, repo, run, rev, commit, sizeof(commit));
	if (rc)
		goto done;
	rc = cli_open_eval(ctx, commit, 0, rules, &repo, &ev);
	if (rc)
		goto done;
	eval_set_memo(ev, c, 1);
	versions = mem_calloc(ev->rules->n_roots + 1, sizeof(*versions));
	if (!versions) {
		error_set(&err, ERROR_NOMEM, "out of memory");
		rc = fail(ctx, &err);
		goto done;
	}
	if (plan_root_versions(repo, ev->rules, commit, 0, 0, &varena,
			       versions, &n_versions, &err)) {
		rc = fail(ctx, &err);
		goto done;
	}
	memset(&o, 0, sizeof(o));
	o.status = status;
	o.artifacts = (const char *const *)artifacts.v;
	o.n_artifacts = artifacts.n;
	o.meta = (const char *const *)meta.v;
	o.n_meta = meta.n;
	o.version = version;
	o.duration_ms = duration;
	memset(&made, 0, sizeof(made));
	made.id = (char *)run;
	made.commit = commit;
	made.ref = (char *)ref;
	made.tag = (char *)tag;
	made.status = CACHE_RUN_STATUS_RUNNING;
	made.started_ms = cache_clock_ms();
	o.run = &made;
	for (i = 0; i < ev->graph->n_nodes; i++) {
		const struct graph_node *n = &ev->graph->nodes[i];
		size_t k;

		for (k = 0; k < nodes.n; k++)
			if (!strcmp(n->id, nodes.v[k]) ||
			    fnmatch_match(nodes.v[k], n->id))
				break;
		if (k == nodes.n)
			continue;
		hits++;
		rc = record_one(c, ev, run, i, &o, &artifacts, &meta, version,
				versions, n_versions, &err);
		if (rc) {
			rc = fail(ctx, &err);
			goto done;
		}
		printf("recorded %s %s in run %s\n", n->id, status, run);
	}
	if (!hits) {
		error_set(&err, ERROR_NOT_FOUND, "no node matches '%s'%s at "
			  "commit %.9s", nodes.v[0], nodes.n > 1 ? " or the "
			  "other --node globs" : "", commit);
		error_hint(&err, "`ripple graph --rev %.9s` lists the node ids",
			   commit);
		rc = fail(ctx, &err);
	}
done:
	mem_free(versions);
	arena_release(&varena);
	eval_free(ev);
	graph_repo_close(repo);
	cache_close(c);
	strv_release(&artifacts);
	strv_release(&meta);
	strv_release(&nodes);
	return rc;
}
