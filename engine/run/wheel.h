/*
 * What a built wheel says about itself: the METADATA file of its
 * .dist-info folder (core metadata, PEP 566 / PEP 643), read from the zip
 * with libzip, so a record's metadata is the artifact's, not a hand-typed
 * copy (`require-meta` checks the real Requires-Dist of a metapackage).
 */
#ifndef RIPPLE_ENGINE_RUN_WHEEL_H
#define RIPPLE_ENGINE_RUN_WHEEL_H

struct error;
struct strv;

#define RUN_WHEEL_METADATA_MAX (1u << 20)	/* bytes of METADATA read */

/*
 * Load libzip (engine/run/zip_dl.c: dlopened when a wheel is first read,
 * not mapped by every command). Returns 0, or ERROR_UNSUPPORTED naming
 * libzip.so.4 and its Debian package.
 */
int run_wheel_libs_require(struct error *err);

/*
 * Append "Version=V" and "Requires-Dist=R1, R2, ..." (each requirement
 * as written, joined by ", "; left out when there are none) from the
 * wheel at `path` to `meta`. Returns 0; 1 when the file is not a zip
 * archive or has no NAME.dist-info/METADATA at its top (nothing added:
 * a stub build's placeholder is no wheel to read); ERROR_INVALID for a
 * METADATA larger than RUN_WHEEL_METADATA_MAX or unreadable inside a
 * readable zip; ERROR_NOMEM.
 */
int run_wheel_metadata(const char *path, struct strv *meta,
		       struct error *err);

#endif
