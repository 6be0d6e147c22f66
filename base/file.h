/*
 * Opening a file that must be a regular file. What ripple reads as data
 * (the rules file, an artifact to hash, a file a drift check compares) is
 * opened without blocking, so that a FIFO cannot stall the open, and is
 * refused unless fstat(2) says it is a regular file: a FIFO would wait for
 * a writer, /dev/zero never ends, a folder cannot be read.
 */
#ifndef RIPPLE_BASE_FILE_H
#define RIPPLE_BASE_FILE_H

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

/* "a FIFO", "a device", "a socket", "a folder" or "a regular file". */
const char *file_kind_name(unsigned mode);

#endif
