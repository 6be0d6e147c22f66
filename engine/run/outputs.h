/*
 * A node's declared outputs on disk: the files its `outputs:` globs match,
 * each resolved (symlinks followed) and refused when it lies outside the
 * repository, and the identity of a file (device, inode, size, times) so
 * that a file the action did not write is never recorded as its output.
 *
 * Globs are relative to the repository root, in the dialect of
 * graph/outputs.h: a pattern without `**` is expanded with glob(3) (which
 * agrees with it), one with `**` is matched (graph_glob_match) against the
 * regular files under its fixed folder, symlinked folders not entered.
 */
#ifndef RIPPLE_ENGINE_RUN_OUTPUTS_H
#define RIPPLE_ENGINE_RUN_OUTPUTS_H

#include <stddef.h>

struct error;
struct strv;

/*
 * The files the globs match, as repository-relative paths appended to
 * *out (sorted and unique when every pattern matched). Before anything is
 * listed, each pattern's fixed folder and each matched file are resolved
 * under `root` (absolute): one that leads outside it is ERROR_INVALID
 * naming the pattern and where it resolves.
 * `before` (sorted, may be NULL) holds run_output_identity lines of files
 * that were there before the action and were kept: a match whose line is
 * still the same was not written by the action and is left out.
 * Every pattern must match at least one file that is not left out: else
 * ERROR_NOT_FOUND naming the pattern (with `allow_empty`, such a pattern
 * adds nothing and is no error).
 */
int run_outputs_collect(const char *root, const char *const *patterns,
			size_t n, const struct strv *before, int allow_empty,
			struct strv *out, struct error *err);

/*
 * Remove the temporary files of placements whose process is gone
 * (base/place.h: place_sweep) from each pattern's fixed folder (the part
 * before its first wildcard), and from every folder below it when the
 * rest of the pattern spans folders ("**", or a '/' after a wildcard),
 * so that a killed fetch's leftovers are neither kept nor matched as
 * outputs. Never outside those folders: links, ".git" and ".ripple" are
 * not entered. Folders that are missing or reached through a link are
 * skipped; nothing fails.
 */
void run_outputs_sweep(const char *root, const char *const *patterns,
		       size_t n);

/*
 * "PATH\tDEV:INO:SIZE:MTIME:CTIME" of root/rel (stat(2), times in ns) into
 * out (n bytes). Returns 0, or -1 when the file cannot be stat'ed.
 */
int run_output_identity(const char *root, const char *rel, char *out,
			size_t n);

#endif
