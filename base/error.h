/*
 * District base/: what every layer shares (errors, arena, buffers, string
 * vectors, spelling hints, UTF-8, the allocation seam); libc only, and
 * nothing in ripple above it.
 *
 * The one error type of ripple: a code, a message, where (file:line:col),
 * which node, and a hint for the fix. Every fallible function returns 0 or a
 * negative ERROR_* code and takes `struct error *err` last; the first error
 * set is kept (later ones are ignored), as curl's Curl_failf does.
 * The message lives in a fixed buffer so out-of-memory can still be reported.
 */
#ifndef RIPPLE_BASE_ERROR_H
#define RIPPLE_BASE_ERROR_H

#include <stddef.h>

#ifdef _WIN32
/*
 * winerror.h (which <windows.h>, and so curl.h, brings in) defines
 * ERROR_NOT_FOUND as 1168, the name of a code below. It is read once here
 * and the name taken back; its include guard keeps it from coming back,
 * whichever header a file includes first. docs/windows.md.
 */
#include <winerror.h>
#undef ERROR_NOT_FOUND
#endif

enum error_code {
	ERROR_OK = 0,
	ERROR_INVALID = -1,	/* bad input: rules, arguments, data */
	ERROR_NOT_FOUND = -2,	/* a named thing does not exist */
	ERROR_IO = -3,		/* the operating system said no */
	ERROR_CORRUPT = -4,	/* stored data is damaged */
	ERROR_NOMEM = -5,	/* an allocation failed */
	ERROR_INTERNAL = -6,	/* a library we call failed unexpectedly */
	ERROR_UNSUPPORTED = -7,	/* valid, but this build or host cannot */
	ERROR_CONFLICT = -8,	/* two facts disagree (e.g. a pin and a probe) */
};

#define ERROR_MSG_MAX 512
#define ERROR_PATH_MAX 256
#define ERROR_NODE_MAX 256
#define ERROR_HINT_MAX 256

struct error {
	int code;			/* 0 while no error is set */
	char msg[ERROR_MSG_MAX];	/* lowercase, no full stop */
	char file[ERROR_PATH_MAX];	/* "" when not about a file */
	unsigned line, col;		/* 1-based; 0 when unknown */
	char node[ERROR_NODE_MAX];	/* node id or "" */
	char hint[ERROR_HINT_MAX];	/* how to fix it, or "" */
};

/* Reset *err to "no error". Accepts NULL. */
void error_init(struct error *err);

/*
 * Set the error's code and printf-style message unless one is already set.
 * Returns `code` (negative), so a failure reads `return error_set(err, ...)`.
 * err may be NULL (the error is then dropped, the code still returned).
 */
int error_set(struct error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * As error_set, with a position in a file (line and col are 1-based; 0 means
 * unknown). Returns `code`.
 */
int error_at(struct error *err, int code, const char *file, unsigned line,
	     unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/*
 * The one out-of-memory path (SQLite's sqlite3OomFault, libgit2's
 * GIT_ERROR_CHECK_ALLOC): set ERROR_NOMEM with the message "out of
 * memory" unless an error is already set. Returns ERROR_NOMEM, so a
 * failed allocation reads `return error_nomem(err);`. err may be NULL.
 */
int error_nomem(struct error *err);

/* Attach a node id to the current error (first one kept). Accepts NULL. */
void error_node(struct error *err, const char *node_id);

/* Attach a printf-style hint to the current error (first one kept). */
void error_hint(struct error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prepend "PREFIX: " to the message of a set error, e.g. a file name. */
void error_prefix(struct error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The code's name for people ("invalid", "not found", ...). Static text. */
const char *error_code_name(int code);

/*
 * A list of errors, for checks that report every problem (ripple check).
 * Holds at most `limit` errors (0 means 100); past that it counts only.
 */
struct error_list {
	struct error *items;	/* owned, n of them */
	size_t n, cap;
	size_t limit;
	size_t dropped;		/* errors past the limit */
};

void error_list_init(struct error_list *list, size_t limit);
void error_list_release(struct error_list *list);

/*
 * Append a copy of *e. Returns 0, or ERROR_NOMEM (the error is then counted
 * as dropped).
 */
int error_list_add(struct error_list *list, const struct error *e);

/*
 * 1 when the list holds its limit, so a further error is only counted:
 * callers can skip the work of a message nobody will read (a spelling
 * hint scans every candidate name).
 */
int error_list_full(const struct error_list *list);

/* Sort by file, line, col, then message: a total order for stable output. */
void error_list_sort(struct error_list *list);

#endif
