/*
 * Inside the remote cache client: the handle, and the transfer engine
 * (remote_xfer.c) that runs a batch of HTTP requests on the handle's curl
 * multi handle with bounded parallelism, retries and verification. The
 * protocol files (remote_cas.c, remote_ac.c) only fill in transfers and
 * read their outcomes. Not for use outside cache/.
 */
#ifndef RIPPLE_CACHE_REMOTE_INT_H
#define RIPPLE_CACHE_REMOTE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "base/error.h"
#include "cache/remote.h"

struct curl_slist;
struct evp_md_ctx_st;
struct json_t;

/*
 * Load libcurl (cache/curl_dl.c: it is dlopened when the remote cache is
 * first used, not mapped by every command). Returns 0, or
 * ERROR_UNSUPPORTED naming libcurl.so.4 and its Debian package.
 */
int remote_libs_require(struct error *err);

/*
 * A record as remote_record_encode writes it, as a jansson object (NULL
 * when out of memory); `components` 0 leaves the components out (a
 * bundle's records, remote_bundle.c). The key must be valid.
 */
struct json_t *remote_record_json(const struct cache_record *rec,
				  const struct cache_manifest *manifest,
				  int components, const struct cache_run *run,
				  const char *runner);

/*
 * Read a record object as remote_record_decode does, its components only
 * when `components` is 1 (else out->manifest stays empty). Errors as
 * remote_record_decode's, out is left for the caller to release.
 */
int remote_record_read(struct json_t *doc, int components,
		       struct remote_record *out, struct error *err);

/* The longest xfer space: "d/" domain "/cas" and the NUL. */
#define REMOTE_SPACE_SIZE (REMOTE_DOMAIN_SIZE + 7)

/* xfer.local_errno: the source file shrank after it was hashed. */
#define REMOTE_SHRANK (-1)

/*
 * The AC space of `domain` (NULL: the trusted "ac") into out
 * (REMOTE_SPACE_SIZE bytes); the domain must be remote_domain_valid.
 */
void remote_ac_space(const char *domain, char *out);

/* The CAS space of `domain` (NULL: the trusted "cas"), as above. */
void remote_cas_space(const char *domain, char *out);


struct remote {
	char *url;			/* base URL, no trailing '/', owned */
	struct remote_options opts;	/* headers points at `headers_text` */
	char *headers_text;		/* owned copy of opts.headers */
	struct curl_slist *headers;	/* request headers, owned */
	void *multi;			/* CURLM *, reused across batches */
	char ac_space[REMOTE_SPACE_SIZE];	/* "ac" or "d/<domain>/ac":
						   where AC entries go */
	char cas_space[REMOTE_SPACE_SIZE];	/* "cas" or "d/<domain>/cas":
						   where blobs go */
	char domain[REMOTE_DOMAIN_SIZE];	/* its domain, "": trusted */
};

enum xfer_method {
	XFER_HEAD,
	XFER_GET,
	XFER_PUT,
};

enum xfer_sink {
	XFER_SINK_NONE,		/* discard the body (HEAD, PUT answers) */
	XFER_SINK_MEM,		/* into mem, at most `max` bytes */
	XFER_SINK_FILE,		/* into `out_fd` (the caller's file) */
	XFER_SINK_HASH,		/* hashed and counted (verify), not kept */
};

/*
 * One request. The caller zeroes it with xfer_init, sets the request
 * fields, runs a batch with remote_xfer_run, reads `result` (1 done or
 * found, 0 a 404 or absent, < 0 an error in `err`) and the sink, then
 * calls xfer_release.
 */
struct xfer {
	/* the request */
	enum xfer_method method;
	const char *space;		/* "cas", "ac" or "d/<domain>/ac" */
	char hash[REMOTE_HASH_SIZE];	/* the object's name */

	/* PUT body: a file (src_path) or memory (src_mem) of src_size bytes */
	const char *src_path;
	const unsigned char *src_mem;
	int64_t src_size;
	const char *src_hash;		/* file: re-hashed while sent; or NULL */

	/* GET body */
	enum xfer_sink sink;
	int64_t expect_size;		/* bytes, or -1 when unknown */
	int verify;			/* 1: body's SHA-256 must be `hash` */
	size_t max;			/* MEM: cap in bytes */
	int out_fd;			/* FILE: written from its start,
					   truncated on a retry; borrowed */

	/* outcome */
	int result;
	struct error err;
	char *mem;			/* MEM: mem_alloc'd, NUL-terminated */
	size_t mem_len;
	int64_t content_length;		/* HEAD: -1 when not sent */

	/* engine state, remote_xfer.c only */
	void *easy;			/* CURL * */
	int fd;				/* source file, -1 */
	struct evp_md_ctx_st *md;	/* body hash */
	int64_t off;			/* bytes sent or received */
	size_t mem_cap;
	int overflow;			/* body passed its size or cap */
	int local_errno;		/* a local read or write failed:
					   errno, or REMOTE_SHRANK */
	unsigned attempt;		/* attempts made */
	int64_t due_ms;			/* retry time (monotonic ms) */
	int64_t first_ms;		/* the first attempt's start
					   (monotonic ms): the total time
					   covers every retry */
	int state;
	char errbuf[256];		/* CURL_ERROR_SIZE */
};

/* Zero x, with no file open. */
void xfer_init(struct xfer *x);

/* Free what x holds (mem, files, handles); a temp file is removed. */
void xfer_release(struct xfer *x);

/*
 * Run n transfers, at most r->opts.max_parallel at once, retrying
 * connection failures, timeouts and 5xx answers. Each gets its result and
 * error. Returns 0, or ERROR_NOMEM / ERROR_INTERNAL when the batch itself
 * cannot run (nothing is then reported per transfer).
 */
int remote_xfer_run(struct remote *r, struct xfer *x, size_t n,
		    struct error *err);

/*
 * Run n CAS reads (GET or HEAD), x[i] in the CAS of domains[i] (domains
 * NULL, or an entry NULL: the trusted "cas"); x[i].space is set here.
 * Those a domain's CAS lacks (404) are asked again in the trusted one,
 * where blobs of entries written before CAS writes moved into domains,
 * and blobs a tag's run adopted, live; a trusted reader never reads a
 * domain's CAS. Results and errors as remote_xfer_run, per transfer.
 */
int remote_cas_run(struct remote *r, struct xfer *x, size_t n,
		   const char *const *domains, struct error *err);

/* Copy the error of the first failed transfer (lowest index) into err. */
int remote_xfer_first_error(const struct xfer *x, size_t n,
			    struct error *err);

/* ERROR_UNSUPPORTED: the handle is read-only. */
int remote_read_only_error(const struct remote *r, struct error *err);

/* Lowercase hex of n bytes into out (2n + 1 bytes). */
void remote_hex(const unsigned char *p, size_t n, char *out);


/* Bodies of transfers (remote_body.c), for remote_xfer.c. */
int remote_xfer_fail(struct remote *r, struct xfer *x, int code,
		     const char *what);
int remote_body_restart(struct xfer *x);
long remote_body_code(struct xfer *x);
size_t remote_body_on_write(char *data, size_t size, size_t nmemb, void *p);
size_t remote_body_on_read(char *buf, size_t size, size_t nitems, void *p);
int remote_body_on_seek(void *p, curl_off_t offset, int origin);
int remote_body_open(struct remote *r, struct xfer *x);
int remote_body_finish_get(struct remote *r, struct xfer *x);
int remote_body_finish_put(struct remote *r, struct xfer *x);

#endif
