/*
 * dlopen of a library by soname into a table of function pointers, once
 * per process (base/dl.h).
 */
#include "base/dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/banned.h"

/* Called with lib->lock held and lib->state 0. */
static void
load(struct dl_lib *lib)
{
	void *h, *p;
	const char *m;
	size_t i;

	h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		m = dlerror();
		snprintf(lib->why, sizeof(lib->why), "%s", m ? m :
			 "dlopen failed");
		atomic_store_explicit(&lib->state, -1, memory_order_release);
		return;
	}
	for (i = 0; i < lib->n; i++) {
		p = dlsym(h, lib->names[i]);
		if (!p) {
			snprintf(lib->why, sizeof(lib->why),
				 "%s has no function '%s' (too old?)",
				 lib->soname, lib->names[i]);
			dlclose(h);
			atomic_store_explicit(&lib->state, -1,
					      memory_order_release);
			return;
		}
		/* ISO C has no cast from void * to a function pointer. */
		memcpy(&lib->fns[i], &p, sizeof(p));
	}
	/* The handle stays open for the life of the process. */
	atomic_store_explicit(&lib->state, 1, memory_order_release);
}

static int
state(struct dl_lib *lib, int may_load)
{
	int s = atomic_load_explicit(&lib->state, memory_order_acquire);

	if (s || !may_load)
		return s;
	pthread_mutex_lock(&lib->lock);
	if (!atomic_load_explicit(&lib->state, memory_order_acquire))
		load(lib);
	pthread_mutex_unlock(&lib->lock);
	return atomic_load_explicit(&lib->state, memory_order_acquire);
}

int
dl_lib_require(struct dl_lib *lib, struct error *err)
{
	if (state(lib, 1) == 1)
		return 0;
	error_set(err, ERROR_UNSUPPORTED, "cannot load %s (Debian package "
		  "%s), which %s needs: %s", lib->soname, lib->package,
		  lib->purpose, lib->why);
	error_hint(err, "install the Debian package %s (apt-get install %s)",
		   lib->package, lib->package);
	return ERROR_UNSUPPORTED;
}

int
dl_lib_ready(struct dl_lib *lib)
{
	return state(lib, 1) == 1;
}

int
dl_lib_loaded(struct dl_lib *lib)
{
	return state(lib, 0) == 1;
}
