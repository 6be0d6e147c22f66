/*
 * The Windows side of base/ under Wine (`ninja check-windows`), while
 * Criterion is not built for Windows (docs/windows.md): a plain program
 * with one check per line and a closing "N passed, N failed" line. Run
 * from build-windows/, where the DLLs lie beside it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <io.h>
#include <pthread.h>
#include <wchar.h>
#include <windows.h>

#include "base/dl.h"
#include "base/error.h"
#include "base/fsys.h"
#include "base/interrupt.h"
#include "base/lock.h"
#include "base/pool.h"
#include "base/random.h"
#include "base/wide_win.h"

static int passed, failed, skipped;

static void
check(int ok, const char *what, const char *detail)
{
	if (ok)
		passed++;
	else
		failed++;
	printf("%s: %s%s%s\n", ok ? "PASS" : "FAIL", what,
	       ok || !detail ? "" : ": ", ok || !detail ? "" : detail);
}

static void
wide_round_trips_utf8(void)
{
	/* "h", e-acute, "llo", U+1F600 (a surrogate pair in UTF-16) */
	const char *s = "h\xc3\xa9llo \xf0\x9f\x98\x80";
	struct error err;
	wchar_t *w;
	char *back;

	error_init(&err);
	w = wide_from_utf8(s, &err);
	check(w != NULL, "wide_from_utf8 converts UTF-8", err.msg);
	if (!w)
		return;
	check(wcslen(w) == 8 && w[1] == 0xe9 && w[6] == 0xd83d &&
	      w[7] == 0xde00, "UTF-16 units as Windows expects them", NULL);
	back = wide_to_utf8(w, &err);
	check(back && !strcmp(back, s), "and back to the same bytes", err.msg);
	free(back);
	free(w);
}

static void
wide_refuses_bytes_that_are_not_utf8(void)
{
	struct error err;
	wchar_t *w;

	error_init(&err);
	w = wide_from_utf8("caf\xe9", &err);
	check(!w && err.code == ERROR_INVALID, "Latin-1 bytes are refused, "
	      "never converted lossily", err.msg);
	free(w);
}

static const char *const zip_names[] = { "zip_libzip_version" };
static const char *const none_names[] = { "nothing" };

static void
dl_loads_a_dll_by_its_soname(void)
{
	dl_fn fns[1] = { NULL };
	struct dl_lib lib = DL_LIB("libzip.so.4", "libzip4", "this test",
				   zip_names, fns);
	struct error err;
	const char *(*version)(void);

	error_init(&err);
	check(dl_lib_require(&lib, &err) == 0, "libzip.so.4 loads as "
	      "libzip.dll from the program's folder", err.msg);
	if (!fns[0])
		return;
	version = (const char *(*)(void))fns[0];
	check(!strcmp(version(), "1.7.3"), "and its functions run",
	      version());
}

static void
dl_without_a_windows_name_says_not_supported(void)
{
	dl_fn fns[1];
	struct dl_lib lib = DL_LIB("libripple-absent.so.9", "libripple-absent9",
				   "this test", none_names, fns);
	struct error err;

	error_init(&err);
	check(dl_lib_require(&lib, &err) == ERROR_UNSUPPORTED &&
	      strstr(err.msg, "not supported on Windows yet"),
	      "a library with no Windows name fails clearly", err.msg);
	check(!dl_lib_ready(&lib), "and the failure is kept", NULL);
}

static void
fsys_mkdir_says_what_posix_says(void)
{
	_wmkdir(L"t-dir");
	_wrmdir(L"t-dir\\sub");
	_wrmdir(L"t-dir\\\u00e9t\u00e9");
	check(fsys_mkdir("t-dir/sub") == 0, "fsys_mkdir makes a folder", NULL);
	check(fsys_mkdir("t-dir/sub") == EEXIST, "EEXIST when it is there",
	      NULL);
	check(fsys_mkdir("t-none/sub") == ENOENT, "ENOENT without a parent",
	      NULL);
	check(fsys_mkdir("t-dir/\xc3\xa9t\xc3\xa9") == 0 &&
	      _waccess(L"t-dir\\\u00e9t\u00e9", 0) == 0,
	      "a UTF-8 name is the same name to Windows", NULL);
}

static void
lock_conflicts_between_two_handles(void)
{
	const char *path = "t-dir/owner.lock";
	int a = -1, b = -1, e;

	_wunlink(L"t-dir\\owner.lock");
	e = lock_open(path, LOCK_OPEN_WRITE | LOCK_OPEN_CREATE, &a);
	check(!e && a >= 0, "lock_open creates the file", strerror(e));
	check(lock_open(path, LOCK_OPEN_WRITE | LOCK_OPEN_CREATE, &b) ==
	      EEXIST, "and refuses to create it twice", NULL);
	check(lock_try(a) == 0, "the first handle takes the lock", NULL);
	e = lock_open(path, 0, &b);
	check(!e, "a second handle opens it", strerror(e));
	check(lock_held(b) == 1, "and sees it held", NULL);
	check(lock_try(b) == EAGAIN, "and cannot take it (EAGAIN)", NULL);
	check(rename(path, "t-dir/owner2.lock") == 0,
	      "a locked file can be renamed, as owners are put in place", NULL);
	close(a);
	check(lock_held(b) == 0, "closing the holder drops the lock", NULL);
	check(lock_try(b) == 0, "which the other handle then takes", NULL);
	close(b);
	check(_wunlink(L"t-dir\\owner2.lock") == 0, "and it is removed",
	      NULL);
}

static void
interrupt_sets_the_flag_and_restores(void)
{
	struct interrupt_saved saved;

	interrupt_catch(0, &saved);
	check(*interrupt_flag() == 0, "no interrupt yet", NULL);
	if (!GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, 0)) {
		/* Wine run without a console (output to a pipe) has no one
		 * to send the event to. */
		skipped++;
		printf("SKIP: Ctrl-Break sets the flag: no console (Windows "
		       "error %lu)\n", (unsigned long)GetLastError());
	} else {
		Sleep(200);	/* the handler runs on a thread of its own */
		check(*interrupt_flag() == 1, "Ctrl-Break sets the flag", NULL);
	}
	interrupt_restore(&saved);
}

static void
random_bytes_come_from_the_system(void)
{
	unsigned char a[16], b[16], zero[16] = { 0 };

	check(random_bytes(a, sizeof(a), 0) == 0 &&
	      random_bytes(b, sizeof(b), 1) == 0, "BCryptGenRandom fills the "
	      "buffer", NULL);
	check(memcmp(a, b, sizeof(a)) && memcmp(a, zero, sizeof(a)),
	      "two draws differ and are not zero", NULL);
	check(random_bytes(a, 257, 0) == EINVAL, "more than 256 bytes is "
	      "refused", NULL);
}

struct pool_probe {
	volatile long runs[400];
	pthread_t caller;
	volatile int others;	/* items run off the calling thread */
};

static int
pool_item(void *worker, size_t i, void *arg)
{
	struct pool_probe *p = arg;
	volatile long k, x = 0;

	(void)worker;
	for (k = 0; k < 20000; k++)
		x += k;
	p->runs[i]++;
	if (!pthread_equal(pthread_self(), p->caller))
		p->others = 1;
	return i == 300;
}

static void
pool_runs_on_winpthreads(void)
{
	static struct pool_probe p;
	void *workers[4] = { NULL, NULL, NULL, NULL };
	size_t i, first;
	int once = 1;

	p.caller = pthread_self();
	first = pool_run(4, workers, 400, pool_item, &p);
	check(first == 300, "pool_run returns the failed item", NULL);
	for (i = 0; i <= 300; i++)
		once &= p.runs[i] == 1;
	check(once, "every item up to the failure ran once", NULL);
	check(p.others, "winpthreads ran items on other threads", NULL);
}

/* A frame of at least 1 KiB, n deep (pool_test.c's recursion). */
static __attribute__((noinline)) long
recurse(int n)
{
	volatile char pad[1024];
	long below;

	pad[0] = (char)(n & 0x7f);
	if (n == 0)
		return 0;
	below = recurse(n - 1);
	return below + pad[0];
}

/*
 * The main thread's stack is the program's reserve (tools/windows/
 * configure.sh's -Wl,--stack): 8 MiB, as Linux's main thread and the
 * pool's threads have, where mingw-w64 reserves 2 MiB by default. It keys
 * source sets itself (worker 0, all of -j 1). Recursing 4.5 MiB is tried
 * only when the limits allow it (else the overflow would end the run).
 */
static void
main_thread_stack_is_8_mib(void)
{
	ULONG_PTR low = 0, high = 0;
	long want = 0;
	int i;
	char detail[64];

	GetCurrentThreadStackLimits(&low, &high);
	snprintf(detail, sizeof(detail), "%lu KiB",
		 (unsigned long)((high - low) >> 10));
	check(high - low >= ((ULONG_PTR)8 << 20), "the main thread's stack "
	      "is 8 MiB", detail);
	if (high - low < ((ULONG_PTR)8 << 20))
		return;
	for (i = 1; i <= 4096; i++)
		want += i & 0x7f;
	check(recurse(4096) == want, "and 4,096 frames of 1 KiB fit in it",
	      NULL);
}

int
main(void)
{
	main_thread_stack_is_8_mib();
	pool_runs_on_winpthreads();
	random_bytes_come_from_the_system();
	interrupt_sets_the_flag_and_restores();
	fsys_mkdir_says_what_posix_says();
	lock_conflicts_between_two_handles();
	wide_round_trips_utf8();
	wide_refuses_bytes_that_are_not_utf8();
	dl_loads_a_dll_by_its_soname();
	dl_without_a_windows_name_says_not_supported();
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
