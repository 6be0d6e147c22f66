/*
 * A fake CUDA toolkit and driver for tests on machines without a GPU: one
 * source built (ripple.ninja, "fake CUDA") into libnvrtc, libnvJitLink,
 * libcudart and libcuda.so.1 of two toolkit homes under the build folder:
 *
 *   tests/fake-cuda-12.4: 12.x sonames, nvJitLink's versioned exports, a
 *     runtime WITHOUT the library API (as CUDA 12.4's), so ripple launches
 *     through the driver's module API of the fake libcuda.so.1 next to it
 *     (the runtime needs it: DT_NEEDED, found through RUNPATH $ORIGIN);
 *   tests/fake-cuda-13.0: 13.x sonames and the runtime's library API.
 *
 * Exactly one of FAKE_NVRTC, FAKE_JITLINK, FAKE_CUDART, FAKE_DRIVER is
 * defined, with FAKE_MAJOR and FAKE_MINOR (and FAKE_LIBRARY_API for a
 * 12.5+ runtime). Enum values are NVIDIA's, written out here rather than
 * taken from engine/cuda/api.h, so a wrong constant there fails a test.
 *
 * The "GPU" is the host: device memory is malloc'd, a kernel runs saxpy
 * on the CPU over the grid it is launched with. The source decides the
 * kernel's index: with "blockIdx.x" the global index, else threadIdx.x
 * only (a wrong kernel whose results are wrong). RIPPLE_FAKE_CUDA_DEVICES
 * sets the device count (default 1: one sm_90 GPU).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cuda/api.h"

#define TEXT_(x) #x
#define TEXT(x) TEXT_(x)
#define VERSION_TEXT TEXT(FAKE_MAJOR) "." TEXT(FAKE_MINOR)

/* A fake LTO-IR or cubin: a tag line, then the CUDA source. */
#define FAKE_LTOIR "FAKE-LTOIR " VERSION_TEXT "\n"
#define FAKE_CUBIN "FAKE-CUBIN sm_"

/* Where the source that became `image` starts, or NULL. */
static inline const char *
image_source(const char *image, const char *tag)
{
	const char *nl;

	if (!image || strncmp(image, tag, strlen(tag)))
		return NULL;
	nl = strchr(image, '\n');
	return nl ? nl + 1 : NULL;
}

struct fake_kernel {
	int global_index;	/* the source uses blockIdx.x */
};

/* Find kernel NAME in a cubin's source into *k; 0 when it is not there. */
static inline int
kernel_find(const char *cubin, const char *name, struct fake_kernel *k)
{
	const char *src = image_source(cubin, FAKE_CUBIN);
	char want[256];

	snprintf(want, sizeof(want), "void %s(", name);
	if (!src || !strstr(src, want))
		return 0;
	k->global_index = strstr(src, "blockIdx.x") != NULL;
	return 1;
}

/* saxpy(int n, float a, const float *x, float *y) over grid x block. */
static inline void
kernel_run(const struct fake_kernel *k, unsigned grid, unsigned block,
	   void **args)
{
	int n = *(int *)args[0];
	float a = *(float *)args[1];
	const float *x = *(float **)args[2];
	float *y = *(float **)args[3];
	unsigned b, t;

	for (b = 0; b < grid; b++)
		for (t = 0; t < block; t++) {
			long i = k->global_index ? (long)b * block + t : t;

			if (i < n)
				y[i] = a * x[i] + y[i];
		}
}

#ifdef FAKE_NVRTC

struct _nvrtcProgram {
	char *src, *log, *ltoir;
	size_t ltoir_len;
};

cuda_nvrtc_version_fn nvrtcVersion;
cuda_nvrtc_get_error_string_fn nvrtcGetErrorString;
cuda_nvrtc_create_program_fn nvrtcCreateProgram;
cuda_nvrtc_destroy_program_fn nvrtcDestroyProgram;
cuda_nvrtc_compile_program_fn nvrtcCompileProgram;
cuda_nvrtc_get_program_log_size_fn nvrtcGetProgramLogSize;
cuda_nvrtc_get_program_log_fn nvrtcGetProgramLog;
cuda_nvrtc_get_ltoir_size_fn nvrtcGetLTOIRSize;
cuda_nvrtc_get_ltoir_fn nvrtcGetLTOIR;

cuda_nvrtc_result
nvrtcVersion(int *major, int *minor)
{
	*major = FAKE_MAJOR;
	*minor = FAKE_MINOR;
	return 0;
}

const char *
nvrtcGetErrorString(cuda_nvrtc_result r)
{
	return r == 0 ? "NVRTC_SUCCESS" : r == 6 ? "NVRTC_ERROR_COMPILATION"
		: r == 5 ? "NVRTC_ERROR_INVALID_OPTION" : "NVRTC_ERROR";
}

cuda_nvrtc_result
nvrtcCreateProgram(cuda_nvrtc_program *prog, const char *src,
		   const char *name, int num_headers,
		   const char *const *headers, const char *const *include_names)
{
	(void)name;
	(void)num_headers;
	(void)headers;
	(void)include_names;
	*prog = calloc(1, sizeof(**prog));
	if (!*prog || !((*prog)->src = strdup(src)))
		return 1;	/* NVRTC_ERROR_OUT_OF_MEMORY */
	return 0;
}

cuda_nvrtc_result
nvrtcDestroyProgram(cuda_nvrtc_program *prog)
{
	if (*prog) {
		free((*prog)->src);
		free((*prog)->log);
		free((*prog)->ltoir);
		free(*prog);
		*prog = NULL;
	}
	return 0;
}

cuda_nvrtc_result
nvrtcCompileProgram(cuda_nvrtc_program p, int num_options,
		    const char *const *options)
{
	int i, lto = 0, arch = 0;
	size_t n;

	for (i = 0; i < num_options; i++) {
		if (!strcmp(options[i], "-dlto"))
			lto = 1;
		else if (!strncmp(options[i], "--gpu-architecture=compute_",
				  27))
			arch = atoi(options[i] + 27);
		else
			return 5;	/* NVRTC_ERROR_INVALID_OPTION */
	}
	if (!lto || !arch)
		return 5;
	if (!strstr(p->src, "__global__") || strstr(p->src, "this is not")) {
		p->log = strdup("ripple_smoke.cu(2): error: expected a \";\"\n"
				"1 error detected in the compilation of "
				"\"ripple_smoke.cu\".\n");
		return 6;	/* NVRTC_ERROR_COMPILATION */
	}
	n = strlen(FAKE_LTOIR) + strlen(p->src);
	p->ltoir = malloc(n + 1);
	if (!p->ltoir)
		return 1;
	snprintf(p->ltoir, n + 1, "%s%s", FAKE_LTOIR, p->src);
	p->ltoir_len = n + 1;
	return 0;
}

cuda_nvrtc_result
nvrtcGetProgramLogSize(cuda_nvrtc_program p, size_t *size)
{
	*size = p->log ? strlen(p->log) + 1 : 1;
	return 0;
}

cuda_nvrtc_result
nvrtcGetProgramLog(cuda_nvrtc_program p, char *log)
{
	strcpy(log, p->log ? p->log : "");
	return 0;
}

cuda_nvrtc_result
nvrtcGetLTOIRSize(cuda_nvrtc_program p, size_t *size)
{
	if (!p->ltoir)
		return 7;	/* NVRTC_ERROR_INVALID_INPUT */
	*size = p->ltoir_len;
	return 0;
}

cuda_nvrtc_result
nvrtcGetLTOIR(cuda_nvrtc_program p, char *ltoir)
{
	if (!p->ltoir)
		return 7;
	memcpy(ltoir, p->ltoir, p->ltoir_len);
	return 0;
}

#endif

#ifdef FAKE_JITLINK

/* 12.x exports versioned names only (13.x also plain ones). */
#if FAKE_MAJOR == 12
#define JL(name) __nvJitLink##name##_12_0
#else
#define JL(name) nvJitLink##name
#endif

struct nvJitLink {
	int arch, lto;
	char *input, *cubin, *error_log;
	size_t cubin_len;
};

cuda_jitlink_version_fn nvJitLinkVersion;
cuda_jitlink_create_fn JL(Create);
cuda_jitlink_destroy_fn JL(Destroy);
cuda_jitlink_add_data_fn JL(AddData);
cuda_jitlink_complete_fn JL(Complete);
cuda_jitlink_get_size_fn JL(GetLinkedCubinSize);
cuda_jitlink_get_cubin_fn JL(GetLinkedCubin);
cuda_jitlink_get_size_fn JL(GetErrorLogSize);
cuda_jitlink_get_log_fn JL(GetErrorLog);
cuda_jitlink_get_size_fn JL(GetInfoLogSize);
cuda_jitlink_get_log_fn JL(GetInfoLog);

cuda_jitlink_result
nvJitLinkVersion(unsigned int *major, unsigned int *minor)
{
	*major = FAKE_MAJOR;
	*minor = FAKE_MINOR;
	return 0;
}

cuda_jitlink_result
JL(Create)(cuda_jitlink_handle *h, uint32_t num_options, const char **options)
{
	uint32_t i;

	*h = calloc(1, sizeof(**h));
	if (!*h)
		return 10;	/* NVJITLINK_ERROR_INTERNAL */
	for (i = 0; i < num_options; i++) {
		if (!strcmp(options[i], "-lto"))
			(*h)->lto = 1;
		else if (!strncmp(options[i], "-arch=sm_", 9))
			(*h)->arch = atoi(options[i] + 9);
		else
			return 1;	/* NVJITLINK_ERROR_UNRECOGNIZED_OPTION */
	}
	return (*h)->arch ? 0 : 2;	/* NVJITLINK_ERROR_MISSING_ARCH */
}

cuda_jitlink_result
JL(Destroy)(cuda_jitlink_handle *h)
{
	if (*h) {
		free((*h)->input);
		free((*h)->cubin);
		free((*h)->error_log);
		free(*h);
		*h = NULL;
	}
	return 0;
}

cuda_jitlink_result
JL(AddData)(cuda_jitlink_handle h, cuda_jitlink_input_type type,
	    const void *data, size_t size, const char *name)
{
	(void)name;
	/* 3 is NVJITLINK_INPUT_LTOIR; and it must be our own LTO-IR */
	if (type != 3 || size < strlen(FAKE_LTOIR) ||
	    !image_source(data, FAKE_LTOIR)) {
		h->error_log = strdup("ERROR 1: bad input: does not match "
				      "type\n");
		return 3;	/* NVJITLINK_ERROR_INVALID_INPUT */
	}
	h->input = strdup(image_source(data, FAKE_LTOIR));
	return h->input ? 0 : 10;
}

cuda_jitlink_result
JL(Complete)(cuda_jitlink_handle h)
{
	size_t n;

	if (!h->input || !h->lto)
		return 10;
	n = strlen(FAKE_CUBIN) + 16 + strlen(h->input);
	h->cubin = malloc(n);
	if (!h->cubin)
		return 10;
	snprintf(h->cubin, n, "%s%d\n%s", FAKE_CUBIN, h->arch, h->input);
	h->cubin_len = strlen(h->cubin) + 1;
	return 0;
}

cuda_jitlink_result
JL(GetLinkedCubinSize)(cuda_jitlink_handle h, size_t *size)
{
	if (!h->cubin)
		return 3;
	*size = h->cubin_len;
	return 0;
}

cuda_jitlink_result
JL(GetLinkedCubin)(cuda_jitlink_handle h, void *cubin)
{
	if (!h->cubin)
		return 3;
	memcpy(cubin, h->cubin, h->cubin_len);
	return 0;
}

cuda_jitlink_result
JL(GetErrorLogSize)(cuda_jitlink_handle h, size_t *size)
{
	*size = h->error_log ? strlen(h->error_log) + 1 : 1;
	return 0;
}

cuda_jitlink_result
JL(GetErrorLog)(cuda_jitlink_handle h, char *log)
{
	strcpy(log, h->error_log ? h->error_log : "");
	return 0;
}

cuda_jitlink_result
JL(GetInfoLogSize)(cuda_jitlink_handle h, size_t *size)
{
	(void)h;
	*size = 1;
	return 0;
}

cuda_jitlink_result
JL(GetInfoLog)(cuda_jitlink_handle h, char *log)
{
	(void)h;
	log[0] = '\0';
	return 0;
}

#endif

#ifdef FAKE_DRIVER

/* The context the fake runtime made current (ripple_fake_* is ours). */
static int context_current;

void ripple_fake_context_make_current(void);

void
ripple_fake_context_make_current(void)
{
	context_current = 1;
}

cuda_drv_init_fn cuInit;
cuda_drv_error_text_fn cuGetErrorName, cuGetErrorString;
cuda_drv_module_load_data_fn cuModuleLoadData;
cuda_drv_module_get_function_fn cuModuleGetFunction;
cuda_drv_module_unload_fn cuModuleUnload;
cuda_drv_launch_kernel_fn cuLaunchKernel;

cuda_drv_result
cuInit(unsigned int flags)
{
	return flags ? 1 : 0;	/* CUDA_ERROR_INVALID_VALUE */
}

cuda_drv_result
cuGetErrorName(cuda_drv_result e, const char **text)
{
	*text = e == 0 ? "CUDA_SUCCESS" : e == 201 ? "CUDA_ERROR_INVALID_CONTEXT"
		: e == 200 ? "CUDA_ERROR_INVALID_IMAGE"
		: e == 500 ? "CUDA_ERROR_NOT_FOUND" : "CUDA_ERROR_UNKNOWN";
	return 0;
}

cuda_drv_result
cuGetErrorString(cuda_drv_result e, const char **text)
{
	*text = e == 0 ? "no error" : e == 201 ? "invalid device context"
		: e == 200 ? "device kernel image is invalid"
		: e == 500 ? "named symbol not found" : "unknown error";
	return 0;
}

struct CUmod_st {
	char *image;
	struct fake_kernel kernel;	/* the one cuModuleGetFunction found */
};

cuda_drv_result
cuModuleLoadData(cuda_drv_module *mod, const void *image)
{
	if (!context_current)
		return 201;	/* CUDA_ERROR_INVALID_CONTEXT */
	if (!image_source(image, FAKE_CUBIN "90\n"))
		return 200;	/* CUDA_ERROR_INVALID_IMAGE: not for sm_90 */
	*mod = calloc(1, sizeof(**mod));
	if (!*mod || !((*mod)->image = strdup(image)))
		return 2;	/* CUDA_ERROR_OUT_OF_MEMORY */
	return 0;
}

cuda_drv_result
cuModuleGetFunction(cuda_drv_function *f, cuda_drv_module mod,
		    const char *name)
{
	if (!kernel_find(mod->image, name, &mod->kernel))
		return 500;	/* CUDA_ERROR_NOT_FOUND */
	*f = (cuda_drv_function)(void *)&mod->kernel;
	return 0;
}

cuda_drv_result
cuModuleUnload(cuda_drv_module mod)
{
	if (mod) {
		free(mod->image);
		free(mod);
	}
	return 0;
}

cuda_drv_result
cuLaunchKernel(cuda_drv_function f, unsigned int gx, unsigned int gy,
	       unsigned int gz, unsigned int bx, unsigned int by,
	       unsigned int bz, unsigned int shared, cuda_stream stream,
	       void **params, void **extra)
{
	(void)shared;
	(void)stream;
	if (!context_current)
		return 201;
	if (gy != 1 || gz != 1 || by != 1 || bz != 1 || extra || !params)
		return 1;
	kernel_run((const struct fake_kernel *)(void *)f, gx, bx, params);
	return 0;
}

#endif

#ifdef FAKE_CUDART

#ifndef FAKE_LIBRARY_API
void ripple_fake_context_make_current(void);	/* the fake libcuda's */
#endif

static int
device_count(void)
{
	const char *s = getenv("RIPPLE_FAKE_CUDA_DEVICES");

	return s && *s ? atoi(s) : 1;
}

/* cudaErrorNoDevice is 100, cudaErrorInvalidDevice 101 */
static cuda_rt_error last_error;

static cuda_rt_error
fail(cuda_rt_error e)
{
	last_error = e;
	return e;
}

cuda_rt_get_int_fn cudaRuntimeGetVersion, cudaDriverGetVersion;
cuda_rt_get_int_fn cudaGetDeviceCount;
cuda_rt_error_text_fn cudaGetErrorString, cudaGetErrorName;
cuda_rt_device_get_attribute_fn cudaDeviceGetAttribute;
cuda_rt_set_device_fn cudaSetDevice;
cuda_rt_malloc_fn cudaMalloc;
cuda_rt_free_fn cudaFree;
cuda_rt_memcpy_fn cudaMemcpy;
cuda_rt_void_fn cudaDeviceSynchronize, cudaGetLastError;
cuda_rt_launch_kernel_fn cudaLaunchKernel;

cuda_rt_error
cudaRuntimeGetVersion(int *v)
{
	*v = FAKE_MAJOR * 1000 + FAKE_MINOR * 10;
	return 0;
}

cuda_rt_error
cudaDriverGetVersion(int *v)
{
	*v = 13000;
	return 0;
}

cuda_rt_error
cudaGetDeviceCount(int *n)
{
	*n = device_count();
	return *n > 0 ? 0 : fail(100);
}

const char *
cudaGetErrorName(cuda_rt_error e)
{
	return e == 0 ? "cudaSuccess" : e == 100 ? "cudaErrorNoDevice"
		: e == 101 ? "cudaErrorInvalidDevice"
		: e == 98 ? "cudaErrorInvalidDeviceFunction"
		: "cudaErrorUnknown";
}

const char *
cudaGetErrorString(cuda_rt_error e)
{
	return e == 0 ? "no error"
		: e == 100 ? "no CUDA-capable device is detected"
		: e == 101 ? "invalid device ordinal"
		: e == 98 ? "invalid device function" : "unknown error";
}

cuda_rt_error
cudaDeviceGetAttribute(int *value, cuda_rt_device_attr attr, int device)
{
	if (device < 0 || device >= device_count())
		return fail(101);
	if (attr == 75)		/* cudaDevAttrComputeCapabilityMajor */
		*value = 9;
	else if (attr == 76)	/* cudaDevAttrComputeCapabilityMinor */
		*value = 0;
	else
		return fail(1);
	return 0;
}

/* 12.x exports the 12.0 struct as _v2; 13.x as the plain name. */
#if FAKE_MAJOR == 12
#define DEVICE_PROPS cudaGetDeviceProperties_v2
#else
#define DEVICE_PROPS cudaGetDeviceProperties
#endif
cuda_rt_get_device_properties_fn DEVICE_PROPS;

cuda_rt_error
DEVICE_PROPS(void *prop, int device)
{
	struct cuda_rt_device_prop_head *h = prop;

	if (device < 0 || device >= device_count())
		return fail(101);
	memset(prop, 0xa5, 1032);	/* the rest of a 12.x struct */
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "Fake CUDA %s GPU",
		 VERSION_TEXT);
	h->total_global_mem = (size_t)80 << 30;
	return 0;
}

cuda_rt_error
cudaSetDevice(int device)
{
	if (device < 0 || device >= device_count())
		return fail(101);
	return 0;
}

cuda_rt_error
cudaMalloc(void **p, size_t size)
{
	*p = malloc(size ? size : 1);
	return *p ? 0 : fail(2);	/* cudaErrorMemoryAllocation */
}

cuda_rt_error
cudaFree(void *p)
{
#ifndef FAKE_LIBRARY_API
	/* the runtime's first call makes the primary context current */
	ripple_fake_context_make_current();
#endif
	free(p);
	return 0;
}

cuda_rt_error
cudaMemcpy(void *dst, const void *src, size_t n, cuda_rt_memcpy_kind kind)
{
	if (kind != 1 && kind != 2)	/* HostToDevice, DeviceToHost */
		return fail(21);	/* cudaErrorInvalidMemcpyDirection */
	memcpy(dst, src, n);
	return 0;
}

cuda_rt_error
cudaDeviceSynchronize(void)
{
	return 0;
}

cuda_rt_error
cudaGetLastError(void)
{
	cuda_rt_error e = last_error;

	last_error = 0;
	return e;
}

#ifdef FAKE_LIBRARY_API

cuda_rt_library_load_data_fn cudaLibraryLoadData;
cuda_rt_library_unload_fn cudaLibraryUnload;
cuda_rt_library_get_kernel_fn cudaLibraryGetKernel;

struct CUlib_st {
	char *image;
	struct fake_kernel kernel;	/* the one cudaLibraryGetKernel found */
};

cuda_rt_error
cudaLibraryLoadData(cuda_rt_library *lib, const void *code,
		    cuda_rt_jit_option *jit_options, void **jit_values,
		    unsigned int num_jit, cuda_rt_library_option *lib_options,
		    void **lib_values, unsigned int num_lib)
{
	(void)jit_options;
	(void)jit_values;
	(void)lib_options;
	(void)lib_values;
	if (num_jit || num_lib || !image_source(code, FAKE_CUBIN "90\n"))
		return fail(200);	/* cudaErrorInvalidKernelImage */
	*lib = calloc(1, sizeof(**lib));
	if (!*lib || !((*lib)->image = strdup(code)))
		return fail(2);
	return 0;
}

cuda_rt_error
cudaLibraryUnload(cuda_rt_library lib)
{
	if (lib) {
		free(lib->image);
		free(lib);
	}
	return 0;
}

cuda_rt_error
cudaLibraryGetKernel(cuda_rt_kernel *k, cuda_rt_library lib,
		     const char *name)
{
	if (!kernel_find(lib->image, name, &lib->kernel))
		return fail(98);
	*k = (cuda_rt_kernel)(void *)&lib->kernel;
	return 0;
}

#endif

cuda_rt_error
cudaLaunchKernel(const void *func, struct cuda_dim3 grid,
		 struct cuda_dim3 block, void **args, size_t shared,
		 cuda_stream stream)
{
	(void)shared;
	(void)stream;
	if (!func || grid.y != 1 || grid.z != 1 || block.y != 1 ||
	    block.z != 1)
		return fail(98);
	kernel_run(func, grid.x, block.x, args);
	return 0;
}

#endif
