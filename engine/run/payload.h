/*
 * Early cutoff that sees through package metadata (issue 25): the payload
 * digest of a node's artifacts, for an artifact whose rule says
 * `cutoff: payload`. A wheel's README is its METADATA's long description;
 * a README edit rebuilds the wheel with every byte of its payload equal,
 * and the tests of that wheel need not run again.
 */
#ifndef RIPPLE_ENGINE_RUN_PAYLOAD_H
#define RIPPLE_ENGINE_RUN_PAYLOAD_H

#include <stddef.h>

struct digest;
struct error;

/*
 * XXH3-128 (domain "ripple-payload-v2") over the artifacts at `paths` (n,
 * repository-relative under `root` or absolute), in name order, each as
 * its base name then its content, where a wheel (a .whl that is a zip) is
 * its entries in name order, each name then bytes, except: the
 * .dist-info/RECORD file (it holds METADATA's hash) is left out, and
 * .dist-info/METADATA is its header fields without `Description:` (and
 * its continuation lines) and without the body after the first empty line
 * (the long description). In a wheel's file name, entry names and bytes
 * its own version (METADATA's `Version:`), that version's local label
 * (after '+') and its dev segment ("dev560", as setuptools-scm's
 * _version.py spells it apart in version_tuple) are read as one
 * placeholder: a wheel rebuilt only to take a new version (a version
 * group's member) has the payload of the old one, and its users are cut
 * off (issue 25). A user whose bytes embed that version belongs in the
 * version group instead (docs/rules.md). Every other header (Requires-
 * Dist, ...) and every file of the package counts. A conda package
 * (.conda, .tar.bz2) counts as its files and links with its version
 * masked the same way, a dist-info METADATA read as a wheel's, and of
 * info/ only index.json without build, build_number and timestamp, and
 * has_prefix, no_link and link.json (engine/run/payload_conda.c); one
 * that cannot be seen through counts whole. Another file (an sdist)
 * counts whole, name included. Errors:
 * ERROR_NOT_FOUND, ERROR_IO, ERROR_INVALID (a wheel whose entries cannot
 * be read, or one over 1 GiB), ERROR_NOMEM.
 */
int run_payload_digest(const char *root, const char *const *paths, size_t n,
		       struct digest *out, struct error *err);

/*
 * Append "payload-digest=HEX" (run_payload_digest of the artifacts `arts`
 * under `root`) to `meta`, as a `cutoff: payload` artifact's record holds
 * it (engine/plan/record.h: record_payload_digest). Errors as
 * run_payload_digest's.
 */
struct strv;
int run_payload_meta(const char *root, const struct strv *arts,
		     struct strv *meta, struct error *err);

#endif
