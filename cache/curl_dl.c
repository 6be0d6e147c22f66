/*
 * libcurl, loaded when the remote cache is first used (base/dl.h): these
 * definitions keep libcurl's names and forward through a table filled by
 * dlopen, so cache/remote*.c call libcurl as its manual says and only
 * commands with a remote cache map it and the some twenty libraries it
 * brings (TLS, Kerberos, LDAP, HTTP/2, IDN). remote_global_init and
 * remote_open load it with a clear error; a wrapper called before that
 * loads on demand and, if it cannot, fails the way libcurl reports failure
 * (NULL, CURLE_FAILED_INIT). Cleanup functions never load it.
 *
 * protobuf-c stays linked: its generated descriptors point at the
 * library's data symbol protobuf_c_empty_string, which the library
 * compares against internally, so it cannot be replaced by a copy; it
 * depends on libc alone.
 */
#define CURL_DISABLE_TYPECHECK	/* curl_easy_setopt is a function here */
#include <curl/curl.h>
#include <stdarg.h>

#include "base/dl.h"
#include "base/error.h"
#include "cache/remote_int.h"
#include "base/banned.h"

enum {
	C_EASY_CLEANUP, C_EASY_GETINFO, C_EASY_INIT, C_EASY_SETOPT,
	C_EASY_STRERROR, C_FREE, C_GLOBAL_CLEANUP, C_GLOBAL_INIT,
	C_MULTI_ADD_HANDLE, C_MULTI_CLEANUP, C_MULTI_INFO_READ, C_MULTI_INIT,
	C_MULTI_PERFORM, C_MULTI_POLL, C_MULTI_REMOVE_HANDLE, C_SLIST_APPEND,
	C_SLIST_FREE_ALL, C_URL, C_URL_CLEANUP, C_URL_GET, C_URL_SET,
	C_URL_STRERROR, C_N
};

static const char *const curl_names[C_N] = {
	[C_EASY_CLEANUP] = "curl_easy_cleanup",
	[C_EASY_GETINFO] = "curl_easy_getinfo",
	[C_EASY_INIT] = "curl_easy_init",
	[C_EASY_SETOPT] = "curl_easy_setopt",
	[C_EASY_STRERROR] = "curl_easy_strerror",
	[C_FREE] = "curl_free",
	[C_GLOBAL_CLEANUP] = "curl_global_cleanup",
	[C_GLOBAL_INIT] = "curl_global_init",
	[C_MULTI_ADD_HANDLE] = "curl_multi_add_handle",
	[C_MULTI_CLEANUP] = "curl_multi_cleanup",
	[C_MULTI_INFO_READ] = "curl_multi_info_read",
	[C_MULTI_INIT] = "curl_multi_init",
	[C_MULTI_PERFORM] = "curl_multi_perform",
	[C_MULTI_POLL] = "curl_multi_poll",
	[C_MULTI_REMOVE_HANDLE] = "curl_multi_remove_handle",
	[C_SLIST_APPEND] = "curl_slist_append",
	[C_SLIST_FREE_ALL] = "curl_slist_free_all",
	[C_URL] = "curl_url",
	[C_URL_CLEANUP] = "curl_url_cleanup",
	[C_URL_GET] = "curl_url_get",
	[C_URL_SET] = "curl_url_set",
	[C_URL_STRERROR] = "curl_url_strerror",
};

/*
 * The soname and package built against (./configure): libcurl.so.4 in
 * libcurl4 on Debian 12, in libcurl4t64 on Debian 13.
 */
#ifndef RIPPLE_LIBCURL_SONAME
#define RIPPLE_LIBCURL_SONAME "libcurl.so.4"
#endif
#ifndef RIPPLE_LIBCURL_PACKAGE
#define RIPPLE_LIBCURL_PACKAGE "libcurl4"
#endif

static dl_fn curl_fns[C_N];
static struct dl_lib curl_lib = DL_LIB(RIPPLE_LIBCURL_SONAME,
				       RIPPLE_LIBCURL_PACKAGE,
				       "the remote cache", curl_names,
				       curl_fns);

int
remote_libs_require(struct error *err)
{
	return dl_lib_require(&curl_lib, err);
}

/* The function in slot i of curl_fns, as type T. */
#define CURL_FN(T, i) ((T)curl_fns[i])

void
curl_easy_cleanup(CURL *curl)
{
	if (dl_lib_loaded(&curl_lib))
		CURL_FN(void (*)(CURL *), C_EASY_CLEANUP)(curl);
}

CURLcode
curl_easy_getinfo(CURL *curl, CURLINFO info, ...)
{
	va_list ap;
	void *p;

	if (!dl_lib_ready(&curl_lib))
		return CURLE_FAILED_INIT;
	/* Every CURLINFO takes one pointer. */
	va_start(ap, info);
	p = va_arg(ap, void *);
	va_end(ap);
	return CURL_FN(CURLcode (*)(CURL *, CURLINFO, ...), C_EASY_GETINFO)(
		curl, info, p);
}

CURL *
curl_easy_init(void)
{
	if (!dl_lib_ready(&curl_lib))
		return NULL;
	return CURL_FN(CURL *(*)(void), C_EASY_INIT)();
}

CURLcode
curl_easy_setopt(CURL *curl, CURLoption option, ...)
{
	CURLcode (*f)(CURL *, CURLoption, ...);
	va_list ap;
	CURLcode rc;

	if (!dl_lib_ready(&curl_lib))
		return CURLE_FAILED_INIT;
	f = CURL_FN(CURLcode (*)(CURL *, CURLoption, ...), C_EASY_SETOPT);
	/* The option's number says its argument's type (curl.h CURLOPTTYPE_*). */
	va_start(ap, option);
	if (option < CURLOPTTYPE_OBJECTPOINT)
		rc = f(curl, option, va_arg(ap, long));
	else if (option < CURLOPTTYPE_FUNCTIONPOINT)
		rc = f(curl, option, va_arg(ap, void *));
	else if (option < CURLOPTTYPE_OFF_T)
		rc = f(curl, option, va_arg(ap, dl_fn));
	else if (option < CURLOPTTYPE_BLOB)
		rc = f(curl, option, va_arg(ap, curl_off_t));
	else
		rc = f(curl, option, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

const char *
curl_easy_strerror(CURLcode code)
{
	if (!dl_lib_ready(&curl_lib))
		return RIPPLE_LIBCURL_SONAME " cannot be loaded";
	return CURL_FN(const char *(*)(CURLcode), C_EASY_STRERROR)(code);
}

void
curl_free(void *p)
{
	if (dl_lib_loaded(&curl_lib))
		CURL_FN(void (*)(void *), C_FREE)(p);
}

void
curl_global_cleanup(void)
{
	if (dl_lib_loaded(&curl_lib))
		CURL_FN(void (*)(void), C_GLOBAL_CLEANUP)();
}

CURLcode
curl_global_init(long flags)
{
	if (!dl_lib_ready(&curl_lib))
		return CURLE_FAILED_INIT;
	return CURL_FN(CURLcode (*)(long), C_GLOBAL_INIT)(flags);
}

CURLMcode
curl_multi_add_handle(CURLM *m, CURL *e)
{
	if (!dl_lib_ready(&curl_lib))
		return CURLM_INTERNAL_ERROR;
	return CURL_FN(CURLMcode (*)(CURLM *, CURL *), C_MULTI_ADD_HANDLE)(m,
									    e);
}

CURLMcode
curl_multi_cleanup(CURLM *m)
{
	if (!dl_lib_loaded(&curl_lib))
		return CURLM_OK;
	return CURL_FN(CURLMcode (*)(CURLM *), C_MULTI_CLEANUP)(m);
}

CURLMsg *
curl_multi_info_read(CURLM *m, int *left)
{
	if (!dl_lib_ready(&curl_lib))
		return NULL;
	return CURL_FN(CURLMsg *(*)(CURLM *, int *), C_MULTI_INFO_READ)(m,
									 left);
}

CURLM *
curl_multi_init(void)
{
	if (!dl_lib_ready(&curl_lib))
		return NULL;
	return CURL_FN(CURLM *(*)(void), C_MULTI_INIT)();
}

CURLMcode
curl_multi_perform(CURLM *m, int *running)
{
	if (!dl_lib_ready(&curl_lib))
		return CURLM_INTERNAL_ERROR;
	return CURL_FN(CURLMcode (*)(CURLM *, int *), C_MULTI_PERFORM)(m,
								      running);
}

CURLMcode
curl_multi_poll(CURLM *m, struct curl_waitfd extra_fds[],
		unsigned int extra_nfds, int timeout_ms, int *ret)
{
	if (!dl_lib_ready(&curl_lib))
		return CURLM_INTERNAL_ERROR;
	return CURL_FN(CURLMcode (*)(CURLM *, struct curl_waitfd *,
				     unsigned int, int, int *), C_MULTI_POLL)(
		m, extra_fds, extra_nfds, timeout_ms, ret);
}

CURLMcode
curl_multi_remove_handle(CURLM *m, CURL *e)
{
	if (!dl_lib_loaded(&curl_lib))
		return CURLM_OK;
	return CURL_FN(CURLMcode (*)(CURLM *, CURL *),
		       C_MULTI_REMOVE_HANDLE)(m, e);
}

struct curl_slist *
curl_slist_append(struct curl_slist *list, const char *data)
{
	if (!dl_lib_ready(&curl_lib))
		return NULL;
	return CURL_FN(struct curl_slist *(*)(struct curl_slist *,
					      const char *), C_SLIST_APPEND)(
		list, data);
}

void
curl_slist_free_all(struct curl_slist *list)
{
	if (dl_lib_loaded(&curl_lib))
		CURL_FN(void (*)(struct curl_slist *), C_SLIST_FREE_ALL)(list);
}

CURLU *
curl_url(void)
{
	if (!dl_lib_ready(&curl_lib))
		return NULL;
	return CURL_FN(CURLU *(*)(void), C_URL)();
}

void
curl_url_cleanup(CURLU *u)
{
	if (dl_lib_loaded(&curl_lib))
		CURL_FN(void (*)(CURLU *), C_URL_CLEANUP)(u);
}

/* libcurl 8 takes a const handle here, 7 a plain one: ./configure
 * compiles both and defines RIPPLE_CURL_URL_GET_CONST to the one that
 * matches the installed curl/urlapi.h. */
#ifndef RIPPLE_CURL_URL_GET_CONST
#define RIPPLE_CURL_URL_GET_CONST
#endif
CURLUcode
curl_url_get(RIPPLE_CURL_URL_GET_CONST CURLU *u, CURLUPart what, char **part,
	     unsigned int flags)
{
	if (!dl_lib_ready(&curl_lib))
		return CURLUE_OUT_OF_MEMORY;
	return CURL_FN(CURLUcode (*)(RIPPLE_CURL_URL_GET_CONST CURLU *,
				     CURLUPart, char **, unsigned int),
		       C_URL_GET)(u, what, part, flags);
}

CURLUcode
curl_url_set(CURLU *u, CURLUPart what, const char *part, unsigned int flags)
{
	if (!dl_lib_ready(&curl_lib))
		return CURLUE_OUT_OF_MEMORY;
	return CURL_FN(CURLUcode (*)(CURLU *, CURLUPart, const char *,
				     unsigned int), C_URL_SET)(u, what, part,
							       flags);
}

const char *
curl_url_strerror(CURLUcode code)
{
	if (!dl_lib_ready(&curl_lib))
		return RIPPLE_LIBCURL_SONAME " cannot be loaded";
	return CURL_FN(const char *(*)(CURLUcode), C_URL_STRERROR)(code);
}
