/*
 * libzip, loaded when a wheel's metadata is first read (base/dl.h): these
 * definitions keep libzip's names and forward through a table filled by
 * dlopen, so engine/run/wheel.c calls libzip as its manual says and only
 * runs that read a wheel map it. run_wheel_metadata loads it first, with a
 * clear error; a wrapper called before that loads on demand and, if it
 * cannot, fails as libzip reports failure (NULL, -1).
 */
#include <zip.h>

#include "base/dl.h"
#include "base/error.h"
#include "engine/run/wheel.h"
#include "base/banned.h"

enum {
	Z_DISCARD, Z_FCLOSE, Z_FOPEN_INDEX, Z_FREAD, Z_GET_NAME,
	Z_GET_NUM_ENTRIES, Z_OPEN, Z_STAT_INDEX, Z_STAT_INIT, Z_N
};

static const char *const zip_names[Z_N] = {
	[Z_DISCARD] = "zip_discard",
	[Z_FCLOSE] = "zip_fclose",
	[Z_FOPEN_INDEX] = "zip_fopen_index",
	[Z_FREAD] = "zip_fread",
	[Z_GET_NAME] = "zip_get_name",
	[Z_GET_NUM_ENTRIES] = "zip_get_num_entries",
	[Z_OPEN] = "zip_open",
	[Z_STAT_INDEX] = "zip_stat_index",
	[Z_STAT_INIT] = "zip_stat_init",
};

/*
 * The soname and package built against (./configure): libzip.so.4 in
 * libzip4 on Debian 12, libzip.so.5 in libzip5 on Debian 13.
 */
#ifndef RIPPLE_LIBZIP_SONAME
#define RIPPLE_LIBZIP_SONAME "libzip.so.4"
#endif
#ifndef RIPPLE_LIBZIP_PACKAGE
#define RIPPLE_LIBZIP_PACKAGE "libzip4"
#endif

static dl_fn zip_fns[Z_N];
static struct dl_lib zip_lib = DL_LIB(RIPPLE_LIBZIP_SONAME,
				      RIPPLE_LIBZIP_PACKAGE,
				      "reading a wheel's metadata", zip_names,
				      zip_fns);

/* The function in slot i, as type T. */
#define ZIP_FN(T, i) ((T)zip_fns[i])

int
run_wheel_libs_require(struct error *err)
{
	return dl_lib_require(&zip_lib, err);
}

void
zip_discard(zip_t *z)
{
	if (dl_lib_loaded(&zip_lib))
		ZIP_FN(void (*)(zip_t *), Z_DISCARD)(z);
}

int
zip_fclose(zip_file_t *f)
{
	if (!dl_lib_loaded(&zip_lib))
		return -1;
	return ZIP_FN(int (*)(zip_file_t *), Z_FCLOSE)(f);
}

zip_file_t *
zip_fopen_index(zip_t *z, zip_uint64_t index, zip_flags_t flags)
{
	if (!dl_lib_ready(&zip_lib))
		return NULL;
	return ZIP_FN(zip_file_t *(*)(zip_t *, zip_uint64_t, zip_flags_t),
		      Z_FOPEN_INDEX)(z, index, flags);
}

zip_int64_t
zip_fread(zip_file_t *f, void *buf, zip_uint64_t n)
{
	if (!dl_lib_ready(&zip_lib))
		return -1;
	return ZIP_FN(zip_int64_t (*)(zip_file_t *, void *, zip_uint64_t),
		      Z_FREAD)(f, buf, n);
}

const char *
zip_get_name(zip_t *z, zip_uint64_t index, zip_flags_t flags)
{
	if (!dl_lib_ready(&zip_lib))
		return NULL;
	return ZIP_FN(const char *(*)(zip_t *, zip_uint64_t, zip_flags_t),
		      Z_GET_NAME)(z, index, flags);
}

zip_int64_t
zip_get_num_entries(zip_t *z, zip_flags_t flags)
{
	if (!dl_lib_ready(&zip_lib))
		return -1;
	return ZIP_FN(zip_int64_t (*)(zip_t *, zip_flags_t),
		      Z_GET_NUM_ENTRIES)(z, flags);
}

zip_t *
zip_open(const char *path, int flags, int *errorp)
{
	if (!dl_lib_ready(&zip_lib)) {
		if (errorp)
			*errorp = ZIP_ER_INTERNAL;
		return NULL;
	}
	return ZIP_FN(zip_t *(*)(const char *, int, int *), Z_OPEN)(path,
								      flags,
								      errorp);
}

int
zip_stat_index(zip_t *z, zip_uint64_t index, zip_flags_t flags,
	       zip_stat_t *st)
{
	if (!dl_lib_ready(&zip_lib))
		return -1;
	return ZIP_FN(int (*)(zip_t *, zip_uint64_t, zip_flags_t,
			      zip_stat_t *), Z_STAT_INDEX)(z, index, flags, st);
}

void
zip_stat_init(zip_stat_t *st)
{
	if (dl_lib_ready(&zip_lib))
		ZIP_FN(void (*)(zip_stat_t *), Z_STAT_INIT)(st);
}
