/*
 * Suite graph_sha256: SHA-256 of artifact files, as `release` reads them
 * for SHA256SUMS: the digest sha256sum gives, and only regular files, so
 * a FIFO or /dev/zero at an artifact's path is refused at once instead of
 * hanging the release.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "graph/sha256.h"
#include "tests/support/support.h"

static char *tmp;

static void
setup(void)
{
	tmp = t_tmpdir();
}

static void
teardown(void)
{
	t_rmtree(tmp);
	free(tmp);
}

TestSuite(graph_sha256, .init = setup, .fini = teardown, .timeout = 20);

static char *
at(const char *name)
{
	size_t n = strlen(tmp) + strlen(name) + 2;
	char *p = malloc(n);

	cr_assert_not_null(p);
	snprintf(p, n, "%s/%s", tmp, name);
	return p;
}

Test(graph_sha256, regular_files_only_never_a_fifo_or_a_device)
{
	char sum[SHA256_HEX], *p;
	struct error err;
	struct run_result r;

	t_write(tmp, "w.whl", "wheel\n");
	r = t_sh(tmp, "mkfifo fifo.whl && ln -s /dev/zero zero.whl");
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	p = at("w.whl");
	error_init(&err);
	cr_expect_eq(graph_sha256_file(p, sum, &err), 0, "%s", err.msg);
	cr_expect_str_eq(sum, "1f148121b804b2d30f7b87856b0840eb"
			 "a32af90607328a5756802771f8dbff57");
	free(p);
	p = at("fifo.whl");
	error_init(&err);
	cr_expect_eq(graph_sha256_file(p, sum, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "is not a regular file (a FIFO)") != NULL,
		  "%s", err.msg);
	free(p);
	p = at("zero.whl");
	error_init(&err);
	cr_expect_eq(graph_sha256_file(p, sum, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "(a device)") != NULL, "%s", err.msg);
	free(p);
	p = at("missing.whl");
	error_init(&err);
	cr_expect_eq(graph_sha256_file(p, sum, &err), ERROR_NOT_FOUND);
	free(p);
}
