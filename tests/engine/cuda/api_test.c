/*
 * Suite engine_cuda_api: ripple's declarations of the CUDA C API
 * (engine/cuda/api.h) against the toolkit's own headers. The check is
 * compiled only where ./configure found the headers (it passes
 * -DRIPPLE_CUDA_API_CHECK and their folder for this file alone): each real
 * function is assigned to ripple's type, which -Werror turns into a build
 * failure when they differ, and constants and struct layouts are static
 * assertions. Without headers the one test skips, saying so.
 */
#include <criterion/criterion.h>
#include <stddef.h>

#ifdef RIPPLE_CUDA_API_CHECK
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvJitLink.h>
#include <nvrtc.h>
#endif

#include "engine/cuda/api.h"

#ifdef RIPPLE_CUDA_API_CHECK

/* enums of two types: compared as int */
#define EQ(ours, theirs) \
	_Static_assert((int)(ours) == (int)(theirs), #theirs)
EQ(CUDA_NVRTC_SUCCESS, NVRTC_SUCCESS);
EQ(CUDA_JITLINK_SUCCESS, NVJITLINK_SUCCESS);
EQ(CUDA_JITLINK_INPUT_LTOIR, NVJITLINK_INPUT_LTOIR);
EQ(CUDA_RT_SUCCESS, cudaSuccess);
EQ(CUDA_RT_MEMCPY_HOST_TO_DEVICE, cudaMemcpyHostToDevice);
EQ(CUDA_RT_MEMCPY_DEVICE_TO_HOST, cudaMemcpyDeviceToHost);
EQ(CUDA_RT_ATTR_CC_MAJOR, cudaDevAttrComputeCapabilityMajor);
EQ(CUDA_RT_ATTR_CC_MINOR, cudaDevAttrComputeCapabilityMinor);
EQ(CUDA_DRV_SUCCESS, CUDA_SUCCESS);

/* dim3, passed by value */
_Static_assert(sizeof(struct cuda_dim3) == sizeof(dim3), "dim3 size");
_Static_assert(offsetof(struct cuda_dim3, x) == offsetof(dim3, x), "dim3.x");
_Static_assert(offsetof(struct cuda_dim3, y) == offsetof(dim3, y), "dim3.y");
_Static_assert(offsetof(struct cuda_dim3, z) == offsetof(dim3, z), "dim3.z");

/* the head of cudaDeviceProp, and room for the whole */
#define PROP(ours, theirs) \
	_Static_assert(offsetof(struct cuda_rt_device_prop_head, ours) == \
		       offsetof(struct cudaDeviceProp, theirs) && \
		       sizeof(((struct cuda_rt_device_prop_head *)0)->ours) == \
		       sizeof(((struct cudaDeviceProp *)0)->theirs), \
		       "cudaDeviceProp." #theirs)
PROP(name, name);
PROP(uuid, uuid);
PROP(luid, luid);
PROP(luid_device_node_mask, luidDeviceNodeMask);
PROP(total_global_mem, totalGlobalMem);
_Static_assert(sizeof(struct cudaDeviceProp) <= CUDA_RT_DEVICE_PROP_BYTES,
	       "cudaDeviceProp fits the buffer");

/* ripple's types with CUDA's structs where ripple has its own */
typedef cuda_rt_error launch_with_dim3_fn(const void *func, dim3 grid,
					  dim3 block, void **args,
					  size_t shared_mem,
					  cuda_stream stream);
typedef cuda_rt_error props_with_struct_fn(struct cudaDeviceProp *prop,
					   int device);

#endif

/*
 * Assign the real function to ripple's pointer type: the compiler refuses
 * a mismatch (-Werror=incompatible-pointer-types). Inside sizeof, so the
 * function is never referenced and the test links without CUDA.
 */
#define SAME(type, real) do { \
	type *p_ = NULL; \
	cr_expect_eq(sizeof(p_ = (real)), sizeof(p_), "%s", #real); \
} while (0)

Test(engine_cuda_api, declarations_match_the_toolkit_headers)
{
#ifndef RIPPLE_CUDA_API_CHECK
	cr_skip_test("./configure found no CUDA headers (nvrtc.h, "
		     "nvJitLink.h, cuda_runtime_api.h, cuda.h): ripple's "
		     "declarations were not checked against them");
#else
	SAME(cuda_nvrtc_version_fn, nvrtcVersion);
	SAME(cuda_nvrtc_get_error_string_fn, nvrtcGetErrorString);
	SAME(cuda_nvrtc_create_program_fn, nvrtcCreateProgram);
	SAME(cuda_nvrtc_destroy_program_fn, nvrtcDestroyProgram);
	SAME(cuda_nvrtc_compile_program_fn, nvrtcCompileProgram);
	SAME(cuda_nvrtc_get_program_log_size_fn, nvrtcGetProgramLogSize);
	SAME(cuda_nvrtc_get_program_log_fn, nvrtcGetProgramLog);
	SAME(cuda_nvrtc_get_ltoir_size_fn, nvrtcGetLTOIRSize);
	SAME(cuda_nvrtc_get_ltoir_fn, nvrtcGetLTOIR);

	SAME(cuda_jitlink_version_fn, nvJitLinkVersion);
	SAME(cuda_jitlink_create_fn, nvJitLinkCreate);
	SAME(cuda_jitlink_destroy_fn, nvJitLinkDestroy);
	SAME(cuda_jitlink_add_data_fn, nvJitLinkAddData);
	SAME(cuda_jitlink_complete_fn, nvJitLinkComplete);
	SAME(cuda_jitlink_get_size_fn, nvJitLinkGetLinkedCubinSize);
	SAME(cuda_jitlink_get_cubin_fn, nvJitLinkGetLinkedCubin);
	SAME(cuda_jitlink_get_size_fn, nvJitLinkGetErrorLogSize);
	SAME(cuda_jitlink_get_log_fn, nvJitLinkGetErrorLog);
	SAME(cuda_jitlink_get_size_fn, nvJitLinkGetInfoLogSize);
	SAME(cuda_jitlink_get_log_fn, nvJitLinkGetInfoLog);

	SAME(cuda_rt_get_int_fn, cudaRuntimeGetVersion);
	SAME(cuda_rt_get_int_fn, cudaDriverGetVersion);
	SAME(cuda_rt_get_int_fn, cudaGetDeviceCount);
	SAME(cuda_rt_error_text_fn, cudaGetErrorString);
	SAME(cuda_rt_error_text_fn, cudaGetErrorName);
	SAME(cuda_rt_device_get_attribute_fn, cudaDeviceGetAttribute);
	SAME(cuda_rt_set_device_fn, cudaSetDevice);
	SAME(cuda_rt_malloc_fn, cudaMalloc);
	SAME(cuda_rt_free_fn, cudaFree);
	SAME(cuda_rt_memcpy_fn, cudaMemcpy);
	SAME(cuda_rt_void_fn, cudaDeviceSynchronize);
	SAME(cuda_rt_void_fn, cudaGetLastError);
	SAME(cuda_rt_library_load_data_fn, cudaLibraryLoadData);
	SAME(cuda_rt_library_unload_fn, cudaLibraryUnload);
	SAME(cuda_rt_library_get_kernel_fn, cudaLibraryGetKernel);
	/* CUDA's struct in the place of ripple's (layouts asserted above) */
	SAME(launch_with_dim3_fn, cudaLaunchKernel);
	SAME(props_with_struct_fn, cudaGetDeviceProperties);

	SAME(cuda_drv_init_fn, cuInit);
	SAME(cuda_drv_error_text_fn, cuGetErrorName);
	SAME(cuda_drv_error_text_fn, cuGetErrorString);
	SAME(cuda_drv_module_load_data_fn, cuModuleLoadData);
	SAME(cuda_drv_module_get_function_fn, cuModuleGetFunction);
	SAME(cuda_drv_module_unload_fn, cuModuleUnload);
	SAME(cuda_drv_launch_kernel_fn, cuLaunchKernel);
#endif
}
