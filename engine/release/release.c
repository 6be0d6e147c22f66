/*
 * Release evaluation: resolve the tag, read the tagged rules, find the
 * release line that claims the tag and the CI run of exactly that tag and
 * commit (ci_run.c), artifacts and versions (artifacts.c), notes and
 * declared metadata (notes.c). Those checks record what they find through
 * problem.c, the lowest file here. Read-only throughout; never prints.
 */
#include "engine/release/release.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "engine/plan/eval.h"
#include "engine/release/internal.h"
#include "graph/graph.h"
#include "graph/version.h"
#include "rules/rules.h"
#include "base/banned.h"

static const char *const check_names[RELEASE_CHECK_COUNT] = {
	"tag-family", "tag-spelling", "tag-commit", "rules", "run",
	"artifacts", "versions", "notes", "metadata",
};

const char *
release_status_name(enum release_status s)
{
	switch (s) {
	case RELEASE_STATUS_OK: return "ok";
	case RELEASE_STATUS_FAIL: return "FAIL";
	case RELEASE_STATUS_SKIP: return "skip";
	}
	return "?";
}

/* Skip every check from `from` on that is not yet decided. */
static void
skip_rest(struct release_ctx *x, const enum release_check_id *ids, size_t n,
	  const char *why)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!x->r->checks[ids[i]].detail)
			release_set(x, ids[i], RELEASE_STATUS_SKIP, "%s", why);
}

/* The tag family of a release node as version parameters. */
static void
family_params(const struct graph_node *n, struct version_params *p,
	      char *prefix, size_t size)
{
	const struct rules_release *rel = n->release;

	memset(p, 0, sizeof(*p));
	if (!strcmp(rel->tag, "root.tags") && n->root) {
		p->patterns = n->root->tags;
		p->n_patterns = n->root->n_tags;
		p->excludes = n->root->exclude_tags;
		p->n_excludes = n->root->n_exclude_tags;
		p->prefix = n->root->tag_prefix;
		return;
	}
	/* A glob: the prefix is its text before a digit or glob character. */
	snprintf(prefix, size, "%.*s",
		 (int)strcspn(rel->tag, "0123456789*?[\\"), rel->tag);
	p->patterns = &rel->tag;
	p->n_patterns = 1;
	p->prefix = prefix;
}

static const char *
family_text(struct arena *a, const struct version_params *p)
{
	struct buf b;
	const char *s;
	size_t i;

	buf_init(&b, 0);
	for (i = 0; i < p->n_patterns; i++)
		buf_addf(&b, NULL, "%s'%s'", i ? ", " : "", p->patterns[i]);
	for (i = 0; i < p->n_excludes; i++)
		buf_addf(&b, NULL, "%s'%s'", i ? ", " : " excluding ",
			 p->excludes[i]);
	s = arena_strdup(a, b.data);
	buf_release(&b);
	return s;
}

/* Check 1a: exactly one release node claims the tag. */
static int
check_family(struct release_ctx *x)
{
	const struct graph *g = x->ev->graph;
	const struct graph_node *claim = NULL;
	size_t i, n_claim = 0, n_rel = 0;
	char prefix[256];

	for (i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[g->by_id[i]];
		struct version_params p;
		int c;

		if (n->kind != GRAPH_NODE_RELEASE)
			continue;
		n_rel++;
		family_params(n, &p, prefix, sizeof(prefix));
		c = version_tag_claims(&p, x->opt->tag, NULL);
		if (release_problem(x, RELEASE_CHECK_TAG_FAMILY, "%s %s %s",
				    c ? "claimed by" : "not", n->id,
				    family_text(x->a, &p)))
			return ERROR_NOMEM;
		if (c) {
			claim = n;
			n_claim++;
		}
	}
	if (n_claim == 1) {
		x->node = claim;
		x->r->release_node = arena_strdup(x->a, claim->id);
		/* The other lines are no problem when one claims the tag. */
		x->problems[RELEASE_CHECK_TAG_FAMILY].n = 0;
		release_set(x, RELEASE_CHECK_TAG_FAMILY, RELEASE_STATUS_OK,
			    "claimed by %s", claim->id);
	} else if (!n_claim) {
		release_set(x, RELEASE_CHECK_TAG_FAMILY, RELEASE_STATUS_FAIL,
			    "no configured release line matches tag '%s' "
			    "(%zu known)", x->opt->tag, n_rel);
	} else {
		size_t k, j;
		struct strv *pv = &x->problems[RELEASE_CHECK_TAG_FAMILY];

		/* Keep only the claimants: they are the candidates. */
		for (k = j = 0; k < pv->n; k++)
			if (!strncmp(pv->v[k], "claimed by ", 11))
				pv->v[j++] = pv->v[k];
		pv->n = j;
		release_set(x, RELEASE_CHECK_TAG_FAMILY, RELEASE_STATUS_FAIL,
			    "tag '%s' is claimed by %zu release lines; "
			    "exactly one must claim it", x->opt->tag, n_claim);
	}
	return 0;
}

/* Check 1b: the spelling after the family prefix is canonical PEP 440. */
static int
check_spelling(struct release_ctx *x)
{
	struct version_params p;
	struct error e;
	char prefix[256], text[PEP440_TEXT_MAX];
	int rc;

	error_init(&e);
	if (x->node) {
		family_params(x->node, &p, prefix, sizeof(prefix));
		rc = version_tag_check_release(&p, x->opt->tag, &x->ver, &e);
		if (p.prefix != prefix)
			snprintf(prefix, sizeof(prefix), "%s",
				 p.prefix ? p.prefix : "");
	} else {
		/* No line claims it: assume the text before a digit. */
		snprintf(prefix, sizeof(prefix), "%.*s",
			 (int)strcspn(x->opt->tag, "0123456789"), x->opt->tag);
		rc = pep440_check_release_tag(x->opt->tag, prefix, &x->ver,
					      &e);
	}
	if (rc) {
		release_set(x, RELEASE_CHECK_TAG_SPELLING, RELEASE_STATUS_FAIL,
			    "%s", e.msg);
		if (e.hint[0] && release_problem(x, RELEASE_CHECK_TAG_SPELLING,
						 "hint: %s", e.hint))
			return ERROR_NOMEM;
		return 0;
	}
	pep440_format(&x->ver, text, sizeof(text), NULL);
	if (x->node) {
		x->have_ver = 1;
		x->r->version = arena_strdup(x->a, text);
	}
	release_set(x, RELEASE_CHECK_TAG_SPELLING, RELEASE_STATUS_OK,
		    "'%s' is canonical: version %s after prefix '%s'%s",
		    x->opt->tag, text, prefix,
		    x->node ? "" : " (assumed: no release line claims it)");
	return 0;
}

/* Check 2a: the tag resolves, annotated tags peeled. */
static int
check_commit(struct release_ctx *x, struct error *err)
{
	struct graph_tag_list tags;
	char rev[1024];
	struct error e;
	size_t i;
	int annotated = 0, rc;

	memset(&tags, 0, sizeof(tags));
	error_init(&e);
	snprintf(rev, sizeof(rev), "refs/tags/%s", x->opt->tag);
	rc = graph_repo_resolve(x->repo, rev, &x->commit, &e);
	if (rc == ERROR_NOMEM)
		return error_set(err, rc, "out of memory");
	if (rc) {
		release_set(x, RELEASE_CHECK_TAG_COMMIT, RELEASE_STATUS_FAIL,
			    "tag '%s' does not resolve to a commit: %s",
			    x->opt->tag, e.msg);
		return 0;
	}
	x->have_commit = 1;
	graph_oid_hex(&x->commit, x->r->commit);
	if (!graph_repo_tags(x->repo, &tags, &e))
		for (i = 0; i < tags.n; i++)
			if (!strcmp(tags.items[i].name, x->opt->tag))
				annotated = tags.items[i].annotated;
	graph_tag_list_release(&tags);
	release_set(x, RELEASE_CHECK_TAG_COMMIT, RELEASE_STATUS_OK,
		    "%s tag '%s' is commit %s",
		    annotated ? "annotated" : "lightweight", x->opt->tag,
		    x->r->commit);
	return 0;
}

static int
rule_errors(struct release_ctx *x, const struct error_list *errors)
{
	size_t i;

	for (i = 0; i < errors->n; i++) {
		const struct error *e = &errors->items[i];

		if (release_problem(x, RELEASE_CHECK_RULES, "%s:%u:%u: %s",
				    e->file, e->line, e->col, e->msg))
			return ERROR_NOMEM;
	}
	return 0;
}

/* Check 2b: the rules of the tagged tree (or, when allowed, current). */
static int
check_rules(struct release_ctx *x, const char *current)
{
	struct error_list errors;
	char rev[1024];
	struct error e;
	int rc;

	error_list_init(&errors, 50);
	error_init(&e);
	snprintf(rev, sizeof(rev), "refs/tags/%s", x->opt->tag);
	if (x->have_commit) {
		rc = eval_open(x->repo, rev, 0, NULL, NULL, &errors, &x->ev,
			       &e);
		if (!rc) {
			x->r->rules_source = arena_printf(x->a,
							  "ripple.yml@%s",
							  x->opt->tag);
			release_set(x, RELEASE_CHECK_RULES, RELEASE_STATUS_OK,
				    "read from the tagged tree "
				    "(ripple.yml at %.12s)", x->r->commit);
			goto done;
		}
		if (rc != ERROR_NOT_FOUND || !x->opt->use_current_rules) {
			if (rc == ERROR_NOT_FOUND)
				release_set(x, RELEASE_CHECK_RULES,
					    RELEASE_STATUS_FAIL,
					    "the tagged tree of '%s' has no "
					    "ripple.yml: the tagged rules are "
					    "authoritative; pass "
					    "--use-current-rules to check "
					    "against the working tree's",
					    x->opt->tag);
			else
				release_set(x, RELEASE_CHECK_RULES,
					    RELEASE_STATUS_FAIL,
					    "the tagged rules do not load: %s",
					    e.msg);
			rc = rule_errors(x, &errors);
			goto done;
		}
	}
	/* The working tree's rules, at the tag's commit when there is one. */
	error_list_release(&errors);
	error_list_init(&errors, 50);
	error_init(&e);
	rc = eval_open(x->repo, x->have_commit ? rev : "HEAD", 0, current,
		       NULL, &errors, &x->ev, &e);
	if (rc) {
		x->ev = NULL;
		release_set(x, RELEASE_CHECK_RULES, RELEASE_STATUS_FAIL,
			    "the current rules (%s) do not load: %s", current,
			    e.msg);
		rc = rule_errors(x, &errors);
		goto done;
	}
	x->r->rules_source = arena_strdup(x->a, current);
	if (x->have_commit)
		release_set(x, RELEASE_CHECK_RULES, RELEASE_STATUS_OK,
			    "the tagged tree has no ripple.yml; using the "
			    "current rules (--use-current-rules)");
	else
		release_set(x, RELEASE_CHECK_RULES, RELEASE_STATUS_SKIP,
			    "the tag does not resolve; the current rules are "
			    "used for the tag checks only");
	rc = 0;
done:
	if (!rc && x->ev && x->r->rules_source &&
	    !strcmp(x->r->rules_source, current)) {
		size_t i;
		const char *w = arena_printf(x->a, "rules from %s, not from "
					     "the tag", current);

		for (i = 0; i < RELEASE_CHECK_COUNT; i++)
			if (i != RELEASE_CHECK_TAG_COMMIT &&
			    i != RELEASE_CHECK_RUN)
				x->r->checks[i].warning = w;
	}
	error_list_release(&errors);
	return rc == ERROR_NOMEM ? ERROR_NOMEM : 0;
}

/* Move every check's problems into the arena, sorted; decide ok. */
static int
finish(struct release_ctx *x)
{
	size_t i;

	x->r->ok = 1;
	for (i = 0; i < RELEASE_CHECK_COUNT; i++) {
		struct release_check *c = &x->r->checks[i];
		struct strv *pv = &x->problems[i];

		c->name = check_names[i];
		if (!c->detail)
			c->detail = "not evaluated";
		if (c->status != RELEASE_STATUS_OK)
			x->r->ok = 0;
		if (!pv->n)
			continue;
		if (i != RELEASE_CHECK_TAG_SPELLING)
			strv_sort(pv);
		c->problems = arena_memdup(x->a, pv->v, pv->n * sizeof(char *));
		if (!c->problems)
			return ERROR_NOMEM;
		c->n_problems = pv->n;
	}
	return 0;
}

int
release_check(struct graph_repo *repo, struct cache *cache,
	      const struct release_options *opt, struct release_report **out,
	      struct error *err)
{
	static const enum release_check_id after_rules[] = {
		RELEASE_CHECK_TAG_FAMILY, RELEASE_CHECK_TAG_SPELLING,
		RELEASE_CHECK_ARTIFACTS, RELEASE_CHECK_VERSIONS,
		RELEASE_CHECK_NOTES, RELEASE_CHECK_METADATA,
	};
	struct release_ctx x;
	char current[4096];
	size_t i;
	int rc;

	*out = NULL;
	if (!opt->tag || !opt->tag[0])
		return error_set(err, ERROR_INVALID, "empty tag");
	memset(&x, 0, sizeof(x));
	x.r = mem_calloc(1, sizeof(*x.r));
	if (!x.r)
		return error_set(err, ERROR_NOMEM, "out of memory");
	arena_init(&x.r->arena);
	x.a = &x.r->arena;
	x.repo = repo;
	x.cache = cache;
	x.opt = opt;
	for (i = 0; i < RELEASE_CHECK_COUNT; i++)
		strv_init(&x.problems[i], 0);
	x.r->tag = arena_strdup(x.a, opt->tag);
	snprintf(current, sizeof(current), "%s/ripple.yml",
		 graph_repo_root(repo));

	rc = check_commit(&x, err);
	if (!rc)
		rc = check_rules(&x, current);
	if (!rc && x.ev)
		rc = check_family(&x);
	if (!rc && x.ev)
		rc = check_spelling(&x);
	if (!rc)
		rc = release_check_run(&x, err);
	if (rc)
		goto done;
	if (!x.ev || !x.have_commit) {
		skip_rest(&x, after_rules, 6, "the rules are not available");
		goto done;
	}
	if (!x.node) {
		skip_rest(&x, after_rules, 6, "no single release line claims "
			  "the tag");
		goto done;
	}
	if (x.have_run)
		rc = release_check_artifacts(&x, err);
	if (!rc && x.have_run && x.have_ver)
		rc = release_check_versions(&x, err);
	if (!rc && x.have_ver)
		rc = release_check_notes(&x, err);
	if (!rc && x.have_ver && x.have_run)
		rc = release_check_metadata(&x, err);
	if (!rc) {
		skip_rest(&x, after_rules + 2, 1, "no qualifying run");
		skip_rest(&x, after_rules + 3, 3, x.have_ver
			  ? "no qualifying run" : "the tag's version is not "
			  "a canonical release version");
	}
done:
	if (!rc && finish(&x))
		rc = error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; i < RELEASE_CHECK_COUNT; i++)
		strv_release(&x.problems[i]);
	cache_record_list_release(&x.recs);
	eval_free(x.ev);
	if (rc) {
		release_report_free(x.r);
		return rc;
	}
	*out = x.r;
	return 0;
}

void
release_report_free(struct release_report *r)
{
	if (!r)
		return;
	arena_release(&r->arena);
	mem_free(r);
}
