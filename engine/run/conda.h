/*
 * What a built conda package says about itself: its info/index.json
 * (name, version, build, subdir), read with libarchive, so `record` takes
 * a conda package's version from the package, not from its file name
 * (issue 25). A `.tar.bz2` package is a bzip2 tarball holding
 * info/index.json; a `.conda` package is a zip holding
 * info-NAME-VERSION-BUILD.tar.zst, a zstd tarball holding it.
 */
#ifndef RIPPLE_ENGINE_RUN_CONDA_H
#define RIPPLE_ENGINE_RUN_CONDA_H

#include <stddef.h>

struct error;

#define RUN_CONDA_INDEX_MAX (1u << 20)	/* bytes of info/index.json read */
#define RUN_CONDA_INFO_MAX (64u << 20)	/* bytes of a .conda's info tarball */

/* A package's identity from its info/index.json (NUL-terminated). */
struct run_conda_index {
	char name[256];
	char version[256];
	char build[256];
	char subdir[64];	/* "" when index.json names none */
};

/*
 * Load libarchive (engine/run/archive_dl.c: dlopened when a conda package
 * is first read). Returns 0, or ERROR_UNSUPPORTED naming libarchive.so.13
 * and its Debian package (or, in a build without libarchive, saying so).
 */
int run_conda_libs_require(struct error *err);

/*
 * Read info/index.json of the conda package at `path` (a `.conda` or a
 * `.tar.bz2`, by its name) into *out. Returns 0; 1 when the file is no
 * archive at all (a stub build's placeholder: nothing to read, as
 * run_wheel_metadata says of a file that is no zip); ERROR_INVALID for a
 * readable archive without info/index.json, one whose index.json is no
 * JSON object with string `name`, `version` and `build`, or a part over
 * the limits above; ERROR_UNSUPPORTED when libarchive cannot be loaded;
 * ERROR_NOMEM.
 */
int run_conda_index_read(const char *path, struct run_conda_index *out,
			 struct error *err);

/*
 * Every regular file and symbolic link of the conda package at `path`,
 * in the package's order (a .conda: its info part and its pkg part, in
 * the zip's order), handed to fn: `name` as the tarball names it
 * ("info/index.json", "lib/libx.so"), then for a link its target in
 * `link` (data NULL), else its bytes, whole, in `data` (at most
 * RUN_CONDA_ENTRY_MAX). fn returns 0 to go on, or a negative code that
 * stops the walk and is returned. Returns 0; 1 when the file is no
 * archive at all; ERROR_INVALID for an unreadable archive or an entry
 * over the limit; ERROR_IO, ERROR_UNSUPPORTED, ERROR_NOMEM.
 */
#define RUN_CONDA_ENTRY_MAX (1u << 30)
struct buf;
typedef int (*run_conda_entry_fn)(void *payload, const char *name,
				  const char *link, const struct buf *data,
				  struct error *err);
int run_conda_walk(const char *path, run_conda_entry_fn fn, void *payload,
		   struct error *err);

/*
 * The canonical file name of the package `ix` describes ("NAME-VERSION-
 * BUILD" then `ext`, ".conda" or ".tar.bz2"), as conda-build names it,
 * into out (n bytes). Returns 0, or ERROR_INVALID when it does not fit.
 */
int run_conda_file_name(const struct run_conda_index *ix, const char *ext,
			char *out, size_t n, struct error *err);

#endif
