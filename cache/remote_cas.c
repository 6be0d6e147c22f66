/*
 * The remote cache's content store: SHA-256 digests of files and buffers,
 * and HEAD, PUT and GET of blobs at URL/cas/<hash> as batches of
 * transfers (remote_xfer.c does the moving and the verifying). The empty
 * blob is never sent or fetched: every server has it, as REAPI says.
 */
#include "cache/remote.h"
#include "cache/remote_int.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"
#include "base/mem.h"
#include "base/place.h"
#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")
#define READ_SIZE (64 * 1024)
#define EMPTY_HASH \
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

int
remote_hash_valid(const char *s)
{
	size_t i;

	for (i = 0; i < REMOTE_HASH_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[i] == '\0';
}

static int
digest_check(const struct remote_digest *d, struct error *err)
{
	if (!remote_hash_valid(d->hash) || d->size < 0)
		return error_set(err, ERROR_INVALID, "malformed digest "
				 "'%.64s/%lld'", d->hash, (long long)d->size);
	return 0;
}

/* A blob to read: its digest well formed, its domain (NULL: trusted) an id. */
static int
blob_ref_check(const struct remote_digest *d, const char *domain,
	       struct error *err)
{
	int rc = digest_check(d, err);

	if (!rc && domain && !remote_domain_valid(domain))
		rc = error_set(err, ERROR_INVALID, "'%.80s' is not a trust "
			       "domain id", domain);
	return rc;
}

static int
is_empty(const struct remote_digest *d)
{
	return d->size == 0 && !strcmp(d->hash, EMPTY_HASH);
}

static int
digest_final(EVP_MD_CTX *md, int64_t size, struct remote_digest *out,
	     struct error *err)
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned n = 0;

	if (!EVP_DigestFinal_ex(md, d, &n) || n != 32)
		return error_set(err, ERROR_INTERNAL, "cannot hash (SHA-256)");
	remote_hex(d, n, out->hash);
	out->size = size;
	return 0;
}

int
remote_digest_fd(int fd, const char *what, struct remote_digest *out,
		 struct error *err)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char *buf = mem_alloc(READ_SIZE);
	int64_t size = 0;
	int rc = 0;
	ssize_t got;

	if (!md || !buf) {
		rc = OOM(err);
		goto done;
	}
	if (!EVP_DigestInit_ex(md, EVP_sha256(), NULL)) {
		rc = error_set(err, ERROR_INTERNAL, "cannot hash (SHA-256)");
		goto done;
	}
	for (;;) {
		got = read(fd, buf, READ_SIZE);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = error_set(err, ERROR_IO, "cannot read '%s': %s",
				       what, strerror(errno));
			goto done;
		}
		if (!got)
			break;
		if (!EVP_DigestUpdate(md, buf, (size_t)got)) {
			rc = error_set(err, ERROR_INTERNAL, "cannot hash");
			goto done;
		}
		size += got;
	}
	rc = digest_final(md, size, out, err);
done:
	mem_free(buf);
	EVP_MD_CTX_free(md);
	return rc;
}

int
remote_digest_file(const char *path, struct remote_digest *out,
		   struct error *err)
{
	int fd = file_open_regular(path, NULL, err);
	int rc;

	if (fd < 0)
		return fd;
	rc = remote_digest_fd(fd, path, out, err);
	close(fd);
	return rc;
}

int
remote_digest_buf(const void *p, size_t n, struct remote_digest *out,
		  struct error *err)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	int rc;

	if (!md)
		return OOM(err);
	if (!EVP_DigestInit_ex(md, EVP_sha256(), NULL) ||
	    !EVP_DigestUpdate(md, p, n))
		rc = error_set(err, ERROR_INTERNAL, "cannot hash (SHA-256)");
	else
		rc = digest_final(md, (int64_t)n, out, err);
	EVP_MD_CTX_free(md);
	return rc;
}

/* n transfers, each xfer_init'd; NULL when out of memory. */
static struct xfer *
xfers_new(size_t n)
{
	struct xfer *x = mem_calloc(n ? n : 1, sizeof(*x));
	size_t i;

	for (i = 0; x && i < n; i++)
		xfer_init(&x[i]);
	return x;
}

static void
xfers_free(struct xfer *x, size_t n)
{
	size_t i;

	for (i = 0; x && i < n; i++)
		xfer_release(&x[i]);
	mem_free(x);
}

/* Copy the request of x into y (xfer_init'd), in the trusted CAS. */
static void
xfer_again(struct xfer *y, const struct xfer *x)
{
	y->method = x->method;
	y->space = "cas";
	memcpy(y->hash, x->hash, REMOTE_HASH_SIZE);
	y->sink = x->sink;
	y->expect_size = x->expect_size;
	y->verify = x->verify;
	y->max = x->max;
	y->out_fd = x->out_fd;
}

int
remote_cas_run(struct remote *r, struct xfer *x, size_t n,
	       const char *const *domains, struct error *err)
{
	char (*space)[REMOTE_SPACE_SIZE] = mem_calloc(n ? n : 1,
						      sizeof(*space));
	struct xfer *y = NULL;
	size_t *idx = NULL, m = 0, i, k;
	int rc;

	if (!space)
		return OOM(err);
	for (i = 0; i < n; i++) {
		remote_cas_space(domains ? domains[i] : NULL, space[i]);
		x[i].space = space[i];
	}
	rc = remote_xfer_run(r, x, n, err);
	for (i = 0; !rc && domains && i < n; i++)
		m += domains[i] && x[i].result == 0;
	if (!rc && m) {
		y = xfers_new(m);
		idx = mem_calloc(m, sizeof(*idx));
		rc = y && idx ? 0 : OOM(err);
	}
	for (i = 0, k = 0; !rc && m && i < n; i++)
		if (domains[i] && x[i].result == 0) {
			xfer_again(&y[k], &x[i]);
			idx[k++] = i;
		}
	if (!rc && m)
		rc = remote_xfer_run(r, y, m, err);
	for (k = 0; !rc && k < m; k++) {
		struct xfer *t = &x[idx[k]];

		t->result = y[k].result;
		t->err = y[k].err;
		t->content_length = y[k].content_length;
		mem_free(t->mem);
		t->mem = y[k].mem;
		t->mem_len = y[k].mem_len;
		y[k].mem = NULL;
	}
	for (i = 0; i < n; i++)
		x[i].space = "cas";	/* `space` goes; messages are made */
	if (y)
		xfers_free(y, m);
	mem_free(idx);
	mem_free(space);
	return rc;
}

int
remote_cas_has(struct remote *r, const struct remote_digest *d, size_t n,
	       const char *const *domains, unsigned char *present,
	       struct error *err)
{
	struct xfer *x = NULL;
	const char **dom = NULL;
	size_t *idx = NULL, m = 0, i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		rc = digest_check(&d[i], err);
		if (!rc && domains && domains[i] &&
		    !remote_domain_valid(domains[i]))
			rc = error_set(err, ERROR_INVALID, "'%.80s' is not a "
				       "trust domain id", domains[i]);
		if (rc)
			return rc;
	}
	x = xfers_new(n);
	idx = mem_calloc(n ? n : 1, sizeof(*idx));
	dom = mem_calloc(n ? n : 1, sizeof(*dom));
	if (!x || !idx || !dom) {
		rc = OOM(err);
		goto done;
	}
	for (i = 0; i < n; i++) {
		present[i] = is_empty(&d[i]);
		if (present[i])
			continue;
		x[m].method = XFER_HEAD;
		memcpy(x[m].hash, d[i].hash, REMOTE_HASH_SIZE);
		dom[m] = domains ? domains[i] : NULL;
		idx[m++] = i;
	}
	rc = remote_cas_run(r, x, m, dom, err);
	if (rc)
		goto done;
	for (i = 0; i < m; i++)
		present[idx[i]] = x[i].result == 1 &&
				  (x[i].content_length < 0 ||
				   x[i].content_length == d[idx[i]].size);
	rc = remote_xfer_first_error(x, m, err);
done:
	xfers_free(x, m);
	mem_free(idx);
	mem_free(dom);
	return rc;
}

int
remote_cas_verify(struct remote *r, struct remote_check *c, size_t n,
		  struct error *err)
{
	struct xfer *x = NULL;
	const char **dom = NULL;
	size_t *idx = NULL, m = 0, i;
	int rc = 0;

	for (i = 0; i < n; i++)
		if ((rc = blob_ref_check(&c[i].digest, c[i].domain, err)) != 0)
			return rc;
	x = xfers_new(n);
	idx = mem_calloc(n ? n : 1, sizeof(*idx));
	dom = mem_calloc(n ? n : 1, sizeof(*dom));
	if (!x || !idx || !dom) {
		rc = OOM(err);
		goto done;
	}
	for (i = 0; i < n; i++) {
		error_init(&c[i].err);
		c[i].result = 1;
		if (is_empty(&c[i].digest))
			continue;	/* every server has it */
		x[m].method = XFER_GET;
		memcpy(x[m].hash, c[i].digest.hash, REMOTE_HASH_SIZE);
		x[m].sink = XFER_SINK_HASH;
		x[m].expect_size = c[i].digest.size;
		x[m].verify = 1;
		dom[m] = c[i].domain;
		idx[m++] = i;
	}
	rc = remote_cas_run(r, x, m, dom, err);
	for (i = 0; !rc && i < m; i++) {
		c[idx[i]].result = x[i].result;
		if (x[i].result < 0)
			c[idx[i]].err = x[i].err;
	}
done:
	xfers_free(x, m);
	mem_free(idx);
	mem_free(dom);
	return rc;
}

/*
 * PUT the n blobs (d: their digests) from files (paths) or one buffer
 * (mem), every one but the empty blob, whether the server claims to hold
 * it or not: a blob that HEAD finds with the right size may still be
 * garbage PUT at a predictable digest (issue 22), and the one request of
 * a PUT costs less than the HEAD and GET that would verify it
 * (docs/remote-cache.md, "Numbers"). The upload replaces it.
 */
static int
put_all(struct remote *r, const char *const *paths, const unsigned char *mem,
	const struct remote_digest *d, size_t n, struct error *err)
{
	struct xfer *x = xfers_new(n);
	size_t m = 0, i;
	int rc;

	if (!x)
		return OOM(err);
	for (i = 0; i < n; i++) {
		if (is_empty(&d[i]))
			continue;
		x[m].method = XFER_PUT;
		x[m].space = r->cas_space;
		memcpy(x[m].hash, d[i].hash, REMOTE_HASH_SIZE);
		x[m].src_size = d[i].size;
		if (paths) {
			x[m].src_path = paths[i];
			x[m].src_hash = d[i].hash;
		} else {
			x[m].src_mem = mem;
		}
		m++;
	}
	rc = remote_xfer_run(r, x, m, err);
	if (!rc)
		rc = remote_xfer_first_error(x, m, err);
	xfers_free(x, m);
	return rc;
}

int
remote_cas_put_files(struct remote *r, const char *const *paths,
		     const struct remote_digest *digests, size_t n,
		     struct remote_digest *out, struct error *err)
{
	struct remote_digest *d = NULL;
	size_t i;
	int rc = 0;

	if (r->opts.read_only)
		return remote_read_only_error(r, err);
	d = mem_calloc(n ? n : 1, sizeof(*d));
	if (!d)
		return OOM(err);
	for (i = 0; i < n; i++) {
		if (digests) {
			d[i] = digests[i];
			rc = digest_check(&d[i], err);
		} else {
			rc = remote_digest_file(paths[i], &d[i], err);
		}
		if (rc)
			goto done;
	}
	rc = put_all(r, paths, NULL, d, n, err);
	if (rc)
		goto done;
	if (out)
		memcpy(out, d, n * sizeof(*d));
done:
	mem_free(d);
	return rc;
}

int
remote_cas_put_buf(struct remote *r, const void *p, size_t n,
		   struct remote_digest *out, struct error *err)
{
	struct remote_digest d;
	int rc;

	if (r->opts.read_only)
		return remote_read_only_error(r, err);
	rc = remote_digest_buf(p, n, &d, err);
	if (rc)
		return rc;
	rc = put_all(r, NULL, p, &d, 1, err);
	if (!rc && out)
		*out = d;
	return rc;
}

/*
 * Where blob f goes: f->fd, or a temp file beside f->dest staged in *pl
 * (its folder must exist; a link, FIFO or device at dest is refused).
 * Returns the descriptor or an error.
 */
static int
sink_of(const struct remote_fetch *f, struct place *pl, struct error *err)
{
	const char *slash;
	char *dir;
	int rc;

	if (!f->dest)
		return f->fd;
	slash = strrchr(f->dest, '/');
	dir = slash ? mem_alloc((size_t)(slash - f->dest) + 2) : NULL;
	if (slash && !dir)
		return OOM(err);
	if (dir)
		snprintf(dir, (size_t)(slash - f->dest) + 2, "%.*s",
			 slash == f->dest ? 1 : (int)(slash - f->dest),
			 f->dest);
	rc = place_open(pl, dir ? dir : ".", err);
	mem_free(dir);
	if (!rc)
		rc = place_stage(pl, slash ? slash + 1 : f->dest, f->mode, err);
	return rc < 0 ? rc : place_fd(pl, (size_t)rc, err);
}

int
remote_cas_get_files(struct remote *r, struct remote_fetch *f, size_t n,
		     struct error *err)
{
	struct xfer *x = NULL;
	struct place *pl = NULL;
	const char **dom = NULL;
	size_t *idx = NULL, m = 0, i;
	int rc = 0;

	for (i = 0; i < n; i++)
		if ((rc = blob_ref_check(&f[i].digest, f[i].domain, err)) != 0)
			return rc;
	x = xfers_new(n);
	idx = mem_calloc(n ? n : 1, sizeof(*idx));
	pl = mem_calloc(n ? n : 1, sizeof(*pl));
	dom = mem_calloc(n ? n : 1, sizeof(*dom));
	if (!x || !idx || !pl || !dom) {
		rc = OOM(err);
		goto done;
	}
	for (i = 0; i < n; i++)
		pl[i].root_fd = -1;
	for (i = 0; i < n; i++) {
		int fd = sink_of(&f[i], &pl[i], err);

		f[i].result = 0;
		if (fd < 0) {
			rc = fd;
			goto done;
		}
		if (is_empty(&f[i].digest)) {
			/* Every server has it: no request. */
			if (ftruncate(fd, 0))
				f[i].result = error_set(err, ERROR_IO, "cannot "
							"write an empty file: "
							"%s", strerror(errno));
			else
				f[i].result = 1;
			continue;
		}
		x[m].method = XFER_GET;
		memcpy(x[m].hash, f[i].digest.hash, REMOTE_HASH_SIZE);
		x[m].sink = XFER_SINK_FILE;
		x[m].expect_size = f[i].digest.size;
		x[m].verify = 1;
		x[m].out_fd = fd;
		dom[m] = f[i].domain;
		idx[m++] = i;
	}
	rc = remote_cas_run(r, x, m, dom, err);
	if (rc)
		goto done;
	for (i = 0; i < m; i++)
		f[idx[i]].result = x[i].result;
	rc = remote_xfer_first_error(x, m, err);
	for (i = 0; !rc && i < n; i++)
		if (f[i].result < 0)
			rc = f[i].result;
	for (i = 0; i < n; i++)
		if (f[i].dest && f[i].result == 1) {
			int c = place_commit(&pl[i], err);

			if (c) {
				f[i].result = c;
				rc = rc ? rc : c;
			}
		}
done:
	xfers_free(x, m);
	for (i = 0; pl && i < n; i++)
		place_close(&pl[i]);
	mem_free(pl);
	mem_free(idx);
	mem_free(dom);
	return rc;
}

int
remote_cas_get_file(struct remote *r, const struct remote_digest *d,
		    const char *dest, unsigned mode, struct error *err)
{
	struct remote_fetch f;
	int rc;

	memset(&f, 0, sizeof(f));
	f.digest = *d;
	f.dest = dest;
	f.mode = mode;
	rc = remote_cas_get_files(r, &f, 1, err);
	return rc ? rc : f.result;
}

/* remote_cas_get_buf from the CAS at `space` ("cas" or "d/ID/cas"). */
static int
get_buf(struct remote *r, const char *space, const struct remote_digest *d,
	size_t max, char **out, size_t *len, struct error *err)
{
	struct xfer x;
	int rc;

	*out = NULL;
	*len = 0;
	rc = digest_check(d, err);
	if (rc)
		return rc;
	if ((uint64_t)d->size > (uint64_t)max)
		return error_set(err, ERROR_INVALID, "blob %s is %lld bytes, "
				 "more than the %zu allowed", d->hash,
				 (long long)d->size, max);
	xfer_init(&x);
	x.method = XFER_GET;
	x.space = space;
	memcpy(x.hash, d->hash, REMOTE_HASH_SIZE);
	x.sink = XFER_SINK_MEM;
	x.expect_size = d->size;
	x.max = (size_t)d->size;
	x.verify = 1;
	if (!is_empty(d))
		rc = remote_xfer_run(r, &x, 1, err);
	else
		x.result = 1;
	if (rc)
		goto done;
	if (x.result < 0) {
		rc = remote_xfer_first_error(&x, 1, err);
		goto done;
	}
	if (x.result == 1 && !x.mem) {
		x.mem = mem_alloc(1);
		if (!x.mem) {
			rc = OOM(err);
			goto done;
		}
		x.mem[0] = '\0';
	}
	rc = x.result;
	if (rc == 1) {
		*out = x.mem;
		*len = x.mem_len;
		x.mem = NULL;
	}
done:
	xfer_release(&x);
	return rc;
}

int
remote_cas_get_buf(struct remote *r, const struct remote_digest *d,
		   size_t max, char **out, size_t *len, struct error *err)
{
	return get_buf(r, "cas", d, max, out, len, err);
}

int
remote_cas_get_buf_in(struct remote *r, const char *domain,
		      const struct remote_digest *d, size_t max, char **out,
		      size_t *len, struct error *err)
{
	char space[REMOTE_SPACE_SIZE];
	int rc;

	if (domain && !remote_domain_valid(domain))
		return error_set(err, ERROR_INVALID, "'%.80s' is not a trust "
				 "domain id", domain);
	remote_cas_space(domain, space);
	rc = get_buf(r, space, d, max, out, len, err);
	/* A domain's entry may name a blob of the trusted CAS. */
	if (rc == 0 && domain)
		rc = get_buf(r, "cas", d, max, out, len, err);
	return rc;
}
