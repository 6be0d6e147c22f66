/*
 * District engine/cuda/: CUDA toolkits by dlopen (load.c), their identity
 * and devices (probe.c), the built-in cuda-smoke action (smoke.c) and its
 * compiled-kernel store (store.c, store_cache.c over cache/). May use
 * cache/ and base/ only; engine/run/ and engine/cli/ use it.
 *
 * Loading one CUDA toolkit's libraries (NVRTC, nvJitLink, cudart) with
 * dlopen from the toolkit's home, so one process can hold 12.x and 13.x side
 * by side (RTLD_LOCAL, one handle per toolkit, no globals) and ripple runs
 * where CUDA is absent. Function pointers are typed from the toolkit headers
 * (configure passes -DRIPPLE_HAVE_CUDA_HEADERS=1); a build without them
 * reports ERROR_UNSUPPORTED.
 */
#ifndef RIPPLE_ENGINE_CUDA_LOAD_H
#define RIPPLE_ENGINE_CUDA_LOAD_H

#include <stddef.h>

struct error;

#define CUDA_PATH_MAX 1024

#ifdef RIPPLE_HAVE_CUDA_HEADERS
#include <cuda_runtime_api.h>
#include <nvJitLink.h>
#include <nvrtc.h>

/*
 * One toolkit's loaded libraries. Fields are read by engine/cuda/; the
 * pointers are resolved by name from the library found in the home, typed
 * after the headers this build was compiled with. Calls whose argument
 * structs changed between majors (cudaDeviceProp) are used only through
 * their stable prefix (see cuda_probe.c).
 */
struct cuda_libs {
	char home[CUDA_PATH_MAX];
	char nvrtc_path[CUDA_PATH_MAX];		/* the file dlopen'ed */
	char nvjitlink_path[CUDA_PATH_MAX];
	char cudart_path[CUDA_PATH_MAX];
	void *nvrtc_dl, *nvjitlink_dl, *cudart_dl;

	__typeof__(nvrtcVersion) *rtc_version;
	__typeof__(nvrtcGetErrorString) *rtc_error_string;
	__typeof__(nvrtcCreateProgram) *rtc_create;
	__typeof__(nvrtcDestroyProgram) *rtc_destroy;
	__typeof__(nvrtcCompileProgram) *rtc_compile;
	__typeof__(nvrtcGetProgramLogSize) *rtc_log_size;
	__typeof__(nvrtcGetProgramLog) *rtc_log;
	__typeof__(nvrtcGetLTOIRSize) *rtc_ltoir_size;
	__typeof__(nvrtcGetLTOIR) *rtc_ltoir;

	__typeof__(nvJitLinkVersion) *jl_version;
	__typeof__(nvJitLinkCreate) *jl_create;
	__typeof__(nvJitLinkDestroy) *jl_destroy;
	__typeof__(nvJitLinkAddData) *jl_add_data;
	__typeof__(nvJitLinkComplete) *jl_complete;
	__typeof__(nvJitLinkGetLinkedCubinSize) *jl_cubin_size;
	__typeof__(nvJitLinkGetLinkedCubin) *jl_cubin;
	__typeof__(nvJitLinkGetErrorLogSize) *jl_error_log_size;
	__typeof__(nvJitLinkGetErrorLog) *jl_error_log;
	__typeof__(nvJitLinkGetInfoLogSize) *jl_info_log_size;
	__typeof__(nvJitLinkGetInfoLog) *jl_info_log;

	__typeof__(cudaRuntimeGetVersion) *rt_version;
	__typeof__(cudaDriverGetVersion) *rt_driver_version;
	__typeof__(cudaGetErrorString) *rt_error_string;
	__typeof__(cudaGetErrorName) *rt_error_name;
	__typeof__(cudaGetDeviceCount) *rt_device_count;
	__typeof__(cudaDeviceGetAttribute) *rt_device_attribute;
	/* cudaGetDeviceProperties_v2 (12.x) or cudaGetDeviceProperties (13.x);
	   only the name and totalGlobalMem prefix is read, into a large buffer */
	cudaError_t (*rt_device_props)(void *prop, int device);
	__typeof__(cudaSetDevice) *rt_set_device;
	__typeof__(cudaMalloc) *rt_malloc;
	__typeof__(cudaFree) *rt_free;
	__typeof__(cudaMemcpy) *rt_memcpy;
	__typeof__(cudaDeviceSynchronize) *rt_synchronize;
	__typeof__(cudaGetLastError) *rt_last_error;
	__typeof__(cudaLibraryLoadData) *rt_library_load;
	__typeof__(cudaLibraryUnload) *rt_library_unload;
	__typeof__(cudaLibraryGetKernel) *rt_library_kernel;
	__typeof__(cudaLaunchKernel) *rt_launch;
};
#else
struct cuda_libs;
#endif

/*
 * Open the toolkit installed under `home` (a directory such as
 * /usr/local/cuda-12.9): dlopen NVRTC, nvJitLink and cudart, each searched in
 * HOME/lib64, HOME/targets/<arch>-linux/lib and HOME/lib under the sonames
 * lib<x>.so.13, lib<x>.so.12, then lib<x>.so, with RTLD_NOW | RTLD_LOCAL |
 * RTLD_NODELETE (CUDA's libraries are not built to be unloaded: their C++
 * runtimes keep allocations and handlers, so they stay mapped after close).
 * On success *out is a new handle (close with cuda_libs_close).
 * Errors: ERROR_NOT_FOUND when `home` does not exist or a library is in none
 * of the places (the message names the paths tried, and dlerror of one that
 * exists but does not load); ERROR_INTERNAL when a needed symbol is missing;
 * ERROR_UNSUPPORTED in a build without CUDA headers; ERROR_NOMEM.
 */
int cuda_libs_open(const char *home, struct cuda_libs **out,
		   struct error *err);

/*
 * dlclose the libraries (they stay mapped: RTLD_NODELETE) and free the
 * handle. Accepts NULL.
 */
void cuda_libs_close(struct cuda_libs *libs);

/* 1 when this build was compiled against CUDA headers, else 0. */
int cuda_libs_supported(void);

#endif
