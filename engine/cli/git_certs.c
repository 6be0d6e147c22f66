/*
 * ripple reads repositories with libgit2 and never fetches or pushes
 * through it (the remote cache speaks HTTP through libcurl). Debian's
 * libgit2 is built with mbedTLS, and its git_libgit2_init parses the whole
 * system CA bundle (/etc/ssl/certs/ca-certificates.crt, some 140
 * certificates) for HTTPS transports ripple never opens: 56 M instructions,
 * about 5 ms, a quarter of a warm plan and more than `git diff` takes.
 * There is no option to skip it (the load happens inside the init), so the
 * executable defines the function that does it, and the dynamic linker
 * binds libgit2's call here (the executable comes first in the lookup
 * scope). Only this program is affected; libraries ripple dlopens or links
 * for TLS (libcurl, with OpenSSL) have their own stores.
 *
 * libssh2's initialization is skipped the same way (libssh2_init below).
 *
 * Built with ./configure --static-libs, libgit2 and mbedTLS come from
 * their static archives: the linker's --wrap then sends libgit2's calls
 * to the __wrap_ functions below (RIPPLE_STATIC_LIBS), and a rename in a
 * later libgit2 is a link error, not a silent fallback.
 *
 * Failing closed: should a future libgit2 network call ever be made, no CA
 * is trusted and certificate checks fail; nothing is accepted unverified.
 * With a libgit2 built against OpenSSL, nothing calls this and it is inert.
 * Linked into the ripple executable only, never into libripple.a.
 *
 * Linked statically, libgit2's whole mbedTLS set-up waits for the first
 * TLS stream (RIPPLE_LAZY_TLS, below).
 */

#ifdef RIPPLE_STATIC_LIBS
#define mbedtls_x509_crt_parse_file __wrap_mbedtls_x509_crt_parse_file
#define libssh2_init __wrap_libssh2_init
#endif

int mbedtls_x509_crt_parse_file(void *chain, const char *path);

/*
 * mbedTLS's "parse a PEM/DER file of certificates into chain": here,
 * load nothing and report failure (mbedTLS's MBEDTLS_ERR_X509_FILE_IO_ERROR,
 * -0x2900), which libgit2 takes as "no default certificates".
 */
int
mbedtls_x509_crt_parse_file(void *chain, const char *path)
{
	(void)chain;
	(void)path;
	return -0x2900;
}

/*
 * The same for SSH: Debian's libgit2 links libssh2 (built on OpenSSL), and
 * git_libgit2_init calls libssh2_init, which initializes OpenSSL and loads
 * its built-in engines: 1 M instructions on every command, for SSH remotes
 * ripple never opens. libssh2_init returns 0 here without doing that, so
 * libgit2's init goes on; libssh2_exit at shutdown sees libssh2 was never
 * initialized and does nothing. Should an SSH transport ever be opened,
 * libssh2's crypto would be left to OpenSSL 3's own initialization on first
 * use.
 */
int libssh2_init(int flags);

int
libssh2_init(int flags)
{
	(void)flags;
	return 0;
}

#ifdef RIPPLE_LAZY_TLS
/*
 * libgit2's mbedTLS set-up (git_mbedtls_stream_global_init, one of
 * git_libgit2_init's steps) seeds a CTR-DRBG at once: mbedTLS's entropy
 * sources, HAVEGE among them, cost 1.4 M instructions on every command
 * (3% of a warm plan at 100k files) and read 128 bytes of getrandom, for
 * a TLS stream ripple never opens. Here the step does nothing at init,
 * and the set-up runs, whole and as libgit2 wrote it, before the first
 * TLS stream or CA location that needs it: libgit2's only ways to its
 * mbedTLS configuration are these four functions (streams/mbedtls.c; its
 * state is static there). Should the set-up fail then, the stream is not
 * made and libgit2's own error says why; nothing runs unconfigured.
 *
 * Only with libgit2 linked statically (./configure defines
 * RIPPLE_LAZY_TLS when the archive has the four and --wrap reaches
 * them): in libgit2.so they are internal, so a shared build keeps the
 * set-up at init. A libgit2 that renames one fails to link the probe and
 * keeps it too.
 */
#include <pthread.h>

struct git_stream;

int __real_git_mbedtls_stream_global_init(void);
int __real_git_mbedtls_stream_new(struct git_stream **out, const char *host,
				  const char *port);
int __real_git_mbedtls_stream_wrap(struct git_stream **out,
				   struct git_stream *in, const char *host);
int __real_git_mbedtls__set_cert_location(const char *file, const char *path);
int __wrap_git_mbedtls_stream_global_init(void);
int __wrap_git_mbedtls_stream_new(struct git_stream **out, const char *host,
				  const char *port);
int __wrap_git_mbedtls_stream_wrap(struct git_stream **out,
				   struct git_stream *in, const char *host);
int __wrap_git_mbedtls__set_cert_location(const char *file, const char *path);

/* libgit2's state is process-wide, and so is what says it is set up. */
static pthread_mutex_t tls_lock = PTHREAD_MUTEX_INITIALIZER;
static int tls_ready;	/* set up since libgit2's last init */

/*
 * git_libgit2_init's step, on its first init and again after a full
 * shutdown (which ran the set-up's own shutdown, if it had run): mark it
 * not done, do nothing else.
 */
int
__wrap_git_mbedtls_stream_global_init(void)
{
	pthread_mutex_lock(&tls_lock);
	tls_ready = 0;
	pthread_mutex_unlock(&tls_lock);
	return 0;
}

/* libgit2's set-up, once: 0, or -1 with libgit2's error set. */
static int
tls_setup(void)
{
	int rc = 0;

	pthread_mutex_lock(&tls_lock);
	if (!tls_ready) {
		rc = __real_git_mbedtls_stream_global_init();
		tls_ready = rc == 0;
	}
	pthread_mutex_unlock(&tls_lock);
	return rc;
}

int
__wrap_git_mbedtls_stream_new(struct git_stream **out, const char *host,
			      const char *port)
{
	if (tls_setup() < 0)
		return -1;
	return __real_git_mbedtls_stream_new(out, host, port);
}

int
__wrap_git_mbedtls_stream_wrap(struct git_stream **out, struct git_stream *in,
			       const char *host)
{
	if (tls_setup() < 0)
		return -1;
	return __real_git_mbedtls_stream_wrap(out, in, host);
}

/* git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, ...) */
int
__wrap_git_mbedtls__set_cert_location(const char *file, const char *path)
{
	if (tls_setup() < 0)
		return -1;
	return __real_git_mbedtls__set_cert_location(file, path);
}
#endif
