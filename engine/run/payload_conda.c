/*
 * Payload digests of conda packages (engine/run/payload.h): every file
 * and link of the package, not its metadata (info/ but index.json's
 * identity and dependencies and the install hints), a Python package's
 * METADATA without its long description, and the package's own version
 * read as "{version}" throughout. Entries are hashed one by one and
 * sorted, so the order a packer wrote them in does not count.
 */
#include "engine/run/payload_int.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/strv.h"
#include "engine/run/conda.h"
#include "graph/digest.h"
#include "base/banned.h"

struct pay {
	struct payload_tokens t;
	struct strv lines;	/* "MASKED-NAME\nHEX" per entry */
};

static int
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/*
 * What of info/ is payload: index.json (name, version, dependencies,
 * platform), and how the files install (has_prefix, no_link, link.json).
 * The rest is text about the package (about.json, the rendered recipe,
 * paths.json's hashes of the files hashed here anyway, git, licenses).
 */
static int
info_kept(const char *name)
{
	return !strcmp(name, "info/index.json") ||
	       !strcmp(name, "info/has_prefix") ||
	       !strcmp(name, "info/no_link") ||
	       !strcmp(name, "info/link.json");
}

/* index.json without the build string, build number and timestamp (a
 * RAPIDS build string names the commit and date), keys sorted. */
static int
index_text(const char *name, const struct buf *data, struct buf *out,
	   struct error *err)
{
	json_error_t je;
	json_t *doc = json_loadb(data->data, data->len, 0, &je);
	char *s;
	int rc;

	if (!json_is_object(doc)) {
		json_decref(doc);
		return error_set(err, ERROR_INVALID, "conda '%s' is no JSON "
				 "object", name);
	}
	json_object_del(doc, "build");
	json_object_del(doc, "build_number");
	json_object_del(doc, "timestamp");
	s = json_dumps(doc, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(doc);
	if (!s)
		return error_set(err, ERROR_NOMEM, "out of memory");
	rc = buf_addstr(out, s, err);
	free(s);
	return rc;
}

static int
entry(void *payload, const char *name, const char *link,
      const struct buf *data, struct error *err)
{
	struct pay *p = payload;
	struct buf text = BUF_INIT, body = BUF_INIT, line = BUF_INIT;
	struct digest_state st = DIGEST_STATE_INIT;
	struct digest d;
	const char *src = NULL, *ver;
	size_t n = 0, ver_len;
	int rc = 0;

	if ((!strncmp(name, "info/", 5) && !info_kept(name)) ||
	    ends_with(name, ".dist-info/RECORD") ||
	    ends_with(name, ".dist-info/direct_url.json"))
		return 0;
	if (link) {
		rc = buf_addf(&text, err, "link:%s", link);
	} else if (!strcmp(name, "info/index.json")) {
		rc = index_text(name, data, &text, err);
	} else if (ends_with(name, ".dist-info/METADATA")) {
		rc = payload_metadata_headers(data->data, data->len, &text,
					      &ver, &ver_len, err);
	} else {
		src = data->data;
		n = data->len;
	}
	if (!src) {
		src = text.data;
		n = text.len;
	}
	if (!rc)
		rc = payload_masked(&body, &p->t, src ? src : "", n, err);
	if (!rc)
		rc = payload_masked(&line, &p->t, name, strlen(name), err);
	if (!rc)
		rc = buf_addch(&line, '\0', err);
	if (!rc)
		rc = digest_begin(&st, "ripple-payload-conda-entry", err);
	if (!rc) {
		digest_add_str(&st, line.data);
		digest_add(&st, body.data, body.len);
		digest_end(&st, &d);
		line.len--;	/* the NUL */
		rc = buf_addf(&line, err, "\n%s", d.hex);
	}
	if (!rc)
		rc = strv_push(&p->lines, line.data, err);
	buf_release(&text);
	buf_release(&body);
	buf_release(&line);
	return rc;
}

int
payload_add_conda(struct digest_state *st, const char *path,
		  struct error *err)
{
	struct run_conda_index ix;
	struct pay p;
	size_t i;
	int rc;

	memset(&p, 0, sizeof(p));
	strv_init(&p.lines, 1);
	rc = run_conda_index_read(path, &ix, err);
	if (!rc) {
		payload_tokens_of(&p.t, ix.version, strlen(ix.version));
		rc = run_conda_walk(path, entry, &p, err);
	}
	/* No conda package to see through (another tarball, no libarchive
	 * here, a damaged one): hashed whole, which never cuts off wrongly. */
	if (rc && rc != ERROR_NOMEM) {
		error_init(err);
		rc = 1;
	}
	if (!rc) {
		strv_sort(&p.lines);
		digest_add_str(st, "conda");
		digest_add_str(st, ix.name);
		for (i = 0; i < p.lines.n; i++)
			digest_add_str(st, p.lines.v[i]);
	}
	strv_release(&p.lines);
	return rc;
}
