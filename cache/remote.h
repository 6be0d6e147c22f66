/*
 * The remote cache: a client of the Bazel HTTP cache protocol (GET, PUT and
 * HEAD on URL/cas/<sha256> for content blobs and URL/ac/<sha256> for action
 * results) over libcurl, so servers teams already run serve ripple too
 * (bazel-remote, BuildBuddy, nginx with WebDAV, a bucket behind a proxy).
 * The protocol, the key mapping and the trust model: docs/remote-cache.md.
 *
 * Design choices and the numbers behind them:
 * - Nothing the server sends is trusted. A CAS blob is hashed (SHA-256) and
 *   counted while it streams to a temporary file next to its destination
 *   and placed only when digest and size match (the caller places a whole
 *   node's set only after its output digest matched too: base/place.h); a
 *   body larger than expected is cut off. AC entries are size-capped
 *   (REMOTE_AC_MAX) and every path and digest in them is checked before
 *   the caller sees it.
 * - Every request is bounded: connect 10 s, 600 s in all, cut off below
 *   1 KiB/s for 30 s (REMOTE_OPTIONS_INIT; --remote-timeout and
 *   --remote-low-speed), and a stop flag set by a signal handler ends
 *   transfers at once (remote_options.cancel): no global state.
 * - A 404 is a miss, never an error. Connection failures, timeouts and 5xx
 *   answers are retried (REMOTE_OPTIONS_INIT: 2 retries, 200 ms backoff,
 *   doubling) and then reported naming the server, the request and the
 *   cause. Digest mismatches are not retried: a tampered blob stays one.
 * - Transfers of a batch run in parallel on one curl multi handle, at most
 *   `max_parallel` (8) at a time, reusing connections across batches.
 * - Blobs stream through 128 KiB curl buffers: a 20 MB put and get do not
 *   raise the process's peak memory measurably (tests/cache: < 4 MiB
 *   allowed, +0 KiB seen).
 * - An AC entry is a REAPI ActionResult (cache/reapi.proto); ripple's own
 *   record is one more CAS blob, listed in it as the output file
 *   REMOTE_RECORD_PATH so validating servers see every blob referenced.
 *
 * libcurl needs one process-wide setup: the CLI's main() calls
 * remote_global_init before any remote_open (and remote_global_cleanup
 * before exit), as test setup does. A handle belongs to one thread.
 * Strings in the structs below are owned by the struct (mem_alloc'd) and
 * freed by its _release function.
 */
#ifndef RIPPLE_CACHE_REMOTE_H
#define RIPPLE_CACHE_REMOTE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/strv.h"
#include "cache/cache.h"

struct remote;

/* 64 lowercase hex digits of a SHA-256, and the NUL. */
#define REMOTE_HASH_LEN 64
#define REMOTE_HASH_SIZE (REMOTE_HASH_LEN + 1)

/* The most bytes an AC entry or a record blob may have (16 MiB). */
#define REMOTE_AC_MAX (16u << 20)
#define REMOTE_RECORD_MAX (16u << 20)

/* The most output files one ActionResult may list. */
#define REMOTE_OUTPUTS_MAX 100000

/* The longest output path accepted, in bytes. */
#define REMOTE_PATH_MAX 4096

/* The reserved output path naming ripple's record blob in an AC entry. */
#define REMOTE_RECORD_PATH ".ripple/record.json"

/* The namespace hashed into every AC key (see remote_ac_key). */
#define REMOTE_AC_NAMESPACE "ripple-ac-v1"

/*
 * Trust domains (docs/remote-cache.md). AC entries and the blobs they
 * name live in a domain: the trusted one at URL/ac/<hash> and
 * URL/cas/<sha256>, which trusted refs write, or a ref's own at
 * URL/d/<domain-id>/ac/ and URL/d/<domain-id>/cas/, so a server can give
 * writes under each path its own credential, and no credential of a pull
 * request can write a blob that a trusted reader reads (issue 22: garbage
 * PUT over a blob after main uploaded it). A reader of a domain's entry
 * asks that domain's CAS, then the trusted one. A domain id comes from
 * data (a ref name), so it is a slug of the ref cut to
 * REMOTE_DOMAIN_SLUG_MAX bytes of [a-z0-9-], a '-', and 24 hex digits of
 * SHA-256("ripple-domain-v1" NUL ref): a safe path segment that no two
 * refs share, and that a person can still tell apart in a server's log.
 */
#define REMOTE_DOMAIN_NAMESPACE "ripple-domain-v1"
#define REMOTE_DOMAIN_SLUG_MAX 40
#define REMOTE_DOMAIN_HASH_LEN 24
#define REMOTE_DOMAIN_SIZE (REMOTE_DOMAIN_SLUG_MAX + REMOTE_DOMAIN_HASH_LEN + 2)

/* A content digest: SHA-256 of the bytes and their count. */
struct remote_digest {
	char hash[REMOTE_HASH_SIZE];	/* 64 lowercase hex digits */
	int64_t size;			/* bytes */
};

struct remote_options {
	int read_only;			/* 1: every write fails */
	long connect_timeout_ms;	/* TCP + TLS connect, ms */
	long low_speed_limit;		/* bytes/s below which... */
	long low_speed_time_s;		/* ...for this long (s) aborts */
	unsigned max_parallel;		/* transfers at once, >= 1 */
	unsigned retries;		/* attempts after the first */
	long backoff_ms;		/* first retry delay; doubles */
	const char *headers;		/* "Name: value" lines or NULL */
	int netrc;			/* 1: credentials from netrc */
	const char *netrc_file;		/* NULL: ~/.netrc */
	long timeout_s;			/* whole request, s; 0: no limit */
	/* Set (by a signal handler) to stop: transfers end at once with
	 * "interrupted" (ERROR_IO) and nothing is retried. May be NULL. */
	const volatile sig_atomic_t *cancel;
};

/*
 * Defaults (docs/remote-cache.md "Limits"): connect within 10 s; a request
 * moving under 1 KiB/s for 30 s, or lasting 10 minutes in all, is cut off
 * (and retried like a timeout), so a server that drips bytes cannot hold a
 * command. 8 transfers at once, 2 retries from 200 ms.
 */
#define REMOTE_OPTIONS_INIT \
	{ 0, 10000, 1024, 30, 8, 2, 200, NULL, 0, NULL, 600, NULL }

/* ---- setup ---- */

/*
 * libcurl's process-wide setup (curl_global_init). Call once from main()
 * and from test setup, before any other thread runs and before any
 * remote_open. Errors: ERROR_INTERNAL.
 */
int remote_global_init(struct error *err);

/* Undo remote_global_init, once, after every handle is closed. */
void remote_global_cleanup(void);

/*
 * Fill credentials of *opts from the environment:
 * RIPPLE_REMOTE_CACHE_HEADER (else the older RIPPLE_REMOTE_HEADER: one
 * or more "Name: value" lines, e.g. "Authorization: Basic B64") into
 * opts->headers, and RIPPLE_REMOTE_NETRC ("1" for ~/.netrc, or a file
 * path) into netrc/netrc_file. The strings point into the environment and
 * stay valid while it is unchanged. Other fields are left alone.
 */
void remote_options_from_env(struct remote_options *opts);

/*
 * Fill the limits of *opts from the environment: RIPPLE_REMOTE_TIMEOUT
 * (seconds per request, 0 none; remote_options_timeout) and
 * RIPPLE_REMOTE_LOW_SPEED ("BYTES:SECONDS"; remote_options_low_speed).
 * Unset or empty: left alone. Errors: ERROR_INVALID naming the variable.
 */
int remote_options_limits_from_env(struct remote_options *opts,
				   struct error *err);

/*
 * Parse "BYTES:SECONDS" (a request slower than BYTES per second for
 * SECONDS is cut off; "0:0" never) into low_speed_limit and
 * low_speed_time_s of *opts. Errors: ERROR_INVALID.
 */
int remote_options_low_speed(struct remote_options *opts, const char *text,
			     struct error *err);

/* Parse SECONDS (0: no limit) into timeout_s. Errors: ERROR_INVALID. */
int remote_options_timeout(struct remote_options *opts, const char *text,
			   struct error *err);

/*
 * Open a client of the cache at `url` ("http://host:port/prefix" or
 * https) into *out (close with remote_close). Nothing is sent yet.
 * opts: NULL for REMOTE_OPTIONS_INIT; copied, headers included.
 * Errors: ERROR_INVALID (a URL that is not http or https, carries a user
 * name or password, a query or a fragment; a header line without "Name:",
 * or with a CR; max_parallel 0), ERROR_NOMEM, ERROR_INTERNAL (libcurl).
 * Messages show the URL without credentials, never header values.
 */
int remote_open(const char *url, const struct remote_options *opts,
		struct remote **out, struct error *err);

/* Close connections and free the handle. Accepts NULL. */
void remote_close(struct remote *r);

/* The server as messages name it: the URL without a trailing '/'. */
const char *remote_url(const struct remote *r);

/* Whether the handle was opened read-only. */
int remote_read_only(const struct remote *r);

/* ---- trust domains ---- */

/*
 * The domain id of `ref` (e.g. "refs/pull/12/merge" gives
 * "pull-12-merge-" and 24 hex digits) into out (REMOTE_DOMAIN_SIZE
 * bytes): the slug is the ref without "refs/", lowercased, each run of
 * other bytes than [a-z0-9] one '-', cut to REMOTE_DOMAIN_SLUG_MAX bytes
 * (no '-' at either end); the hash part is SHA-256 of the bytes
 * "ripple-domain-v1", NUL, ref. Errors: ERROR_INVALID (an empty ref),
 * ERROR_INTERNAL.
 */
int remote_domain_id(const char *ref, char *out, struct error *err);

/*
 * Whether s can be a domain id: 1 to REMOTE_DOMAIN_SIZE - 1 bytes of
 * [a-z0-9-], not starting with '-' (so never ".", ".." or a '/').
 */
int remote_domain_valid(const char *s);

/*
 * The domain AC entries are written to (remote_ac_put, remote_node_put)
 * and remote_ac_get reads: `domain` (a remote_domain_id), or NULL for the
 * trusted domain (the default). Lookups name their domain per item.
 * Errors: ERROR_INVALID (not remote_domain_valid).
 */
int remote_set_domain(struct remote *r, const char *domain,
		      struct error *err);

/* The handle's domain (remote_set_domain), or NULL: the trusted one. */
const char *remote_domain(const struct remote *r);

/* ---- digests ---- */

/*
 * SHA-256 and size of the regular file at `path`, read in 64 KiB pieces
 * (base/file.h: a FIFO or a device is refused, never read).
 * Errors: ERROR_NOT_FOUND, ERROR_INVALID (not a regular file), ERROR_IO
 * naming the path, ERROR_INTERNAL.
 */
int remote_digest_file(const char *path, struct remote_digest *out,
		       struct error *err);

/*
 * SHA-256 and size of what is left to read from fd (read in 64 KiB
 * pieces; the caller opened it and closes it). `what` names it in
 * messages. Errors: ERROR_IO, ERROR_INTERNAL, ERROR_NOMEM.
 */
int remote_digest_fd(int fd, const char *what, struct remote_digest *out,
		     struct error *err);

/* SHA-256 and size of n bytes at p. Errors: ERROR_INTERNAL. */
int remote_digest_buf(const void *p, size_t n, struct remote_digest *out,
		      struct error *err);

/* Whether s is 64 lowercase hex digits (and nothing more). */
int remote_hash_valid(const char *s);

/*
 * ---- CAS: content blobs at URL/cas/<hash> (the trusted domain's) or
 * URL/d/<domain-id>/cas/<hash> ----
 *
 * Uploads go to the CAS of the handle's domain (remote_set_domain). Reads
 * name the domain of the AC entry that named the blob (NULL: the trusted
 * one); a blob a domain's CAS lacks is asked for in the trusted CAS too.
 */

/*
 * For each of the n digests, whether the server holds it (HEAD requests,
 * in parallel): present[i] = 1 or 0, in the CAS of domains[i] (domains
 * NULL: the trusted one for all). A blob whose Content-Length is not
 * its digest's size counts as absent, so a put replaces it.
 * Errors: the first failed request's (ERROR_IO naming the server, the
 * request and the cause; ERROR_INVALID for a malformed digest).
 */
int remote_cas_has(struct remote *r, const struct remote_digest *d,
		   size_t n, const char *const *domains,
		   unsigned char *present, struct error *err);

/* One blob to check (remote_cas_verify), and what became of it. */
struct remote_check {
	struct remote_digest digest;	/* in */
	const char *domain;		/* in: its entry's domain, or NULL */
	int result;			/* out: 1 intact, 0 missing, < 0 an
					   error: ERROR_CORRUPT when the
					   blob is damaged (digest or size
					   mismatch), ERROR_IO */
	struct error err;		/* out: why result < 0 */
};

/*
 * Download n blobs in parallel and check each while it streams (SHA-256
 * and size; a longer body is cut off), keeping none of the bytes: what a
 * command vouches for without placing files (`release --dry-run`). A HEAD
 * cannot tell a damaged blob from a good one of the same size (garbage
 * PUT over a blob after it was uploaded). Each item gets its own result
 * and error. Returns 0 once every item has one, or ERROR_INVALID (a
 * malformed digest), ERROR_NOMEM, ERROR_INTERNAL before or instead of
 * the batch.
 */
int remote_cas_verify(struct remote *r, struct remote_check *c, size_t n,
		      struct error *err);

/*
 * Upload n files to the CAS of the handle's domain: hash each (or take digests[i] when digests is
 * not NULL), then PUT them all in parallel, also those the server may
 * already hold (a blob present with the right size can be garbage PUT at
 * a predictable digest: the upload replaces it; only the empty blob is
 * never sent). Each file is hashed again while it is sent; one that
 * changed in between is an ERROR_CONFLICT naming it. out (may be NULL)
 * receives the n digests. Errors: ERROR_UNSUPPORTED (read-only),
 * ERROR_NOT_FOUND / ERROR_IO (a file), ERROR_IO (the server).
 */
int remote_cas_put_files(struct remote *r, const char *const *paths,
			 const struct remote_digest *digests, size_t n,
			 struct remote_digest *out, struct error *err);

/*
 * Upload n bytes at p to the CAS (always, as remote_cas_put_files); *out
 * (may be NULL) receives their digest. Errors as remote_cas_put_files.
 */
int remote_cas_put_buf(struct remote *r, const void *p, size_t n,
		       struct remote_digest *out, struct error *err);

/* One blob to fetch into a file, and what became of it. */
struct remote_fetch {
	struct remote_digest digest;	/* in: what to fetch */
	const char *domain;		/* in: the domain of the AC entry
					   naming it (its CAS is asked,
					   then the trusted one), or NULL */
	const char *dest;		/* in: destination path, or NULL */
	int fd;				/* in: with dest NULL, the file to
					   write (from its start; the caller
					   places it once it verified it) */
	unsigned mode;			/* in: e.g. 0644 or 0755 (dest) */
	int result;			/* out: 1 fetched, 0 missing, < 0 */
};

/*
 * Download n blobs in parallel, each verified (SHA-256 and size, a longer
 * body is cut off) while it streams: into f[i].fd, or into a temporary
 * file beside f[i].dest (whose folder must exist) renamed over it once
 * verified (base/place.h: a link, FIFO or device at dest is refused and
 * left alone). A blob that fails leaves no file of its own behind and
 * dest untouched.
 * Returns 0 when each f[i].result is 1 or 0; else the first failure's
 * code with its error in err: ERROR_CORRUPT (digest or size mismatch,
 * naming the server and the digest), ERROR_IO (server or file system).
 */
int remote_cas_get_files(struct remote *r, struct remote_fetch *f, size_t n,
			 struct error *err);

/*
 * remote_cas_get_files for one blob: 1 when `dest` now holds it, 0 when
 * the server does not have it, or a negative error.
 */
int remote_cas_get_file(struct remote *r, const struct remote_digest *d,
			const char *dest, unsigned mode, struct error *err);

/*
 * Download a small blob into memory, verified as above: 1 and *out
 * (mem_alloc'd, NUL-terminated after len bytes; free with mem_free), 0
 * when missing, or a negative error. Errors: ERROR_INVALID (d->size above max, bytes),
 * ERROR_CORRUPT, ERROR_IO.
 */
int remote_cas_get_buf(struct remote *r, const struct remote_digest *d,
		       size_t max, char **out, size_t *len, struct error *err);

/*
 * remote_cas_get_buf from the CAS of `domain` (a remote_domain_id; NULL:
 * the trusted one), then, when it lacks the blob, the trusted CAS.
 * Errors as remote_cas_get_buf's; ERROR_INVALID for a bad domain id.
 */
int remote_cas_get_buf_in(struct remote *r, const char *domain,
			  const struct remote_digest *d, size_t max,
			  char **out, size_t *len, struct error *err);

/* ---- AC: action results at URL/ac/<hash> ---- */

/*
 * The AC key of a node: SHA-256 of the bytes "ripple-ac-v1", NUL, node_id,
 * NUL, key (ripple's 32-hex node key), as 64 hex digits into out (65
 * bytes). Errors: ERROR_INVALID (empty node id, key not 32 lowercase hex).
 */
int remote_ac_key(const char *node_id, const char *key, char *out,
		  struct error *err);

/* One output file of an action. */
struct remote_output {
	char *path;			/* relative, '/'-separated */
	struct remote_digest digest;
	int executable;			/* 1 or 0 */
};

/*
 * The most bytes of a record carried inline in its AC entry (REAPI's
 * OutputFile.contents): a lookup hit is then one request. Records are
 * 1-3 KiB (key components for `why` are most of it); a larger one is
 * fetched from the CAS by its digest, as entries without contents are.
 */
#define REMOTE_INLINE_MAX (64u << 10)

/* What an AC entry says, decoded (or to encode). */
struct remote_action {
	struct remote_output *outputs;	/* n, without the record */
	size_t n;
	struct remote_digest record;	/* ripple's record blob */
	char *record_text;		/* its bytes when the entry carries
					   them inline (verified against
					   `record` when decoded; NUL after
					   record_len), or NULL */
	size_t record_len;
	int exit_code;			/* 0 for an ok record */
	char *worker;			/* runner name, or NULL */
};

/* Free the outputs and strings and zero the action. Accepts NULL. */
void remote_action_release(struct remote_action *a);

/*
 * Whether `path` may be an output path: not empty, at most
 * REMOTE_PATH_MAX bytes, relative, no "", "." or ".." component, no
 * backslash, no control character (C0, DEL or C1: a newline would forge
 * a line of SHA256SUMS) and nothing that is not UTF-8 (base/path.h:
 * path_bad_char), no ".git" component (any case: git's own files,
 * hooks among them) and not under ".ripple/" (reserved), and no name
 * that is either of those by another spelling, nor on Windows a device,
 * a stream, a trailing dot or space or an 8.3 short name (base/path.h:
 * path_name_refused with host_path_names). Whether it is one of its
 * node's outputs is the caller's question. Returns 0 or ERROR_INVALID
 * naming the path (bytes that are not printable ASCII shown as \xHH).
 */
int remote_output_path_check(const char *path, size_t len,
			     struct error *err);

/*
 * Encode *a as REAPI ActionResult bytes: the outputs sorted by path, then
 * the record as output file REMOTE_RECORD_PATH (with its bytes as
 * `contents` when a->record_text is set and at most REMOTE_INLINE_MAX),
 * exit_code, and worker as execution_metadata.worker. *out is mem_alloc'd (free with mem_free).
 * Errors: ERROR_INVALID (a bad or repeated path, a malformed digest),
 * ERROR_NOMEM.
 */
int remote_action_encode(const struct remote_action *a, unsigned char **out,
			 size_t *len, struct error *err);

/*
 * Decode ActionResult bytes from a server (hostile data) into *out
 * (release with remote_action_release): at most REMOTE_AC_MAX bytes and
 * REMOTE_OUTPUTS_MAX files, every path checked as
 * remote_output_path_check (no NUL, absolute path or ".."), every digest
 * 64 lowercase hex with a size >= 0, no path twice, exactly one record;
 * the record's inline contents, when present, must be at most
 * REMOTE_INLINE_MAX bytes and hash to its digest (then record_text holds
 * a copy); contents of other outputs are ignored (never trusted).
 * Errors: ERROR_CORRUPT naming what is wrong, ERROR_NOMEM.
 */
int remote_action_decode(const void *p, size_t len,
			 struct remote_action *out, struct error *err);

/*
 * Store AC entry bytes under ac_hash (64 hex) in the handle's domain
 * (remote_set_domain). Errors: ERROR_UNSUPPORTED (read-only, or the
 * server refused the write: HTTP 401 or 403), ERROR_INVALID, ERROR_IO
 * naming the server.
 */
int remote_ac_put(struct remote *r, const char *ac_hash,
		  const unsigned char *p, size_t len, struct error *err);

/*
 * Fetch and decode the AC entry at ac_hash in the handle's domain: 1 and
 * *out (release it), 0 on a miss, or a negative error (ERROR_CORRUPT for
 * a bad entry, ERROR_IO).
 */
int remote_ac_get(struct remote *r, const char *ac_hash,
		  struct remote_action *out, struct error *err);

/* ---- ripple's record blob ---- */

/*
 * A node's record as read back from a record blob. The structs are
 * cache.h's, owned here: rec (status, version, metadata, artifacts, key),
 * manifest (the key's components) and run (provenance: id, commit, ref,
 * tag, rules digest), plus the runner that wrote it.
 */
struct remote_record {
	struct cache_record rec;
	struct cache_manifest manifest;
	struct cache_run run;
	char *runner;			/* or NULL */
};

/* Free everything and zero it. Accepts NULL. */
void remote_record_release(struct remote_record *r);

/*
 * The record blob's JSON (format "ripple-record", keys sorted, compact, no
 * newline; fields in docs/remote-cache.md) of rec, its key's components
 * (manifest; NULL for none) and the run that made it (run; NULL fields are
 * null), written by `runner` (may be NULL). *out mem_alloc'd, *len its
 * length. Errors: ERROR_INVALID (bad key), ERROR_NOMEM.
 */
int remote_record_encode(const struct cache_record *rec,
			 const struct cache_manifest *manifest,
			 const struct cache_run *run, const char *runner,
			 char **out, size_t *len, struct error *err);

/*
 * Parse a record blob (hostile data; at most REMOTE_RECORD_MAX bytes) into
 * *out (release with remote_record_release). Errors: ERROR_CORRUPT
 * (not JSON, another format, a field of the wrong type, a bad key or
 * status), ERROR_UNSUPPORTED (a newer format version), ERROR_NOMEM.
 */
int remote_record_decode(const char *text, size_t len,
			 struct remote_record *out, struct error *err);

/* ---- one node, whole ---- */

/* A file to upload as an output: where it is, and its name in the AC. */
struct remote_upload_file {
	const char *path;	/* the file on this machine */
	const char *name;	/* its output path (remote_output_path_check) */
	int executable;
};

/*
 * Publish one node in the only safe order: its n files to the CAS, then
 * the record blob (record, record_len bytes: remote_record_encode's text),
 * then the AC entry under remote_ac_key(node_id, key), in the handle's
 * domain (remote_set_domain), naming them all, so an AC entry never
 * names a blob the server lacks. Every PUT is
 * idempotent. exit_code: 0 for an ok record. worker: may be NULL.
 * Errors: those of the steps; nothing is written to the AC on failure.
 */
int remote_node_put(struct remote *r, const char *node_id, const char *key,
		    const struct remote_upload_file *files, size_t n,
		    const char *record, size_t record_len, int exit_code,
		    const char *worker, struct error *err);

/*
 * remote_node_put, also giving back the entry it wrote: *out (may be
 * NULL; release it) receives the outputs with their digests, the record
 * blob's digest, exit code and worker (record_text left NULL).
 */
int remote_node_put_action(struct remote *r, const char *node_id,
			   const char *key,
			   const struct remote_upload_file *files, size_t n,
			   const char *record, size_t record_len,
			   int exit_code, const char *worker,
			   struct remote_action *out, struct error *err);

/* ---- a run's bundle: its records at one commit in one blob ---- */

/*
 * The node id under which bundles are stored (remote_node_put and
 * remote_node_lookup with key remote_bundle_key): no rule can make it.
 */
#define REMOTE_BUNDLE_NODE "ripple:bundle"

/*
 * The bundle key of a commit (hex, at most 64 digits): the first 32 hex
 * digits of SHA-256("ripple-bundle-v1" NUL commit) into out (33 bytes).
 * Errors: ERROR_INVALID (no commit), ERROR_NOMEM.
 */
int remote_bundle_key(const char *commit, char *out, struct error *err);

/* One record of a bundle: what a lookup of its node would find. */
struct remote_bundle_entry {
	struct remote_record rec;	/* an ok record, no components */
	struct remote_action action;	/* its AC entry's outputs and
					   record blob digest (no text) */
	struct strv sources;		/* memo id, source key, memo id, ...:
					   the source-key memo ids of the
					   node's inputs as its writer
					   computed them, each with its key
					   (32 hex each) */
};

struct remote_bundle {
	struct remote_bundle_entry *items;	/* n, owned */
	size_t n;
};

/*
 * The bundle document of n entries at `commit` (format "ripple-bundle",
 * compact JSON, keys sorted; docs/remote-cache.md) into *out
 * (mem_alloc'd) and *len. Errors: ERROR_NOMEM.
 */
int remote_bundle_encode(const struct remote_bundle_entry *items, size_t n,
			 const char *commit, char **out, size_t *len,
			 struct error *err);

/*
 * Parse a bundle (hostile data, at most REMOTE_RECORD_MAX bytes) into
 * *out (release with remote_bundle_release): every record ok and typed
 * as a record blob's, every output path remote_output_path_check'ed and
 * listed once, digests and memo ids well formed. Errors: ERROR_CORRUPT,
 * ERROR_UNSUPPORTED (a newer format version), ERROR_NOMEM.
 */
int remote_bundle_decode(const char *text, size_t len,
			 struct remote_bundle *out, struct error *err);

/*
 * A bundle being made: a run adds the ok records it published or reused
 * (rec, its run, runner and AC entry `a`, with the memo id and key pairs
 * of its inputs, `sources`, may be NULL; all copied), then finishes the
 * document at its commit (as remote_bundle_encode). Records that are not
 * ok are left out. Errors: ERROR_NOMEM.
 */
struct remote_bundle_builder;
int remote_bundle_builder_new(struct remote_bundle_builder **out,
			      struct error *err);
int remote_bundle_builder_add(struct remote_bundle_builder *b,
			      const struct cache_record *rec,
			      const struct cache_run *run, const char *runner,
			      const struct remote_action *a,
			      const struct strv *sources, struct error *err);
size_t remote_bundle_builder_count(const struct remote_bundle_builder *b);
int remote_bundle_builder_finish(struct remote_bundle_builder *b,
				 const char *commit, char **out, size_t *len,
				 struct error *err);
void remote_bundle_builder_free(struct remote_bundle_builder *b);

/* Free one entry's parts (it can be reused), or a whole bundle. */
void remote_bundle_entry_release(struct remote_bundle_entry *e);
void remote_bundle_release(struct remote_bundle *b);

/* One node to look up, and what was found. */
struct remote_lookup {
	const char *node_id;		/* in */
	const char *key;		/* in: 32 hex digits */
	const char *domain;		/* in: a remote_domain_id, or NULL
					   for the trusted domain */
	int found;			/* out: 1 hit, 0 miss, < 0 error */
	struct remote_action action;	/* out, on a hit */
	char *record;			/* out: the record blob's text */
	size_t record_len;
	struct error err;		/* out: why found < 0 */
};

/* Release what a lookup found (action and record). Accepts NULL. */
void remote_lookup_release(struct remote_lookup *l);

/*
 * Look up n nodes: their AC entries in one parallel batch, then the record
 * blobs of the hits whose entry does not carry its record inline (older
 * entries) in another, each verified: a hit costs one request. A node whose entry is
 * corrupt, whose record blob is missing or does not verify, or whose
 * request failed gets found < 0 and its own err (a caller rebuilds it and
 * warns); the rest are unaffected. Returns 0, or ERROR_NOMEM /
 * ERROR_INVALID (a bad node key) before anything is sent.
 */
int remote_node_lookup(struct remote *r, struct remote_lookup *items,
		       size_t n, struct error *err);

#endif
