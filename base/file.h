/*
 * Opening a file that must be a regular file. What ripple reads as data
 * (the rules file, an artifact to hash, a file a drift check compares) is
 * opened without blocking, so that a FIFO cannot stall the open, and is
 * refused unless fstat(2) says it is a regular file: a FIFO would wait for
 * a writer, /dev/zero never ends, a folder cannot be read.
 */
#ifndef RIPPLE_BASE_FILE_H
#define RIPPLE_BASE_FILE_H

#include <stddef.h>

#include "base/fsys.h"

struct error;

/*
 * Open `path` for reading (O_RDONLY | O_CLOEXEC | O_NOCTTY; O_NONBLOCK
 * while opening only). Returns the descriptor (>= 0; the caller closes it),
 * or a negative code: ERROR_NOT_FOUND (missing, or a component is not a
 * folder), ERROR_INVALID ("'WHAT' is not a regular file (a FIFO)", or a
 * device, a socket, a folder), ERROR_IO (with strerror). When open(2)
 * fails, errno is left as it set it. `what` names the file in messages
 * (NULL: the path).
 */
int file_open_regular(const char *path, const char *what, struct error *err);

/* What file_replace_under writes. */
enum file_entry {
	FILE_ENTRY_PLAIN,	/* a regular file, mode 0644 (git's modes) */
	FILE_ENTRY_EXEC,	/* a regular file, mode 0755 */
	FILE_ENTRY_LINK,	/* a symlink whose target is the bytes */
};

/*
 * Replace the entry `root`/`rel` (rel relative, "/"-separated, without
 * "..") with `len` bytes of `kind`, never writing through a link: each
 * folder on the way must be a real folder (lstat(2), no symlink), and the
 * new entry is made beside the old one under a temporary name and renamed
 * over it, so a link or file the action left at rel is replaced, never
 * followed. Errors: ERROR_NOT_FOUND (a folder on the way is missing),
 * ERROR_INVALID (a link or a non-folder on the way, or a folder at rel),
 * ERROR_IO, each naming rel.
 */
int file_replace_under(const char *root, const char *rel, const void *bytes,
		       size_t len, enum file_entry kind, struct error *err);

/*
 * Remove the entry `root`/`rel` (a file or a link, never what a link
 * points at) under the same rule for the folders on the way; a missing
 * entry is no error. Errors: ERROR_INVALID (a folder at rel, or a link on
 * the way), ERROR_IO.
 */
int file_remove_under(const char *root, const char *rel, struct error *err);

/*
 * "a FIFO", "a device", "a socket", "a folder", "a link" or "a regular
 * file".
 */
const char *file_kind_name(enum fsys_kind kind);

#endif
