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
#include "base/fnmatch.h"
#include "base/mem.h"
#include "engine/plan/eval.h"
#include "engine/release/internal.h"
#include "graph/graph.h"
#include "graph/version.h"
#include "rules/rules.h"
#include "base/banned.h"

static const char *const check_names[RELEASE_CHECK_COUNT] = {
	"tag-family", "tag-spelling", "tag-commit", "rules", "run",
	"artifacts", "versions", "notes", "metadata", "tests",
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

static const char *
family_text(struct arena *a, const struct version_params *p,
	    const char *narrow)
{
	struct buf b;
	const char *s;
	size_t i;

	buf_init(&b, 0);
	if (narrow)
		buf_addf(&b, NULL, "'%s' within ", narrow);
	for (i = 0; i < p->n_patterns; i++)
		buf_addf(&b, NULL, "%s'%s'", i ? ", " : "", p->patterns[i]);
	for (i = 0; i < p->n_excludes; i++)
		buf_addf(&b, NULL, "%s'%s'", i ? ", " : " excluding ",
			 p->excludes[i]);
	s = arena_strdup(a, b.data);
	buf_release(&b);
	return s;
}

/*
 * Check 1a: release nodes claim the tag. Several may (one tag releases
 * cuda-python's bindings and its metapackage); roots whose families
 * overlap without being one family are refused when the rules load
 * (graph/family.h), so claimants never disagree on what the tag means.
 */
static int
check_family(struct release_ctx *x)
{
	const struct graph *g = x->ev->graph;
	size_t i, n_rel = 0;
	char prefix[256];

	x->nodes = arena_alloc(x->a, (g->n_nodes + 1) * sizeof(*x->nodes));
	if (!x->nodes)
		return ERROR_NOMEM;
	for (i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[g->by_id[i]];
		struct version_params p;
		const char *narrow;
		struct error e;
		int c;

		if (n->kind != GRAPH_NODE_RELEASE)
			continue;
		n_rel++;
		graph_release_family(n, &p, &narrow, prefix, sizeof(prefix));
		p.regex_file = g->rules->file;
		error_init(&e);
		c = graph_release_claims(g, n, x->opt->tag, &e);
		if (c == ERROR_NOMEM)
			return c;
		if (c < 0) {
			release_set(x, RELEASE_CHECK_TAG_FAMILY,
				    RELEASE_STATUS_FAIL, "%s: %s", n->id,
				    e.msg);
			if (e.hint[0] &&
			    release_problem(x, RELEASE_CHECK_TAG_FAMILY,
					    "hint: %s", e.hint))
				return ERROR_NOMEM;
			return 0;
		}
		if (!c && !x->named && narrow &&
		    version_tag_claims(&p, x->opt->tag, NULL, NULL) == 1) {
			x->named = n;	/* its root's tag, not its release */
			x->named_out_by = narrow;
		} else if (!c && !x->named &&
			   version_tag_named(&p, x->opt->tag) &&
			   (!narrow || fnmatch_match(narrow, x->opt->tag) ||
			    !strcmp(narrow, x->opt->tag))) {
			x->named = n;
		}
		if (!c && release_problem(x, RELEASE_CHECK_TAG_FAMILY,
					  "not %s %s", n->id,
					  family_text(x->a, &p, narrow)))
			return ERROR_NOMEM;
		if (c)
			x->nodes[x->n_nodes++] = n;
	}
	if (!x->n_nodes && x->named && x->named_out_by) {
		x->problems[RELEASE_CHECK_TAG_FAMILY].n = 0;
		release_set(x, RELEASE_CHECK_TAG_FAMILY, RELEASE_STATUS_FAIL,
			    "tag '%s' is a tag of root %s's family, but %s "
			    "releases only tags matching '%s'", x->opt->tag,
			    x->named->root ? x->named->root->name : "-",
			    x->named->id, x->named_out_by);
		return 0;
	}
	if (!x->n_nodes && x->named) {
		/* The patterns name it: the spelling is what is wrong
		 * (check 1b says how), not the lines. */
		x->problems[RELEASE_CHECK_TAG_FAMILY].n = 0;
		release_set(x, RELEASE_CHECK_TAG_FAMILY, RELEASE_STATUS_FAIL,
			    "tag '%s' matches the tag patterns of %s but is "
			    "not spelled as its family spells versions (see "
			    "tag-spelling)", x->opt->tag, x->named->id);
		return 0;
	}
	if (!x->n_nodes) {
		release_set(x, RELEASE_CHECK_TAG_FAMILY, RELEASE_STATUS_FAIL,
			    "no configured release line matches tag '%s' "
			    "(%zu known)", x->opt->tag, n_rel);
		return 0;
	}
	/* The other lines are no problem when some claim the tag. */
	x->problems[RELEASE_CHECK_TAG_FAMILY].n = 0;
	x->node = x->nodes[0];
	x->r->release_node = arena_strdup(x->a, x->node->id);
	x->r->release_nodes = arena_alloc(x->a, x->n_nodes *
					  sizeof(*x->r->release_nodes));
	if (!x->r->release_nodes)
		return ERROR_NOMEM;
	for (i = 0; i < x->n_nodes; i++) {
		x->r->release_nodes[i] = arena_strdup(x->a, x->nodes[i]->id);
		if (x->n_nodes > 1 &&
		    release_problem(x, RELEASE_CHECK_TAG_FAMILY,
				    "claimed by %s", x->nodes[i]->id))
			return ERROR_NOMEM;
	}
	x->r->n_release_nodes = x->n_nodes;
	if (x->n_nodes == 1)
		release_set(x, RELEASE_CHECK_TAG_FAMILY, RELEASE_STATUS_OK,
			    "claimed by %s", x->node->id);
	else
		release_set(x, RELEASE_CHECK_TAG_FAMILY, RELEASE_STATUS_OK,
			    "claimed by %zu release nodes", x->n_nodes);
	return 0;
}

/*
 * Check 1b: the tag is spelled as every claimant's family spells a
 * release (canonical PEP 440, zero-padded, or the whole tag a tag-regex's
 * version), and they all read the same version from it.
 */
static int
check_spelling(struct release_ctx *x)
{
	struct version_params p;
	struct pep440 v;
	struct error e;
	const char *narrow;
	char prefix[256], text[PEP440_TEXT_MAX];
	size_t i;
	int rc = 0;

	error_init(&e);
	memset(&p, 0, sizeof(p));
	for (i = 0; i < x->n_nodes && !rc; i++) {
		graph_release_family(x->nodes[i], &p, &narrow, prefix,
				     sizeof(prefix));
		p.regex_file = x->ev->graph->rules->file;
		rc = version_tag_check_release(&p, x->opt->tag, &v, &e);
		if (!rc && i && pep440_compare(&v, &x->ver)) {
			pep440_format(&v, text, sizeof(text), NULL);
			rc = error_set(&e, ERROR_INVALID, "%s reads version %s "
				       "from tag '%s', %s another",
				       x->nodes[i]->id, text, x->opt->tag,
				       x->nodes[0]->id);
		}
		if (!i)
			x->ver = v;
		if (p.prefix != prefix)
			snprintf(prefix, sizeof(prefix), "%s",
				 p.prefix ? p.prefix : "");
	}
	if (!x->n_nodes && x->named) {
		graph_release_family(x->named, &p, &narrow, prefix,
				     sizeof(prefix));
		p.regex_file = x->ev->graph->rules->file;
		rc = version_tag_check_release(&p, x->opt->tag, &x->ver, &e);
		if (!rc && x->named_out_by) {
			pep440_format(&x->ver, text, sizeof(text), NULL);
			release_set(x, RELEASE_CHECK_TAG_SPELLING,
				    RELEASE_STATUS_OK, "'%s' is version %s of "
				    "root %s's family", x->opt->tag, text,
				    x->named->root ? x->named->root->name
						   : "-");
			return 0;
		}
		if (!rc)	/* claimed after all: should not happen */
			rc = error_set(&e, ERROR_INVALID, "tag '%s' is not "
				       "claimed by %s", x->opt->tag,
				       x->named->id);
	} else if (!x->n_nodes) {
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
	if (x->n_nodes) {
		x->have_ver = 1;
		x->r->version = arena_strdup(x->a, text);
	}
	if (x->n_nodes && p.tag_regex)
		release_set(x, RELEASE_CHECK_TAG_SPELLING, RELEASE_STATUS_OK,
			    "'%s' is version %s, whole (tag-regex)",
			    x->opt->tag, text);
	else
		release_set(x, RELEASE_CHECK_TAG_SPELLING, RELEASE_STATUS_OK,
			    "'%s' is %s: version %s after prefix '%s'%s",
			    x->opt->tag, x->n_nodes &&
			    p.spelling == VERSION_SPELLING_ZERO_PADDED
			    ? "zero-padded" : "canonical", text, prefix,
			    x->n_nodes ? ""
			    : " (assumed: no release line claims it)");
	return 0;
}

/* Check 2a: the tag resolves, annotated tags peeled. */
static int
check_commit(struct release_ctx *x, struct error *err)
{
	struct graph_tag_list tags;
	const char *rev;
	struct error e;
	size_t i;
	int annotated = 0, rc;

	memset(&tags, 0, sizeof(tags));
	error_init(&e);
	/* The whole name: a cut one could be another tag. */
	rev = arena_printf(x->a, "refs/tags/%s", x->opt->tag);
	if (!rev)
		return error_nomem(err);
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
	const char *rev;
	struct error e;
	int rc;

	rev = arena_printf(x->a, "refs/tags/%s", x->opt->tag);
	if (!rev)
		return ERROR_NOMEM;
	error_list_init(&errors, 50);
	error_init(&e);
	if (x->have_commit) {
		rc = eval_open(x->repo, rev, 0, NULL, x->opt->limits, &errors,
			       &x->ev, &e);
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
		       x->opt->limits, &errors, &x->ev, &e);
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

/*
 * Run a per-release check for every claimant and join the outcomes: FAIL
 * when one fails, else ok when one is ok, else skip; with several
 * claimants each detail is named by its node.
 */
static int
per_node(struct release_ctx *x, enum release_check_id id,
	 int (*check)(struct release_ctx *, struct error *),
	 struct error *err)
{
	struct release_check *c = &x->r->checks[id];
	enum release_status st = RELEASE_STATUS_SKIP;
	struct buf b;
	size_t i;
	int rc = 0;

	buf_init(&b, 0);
	for (i = 0; i < x->n_nodes && !rc; i++) {
		x->node = x->nodes[i];
		c->detail = NULL;
		rc = check(x, err);
		if (rc || !c->detail)
			continue;
		if (c->status == RELEASE_STATUS_FAIL ||
		    (c->status == RELEASE_STATUS_OK &&
		     st == RELEASE_STATUS_SKIP))
			st = c->status;
		if (x->n_nodes == 1)
			buf_addf(&b, NULL, "%s", c->detail);
		else
			buf_addf(&b, NULL, "%s%s: %s", i ? "; " : "",
				 x->node->id, c->detail);
	}
	x->node = x->nodes[0];
	if (!rc)
		release_set(x, id, st, "%s", b.data ? b.data : "");
	buf_release(&b);
	return rc;
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
		RELEASE_CHECK_TESTS,
	};
	struct release_ctx x;
	const char *current;
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
	current = arena_printf(x.a, "%s/ripple.yml", graph_repo_root(repo));
	if (!current) {
		rc = error_nomem(err);
		goto done;
	}
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
		skip_rest(&x, after_rules, 7, "the rules are not available");
		goto done;
	}
	if (!x.n_nodes) {
		skip_rest(&x, after_rules, 7, "no release line claims the tag");
		goto done;
	}
	if (x.have_run)
		rc = release_check_artifacts(&x, err);
	if (!rc && x.have_run && x.have_ver)
		rc = release_check_versions(&x, err);
	if (!rc && x.have_ver)
		rc = per_node(&x, RELEASE_CHECK_NOTES, release_check_notes,
			      err);
	if (!rc && x.have_ver && x.have_run)
		rc = per_node(&x, RELEASE_CHECK_METADATA,
			      release_check_metadata, err);
	if (!rc && x.have_run)
		rc = release_check_tests(&x, err);
	if (!rc) {
		skip_rest(&x, after_rules + 6, 1, "no qualifying run");
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
