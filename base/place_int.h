/*
 * Inside base/place: the walk without links (place_walk.c) that placing
 * files (place.c) builds on, on POSIX; the temporary files' names
 * (place_tmp.c) on every system. Not for use outside base/.
 */
#ifndef RIPPLE_BASE_PLACE_INT_H
#define RIPPLE_BASE_PLACE_INT_H

#include <stddef.h>

struct error;
struct place;

/* "a symbolic link", "a FIFO", ... of an lstat mode. */
const char *place_kind_of(unsigned mode);

/*
 * ERROR_INVALID: rel is not written because rel[0..what_len) is `kind`
 * ("'REL' is not written: 'DIR' is a symbolic link", with a hint).
 */
int place_refuse(const char *rel, const char *what, size_t what_len,
		 const char *kind, struct error *err);

/*
 * Open the folder rel[0..len) under root_fd, one component at a time,
 * never following a link; with p, make missing ones (noted in p->made).
 * Returns the descriptor (the caller closes it), or ERROR_NOT_FOUND
 * (missing, without p), ERROR_INVALID (a link or a non-folder on the
 * way), ERROR_IO, ERROR_NOMEM. `whole` names the file, for messages.
 */
int place_open_dir(struct place *p, int root_fd, const char *whole,
		   const char *rel, size_t len, struct error *err);

/*
 * The PID in a temporary file's name (NAME + PLACE_TMP_MARK + PID-RANDOM,
 * RANDOM lowercase hex), or 0 when the name is not one a placement made
 * (place_tmp.c, on every system).
 */
long place_tmp_pid(const char *name);

/*
 * ERROR_INVALID when rel names another file than it says on this system
 * (base/path.h, path_name_refused with host_path_names: '.git' or
 * '.ripple' by another spelling anywhere; Windows' devices, streams,
 * trailing dots and spaces, 8.3 short names there), "'REL' is not
 * written: it NAMES ..." with a hint; else 0.
 */
int place_name_check(const char *rel, struct error *err);

/*
 * Remember folder rel[0..len) as made by placement p (NULL: nothing is
 * remembered), so place_close can remove it again. 0 or ERROR_NOMEM.
 */
int place_note_made(struct place *p, const char *rel, size_t len,
		    struct error *err);

/*
 * A new staged file of p for rel (copied) with mode and no descriptor,
 * at p->files[p->n]: the caller counts it (p->n++) once it is staged.
 * NULL with err set (ERROR_NOMEM) when memory runs out.
 */
struct place_file *place_file_add(struct place *p, const char *rel,
				  unsigned mode, struct error *err);

/* The folder part of rel: its length (0 for none); *name the rest. */
size_t place_split(const char *rel, const char **name);

#endif
