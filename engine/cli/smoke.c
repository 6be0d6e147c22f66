/*
 * `ripple cuda-smoke [--home DIR] [--arch sm_XX]... [--cache-dir DIR]
 * [--json]`: runs the built-in cuda-smoke action once. Exit 0 passed,
 * 1 failed, 4 deferred (built, but no GPU here to launch on), 2 usage,
 * 3 when the toolkit cannot be loaded.
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "cache/cache.h"
#include "engine/cuda/load.h"
#include "engine/cuda/smoke.h"
#include "base/banned.h"

#define SMOKE_EXIT_DEFERRED 4

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: ripple cuda-smoke [--home DIR] [--arch sm_XX]... "
		"[--cache PATH | --cache-dir DIR | --no-cache] [--json]\n"
		"\n"
		"Compile a saxpy kernel with NVRTC to LTO-IR, link it with\n"
		"nvJitLink to a cubin for the GPU's architecture (or the --arch\n"
		"ones when there is no GPU), launch it (through cudart's library\n"
		"API from CUDA 12.5, else the driver's module API) and check\n"
		"every element.\n"
		"\n"
		"  --home DIR       toolkit home (default: $CUDA_HOME, else\n"
		"                   /usr/local/cuda)\n"
		"  --arch sm_XX     also build for this architecture (repeatable;\n"
		"                   without a GPU: sm_90 when none is given)\n"
		"  --cache PATH     the run cache whose kernels table keeps cubins\n"
		"                   (default: $RIPPLE_CACHE, else .ripple/cache.db\n"
		"                   at the repository root); a second run takes\n"
		"                   them from there\n"
		"  --cache-dir DIR  keep cubins in DIR/<key>.cubin instead\n"
		"  --no-cache       compile and link every time\n"
		"  --device N       the GPU to launch on (default 0)\n"
		"  --elements N     elements to check (default 1048576)\n"
		"  --no-launch      build only; the launch is reported deferred\n"
		"  --json           JSON on stdout (sorted keys)\n"
		"\n"
		"exit: 0 passed, 1 failed, 2 usage, 3 toolkit not loadable,\n"
		"4 deferred (built, no GPU here: never reported as passed)\n");
}

/* "sm_90", "compute_90" or "90" to 90; -1 when malformed. */
static int
parse_arch(const char *s)
{
	char *end;
	long v;

	if (!strncmp(s, "sm_", 3))
		s += 3;
	else if (!strncmp(s, "compute_", 8))
		s += 8;
	v = strtol(s, &end, 10);
	if (end == s || *end || v < 10 || v > 1299)
		return -1;
	return (int)v;
}

static json_t *
result_json(const char *home, const struct cuda_smoke_result *r,
	    const struct error *err)
{
	json_t *o = json_object(), *arr = json_array(), *t;
	size_t i;

	json_object_set_new(o, "status",
			    json_string(cuda_smoke_status_name(r->status)));
	json_object_set_new(o, "home", json_string(home));
	json_object_set_new(o, "compiled", json_boolean(r->compiled));
	json_object_set_new(o, "linked", json_boolean(r->linked));
	json_object_set_new(o, "launched", json_boolean(r->launched));
	json_object_set_new(o, "deferred", json_boolean(r->deferred));
	json_object_set_new(o, "verified", json_boolean(r->verified));
	json_object_set_new(o, "cache_hits", json_integer(r->cache_hits));
	json_object_set_new(o, "elements", json_integer((json_int_t)r->n_elements));
	json_object_set_new(o, "mismatches",
			    json_integer((json_int_t)r->mismatches));
	json_object_set_new(o, "launch_api", r->launch_api
			    ? json_string(r->launch_api) : json_null());
	json_object_set_new(o, "launch_arch", r->launch_sm
			    ? json_sprintf("sm_%d", r->launch_sm) : json_null());
	json_object_set_new(o, "reason", r->reason[0]
			    ? json_string(r->reason) : json_null());
	json_object_set_new(o, "error", err->code ? json_string(err->msg)
						  : json_null());
	json_object_set_new(o, "log", r->log ? json_string(r->log)
					     : json_null());
	t = json_object();
	json_object_set_new(t, "compile", json_real(r->compile_ms));
	json_object_set_new(t, "link", json_real(r->link_ms));
	json_object_set_new(t, "lookup", json_real(r->lookup_ms));
	json_object_set_new(t, "load", json_real(r->load_ms));
	json_object_set_new(t, "launch", json_real(r->launch_ms));
	json_object_set_new(t, "total", json_real(r->total_ms));
	json_object_set_new(o, "ms", t);
	for (i = 0; i < r->n_builds; i++) {
		const struct cuda_smoke_build *b = &r->builds[i];
		json_t *x = json_object();

		json_object_set_new(x, "arch", json_sprintf("sm_%d", b->sm));
		json_object_set_new(x, "cache", json_string(b->cache_hit
							    ? "hit" : "miss"));
		json_object_set_new(x, "key", json_string(b->key));
		json_object_set_new(x, "cubin_bytes",
				    json_integer((json_int_t)b->cubin_bytes));
		json_object_set_new(x, "compile_ms", json_real(b->compile_ms));
		json_object_set_new(x, "link_ms", json_real(b->link_ms));
		json_array_append_new(arr, x);
	}
	json_object_set_new(o, "builds", arr);
	return o;
}

static void
result_text(const char *home, const struct cuda_smoke_result *r)
{
	size_t i;

	printf("cuda-smoke: %s", cuda_smoke_status_name(r->status));
	if (r->reason[0])
		printf(" (%s)", r->reason);
	printf("\n  toolkit   %s\n", home);
	for (i = 0; i < r->n_builds; i++) {
		const struct cuda_smoke_build *b = &r->builds[i];

		if (b->cache_hit)
			printf("  sm_%-6d cache hit (%.3f ms), cubin %zu "
			       "bytes, key %s\n", b->sm, b->lookup_ms,
			       b->cubin_bytes, b->key);
		else if (b->cubin_bytes)
			printf("  sm_%-6d compiled %.1f ms, linked %.1f ms, "
			       "cubin %zu bytes, key %s\n", b->sm,
			       b->compile_ms, b->link_ms, b->cubin_bytes,
			       b->key);
		else
			printf("  sm_%-6d not built\n", b->sm);
	}
	if (r->launched)
		printf("  launch    sm_%d: %zu elements, load %.2f ms, run and "
		       "copy %.2f ms, through the %s\n", r->launch_sm,
		       r->n_elements, r->load_ms, r->launch_ms,
		       r->launch_api);
	else if (r->deferred)
		printf("  launch    deferred (no GPU here)\n");
	printf("  verified  %s\n", r->verified ? "every element" : "no");
	printf("  total     %.2f ms\n", r->total_ms);
}

int
cli_cuda_smoke(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "home", required_argument, NULL, 'H' },
		{ "arch", required_argument, NULL, 'a' },
		{ "cache-dir", required_argument, NULL, 'c' },
		{ "cache", required_argument, NULL, 'C' },
		{ "no-cache", no_argument, NULL, 'N' },
		{ "device", required_argument, NULL, 'd' },
		{ "elements", required_argument, NULL, 'n' },
		{ "no-launch", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	const char *home = getenv("CUDA_HOME"), *cache_dir = NULL;
	const char *cache_opt = NULL;
	struct cache *db = NULL;
	int no_cache = 0, prc = 0;
	struct cuda_smoke_options o;
	struct cuda_smoke_result r;
	struct cuda_kernel_store *store = NULL;
	struct cuda_libs *libs = NULL;
	struct error err;
	int archs[CUDA_SMOKE_MAX_ARCHS];
	int c, json = 0, rc;
	char *end;

	memset(&o, 0, sizeof(o));
	memset(&r, 0, sizeof(r));
	if (!home || !home[0])
		home = "/usr/local/cuda";
	while ((c = cli_getopt(ctx, "cuda-smoke", argc, argv,
				"hjH:a:c:C:Nd:n:L", opts)) !=
	       -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return CLI_OK;
		case 'j':
			json = 1;
			break;
		case 'H':
			home = optarg;
			break;
		case 'a':
			if (o.n_archs == CUDA_SMOKE_MAX_ARCHS)
				return cli_usage_error(ctx, "cuda-smoke",
						       "at most %d --arch",
						       CUDA_SMOKE_MAX_ARCHS);
			archs[o.n_archs] = parse_arch(optarg);
			if (archs[o.n_archs] < 0)
				return cli_usage_error(ctx, "cuda-smoke",
						       "bad architecture '%s' "
						       "(want sm_XX)", optarg);
			o.n_archs++;
			break;
		case 'c':
			cache_dir = optarg;
			break;
		case 'C':
			cache_opt = optarg;
			break;
		case 'N':
			no_cache = 1;
			break;
		case 'd':
			o.device = (int)strtol(optarg, &end, 10);
			if (*end || end == optarg || o.device < 0)
				return cli_usage_error(ctx, "cuda-smoke",
						       "bad device '%s'", optarg);
			break;
		case 'n':
			o.n = (size_t)strtoul(optarg, &end, 10);
			if (*end || end == optarg || !o.n)
				return cli_usage_error(ctx, "cuda-smoke",
						       "bad element count '%s'",
						       optarg);
			break;
		case 'L':
			o.no_launch = 1;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error(ctx, "cuda-smoke",
				       "unexpected argument '%s'", argv[optind]);
	o.archs = archs;
	error_init(&err);
	if (cuda_libs_open(home, &libs, &err)) {
		cli_print_error(ctx, &err);
		return CLI_ERROR;
	}
	if (cache_dir && cuda_store_dir_new(cache_dir, &store, &err)) {
		cli_print_error(ctx, &err);
		cuda_libs_close(libs);
		return CLI_ERROR;
	}
	if (!cache_dir && !no_cache) {
		char path[4096];

		rc = cli_cache_path(ctx, cache_opt, path, sizeof(path));
		if (!rc)
			rc = cache_open(path, CACHE_OPEN_CREATE, &db, &err);
		if (!rc)
			rc = cuda_store_cache_new(db, &store, &err);
		if (rc) {
			if (err.code)
				cli_print_error(ctx, &err);
			cache_close(db);
			cuda_libs_close(libs);
			return cli_exit_for(rc);
		}
	}
	o.store = store;
	cuda_smoke_run(libs, &o, &r, &err);
	if (json)
		prc = cli_print_json(ctx, result_json(home, &r, &err),
				     JSON_INDENT(2));
	else
		result_text(home, &r);
	if (err.code) {
		cli_print_error(ctx, &err);
		if (r.log && !json)
			fprintf(stderr, "%s", r.log);
	}
	rc = r.status == CUDA_SMOKE_PASSED ? CLI_OK
	     : r.status == CUDA_SMOKE_DEFERRED ? SMOKE_EXIT_DEFERRED
					       : CLI_FAIL;
	if (prc && rc == CLI_OK)
		rc = prc;
	cuda_smoke_result_release(&r);
	if (cache_dir)
		cuda_store_dir_free(store);
	else
		cuda_store_cache_free(store);
	cache_close(db);
	cuda_libs_close(libs);
	return rc;
}
