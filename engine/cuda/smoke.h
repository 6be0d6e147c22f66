/*
 * The built-in test action `cuda-smoke`: compile a small kernel with NVRTC
 * to LTO-IR, link it with nvJitLink to a cubin for the device's
 * architecture (or the declared ones when there is no device), load and
 * launch it (launch.h: cudart's library API from CUDA 12.5, else the
 * driver's module API), copy back and check every element.
 * Cubins are cached through a struct cuda_kernel_store.
 */
#ifndef RIPPLE_ENGINE_CUDA_SMOKE_H
#define RIPPLE_ENGINE_CUDA_SMOKE_H

#include <stddef.h>

#include "engine/cuda/store.h"

struct error;
struct cuda_libs;

#define CUDA_SMOKE_MAX_ARCHS 8

struct cuda_smoke_options {
	/* CUDA C++ source; NULL: the built-in saxpy. A custom source must
	   define extern "C" __global__ void KERNEL(int n, float a,
	   const float *x, float *y) computing y[i] = a * x[i] + y[i]. */
	const char *source;
	const char *kernel;	/* kernel name; NULL: "ripple_saxpy" */
	const int *archs;	/* SM numbers (90 for sm_90) to build */
	size_t n_archs;		/* 0: sm_90 when there is no device */
	int device;		/* cudart device ordinal to launch on */
	size_t n;		/* elements; 0: 1 << 20 */
	struct cuda_kernel_store *store;	/* NULL: no cubin cache */
	int no_launch;		/* 1: build only; the launch is deferred */
};

enum cuda_smoke_status {
	CUDA_SMOKE_FAILED = 0,
	CUDA_SMOKE_PASSED,
	CUDA_SMOKE_DEFERRED,	/* built, but no GPU to launch on here */
};

/* One architecture's cubin. Times in milliseconds. */
struct cuda_smoke_build {
	int sm;			/* 90 for sm_90 */
	int cache_hit;		/* 1: taken from the store, not compiled */
	size_t ltoir_bytes;	/* 0 on a cache hit */
	size_t cubin_bytes;
	double compile_ms, link_ms, lookup_ms;
	char key[2 * CUDA_KEY_BYTES + 1];	/* hex XXH3-128 */
};

struct cuda_smoke_result {
	enum cuda_smoke_status status;
	struct cuda_smoke_build builds[CUDA_SMOKE_MAX_ARCHS];
	size_t n_builds;
	int compiled;		/* every cubin compiled or taken from cache */
	int linked;		/* every cubin linked (or taken from cache) */
	int launched;		/* the kernel ran on a GPU */
	int deferred;		/* no GPU: launch deferred, never passed */
	int verified;		/* every element checked and right */
	int cache_hits;		/* builds taken from the store */
	int launch_sm;		/* architecture launched; 0 when none */
	const char *launch_api;	/* how it was launched (launch.h); static
				   text, NULL when there was no launch */
	char device_name[256];	/* "" when none */
	size_t n_elements, mismatches;
	double compile_ms, link_ms, lookup_ms, load_ms, launch_ms, total_ms;
	char *log;		/* NVRTC and nvJitLink logs, or NULL; owned */
	char reason[256];	/* why deferred or failed; "" when passed */
};

/*
 * Run the smoke action once with the loaded toolkit `libs`. Each cubin's
 * key is XXH3-128 of (source, NVRTC options, nvJitLink options,
 * architecture, NVRTC and nvJitLink versions); a store hit skips compile
 * and link. NVRTC options: --gpu-architecture=compute_XX -dlto; nvJitLink
 * options: -lto -arch=sm_XX. With a device, its architecture is built (and
 * any declared ones); without one, the declared ones, and the launch is
 * deferred. *res is filled as far as the run got (free with
 * cuda_smoke_result_release). Returns 0 when the status is PASSED or
 * DEFERRED; otherwise status is FAILED and: ERROR_INVALID when NVRTC
 * rejects the source or nvJitLink fails (the log is in the message and in
 * res->log), ERROR_INTERNAL for a CUDA runtime failure or a wrong element,
 * an error from the store, or ERROR_NOMEM.
 */
int cuda_smoke_run(const struct cuda_libs *libs,
		   const struct cuda_smoke_options *opt,
		   struct cuda_smoke_result *res, struct error *err);

/* Free the result's log and zero it. Accepts NULL. */
void cuda_smoke_result_release(struct cuda_smoke_result *res);

/* "passed", "failed" or "deferred". Static text. */
const char *cuda_smoke_status_name(enum cuda_smoke_status s);

#endif
