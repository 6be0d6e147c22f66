/*
 * One launch of the smoke kernel: the cubin loaded through cudart's
 * library API (12.5+) or the driver's module API (older runtimes), the
 * data copied with cudart either way (both share the device's primary
 * context, which cudaSetDevice makes current).
 */
#include "engine/cuda/launch.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "engine/cuda/load.h"
#include "base/banned.h"

#define BLOCK 256

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A cudart failure as ERROR_INTERNAL, with the call's name. */
static int
rt_fail(const struct cuda_libs *l, const char *call, cuda_rt_error c,
	struct error *err)
{
	return error_set(err, ERROR_INTERNAL, "%s failed: %s (%s)", call,
			 l->rt_error_name(c), l->rt_error_string(c));
}

/* A driver failure as ERROR_INTERNAL, with the call's name. */
static int
drv_fail(const struct cuda_libs *l, const char *call, cuda_drv_result c,
	 struct error *err)
{
	const char *name = NULL, *text = NULL;

	l->drv_error_name(c, &name);
	l->drv_error_string(c, &text);
	return error_set(err, ERROR_INTERNAL, "%s failed: %s (%s)", call,
			 name ? name : "unknown CUresult",
			 text ? text : "no text");
}

/* The cubin through cudart's library API, launched with cudaLaunchKernel. */
static int
launch_runtime(const struct cuda_libs *l, const void *cubin,
	       const char *kernel, unsigned grid, void **args,
	       struct cuda_launch *out, struct error *err)
{
	cuda_rt_library lib = NULL;
	cuda_rt_kernel k = NULL;
	struct cuda_dim3 g = { grid, 1, 1 }, b = { BLOCK, 1, 1 };
	cuda_rt_error c;
	double t0 = now_ms();
	int rc = 0;

	c = l->rt_library_load(&lib, cubin, NULL, NULL, 0, NULL, NULL, 0);
	if (c != CUDA_RT_SUCCESS)
		return rt_fail(l, "cudaLibraryLoadData", c, err);
	c = l->rt_library_kernel(&k, lib, kernel);
	if (c != CUDA_RT_SUCCESS) {
		rc = rt_fail(l, "cudaLibraryGetKernel", c, err);
		goto done;
	}
	out->load_ms = now_ms() - t0;
	/* cudaLaunchKernel takes a cudaKernel_t as its function */
	c = l->rt_launch((const void *)k, g, b, args, 0, NULL);
	if (c != CUDA_RT_SUCCESS) {
		rc = rt_fail(l, "cudaLaunchKernel", c, err);
		goto done;
	}
	c = l->rt_synchronize();
	if (c != CUDA_RT_SUCCESS) {
		rc = rt_fail(l, "cudaDeviceSynchronize", c, err);
		goto done;
	}
	out->launched = 1;
done:
	l->rt_library_unload(lib);
	return rc;
}

/* The cubin through the driver's module API, in the runtime's context. */
static int
launch_driver(const struct cuda_libs *l, const void *cubin,
	      const char *kernel, unsigned grid, void **args,
	      struct cuda_launch *out, struct error *err)
{
	cuda_drv_module mod = NULL;
	cuda_drv_function f = NULL;
	cuda_drv_result d;
	cuda_rt_error c;
	double t0 = now_ms();
	int rc = 0;

	if ((d = l->drv_init(0)) != CUDA_DRV_SUCCESS)
		return drv_fail(l, "cuInit", d, err);
	if ((d = l->drv_module_load(&mod, cubin)) != CUDA_DRV_SUCCESS)
		return drv_fail(l, "cuModuleLoadData", d, err);
	d = l->drv_module_function(&f, mod, kernel);
	if (d != CUDA_DRV_SUCCESS) {
		rc = drv_fail(l, "cuModuleGetFunction", d, err);
		goto done;
	}
	out->load_ms = now_ms() - t0;
	d = l->drv_launch(f, grid, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL);
	if (d != CUDA_DRV_SUCCESS) {
		rc = drv_fail(l, "cuLaunchKernel", d, err);
		goto done;
	}
	c = l->rt_synchronize();
	if (c != CUDA_RT_SUCCESS) {
		rc = rt_fail(l, "cudaDeviceSynchronize", c, err);
		goto done;
	}
	out->launched = 1;
done:
	l->drv_module_unload(mod);
	return rc;
}

int
cuda_launch_saxpy(const struct cuda_libs *l, int device, const void *cubin,
		  const char *kernel, int n, float a, const float *x, float *y,
		  struct cuda_launch *out, struct error *err)
{
	size_t bytes = (size_t)n * sizeof(float);
	float *dx = NULL, *dy = NULL;
	unsigned grid = (unsigned)((n + BLOCK - 1) / BLOCK);
	void *args[4];
	cuda_rt_error c;
	double t0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->api = cuda_libs_launch_api(l);
	if (!l->rt_library_load && !l->drv_launch) {
		error_set(err, ERROR_INTERNAL, "cannot launch with the toolkit "
			  "at '%s': its cudart has no library API "
			  "(cudaLibraryLoadData, CUDA 12.5+) and the driver "
			  "library did not load: %s", l->home, l->driver_error);
		error_hint(err, "install the NVIDIA driver (libcuda.so.1), or "
			   "use a CUDA 12.5 or newer toolkit");
		return ERROR_INTERNAL;
	}
	if ((c = l->rt_set_device(device)) != CUDA_RT_SUCCESS)
		return rt_fail(l, "cudaSetDevice", c, err);
	/* cudaFree(NULL) makes the device's primary context current */
	if ((c = l->rt_free(NULL)) != CUDA_RT_SUCCESS)
		return rt_fail(l, "cudaFree", c, err);
	t0 = now_ms();
	if ((c = l->rt_malloc((void **)&dx, bytes)) != CUDA_RT_SUCCESS ||
	    (c = l->rt_malloc((void **)&dy, bytes)) != CUDA_RT_SUCCESS) {
		rc = rt_fail(l, "cudaMalloc", c, err);
		goto done;
	}
	if ((c = l->rt_memcpy(dx, x, bytes, CUDA_RT_MEMCPY_HOST_TO_DEVICE)) ||
	    (c = l->rt_memcpy(dy, y, bytes, CUDA_RT_MEMCPY_HOST_TO_DEVICE))) {
		rc = rt_fail(l, "cudaMemcpy", c, err);
		goto done;
	}
	args[0] = &n;
	args[1] = &a;
	args[2] = &dx;
	args[3] = &dy;
	if (l->rt_library_load)
		rc = launch_runtime(l, cubin, kernel, grid, args, out, err);
	else
		rc = launch_driver(l, cubin, kernel, grid, args, out, err);
	if (rc)
		goto done;
	c = l->rt_memcpy(y, dy, bytes, CUDA_RT_MEMCPY_DEVICE_TO_HOST);
	if (c != CUDA_RT_SUCCESS)
		rc = rt_fail(l, "cudaMemcpy", c, err);
	out->launch_ms = now_ms() - t0 - out->load_ms;
done:
	if (dy)
		l->rt_free(dy);
	if (dx)
		l->rt_free(dx);
	return rc;
}
