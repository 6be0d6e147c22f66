/*
 * The remote cache's action results: the AC key of a node, and REAPI
 * ActionResult bytes (cache/reapi.proto, encoded by protobuf-c) to and from
 * struct remote_action. Decoding treats the bytes as hostile: sizes are
 * capped and every path and digest is checked before anything is copied
 * out. Requests: remote_node.c.
 */
#include "cache/remote.h"
#include "cache/remote_int.h"

#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/host.h"
#include "base/path.h"
#include "base/mem.h"
#include "cache/cache.h"
#include "cache/reapi.pb-c.h"
#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")
#define WORKER_MAX 256

/* The generated names, shorter. */
#define PB(name) Build__Bazel__Remote__Execution__V2__##name
#define pb(name) build__bazel__remote__execution__v2__##name

int
remote_ac_key(const char *node_id, const char *key, char *out,
	      struct error *err)
{
	static const char ns[] = REMOTE_AC_NAMESPACE;
	EVP_MD_CTX *md;
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	int ok;

	if (!node_id || !node_id[0])
		return error_set(err, ERROR_INVALID, "empty node id");
	if (!key || !cache_key_valid(key))
		return error_set(err, ERROR_INVALID, "node key '%s' is not 32 "
				 "lowercase hex digits", key ? key : "");
	md = EVP_MD_CTX_new();
	if (!md)
		return OOM(err);
	/* Each string with its NUL: "ripple-ac-v1\0NODE\0KEY" (no final NUL). */
	ok = EVP_DigestInit_ex(md, EVP_sha256(), NULL) &&
	     EVP_DigestUpdate(md, ns, sizeof(ns)) &&
	     EVP_DigestUpdate(md, node_id, strlen(node_id) + 1) &&
	     EVP_DigestUpdate(md, key, strlen(key)) &&
	     EVP_DigestFinal_ex(md, d, &n) && n == 32;
	EVP_MD_CTX_free(md);
	if (!ok)
		return error_set(err, ERROR_INTERNAL, "cannot hash (SHA-256)");
	remote_hex(d, n, out);
	return 0;
}

void
remote_action_release(struct remote_action *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++)
		mem_free(a->outputs[i].path);
	mem_free(a->outputs);
	mem_free(a->worker);
	mem_free(a->record_text);
	memset(a, 0, sizeof(*a));
}

/*
 * At most 200 bytes of p for a message (NUL-terminated in out[0..size)),
 * every byte that is not printable ASCII written as \xHH: a control byte
 * never reaches a terminal, and an invisible code point (U+200C in
 * ".g\xe2\x80\x8cit") is seen for what it is.
 */
static void
shown(const char *p, size_t len, char *out, size_t size)
{
	size_t i, k = 0;

	for (i = 0; i < len && i < 200 && k + 5 <= size; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[k++] = (char)c;
		else
			k += (size_t)snprintf(out + k, size - k, "\\x%02x", c);
	}
	out[k] = '\0';
}

int
remote_output_path_check(const char *path, size_t len, struct error *err)
{
	char s[4 * 200 + 1], what[PATH_BAD_WHAT];
	const char *why = NULL, *c, *end;

	if (!len || !path)
		return error_set(err, ERROR_INVALID, "empty output path");
	c = path;
	end = path + len;
	shown(path, len, s, sizeof(s));
	if (len > REMOTE_PATH_MAX)
		why = "is too long";
	else if (memchr(path, '\0', len))
		why = "holds a NUL byte";
	else if (path[0] == '/')
		why = "is absolute";
	else if (memchr(path, '\\', len))
		why = "holds a backslash";
	if (!why && path_bad_char(path, len, what))
		why = strstr(what, "UTF-8") ? "holds a byte that is not UTF-8"
					    : "holds a control character";
	while (!why && c < end) {
		const char *slash = memchr(c, '/', (size_t)(end - c));
		size_t n = (size_t)((slash ? slash : end) - c);

		if (!n || (n == 1 && c[0] == '.'))
			why = "has an empty or '.' component";
		else if (n == 2 && c[0] == '.' && c[1] == '.')
			why = "has a '..' component";
		else if (c == path && n == 7 && !memcmp(c, ".ripple", 7))
			why = "is under the reserved '.ripple/'";
		else if (n == 4 && c[0] == '.' && strchr("gG", c[1]) &&
			 strchr("iI", c[2]) && strchr("tT", c[3]))
			why = "is inside git's '.git' folder";
		c += n + 1;
		if (slash && c == end)
			why = "ends in '/'";
	}
	if (!why)
		why = path_name_refused(path, len, host_path_names(), NULL,
					NULL);
	if (why)
		return error_set(err, ERROR_INVALID, "output path '%s' %s", s,
				 why);
	return 0;
}

static int
cmp_output(const void *a, const void *b)
{
	const struct remote_output *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/*
 * The first output of sorted `o` (n) that names a path under folder
 * `dir` (dir + "/"), or NULL: a file and a folder cannot share a path, so
 * an entry listing both is corrupt (staging the one would make the
 * other impossible to place).
 */
static const struct remote_output *
under(const struct remote_output *o, size_t n, const char *dir)
{
	size_t lo = 0, hi = n, len = strlen(dir);

	while (lo < hi) {	/* the first path > dir + "/" ... */
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(o[mid].path, dir, len);

		if (c < 0 || (c == 0 && (unsigned char)o[mid].path[len] <
			      (unsigned char)'/'))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && !strncmp(o[lo].path, dir, len) && o[lo].path[len] == '/')
		return &o[lo];
	return NULL;
}

static int
cmp_output_ptr(const void *a, const void *b)
{
	return cmp_output(*(const struct remote_output *const *)a,
			  *(const struct remote_output *const *)b);
}

/* protobuf-c allocates through the seam; *data counts failures. */
static void *
pb_alloc(void *data, size_t size)
{
	void *p = mem_alloc(size ? size : 1);

	if (!p)
		(*(int *)data)++;
	return p;
}

static void
pb_free(void *data, void *p)
{
	(void)data;
	mem_free(p);
}

static int
digest_bad(const struct remote_digest *d)
{
	return !remote_hash_valid(d->hash) || d->size < 0;
}

/* Fill one OutputFile and its Digest (pointing into src). */
static void
output_set(PB(OutputFile) *f, PB(Digest) *d, const char *path,
	   const struct remote_digest *src, int executable)
{
	pb(output_file__init)(f);
	pb(digest__init)(d);
	d->hash.data = (uint8_t *)src->hash;
	d->hash.len = REMOTE_HASH_LEN;
	d->size_bytes = src->size;
	f->path.data = (uint8_t *)path;
	f->path.len = strlen(path);
	f->digest = d;
	f->is_executable = executable ? 1 : 0;
}

int
remote_action_encode(const struct remote_action *a, unsigned char **out,
		     size_t *len, struct error *err)
{
	const struct remote_output **sorted = NULL;
	PB(OutputFile) *files = NULL, **fp = NULL;
	PB(Digest) *digests = NULL;
	PB(ActionResult) ar;
	PB(ExecutedActionMetadata) meta;
	size_t i, n = a->n;
	int rc = 0;

	*out = NULL;
	*len = 0;
	if (digest_bad(&a->record))
		return error_set(err, ERROR_INVALID, "malformed record digest");
	sorted = mem_calloc(n + 1, sizeof(*sorted));
	files = mem_calloc(n + 1, sizeof(*files));
	fp = mem_calloc(n + 1, sizeof(*fp));
	digests = mem_calloc(n + 1, sizeof(*digests));
	if (!sorted || !files || !fp || !digests) {
		rc = OOM(err);
		goto done;
	}
	for (i = 0; i < n; i++) {
		const struct remote_output *o = &a->outputs[i];

		rc = remote_output_path_check(o->path, strlen(o->path), err);
		if (rc)
			goto done;
		if (digest_bad(&o->digest)) {
			rc = error_set(err, ERROR_INVALID, "malformed digest "
				       "of output '%s'", o->path);
			goto done;
		}
		sorted[i] = o;
	}
	qsort(sorted, n, sizeof(*sorted), cmp_output_ptr);
	for (i = 0; i < n; i++) {
		if (i && !strcmp(sorted[i - 1]->path, sorted[i]->path)) {
			rc = error_set(err, ERROR_INVALID, "output path '%s' "
				       "given twice", sorted[i]->path);
			goto done;
		}
		output_set(&files[i], &digests[i], sorted[i]->path,
			   &sorted[i]->digest, sorted[i]->executable);
		fp[i] = &files[i];
	}
	output_set(&files[n], &digests[n], REMOTE_RECORD_PATH, &a->record, 0);
	if (a->record_text && a->record_len <= REMOTE_INLINE_MAX) {
		files[n].contents.data = (uint8_t *)a->record_text;
		files[n].contents.len = a->record_len;
	}
	fp[n] = &files[n];
	pb(action_result__init)(&ar);
	ar.n_output_files = n + 1;
	ar.output_files = fp;
	ar.exit_code = a->exit_code;
	if (a->worker) {
		pb(executed_action_metadata__init)(&meta);
		meta.worker = a->worker;
		ar.execution_metadata = &meta;
	}
	*len = pb(action_result__get_packed_size)(&ar);
	*out = mem_alloc(*len ? *len : 1);
	if (!*out) {
		*len = 0;
		rc = OOM(err);
		goto done;
	}
	pb(action_result__pack)(&ar, *out);
done:
	mem_free(digests);
	mem_free(fp);
	mem_free(files);
	mem_free(sorted);
	return rc;
}

/* Copy a hostile Digest into *d. 0 or ERROR_CORRUPT. */
static int
digest_from_pb(const PB(Digest) *pd, const char *path,
	       struct remote_digest *d, struct error *err)
{
	if (!pd || pd->hash.len != REMOTE_HASH_LEN || pd->size_bytes < 0)
		goto bad;
	memcpy(d->hash, pd->hash.data, REMOTE_HASH_LEN);
	d->hash[REMOTE_HASH_LEN] = '\0';
	d->size = pd->size_bytes;
	if (!remote_hash_valid(d->hash))
		goto bad;
	return 0;
bad:
	return error_set(err, ERROR_CORRUPT, "ActionResult has a malformed "
			 "digest for '%s'", path);
}

/*
 * The record's bytes inline (OutputFile.contents), checked against the
 * record digest just taken: a copy in a->record_text, or nothing when the
 * entry has none (older entries: the record is fetched from the CAS).
 */
static int
take_inline(const PB(OutputFile) *f, struct remote_action *a,
	    struct error *err)
{
	struct remote_digest d;
	struct error e;

	if (!f->contents.len)
		return 0;
	error_init(&e);
	if (f->contents.len > REMOTE_INLINE_MAX)
		return error_set(err, ERROR_CORRUPT, "ActionResult's inline "
				 "record of %zu bytes is past the %u allowed",
				 f->contents.len, REMOTE_INLINE_MAX);
	if (remote_digest_buf(f->contents.data, f->contents.len, &d, &e))
		return error_set(err, ERROR_INTERNAL, "%s", e.msg);
	if (d.size != a->record.size || strcmp(d.hash, a->record.hash))
		return error_set(err, ERROR_CORRUPT, "ActionResult's inline "
				 "record hashes to %s (%lld bytes), not its "
				 "digest %s (%lld bytes)", d.hash,
				 (long long)d.size, a->record.hash,
				 (long long)a->record.size);
	a->record_text = mem_alloc(f->contents.len + 1);
	if (!a->record_text)
		return OOM(err);
	memcpy(a->record_text, f->contents.data, f->contents.len);
	a->record_text[f->contents.len] = '\0';
	a->record_len = f->contents.len;
	return 0;
}

/* Take one hostile OutputFile into a (record or output). */
static int
take_output(const PB(OutputFile) *f, struct remote_action *a, int *records,
	    struct error *err)
{
	const char *p = (const char *)f->path.data;
	size_t len = f->path.len;
	struct remote_output *o;
	struct error why;
	char s[4 * 200 + 1];

	if (!p || !len)
		return error_set(err, ERROR_CORRUPT, "ActionResult refused: "
				 "empty output path");
	shown(p, len, s, sizeof(s));
	if (len == strlen(REMOTE_RECORD_PATH) &&
	    !memcmp(p, REMOTE_RECORD_PATH, len)) {
		int rc;

		(*records)++;
		rc = digest_from_pb(f->digest, s, &a->record, err);
		return rc ? rc : take_inline(f, a, err);
	}
	error_init(&why);
	if (remote_output_path_check(p, len, &why))
		return error_set(err, ERROR_CORRUPT, "ActionResult refused: %s",
				 why.msg);
	o = &a->outputs[a->n];
	o->path = mem_alloc(len + 1);
	if (!o->path)
		return OOM(err);
	memcpy(o->path, p, len);
	o->path[len] = '\0';
	a->n++;
	o->executable = f->is_executable ? 1 : 0;
	return digest_from_pb(f->digest, s, &o->digest, err);
}

int
remote_action_decode(const void *p, size_t len, struct remote_action *out,
		     struct error *err)
{
	int records = 0, rc = 0, oom = 0;
	ProtobufCAllocator alloc = { pb_alloc, pb_free, &oom };
	PB(ActionResult) *ar = NULL;
	struct remote_action a;
	size_t i;

	memset(out, 0, sizeof(*out));
	memset(&a, 0, sizeof(a));
	if (len > REMOTE_AC_MAX)
		return error_set(err, ERROR_CORRUPT, "ActionResult of %zu "
				 "bytes is past the %u allowed", len,
				 REMOTE_AC_MAX);
	ar = pb(action_result__unpack)(&alloc, len, p);
	if (!ar && oom)
		return OOM(err);
	if (!ar)
		return error_set(err, ERROR_CORRUPT, "not an ActionResult "
				 "(malformed protobuf)");
	if (ar->n_output_files > REMOTE_OUTPUTS_MAX + 1) {
		rc = error_set(err, ERROR_CORRUPT, "ActionResult lists %zu "
			       "files, more than the %d allowed",
			       ar->n_output_files, REMOTE_OUTPUTS_MAX);
		goto done;
	}
	a.outputs = mem_calloc(ar->n_output_files + 1, sizeof(*a.outputs));
	if (!a.outputs) {
		rc = OOM(err);
		goto done;
	}
	for (i = 0; i < ar->n_output_files; i++) {
		rc = take_output(ar->output_files[i], &a, &records, err);
		if (rc)
			goto done;
	}
	if (records != 1) {
		rc = error_set(err, ERROR_CORRUPT, "ActionResult names %d "
			       "record blobs ('%s'), not one", records,
			       REMOTE_RECORD_PATH);
		goto done;
	}
	qsort(a.outputs, a.n, sizeof(*a.outputs), cmp_output);
	for (i = 1; i < a.n; i++) {
		if (!strcmp(a.outputs[i - 1].path, a.outputs[i].path)) {
			rc = error_set(err, ERROR_CORRUPT, "ActionResult lists "
				       "'%s' twice", a.outputs[i].path);
			goto done;
		}
	}
	for (i = 0; i < a.n; i++) {
		const struct remote_output *o = under(a.outputs, a.n,
						      a.outputs[i].path);

		if (o) {
			rc = error_set(err, ERROR_CORRUPT, "ActionResult lists "
				       "'%s' as a file and '%s' under it",
				       a.outputs[i].path, o->path);
			goto done;
		}
	}
	a.exit_code = ar->exit_code;
	if (ar->execution_metadata && ar->execution_metadata->worker &&
	    ar->execution_metadata->worker[0]) {
		const char *w = ar->execution_metadata->worker;

		if (strlen(w) > WORKER_MAX) {
			rc = error_set(err, ERROR_CORRUPT, "ActionResult's "
				       "worker name is past %d bytes",
				       WORKER_MAX);
			goto done;
		}
		a.worker = mem_strdup(w);
		if (!a.worker) {
			rc = OOM(err);
			goto done;
		}
	}
	*out = a;
	memset(&a, 0, sizeof(a));
done:
	remote_action_release(&a);
	pb(action_result__free_unpacked)(ar, &alloc);
	return rc;
}
