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
