/*
 * What a toolkit is and which GPUs are here: the versions NVRTC, nvJitLink
 * and cudart report, the component versions of the toolkit's version.json,
 * the toolkit's identity (its pin plus those versions, part of every key
 * that uses it), the pin check, and the device list through cudart.
 */
#ifndef RIPPLE_ENGINE_CUDA_PROBE_H
#define RIPPLE_ENGINE_CUDA_PROBE_H

#include <stddef.h>

struct error;
struct cuda_libs;

/* A (name, value) pair; both strings owned by the containing struct. */
struct cuda_pair {
	char *name;
	char *value;
};

struct cuda_toolkit_info {
	char *name;		/* the declared toolkit's name, or NULL */
	char *pin;		/* the declared version ("12.9.1"), or NULL */
	char *home;
	char *nvrtc_path, *nvjitlink_path, *cudart_path;	/* files loaded */
	int nvrtc_major, nvrtc_minor;
	int nvjitlink_major, nvjitlink_minor;
	int cudart_version;	/* as cudaRuntimeGetVersion: 1000*M + 10*m */
	struct cuda_pair *components;	/* version.json, sorted by name */
	size_t n_components;
	struct cuda_pair *identity;	/* sorted by name (byte order) */
	size_t n_identity;
	char *identity_text;	/* "name=value\n" for each identity pair */
};

/*
 * Probe the loaded toolkit `libs`: call nvrtcVersion, nvJitLinkVersion and
 * cudaRuntimeGetVersion, read HOME/version.json (if present), and build the
 * identity: pairs "pin" (when given), "nvrtc", "nvjitlink", "cudart"
 * (MAJOR.MINOR) and "component/NAME" for each version.json entry, sorted by
 * name, and its canonical text. `name` and `pin` may be NULL. The pin is
 * NOT checked here (see cuda_toolkit_pin_check). On success *out owns
 * copies of everything (free with cuda_toolkit_info_release).
 * Errors: ERROR_INTERNAL when a version call fails, ERROR_CORRUPT for a
 * malformed version.json, ERROR_NOMEM; *out is then released.
 */
int cuda_toolkit_probe(const struct cuda_libs *libs, const char *name,
		       const char *pin, struct cuda_toolkit_info *out,
		       struct error *err);

/*
 * Read HOME/version.json (the toolkit's manifest: an object whose members
 * are components, each an object with a "version" string), parsed with
 * jansson. *out gets the (component, version) pairs sorted by component
 * (mem_alloc'd array; free each string and the array, or use
 * cuda_pairs_free). A home without version.json gives 0 pairs and returns 0.
 * Errors: ERROR_CORRUPT (not JSON, or not an object; message names the file
 * and jansson's line), ERROR_NOMEM.
 */
int cuda_version_json_read(const char *home, struct cuda_pair **out,
			   size_t *n, struct error *err);

/* Free n pairs and the array. Accepts NULL. */
void cuda_pairs_free(struct cuda_pair *pairs, size_t n);

/*
 * Check the pin against what was probed: the pin's MAJOR.MINOR must equal
 * NVRTC's, nvJitLink's and cudart's, and when version.json has a "cuda"
 * component, its version must agree on every number the pin gives.
 * Returns 0, or ERROR_CONFLICT naming both ("toolkit 'ctk12' is pinned to
 * 12.9.1 but /usr/local/cuda-12.9 has NVRTC 12.8"); ERROR_INVALID when the
 * pin is not MAJOR.MINOR[.PATCH]. No pin: 0.
 */
int cuda_toolkit_pin_check(const struct cuda_toolkit_info *info,
			   struct error *err);

/* Free the contents and zero the struct. Accepts NULL. */
void cuda_toolkit_info_release(struct cuda_toolkit_info *info);

/* "13.0" from a CUDA integer version (13000); buf of at least 16 bytes. */
const char *cuda_version_text(int version, char *buf, size_t size);

struct cuda_device {
	int index;		/* cudart's device ordinal */
	char name[256];
	int cc_major, cc_minor;	/* compute capability */
	unsigned long long memory_mib;	/* total global memory, MiB */
};

struct cuda_devices {
	struct cuda_device *items;	/* n of them, by index; mem_alloc'd */
	size_t n;
	int driver_version;	/* cudaDriverGetVersion; 0: no driver */
	int runtime_version;	/* cudaRuntimeGetVersion */
	char reason[256];	/* why the list is empty ("" otherwise) */
};

/*
 * List GPUs through cudart (cudaGetDeviceCount, cudaGetDeviceProperties,
 * cudaDeviceGetAttribute, cudaDriverGetVersion). No driver or no GPU is not
 * an error: the list is empty and `reason` says why (cudart's error name
 * and text). Free with cuda_devices_release.
 * Errors: ERROR_INTERNAL when a device that was counted cannot be read,
 * ERROR_NOMEM.
 */
int cuda_devices_list(const struct cuda_libs *libs, struct cuda_devices *out,
		      struct error *err);

/* Free the list and zero the struct. Accepts NULL. */
void cuda_devices_release(struct cuda_devices *devs);

#endif
