/*
 * dlopen of NVRTC, nvJitLink and cudart from one toolkit home, and the
 * resolution of their entry points into a struct cuda_libs. Each toolkit
 * gets its own handles (RTLD_LOCAL), so several majors coexist in a process.
 */
#include "engine/cuda/load.h"

#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/cudalib.h"
#include "base/error.h"
#include "base/fsys.h"
#include "base/mem.h"
#include "base/strv.h"
#include "base/banned.h"

/*
 * Find and load the library `name` of the toolkit at `home`: the first of
 * base/cudalib.h's candidates that exists. Records the path in `path`.
 * Fails naming every path tried.
 */
static int
open_lib(const char *home, const char *name, const char *what, void **dl,
	 char *path, struct error *err)
{
	char failed[256] = "";
	struct strv cands = STRV_INIT;
	struct buf tried = BUF_INIT;
	struct fsys_stat st;
	size_t i;
	int rc;

	rc = cudalib_candidates(home, name, &cands, &tried, err);
	for (i = 0; !rc && i < cands.n; i++) {
		if (fsys_stat(cands.v[i], &st) != 0)
			continue;
		*dl = cudalib_open(cands.v[i], failed[0] ? NULL : failed,
				   failed[0] ? 0 : sizeof(failed));
		if (*dl) {
			snprintf(path, CUDA_PATH_MAX, "%s", cands.v[i]);
			goto done;
		}
	}
	if (rc)
		goto done;
	if (failed[0])
		rc = error_set(err, ERROR_NOT_FOUND,
			       "cannot load %s from '%s': %s", what, home,
			       failed);
	else
		rc = error_set(err, ERROR_NOT_FOUND,
			       "no %s in toolkit home '%s' (tried %s)", what,
			       home, tried.data);
done:
	strv_release(&cands);
	buf_release(&tried);
	return rc;
}

/* Resolve the first of up to three names; NULL names are skipped. */
static void *
sym3(void *dl, const char *a, const char *b, const char *c)
{
	void *p = cudalib_sym(dl, a);

	if (!p && b)
		p = cudalib_sym(dl, b);
	if (!p && c)
		p = cudalib_sym(dl, c);
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
	void *p_ = cudalib_sym((dl), (name)); \
	memcpy(&(field), &p_, sizeof(p_)); \
} while (0)

/*
 * NVRTC loads its builtins by name (libnvrtc-builtins.so.MAJOR.MINOR;
 * nvrtc-builtins64_MAJORMINOR.dll), which the system's search path finds
 * only for a toolkit registered with it. Loaded first from NVRTC's own
 * folder, the name then matches this toolkit's copy. A folder without it
 * is left to NVRTC to report.
 */
static void
preload_builtins(struct cuda_libs *l)
{
	char path[CUDA_PATH_MAX + 64], why[8];
	int major = 0, minor = 0;

	if (!strrchr(l->nvrtc_path, '/') ||
	    l->rtc_version(&major, &minor) != CUDA_NVRTC_SUCCESS)
		return;
	cudalib_builtins(l->nvrtc_path, major, minor, path, sizeof(path));
	if (path[0])
		l->builtins_dl = cudalib_open(path, why, sizeof(why));
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
	size_t i;

	l->driver_dl = cudalib_open(cudalib_driver(), l->driver_error,
				    sizeof(l->driver_error));
	if (!l->driver_dl)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!cudalib_sym(l->driver_dl, names[i])) {
			snprintf(l->driver_error, sizeof(l->driver_error),
				 "%s has no symbol '%s'", cudalib_driver(),
				 names[i]);
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
	struct fsys_stat st;
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
	if (fsys_stat(home, &st) != 0 || st.kind != FSYS_DIR) {
		error_set(err, ERROR_NOT_FOUND,
			  "toolkit home '%s' does not exist", home);
		error_hint(err, "set CUDA_HOME or pass --home DIR");
		return ERROR_NOT_FOUND;
	}
	l = mem_calloc(1, sizeof(*l));
	if (!l)
		return error_set(err, ERROR_NOMEM, "out of memory");
	snprintf(l->home, sizeof(l->home), "%s", home);
	rc = open_lib(home, "nvrtc", "NVRTC", &l->nvrtc_dl, l->nvrtc_path,
		      err);
	if (!rc)
		rc = open_lib(home, "nvJitLink", "nvJitLink",
			      &l->nvjitlink_dl, l->nvjitlink_path, err);
	if (!rc)
		rc = open_lib(home, "cudart", "cudart", &l->cudart_dl,
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
		cudalib_close(libs->driver_dl);
	if (libs->cudart_dl)
		cudalib_close(libs->cudart_dl);
	if (libs->nvjitlink_dl)
		cudalib_close(libs->nvjitlink_dl);
	if (libs->nvrtc_dl)
		cudalib_close(libs->nvrtc_dl);
	if (libs->builtins_dl)
		cudalib_close(libs->builtins_dl);
	mem_free(libs);
}
