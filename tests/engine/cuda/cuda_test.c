/*
 * Suites for engine/cuda/: loading a toolkit, its identity and pin check,
 * version.json, the cubin stores, cuda-smoke (compile, link, cache, deferred
 * launch) and the toolkits/devices/cuda-smoke commands. Tests that need a
 * real toolkit use $CUDA_HOME or /usr/local/cuda and skip, saying why, when
 * it is absent; the fake toolkits built next to ripple (fake_cuda.c, a
 * "GPU" on the CPU) test the launch paths on every machine.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "engine/cuda/load.h"
#include "engine/cuda/probe.h"
#include "engine/cuda/smoke.h"
#include "engine/cuda/store.h"
#include "tests/support/support.h"

static const char *
home(void)
{
	const char *h = getenv("CUDA_HOME");

	return h && h[0] ? h : "/usr/local/cuda";
}

/* Open the machine's toolkit or skip the test. */
static struct cuda_libs *
open_or_skip(void)
{
	struct cuda_libs *libs = NULL;
	struct error err;

	error_init(&err);
	if (cuda_libs_open(home(), &libs, &err))
		cr_skip_test("no CUDA toolkit at %s: %s", home(), err.msg);
	return libs;
}

Test(engine_cuda, missing_home_fails_naming_it)
{
	struct cuda_libs *libs = (struct cuda_libs *)1;
	struct error err;
	int rc;

	error_init(&err);
	rc = cuda_libs_open("/nonexistent/cuda-99.9", &libs, &err);
	cr_expect_eq(libs, NULL);
	cr_expect_eq(rc, ERROR_NOT_FOUND);
	cr_expect(strstr(err.msg, "/nonexistent/cuda-99.9"), "%s", err.msg);
	cr_expect(strstr(err.msg, "does not exist"), "%s", err.msg);
}

Test(engine_cuda, home_without_libraries_names_paths_tried)
{
	char *dir = t_tmpdir();
	struct cuda_libs *libs = NULL;
	struct error err;

	t_write(dir, "lib64/README", "no libraries here\n");
	error_init(&err);
	cr_expect_eq(cuda_libs_open(dir, &libs, &err), ERROR_NOT_FOUND);
	cr_expect(strstr(err.msg, "no NVRTC"), "%s", err.msg);
	cr_expect(strstr(err.msg, "/lib64"), "%s", err.msg);
	cr_expect(strstr(err.msg, "/targets/"), "%s", err.msg);
	cr_expect(strstr(err.msg, "/lib/x86_64-linux-gnu") ||
		  strstr(err.msg, "/lib/aarch64-linux-gnu"), "%s", err.msg);
	cr_expect(strstr(err.msg, "libnvrtc.so.13"), "%s", err.msg);
	cr_expect(strstr(err.msg, "libnvrtc.so.12"), "%s", err.msg);
	t_rmtree(dir);
	free(dir);
}

Test(engine_cuda, version_json_is_read_sorted_from_a_fake_home)
{
	char *dir = t_tmpdir();
	struct cuda_pair *p = NULL;
	struct error err;
	size_t n = 9;

	t_write(dir, "version.json",
		"{\"cuda_nvrtc\": {\"name\": \"NVRTC\", \"version\": \"12.9.86\"},\n"
		" \"cuda\": {\"name\": \"CUDA SDK\", \"version\": \"12.9.1\"},\n"
		" \"cuda_cudart\": {\"version\": \"12.9.79\"},\n"
		" \"nsight\": {\"name\": \"no version here\"}}\n");
	error_init(&err);
	cr_assert_eq(cuda_version_json_read(dir, &p, &n, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(n, 3);
	cr_expect_str_eq(p[0].name, "cuda");
	cr_expect_str_eq(p[0].value, "12.9.1");
	cr_expect_str_eq(p[1].name, "cuda_cudart");
	cr_expect_str_eq(p[1].value, "12.9.79");
	cr_expect_str_eq(p[2].name, "cuda_nvrtc");
	cr_expect_str_eq(p[2].value, "12.9.86");
	cuda_pairs_free(p, n);
	t_rmtree(dir);
	free(dir);
}

Test(engine_cuda, version_json_absent_is_empty_and_malformed_is_corrupt)
{
	char *dir = t_tmpdir();
	struct cuda_pair *p = NULL;
	struct error err;
	size_t n = 9;

	error_init(&err);
	cr_expect_eq(cuda_version_json_read(dir, &p, &n, &err), 0);
	cr_expect_eq(n, 0);
	cr_expect_eq(p, NULL);
	t_write(dir, "version.json", "{\"cuda\": {\"version\": \n");
	cr_expect_eq(cuda_version_json_read(dir, &p, &n, &err), ERROR_CORRUPT);
	cr_expect(strstr(err.file, "version.json"), "%s", err.file);
	cr_expect_eq(n, 0);
	t_rmtree(dir);
	free(dir);
}

/* A probed info as if NVRTC, nvJitLink and cudart reported M.m. */
static void
fake_info(struct cuda_toolkit_info *in, const char *pin, int major,
	  int minor)
{
	memset(in, 0, sizeof(*in));
	in->name = (char *)"ctk12";
	in->pin = (char *)pin;
	in->home = (char *)"/usr/local/cuda-12.9";
	in->nvrtc_major = in->nvjitlink_major = major;
	in->nvrtc_minor = in->nvjitlink_minor = minor;
	in->cudart_version = major * 1000 + minor * 10;
}

Test(engine_cuda, pin_mismatch_is_a_conflict_naming_both)
{
	struct cuda_toolkit_info in;
	struct error err;

	fake_info(&in, "12.9.1", 12, 8);
	error_init(&err);
	cr_expect_eq(cuda_toolkit_pin_check(&in, &err), ERROR_CONFLICT);
	cr_expect_str_eq(err.msg, "toolkit 'ctk12' is pinned to 12.9.1 but "
				  "/usr/local/cuda-12.9 has NVRTC 12.8");

	fake_info(&in, "12.9.1", 12, 9);
	error_init(&err);
	cr_expect_eq(cuda_toolkit_pin_check(&in, &err), 0, "%s", err.msg);

	fake_info(&in, "12.9.1", 12, 9);
	in.nvjitlink_minor = 6;
	error_init(&err);
	cr_expect_eq(cuda_toolkit_pin_check(&in, &err), ERROR_CONFLICT);
	cr_expect(strstr(err.msg, "nvJitLink 12.6"), "%s", err.msg);

	fake_info(&in, "12.9", 13, 0);
	error_init(&err);
	cr_expect_eq(cuda_toolkit_pin_check(&in, &err), ERROR_CONFLICT);

	fake_info(&in, "twelve", 12, 9);
	error_init(&err);
	cr_expect_eq(cuda_toolkit_pin_check(&in, &err), ERROR_INVALID);
}

Test(engine_cuda, pin_is_checked_against_version_json_patch)
{
	struct cuda_pair comp = { (char *)"cuda", (char *)"12.9.0" };
	struct cuda_toolkit_info in;
	struct error err;

	fake_info(&in, "12.9.1", 12, 9);
	in.components = &comp;
	in.n_components = 1;
	error_init(&err);
	cr_expect_eq(cuda_toolkit_pin_check(&in, &err), ERROR_CONFLICT);
	cr_expect(strstr(err.msg, "CUDA 12.9.0 (version.json)"), "%s",
		  err.msg);
	comp.value = (char *)"12.9.1";
	error_init(&err);
	cr_expect_eq(cuda_toolkit_pin_check(&in, &err), 0, "%s", err.msg);
}

Test(engine_cuda, probe_reports_versions_and_a_sorted_identity)
{
	struct cuda_libs *libs = open_or_skip();
	struct cuda_toolkit_info in;
	struct error err;
	size_t i;

	error_init(&err);
	cr_assert_eq(cuda_toolkit_probe(libs, "ctk", "9.9.9", &in, &err), 0,
		     "%s", err.msg);
	cr_expect_geq(in.nvrtc_major, 11);
	cr_expect_eq(in.nvrtc_major, in.nvjitlink_major);
	cr_expect_eq(in.cudart_version / 1000, in.nvrtc_major);
	cr_expect(strstr(in.nvrtc_path, "libnvrtc.so"), "%s", in.nvrtc_path);
	cr_assert_geq(in.n_identity, 4);
	for (i = 1; i < in.n_identity; i++)
		cr_expect_lt(strcmp(in.identity[i - 1].name,
				    in.identity[i].name), 0);
	cr_expect(strstr(in.identity_text, "pin=9.9.9\n"), "%s",
		  in.identity_text);
	cr_expect(strstr(in.identity_text, "\nnvrtc="), "%s",
		  in.identity_text);
	/* the probe does not check the pin; the check does */
	cr_expect_eq(cuda_toolkit_pin_check(&in, &err), ERROR_CONFLICT);
	cuda_toolkit_info_release(&in);
	cuda_libs_close(libs);
}

Test(engine_cuda, two_handles_on_one_process_are_independent)
{
	struct cuda_libs *a = open_or_skip(), *b = NULL;
	struct cuda_toolkit_info ia, ib;
	struct error err;

	error_init(&err);
	cr_assert_eq(cuda_libs_open(home(), &b, &err), 0, "%s", err.msg);
	cr_assert_eq(cuda_toolkit_probe(a, NULL, NULL, &ia, &err), 0);
	cuda_libs_close(a);
	cr_assert_eq(cuda_toolkit_probe(b, NULL, NULL, &ib, &err), 0);
	cr_expect_str_eq(ia.identity_text, ib.identity_text);
	cuda_toolkit_info_release(&ia);
	cuda_toolkit_info_release(&ib);
	cuda_libs_close(b);
}

Test(engine_cuda, compile_and_link_succeed_and_launch_is_deferred)
{
	struct cuda_libs *libs = open_or_skip();
	struct cuda_smoke_options o;
	struct cuda_smoke_result r;
	struct error err;
	int archs[] = { 90, 80 };

	memset(&o, 0, sizeof(o));
	o.archs = archs;
	o.n_archs = 2;
	o.no_launch = 1;
	error_init(&err);
	cr_assert_eq(cuda_smoke_run(libs, &o, &r, &err), 0, "%s", err.msg);
	cr_expect_eq(r.status, CUDA_SMOKE_DEFERRED);
	cr_expect(r.compiled && r.linked);
	cr_expect(r.deferred);
	cr_expect_not(r.launched);
	cr_expect_not(r.verified);
	cr_assert_eq(r.n_builds, 2);
	cr_expect_eq(r.builds[0].sm, 90);
	cr_expect_eq(r.builds[1].sm, 80);
	cr_expect_gt(r.builds[0].cubin_bytes, 0);
	cr_expect_gt(r.builds[0].ltoir_bytes, 0);
	cr_expect_str_neq(r.builds[0].key, r.builds[1].key);
	cr_expect_str_eq(cuda_smoke_status_name(r.status), "deferred");
	cuda_smoke_result_release(&r);
	cuda_libs_close(libs);
}

Test(engine_cuda, without_a_gpu_the_launch_is_never_passed)
{
	struct cuda_libs *libs = open_or_skip();
	struct cuda_devices devs;
	struct cuda_smoke_options o;
	struct cuda_smoke_result r;
	struct error err;

	error_init(&err);
	cr_assert_eq(cuda_devices_list(libs, &devs, &err), 0, "%s", err.msg);
	if (devs.n)
		cr_expect_eq(devs.reason[0], '\0');
	else
		cr_expect_neq(devs.reason[0], '\0');
	memset(&o, 0, sizeof(o));
	o.n = 4096;
	cr_assert_eq(cuda_smoke_run(libs, &o, &r, &err), 0, "%s", err.msg);
	if (devs.n) {
		cr_expect_eq(r.status, CUDA_SMOKE_PASSED);
		cr_expect(r.launched && r.verified);
	} else {
		cr_expect_eq(r.status, CUDA_SMOKE_DEFERRED);
		cr_expect_not(r.launched);
		cr_expect_not(r.verified);
		cr_expect(strstr(r.reason, "no GPU"), "%s", r.reason);
	}
	cuda_smoke_result_release(&r);
	cuda_devices_release(&devs);
	cuda_libs_close(libs);
}

Test(engine_cuda, syntax_error_fails_with_nvrtc_log)
{
	struct cuda_libs *libs = open_or_skip();
	struct cuda_smoke_options o;
	struct cuda_smoke_result r;
	struct error err;

	memset(&o, 0, sizeof(o));
	o.source = "extern \"C\" __global__ void ripple_saxpy(int n {\n"
		   "\tthis is not C++;\n}\n";
	o.no_launch = 1;
	error_init(&err);
	cr_expect_eq(cuda_smoke_run(libs, &o, &r, &err), ERROR_INVALID);
	cr_expect_eq(r.status, CUDA_SMOKE_FAILED);
	cr_expect_not(r.compiled);
	cr_expect(strstr(err.msg, "nvrtc cannot compile"), "%s", err.msg);
	cr_expect(strstr(err.msg, "ripple_smoke.cu("), "%s", err.msg);
	cr_expect(strstr(err.msg, "error"), "%s", err.msg);
	cr_assert(r.log);
	cr_expect(strstr(r.log, "nvrtc (compute_90)"), "%s", r.log);
	cuda_smoke_result_release(&r);
	cuda_libs_close(libs);
}

Test(engine_cuda, cubin_cache_hits_on_the_second_run)
{
	struct cuda_libs *libs = open_or_skip();
	struct cuda_kernel_store *store = NULL;
	struct cuda_smoke_options o;
	struct cuda_smoke_result r1, r2, r3;
	struct error err;

	error_init(&err);
	cr_assert_eq(cuda_store_memory_new(&store, &err), 0);
	memset(&o, 0, sizeof(o));
	o.no_launch = 1;
	o.store = store;
	cr_assert_eq(cuda_smoke_run(libs, &o, &r1, &err), 0, "%s", err.msg);
	cr_assert_eq(cuda_smoke_run(libs, &o, &r2, &err), 0, "%s", err.msg);
	cr_expect_eq(r1.cache_hits, 0);
	cr_expect_eq(r1.builds[0].cache_hit, 0);
	cr_expect_eq(r2.cache_hits, 1);
	cr_expect_eq(r2.builds[0].cache_hit, 1);
	cr_expect_eq(r2.builds[0].ltoir_bytes, 0);
	cr_expect_eq(r2.builds[0].cubin_bytes, r1.builds[0].cubin_bytes);
	cr_expect_str_eq(r2.builds[0].key, r1.builds[0].key);
	cr_expect(r2.compiled && r2.linked);
	cr_expect_eq(r2.status, CUDA_SMOKE_DEFERRED);
	/* another source is another key: a miss */
	o.source = "extern \"C\" __global__ void ripple_saxpy(int n, float a,"
		   " const float *x, float *y)\n{ int i = threadIdx.x;"
		   " if (i < n) y[i] = a * x[i] + y[i]; }\n";
	cr_assert_eq(cuda_smoke_run(libs, &o, &r3, &err), 0, "%s", err.msg);
	cr_expect_eq(r3.cache_hits, 0);
	cr_expect_str_neq(r3.builds[0].key, r1.builds[0].key);
	cuda_smoke_result_release(&r1);
	cuda_smoke_result_release(&r2);
	cuda_smoke_result_release(&r3);
	cuda_store_memory_free(store);
	cuda_libs_close(libs);
}

Test(engine_cuda, directory_store_round_trips_and_misses)
{
	char *dir = t_tmpdir(), sub[4096], hex[33], path[4200], *text;
	struct cuda_kernel_store *s = NULL;
	unsigned char key[CUDA_KEY_BYTES] = { 0xab, 0x01 };
	void *data = NULL;
	size_t len = 0;
	struct error err;

	snprintf(sub, sizeof(sub), "%s/kernels", dir);
	error_init(&err);
	cr_assert_eq(cuda_store_dir_new(sub, &s, &err), 0, "%s", err.msg);
	cr_expect_eq(s->get(s->payload, key, &data, &len, &err), 0);
	cr_assert_eq(s->put(s->payload, key, "sm_90", "cubin!", 6, &err), 0);
	cr_expect_eq(s->get(s->payload, key, &data, &len, &err), 1);
	cr_expect_eq(len, 6);
	cr_expect_eq(memcmp(data, "cubin!", 6), 0);
	mem_free(data);
	snprintf(path, sizeof(path), "%s/%s.cubin", sub, cuda_key_hex(key, hex));
	cr_expect_str_eq(hex, "ab010000000000000000000000000000");
	text = t_read(path);
	cr_expect_str_eq(text, "cubin!");
	free(text);
	cuda_store_dir_free(s);
	t_rmtree(dir);
	free(dir);
}

Test(engine_cuda, memory_store_replaces_and_copies)
{
	struct cuda_kernel_store *s = NULL;
	unsigned char key[CUDA_KEY_BYTES] = { 1 };
	void *data = NULL;
	size_t len = 0;
	struct error err;

	error_init(&err);
	cr_assert_eq(cuda_store_memory_new(&s, &err), 0);
	cr_expect_eq(s->get(s->payload, key, &data, &len, &err), 0);
	cr_assert_eq(s->put(s->payload, key, "sm_90", "one", 3, &err), 0);
	cr_assert_eq(s->put(s->payload, key, "sm_90", "three", 5, &err), 0);
	cr_expect_eq(s->get(s->payload, key, &data, &len, &err), 1);
	cr_expect_eq(len, 5);
	cr_expect_eq(memcmp(data, "three", 5), 0);
	mem_free(data);
	cuda_store_memory_free(s);
}

Test(engine_cuda, cli_toolkits_lists_a_missing_home_plainly)
{
	const char *argv[] = { "toolkits", "--home", "/nonexistent/cuda",
			       "--json", NULL };
	struct run_result r = t_ripple(".", argv);

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\"found\": false"), "%s", r.out);
	cr_expect(strstr(r.out, "does not exist"), "%s", r.out);
	t_result_release(&r);
}

Test(engine_cuda, cli_smoke_without_launch_exits_4_deferred)
{
	const char *argv[] = { "cuda-smoke", "--no-launch", "--arch", "sm_90",
			       NULL };
	struct run_result r;
	struct cuda_libs *libs = open_or_skip();

	cuda_libs_close(libs);
	r = t_ripple(".", argv);
	cr_expect_eq(r.status, 4, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "cuda-smoke: deferred"), "%s", r.out);
	cr_expect(strstr(r.out, "sm_90"), "%s", r.out);
	t_result_release(&r);
}

Test(engine_cuda, cli_devices_exits_0_with_or_without_a_gpu)
{
	const char *argv[] = { "devices", NULL };
	const char *bad[] = { "devices", "--home", "/nonexistent/cuda", NULL };
	struct run_result r = t_ripple(".", argv);

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "driver:") || strstr(r.out, "no GPU"), "%s",
		  r.out);
	t_result_release(&r);
	r = t_ripple(".", bad);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "no GPU"), "%s", r.out);
	t_result_release(&r);
}

Test(engine_cuda, cli_smoke_rejects_a_bad_arch)
{
	const char *argv[] = { "cuda-smoke", "--arch", "volta", NULL };
	struct run_result r = t_ripple(".", argv);

	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "bad architecture 'volta'"), "%s", r.err);
	t_result_release(&r);
}
