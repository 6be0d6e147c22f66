/*
 * District engine/cuda/: CUDA toolkits by dlopen (load.c), their identity
 * and devices (probe.c), the built-in cuda-smoke action (smoke.c) and its
 * compiled-kernel store (store.c, store_cache.c over cache/). May use
 * cache/ and base/ only; engine/run/ and engine/cli/ use it.
 *
 * Loading one CUDA toolkit's libraries (NVRTC, nvJitLink, cudart) with
 * dlopen from the toolkit's home, so one process can hold 12.x and 13.x side
 * by side (RTLD_LOCAL, one handle per toolkit, no globals) and ripple runs
 * where CUDA is absent. Function pointers are typed by engine/cuda/api.h,
 * ripple's own declarations, so every build can load a toolkit.
 */
#ifndef RIPPLE_ENGINE_CUDA_LOAD_H
#define RIPPLE_ENGINE_CUDA_LOAD_H

#include <stddef.h>

#include "engine/cuda/api.h"

struct error;

#define CUDA_PATH_MAX 1024

/*
 * One toolkit's loaded libraries. Fields are read by engine/cuda/; the
 * pointers are resolved by name from the libraries found in the home.
 * The runtime's library API (rt_library_*) arrived in CUDA 12.5: where the
 * runtime lacks it, those three are NULL and the driver's module API
 * (drv_*, from libcuda.so.1, the driver's library) loads and launches
 * cubins instead; the drv_* pointers are NULL when the runtime has the
 * library API, or when no driver library loads (then there is no GPU).
 */
struct cuda_libs {
	char home[CUDA_PATH_MAX];
	char nvrtc_path[CUDA_PATH_MAX];		/* the file dlopen'ed */
	char nvjitlink_path[CUDA_PATH_MAX];
	char cudart_path[CUDA_PATH_MAX];
	char driver_error[256];	/* why libcuda.so.1 did not load, or "" */
	void *nvrtc_dl, *nvjitlink_dl, *cudart_dl, *driver_dl;
	void *builtins_dl;	/* NVRTC's builtins, from its folder */

	cuda_nvrtc_version_fn *rtc_version;
	cuda_nvrtc_get_error_string_fn *rtc_error_string;
	cuda_nvrtc_create_program_fn *rtc_create;
	cuda_nvrtc_destroy_program_fn *rtc_destroy;
	cuda_nvrtc_compile_program_fn *rtc_compile;
	cuda_nvrtc_get_program_log_size_fn *rtc_log_size;
	cuda_nvrtc_get_program_log_fn *rtc_log;
	cuda_nvrtc_get_ltoir_size_fn *rtc_ltoir_size;
	cuda_nvrtc_get_ltoir_fn *rtc_ltoir;

	cuda_jitlink_version_fn *jl_version;
	cuda_jitlink_create_fn *jl_create;
	cuda_jitlink_destroy_fn *jl_destroy;
	cuda_jitlink_add_data_fn *jl_add_data;
	cuda_jitlink_complete_fn *jl_complete;
	cuda_jitlink_get_size_fn *jl_cubin_size;
	cuda_jitlink_get_cubin_fn *jl_cubin;
	cuda_jitlink_get_size_fn *jl_error_log_size;
	cuda_jitlink_get_log_fn *jl_error_log;
	cuda_jitlink_get_size_fn *jl_info_log_size;
	cuda_jitlink_get_log_fn *jl_info_log;

	cuda_rt_get_int_fn *rt_version;
	cuda_rt_get_int_fn *rt_driver_version;
	cuda_rt_error_text_fn *rt_error_string;
	cuda_rt_error_text_fn *rt_error_name;
	cuda_rt_get_int_fn *rt_device_count;
	cuda_rt_device_get_attribute_fn *rt_device_attribute;
	/* cudaGetDeviceProperties_v2 (12.x) or cudaGetDeviceProperties (13.x) */
	cuda_rt_get_device_properties_fn *rt_device_props;
	cuda_rt_set_device_fn *rt_set_device;
	cuda_rt_malloc_fn *rt_malloc;
	cuda_rt_free_fn *rt_free;
	cuda_rt_memcpy_fn *rt_memcpy;
	cuda_rt_void_fn *rt_synchronize;
	cuda_rt_void_fn *rt_last_error;
	cuda_rt_launch_kernel_fn *rt_launch;
	cuda_rt_library_load_data_fn *rt_library_load;	/* NULL before 12.5 */
	cuda_rt_library_unload_fn *rt_library_unload;
	cuda_rt_library_get_kernel_fn *rt_library_kernel;

	cuda_drv_init_fn *drv_init;
	cuda_drv_error_text_fn *drv_error_name;
	cuda_drv_error_text_fn *drv_error_string;
	cuda_drv_module_load_data_fn *drv_module_load;
	cuda_drv_module_get_function_fn *drv_module_function;
	cuda_drv_module_unload_fn *drv_module_unload;
	cuda_drv_launch_kernel_fn *drv_launch;
};

/*
 * Open the toolkit installed under `home` (a directory such as
 * /usr/local/cuda-12.9): dlopen NVRTC, nvJitLink and cudart, each searched in
 * HOME/lib64, HOME/targets/<arch>-linux/lib, HOME/lib and
 * HOME/lib/<multiarch> (Debian's layout: home /usr) under the sonames
 * lib<x>.so.13, lib<x>.so.12, then lib<x>.so, with RTLD_NOW | RTLD_LOCAL |
 * RTLD_NODELETE (CUDA's libraries are not built to be unloaded: their C++
 * runtimes keep allocations and handlers, so they stay mapped after close).
 * NVRTC's builtins library (libnvrtc-builtins.so.M.m), which NVRTC opens
 * by soname, is loaded first from NVRTC's folder so that it is found
 * where the toolkit is not registered with ldconfig.
 * Where the runtime has no library API (before CUDA 12.5), libcuda.so.1 is
 * dlopen'ed by name too, as the runtime itself does; its absence is not an
 * error (driver_error says why). On success *out is a new handle (close
 * with cuda_libs_close).
 * Errors: ERROR_NOT_FOUND when `home` does not exist or a library is in none
 * of the places (the message names the paths tried, and dlerror of one that
 * exists but does not load); ERROR_INTERNAL when a needed symbol is missing;
 * ERROR_NOMEM.
 */
int cuda_libs_open(const char *home, struct cuda_libs **out,
		   struct error *err);

/*
 * dlclose the libraries (they stay mapped: RTLD_NODELETE) and free the
 * handle. Accepts NULL.
 */
void cuda_libs_close(struct cuda_libs *libs);

/*
 * How this toolkit launches a cubin: "runtime library API" (cudart 12.5+),
 * "driver module API" (an older cudart, with libcuda.so.1) or "none" (an
 * older cudart and no driver library). Static text.
 */
const char *cuda_libs_launch_api(const struct cuda_libs *libs);

#endif
