/*
 * Suite base_plat: the POSIX side of base/'s operating-system layer
 * (base/lock.h, base/fsys.h, base/random.h, host_build_id of
 * base/host.h), checked as
 * tests/windows/base_test.c checks the Windows side under Wine, so both
 * sides answer alike.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fsys.h"
#include "base/host.h"
#include "base/lock.h"
#include "base/random.h"
#include "tests/support/support.h"

Test(base_plat, fsys_mkdir_answers_in_errno_values)
{
	char *dir = t_tmpdir();
	char p[4096], q[4096];

	snprintf(p, sizeof(p), "%s/sub", dir);
	snprintf(q, sizeof(q), "%s/none/sub", dir);
	cr_expect_eq(fsys_mkdir(p), 0);
	cr_expect_eq(fsys_mkdir(p), EEXIST);
	cr_expect_eq(fsys_mkdir(q), ENOENT);
	t_rmtree(dir);
	free(dir);
}

Test(base_plat, two_descriptors_of_one_process_conflict_on_a_lock)
{
	char *dir = t_tmpdir();
	char p[4096], p2[4096];
	int a = -1, b = -1, e;

	snprintf(p, sizeof(p), "%s/owner.lock", dir);
	snprintf(p2, sizeof(p2), "%s/owner2.lock", dir);
	cr_assert_eq(lock_open(p, LOCK_OPEN_WRITE | LOCK_OPEN_CREATE, &a), 0);
	cr_expect_eq(lock_open(p, LOCK_OPEN_WRITE | LOCK_OPEN_CREATE, &b),
		     EEXIST);
	cr_assert_eq(lock_try(a), 0);
	cr_assert_eq(lock_open(p, 0, &b), 0);
	cr_expect_eq(lock_held(b), 1, "the other descriptor's lock is seen");
	close(b);
	cr_assert_eq(lock_open(p, LOCK_OPEN_WRITE, &b), 0);
	e = lock_try(b);
	cr_expect(e == EAGAIN || e == EACCES, "%s", strerror(e));
	cr_expect_eq(rename(p, p2), 0, "a locked file is renamed into place");
	close(a);
	cr_expect_eq(lock_held(b), 0, "closing the holder drops the lock");
	cr_expect_eq(lock_try(b), 0);
	close(b);
	t_rmtree(dir);
	free(dir);
}

Test(base_plat, random_bytes_differ_and_big_requests_fail)
{
	unsigned char a[16], b[16], zero[16] = { 0 }, big[300];

	cr_assert_eq(random_bytes(a, sizeof(a), 0), 0);
	cr_assert_eq(random_bytes(b, sizeof(b), 1), 0);
	cr_expect(memcmp(a, b, sizeof(a)) && memcmp(a, zero, sizeof(a)));
	cr_expect_eq(random_bytes(big, 257, 0), EINVAL, "n is at most 256 "
		     "on both sides (BCryptGenRandom takes a ULONG)");
}

/*
 * The build id is this executable's (readelf -n's "Build ID" on Linux):
 * lowercase hex of an even length, the same every call, cut to nothing
 * rather than short.
 */
Test(base_plat, the_build_id_is_the_executables)
{
	char a[129], b[129], small[8];
	size_t i, n;

	host_build_id(a, sizeof(a));
	host_build_id(b, sizeof(b));
	cr_expect_str_eq(a, b);
	n = strlen(a);
	cr_expect_eq(n % 2, 0, "%s", a);
	for (i = 0; i < n; i++)
		cr_expect(strchr("0123456789abcdef", a[i]), "%s", a);
#ifdef __linux__
	{
		char cmd[160], *want;

		snprintf(cmd, sizeof(cmd), "command -v readelf >/dev/null && "
			 "readelf -n /proc/%d/exe | sed -n 's/.*Build ID: "
			 "//p' || echo skip", (int)getpid());
		want = t_sh_out(".", cmd);
		if (strcmp(want, "skip"))
			cr_expect_str_eq(a, want, "readelf -n");
		free(want);
	}
#endif
	host_build_id(small, sizeof(small));
	cr_expect_str_eq(small, n < sizeof(small) ? a : "");
}
