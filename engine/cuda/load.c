/*
 * dlopen of NVRTC, nvJitLink and cudart from one toolkit home, and the
 * resolution of their entry points into a struct cuda_libs. Each toolkit
 * gets its own handles (RTLD_LOCAL), so several majors coexist in a process.
 */
#include "engine/cuda/load.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

#if defined(__x86_64__)
#define TARGET_DIR "targets/x86_64-linux/lib"
#define MULTIARCH_DIR "lib/x86_64-linux-gnu"
#elif defined(__aarch64__)
#define TARGET_DIR "targets/sbsa-linux/lib"
#define MULTIARCH_DIR "lib/aarch64-linux-gnu"
#else
#define TARGET_DIR "targets/unknown/lib"
#define MULTIARCH_DIR "lib/unknown-linux-gnu"
#endif

static const char *const lib_dirs[] = { "lib64", TARGET_DIR, "lib",
					MULTIARCH_DIR };
static const char *const lib_sufs[] = { ".so.13", ".so.12", ".so" };

/*
 * Find and dlopen HOME/DIR/BASE.SUF for the first DIR, SUF that exists.
 * Records the path in `path`. Fails naming every path tried.
 */
static int
open_lib(const char *home, const char *base, const char *what, void **dl,
	 char *path, struct error *err)
{
	char cand[CUDA_PATH_MAX], failed[256] = "";
	struct buf tried = BUF_INIT;
	struct stat st;
	size_t d, s;
	int rc;

	for (d = 0; d < sizeof(lib_dirs) / sizeof(lib_dirs[0]); d++) {
		for (s = 0; s < sizeof(lib_sufs) / sizeof(lib_sufs[0]); s++) {
			snprintf(cand, sizeof(cand), "%s/%s/%s%s", home,
				 lib_dirs[d], base, lib_sufs[s]);
			if (stat(cand, &st) != 0)
				continue;
			*dl = dlopen(cand, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
			if (*dl) {
				snprintf(path, CUDA_PATH_MAX, "%s", cand);
				return 0;
			}
			if (!failed[0]) {
				const char *m = dlerror();

				snprintf(failed, sizeof(failed), "%.255s",
					 m ? m : cand);
			}
		}
	}
	for (d = 0; d < sizeof(lib_dirs) / sizeof(lib_dirs[0]); d++)
		buf_addf(&tried, NULL, "%s%s/%s", d ? ", " : "", home,
			 lib_dirs[d]);
	if (failed[0])
		rc = error_set(err, ERROR_NOT_FOUND,
			       "cannot load %s from '%s': %s", what, home,
			       failed);
	else
		rc = error_set(err, ERROR_NOT_FOUND,
			       "no %s in toolkit home '%s' (tried %s for "
			       "%s.so.13, %s.so.12, %s.so)", what, home,
			       tried.data, base, base, base);
	buf_release(&tried);
	return rc;
}

/* Resolve the first of up to three names; NULL names are skipped. */
static void *
sym3(void *dl, const char *a, const char *b, const char *c)
{
	void *p = dlsym(dl, a);

	if (!p && b)
		p = dlsym(dl, b);
	if (!p && c)
		p = dlsym(dl, c);
	return p;
}

#define NEED(field, dl, path, a, b, c) do { \
	void *p_ = sym3((dl), (a), (b), (c)); \
	if (!p_) { \
		rc = error_set(err, ERROR_INTERNAL, \
			       "'%s' has no symbol '%s'", (path), (a)); \
		goto done; \
	} \
	memcpy(&(field), &p_, sizeof(p_)); \
} while (0)

/* nvJitLink exports plain names and __nvJitLinkX_<major>_0 ones. */
#define JL(field, name) \
	NEED(field, l->nvjitlink_dl, l->nvjitlink_path, "nvJitLink" name, \
	     "__nvJitLink" name "_13_0", "__nvJitLink" name "_12_0")
#define RTC(field, name) \
	NEED(field, l->nvrtc_dl, l->nvrtc_path, "nvrtc" name, NULL, NULL)
#define RT(field, name) \
	NEED(field, l->cudart_dl, l->cudart_path, "cuda" name, NULL, NULL)

/* Resolve an optional symbol into a function pointer field (NULL if none). */
#define MAYBE(field, dl, name) do { \
	void *p_ = dlsym((dl), (name)); \
	memcpy(&(field), &p_, sizeof(p_)); \
} while (0)

/*
 * NVRTC dlopens its builtins by soname (libnvrtc-builtins.so.MAJOR.MINOR),
 * which the system's search path finds only for a toolkit registered with
 * ldconfig. Loaded first from NVRTC's own folder, the soname then matches
 * this toolkit's copy. A folder without it is left to NVRTC to report.
 */
static void
preload_builtins(struct cuda_libs *l)
{
	char path[CUDA_PATH_MAX + 64];
	const char *slash = strrchr(l->nvrtc_path, '/');
	int major = 0, minor = 0;

	if (!slash || l->rtc_version(&major, &minor) != CUDA_NVRTC_SUCCESS)
		return;
	snprintf(path, sizeof(path), "%.*s/libnvrtc-builtins.so.%d.%d",
		 (int)(slash - l->nvrtc_path), l->nvrtc_path, major, minor);
	l->builtins_dl = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
}

/*
 * The runtime has no library API: open the driver's library by name, as
 * the runtime does, for its module API. A driver that is missing or lacks
 * a function is no error here: without one there is no GPU to launch on,
 * and driver_error says why.
 */
static void
open_driver(struct cuda_libs *l)
{
	static const char *const names[] = { "cuInit", "cuGetErrorName",
		"cuGetErrorString", "cuModuleLoadData", "cuModuleGetFunction",
		"cuModuleUnload", "cuLaunchKernel" };
	const char *m;
	size_t i;

	l->driver_dl = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL |
				  RTLD_NODELETE);
	if (!l->driver_dl) {
		m = dlerror();
		snprintf(l->driver_error, sizeof(l->driver_error), "%.255s",
			 m ? m : "libcuda.so.1 did not load");
		return;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!dlsym(l->driver_dl, names[i])) {
			snprintf(l->driver_error, sizeof(l->driver_error),
				 "libcuda.so.1 has no symbol '%s'", names[i]);
			return;
		}
	MAYBE(l->drv_init, l->driver_dl, "cuInit");
	MAYBE(l->drv_error_name, l->driver_dl, "cuGetErrorName");
	MAYBE(l->drv_error_string, l->driver_dl, "cuGetErrorString");
	MAYBE(l->drv_module_load, l->driver_dl, "cuModuleLoadData");
	MAYBE(l->drv_module_function, l->driver_dl, "cuModuleGetFunction");
	MAYBE(l->drv_module_unload, l->driver_dl, "cuModuleUnload");
	MAYBE(l->drv_launch, l->driver_dl, "cuLaunchKernel");
}

const char *
cuda_libs_launch_api(const struct cuda_libs *libs)
{
	if (libs->rt_library_load)
		return "runtime library API";
	if (libs->drv_launch)
		return "driver module API";
	return "none";
}

int
cuda_libs_open(const char *home, struct cuda_libs **out, struct error *err)
{
	struct cuda_libs *l = NULL;
	struct stat st;
	int rc = 0;

	*out = NULL;
	if (!home || !home[0])
		return error_set(err, ERROR_INVALID, "empty toolkit home");
	/* Library paths are HOME/lib64/NAME in CUDA_PATH_MAX bytes: a home
	 * cut short there would load another toolkit's library. */
	if (strlen(home) + 64 >= CUDA_PATH_MAX)
		return error_set(err, ERROR_INVALID, "toolkit home '%.200s...' "
				 "is too long (%zu bytes; at most %d)", home,
				 strlen(home), CUDA_PATH_MAX - 65);
	if (stat(home, &st) != 0 || !S_ISDIR(st.st_mode)) {
		error_set(err, ERROR_NOT_FOUND,
			  "toolkit home '%s' does not exist", home);
		error_hint(err, "set CUDA_HOME or pass --home DIR");
		return ERROR_NOT_FOUND;
	}
	l = mem_calloc(1, sizeof(*l));
	if (!l)
		return error_set(err, ERROR_NOMEM, "out of memory");
	snprintf(l->home, sizeof(l->home), "%s", home);
	rc = open_lib(home, "libnvrtc", "NVRTC", &l->nvrtc_dl, l->nvrtc_path,
		      err);
	if (!rc)
		rc = open_lib(home, "libnvJitLink", "nvJitLink",
			      &l->nvjitlink_dl, l->nvjitlink_path, err);
	if (!rc)
		rc = open_lib(home, "libcudart", "cudart", &l->cudart_dl,
			      l->cudart_path, err);
	if (rc)
		goto done;

	RTC(l->rtc_version, "Version");
	RTC(l->rtc_error_string, "GetErrorString");
	RTC(l->rtc_create, "CreateProgram");
	RTC(l->rtc_destroy, "DestroyProgram");
	RTC(l->rtc_compile, "CompileProgram");
	RTC(l->rtc_log_size, "GetProgramLogSize");
	RTC(l->rtc_log, "GetProgramLog");
	RTC(l->rtc_ltoir_size, "GetLTOIRSize");
	RTC(l->rtc_ltoir, "GetLTOIR");
	preload_builtins(l);

	JL(l->jl_version, "Version");
	JL(l->jl_create, "Create");
	JL(l->jl_destroy, "Destroy");
	JL(l->jl_add_data, "AddData");
	JL(l->jl_complete, "Complete");
	JL(l->jl_cubin_size, "GetLinkedCubinSize");
	JL(l->jl_cubin, "GetLinkedCubin");
	JL(l->jl_error_log_size, "GetErrorLogSize");
	JL(l->jl_error_log, "GetErrorLog");
	JL(l->jl_info_log_size, "GetInfoLogSize");
	JL(l->jl_info_log, "GetInfoLog");

	RT(l->rt_version, "RuntimeGetVersion");
	RT(l->rt_driver_version, "DriverGetVersion");
	RT(l->rt_error_string, "GetErrorString");
	RT(l->rt_error_name, "GetErrorName");
	RT(l->rt_device_count, "GetDeviceCount");
	RT(l->rt_device_attribute, "DeviceGetAttribute");
	NEED(l->rt_device_props, l->cudart_dl, l->cudart_path,
	     "cudaGetDeviceProperties_v2", "cudaGetDeviceProperties", NULL);
	RT(l->rt_set_device, "SetDevice");
	RT(l->rt_malloc, "Malloc");
	RT(l->rt_free, "Free");
	RT(l->rt_memcpy, "Memcpy");
	RT(l->rt_synchronize, "DeviceSynchronize");
	RT(l->rt_last_error, "GetLastError");
	RT(l->rt_launch, "LaunchKernel");
	MAYBE(l->rt_library_load, l->cudart_dl, "cudaLibraryLoadData");
	if (l->rt_library_load) {
		RT(l->rt_library_unload, "LibraryUnload");
		RT(l->rt_library_kernel, "LibraryGetKernel");
	} else {
		open_driver(l);
	}
done:
	if (rc) {
		cuda_libs_close(l);
		return rc;
	}
	*out = l;
	return 0;
}

void
cuda_libs_close(struct cuda_libs *libs)
{
	if (!libs)
		return;
	if (libs->driver_dl)
		dlclose(libs->driver_dl);
	if (libs->cudart_dl)
		dlclose(libs->cudart_dl);
	if (libs->nvjitlink_dl)
		dlclose(libs->nvjitlink_dl);
	if (libs->nvrtc_dl)
		dlclose(libs->nvrtc_dl);
	if (libs->builtins_dl)
		dlclose(libs->builtins_dl);
	mem_free(libs);
}
