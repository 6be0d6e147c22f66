/*
 * The remote cache handle: libcurl's process setup, options from the
 * environment, and remote_open's checks of the URL and of the credential
 * headers (which never appear in a message). Requests: remote_xfer.c.
 */
#include "cache/remote.h"
#include "cache/remote_int.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")

int
remote_global_init(struct error *err)
{
	CURLcode cc;
	int rc = remote_libs_require(err);

	if (rc)
		return rc;
	cc = curl_global_init(CURL_GLOBAL_DEFAULT);
	if (cc != CURLE_OK)
		return error_set(err, ERROR_INTERNAL, "cannot set up libcurl: %s",
				 curl_easy_strerror(cc));
	return 0;
}

void
remote_global_cleanup(void)
{
	curl_global_cleanup();
}

void
remote_options_from_env(struct remote_options *opts)
{
	const char *h = getenv("RIPPLE_REMOTE_CACHE_HEADER");
	const char *n = getenv("RIPPLE_REMOTE_NETRC");

	if (!h || !h[0])
		h = getenv("RIPPLE_REMOTE_HEADER");	/* the older name */
	if (h && h[0])
		opts->headers = h;
	if (n && n[0] && strcmp(n, "0")) {
		opts->netrc = 1;
		opts->netrc_file = strcmp(n, "1") ? n : NULL;
	}
}

/* A whole decimal number in [0, max]; -1 when text is not one. */
static long
number(const char *text, const char *end, long max)
{
	long v = 0;

	if (text == end)
		return -1;
	for (; text < end; text++) {
		if (*text < '0' || *text > '9')
			return -1;
		v = v * 10 + (*text - '0');
		if (v > max)
			return -1;
	}
	return v;
}

int
remote_options_low_speed(struct remote_options *opts, const char *text,
			 struct error *err)
{
	const char *colon = strchr(text, ':');
	long bytes = colon ? number(text, colon, 1L << 30) : -1;
	long secs = colon ? number(colon + 1, colon + strlen(colon), 86400)
			  : -1;

	if (bytes < 0 || secs < 0 || (!bytes != !secs)) {
		error_set(err, ERROR_INVALID, "low-speed limit '%s' is not "
			  "BYTES:SECONDS", text);
		error_hint(err, "e.g. 1024:30 (cut off a request slower than "
			   "1 KiB/s for 30 s), 0:0 for none");
		return ERROR_INVALID;
	}
	opts->low_speed_limit = bytes;
	opts->low_speed_time_s = secs;
	return 0;
}

int
remote_options_timeout(struct remote_options *opts, const char *text,
		       struct error *err)
{
	long secs = number(text, text + strlen(text), 7L * 86400);

	if (secs < 0) {
		error_set(err, ERROR_INVALID, "request timeout '%s' is not a "
			  "number of seconds", text);
		error_hint(err, "e.g. 600; 0 for no limit");
		return ERROR_INVALID;
	}
	opts->timeout_s = secs;
	return 0;
}

int
remote_options_limits_from_env(struct remote_options *opts,
			       struct error *err)
{
	const char *t = getenv("RIPPLE_REMOTE_TIMEOUT");
	const char *l = getenv("RIPPLE_REMOTE_LOW_SPEED");

	if (t && t[0] && remote_options_timeout(opts, t, err)) {
		error_prefix(err, "RIPPLE_REMOTE_TIMEOUT");
		return ERROR_INVALID;
	}
	if (l && l[0] && remote_options_low_speed(opts, l, err)) {
		error_prefix(err, "RIPPLE_REMOTE_LOW_SPEED");
		return ERROR_INVALID;
	}
	return 0;
}

/* RFC 9110 token characters, for header names. */
static int
is_tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/*
 * Check each "Name: value" line of text (empty lines skipped) and append
 * it to *list, then "Expect:" (no 100-continue round trip on PUT).
 * Messages name the line and the header, never its value.
 */
static int
headers_parse(const char *text, struct curl_slist **list, struct error *err)
{
	const char *p = text ? text : "";
	struct curl_slist *l = NULL, *t;
	unsigned line = 0;
	char *one = NULL;
	int rc = 0;

	while (*p) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p), i = 0;

		line++;
		if (len) {
			while (i < len && is_tchar(p[i]))
				i++;
			if (!i || i >= len || p[i] != ':') {
				rc = error_set(err, ERROR_INVALID,
					       "remote cache header line %u is "
					       "not \"Name: value\"", line);
				goto done;
			}
			if (memchr(p, '\r', len)) {
				rc = error_set(err, ERROR_INVALID,
					       "remote cache header '%.*s' "
					       "holds a carriage return",
					       (int)i, p);
				goto done;
			}
			one = mem_alloc(len + 1);
			if (!one) {
				rc = OOM(err);
				goto done;
			}
			memcpy(one, p, len);
			one[len] = '\0';
			t = curl_slist_append(l, one);
			mem_free(one);
			one = NULL;
			if (!t) {
				rc = OOM(err);
				goto done;
			}
			l = t;
		}
		p += len + (end ? 1 : 0);
	}
	t = curl_slist_append(l, "Expect:");
	if (!t) {
		rc = OOM(err);
		goto done;
	}
	l = t;
	*list = l;
	l = NULL;
done:
	curl_slist_free_all(l);
	return rc;
}

/* The URL for messages: the text itself unless it may hold a password. */
static const char *
url_shown(const char *url)
{
	return strchr(url, '@') ? "(not shown: it has an '@')" : url;
}

/* Whether URL part `what` is present in u. */
static int
has_part(CURLU *u, CURLUPart what)
{
	char *s = NULL;
	int has = curl_url_get(u, what, &s, 0) == CURLUE_OK && s && s[0];

	curl_free(s);
	return has;
}

/*
 * Check url (http or https; no user, password, query or fragment) and
 * return its normal form without a trailing '/' in *out (mem_alloc'd).
 */
static int
url_check(const char *url, char **out, struct error *err)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *full = NULL;
	CURLUcode uc;
	size_t len;
	int rc = 0;

	if (!u)
		return OOM(err);
	uc = curl_url_set(u, CURLUPART_URL, url, 0);
	if (uc != CURLUE_OK) {
		rc = error_set(err, ERROR_INVALID,
			       "remote cache URL '%s' is not a URL: %s",
			       url_shown(url), curl_url_strerror(uc));
		goto done;
	}
	if (has_part(u, CURLUPART_USER) || has_part(u, CURLUPART_PASSWORD)) {
		rc = error_set(err, ERROR_INVALID, "remote cache URL carries "
			       "a user name or password");
		error_hint(err, "give credentials in "
			   "RIPPLE_REMOTE_CACHE_HEADER or netrc, not in the "
			   "URL");
		goto done;
	}
	if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    (strcmp(scheme, "http") && strcmp(scheme, "https"))) {
		rc = error_set(err, ERROR_INVALID, "remote cache URL '%s' is "
			       "not http or https", url_shown(url));
		goto done;
	}
	if (has_part(u, CURLUPART_QUERY) || has_part(u, CURLUPART_FRAGMENT)) {
		rc = error_set(err, ERROR_INVALID, "remote cache URL '%s' has "
			       "a query or fragment", url_shown(url));
		goto done;
	}
	if (curl_url_get(u, CURLUPART_URL, &full, 0) != CURLUE_OK) {
		rc = OOM(err);
		goto done;
	}
	len = strlen(full);
	while (len && full[len - 1] == '/')
		len--;
	*out = mem_alloc(len + 1);
	if (!*out) {
		rc = OOM(err);
		goto done;
	}
	memcpy(*out, full, len);
	(*out)[len] = '\0';
done:
	curl_free(full);
	curl_free(scheme);
	curl_url_cleanup(u);
	return rc;
}

/* (Here, not in remote_domain.c: the CAS reads check domains too.) */
int
remote_domain_valid(const char *s)
{
	size_t i;

	if (!s || !s[0] || s[0] == '-')
		return 0;
	for (i = 0; s[i]; i++)
		if (i >= REMOTE_DOMAIN_SIZE - 1 ||
		    !((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return 1;
}

void
remote_ac_space(const char *domain, char *out)
{
	if (domain)
		snprintf(out, REMOTE_SPACE_SIZE, "d/%s/ac", domain);
	else
		snprintf(out, REMOTE_SPACE_SIZE, "ac");
}

void
remote_cas_space(const char *domain, char *out)
{
	if (domain)
		snprintf(out, REMOTE_SPACE_SIZE, "d/%s/cas", domain);
	else
		snprintf(out, REMOTE_SPACE_SIZE, "cas");
}

int
remote_open(const char *url, const struct remote_options *opts,
	    struct remote **out, struct error *err)
{
	static const struct remote_options defaults = REMOTE_OPTIONS_INIT;
	struct remote *r = NULL;
	int rc;

	*out = NULL;
	rc = remote_libs_require(err);
	if (rc)
		return rc;
	if (!opts)
		opts = &defaults;
	if (!opts->max_parallel)
		return error_set(err, ERROR_INVALID, "remote cache needs at "
				 "least one transfer at a time");
	r = mem_calloc(1, sizeof(*r));
	if (!r)
		return OOM(err);
	r->opts = *opts;
	r->opts.headers = NULL;
	remote_ac_space(NULL, r->ac_space);
	remote_cas_space(NULL, r->cas_space);
	rc = url_check(url, &r->url, err);
	if (rc)
		goto done;
	if (opts->headers) {
		r->headers_text = mem_strdup(opts->headers);
		if (!r->headers_text) {
			rc = OOM(err);
			goto done;
		}
		r->opts.headers = r->headers_text;
	}
	rc = headers_parse(r->opts.headers, &r->headers, err);
	if (rc)
		goto done;
	r->multi = curl_multi_init();
	if (!r->multi) {
		rc = error_set(err, ERROR_INTERNAL, "cannot make a curl multi "
			       "handle");
		goto done;
	}
	*out = r;
	r = NULL;
done:
	remote_close(r);
	return rc;
}

void
remote_close(struct remote *r)
{
	if (!r)
		return;
	if (r->multi)
		curl_multi_cleanup(r->multi);
	curl_slist_free_all(r->headers);
	mem_free(r->headers_text);
	mem_free(r->url);
	mem_free(r);
}

const char *
remote_url(const struct remote *r)
{
	return r->url;
}

int
remote_read_only(const struct remote *r)
{
	return r->opts.read_only;
}

int
remote_read_only_error(const struct remote *r, struct error *err)
{
	return error_set(err, ERROR_UNSUPPORTED, "remote cache %s is "
			 "read-only", r->url);
}
