/*
 * Suite base_cudalib: the names and folders of the CUDA toolkit's
 * libraries on this system (base/cudalib.h): the candidates tried, the
 * message naming where they were looked for, NVRTC's builtins beside it.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "base/buf.h"
#include "base/cudalib.h"
#include "base/error.h"
#include "base/strv.h"

Test(base_cudalib, candidates_and_the_folders_tried)
{
	struct strv paths = STRV_INIT;
	struct buf tried = BUF_INIT;
	struct error err;

	error_init(&err);
	cr_assert_eq(cudalib_candidates("/opt/cuda", "nvrtc", &paths, &tried,
					&err), 0, "%s", err.msg);
	cr_assert_eq(paths.n, 12);
	cr_expect_str_eq(paths.v[0], "/opt/cuda/lib64/libnvrtc.so.13");
	cr_expect_str_eq(paths.v[2], "/opt/cuda/lib64/libnvrtc.so");
	cr_expect(!strncmp(paths.v[11], "/opt/cuda/lib/", 14) &&
		  strstr(paths.v[11], "-linux-gnu/libnvrtc.so"), "%s",
		  paths.v[11]);
	cr_expect(!strncmp(tried.data, "/opt/cuda/lib64, /opt/cuda/targets/",
			   35), "%s", tried.data);
	cr_expect(strstr(tried.data, "/lib, /opt/cuda/lib, /opt/cuda/lib/") !=
		  NULL, "%s", tried.data);
	cr_expect(strstr(tried.data, "-linux-gnu for libnvrtc.so.13, "
			 "libnvrtc.so.12, libnvrtc.so") != NULL, "%s",
		  tried.data);
	strv_release(&paths);
	buf_release(&tried);
}

Test(base_cudalib, builtins_sit_beside_nvrtc)
{
	char out[64];

	cudalib_builtins("/opt/cuda/lib64/libnvrtc.so.12", 12, 9, out,
			 sizeof(out));
	cr_expect_str_eq(out, "/opt/cuda/lib64/libnvrtc-builtins.so.12.9");
	cudalib_builtins("libnvrtc.so", 13, 0, out, sizeof(out));
	cr_expect_str_eq(out, "./libnvrtc-builtins.so.13.0");
	cudalib_builtins("/a/very/long/folder/name/lib64/libnvrtc.so", 12, 9,
			 out, 40);
	cr_expect_str_eq(out, "", "a path that does not fit is empty");
	cudalib_builtins("/libnvrtc.so", 12, 9, out, sizeof(out));
	cr_expect_str_eq(out, "/libnvrtc-builtins.so.12.9");
}
