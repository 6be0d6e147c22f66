/*
 * Libraries loaded when a command first needs them (dlopen by soname, as
 * engine/cuda/load.c does for the CUDA toolkit): the remote cache's libcurl
 * and the wheel reader's libzip. `ripple --version`, `plan` and `why` then
 * map neither (libcurl alone brings TLS, Kerberos and LDAP).
 *
 * A library is described by a static struct dl_lib (its soname, the Debian
 * package that ships it, what needs it, and the names of the functions
 * ripple calls); the wrappers next to its users (cache/curl_dl.c,
 * engine/run/zip_dl.c) keep the library's own names and forward through
 * the table, so call sites stay as the library documents them.
 *
 * The one process-wide state here is the loaded table: filled once under a
 * mutex, never changed afterwards, like the dynamic linker's own lazy
 * binding it replaces.
 */
#ifndef RIPPLE_BASE_DL_H
#define RIPPLE_BASE_DL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

struct error;

/* Any function pointer; the wrappers cast it back to the real type. */
typedef void (*dl_fn)(void);

struct dl_lib {
	const char *soname;		/* "libcurl.so.4" */
	const char *package;		/* Debian package: "libcurl4" */
	const char *purpose;		/* "the remote cache" */
	const char *const *names;	/* n function names */
	dl_fn *fns;			/* n slots, filled by the load */
	size_t n;
	pthread_mutex_t lock;
	atomic_int state;		/* 0 not tried, 1 loaded, -1 failed */
	char why[256];			/* the failure, when state is -1 */
};

/* A static initializer: DL_LIB("libzip.so.4", "libzip4", "...", names, fns) */
#define DL_LIB(soname, package, purpose, names, fns) { (soname), \
	(package), (purpose), (names), (fns), \
	sizeof(names) / sizeof((names)[0]), PTHREAD_MUTEX_INITIALIZER, 0, "" }

/*
 * Load `lib` unless it is loaded: dlopen(soname, RTLD_NOW | RTLD_LOCAL)
 * and resolve every name into lib->fns. Thread-safe; a failure is kept
 * (not retried). Returns 0, or ERROR_UNSUPPORTED naming the library, the
 * Debian package to install, what needed it and dlerror()'s words.
 */
int dl_lib_require(struct dl_lib *lib, struct error *err);

/* 1 when `lib` is loaded (loading it now if it was never tried), else 0. */
int dl_lib_ready(struct dl_lib *lib);

/* 1 when `lib` was loaded already; never loads (for cleanup functions). */
int dl_lib_loaded(struct dl_lib *lib);

#endif
