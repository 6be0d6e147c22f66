/*
 * A root's version by its version source: tags (version.c), a version file
 * read at the revision (numba-cuda's numba_cuda/VERSION), or a file whose
 * release the tags' distance turns into a pre-release number (RAPIDS:
 * VERSION 26.08.00 and 49 commits after v26.08.00a give 26.8.0a49+g<node>;
 * two commits after the final v26.06.00, on its release branch,
 * 26.6.0rc2+g<node>).
 */
#include "graph/version.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "graph/repo.h"
#include "base/banned.h"

#define VERSION_FILE_MAX 4096	/* bytes: a version file is one line */

/* The file's text at the commit, or in the working tree. */
static int
read_file(struct graph_repo *repo, const struct graph_oid *oid,
	  const struct version_params *p, struct buf *b, struct error *err)
{
	struct buf path = BUF_INIT;
	FILE *f;
	size_t n;
	char chunk[VERSION_FILE_MAX + 1];
	int rc;

	if (!p->worktree)
		return graph_repo_read_blob(repo, oid, p->file, b, err);
	/* The whole path: a cut one could be another file. */
	rc = buf_addf(&path, err, "%s/%s", graph_repo_root(repo), p->file);
	f = rc ? NULL : fopen(path.data, "rb");
	buf_release(&path);
	if (rc)
		return rc;
	if (!f)
		return error_set(err, ERROR_NOT_FOUND, "no version file '%s' "
				 "in the working tree", p->file);
	n = fread(chunk, 1, sizeof(chunk), f);
	fclose(f);
	return buf_add(b, chunk, n, err);
}

/* The file's version: its text without surrounding whitespace. */
static int
file_version(struct graph_repo *repo, const struct graph_oid *oid,
	     const char *rev, const struct version_params *p,
	     struct pep440 *v, struct error *err)
{
	struct buf b;
	size_t s = 0, e;
	char text[PEP440_TEXT_MAX];
	int rc;

	buf_init(&b, 0);
	rc = read_file(repo, oid, p, &b, err);
	if (rc == ERROR_NOT_FOUND) {
		error_init(err);
		error_set(err, ERROR_NOT_FOUND, "version file '%s' is not in "
			  "the tree of '%s'", p->file, rev);
		error_hint(err, "fix version-file in ripple.yml, or commit "
			   "the file");
	}
	if (rc)
		goto done;
	e = b.len;
	while (s < e && isspace((unsigned char)b.data[s]))
		s++;
	while (e > s && isspace((unsigned char)b.data[e - 1]))
		e--;
	if (e - s >= sizeof(text) || b.len > VERSION_FILE_MAX ||
	    memchr(b.data + s, '\n', e - s)) {
		rc = error_set(err, ERROR_INVALID, "version file '%s' at '%s' "
			       "is not one line holding a version", p->file,
			       rev);
		goto done;
	}
	memcpy(text, b.data + s, e - s);
	text[e - s] = '\0';
	rc = pep440_parse(text, v, NULL);
	if (rc)
		rc = error_set(err, ERROR_INVALID, "version file '%s' at '%s' "
			       "holds '%s', not a PEP 440 version", p->file,
			       rev, text);
done:
	buf_release(&b);
	return rc;
}

/*
 * out->version becomes v, with the tags' local label ("g<node>", and
 * ".dYYYYMMDD" when dirty) off a tag: the distance alone is no identity,
 * since two branches N commits from one alpha would share 26.8.0aN
 * (issue 25: two commits never share a dev version in one family).
 * rapids-generate-version leaves the label out; a tagged commit has none.
 */
static int
format_with_node(struct version_result *out, const struct pep440 *v,
		 struct error *err)
{
	const char *plus = out->version ? strchr(out->version, '+') : NULL;
	char *text = mem_alloc(PEP440_TEXT_MAX + PEP440_LOCAL_MAX);
	int len;

	if (!text)
		return error_set(err, ERROR_NOMEM, "out of memory");
	len = pep440_format(v, text, PEP440_TEXT_MAX, err);
	if (len < 0) {
		mem_free(text);
		return ERROR_INVALID;
	}
	if ((out->distance || out->dirty) && plus)
		snprintf(text + len, PEP440_LOCAL_MAX, "%.*s",
			 PEP440_LOCAL_MAX - 1, plus);
	mem_free(out->version);
	out->version = text;
	out->source = VERSION_SOURCE_FILE;
	return 0;
}

/* RELEASE aN (rcN after a final) off the nearest family tag; RELEASE
 * itself at its tag; +g<node> off it. */
static int
with_tags(struct graph_repo *repo, const char *rev,
	  const struct version_params *p, const struct pep440 *file,
	  struct version_result *out, struct error *err)
{
	struct version_params tp = *p;
	struct pep440 v = *file, tagv;
	int rc;

	if (v.pre_kind != PEP440_PRE_NONE || v.has_post || v.has_dev ||
	    v.local[0])
		return error_set(err, ERROR_INVALID, "version file '%s' must "
				 "hold a final release for version-source "
				 "file+tags", p->file);
	tp.fallback = NULL;
	tp.fallback_pretend = 0;
	tp.from = VERSION_FROM_TAGS;
	rc = version_compute_at(repo, rev, &tp, out, err);
	if (rc == ERROR_NOT_FOUND && err && strstr(err->msg, "no tag of the")) {
		char fam[512];

		version_family_text(p, fam, sizeof(fam));
		error_init(err);
		error_set(err, ERROR_NOT_FOUND, "no tag of the family is "
			  "reachable from '%s' (%s): version-source file+tags "
			  "counts the commits since the nearest one",
			  rev ? rev : "HEAD", fam[0] ? fam : "every tag");
		error_hint(err, "tag the cycle's opening (an alpha such as "
			   "v26.08.00a), or use version-source: file");
	}
	if (rc < 0)
		return rc;
	rc = out->tag ? version_tag_claims(p, out->tag, &tagv, err) : 0;
	if (rc < 0)
		return rc;
	if (!rc)
		memset(&tagv, 0, sizeof(tagv));
	/* rapids-generate-version: {base}{stage}{distance} with the nearest
	 * tag's stage (a, b, rc), and "rc" after a tag with none (a final):
	 * a release branch after v26.06.00 is 26.6.0rcN, main after
	 * v26.06.00a 26.6.0aN, never one version for both. */
	if (out->distance || out->dirty || pep440_compare(&tagv, file)) {
		v.pre_kind = !tagv.n_release ? PEP440_PRE_A
			   : tagv.pre_kind == PEP440_PRE_NONE ? PEP440_PRE_RC
			   : tagv.pre_kind;
		v.pre = out->distance;
	}
	return format_with_node(out, &v, err);
}

int
version_compute_root_at(struct graph_repo *repo, const char *rev,
			const struct version_params *p,
			struct version_result *out, struct error *err)
{
	const char *revname = rev ? rev : "HEAD";
	struct graph_oid oid;
	struct pep440 v;
	char hex[GRAPH_OID_HEX];
	int rc;

	if (p->from == VERSION_FROM_TAGS || !p->file)
		return version_compute_at(repo, rev, p, out, err);
	memset(out, 0, sizeof(*out));
	rc = graph_repo_resolve(repo, revname, &oid, err);
	if (rc < 0)
		return rc;
	rc = file_version(repo, &oid, revname, p, &v, err);
	if (rc < 0)
		return rc;
	if (p->from == VERSION_FROM_FILE_TAGS) {
		rc = with_tags(repo, rev, p, &v, out, err);
		if (rc < 0)
			version_result_release(out);
		return rc;
	}
	graph_oid_hex(&oid, hex);
	memcpy(out->commit, hex, sizeof(out->commit));
	rc = version_node_from_hex(hex, p->node_length ? p->node_length
				   : VERSION_NODE_LENGTH_DEFAULT, out->node,
				   sizeof(out->node), err);
	if (rc < 0)
		return rc;
	out->source = VERSION_SOURCE_FILE;
	out->version = mem_alloc(PEP440_TEXT_MAX);
	if (!out->version)
		return error_set(err, ERROR_NOMEM, "out of memory");
	if (pep440_format(&v, out->version, PEP440_TEXT_MAX, err) < 0) {
		version_result_release(out);
		return ERROR_INVALID;
	}
	return 0;
}
