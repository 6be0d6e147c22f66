/*
 * The bodies of remote cache transfers, for remote_xfer.c: the curl read,
 * write and seek callbacks that stream a file up or a blob down while
 * hashing it (SHA-256, OpenSSL EVP), opening the source or the temp file,
 * and the checks when a transfer ends (digest and size of a download, which
 * the caller places only then: base/place.h; an upload whose file changed
 * meanwhile). Calls nothing in
 * remote_xfer.c.
 */
#include "cache/remote_int.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"
#include "base/fsys.h"
#include "base/mem.h"
#include "base/banned.h"

#define DISCARD_MAX (1 << 20)		/* bytes of an ignored body we read */

static const char *const method_names[] = { "HEAD", "GET", "PUT" };

void
remote_hex(const unsigned char *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

/* Set the transfer's error: "remote cache URL: METHOD space/hash: ...". */
int
remote_xfer_fail(struct remote *r, struct xfer *x, int code, const char *what)
{
	x->result = error_set(&x->err, code, "remote cache %s: %s %s/%s: %s",
			      r->url, method_names[x->method], x->space,
			      x->hash, what);
	return x->result;
}

/* (Re)start the body hash; 0 or -1. */
int
remote_body_restart(struct xfer *x)
{
	if (!x->md)
		x->md = EVP_MD_CTX_new();
	return x->md && EVP_DigestInit_ex(x->md, EVP_sha256(), NULL) ? 0 : -1;
}

/* The body hash as hex into out (REMOTE_HASH_SIZE); 0 or -1. */
static int
md_hex(struct xfer *x, char *out)
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned n = 0;

	if (!EVP_DigestFinal_ex(x->md, d, &n) || n != 32)
		return -1;
	remote_hex(d, n, out);
	return 0;
}

long
remote_body_code(struct xfer *x)
{
	long code = 0;

	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
	return code;
}

size_t
remote_body_on_write(char *data, size_t size, size_t nmemb, void *p)
{
	struct xfer *x = p;
	size_t len = size * nmemb, done = 0;

	if (x->sink == XFER_SINK_NONE || remote_body_code(x) != 200) {
		/* An error page or an ignored body: read a little, keep none. */
		x->off += (int64_t)len;
		return x->off > DISCARD_MAX ? 0 : len;
	}
	if (x->expect_size >= 0 && x->off + (int64_t)len > x->expect_size) {
		x->overflow = 1;
		return 0;
	}
	if (x->md && !EVP_DigestUpdate(x->md, data, len)) {
		x->local_errno = ENOMEM;
		return 0;
	}
	if (x->sink == XFER_SINK_MEM) {
		if (x->mem_len + len > x->max) {
			x->overflow = 1;
			return 0;
		}
		if (x->mem_len + len + 1 > x->mem_cap) {
			size_t cap = x->mem_cap ? x->mem_cap : 4096;
			char *m;

			while (cap < x->mem_len + len + 1)
				cap *= 2;
			m = mem_realloc(x->mem, cap);
			if (!m) {
				x->local_errno = ENOMEM;
				return 0;
			}
			x->mem = m;
			x->mem_cap = cap;
		}
		memcpy(x->mem + x->mem_len, data, len);
		x->mem_len += len;
		x->mem[x->mem_len] = '\0';
	} else if (x->sink == XFER_SINK_FILE) {
		while (done < len) {
			ssize_t w = write(x->out_fd, data + done, len - done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				x->local_errno = errno;
				return 0;
			}
			done += (size_t)w;
		}
	}
	x->off += (int64_t)len;
	return len;
}

size_t
remote_body_on_read(char *buf, size_t size, size_t nitems, void *p)
{
	struct xfer *x = p;
	size_t want = size * nitems;
	int64_t left = x->src_size - x->off;
	ssize_t got;

	if (left <= 0)
		return 0;
	if ((int64_t)want > left)
		want = (size_t)left;
	if (x->src_mem) {
		memcpy(buf, x->src_mem + x->off, want);
		x->off += (int64_t)want;
		return want;
	}
	do
		got = fsys_pread(x->fd, buf, want, x->off);
	while (got < 0 && errno == EINTR);
	if (got <= 0) {
		/* A read error, or the file shrank after it was hashed. */
		x->local_errno = got < 0 ? errno : REMOTE_SHRANK;
		return CURL_READFUNC_ABORT;
	}
	if (x->md && !EVP_DigestUpdate(x->md, buf, (size_t)got)) {
		x->local_errno = ENOMEM;
		return CURL_READFUNC_ABORT;
	}
	x->off += got;
	return (size_t)got;
}

/* Rewind the body to its start (curl asks before resending it). */
int
remote_body_on_seek(void *p, curl_off_t offset, int origin)
{
	struct xfer *x = p;

	if (offset != 0 || origin != SEEK_SET)
		return CURL_SEEKFUNC_CANTSEEK;
	x->off = 0;
	if (x->md && remote_body_restart(x))
		return CURL_SEEKFUNC_FAIL;
	return CURL_SEEKFUNC_OK;
}

/* Open the source file or the temp file, and the hash. 0 or an error. */
int
remote_body_open(struct remote *r, struct xfer *x)
{
	struct fsys_stat st;
	char what[320];
	int e;

	if (x->method == XFER_PUT && x->src_path) {
		x->fd = file_open_regular(x->src_path, NULL, &x->err);
		if (x->fd < 0) {
			x->result = x->fd;
			x->fd = -1;
			return x->result;
		}
		e = fsys_fstat(x->fd, &st);
		if (e) {
			return x->result = error_set(&x->err, ERROR_IO,
				"cannot read '%s': %s", x->src_path,
				strerror(e));
		}
		if ((int64_t)st.size != x->src_size)
			return x->result = error_set(&x->err, ERROR_CONFLICT,
				"'%s' changed while it was uploaded",
				x->src_path);
	}
	if (x->method == XFER_GET && x->sink == XFER_SINK_FILE &&
	    (ftruncate(x->out_fd, 0) || lseek(x->out_fd, 0, SEEK_SET) < 0)) {
		snprintf(what, sizeof(what), "cannot write the file: %s",
			 strerror(errno));
		return remote_xfer_fail(r, x, ERROR_IO, what);
	}
	if ((x->verify || x->src_hash) && remote_body_restart(x))
		return remote_xfer_fail(r, x, ERROR_NOMEM, "out of memory");
	return 0;
}

/* A GET body arrived whole: check its size and digest. */
int
remote_body_finish_get(struct remote *r, struct xfer *x)
{
	char got[REMOTE_HASH_SIZE], what[400];

	if (x->expect_size >= 0 && x->off != x->expect_size) {
		snprintf(what, sizeof(what), "got %lld bytes, expected %lld "
			 "(truncated)", (long long)x->off,
			 (long long)x->expect_size);
		return remote_xfer_fail(r, x, ERROR_CORRUPT, what);
	}
	if (x->verify) {
		if (md_hex(x, got))
			return remote_xfer_fail(r, x, ERROR_INTERNAL, "cannot hash");
		if (strcmp(got, x->hash)) {
			snprintf(what, sizeof(what), "digest mismatch: the body "
				 "hashes to %s (tampered or damaged)", got);
			return remote_xfer_fail(r, x, ERROR_CORRUPT, what);
		}
	}
	if (x->sink == XFER_SINK_MEM && !x->mem) {
		x->mem = mem_alloc(1);
		if (!x->mem)
			return remote_xfer_fail(r, x, ERROR_NOMEM, "out of memory");
		x->mem[0] = '\0';
	}
	return x->result = 1;
}

/* A PUT was accepted: check the file did not change while it was sent. */
int
remote_body_finish_put(struct remote *r, struct xfer *x)
{
	char got[REMOTE_HASH_SIZE];

	(void)r;
	if (x->src_hash && x->md) {
		if (md_hex(x, got))
			return remote_xfer_fail(r, x, ERROR_INTERNAL, "cannot hash");
		if (strcmp(got, x->src_hash))
			return x->result = error_set(&x->err, ERROR_CONFLICT,
				"'%s' changed while it was uploaded",
				x->src_path);
	}
	return x->result = 1;
}
