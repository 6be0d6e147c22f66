/*
 * The transfer engine of the remote cache: a batch of HEAD, GET and PUT
 * requests on the handle's curl multi handle, at most max_parallel at once,
 * with retries (backoff doubling from backoff_ms) on connection failures,
 * timeouts and 5xx answers. Bodies stream: PUT reads its file in pieces
 * (hashing it again), GET hashes and counts while writing a temp file and
 * renames it only once digest and size match. What the requests mean is
 * left to remote_cas.c and remote_ac.c.
 */
#include "cache/remote_int.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

#define BUFFER_SIZE (128 * 1024)	/* curl's receive and send buffers */
#define DISCARD_MAX (1 << 20)		/* bytes of an ignored body we read */
#define POLL_MAX_MS 1000

enum xfer_state {
	XS_NEW,
	XS_ACTIVE,
	XS_WAIT,	/* a retry is due at due_ms */
	XS_DONE,
};

static const char *const method_names[] = { "HEAD", "GET", "PUT" };

void
xfer_init(struct xfer *x)
{
	memset(x, 0, sizeof(*x));
	x->fd = -1;
	x->expect_size = -1;
	x->content_length = -1;
	error_init(&x->err);
}

/* Close and free what the engine holds; remove the temp file if any. */
static void
xfer_close(struct xfer *x)
{
	if (x->easy)
		curl_easy_cleanup(x->easy);
	x->easy = NULL;
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	if (x->tmp)
		unlink(x->tmp);
	mem_free(x->tmp);
	x->tmp = NULL;
	EVP_MD_CTX_free(x->md);
	x->md = NULL;
}

void
xfer_release(struct xfer *x)
{
	if (!x)
		return;
	xfer_close(x);
	mem_free(x->mem);
	x->mem = NULL;
	x->mem_len = 0;
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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
static int
fail(struct remote *r, struct xfer *x, int code, const char *what)
{
	x->result = error_set(&x->err, code, "remote cache %s: %s %s/%s: %s",
			      r->url, method_names[x->method], x->space,
			      x->hash, what);
	return x->result;
}

/* (Re)start the body hash; 0 or -1. */
static int
md_restart(struct xfer *x)
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

static long
response_code(struct xfer *x)
{
	long code = 0;

	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
	return code;
}

static size_t
on_write(char *data, size_t size, size_t nmemb, void *p)
{
	struct xfer *x = p;
	size_t len = size * nmemb, done = 0;

	if (x->sink == XFER_SINK_NONE || response_code(x) != 200) {
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
	} else {
		while (done < len) {
			ssize_t w = write(x->fd, data + done, len - done);

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

static size_t
on_read(char *buf, size_t size, size_t nitems, void *p)
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
		got = pread(x->fd, buf, want, x->off);
	while (got < 0 && errno == EINTR);
	if (got <= 0) {
		/* A read error, or the file shrank after it was hashed. */
		x->local_errno = got < 0 ? errno : ESTALE;
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
static int
on_seek(void *p, curl_off_t offset, int origin)
{
	struct xfer *x = p;

	if (offset != 0 || origin != SEEK_SET)
		return CURL_SEEKFUNC_CANTSEEK;
	x->off = 0;
	if (x->md && md_restart(x))
		return CURL_SEEKFUNC_FAIL;
	return CURL_SEEKFUNC_OK;
}

/* Open the source file or the temp file, and the hash. 0 or an error. */
static int
open_body(struct remote *r, struct xfer *x)
{
	struct stat st;
	char what[320];

	if (x->method == XFER_PUT && x->src_path) {
		x->fd = open(x->src_path, O_RDONLY | O_CLOEXEC);
		if (x->fd < 0 || fstat(x->fd, &st)) {
			return x->result = error_set(&x->err, ERROR_IO,
				"cannot read '%s': %s", x->src_path,
				strerror(errno));
		}
		if (st.st_size != x->src_size)
			return x->result = error_set(&x->err, ERROR_CONFLICT,
				"'%s' changed while it was uploaded",
				x->src_path);
	}
	if (x->method == XFER_GET && x->sink == XFER_SINK_FILE) {
		size_t n = strlen(x->dest) + sizeof(".ripple-tmp-XXXXXX");

		x->tmp = mem_alloc(n);
		if (!x->tmp)
			return fail(r, x, ERROR_NOMEM, "out of memory");
		snprintf(x->tmp, n, "%s.ripple-tmp-XXXXXX", x->dest);
		x->fd = mkstemp(x->tmp);
		if (x->fd >= 0)
			fcntl(x->fd, F_SETFD, FD_CLOEXEC);
		if (x->fd < 0) {
			snprintf(what, sizeof(what), "cannot create '%s': %s",
				 x->tmp, strerror(errno));
			mem_free(x->tmp);
			x->tmp = NULL;
			return fail(r, x, ERROR_IO, what);
		}
	}
	if ((x->verify || x->src_hash) && md_restart(x))
		return fail(r, x, ERROR_NOMEM, "out of memory");
	return 0;
}

/* Make x's easy handle (once; retries reuse it). 0 or an error. */
static int
make_easy(struct remote *r, struct xfer *x)
{
	const struct remote_options *o = &r->opts;
	size_t n = strlen(r->url) + strlen(x->space) + REMOTE_HASH_SIZE + 3;
	char *url = mem_alloc(n);
	CURL *e = curl_easy_init();
	CURLcode cc = CURLE_OK;

	if (!url || !e) {
		mem_free(url);
		curl_easy_cleanup(e);
		return fail(r, x, ERROR_NOMEM, "out of memory");
	}
	snprintf(url, n, "%s/%s/%s", r->url, x->space, x->hash);
	x->easy = e;
#define SET(opt, val) if (cc == CURLE_OK) cc = curl_easy_setopt(e, opt, val)
	SET(CURLOPT_URL, url);
	SET(CURLOPT_PRIVATE, x);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_USERAGENT, "ripple");
	SET(CURLOPT_HTTPHEADER, r->headers);
	SET(CURLOPT_ERRORBUFFER, x->errbuf);
	SET(CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	SET(CURLOPT_LOW_SPEED_LIMIT, o->low_speed_limit);
	SET(CURLOPT_LOW_SPEED_TIME, o->low_speed_time_s);
	SET(CURLOPT_BUFFERSIZE, (long)BUFFER_SIZE);
	SET(CURLOPT_WRITEFUNCTION, on_write);
	SET(CURLOPT_WRITEDATA, x);
	if (o->netrc) {
		SET(CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
		if (o->netrc_file)
			SET(CURLOPT_NETRC_FILE, o->netrc_file);
	}
	if (x->method == XFER_HEAD)
		SET(CURLOPT_NOBODY, 1L);
	if (x->method == XFER_PUT) {
		SET(CURLOPT_UPLOAD, 1L);
		SET(CURLOPT_UPLOAD_BUFFERSIZE, (long)BUFFER_SIZE);
		SET(CURLOPT_READFUNCTION, on_read);
		SET(CURLOPT_READDATA, x);
		SET(CURLOPT_SEEKFUNCTION, on_seek);
		SET(CURLOPT_SEEKDATA, x);
		SET(CURLOPT_INFILESIZE_LARGE, (curl_off_t)x->src_size);
	}
#undef SET
	mem_free(url);
	if (cc != CURLE_OK)
		return fail(r, x, ERROR_INTERNAL, curl_easy_strerror(cc));
	return 0;
}

/* Back to an empty body for another attempt. 0 or an error. */
static int
reset_body(struct remote *r, struct xfer *x)
{
	x->off = 0;
	x->overflow = 0;
	x->mem_len = 0;
	x->errbuf[0] = '\0';
	if (x->md && md_restart(x))
		return fail(r, x, ERROR_NOMEM, "out of memory");
	if (x->tmp && (ftruncate(x->fd, 0) || lseek(x->fd, 0, SEEK_SET))) {
		char what[320];

		snprintf(what, sizeof(what), "cannot truncate '%s': %s",
			 x->tmp, strerror(errno));
		return fail(r, x, ERROR_IO, what);
	}
	return 0;
}

static int
start(struct remote *r, struct xfer *x)
{
	int rc;

	if (!x->easy) {
		rc = open_body(r, x);
		if (!rc)
			rc = make_easy(r, x);
	} else {
		rc = reset_body(r, x);
	}
	if (rc)
		return rc;
	if (curl_multi_add_handle(r->multi, x->easy) != CURLM_OK)
		return fail(r, x, ERROR_INTERNAL, "cannot add a transfer");
	x->attempt++;
	x->state = XS_ACTIVE;
	return 0;
}

static int
retryable_curl(CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return 1;
	default:
		return 0;
	}
}

static int
retryable_http(long code)
{
	return code >= 500 || code == 408 || code == 429;
}

/* A GET body arrived whole: check it and move it into place. */
static int
finish_get(struct remote *r, struct xfer *x)
{
	char got[REMOTE_HASH_SIZE], what[400];

	if (x->expect_size >= 0 && x->off != x->expect_size) {
		snprintf(what, sizeof(what), "got %lld bytes, expected %lld "
			 "(truncated)", (long long)x->off,
			 (long long)x->expect_size);
		return fail(r, x, ERROR_CORRUPT, what);
	}
	if (x->verify) {
		if (md_hex(x, got))
			return fail(r, x, ERROR_INTERNAL, "cannot hash");
		if (strcmp(got, x->hash)) {
			snprintf(what, sizeof(what), "digest mismatch: the body "
				 "hashes to %s (tampered or damaged)", got);
			return fail(r, x, ERROR_CORRUPT, what);
		}
	}
	if (x->sink == XFER_SINK_MEM && !x->mem) {
		x->mem = mem_alloc(1);
		if (!x->mem)
			return fail(r, x, ERROR_NOMEM, "out of memory");
		x->mem[0] = '\0';
	}
	if (x->sink == XFER_SINK_FILE) {
		if (fchmod(x->fd, x->mode) || close(x->fd)) {
			x->fd = -1;
			snprintf(what, sizeof(what), "cannot write '%s': %s",
				 x->tmp, strerror(errno));
			return fail(r, x, ERROR_IO, what);
		}
		x->fd = -1;
		if (rename(x->tmp, x->dest)) {
			snprintf(what, sizeof(what), "cannot rename into '%s': "
				 "%s", x->dest, strerror(errno));
			return fail(r, x, ERROR_IO, what);
		}
		mem_free(x->tmp);
		x->tmp = NULL;
	}
	return x->result = 1;
}

/* A PUT was accepted: check the file did not change while it was sent. */
static int
finish_put(struct remote *r, struct xfer *x)
{
	char got[REMOTE_HASH_SIZE];

	(void)r;
	if (x->src_hash && x->md) {
		if (md_hex(x, got))
			return fail(r, x, ERROR_INTERNAL, "cannot hash");
		if (strcmp(got, x->src_hash))
			return x->result = error_set(&x->err, ERROR_CONFLICT,
				"'%s' changed while it was uploaded",
				x->src_path);
	}
	return x->result = 1;
}

/*
 * Classify a finished attempt: 1 to retry it, 0 when x->result is final.
 */
static int
finish(struct remote *r, struct xfer *x, CURLcode cc)
{
	long code = response_code(x);
	int retry_left = x->attempt <= r->opts.retries;
	char what[400];

	if (x->local_errno == ESTALE) {
		x->result = error_set(&x->err, ERROR_CONFLICT, "'%s' changed "
				      "while it was uploaded", x->src_path);
		return 0;
	}
	if (x->local_errno) {
		snprintf(what, sizeof(what), "local file: %s",
			 strerror(x->local_errno));
		fail(r, x, x->local_errno == ENOMEM ? ERROR_NOMEM : ERROR_IO,
		     what);
		return 0;
	}
	if (x->overflow) {
		snprintf(what, sizeof(what), "body longer than the expected "
			 "%lld bytes (tampered or damaged)",
			 (long long)(x->sink == XFER_SINK_MEM &&
				     x->expect_size < 0 ? (int64_t)x->max
							: x->expect_size));
		fail(r, x, ERROR_CORRUPT, what);
		return 0;
	}
	if (cc != CURLE_OK) {
		if (retryable_curl(cc) && retry_left)
			return 1;
		snprintf(what, sizeof(what), "%s (%u attempt%s)",
			 x->errbuf[0] ? x->errbuf : curl_easy_strerror(cc),
			 x->attempt, x->attempt == 1 ? "" : "s");
		fail(r, x, ERROR_IO, what);
		return 0;
	}
	if (retryable_http(code)) {
		if (retry_left)
			return 1;
		snprintf(what, sizeof(what), "HTTP %ld (%u attempt%s)", code,
			 x->attempt, x->attempt == 1 ? "" : "s");
		fail(r, x, ERROR_IO, what);
		return 0;
	}
	if (code == 404 && x->method != XFER_PUT) {
		x->result = 0;
		return 0;
	}
	if (x->method == XFER_PUT && code >= 200 && code < 300) {
		finish_put(r, x);
		return 0;
	}
	if (code != 200) {
		snprintf(what, sizeof(what), "HTTP %ld", code);
		fail(r, x, ERROR_IO, what);
		if (code == 401 || code == 403)
			error_hint(&x->err, "check RIPPLE_REMOTE_HEADER or "
				   "netrc");
		return 0;
	}
	if (x->method == XFER_HEAD) {
		curl_off_t len = -1;

		curl_easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T,
				  &len);
		x->content_length = len;
		x->result = 1;
		return 0;
	}
	finish_get(r, x);
	return 0;
}

/* Wait for activity or the next due retry. */
static void
wait_some(struct remote *r, struct xfer *x, size_t n, size_t waiting)
{
	int64_t now = mono_ms(), wait = POLL_MAX_MS;
	size_t i;

	for (i = 0; waiting && i < n; i++)
		if (x[i].state == XS_WAIT && x[i].due_ms - now < wait)
			wait = x[i].due_ms - now;
	if (wait < 0)
		wait = 0;
	curl_multi_poll(r->multi, NULL, 0, (int)wait, NULL);
}

/* Start what may start: due retries first, then new transfers. */
static void
start_some(struct remote *r, struct xfer *x, size_t n, size_t *next,
	   size_t *active, size_t *waiting, size_t *done)
{
	int64_t now = mono_ms();
	size_t i;

	for (i = 0; *waiting && i < n && *active < r->opts.max_parallel; i++) {
		if (x[i].state != XS_WAIT || x[i].due_ms > now)
			continue;
		(*waiting)--;
		if (start(r, &x[i])) {
			x[i].state = XS_DONE;
			xfer_close(&x[i]);
			(*done)++;
		} else {
			(*active)++;
		}
	}
	while (*next < n && *active < r->opts.max_parallel) {
		struct xfer *t = &x[(*next)++];

		if (t->state == XS_DONE)
			continue;
		if (start(r, t)) {
			t->state = XS_DONE;
			xfer_close(t);
			(*done)++;
		} else {
			(*active)++;
		}
	}
}

int
remote_xfer_run(struct remote *r, struct xfer *x, size_t n,
		struct error *err)
{
	size_t next = 0, active = 0, waiting = 0, done = 0, i;
	int running = 0;

	for (i = 0; i < n; i++)
		if (x[i].state == XS_DONE)
			done++;
	while (done < n) {
		CURLMsg *m;
		int left;

		start_some(r, x, n, &next, &active, &waiting, &done);
		if (curl_multi_perform(r->multi, &running) != CURLM_OK)
			return error_set(err, ERROR_INTERNAL, "remote cache "
					 "%s: curl multi failed", r->url);
		while ((m = curl_multi_info_read(r->multi, &left))) {
			struct xfer *t;
			char *priv = NULL;

			if (m->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE,
					  &priv);
			t = (struct xfer *)priv;
			curl_multi_remove_handle(r->multi, m->easy_handle);
			active--;
			if (finish(r, t, m->data.result)) {
				t->state = XS_WAIT;
				t->due_ms = mono_ms() + r->opts.backoff_ms *
					    (1L << (t->attempt - 1 < 10 ?
						    t->attempt - 1 : 10));
				waiting++;
			} else {
				t->state = XS_DONE;
				xfer_close(t);
				done++;
			}
		}
		/* Wait only when nothing new may start. */
		if (done < n && (next >= n || active >= r->opts.max_parallel))
			wait_some(r, x, n, waiting);
	}
	return 0;
}

int
remote_xfer_first_error(const struct xfer *x, size_t n, struct error *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (x[i].result >= 0)
			continue;
		if (err && !err->code)
			*err = x[i].err;
		return x[i].result;
	}
	return 0;
}
