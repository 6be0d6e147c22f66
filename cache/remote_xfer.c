/*
 * The transfer engine of the remote cache: a batch of HEAD, GET and PUT
 * requests on the handle's curl multi handle, at most max_parallel at once,
 * with retries (backoff doubling from backoff_ms) on connection failures,
 * timeouts and 5xx answers. Bodies stream: PUT reads its file in pieces
 * (hashing it again), GET hashes and counts while writing the caller's
 * file, which is placed only once digest and size match (remote_body.c,
 * which this file calls; base/place.h). A stop flag (remote_options.cancel)
 * ends every transfer at once; a total time and a low-speed limit bound
 * each request. What the requests mean is left to remote_cas.c and
 * remote_ac.c.
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
#define POLL_MAX_MS 1000
#define POLL_CANCEL_MS 100		/* how soon a stop is seen */

enum xfer_state {
	XS_NEW,
	XS_ACTIVE,
	XS_WAIT,	/* a retry is due at due_ms */
	XS_DONE,
};


void
xfer_init(struct xfer *x)
{
	memset(x, 0, sizeof(*x));
	x->fd = -1;
	x->out_fd = -1;
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

/* Whether the caller asked to stop. */
static int
cancelled(const struct remote *r)
{
	return r->opts.cancel && *r->opts.cancel;
}

/* curl's progress callback: a non-zero answer aborts the transfer. */
static int
on_progress(void *p, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
	    curl_off_t ulnow)
{
	const struct remote *r = p;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return cancelled(r);
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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
		return remote_xfer_fail(r, x, ERROR_NOMEM, "out of memory");
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
	SET(CURLOPT_TIMEOUT, o->timeout_s);
	if (o->cancel) {
		SET(CURLOPT_XFERINFOFUNCTION, on_progress);
		SET(CURLOPT_XFERINFODATA, r);
		SET(CURLOPT_NOPROGRESS, 0L);
	}
	/* Big buffers for blobs to or from files only: a plan's hundreds of
	 * small AC and record GETs with 128 KiB each were half its CPU time
	 * (allocating and zeroing them); curl's default serves those. */
	if (x->sink == XFER_SINK_FILE || x->sink == XFER_SINK_HASH ||
	    x->src_path)
		SET(CURLOPT_BUFFERSIZE, (long)BUFFER_SIZE);
	SET(CURLOPT_WRITEFUNCTION, remote_body_on_write);
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
		if (x->src_path)
			SET(CURLOPT_UPLOAD_BUFFERSIZE, (long)BUFFER_SIZE);
		SET(CURLOPT_READFUNCTION, remote_body_on_read);
		SET(CURLOPT_READDATA, x);
		SET(CURLOPT_SEEKFUNCTION, remote_body_on_seek);
		SET(CURLOPT_SEEKDATA, x);
		SET(CURLOPT_INFILESIZE_LARGE, (curl_off_t)x->src_size);
	}
#undef SET
	mem_free(url);
	if (cc != CURLE_OK)
		return remote_xfer_fail(r, x, ERROR_INTERNAL, curl_easy_strerror(cc));
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
	if (x->md && remote_body_restart(x))
		return remote_xfer_fail(r, x, ERROR_NOMEM, "out of memory");
	if (x->sink == XFER_SINK_FILE &&
	    (ftruncate(x->out_fd, 0) || lseek(x->out_fd, 0, SEEK_SET) < 0)) {
		char what[320];

		snprintf(what, sizeof(what), "cannot truncate the file: %s",
			 strerror(errno));
		return remote_xfer_fail(r, x, ERROR_IO, what);
	}
	return 0;
}

static int
start(struct remote *r, struct xfer *x)
{
	int rc;

	if (!x->easy) {
		rc = remote_body_open(r, x);
		if (!rc)
			rc = make_easy(r, x);
	} else {
		rc = reset_body(r, x);
	}
	if (rc)
		return rc;
	if (!x->attempt)
		x->first_ms = mono_ms();
	else if (r->opts.timeout_s > 0) {
		/* A retry gets what is left of the request's total time. */
		int64_t left = (int64_t)r->opts.timeout_s * 1000 -
			       (mono_ms() - x->first_ms);

		curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS,
				 (long)(left > 1 ? left : 1));
	}
	if (curl_multi_add_handle(r->multi, x->easy) != CURLM_OK)
		return remote_xfer_fail(r, x, ERROR_INTERNAL, "cannot add a transfer");
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

/*
 * Classify a finished attempt: 1 to retry it, 0 when x->result is final.
 */
static int
finish(struct remote *r, struct xfer *x, CURLcode cc)
{
	long code = remote_body_code(x);
	int retry_left = x->attempt <= r->opts.retries;
	char what[400];

	/* --remote-timeout bounds the request, its retries included. */
	if (r->opts.timeout_s > 0 && mono_ms() - x->first_ms >=
	    (int64_t)r->opts.timeout_s * 1000)
		retry_left = 0;

	if (cancelled(r)) {
		remote_xfer_fail(r, x, ERROR_IO, "interrupted");
		return 0;
	}
	if (x->local_errno == REMOTE_SHRANK) {
		x->result = error_set(&x->err, ERROR_CONFLICT, "'%s' changed "
				      "while it was uploaded", x->src_path);
		return 0;
	}
	if (x->local_errno) {
		snprintf(what, sizeof(what), "local file: %s",
			 strerror(x->local_errno));
		remote_xfer_fail(r, x, x->local_errno == ENOMEM ? ERROR_NOMEM : ERROR_IO,
		     what);
		return 0;
	}
	if (x->overflow) {
		snprintf(what, sizeof(what), "body longer than the expected "
			 "%lld bytes (tampered or damaged)",
			 (long long)(x->sink == XFER_SINK_MEM &&
				     x->expect_size < 0 ? (int64_t)x->max
							: x->expect_size));
		remote_xfer_fail(r, x, ERROR_CORRUPT, what);
		return 0;
	}
	if (cc != CURLE_OK) {
		if (retryable_curl(cc) && retry_left)
			return 1;
		snprintf(what, sizeof(what), "%s (%u attempt%s)",
			 x->errbuf[0] ? x->errbuf : curl_easy_strerror(cc),
			 x->attempt, x->attempt == 1 ? "" : "s");
		remote_xfer_fail(r, x, ERROR_IO, what);
		return 0;
	}
	if (retryable_http(code)) {
		if (retry_left)
			return 1;
		snprintf(what, sizeof(what), "HTTP %ld (%u attempt%s)", code,
			 x->attempt, x->attempt == 1 ? "" : "s");
		remote_xfer_fail(r, x, ERROR_IO, what);
		return 0;
	}
	if (code == 404 && x->method != XFER_PUT) {
		x->result = 0;
		return 0;
	}
	if (x->method == XFER_PUT && code >= 200 && code < 300) {
		remote_body_finish_put(r, x);
		return 0;
	}
	if (code != 200) {
		/* A refused write: this client may not write there. */
		int refused = (code == 401 || code == 403) &&
			      x->method == XFER_PUT;

		snprintf(what, sizeof(what), "HTTP %ld", code);
		remote_xfer_fail(r, x, refused ? ERROR_UNSUPPORTED : ERROR_IO,
				 what);
		if (code == 401 || code == 403)
			error_hint(&x->err, "check the credential in "
				   "RIPPLE_REMOTE_CACHE_HEADER (or netrc)");
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
	remote_body_finish_get(r, x);
	return 0;
}

/* Wait for activity or the next due retry. */
static void
wait_some(struct remote *r, struct xfer *x, size_t n, size_t waiting)
{
	int64_t now = mono_ms();
	int64_t wait = r->opts.cancel ? POLL_CANCEL_MS : POLL_MAX_MS;
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

/* Stopped: end every transfer not done yet as "interrupted". */
static void
stop_all(struct remote *r, struct xfer *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (x[i].state == XS_DONE)
			continue;
		if (x[i].state == XS_ACTIVE && x[i].easy)
			curl_multi_remove_handle(r->multi, x[i].easy);
		remote_xfer_fail(r, &x[i], ERROR_IO, "interrupted");
		x[i].state = XS_DONE;
		xfer_close(&x[i]);
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

		if (cancelled(r)) {
			stop_all(r, x, n);
			break;
		}
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
