/*
 * Internal to rules/: reading one check value out of a file's bytes (a YAML
 * or JSON key path, a regex's first group), with the value's position.
 */
#ifndef RIPPLE_RULES_DRIFT_FILE_H
#define RIPPLE_RULES_DRIFT_FILE_H

#include <stddef.h>

struct arena;
struct error;

/* A value read for a check, and where it was found. */
struct rules_drift_value {
	const char *text;	/* the value (arena); NULL when unread */
	const char *file;	/* the file it was read from (for messages) */
	unsigned line, col;	/* 1-based; 0 when unknown */
};

/*
 * Read the scalar at key path `key` ("a.b.0.c": map keys, list indexes)
 * from `len` bytes of YAML (data NUL-terminated at len), named `file` in
 * messages. On success out->text is the scalar's text (in arena a) and
 * out->line, col its position. Errors: ERROR_INVALID with file:line:col for
 * a syntax error; ERROR_NOT_FOUND (no such key or index; a hint suggests a
 * near key); ERROR_INVALID when the key names a list, a map or null;
 * ERROR_NOMEM. Messages without a file position leave err->file empty.
 */
int rules_drift_read_yaml(struct arena *a, const char *file, const char *data,
			  size_t len, const char *key,
			  struct rules_drift_value *out, struct error *err);

/*
 * As rules_drift_read_yaml for JSON (jansson, any top-level value,
 * duplicate keys rejected). Strings give their decoded text; numbers and
 * booleans their text as written in the file.
 */
int rules_drift_read_json(struct arena *a, const char *file, const char *data,
			  size_t len, const char *key,
			  struct rules_drift_value *out, struct error *err);

/*
 * The first group of the first match of the POSIX extended regex `re` in
 * data (REG_NEWLINE: `^`, `$` match at line ends and no bracket expression
 * or `.` crosses a newline); the position is the group's start. Errors:
 * ERROR_INVALID (bad regex), ERROR_NOT_FOUND (no match, or the group took
 * no part in it), ERROR_NOMEM.
 */
int rules_drift_read_regex(struct arena *a, const char *file, const char *data,
			   size_t len, const char *re,
			   struct rules_drift_value *out, struct error *err);

/*
 * The position of the node (of any kind) at key path `key` in YAML text.
 * Returns 0 and sets *line, *col; -1 when the text does not parse or the
 * key does not exist.
 */
int rules_drift_yaml_pos(const char *text, size_t len, const char *key,
			 unsigned *line, unsigned *col);

#endif
