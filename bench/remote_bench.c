/*
 * Benchmark: one big blob through the remote cache client
 * (cache/remote.h), as `ripple run` publishes an output and fetches it:
 * put = hash the file, then PUT it (hashed again while it is sent; sent
 * also when the server holds it: issue 22); get = GET it into a temporary
 * file next to DEST, verified while it streams, renamed into place;
 * verify = what skipping the upload of a blob the server claims would
 * cost to do safely: HEAD, then GET it verified into DEST. Prints the wall
 * time in ms of one round; bench/remote.sh compares them with curl alone
 * and put with verify on a blob the server holds. Not a test.
 *   build/bench/remote_bench URL FILE put|get|verify [DEST]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "cache/remote.h"
#include "base/banned.h"

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void
die(const struct error *err)
{
	fprintf(stderr, "remote_bench: %s\n", err->msg);
	exit(3);
}

int
main(int argc, char **argv)
{
	struct remote *r = NULL;
	struct remote_digest d;
	struct error err;
	const char *path;
	double t0, t1;
	int rc;

	if (argc < 4 || (strcmp(argv[3], "put") && strcmp(argv[3], "get") &&
			 strcmp(argv[3], "verify")) ||
	    (strcmp(argv[3], "put") && argc < 5)) {
		fprintf(stderr, "usage: remote_bench URL FILE put|get|verify "
			"[DEST]\n");
		return 2;
	}
	error_init(&err);
	if (remote_global_init(&err) || remote_open(argv[1], NULL, &r, &err))
		die(&err);
	path = argv[2];
	t0 = now_ms();
	if (!strcmp(argv[3], "put")) {
		rc = remote_cas_put_files(r, &path, NULL, 1, &d, &err);
	} else {
		if (remote_digest_file(path, &d, &err))
			die(&err);
		t0 = now_ms();
		rc = 1;
		if (!strcmp(argv[3], "verify")) {
			unsigned char have = 0;

			rc = remote_cas_has(r, &d, 1, NULL, &have, &err)
				? -1 : have;
		}
		if (rc == 1)
			rc = remote_cas_get_file(r, &d, argv[4], 0644, &err);
		if (rc == 0)
			error_set(&err, ERROR_NOT_FOUND, "blob not on the server");
		rc = rc == 1 ? 0 : -1;
	}
	t1 = now_ms();
	if (rc)
		die(&err);
	printf("%.1f\n", t1 - t0);
	remote_close(r);
	remote_global_cleanup();
	return 0;
}
