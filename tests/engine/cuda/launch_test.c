/*
 * Suite engine_cuda_launch: the two ways a cubin is launched (cudart's
 * library API from CUDA 12.5, the driver's module API before), a toolkit
 * without the library API probed as a toolkit, two majors in one process,
 * and the toolkits, devices, cuda-smoke and run commands on them. Runs on
 * every machine: the toolkits are the fakes built next to ripple
 * (fake_cuda.c), whose "GPU" computes on the CPU.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "engine/cuda/load.h"
#include "engine/cuda/probe.h"
#include "engine/cuda/smoke.h"
#include "tests/support/support.h"

/* Open a fake toolkit; the fakes are built with the tests. */
static struct cuda_libs *
open_fake(const char *version)
{
	char *h = t_fake_cuda_home(version);
	struct cuda_libs *libs = NULL;
	struct error err;

	error_init(&err);
	cr_assert_eq(cuda_libs_open(h, &libs, &err), 0,
		     "%s (build the fakes: ninja fake-cuda)", err.msg);
	free(h);
	return libs;
}

static int
smoke(struct cuda_libs *libs, const char *source,
      struct cuda_smoke_result *r, struct error *err)
{
	struct cuda_smoke_options o;

	memset(&o, 0, sizeof(o));
	o.source = source;
	o.n = 5000;		/* not a multiple of the block */
	error_init(err);
	return cuda_smoke_run(libs, &o, r, err);
}

Test(engine_cuda_launch, a_runtime_without_the_library_api_is_a_toolkit)
{
	struct cuda_libs *libs = open_fake("12.4");
	struct cuda_toolkit_info in;
	struct error err;

	cr_expect_eq(libs->rt_library_load, NULL);
	cr_expect_neq(libs->drv_launch, NULL);
	cr_expect_str_eq(cuda_libs_launch_api(libs), "driver module API");
	error_init(&err);
	cr_assert_eq(cuda_toolkit_probe(libs, "ctk12", "12.4.1", &in, &err),
		     0, "%s", err.msg);
	cr_expect_str_eq(in.identity_text, "cudart=12.4\nnvjitlink=12.4\n"
					   "nvrtc=12.4\npin=12.4.1\n");
	cr_expect_eq(cuda_toolkit_pin_check(&in, &err), 0, "%s", err.msg);
	cuda_toolkit_info_release(&in);
	cuda_libs_close(libs);
}

Test(engine_cuda_launch, old_runtime_launches_through_the_driver)
{
	struct cuda_libs *libs = open_fake("12.4");
	struct cuda_smoke_result r;
	struct error err;

	cr_assert_eq(smoke(libs, NULL, &r, &err), 0, "%s", err.msg);
	cr_expect_eq(r.status, CUDA_SMOKE_PASSED, "%s", r.reason);
	cr_expect(r.launched && r.verified);
	cr_expect_eq(r.mismatches, 0);
	cr_expect_eq(r.launch_sm, 90);
	cr_expect_str_eq(r.launch_api, "driver module API");
	cuda_smoke_result_release(&r);
	cuda_libs_close(libs);
}

Test(engine_cuda_launch, new_runtime_launches_through_its_library_api)
{
	struct cuda_libs *libs = open_fake("13.0");
	struct cuda_smoke_result r;
	struct error err;

	cr_expect_eq(libs->drv_launch, NULL);
	cr_assert_eq(smoke(libs, NULL, &r, &err), 0, "%s", err.msg);
	cr_expect_eq(r.status, CUDA_SMOKE_PASSED, "%s", r.reason);
	cr_expect(r.launched && r.verified);
	cr_expect_str_eq(r.launch_api, "runtime library API");
	cuda_smoke_result_release(&r);
	cuda_libs_close(libs);
}

Test(engine_cuda_launch, a_wrong_kernel_fails_on_either_path)
{
	static const char *const versions[] = { "12.4", "13.0" };
	/* every block writes the first 256 elements: the rest stay wrong */
	const char *src = "extern \"C\" __global__ void ripple_saxpy(int n, "
			  "float a, const float *x, float *y)\n"
			  "{ int i = threadIdx.x; if (i < n) "
			  "y[i] = a * x[i] + y[i]; }\n";
	size_t v;

	for (v = 0; v < 2; v++) {
		struct cuda_libs *libs = open_fake(versions[v]);
		struct cuda_smoke_result r;
		struct error err;

		cr_expect_eq(smoke(libs, src, &r, &err), ERROR_INTERNAL,
			     "%s", versions[v]);
		cr_expect_eq(r.status, CUDA_SMOKE_FAILED);
		cr_expect(r.launched);
		cr_expect_not(r.verified);
		cr_expect_gt(r.mismatches, 0);
		cr_expect(strstr(err.msg, "elements are wrong"), "%s", err.msg);
		cuda_smoke_result_release(&r);
		cuda_libs_close(libs);
	}
}

Test(engine_cuda_launch, two_majors_in_one_process_each_launch)
{
	struct cuda_libs *a = open_fake("12.4"), *b = open_fake("13.0");
	struct cuda_toolkit_info ia, ib;
	struct cuda_smoke_result ra, rb;
	struct error err;

	error_init(&err);
	cr_assert_eq(cuda_toolkit_probe(a, NULL, NULL, &ia, &err), 0);
	cr_assert_eq(cuda_toolkit_probe(b, NULL, NULL, &ib, &err), 0);
	cr_expect_eq(ia.nvrtc_major, 12);
	cr_expect_eq(ib.nvrtc_major, 13);
	cr_expect_eq(ia.cudart_version, 12040);
	cr_expect_eq(ib.cudart_version, 13000);
	cr_assert_eq(smoke(a, NULL, &ra, &err), 0, "%s", err.msg);
	cr_assert_eq(smoke(b, NULL, &rb, &err), 0, "%s", err.msg);
	cr_expect_eq(ra.status, CUDA_SMOKE_PASSED);
	cr_expect_eq(rb.status, CUDA_SMOKE_PASSED);
	cr_expect_str_neq(ra.launch_api, rb.launch_api);
	/* the versions are part of the cubin key */
	cr_expect_str_neq(ra.builds[0].key, rb.builds[0].key);
	cuda_smoke_result_release(&ra);
	cuda_smoke_result_release(&rb);
	cuda_toolkit_info_release(&ia);
	cuda_toolkit_info_release(&ib);
	cuda_libs_close(a);
	cuda_libs_close(b);
}

Test(engine_cuda_launch, no_gpu_defers_and_never_passes)
{
	struct cuda_libs *libs;
	struct cuda_devices devs;
	struct cuda_smoke_result r;
	struct error err;

	setenv("RIPPLE_FAKE_CUDA_DEVICES", "0", 1);
	libs = open_fake("12.4");
	error_init(&err);
	cr_assert_eq(cuda_devices_list(libs, &devs, &err), 0, "%s", err.msg);
	cr_expect_eq(devs.n, 0);
	cr_expect(strstr(devs.reason, "cudaErrorNoDevice"), "%s", devs.reason);
	cr_assert_eq(smoke(libs, NULL, &r, &err), 0, "%s", err.msg);
	cr_expect_eq(r.status, CUDA_SMOKE_DEFERRED);
	cr_expect_not(r.launched);
	cr_expect_not(r.verified);
	cr_expect(strstr(r.reason, "no GPU"), "%s", r.reason);
	cuda_smoke_result_release(&r);
	cuda_devices_release(&devs);
	cuda_libs_close(libs);
}

Test(engine_cuda_launch, devices_are_listed_through_either_runtime)
{
	static const char *const versions[] = { "12.4", "13.0" };
	size_t v;

	for (v = 0; v < 2; v++) {
		struct cuda_libs *libs = open_fake(versions[v]);
		struct cuda_devices devs;
		struct error err;
		char want[64];

		error_init(&err);
		cr_assert_eq(cuda_devices_list(libs, &devs, &err), 0, "%s",
			     err.msg);
		cr_assert_eq(devs.n, 1);
		snprintf(want, sizeof(want), "Fake CUDA %s GPU", versions[v]);
		cr_expect_str_eq(devs.items[0].name, want);
		cr_expect_eq(devs.items[0].cc_major, 9);
		cr_expect_eq(devs.items[0].memory_mib, 80 * 1024);
		cuda_devices_release(&devs);
		cuda_libs_close(libs);
	}
}

/* A repository whose two toolkits are the fakes, pinned to PIN12, 13.0. */
static char *
fake_repo(const char *pin12)
{
	char *dir = t_git_init(), *h12 = t_fake_cuda_home("12.4");
	char *h13 = t_fake_cuda_home("13.0"), rules[4096];

	snprintf(rules, sizeof(rules),
		 "version: 1\n"
		 "toolkits:\n"
		 "  ctk12: {version: \"%s\", home: %s}\n"
		 "  ctk13: {version: \"13.0.0\", home: %s}\n"
		 "tests:\n"
		 "  smoke-12: {toolkit: ctk12, builtin: cuda-smoke, "
		 "gpu: {count: 1}}\n"
		 "  smoke-13: {toolkit: ctk13, builtin: cuda-smoke, "
		 "gpu: {count: 1}}\n", pin12, h12, h13);
	t_write(dir, "ripple.yml", rules);
	t_write(dir, ".gitignore", ".ripple/\n");
	cr_assert_eq(t_git_commit(dir, "two toolkits"), 0);
	/* ripple run finds its GPUs through $CUDA_HOME */
	setenv("CUDA_HOME", h13, 1);
	free(h12);
	free(h13);
	return dir;
}

Test(engine_cuda_launch, cli_toolkits_lists_both_majors_in_one_process)
{
	const char *argv[] = { "toolkits", NULL };
	char *dir = fake_repo("12.4.1");
	struct run_result r = t_ripple(dir, argv);

	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "ctk12  "), "%s", r.out);
	cr_expect(strstr(r.out, "ctk13  "), "%s", r.out);
	cr_expect(strstr(r.out, "nvrtc      12.4"), "%s", r.out);
	cr_expect(strstr(r.out, "nvrtc      13.0"), "%s", r.out);
	cr_expect(strstr(r.out, "launch     driver module API"), "%s", r.out);
	cr_expect(strstr(r.out, "launch     runtime library API"), "%s",
		  r.out);
	cr_expect_not(strstr(r.out, "NOT FOUND"), "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(engine_cuda_launch, cli_toolkits_reports_a_pin_the_probe_disagrees_with)
{
	const char *argv[] = { "toolkits", NULL };
	char *dir = fake_repo("12.9.1");
	struct run_result r = t_ripple(dir, argv);

	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "toolkit 'ctk12' is pinned to 12.9.1 but "),
		  "%s", r.err);
	cr_expect(strstr(r.err, "fake-cuda-12.4 has NVRTC 12.4"), "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(engine_cuda_launch, cli_smoke_passes_on_both_majors)
{
	static const char *const versions[] = { "12.4", "13.0" };
	size_t v;

	for (v = 0; v < 2; v++) {
		char *h = t_fake_cuda_home(versions[v]), *dir = t_tmpdir();
		const char *argv[] = { "cuda-smoke", "--home", h, "--no-cache",
				       NULL };
		struct run_result r = t_ripple(dir, argv);

		cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
		cr_expect(strstr(r.out, "cuda-smoke: passed"), "%s", r.out);
		cr_expect(strstr(r.out, "verified  every element"), "%s",
			  r.out);
		t_result_release(&r);
		t_rmtree(dir);
		free(dir);
		free(h);
	}
}

Test(engine_cuda_launch, run_passes_both_lines_smoke_tests_on_the_gpu)
{
	const char *argv[] = { "run", "--json", NULL };
	char *dir = fake_repo("12.4.1"), *log;
	struct run_result r = t_ripple(dir, argv);
	json_t *doc, *nodes, *n, *sum;
	json_error_t jerr;
	size_t i;

	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	doc = json_loads(r.out, 0, &jerr);
	cr_assert(doc, "%s", jerr.text);
	sum = json_object_get(doc, "counts");
	cr_expect_eq(json_integer_value(json_object_get(sum, "ok")), 2);
	cr_expect_eq(json_integer_value(json_object_get(sum, "deferred")), 0);
	nodes = json_object_get(doc, "nodes");
	cr_assert_eq(json_array_size(nodes), 2);
	json_array_foreach(nodes, i, n) {
		const char *id = json_string_value(json_object_get(n, "id"));

		cr_expect_str_eq(json_string_value(json_object_get(n,
				 "status")), "ok", "%s", id);
		/* the node's log is cuda-smoke's JSON: launched, verified */
		log = t_read(json_string_value(json_object_get(n, "log")));
		cr_assert(log, "%s", id);
		cr_expect(strstr(log, "\"status\": \"passed\""), "%s", log);
		cr_expect(strstr(log, "\"verified\": true"), "%s", log);
		cr_expect(strstr(log, i ? "runtime library API"
					 : "driver module API"), "%s", log);
		free(log);
	}
	json_decref(doc);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
