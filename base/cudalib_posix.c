/*
 * base/cudalib.h on Linux: dlopen, the toolkit's lib folders and sonames.
 */
#define _GNU_SOURCE 1		/* RTLD_NODELETE */
#include "base/cudalib.h"
#include "base/cudalib_int.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/strv.h"
#include "base/banned.h"

#if defined(__x86_64__)
#define TARGET_DIR "targets/x86_64-linux/lib"
#define MULTIARCH_DIR "lib/x86_64-linux-gnu"
#elif defined(__aarch64__)
#define TARGET_DIR "targets/sbsa-linux/lib"
#define MULTIARCH_DIR "lib/aarch64-linux-gnu"
#else
#define TARGET_DIR "targets/unknown/lib"
#define MULTIARCH_DIR "lib/unknown-linux-gnu"
#endif

static const char *const lib_dirs[] = { "lib64", TARGET_DIR, "lib",
					MULTIARCH_DIR };
static const char *const lib_sufs[] = { ".so.13", ".so.12", ".so" };

int
cudalib_candidates(const char *home, const char *name, struct strv *paths,
		   struct buf *tried, struct error *err)
{
	struct buf p = BUF_INIT;
	size_t d, s;
	int rc = 0;

	for (d = 0; !rc && d < sizeof(lib_dirs) / sizeof(lib_dirs[0]); d++)
		for (s = 0; !rc && s < sizeof(lib_sufs) / sizeof(lib_sufs[0]);
		     s++) {
			buf_reset(&p);
			rc = buf_addf(&p, err, "%s/%s/lib%s%s", home,
				      lib_dirs[d], name, lib_sufs[s]);
			if (!rc)
				rc = strv_push(paths, p.data, err);
		}
	if (!rc)
		rc = cudalib_dirs_tried(tried, home, lib_dirs,
					sizeof(lib_dirs) / sizeof(lib_dirs[0]),
					err);
	if (!rc)
		rc = buf_addf(tried, err, " for lib%s.so.13, lib%s.so.12, "
			      "lib%s.so", name, name, name);
	buf_release(&p);
	return rc;
}

void
cudalib_builtins(const char *nvrtc_path, int major, int minor, char *out,
		 size_t n)
{
	char name[64];	/* two ints fit */

	snprintf(name, sizeof(name), "libnvrtc-builtins.so.%d.%d", major,
		 minor);
	cudalib_beside(nvrtc_path, name, out, n);
}

const char *
cudalib_driver(void)
{
	return "libcuda.so.1";
}

void *
cudalib_open(const char *path, char *why, size_t n)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	const char *m;

	if (!h) {
		m = dlerror();
		snprintf(why, n, "%.255s", m ? m : path);
	}
	return h;
}

void *
cudalib_sym(void *h, const char *name)
{
	return dlsym(h, name);
}

void
cudalib_close(void *h)
{
	dlclose(h);
}
