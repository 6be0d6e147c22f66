/*
 * Placing files under a folder without ever writing through a link, into a
 * FIFO or onto a device: the one way ripple writes files whose names come
 * from elsewhere (a remote cache entry's outputs, `ripple fetch --to`).
 * Folders are walked and made one component at a time (openat/mkdirat with
 * O_NOFOLLOW), so a committed symlink on the way is refused before anything
 * is made beyond it; a destination must be missing or a regular file (a
 * link, FIFO, device, socket or folder there is an error naming it); files
 * arrive in temporary files beside their destinations and are renamed into
 * place together, only after the caller has verified all of them, or are
 * removed with every folder made for them.
 *
 * Design: temporary files are named DEST.ripple-tmp-PID-RANDOM, so that a
 * later command can tell one left by a killed process (place_sweep removes
 * those whose PID no longer runs here) from one a running fetch still
 * writes. The renames of one set happen after every check, in one folder
 * each (rename(2) within a folder does not copy and cannot run out of
 * space), so "all or none" holds unless the operating system refuses a
 * rename it allowed the temporary file's creation for a moment before.
 * The root itself may be reached through links (it is the caller's).
 */
#ifndef RIPPLE_BASE_PLACE_H
#define RIPPLE_BASE_PLACE_H

#include <stddef.h>

struct error;

/* What marks a temporary file of a placement: NAME + this + PID-RANDOM. */
#define PLACE_TMP_MARK ".ripple-tmp-"

/*
 * One file of a placement (see struct place). No descriptor is held for a
 * staged file between calls (a node may have thousands of outputs): its
 * folder is walked again from the root, one component at a time without
 * following links, whenever the file is opened, placed or removed.
 */
struct place_file {
	char *rel;		/* path under the root, '/'-separated, owned */
	char *tmp;		/* temp file's name in its folder, owned */
	int fd;			/* the temp file while open for writing
				   (place_fd to place_fd_close), or -1 */
	unsigned mode;		/* permission bits once placed */
};

/* A set of files to be placed under one root, all or none. */
struct place {
	char *root;		/* as given, owned (messages, paths) */
	int root_fd;		/* the root folder, -1 when closed */
	struct place_file *files;
	size_t n, cap;
	char **made;		/* folders made (rel), in order, owned */
	size_t n_made, cap_made;
	int committed;		/* 1 after place_commit succeeded */
};

/*
 * Begin a placement under the existing folder `root` (followed when it is
 * a link: the caller chose it). Nothing is written yet. Release with
 * place_close. Errors: ERROR_NOT_FOUND / ERROR_IO naming root, ERROR_NOMEM.
 */
int place_open(struct place *p, const char *root, struct error *err);

/*
 * Stage `rel` (relative, no "", "." or ".." component; the caller checked
 * it came from the rules): make its missing folders one by one, refusing a
 * link or a non-folder on the way; refuse a destination that exists and is
 * not a regular file; create an empty temporary file beside it (mode 0600
 * until commit) and close it again. Returns the file's index (>= 0): write
 * its bytes through place_fd. Errors: ERROR_INVALID ("'REL' is not
 * written: 'DIR' is a symbolic link" and the like, with a hint),
 * ERROR_IO, ERROR_NOMEM.
 */
int place_stage(struct place *p, const char *rel, unsigned mode,
		struct error *err);

/*
 * The temp file of staged file i, opened for writing (from its start)
 * when it is not open yet: reached again from the root without following
 * a link, and refused unless it is still a regular file. The descriptor
 * (>= 0) is owned by p: release it with place_fd_close once the bytes are
 * written, so a placement of many files holds few descriptors at a time
 * (place_commit and place_close close what is left). Errors:
 * ERROR_INVALID (a link on the way, or no longer a regular file),
 * ERROR_IO (EMFILE among them) naming the file.
 */
int place_fd(struct place *p, size_t i, struct error *err);

/*
 * Close the descriptor place_fd gave for staged file i (a no-op when it
 * is not open). Errors: ERROR_IO (close failed: the bytes may not be
 * written), naming the file.
 */
int place_fd_close(struct place *p, size_t i, struct error *err);

/*
 * The temp file of staged file i as a path ROOT/DIR/NAME.ripple-tmp-...,
 * mem_alloc'd (free with mem_free), for readers that take paths; NULL when
 * out of memory.
 */
char *place_tmp_path(const struct place *p, size_t i);

/*
 * Place every staged file: close it if open, give it its mode (through a
 * descriptor opened without following a link), check again that its
 * destination is missing or a regular file, and rename it over the
 * destination, its folder reached again from the root without following
 * a link. On error the files not yet renamed are removed (see the design
 * note). Errors: ERROR_INVALID (a destination or a folder on the way
 * became a link or a FIFO meanwhile), ERROR_IO.
 */
int place_commit(struct place *p, struct error *err);

/*
 * End the placement: without a successful place_commit every temporary
 * file is removed and every folder it made (when empty) too, so the tree
 * is as it was. Closes descriptors, frees memory. Accepts a zeroed struct.
 */
void place_close(struct place *p);

/*
 * Open root/rel for reading without following a link anywhere below root
 * and without blocking (O_NONBLOCK while opening, then fstat(2)): the
 * descriptor (>= 0; caller closes), ERROR_NOT_FOUND when it or a folder on
 * the way is missing, ERROR_INVALID when a component is a link or the file
 * is not a regular file (naming it and what it is), ERROR_IO.
 */
int place_read_open(const char *root, const char *rel, struct error *err);

/*
 * Remove temporary files of placements whose process is gone
 * (NAME.ripple-tmp-PID-RANDOM with no process PID on this host) from the
 * folder root/rel_dir ("" for root), which is not entered through a link;
 * with `deep`, from every folder below it too (PLACE_SWEEP_DEPTH levels
 * at most), never entering a link, a ".git" folder (any case) or
 * ".ripple". Only regular files are removed. A missing folder is no
 * error. Returns how many were removed (>= 0), or ERROR_INVALID (a link
 * on the way to rel_dir), ERROR_IO.
 */
#define PLACE_SWEEP_DEPTH 64
int place_sweep(const char *root, const char *rel_dir, int deep,
		struct error *err);

#endif
