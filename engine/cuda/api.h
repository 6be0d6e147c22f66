/*
 * The CUDA C API as ripple calls it: the few NVRTC, nvJitLink, CUDA runtime
 * and CUDA driver functions that load.c resolves with dlsym, declared here
 * as function types with the types and constants they use, so that every
 * build can load a toolkit at run time without CUDA's headers. These are
 * stable C ABIs; each function says the CUDA version it appeared in (ripple
 * needs 12.0: LTO-IR).
 *
 * Where ./configure finds CUDA's headers, tests/engine/cuda/api_test.c
 * assigns every real function to the type declared here, which the
 * compiler refuses under -Werror when the two differ, and checks each
 * constant and the layout of the two structs ripple declares itself.
 *
 * Choices that keep the two declarations the same type:
 * - CUDA's result and option enums have no negative values, so C compilers
 *   give them the type unsigned int (gcc and clang do; the test checks): they
 *   are unsigned int here, and the values ripple uses are constants below.
 * - Handles point to the same incomplete struct tags as in CUDA's headers
 *   (struct _nvrtcProgram and the CU*_st tags are NVIDIA's names).
 * - dim3 and the head of cudaDeviceProp are ripple's own structs with the
 *   same members; the test checks their sizes and offsets.
 */
#ifndef RIPPLE_ENGINE_CUDA_API_H
#define RIPPLE_ENGINE_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

/* --- NVRTC: libnvrtc.so.MAJOR (CUDA 7.0; LTO-IR 12.0) --- */

typedef unsigned int cuda_nvrtc_result;		/* nvrtcResult */
typedef struct _nvrtcProgram *cuda_nvrtc_program;	/* nvrtcProgram */

enum cuda_nvrtc {
	CUDA_NVRTC_SUCCESS = 0,		/* NVRTC_SUCCESS */
};

/* nvrtcVersion, 7.0 */
typedef cuda_nvrtc_result cuda_nvrtc_version_fn(int *major, int *minor);
/* nvrtcGetErrorString, 7.0 */
typedef const char *cuda_nvrtc_get_error_string_fn(cuda_nvrtc_result result);
/* nvrtcCreateProgram, 7.0 */
typedef cuda_nvrtc_result cuda_nvrtc_create_program_fn(
	cuda_nvrtc_program *prog, const char *src, const char *name,
	int num_headers, const char *const *headers,
	const char *const *include_names);
/* nvrtcDestroyProgram, 7.0 */
typedef cuda_nvrtc_result cuda_nvrtc_destroy_program_fn(
	cuda_nvrtc_program *prog);
/* nvrtcCompileProgram, 7.0 */
typedef cuda_nvrtc_result cuda_nvrtc_compile_program_fn(
	cuda_nvrtc_program prog, int num_options, const char *const *options);
/* nvrtcGetProgramLogSize, 7.0 */
typedef cuda_nvrtc_result cuda_nvrtc_get_program_log_size_fn(
	cuda_nvrtc_program prog, size_t *size);
/* nvrtcGetProgramLog, 7.0 */
typedef cuda_nvrtc_result cuda_nvrtc_get_program_log_fn(
	cuda_nvrtc_program prog, char *log);
/* nvrtcGetLTOIRSize, 12.0 */
typedef cuda_nvrtc_result cuda_nvrtc_get_ltoir_size_fn(
	cuda_nvrtc_program prog, size_t *size);
/* nvrtcGetLTOIR, 12.0 */
typedef cuda_nvrtc_result cuda_nvrtc_get_ltoir_fn(cuda_nvrtc_program prog,
						  char *ltoir);

/*
 * --- nvJitLink: libnvJitLink.so.MAJOR (CUDA 12.0) ---
 * 12.x exports each function as __nvJitLink<Name>_12_<minor> (the header
 * maps the plain name to one by a static inline wrapper); 13.x exports the
 * plain names too. load.c tries the plain name, then _13_0, then _12_0.
 * The exports take `const char *const *options` where the wrappers take
 * `const char **`: the same ABI. Declared as the documented wrappers.
 */

typedef unsigned int cuda_jitlink_result;	/* nvJitLinkResult */
typedef unsigned int cuda_jitlink_input_type;	/* nvJitLinkInputType */
typedef struct nvJitLink *cuda_jitlink_handle;	/* nvJitLinkHandle */

enum cuda_jitlink {
	CUDA_JITLINK_SUCCESS = 0,	/* NVJITLINK_SUCCESS */
	CUDA_JITLINK_INPUT_LTOIR = 3,	/* NVJITLINK_INPUT_LTOIR */
};

/* nvJitLinkVersion, 12.3 (exported under its plain name) */
typedef cuda_jitlink_result cuda_jitlink_version_fn(unsigned int *major,
						    unsigned int *minor);
/* nvJitLinkCreate, 12.0 */
typedef cuda_jitlink_result cuda_jitlink_create_fn(
	cuda_jitlink_handle *handle, uint32_t num_options,
	const char **options);
/* nvJitLinkDestroy, 12.0 */
typedef cuda_jitlink_result cuda_jitlink_destroy_fn(
	cuda_jitlink_handle *handle);
/* nvJitLinkAddData, 12.0 */
typedef cuda_jitlink_result cuda_jitlink_add_data_fn(
	cuda_jitlink_handle handle, cuda_jitlink_input_type input_type,
	const void *data, size_t size, const char *name);
/* nvJitLinkComplete, 12.0 */
typedef cuda_jitlink_result cuda_jitlink_complete_fn(
	cuda_jitlink_handle handle);
/* nvJitLinkGetLinkedCubinSize, nvJitLinkGetErrorLogSize and
   nvJitLinkGetInfoLogSize, 12.0 */
typedef cuda_jitlink_result cuda_jitlink_get_size_fn(
	cuda_jitlink_handle handle, size_t *size);
/* nvJitLinkGetLinkedCubin, 12.0 */
typedef cuda_jitlink_result cuda_jitlink_get_cubin_fn(
	cuda_jitlink_handle handle, void *cubin);
/* nvJitLinkGetErrorLog and nvJitLinkGetInfoLog, 12.0 */
typedef cuda_jitlink_result cuda_jitlink_get_log_fn(
	cuda_jitlink_handle handle, char *log);

/* --- the CUDA runtime: libcudart.so.MAJOR --- */

typedef unsigned int cuda_rt_error;		/* cudaError_t */
typedef unsigned int cuda_rt_device_attr;	/* enum cudaDeviceAttr */
typedef unsigned int cuda_rt_memcpy_kind;	/* enum cudaMemcpyKind */
typedef unsigned int cuda_rt_jit_option;	/* enum cudaJitOption */
typedef unsigned int cuda_rt_library_option;	/* enum cudaLibraryOption */
typedef struct CUstream_st *cuda_stream;	/* cudaStream_t, CUstream */
typedef struct CUlib_st *cuda_rt_library;	/* cudaLibrary_t */
typedef struct CUkern_st *cuda_rt_kernel;	/* cudaKernel_t */

enum cuda_rt {
	CUDA_RT_SUCCESS = 0,			/* cudaSuccess */
	CUDA_RT_MEMCPY_HOST_TO_DEVICE = 1,	/* cudaMemcpyHostToDevice */
	CUDA_RT_MEMCPY_DEVICE_TO_HOST = 2,	/* cudaMemcpyDeviceToHost */
	CUDA_RT_ATTR_CC_MAJOR = 75,	/* cudaDevAttrComputeCapabilityMajor */
	CUDA_RT_ATTR_CC_MINOR = 76,	/* cudaDevAttrComputeCapabilityMinor */
};

/* dim3 (vector_types.h), passed by value to cudaLaunchKernel */
struct cuda_dim3 {
	unsigned int x, y, z;
};

/*
 * The head of struct cudaDeviceProp, the same in 12.x (filled by
 * cudaGetDeviceProperties_v2) and 13.x (cudaGetDeviceProperties); the
 * rest of the struct changed between them, so the call gets a buffer of
 * CUDA_RT_DEVICE_PROP_BYTES and only this head is read.
 */
struct cuda_rt_device_prop_head {
	char name[256];
	char uuid[16];			/* cudaUUID_t */
	char luid[8];
	unsigned int luid_device_node_mask;
	size_t total_global_mem;	/* bytes */
};

/* Room for any major's struct cudaDeviceProp (1,032 bytes in 12.x). */
#define CUDA_RT_DEVICE_PROP_BYTES 16384

/* cudaRuntimeGetVersion and cudaDriverGetVersion, 2.2; the device count,
   cudaGetDeviceCount, 1.0 */
typedef cuda_rt_error cuda_rt_get_int_fn(int *value);
/* cudaGetErrorString, 1.0; cudaGetErrorName, before 11.0 */
typedef const char *cuda_rt_error_text_fn(cuda_rt_error error);
/* cudaDeviceGetAttribute, 5.0 */
typedef cuda_rt_error cuda_rt_device_get_attribute_fn(
	int *value, cuda_rt_device_attr attr, int device);
/* cudaGetDeviceProperties_v2, 12.0 (12.x's name), and
   cudaGetDeviceProperties, 1.0 (13.x's, with 13.x's struct); `prop` is a
   buffer of CUDA_RT_DEVICE_PROP_BYTES starting with the head above */
typedef cuda_rt_error cuda_rt_get_device_properties_fn(void *prop,
						       int device);
/* cudaSetDevice, 1.0 */
typedef cuda_rt_error cuda_rt_set_device_fn(int device);
/* cudaMalloc, 1.0 */
typedef cuda_rt_error cuda_rt_malloc_fn(void **dev_ptr, size_t size);
/* cudaFree, 1.0 */
typedef cuda_rt_error cuda_rt_free_fn(void *dev_ptr);
/* cudaMemcpy, 1.0 */
typedef cuda_rt_error cuda_rt_memcpy_fn(void *dst, const void *src,
					size_t count,
					cuda_rt_memcpy_kind kind);
/* cudaDeviceSynchronize, 4.0; cudaGetLastError, 1.0 */
typedef cuda_rt_error cuda_rt_void_fn(void);
/* cudaLibraryLoadData, 12.5 (absent from 12.4's libcudart.so.12) */
typedef cuda_rt_error cuda_rt_library_load_data_fn(
	cuda_rt_library *library, const void *code,
	cuda_rt_jit_option *jit_options, void **jit_option_values,
	unsigned int num_jit_options, cuda_rt_library_option *library_options,
	void **library_option_values, unsigned int num_library_options);
/* cudaLibraryUnload, 12.5 */
typedef cuda_rt_error cuda_rt_library_unload_fn(cuda_rt_library library);
/* cudaLibraryGetKernel, 12.5 */
typedef cuda_rt_error cuda_rt_library_get_kernel_fn(cuda_rt_kernel *kernel,
						    cuda_rt_library library,
						    const char *name);
/* cudaLaunchKernel, 7.0 (a cudaKernel_t is accepted as `func`, 12.5) */
typedef cuda_rt_error cuda_rt_launch_kernel_fn(const void *func,
					       struct cuda_dim3 grid,
					       struct cuda_dim3 block,
					       void **args, size_t shared_mem,
					       cuda_stream stream);

/*
 * --- the CUDA driver: libcuda.so.1, the driver's library, not the
 * toolkit's --- used to load and launch a cubin where the runtime has no
 * library API (before 12.5).
 */

typedef unsigned int cuda_drv_result;		/* CUresult */
typedef struct CUmod_st *cuda_drv_module;	/* CUmodule */
typedef struct CUfunc_st *cuda_drv_function;	/* CUfunction */

enum cuda_drv {
	CUDA_DRV_SUCCESS = 0,		/* CUDA_SUCCESS */
};

/* cuInit, 2.0 */
typedef cuda_drv_result cuda_drv_init_fn(unsigned int flags);
/* cuGetErrorName and cuGetErrorString, 6.0 */
typedef cuda_drv_result cuda_drv_error_text_fn(cuda_drv_result error,
					       const char **text);
/* cuModuleLoadData, 2.0 */
typedef cuda_drv_result cuda_drv_module_load_data_fn(cuda_drv_module *module,
						     const void *image);
/* cuModuleGetFunction, 2.0 */
typedef cuda_drv_result cuda_drv_module_get_function_fn(
	cuda_drv_function *function, cuda_drv_module module,
	const char *name);
/* cuModuleUnload, 2.0 */
typedef cuda_drv_result cuda_drv_module_unload_fn(cuda_drv_module module);
/* cuLaunchKernel, 4.0 */
typedef cuda_drv_result cuda_drv_launch_kernel_fn(
	cuda_drv_function function, unsigned int grid_x, unsigned int grid_y,
	unsigned int grid_z, unsigned int block_x, unsigned int block_y,
	unsigned int block_z, unsigned int shared_mem_bytes,
	cuda_stream stream, void **kernel_params, void **extra);

#endif
