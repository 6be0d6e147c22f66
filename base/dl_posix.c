/*
 * base/dl_sys.h on POSIX: dlopen by soname, RTLD_NOW | RTLD_LOCAL.
 */
#include "base/dl_sys.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/banned.h"

void *
dl_sys_open(const char *soname, char *why, size_t n)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	const char *m;

	if (!h) {
		m = dlerror();
		snprintf(why, n, "%s", m ? m : "dlopen failed");
	}
	return h;
}

dl_fn
dl_sys_sym(void *h, const char *name)
{
	void *p = dlsym(h, name);
	dl_fn f;

	/* ISO C has no cast from void * to a function pointer. */
	memcpy(&f, &p, sizeof(p));
	return f;
}

void
dl_sys_close(void *h)
{
	dlclose(h);
}

int
dl_sys_error(const struct dl_lib *lib, struct error *err)
{
	error_set(err, ERROR_UNSUPPORTED, "cannot load %s (Debian package "
		  "%s), which %s needs: %s", lib->soname, lib->package,
		  lib->purpose, lib->why);
	error_hint(err, "install the Debian package %s (apt-get install %s)",
		   lib->package, lib->package);
	return ERROR_UNSUPPORTED;
}
