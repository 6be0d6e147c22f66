/*
 * SHA-256 of files, for what publishing needs (SHA256SUMS as `sha256sum
 * -c` reads it): a thin layer over OpenSSL libcrypto's EVP interface.
 * ripple's own keys and output digests stay XXH3-128 (graph/digest.h).
 */
#ifndef RIPPLE_GRAPH_SHA256_H
#define RIPPLE_GRAPH_SHA256_H

struct error;

#define SHA256_HEX 65	/* 64 lowercase hex digits and a NUL */

/*
 * SHA-256 of the regular file at `path`, read in chunks, as lowercase hex
 * into out (SHA256_HEX bytes). Errors: ERROR_NOT_FOUND (no such file),
 * ERROR_INVALID (a FIFO, a device, a folder: never read, base/file.h),
 * ERROR_IO (unreadable), ERROR_INTERNAL (libcrypto failed), ERROR_NOMEM.
 */
int graph_sha256_file(const char *path, char out[SHA256_HEX],
		      struct error *err);

#endif
