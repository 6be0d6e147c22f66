/*
 * cuda-smoke: NVRTC to LTO-IR, nvJitLink to a cubin, a store lookup keyed by
 * XXH3-128, and a launch (launch.c) with every element of the result
 * checked. Without a GPU the launch is deferred.
 */
#include "engine/cuda/smoke.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <xxhash.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "engine/cuda/launch.h"
#include "engine/cuda/load.h"
#include "base/banned.h"

static const char default_source[] =
	"extern \"C\" __global__ void ripple_saxpy(int n, float a,\n"
	"                                          const float *x, float *y)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\ty[i] = a * x[i] + y[i];\n"
	"}\n";

const char *
cuda_smoke_status_name(enum cuda_smoke_status s)
{
	switch (s) {
	case CUDA_SMOKE_PASSED:
		return "passed";
	case CUDA_SMOKE_DEFERRED:
		return "deferred";
	default:
		return "failed";
	}
}

void
cuda_smoke_result_release(struct cuda_smoke_result *res)
{
	if (!res)
		return;
	mem_free(res->log);
	memset(res, 0, sizeof(*res));
}


static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Hash one field with its length, so fields cannot run into each other. */
static void
key_field(XXH3_state_t *st, const char *s)
{
	unsigned long long n = strlen(s);

	XXH3_128bits_update(st, &n, sizeof(n));
	XXH3_128bits_update(st, s, n);
}

/* The cubin key over source, options, architecture and versions. */
static int
cubin_key(const char *src, const char *const *rtc_opts, size_t n_rtc,
	  const char *const *jl_opts, size_t n_jl, int sm, const char *vers,
	  unsigned char key[CUDA_KEY_BYTES], struct error *err)
{
	XXH3_state_t *st = XXH3_createState();
	XXH128_canonical_t c;
	char arch[32];
	size_t i;

	if (!st)
		return error_set(err, ERROR_NOMEM, "out of memory");
	snprintf(arch, sizeof(arch), "sm_%d", sm);
	XXH3_128bits_reset(st);
	key_field(st, "ripple-cubin-1");
	key_field(st, src);
	for (i = 0; i < n_rtc; i++)
		key_field(st, rtc_opts[i]);
	key_field(st, "|");
	for (i = 0; i < n_jl; i++)
		key_field(st, jl_opts[i]);
	key_field(st, arch);
	key_field(st, vers);
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
	XXH3_freeState(st);
	memcpy(key, c.digest, CUDA_KEY_BYTES);
	return 0;
}

/* Append a non-empty log with a heading to res->log. */
static void
log_add(struct buf *log, const char *head, const char *text)
{
	if (!text || !text[0])
		return;
	buf_addf(log, NULL, "%s:\n%s%s", head, text,
		 text[strlen(text) - 1] == '\n' ? "" : "\n");
}

/* NVRTC: source to LTO-IR for compute_XX. */
static int
compile_ltoir(const struct cuda_libs *l, const char *src,
	      const char *const *opts, int n_opts, int sm, char **ir,
	      size_t *ir_len, struct buf *log, struct error *err)
{
	cuda_nvrtc_program prog = NULL;
	cuda_nvrtc_result r, cr;
	size_t n = 0;
	char *text = NULL, head[64];
	int rc = 0;

	r = l->rtc_create(&prog, src, "ripple_smoke.cu", 0, NULL, NULL);
	if (r != CUDA_NVRTC_SUCCESS)
		return error_set(err, ERROR_INTERNAL,
				 "nvrtcCreateProgram failed: %s",
				 l->rtc_error_string(r));
	cr = l->rtc_compile(prog, n_opts, opts);
	if (l->rtc_log_size(prog, &n) == CUDA_NVRTC_SUCCESS && n > 1) {
		text = mem_alloc(n);
		if (text && l->rtc_log(prog, text) == CUDA_NVRTC_SUCCESS) {
			snprintf(head, sizeof(head), "nvrtc (compute_%d)", sm);
			log_add(log, head, text);
		}
	}
	if (cr != CUDA_NVRTC_SUCCESS) {
		error_set(err, ERROR_INVALID,
			  "nvrtc cannot compile 'ripple_smoke.cu' for "
			  "compute_%d (%s): %s", sm, l->rtc_error_string(cr),
			  text ? text : "(no log)");
		error_hint(err, "fix the kernel source; NVRTC's whole log "
				"is in the result");
		rc = ERROR_INVALID;
		goto done;
	}
	r = l->rtc_ltoir_size(prog, &n);
	if (r == CUDA_NVRTC_SUCCESS) {
		*ir = mem_alloc(n ? n : 1);
		if (!*ir) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			goto done;
		}
		r = l->rtc_ltoir(prog, *ir);
		*ir_len = n;
	}
	if (r != CUDA_NVRTC_SUCCESS) {
		mem_free(*ir);
		*ir = NULL;
		rc = error_set(err, ERROR_INTERNAL, "cannot read LTO-IR: %s",
			       l->rtc_error_string(r));
	}
done:
	mem_free(text);
	l->rtc_destroy(&prog);
	return rc;
}

/* Read one of nvJitLink's logs (info or error) into the log buffer. */
static char *
jl_log(const struct cuda_libs *l, cuda_jitlink_handle h, int error_log)
{
	size_t n = 0;
	char *text;

	if ((error_log ? l->jl_error_log_size(h, &n)
		       : l->jl_info_log_size(h, &n)) != CUDA_JITLINK_SUCCESS ||
	    n <= 1)
		return NULL;
	text = mem_alloc(n);
	if (text && (error_log ? l->jl_error_log(h, text)
			       : l->jl_info_log(h, text)) != CUDA_JITLINK_SUCCESS) {
		mem_free(text);
		text = NULL;
	}
	return text;
}

/* nvJitLink: LTO-IR to a cubin for sm_XX. */
static int
link_cubin(const struct cuda_libs *l, const char *ir, size_t ir_len,
	   const char **opts, unsigned n_opts, int sm, void **cubin,
	   size_t *cubin_len, struct buf *log, struct error *err)
{
	cuda_jitlink_handle h = NULL;
	cuda_jitlink_result j;
	char *info = NULL, *elog = NULL, head[64];
	size_t n = 0;
	int rc = 0;

	j = l->jl_create(&h, n_opts, opts);
	if (j != CUDA_JITLINK_SUCCESS)
		return error_set(err, ERROR_INTERNAL,
				 "nvJitLinkCreate failed with code %d for sm_%d",
				 (int)j, sm);
	j = l->jl_add_data(h, CUDA_JITLINK_INPUT_LTOIR, ir, ir_len,
			   "ripple_smoke");
	if (j == CUDA_JITLINK_SUCCESS)
		j = l->jl_complete(h);
	info = jl_log(l, h, 0);
	elog = jl_log(l, h, 1);
	snprintf(head, sizeof(head), "nvjitlink (sm_%d)", sm);
	log_add(log, head, info);
	log_add(log, head, elog);
	if (j != CUDA_JITLINK_SUCCESS) {
		error_set(err, ERROR_INVALID,
			  "nvjitlink cannot link for sm_%d (code %d): %s", sm,
			  (int)j, elog ? elog : info ? info : "(no log)");
		rc = ERROR_INVALID;
		goto done;
	}
	j = l->jl_cubin_size(h, &n);
	if (j == CUDA_JITLINK_SUCCESS) {
		*cubin = mem_alloc(n ? n : 1);
		if (!*cubin) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			goto done;
		}
		j = l->jl_cubin(h, *cubin);
		*cubin_len = n;
	}
	if (j != CUDA_JITLINK_SUCCESS) {
		mem_free(*cubin);
		*cubin = NULL;
		rc = error_set(err, ERROR_INTERNAL,
			       "cannot read the linked cubin (code %d)", (int)j);
	}
done:
	mem_free(info);
	mem_free(elog);
	l->jl_destroy(&h);
	return rc;
}

/* Build (or fetch) the cubin of one architecture. */
static int
build_one(const struct cuda_libs *l, const struct cuda_smoke_options *opt,
	  const char *src, const char *vers, struct cuda_smoke_build *b,
	  void **cubin, size_t *cubin_len, struct buf *log, struct error *err)
{
	char rtc_arch[48], jl_arch[48];
	const char *rtc_opts[2], *jl_opts[2];
	unsigned char key[CUDA_KEY_BYTES];
	char *ir = NULL;
	size_t ir_len = 0;
	double t0;
	int rc;

	snprintf(rtc_arch, sizeof(rtc_arch), "--gpu-architecture=compute_%d",
		 b->sm);
	snprintf(jl_arch, sizeof(jl_arch), "-arch=sm_%d", b->sm);
	rtc_opts[0] = rtc_arch;
	rtc_opts[1] = "-dlto";
	jl_opts[0] = "-lto";
	jl_opts[1] = jl_arch;
	rc = cubin_key(src, rtc_opts, 2, jl_opts, 2, b->sm, vers, key, err);
	if (rc)
		return rc;
	cuda_key_hex(key, b->key);
	if (opt->store) {
		t0 = now_ms();
		rc = opt->store->get(opt->store->payload, key, cubin,
				     cubin_len, err);
		b->lookup_ms = now_ms() - t0;
		if (rc < 0)
			return rc;
		if (rc == 1) {
			b->cache_hit = 1;
			b->cubin_bytes = *cubin_len;
			return 0;
		}
	}
	t0 = now_ms();
	rc = compile_ltoir(l, src, rtc_opts, 2, b->sm, &ir, &ir_len, log, err);
	b->compile_ms = now_ms() - t0;
	if (rc)
		return rc;
	b->ltoir_bytes = ir_len;
	t0 = now_ms();
	rc = link_cubin(l, ir, ir_len, jl_opts, 2, b->sm, cubin, cubin_len,
			log, err);
	b->link_ms = now_ms() - t0;
	mem_free(ir);
	if (rc)
		return rc;
	b->cubin_bytes = *cubin_len;
	if (opt->store) {
		char arch[16];

		snprintf(arch, sizeof(arch), "sm_%d", b->sm);
		rc = opt->store->put(opt->store->payload, key, arch, *cubin,
				     *cubin_len, err);
	}
	return rc;
}

/* Launch saxpy on n elements with the cubin, check each element. */
static int
launch_check(const struct cuda_libs *l, const struct cuda_smoke_options *opt,
	     const void *cubin, struct cuda_smoke_result *res,
	     struct error *err)
{
	const char *kname = opt->kernel ? opt->kernel : "ripple_saxpy";
	int n = (int)res->n_elements, i, rc = 0;
	float a = 3.0f, *hx = NULL, *hy = NULL;
	size_t bytes = (size_t)n * sizeof(float);
	struct cuda_launch run;

	hx = mem_alloc(bytes);
	hy = mem_alloc(bytes);
	if (!hx || !hy) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < n; i++) {
		hx[i] = (float)i;
		hy[i] = 1.0f;
	}
	rc = cuda_launch_saxpy(l, opt->device, cubin, kname, n, a, hx, hy,
			       &run, err);
	res->launch_api = run.api;
	res->launched = run.launched;
	res->load_ms = run.load_ms;
	res->launch_ms = run.launch_ms;
	if (rc)
		goto done;
	for (i = 0; i < n; i++) {
		float want = a * (float)i + 1.0f;

		if (hy[i] != want && res->mismatches++ == 0)
			snprintf(res->reason, sizeof(res->reason),
				 "element %d is %g, expected %g", i,
				 (double)hy[i], (double)want);
	}
	if (res->mismatches) {
		rc = error_set(err, ERROR_INTERNAL,
			       "%zu of %d elements are wrong; first: %s",
			       res->mismatches, n, res->reason);
		goto done;
	}
	res->verified = 1;
done:
	mem_free(hy);
	mem_free(hx);
	return rc;
}

/* Decide the architectures and whether a launch can happen. */
static int
plan_archs(const struct cuda_libs *l, const struct cuda_smoke_options *opt,
	   struct cuda_smoke_result *res, struct error *err)
{
	int count = 0, major = 0, minor = 0, sm = 0;
	size_t i, j;
	cuda_rt_error c = CUDA_RT_SUCCESS;

	if (opt->no_launch) {
		snprintf(res->reason, sizeof(res->reason),
			 "launch not requested");
	} else if ((c = l->rt_device_count(&count)) != CUDA_RT_SUCCESS ||
		   count <= opt->device || opt->device < 0) {
		if (c != CUDA_RT_SUCCESS)
			snprintf(res->reason, sizeof(res->reason),
				 "no GPU here (%s: %s)", l->rt_error_name(c),
				 l->rt_error_string(c));
		else
			snprintf(res->reason, sizeof(res->reason),
				 "no GPU with index %d here (%d found)",
				 opt->device, count);
		l->rt_last_error();
	} else {
		c = l->rt_device_attribute(&major,
			CUDA_RT_ATTR_CC_MAJOR, opt->device);
		if (c == CUDA_RT_SUCCESS)
			c = l->rt_device_attribute(&minor,
				CUDA_RT_ATTR_CC_MINOR, opt->device);
		if (c != CUDA_RT_SUCCESS)
			return error_set(err, ERROR_INTERNAL,
					 "cudaDeviceGetAttribute failed: %s "
					 "(%s)", l->rt_error_name(c),
					 l->rt_error_string(c));
		sm = major * 10 + minor;
		res->builds[res->n_builds++].sm = sm;
		res->launch_sm = sm;
	}
	for (i = 0; i < opt->n_archs; i++) {
		for (j = 0; j < res->n_builds; j++)
			if (res->builds[j].sm == opt->archs[i])
				break;
		if (j < res->n_builds)
			continue;
		if (res->n_builds == CUDA_SMOKE_MAX_ARCHS)
			return error_set(err, ERROR_INVALID,
					 "more than %d architectures",
					 CUDA_SMOKE_MAX_ARCHS);
		if (opt->archs[i] < 50 || opt->archs[i] > 1299)
			return error_set(err, ERROR_INVALID,
					 "unknown architecture 'sm_%d'",
					 opt->archs[i]);
		res->builds[res->n_builds++].sm = opt->archs[i];
	}
	if (!res->n_builds)
		res->builds[res->n_builds++].sm = 90;
	return 0;
}

int
cuda_smoke_run(const struct cuda_libs *libs,
	       const struct cuda_smoke_options *opt,
	       struct cuda_smoke_result *res, struct error *err)
{
	const char *src = opt->source ? opt->source : default_source;
	struct buf log = BUF_INIT;
	void *cubin = NULL, *launch_cubin = NULL;
	size_t len = 0, i;
	int rmaj = 0, rmin = 0, rc;
	unsigned jmaj = 0, jmin = 0;
	char vers[64];
	double t0 = now_ms();

	memset(res, 0, sizeof(*res));
	res->n_elements = opt->n ? opt->n : (size_t)1 << 20;
	if (res->n_elements > (size_t)1 << 28)
		return error_set(err, ERROR_INVALID,
				 "too many elements: %zu", res->n_elements);
	libs->rtc_version(&rmaj, &rmin);
	libs->jl_version(&jmaj, &jmin);
	snprintf(vers, sizeof(vers), "nvrtc=%d.%d nvjitlink=%u.%u", rmaj, rmin,
		 jmaj, jmin);
	rc = plan_archs(libs, opt, res, err);
	for (i = 0; !rc && i < res->n_builds; i++) {
		struct cuda_smoke_build *b = &res->builds[i];

		rc = build_one(libs, opt, src, vers, b, &cubin, &len, &log,
			       err);
		res->compile_ms += b->compile_ms;
		res->link_ms += b->link_ms;
		res->lookup_ms += b->lookup_ms;
		res->cache_hits += b->cache_hit;
		if (!rc && b->sm == res->launch_sm && !launch_cubin) {
			launch_cubin = cubin;
			cubin = NULL;
		}
		mem_free(cubin);
		cubin = NULL;
	}
	if (!rc)
		res->compiled = res->linked = 1;
	if (!rc && res->launch_sm)
		rc = launch_check(libs, opt, launch_cubin, res, err);
	if (!rc && !res->launch_sm)
		res->deferred = 1;
	mem_free(launch_cubin);
	res->total_ms = now_ms() - t0;
	if (log.len)
		res->log = buf_detach(&log);
	buf_release(&log);
	if (rc) {
		res->status = CUDA_SMOKE_FAILED;
		if (!res->reason[0] && err)
			snprintf(res->reason, sizeof(res->reason), "%.255s",
				 err->msg);
		return rc;
	}
	res->status = res->deferred ? CUDA_SMOKE_DEFERRED : CUDA_SMOKE_PASSED;
	if (res->status == CUDA_SMOKE_PASSED)
		res->reason[0] = '\0';
	return 0;
}
