/*
 * The Windows side of base/ under Wine (`ninja check-windows`), while
 * Criterion is not built for Windows (docs/windows.md): a plain program
 * with one check per line and a closing "N passed, N failed" line. Run
 * from build-windows/, where the DLLs lie beside it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "base/dl.h"
#include "base/error.h"
#include "base/wide_win.h"

static int passed, failed;

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

int
main(void)
{
	wide_round_trips_utf8();
	wide_refuses_bytes_that_are_not_utf8();
	dl_loads_a_dll_by_its_soname();
	dl_without_a_windows_name_says_not_supported();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
