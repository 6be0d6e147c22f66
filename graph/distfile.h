/*
 * Distribution file names and the versions they carry: wheels (PEP 427
 * `NAME-VERSION[-BUILD]-PY-ABI-PLAT.whl`), sdists (`NAME-VERSION.tar.gz`,
 * `.zip`) and conda packages (`NAME-VERSION-BUILD.conda` or `.tar.bz2`,
 * the canonical name conda-build gives a package from its
 * info/index.json `name`, `version` and `build`). One reading for `record`
 * (is the file the version the rule says?) and `release` (is it the tag's?).
 */
#ifndef RIPPLE_GRAPH_DISTFILE_H
#define RIPPLE_GRAPH_DISTFILE_H

#include <stddef.h>

enum graph_dist_kind {
	GRAPH_DIST_OTHER = 0,	/* no distribution file */
	GRAPH_DIST_WHEEL,
	GRAPH_DIST_SDIST,
	GRAPH_DIST_CONDA,
};

/*
 * The kind of the file at `path` (its base name decides) and, for a
 * distribution file, the version text its name carries copied into out (n
 * bytes; as written, not normalized). Returns the kind, or -1 for a wheel
 * name with fewer than five dash-separated fields or a conda name with
 * fewer than three (out is then empty).
 */
int graph_dist_file_version(const char *path, char *out, size_t n);

#endif
