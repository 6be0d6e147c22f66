/*
 * Recording outcomes: key at the run's commit with the run's own upstream
 * output digests, artifact digests, key and input manifests, one record.
 */
#include "engine/plan/record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/file.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "engine/plan/eval.h"
#include "graph/digest.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "graph/outputs.h"
#include "graph/source.h"
#include "rules/rules.h"
#include "base/banned.h"

/*
 * Hash one artifact by streaming it (never read whole into memory): the
 * base name of `name` (its locator), then the bytes of `file` (where they
 * are read) framed as digest_add frames them (the size from fstat, then
 * the contents). Only a regular file is hashed: a FIFO, a device
 * (/dev/zero) or a folder is refused; a file whose size changes while it
 * is read is an error, not a digest of half of it.
 */
static int
add_file(struct digest_state *st, const char *name, const char *file,
	 struct error *err)
{
	char chunk[65536];
	const char *slash = strrchr(name, '/');
	unsigned long long size, total = 0;
	struct error probe;
	struct stat sb;
	ssize_t n;
	int fd, rc = 0;

	error_init(&probe);
	fd = file_open_regular(file, name, &probe);
	if (fd == ERROR_INVALID) {
		if (err && !err->code)
			*err = probe;
		return fd;
	}
	if (fd < 0)
		return error_set(err, fd, "cannot read artifact '%s': %s", name,
				 strerror(errno));
	if (fstat(fd, &sb)) {
		rc = error_set(err, ERROR_IO, "cannot read artifact '%s': %s",
			       name, strerror(errno));
		goto done;
	}
	size = (unsigned long long)sb.st_size;
	digest_add_str(st, slash ? slash + 1 : name);
	digest_add_u64(st, size);
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = error_set(err, ERROR_IO, "cannot read artifact "
				       "'%s': %s", name, strerror(errno));
			goto done;
		}
		if (n == 0)
			break;
		total += (unsigned long long)n;
		if (total > size)
			break;
		digest_add_raw(st, chunk, (size_t)n);
	}
	if (total != size)
		rc = error_set(err, ERROR_IO, "artifact '%s' changed while it "
			       "was hashed (%llu bytes, then %llu)", name, size,
			       total);
done:
	close(fd);
	return rc;
}

/* Index pairs sorted by name (byte order); names are unique. */
struct named {
	const char *name, *file;
};

static int
cmp_named(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name,
		      ((const struct named *)b)->name);
}

int
record_output_digest_files(const char *const *names,
			   const char *const *files, size_t n,
			   struct digest *out, struct error *err)
{
	struct named *v = mem_calloc(n + 1, sizeof(*v));
	struct digest_state st = DIGEST_STATE_INIT;
	size_t i;
	int rc;

	if (!v)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		v[i].name = names[i];
		v[i].file = files[i];
	}
	qsort(v, n, sizeof(*v), cmp_named);
	rc = digest_begin(&st, "ripple-output-v1", err);
	for (i = 0; !rc && i < n; i++)
		rc = add_file(&st, v[i].name, v[i].file, err);
	if (rc)
		digest_abort(&st);
	else
		digest_end(&st, out);
	mem_free(v);
	return rc;
}

int
record_output_digest(const char *root, const char *const *paths, size_t n,
		     struct digest *out, struct error *err)
{
	char **files = mem_calloc(n + 1, sizeof(*files));
	size_t i;
	int rc = 0;

	if (!files)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; !rc && i < n; i++) {
		size_t len = (root ? strlen(root) : 0) + strlen(paths[i]) + 2;

		files[i] = mem_alloc(len);
		if (!files[i])
			rc = error_set(err, ERROR_NOMEM, "out of memory");
		else if (paths[i][0] == '/' || !root)
			snprintf(files[i], len, "%s", paths[i]);
		else
			snprintf(files[i], len, "%s/%s", root, paths[i]);
	}
	if (!rc)
		rc = record_output_digest_files(paths,
						(const char *const *)files, n,
						out, err);
	for (i = 0; i < n; i++)
		mem_free(files[i]);
	mem_free(files);
	return rc;
}

struct run_ctx {
	struct cache *cache;
	const char *run;
	struct eval *ev;
};

const char *
record_payload_digest(const struct cache_record *rec)
{
	static const char key[] = "payload-digest=";
	size_t i;

	for (i = 0; i < rec->metadata.n; i++)
		if (!strncmp(rec->metadata.v[i], key, sizeof(key) - 1) &&
		    strlen(rec->metadata.v[i]) == sizeof(key) - 1 + 32)
			return rec->metadata.v[i] + sizeof(key) - 1;
	return NULL;
}

static int
run_output_digest(void *payload, const struct graph_node *node,
		  struct digest *out)
{
	struct run_ctx *rc = payload;
	struct cache_record rec;
	struct error err;
	int found = 0;

	error_init(&err);
	cache_record_init(&rec);
	if (!cache_record_get(rc->cache, rc->run, node->id, &rec, &err) &&
	    rec.status == CACHE_RECORD_STATUS_OK && rec.output_digest &&
	    !digest_from_hex(record_payload_digest(&rec)
			     ? record_payload_digest(&rec)
			     : rec.output_digest, out, NULL))
		found = 1;
	cache_record_release(&rec);
	return found;
}

static int run_group_digest(void *payload, const struct graph_node *node,
			    const char *group, struct digest *out);

static int
run_source_key(void *payload, const struct graph_input *in,
	       struct digest *out, struct error *err)
{
	struct run_ctx *rc = payload;

	return rc->ev->sources.source_key(rc->ev->sources.payload, in, out,
					  err);
}

int
record_node_key(struct cache *c, struct eval *ev, const char *run,
		size_t index, struct graph_keys **keys, struct error *err)
{
	struct run_ctx ctx = { c, run, ev };
	struct graph_key_sources src = { run_source_key, NULL,
					 run_output_digest, &ctx,
					 run_group_digest };
	const struct graph *g = ev->graph;
	unsigned char *want;
	size_t i, k;
	int rc = 0;

	if (!*keys) {
		rc = graph_keys_new(g, keys, err);
		if (rc)
			return rc;
	}
	want = mem_calloc(g->n_nodes + 1, 1);
	if (!want)
		return error_set(err, ERROR_NOMEM, "out of memory");
	want[index] = 1;
	for (i = g->n_nodes; i-- > 0;)
		if (want[i])
			for (k = 0; k < g->nodes[i].n_deps; k++)
				want[g->nodes[i].deps[k]] = 1;
	for (i = 0; !rc && i <= index; i++)
		if (want[i])
			rc = graph_keys_node(g, *keys, i, &src, err);
	mem_free(want);
	return rc;
}

void
record_file_identity(const struct graph_source_file *f, char *digest,
		     size_t dn, char *detail, size_t tn)
{
	if (f->kind == GRAPH_FILE_SYMLINK && f->target_id[0])
		snprintf(digest, dn, "%s:%s", f->id, f->target_id);
	else
		snprintf(digest, dn, "%s", f->id);
	if (f->link_target)
		snprintf(detail, tn, "%o -> %s", f->mode, f->link_target);
	else
		snprintf(detail, tn, "%o", f->mode);
}

int
record_source_manifest(struct cache *c, const struct graph_source_state *st,
		       struct error *err)
{
	struct cache_manifest m;
	char digest[128], detail[4200];
	size_t i;
	int rc = 0;

	memset(&m, 0, sizeof(m));
	memcpy(m.key, st->key_hex, sizeof(m.key));
	for (i = 0; !rc && i < st->n_files; i++) {
		record_file_identity(&st->files[i], digest, sizeof(digest),
				     detail, sizeof(detail));
		rc = cache_manifest_add(&m, "file", st->files[i].path, digest,
					detail, err);
	}
	if (!rc)
		rc = cache_manifest_put(c, &m, err);
	cache_manifest_release(&m);
	return rc;
}

static int
key_manifest(const struct graph_node_key *k, struct cache_manifest *m,
	     struct error *err)
{
	size_t i;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	memcpy(m->key, k->key.hex, sizeof(m->key));
	for (i = 0; !rc && i < k->n_components; i++) {
		const struct graph_component *cp = &k->components[i];

		rc = cache_manifest_add(m, graph_comp_kind_name(cp->kind),
					cp->name, cp->digest,
					cp->detail ? cp->detail : "", err);
	}
	return rc;
}

/*
 * "K=V" as people write it (the first '=' ends K) into the cache's entry
 * form, where '%' and '=' in K are escaped (cache_metadata_entry).
 */
static int
add_meta(struct strv *sv, const char *kv, struct error *err)
{
	const char *eq = strchr(kv, '=');
	char *key, *entry = NULL;
	int rc;

	if (eq == kv) {
		error_set(err, ERROR_INVALID, "--meta '%s' has an empty key",
			  kv);
		error_hint(err, "name it: --meta KEY=VALUE");
		return ERROR_INVALID;
	}
	if (!eq) {
		error_set(err, ERROR_INVALID, "--meta '%s' is not KEY=VALUE",
			  kv);
		error_hint(err, "write --meta KEY=VALUE");
		return ERROR_INVALID;
	}
	key = mem_alloc((size_t)(eq - kv) + 1);
	if (!key)
		return error_set(err, ERROR_NOMEM, "out of memory");
	memcpy(key, kv, (size_t)(eq - kv));
	key[eq - kv] = '\0';
	rc = cache_metadata_entry(key, eq + 1, &entry, err);
	mem_free(key);
	if (!rc)
		rc = strv_push_ref(sv, entry, err);
	if (rc)
		mem_free(entry);
	return rc;
}

int
record_node(struct cache *c, struct eval *ev, const char *run, size_t index,
	    const struct record_outcome *o, struct error *err)
{
	const struct graph_node *node = &ev->graph->nodes[index];
	struct graph_keys *keys = NULL;
	struct cache_manifest m;
	struct cache_record rec;
	struct digest out;
	size_t i;
	int rc;

	memset(&m, 0, sizeof(m));
	cache_record_init(&rec);
	rc = record_node_key(c, ev, run, index, &keys, err);
	if (rc)
		goto done;
	for (i = 0; i < node->n_inputs; i++) {
		const struct graph_source_state *st;

		rc = eval_input_state(ev, &node->inputs[i], &st, err);
		if (!rc)
			rc = record_source_manifest(c, st, err);
		if (rc)
			goto done;
	}
	rc = key_manifest(&keys->keys[index], &m, err);
	if (rc)
		goto done;
	rec.run = (char *)run;
	rec.node_id = (char *)node->id;
	memcpy(rec.key, keys->keys[index].key.hex, sizeof(rec.key));
	rc = cache_record_status_parse(o->status, &rec.status, err);
	if (rc)
		goto done;
	if (o->output_digest) {
		rec.output_digest = (char *)o->output_digest;
	} else if (o->n_artifacts) {
		rc = record_output_digest(graph_repo_root(ev->repo),
					  o->artifacts, o->n_artifacts, &out,
					  err);
		if (rc)
			goto done;
		rec.output_digest = out.hex;
	}
	for (i = 0; !rc && i < o->n_artifacts; i++)
		rc = strv_push(&rec.artifacts, o->artifacts[i], err);
	for (i = 0; !rc && i < o->n_meta; i++)
		rc = add_meta(&rec.metadata, o->meta[i], err);
	if (rc)
		goto done;
	rec.version = (char *)o->version;
	rec.duration_ms = o->duration_ms;
	rec.recorded_ms = cache_clock_ms();
	rc = cache_record_put_in(c, o->run, &rec, &m, err);
	rec.run = rec.node_id = rec.output_digest = rec.version = NULL;
done:
	rec.run = rec.node_id = rec.output_digest = rec.version = NULL;
	cache_record_release(&rec);
	cache_manifest_release(&m);
	graph_keys_free(keys);
	if (rc)
		error_node(err, node->id);
	return rc;
}

int
record_group_meta(const char *root, const struct graph_node *n,
		  const struct strv *arts, struct strv *meta,
		  struct error *err)
{
	const char **files = NULL;
	struct digest d;
	char line[400];
	size_t i, k, j, nf, first, count;
	int rc = 0;

	if (!n->rule || !n->rule->n_groups)
		return 0;
	files = mem_calloc(arts->n + 1, sizeof(*files));
	if (!files)
		return error_set(err, ERROR_NOMEM, "out of memory");
	for (i = 0; !rc && i < n->rule->n_groups; i++) {
		const char *name = n->rule->groups[i].name;

		if (graph_node_group_outputs(n, name, &first, &count))
			continue;
		for (k = nf = 0; k < arts->n; k++)
			for (j = first; j < first + count; j++)
				if (graph_glob_match(n->outputs[j],
						     arts->v[k])) {
					files[nf++] = arts->v[k];
					break;
				}
		rc = record_output_digest(root, files, nf, &d, err);
		if (!rc) {
			snprintf(line, sizeof(line), "%s%s=%s",
				 RECORD_GROUP_META, name, d.hex);
			rc = strv_push(meta, line, err);
		}
	}
	mem_free(files);
	return rc;
}

int
record_groups_text(const struct strv *meta, struct buf *out,
		   struct error *err)
{
	size_t i, plen = strlen(RECORD_GROUP_META);
	int rc = 0;

	for (i = 0; !rc && i < meta->n; i++)
		if (!strncmp(meta->v[i], RECORD_GROUP_META, plen))
			rc = buf_addf(out, err, "%s\n", meta->v[i] + plen);
	return rc;
}

int
record_group_digest(const char *text, const char *group, struct digest *out)
{
	size_t len = strlen(group);
	const char *p = text;
	char hex[33];

	while (p && *p) {
		const char *eol = strchr(p, '\n');

		if (!strncmp(p, group, len) && p[len] == '=' && eol &&
		    eol - (p + len + 1) == 32) {
			memcpy(hex, p + len + 1, 32);
			hex[32] = '\0';
			return digest_from_hex(hex, out, NULL) ? 0 : 1;
		}
		p = eol ? eol + 1 : NULL;
	}
	return 0;
}

/* This run's record of node's group digest (record_node_key). */
static int
run_group_digest(void *payload, const struct graph_node *node,
		 const char *group, struct digest *out)
{
	struct run_ctx *rc = payload;
	struct cache_record rec;
	struct error err;
	struct buf text;
	int found = 0;

	error_init(&err);
	cache_record_init(&rec);
	buf_init(&text, 0);
	if (!cache_record_get(rc->cache, rc->run, node->id, &rec, &err) &&
	    rec.status == CACHE_RECORD_STATUS_OK &&
	    !record_groups_text(&rec.metadata, &text, NULL))
		found = record_group_digest(text.data, group, out);
	buf_release(&text);
	cache_record_release(&rec);
	return found;
}
