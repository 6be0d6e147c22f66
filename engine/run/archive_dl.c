/*
 * libarchive, loaded when a conda package is first read (base/dl.h), as
 * engine/run/zip_dl.c loads libzip: these definitions keep libarchive's
 * names and forward through a table filled by dlopen, so engine/run/
 * conda.c calls libarchive as its manual says and only a command that
 * reads a conda package maps it. run_conda_libs_require loads it first,
 * with a clear error; a wrapper called before that loads on demand and,
 * if it cannot, fails as libarchive reports failure (NULL, ARCHIVE_FATAL).
 * On Windows the soname stands for libarchive.dll beside ripple.exe
 * (base/dl_win.c; tools/windows/deps.sh builds it with zlib, bzip2 and
 * zstd).
 */
#include "engine/run/conda.h"

#include <archive.h>
#include <archive_entry.h>

#include "base/dl.h"
#include "base/error.h"
#include "base/banned.h"

enum {
	A_READ_NEW, A_FILTER_ALL, A_FORMAT_TAR, A_FORMAT_ZIP, A_OPEN_FILENAME,
	A_OPEN_MEMORY, A_NEXT_HEADER, A_READ_DATA, A_READ_FREE,
	A_ERROR_STRING, A_ERRNO, A_ENTRY_PATHNAME, A_ENTRY_SIZE, A_READ_OPEN,
	A_ENTRY_FILETYPE, A_ENTRY_SYMLINK, A_N
};

static const char *const archive_names[A_N] = {
	[A_READ_NEW] = "archive_read_new",
	[A_FILTER_ALL] = "archive_read_support_filter_all",
	[A_FORMAT_TAR] = "archive_read_support_format_tar",
	[A_FORMAT_ZIP] = "archive_read_support_format_zip",
	[A_OPEN_FILENAME] = "archive_read_open_filename",
	[A_OPEN_MEMORY] = "archive_read_open_memory",
	[A_NEXT_HEADER] = "archive_read_next_header",
	[A_READ_DATA] = "archive_read_data",
	[A_READ_FREE] = "archive_read_free",
	[A_ERROR_STRING] = "archive_error_string",
	[A_ERRNO] = "archive_errno",
	[A_ENTRY_PATHNAME] = "archive_entry_pathname",
	[A_ENTRY_SIZE] = "archive_entry_size",
	[A_READ_OPEN] = "archive_read_open",
	[A_ENTRY_FILETYPE] = "archive_entry_filetype",
	[A_ENTRY_SYMLINK] = "archive_entry_symlink",
};

/* The soname and package built against (./configure): libarchive.so.13 in
 * libarchive13 on Debian 12, libarchive13t64 on Debian 13. */
#ifndef RIPPLE_LIBARCHIVE_SONAME
#define RIPPLE_LIBARCHIVE_SONAME "libarchive.so.13"
#endif
#ifndef RIPPLE_LIBARCHIVE_PACKAGE
#define RIPPLE_LIBARCHIVE_PACKAGE "libarchive13"
#endif

static dl_fn archive_fns[A_N];
static struct dl_lib archive_lib = DL_LIB(RIPPLE_LIBARCHIVE_SONAME,
					  RIPPLE_LIBARCHIVE_PACKAGE,
					  "reading a conda package",
					  archive_names, archive_fns);

/* The function in slot i, as type T. */
#define A_FN(T, i) ((T)archive_fns[i])

int
run_conda_libs_require(struct error *err)
{
	return dl_lib_require(&archive_lib, err);
}

struct archive *
archive_read_new(void)
{
	if (!dl_lib_ready(&archive_lib))
		return NULL;
	return A_FN(struct archive *(*)(void), A_READ_NEW)();
}

int
archive_read_support_filter_all(struct archive *a)
{
	if (!dl_lib_ready(&archive_lib))
		return ARCHIVE_FATAL;
	return A_FN(int (*)(struct archive *), A_FILTER_ALL)(a);
}

int
archive_read_support_format_tar(struct archive *a)
{
	if (!dl_lib_ready(&archive_lib))
		return ARCHIVE_FATAL;
	return A_FN(int (*)(struct archive *), A_FORMAT_TAR)(a);
}

int
archive_read_support_format_zip(struct archive *a)
{
	if (!dl_lib_ready(&archive_lib))
		return ARCHIVE_FATAL;
	return A_FN(int (*)(struct archive *), A_FORMAT_ZIP)(a);
}

int
archive_read_open_filename(struct archive *a, const char *path, size_t block)
{
	if (!dl_lib_ready(&archive_lib))
		return ARCHIVE_FATAL;
	return A_FN(int (*)(struct archive *, const char *, size_t),
		    A_OPEN_FILENAME)(a, path, block);
}

int
archive_read_open_memory(struct archive *a, const void *p, size_t n)
{
	if (!dl_lib_ready(&archive_lib))
		return ARCHIVE_FATAL;
	return A_FN(int (*)(struct archive *, const void *, size_t),
		    A_OPEN_MEMORY)(a, p, n);
}

int
archive_read_next_header(struct archive *a, struct archive_entry **e)
{
	if (!dl_lib_ready(&archive_lib))
		return ARCHIVE_FATAL;
	return A_FN(int (*)(struct archive *, struct archive_entry **),
		    A_NEXT_HEADER)(a, e);
}

la_ssize_t
archive_read_data(struct archive *a, void *p, size_t n)
{
	if (!dl_lib_ready(&archive_lib))
		return ARCHIVE_FATAL;
	return A_FN(la_ssize_t (*)(struct archive *, void *, size_t),
		    A_READ_DATA)(a, p, n);
}

int
archive_read_free(struct archive *a)
{
	if (!dl_lib_loaded(&archive_lib))
		return ARCHIVE_FATAL;
	return A_FN(int (*)(struct archive *), A_READ_FREE)(a);
}

const char *
archive_error_string(struct archive *a)
{
	if (!dl_lib_loaded(&archive_lib))
		return NULL;
	return A_FN(const char *(*)(struct archive *), A_ERROR_STRING)(a);
}

int
archive_errno(struct archive *a)
{
	if (!dl_lib_loaded(&archive_lib))
		return 0;
	return A_FN(int (*)(struct archive *), A_ERRNO)(a);
}

const char *
archive_entry_pathname(struct archive_entry *e)
{
	if (!dl_lib_loaded(&archive_lib))
		return NULL;
	return A_FN(const char *(*)(struct archive_entry *),
		    A_ENTRY_PATHNAME)(e);
}

la_int64_t
archive_entry_size(struct archive_entry *e)
{
	if (!dl_lib_loaded(&archive_lib))
		return 0;
	return A_FN(la_int64_t (*)(struct archive_entry *), A_ENTRY_SIZE)(e);
}

int
archive_read_open(struct archive *a, void *client, archive_open_callback *o,
		  archive_read_callback *r, archive_close_callback *c)
{
	if (!dl_lib_ready(&archive_lib))
		return ARCHIVE_FATAL;
	return A_FN(int (*)(struct archive *, void *, archive_open_callback *,
			    archive_read_callback *, archive_close_callback *),
		    A_READ_OPEN)(a, client, o, r, c);
}

__LA_MODE_T
archive_entry_filetype(struct archive_entry *e)
{
	if (!dl_lib_loaded(&archive_lib))
		return 0;
	return A_FN(__LA_MODE_T (*)(struct archive_entry *),
		    A_ENTRY_FILETYPE)(e);
}

const char *
archive_entry_symlink(struct archive_entry *e)
{
	if (!dl_lib_loaded(&archive_lib))
		return NULL;
	return A_FN(const char *(*)(struct archive_entry *),
		    A_ENTRY_SYMLINK)(e);
}
