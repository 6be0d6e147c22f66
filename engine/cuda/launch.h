/*
 * Loading a cubin and launching the smoke kernel on one GPU, through the
 * runtime's library API where the toolkit's cudart has it (CUDA 12.5+),
 * else through the driver's module API (libcuda.so.1), which every driver
 * has. The check of the result is smoke.c's.
 */
#ifndef RIPPLE_ENGINE_CUDA_LAUNCH_H
#define RIPPLE_ENGINE_CUDA_LAUNCH_H

#include <stddef.h>

struct error;
struct cuda_libs;

/* What one launch did. Times in milliseconds. */
struct cuda_launch {
	const char *api;	/* cuda_libs_launch_api(): static text */
	int launched;		/* the kernel ran and the device synchronized */
	double load_ms;		/* loading the cubin, getting the kernel */
	double launch_ms;	/* copies in, launch, synchronize, copy out */
};

/*
 * On cudart device `device`, load `cubin` (a linked cubin image), get the
 * extern "C" kernel `kernel` of signature (int n, float a, const float *x,
 * float *y), copy the n elements of x and y to the device, launch it over
 * n threads in blocks of 256, and copy y back into `y`. Everything the
 * launch allocated on the device, and the loaded cubin, is freed before
 * returning. *out says how far it got.
 * Errors: ERROR_INTERNAL naming the CUDA call that failed with the
 * runtime's or driver's error name and text, or saying that this toolkit
 * has neither launch path (cudart before 12.5 and no libcuda.so.1).
 */
int cuda_launch_saxpy(const struct cuda_libs *libs, int device,
		      const void *cubin, const char *kernel, int n, float a,
		      const float *x, float *y, struct cuda_launch *out,
		      struct error *err);

#endif
