/*
 * SHA-256 of a file through libcrypto's EVP digest interface (the one
 * OpenSSL documents for new code), streamed in 64 KiB chunks.
 */
#include "graph/sha256.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/error.h"
#include "base/file.h"
#include "base/banned.h"

int
graph_sha256_file(const char *path, char out[SHA256_HEX], struct error *err)
{
	static const char hexd[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE], chunk[65536];
	unsigned int len = 0, i;
	EVP_MD_CTX *ctx = NULL;
	FILE *f;
	size_t n;
	int rc = 0, fd;

	/* Never a FIFO or /dev/zero: either would hang the release. */
	fd = file_open_regular(path, NULL, err);
	if (fd < 0)
		return fd;
	f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	ctx = EVP_MD_CTX_new();
	if (!ctx) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		rc = error_set(err, ERROR_INTERNAL, "libcrypto cannot start "
			       "SHA-256");
		goto done;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (EVP_DigestUpdate(ctx, chunk, n) != 1) {
			rc = error_set(err, ERROR_INTERNAL, "libcrypto "
				       "SHA-256 failed");
			goto done;
		}
	if (ferror(f)) {
		rc = error_set(err, ERROR_IO, "cannot read '%s'", path);
		goto done;
	}
	if (EVP_DigestFinal_ex(ctx, md, &len) != 1 || len != 32) {
		rc = error_set(err, ERROR_INTERNAL, "libcrypto SHA-256 failed");
		goto done;
	}
	for (i = 0; i < len; i++) {
		out[2 * i] = hexd[md[i] >> 4];
		out[2 * i + 1] = hexd[md[i] & 15];
	}
	out[64] = '\0';
done:
	EVP_MD_CTX_free(ctx);
	fclose(f);
	return rc;
}
