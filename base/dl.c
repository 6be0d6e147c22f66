/*
 * A library by soname into a table of function pointers, once per process
 * (base/dl.h). The operating system's part is base/dl_posix.c (dlopen) or
 * base/dl_win.c (LoadLibraryExW), behind base/dl_sys.h.
 */
#include "base/dl.h"

#include <stdio.h>
#include <string.h>

#include "base/dl_sys.h"
#include "base/error.h"
#include "base/banned.h"

/* Called with lib->lock held and lib->state 0. */
static void
load(struct dl_lib *lib)
{
	void *h;
	dl_fn f;
	size_t i;

	h = dl_sys_open(lib->soname, lib->why, sizeof(lib->why));
	if (!h) {
		atomic_store_explicit(&lib->state, -1, memory_order_release);
		return;
	}
	for (i = 0; i < lib->n; i++) {
		f = dl_sys_sym(h, lib->names[i]);
		if (!f) {
			snprintf(lib->why, sizeof(lib->why),
				 "%s has no function '%s' (too old?)",
				 lib->soname, lib->names[i]);
			dl_sys_close(h);
			atomic_store_explicit(&lib->state, -1,
					      memory_order_release);
			return;
		}
		lib->fns[i] = f;
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
	return dl_sys_error(lib, err);
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
