/*
 * Versions from tags: finds the nearest tag of a root's family with libgit2
 * (git describe's count), applies setuptools-scm's guess-next-dev and
 * node-and-date schemes, or the root's fallback; answers the release
 * checker's "does this family claim this tag" question.
 */
#include "graph/version.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <git2.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "graph/reach.h"
#include "graph/repo_git.h"
#include "base/banned.h"

struct cand {
	const char *name;	/* points into the tag list */
	git_oid oid;		/* peeled commit */
	struct pep440 v;
	unsigned long distance;
};

const char *
version_source_name(enum version_source s)
{
	switch (s) {
	case VERSION_SOURCE_EXACT:
		return "exact";
	case VERSION_SOURCE_TAG:
		return "tag";
	case VERSION_SOURCE_FALLBACK:
		return "fallback";
	case VERSION_SOURCE_PRETEND:
		return "pretend";
	case VERSION_SOURCE_FILE:
		return "file";
	}
	return "unknown";
}

void
version_result_release(struct version_result *r)
{
	if (!r)
		return;
	mem_free(r->tag);
	mem_free(r->version);
	r->tag = NULL;
	r->version = NULL;
	strv_release(&r->skipped);
}

int
version_guess_next(const struct pep440 *v, struct pep440 *next,
		   struct error *err)
{
	char text[PEP440_TEXT_MAX];
	unsigned long long *bump;

	*next = *v;
	next->local[0] = '\0';
	/* setuptools-scm _bump_dev: ".dev0" is dropped, ".devN" refused. */
	if (v->has_dev) {
		if (v->dev != 0) {
			pep440_format(next, text, sizeof(text), NULL);
			error_set(err, ERROR_INVALID,
				  "tag version '%s' ends in .dev%llu: choosing "
				  "custom numbers for the .devX distance is "
				  "not supported", text, v->dev);
			error_hint(err, "drop the tag or tag a version ending "
				   "in .dev0 (as setuptools-scm requires)");
			return ERROR_INVALID;
		}
		next->has_dev = 0;
		return 0;
	}
	/* setuptools-scm _bump_regex: the last number of the text + 1. */
	if (v->has_post)
		bump = &next->post;
	else if (v->pre_kind != PEP440_PRE_NONE)
		bump = &next->pre;
	else
		bump = &next->release[v->n_release - 1];
	if (*bump == ULLONG_MAX) {
		pep440_format(v, text, sizeof(text), NULL);
		error_set(err, ERROR_INVALID, "tag version '%s' has no next "
			  "version: its last number is the largest ripple "
			  "counts to (2^64 - 1)", text);
		error_hint(err, "tag a version with a smaller last number");
		return ERROR_INVALID;
	}
	(*bump)++;
	return 0;
}

int
version_node_from_hex(const char *hex, unsigned length, char *out,
		      size_t size, struct error *err)
{
	size_t n = strlen(hex), i, need = length > 7 ? length : 7;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)hex[i]))
			return error_set(err, ERROR_INVALID,
					 "commit id '%s' is not hexadecimal",
					 hex);
	if (n < need)
		return error_set(err, ERROR_INVALID,
				 "commit id '%s' is shorter than %zu hex "
				 "digits", hex, need);
	if (length < 4 || length > 40 || size < (size_t)length + 2)
		return error_set(err, ERROR_INVALID,
				 "node length %u is not within 4..40", length);
	out[0] = 'g';
	for (i = 0; i < length; i++)
		out[i + 1] = (char)tolower((unsigned char)hex[i]);
	out[length + 1] = '\0';
	return 0;
}

void
version_family_text(const struct version_params *p, char *out, size_t n)
{
	size_t i, len = 0;
	int k;

	if (!n)
		return;
	out[0] = '\0';
	if (p->root_name) {
		k = snprintf(out, n, "root '%s'", p->root_name);
		len = k < 0 ? 0 : (size_t)k < n ? (size_t)k : n - 1;
	}
	for (i = 0; i < p->n_patterns && len + 1 < n; i++) {
		k = snprintf(out + len, n - len, "%s'%s'", i ? ", "
			     : len ? ", tags " : "tags ", p->patterns[i]);
		len += k < 0 ? 0 : (size_t)k < n - len ? (size_t)k
							: n - len - 1;
	}
}

static int
git_fail(struct error *err, const char *what)
{
	const git_error *e = git_error_last();

	return error_set(err, ERROR_INTERNAL, "%s: %s", what,
			 e && e->message ? e->message : "libgit2 failed");
}

static int
shallow_fail(struct error *err, const char *rev)
{
	error_set(err, ERROR_INVALID,
		  "the history of '%s' is incomplete in this shallow clone: "
		  "its version cannot be computed", rev);
	error_hint(err, "fetch the full history and tags (git fetch "
		   "--unshallow --tags)");
	return ERROR_INVALID;
}

/*
 * Commits reachable from `from` and not from `hide` (NULL: all). The walk
 * stops once the count passes `limit`, giving limit + 1: a tag farther
 * than the nearest one found need not be counted to the end. A walk that
 * reaches a commit of the shallow boundary (its parents are not in the
 * clone) is the shallow error whatever libgit2 does there: 1.5 and 1.6
 * fail the walk, 1.7 and later end it silently, which would count from
 * truncated history.
 */
static int
count_commits(git_repository *repo, const struct graph_shallow *shallow,
	      const git_oid *from, const git_oid *hide, unsigned long limit,
	      const char *rev, unsigned long *count, struct error *err)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	unsigned long n = 0;
	int rc = 0, g;

	if (git_revwalk_new(&walk, repo) < 0)
		return git_fail(err, "cannot walk the history");
	if (git_revwalk_push(walk, from) < 0 ||
	    (hide && git_revwalk_hide(walk, hide) < 0))
		goto fail;
	while ((g = git_revwalk_next(&oid, walk)) == 0) {
		if (graph_git_shallow_has(shallow, &oid)) {
			rc = shallow_fail(err, rev);
			goto done;
		}
		if (++n > limit)
			break;
	}
	if (g != GIT_ITEROVER && g != 0)
		goto fail;
	*count = n;
	goto done;
fail:
	if (shallow->n)
		rc = shallow_fail(err, rev);
	else
		rc = git_fail(err, "cannot walk the history");
done:
	git_revwalk_free(walk);
	return rc;
}

static int
cand_better(const struct cand *a, const struct cand *b)
{
	int c;

	if (a->distance != b->distance)
		return a->distance < b->distance;
	c = pep440_compare(&a->v, &b->v);
	if (c)
		return c > 0;
	return strcmp(a->name, b->name) < 0;
}

static int
check_params(const struct version_params *p, struct pep440 *fallback,
	     unsigned *node_length, struct error *err)
{
	*node_length = p->node_length ? p->node_length
				      : VERSION_NODE_LENGTH_DEFAULT;
	if (*node_length < 4 || *node_length > 40)
		return error_set(err, ERROR_INVALID,
				 "node length %u is not within 4..40",
				 p->node_length);
	if (p->fallback_pretend && !p->fallback)
		return error_set(err, ERROR_INVALID,
				 "a pretend fallback needs a fallback version");
	if (p->fallback) {
		int rc = pep440_parse(p->fallback, fallback, err);

		if (rc < 0) {
			error_prefix(err, "fallback version");
			return rc;
		}
		fallback->local[0] = '\0';
	}
	return 0;
}

static int
worktree_dirty(git_repository *repo, const git_oid *commit, int *dirty,
	       struct error *err)
{
	git_status_options opts;
	git_status_list *list = NULL;
	git_oid head;
	size_t i, n;

	if (git_repository_is_bare(repo))
		return error_set(err, ERROR_INVALID,
				 "the repository has no working tree");
	if (git_reference_name_to_id(&head, repo, "HEAD") < 0)
		return git_fail(err, "cannot read HEAD");
	if (!git_oid_equal(&head, commit))
		return error_set(err, ERROR_INVALID,
				 "the working tree is checked out at HEAD, "
				 "not at the revision asked for");
	/*
	 * setuptools-scm's git backend calls a tree dirty when
	 * `git status --porcelain --untracked-files=no` prints anything
	 * (git describe --dirty agrees): tracked changes in the index or
	 * the working tree; untracked and ignored files do not count.
	 */
	if (git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION) < 0)
		return git_fail(err, "cannot read the working tree status");
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = 0;
	if (git_status_list_new(&list, repo, &opts) < 0)
		return git_fail(err, "cannot read the working tree status");
	*dirty = 0;
	n = git_status_list_entrycount(list);
	for (i = 0; i < n; i++) {
		const git_status_entry *e = git_status_byindex(list, i);

		if (e->status != GIT_STATUS_CURRENT &&
		    !(e->status & (GIT_STATUS_WT_NEW | GIT_STATUS_IGNORED)))
			*dirty = 1;
	}
	git_status_list_free(list);
	return 0;
}

/* Fill cands with the family's tags whose commits exist. */
static int
collect(git_repository *repo, const struct graph_shallow *shallow,
	const struct version_params *p, const struct strv *names,
	struct cand *cands, size_t *n_cands, const char *rev,
	struct error *err)
{
	struct buf refname = BUF_INIT;
	size_t i, n = 0;
	int g;

	for (i = 0; i < names->n; i++) {
		git_reference *ref = NULL;
		git_object *obj = NULL;

		g = version_tag_claims(p, names->v[i], &cands[n].v, err);
		if (g < 0)
			goto fail;
		if (!g)
			continue;
		/* The whole name: a cut one could be another tag's. */
		buf_reset(&refname);
		g = buf_addf(&refname, err, "refs/tags/%s", names->v[i]);
		if (g < 0)
			goto fail;
		if (git_reference_lookup(&ref, repo, refname.data) < 0) {
			g = git_fail(err, "cannot read a tag");
			goto fail;
		}
		g = git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT);
		git_reference_free(ref);
		if (g == GIT_ENOTFOUND && shallow->n) {
			g = shallow_fail(err, rev);
			goto fail;
		}
		if (g < 0)	/* a tag of a tree or blob: not a version */
			continue;
		git_oid_cpy(&cands[n].oid, git_object_id(obj));
		git_object_free(obj);
		cands[n].name = names->v[i];
		cands[n].v.local[0] = '\0';	/* setuptools-scm strips it */
		n++;
	}
	buf_release(&refname);
	*n_cands = n;
	return 0;
fail:
	buf_release(&refname);
	return g;
}

static int
finish(struct version_result *out, const struct pep440 *base,
       const struct cand *tag, const struct version_params *p,
       struct error *err)
{
	char text[PEP440_TEXT_MAX + 64];
	struct pep440 v = *base;
	int len, exact = out->distance == 0 && !out->dirty;

	v.local[0] = '\0';
	if (out->source == VERSION_SOURCE_PRETEND) {
		len = pep440_format(&v, text, PEP440_TEXT_MAX, err);
		if (len < 0)
			return len;
		snprintf(text + len, sizeof(text) - (size_t)len, "+%s",
			 out->node);
	} else if (exact) {
		out->source = VERSION_SOURCE_EXACT;
		len = pep440_format(&v, text, PEP440_TEXT_MAX, err);
		if (len < 0)
			return len;
	} else {
		struct pep440 next;
		int rc = version_guess_next(&v, &next, err);

		if (rc < 0) {
			if (tag)
				error_prefix(err, "tag '%s'", tag->name);
			return rc;
		}
		next.has_dev = 1;
		next.dev = out->distance;
		len = pep440_format(&next, text, PEP440_TEXT_MAX, err);
		if (len < 0)
			return len;
		len += snprintf(text + len, sizeof(text) - (size_t)len, "+%s",
				out->node);
		if (out->dirty) {
			time_t t = (time_t)p->date_epoch;
			struct tm tm;

			if (!gmtime_r(&t, &tm))
				return error_set(err, ERROR_INVALID,
						 "date %lld is out of range",
						 p->date_epoch);
			strftime(text + len, sizeof(text) - (size_t)len,
				 ".d%Y%m%d", &tm);
		}
	}
	out->version = mem_strdup(text);
	if (tag && !out->tag)
		out->tag = mem_strdup(tag->name);
	if (!out->version || (tag && !out->tag))
		return error_set(err, ERROR_NOMEM, "out of memory");
	return 0;
}

int
version_compute(git_repository *repo, const char *rev,
		const struct version_params *p, struct version_result *out,
		struct error *err)
{
	const char *revname = rev ? rev : "HEAD";
	struct strv names = STRV_INIT;
	git_object *obj = NULL, *commit = NULL;
	struct cand *cands = NULL, *best = NULL;
	struct pep440 fallback;
	struct graph_shallow shallow = { NULL, 0 };
	size_t n_cands = 0, i;
	unsigned long walked;
	unsigned node_length;
	int exact = 0;
	git_oid oid;
	char hex[GIT_OID_HEXSZ + 1];
	int rc, g;

	memset(out, 0, sizeof(*out));
	strv_init(&out->skipped, 1);
	memset(&fallback, 0, sizeof(fallback));
	rc = check_params(p, &fallback, &node_length, err);
	if (rc < 0)
		return rc;
	g = git_revparse_single(&obj, repo, revname);
	if (g == GIT_ENOTFOUND || g == GIT_EAMBIGUOUS || g == GIT_EINVALIDSPEC)
		return error_set(err, ERROR_NOT_FOUND,
				 "unknown revision '%s'", revname);
	if (g < 0)
		return git_fail(err, "cannot resolve the revision");
	g = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (g < 0)
		return error_set(err, ERROR_INVALID,
				 "revision '%s' is not a commit", revname);
	git_oid_cpy(&oid, git_object_id(commit));
	git_object_free(commit);
	git_oid_tostr(hex, sizeof(hex), &oid);
	memcpy(out->commit, hex, sizeof(out->commit));
	rc = version_node_from_hex(hex, node_length, out->node,
				   sizeof(out->node), err);
	if (rc < 0)
		goto done;
	if (p->worktree) {
		rc = worktree_dirty(repo, &oid, &out->dirty, err);
		if (rc < 0)
			goto done;
	}

	rc = graph_git_shallow_load(repo, &shallow, err);
	if (rc < 0)
		goto done;
	rc = graph_git_tags(repo, &names, &out->skipped, err);
	if (rc < 0)
		goto done;
	cands = mem_calloc(names.n ? names.n : 1, sizeof(*cands));
	if (!cands) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	rc = collect(repo, &shallow, p, &names, cands, &n_cands, revname,
		     err);
	if (rc < 0)
		goto done;
	/* A tag at the commit itself wins (git describe --exact-match):
	 * then no other tag needs a walk, which a shallow clone may lack. */
	for (i = 0; i < n_cands; i++)
		if (git_oid_equal(&cands[i].oid, &oid) &&
		    !(p->fallback_pretend &&
		      pep440_compare(&cands[i].v, &fallback) < 0))
			exact = 1;
	for (i = 0; i < n_cands; i++) {
		struct cand *c = &cands[i];

		/* Older releases of the line do not end a pretend fallback. */
		if (p->fallback_pretend && pep440_compare(&c->v, &fallback) < 0)
			continue;
		if (git_oid_equal(&c->oid, &oid)) {
			c->distance = 0;
		} else if (shallow.n) {
			if (exact)
				continue;
			/* Is the tag reachable in what this clone has?
			 * graph/reach.h decides from the commits at hand;
			 * what it cannot prove stays the shallow error. */
			g = graph_reach_in_shallow(repo, &shallow, &oid,
						   &c->oid, &c->distance, err);
			if (g < 0) {
				rc = g;
				goto done;
			}
			if (g == GRAPH_REACH_UNKNOWN) {
				rc = shallow_fail(err, revname);
				goto done;
			}
			if (g == GRAPH_REACH_NO)
				continue;
			if (best && c->distance > best->distance)
				continue;	/* farther: it cannot win */
		} else {
			if (exact)
				continue;
			g = git_graph_descendant_of(repo, &oid, &c->oid);
			if (g < 0) {
				rc = shallow.n ? shallow_fail(err, revname)
					       : git_fail(err, "cannot walk the "
							       "history");
				goto done;
			}
			/*
			 * Not an ancestor in the history this clone has: in a
			 * shallow clone it may be one beyond the boundary:
			 * unless the walk from the commit, hiding the tag,
			 * stays clear of the boundary, that is the shallow
			 * error (no bound: what the tag hides here may be
			 * less than it hides in the whole history).
			 */
			if (!g && shallow.n) {
				rc = count_commits(repo, &shallow, &oid,
						   &c->oid, ULONG_MAX, revname,
						   &walked, err);
				if (rc < 0)
					goto done;
			}
			if (!g)
				continue;
			rc = count_commits(repo, &shallow, &oid, &c->oid,
					   best ? best->distance : ULONG_MAX,
					   revname, &c->distance, err);
			if (rc < 0)
				goto done;
			if (best && c->distance > best->distance)
				continue;	/* farther: it cannot win */
		}
		if (!best || cand_better(c, best))
			best = c;
	}
	if (best) {
		out->source = VERSION_SOURCE_TAG;
		out->distance = best->distance;
		rc = finish(out, &best->v, best, p, err);
	} else if (p->fallback_pretend) {
		out->source = VERSION_SOURCE_PRETEND;
		rc = finish(out, &fallback, NULL, p, err);
	} else if (p->fallback) {
		out->source = VERSION_SOURCE_FALLBACK;
		rc = count_commits(repo, &shallow, &oid, NULL, ULONG_MAX,
				   revname, &out->distance, err);
		if (rc == 0)
			rc = finish(out, &fallback, NULL, p, err);
	} else if (shallow.n) {
		/* The tags may sit below the shallow boundary or be unfetched. */
		rc = shallow_fail(err, revname);
	} else {
		char fam[512];

		version_family_text(p, fam, sizeof(fam));
		rc = error_set(err, ERROR_NOT_FOUND,
			       "no tag of the family is reachable from '%s' "
			       "(%s) and there is no fallback version",
			       revname, fam[0] ? fam : "every tag");
		error_hint(err, "tag a release, or declare a fallback-version "
			   "for the root");
	}
done:
	mem_free(cands);
	graph_git_shallow_release(&shallow);
	strv_release(&names);
	if (rc < 0)
		version_result_release(out);
	return rc;
}

int
version_compute_at(struct graph_repo *repo, const char *rev,
		   const struct version_params *p, struct version_result *out,
		   struct error *err)
{
	return version_compute(graph_repo_git(repo), rev, p, out, err);
}
