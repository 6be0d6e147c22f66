/*
 * Suite base_dl: libraries loaded on first use (base/dl.h), the built
 * ripple mapping neither libcurl nor libzip before main, and naming the
 * package of the libcurl it was built against when that one is missing.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dl.h"
#include "base/error.h"
#include "tests/support/support.h"

static const char *const libm_names[] = { "cos", "sqrt" };
static const char *const gone_names[] = { "cos", "ripple_no_such_function" };
static const char *const none_names[] = { "nothing" };

Test(base_dl, loads_a_library_into_its_table_once)
{
	dl_fn fns[2] = { NULL, NULL };
	struct dl_lib lib = DL_LIB("libm.so.6", "libc6", "this test",
				   libm_names, fns);
	struct error err;
	double (*c)(double);

	error_init(&err);
	cr_expect(!dl_lib_loaded(&lib), "nothing is loaded before a call");
	cr_assert_eq(dl_lib_require(&lib, &err), 0, "%s", err.msg);
	cr_expect(dl_lib_loaded(&lib));
	cr_expect(dl_lib_ready(&lib));
	c = (double (*)(double))fns[0];
	cr_expect(c(0.0) == 1.0);
	cr_expect(fns[1] != NULL);
}

Test(base_dl, a_missing_library_names_itself_and_its_package)
{
	dl_fn fns[1];
	struct dl_lib lib = DL_LIB("libripple-absent.so.9", "libripple-absent9",
				   "the test's remote cache", none_names, fns);
	struct error err;

	error_init(&err);
	cr_assert_eq(dl_lib_require(&lib, &err), ERROR_UNSUPPORTED);
	cr_expect(strstr(err.msg, "libripple-absent.so.9"), "%s", err.msg);
	cr_expect(strstr(err.msg, "the test's remote cache"), "%s", err.msg);
	cr_expect(strstr(err.msg, "Debian package libripple-absent9"), "%s",
		  err.msg);
	cr_expect(strstr(err.hint, "apt-get install libripple-absent9"), "%s",
		  err.hint);
	cr_expect(!dl_lib_ready(&lib), "a failure is kept");
	cr_expect(!dl_lib_loaded(&lib));
}

Test(base_dl, a_library_without_a_function_is_refused)
{
	dl_fn fns[2] = { NULL, NULL };
	struct dl_lib lib = DL_LIB("libm.so.6", "libc6", "this test",
				   gone_names, fns);
	struct error err;

	error_init(&err);
	cr_assert_eq(dl_lib_require(&lib, &err), ERROR_UNSUPPORTED);
	cr_expect(strstr(err.msg, "ripple_no_such_function"), "%s", err.msg);
	cr_expect(!dl_lib_loaded(&lib));
}

/* What the dynamic loader maps for `ripple --version` (as ldd shows). */
Test(base_dl, version_maps_neither_libcurl_nor_libzip)
{
	const char *bin = getenv("RIPPLE_BIN");
	char cmd[4096];
	struct run_result r;

	snprintf(cmd, sizeof(cmd), "LD_TRACE_LOADED_OBJECTS=1 '%s' --version",
		 bin && bin[0] ? bin : "build/ripple");
	r = t_sh(".", cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	/* libc: libgit2 is not listed when linked statically
	 * (./configure --static-libs). */
	cr_assert(strstr(r.out, "libc.so"), "the loader lists: %s", r.out);
	cr_expect(!strstr(r.out, "libcurl"), "libcurl is mapped: %s", r.out);
	cr_expect(!strstr(r.out, "libzip"), "libzip is mapped: %s", r.out);
	t_result_release(&r);
}

#if defined(RIPPLE_LIBCURL_SONAME) && defined(RIPPLE_LIBCURL_PACKAGE)
static const char *const curl_version_names[] = { "curl_version" };

/*
 * The file the loader maps for libcurl here, as /proc/self/maps names it
 * once this process has loaded it (malloc'd), or NULL.
 */
static char *
libcurl_file(void)
{
	dl_fn fns[1];
	struct dl_lib lib = DL_LIB(RIPPLE_LIBCURL_SONAME, "", "this test",
				   curl_version_names, fns);
	struct error err;
	char *maps, *at, *end, *file = NULL;

	error_init(&err);
	if (dl_lib_require(&lib, &err))
		return NULL;
	maps = t_read("/proc/self/maps");
	at = maps ? strstr(maps, "/" RIPPLE_LIBCURL_SONAME) : NULL;
	while (at && at > maps && at[-1] != ' ')
		at--;
	if (at && at > maps) {
		end = strchr(at, '\n');
		if (end)
			*end = '\0';
		file = strdup(at);
	}
	free(maps);
	return file;
}
#endif

/*
 * With libcurl hidden (a mount namespace binds /dev/null over its file),
 * a command given a remote cache names the package ./configure found
 * libcurl in: libcurl4t64 on Debian 13 (where libcurl4 is only a name
 * that package provides), libcurl4 on Debian 12.
 */
Test(base_dl, a_missing_libcurl_names_the_package_built_against)
{
#if !defined(RIPPLE_LIBCURL_SONAME) || !defined(RIPPLE_LIBCURL_PACKAGE)
	cr_skip_test("./configure named no libcurl package here");
#else
	const char *bin = getenv("RIPPLE_BIN");
	char *abs = realpath(bin && bin[0] ? bin : "build/ripple", NULL);
	char *lib = libcurl_file(), *dir, cmd[8192];
	const char *ns = "u='unshare -m'; [ \"$(id -u)\" = 0 ] || "
			 "u='unshare -rm'; ";
	struct run_result r;

	cr_assert_not_null(abs);
	if (!lib)
		cr_skip_test("no " RIPPLE_LIBCURL_SONAME " to hide here");
	snprintf(cmd, sizeof(cmd), "%s$u true", ns);
	r = t_sh(".", cmd);
	if (r.status != 0)
		cr_skip_test("no mount namespace here: %s", r.err);
	t_result_release(&r);
	dir = t_tmpdir();
	snprintf(cmd, sizeof(cmd), "%s$u sh -c 'mount --bind /dev/null \"$1\" "
		 "&& exec \"$2\" runs --remote-cache http://127.0.0.1:9/' "
		 "sh '%s' '%s'", ns, lib, abs);
	r = t_sh(dir, cmd);
	cr_expect_neq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "(Debian package " RIPPLE_LIBCURL_PACKAGE ")"),
		  "%s", r.err);
	cr_expect(strstr(r.err, "apt-get install " RIPPLE_LIBCURL_PACKAGE ")"),
		  "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
	free(lib);
	free(abs);
#endif
}
