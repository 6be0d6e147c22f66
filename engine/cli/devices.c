/*
 * `ripple devices [--json] [--home DIR]`: the GPUs cudart sees (index,
 * name, compute capability, memory) and the driver's version. No driver, no
 * GPU or no CUDA runtime is said plainly, with exit 0.
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "engine/cuda/load.h"
#include "engine/cuda/probe.h"
#include "base/banned.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: ripple devices [--json] [--home DIR]\n"
		"\n"
		"List the GPUs the CUDA runtime sees: index, name, compute\n"
		"capability, memory, and the driver's version. With no driver,\n"
		"no GPU or no CUDA runtime it says so and exits 0.\n"
		"\n"
		"  --home DIR  the toolkit whose cudart to use (default:\n"
		"              $CUDA_HOME, else /usr/local/cuda)\n"
		"  --json      JSON on stdout (sorted keys)\n");
}

int
cli_devices(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "home", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	const char *home = getenv("CUDA_HOME");
	struct cuda_libs *libs = NULL;
	struct cuda_devices devs;
	struct error err;
	char drv[16], rt[16];
	int c, json = 0, rc = CLI_OK;
	size_t i;

	if (!home || !home[0])
		home = "/usr/local/cuda";
	while ((c = cli_getopt(ctx, "devices", argc, argv, "hjH:",
					opts)) != -1) {
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
		default:
			return CLI_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error(ctx, "devices",
				       "unexpected argument '%s'", argv[optind]);
	error_init(&err);
	memset(&devs, 0, sizeof(devs));
	if (cuda_libs_open(home, &libs, &err)) {
		snprintf(devs.reason, sizeof(devs.reason),
			 "no CUDA runtime: %.200s", err.msg);
	} else if (cuda_devices_list(libs, &devs, &err)) {
		cli_print_error(ctx, &err);
		rc = cli_exit_for(err.code);
		goto done;
	}
	if (json) {
		json_t *root = json_object(), *arr = json_array();

		for (i = 0; i < devs.n; i++) {
			const struct cuda_device *d = &devs.items[i];
			json_t *o = json_object();
			char cc[32];

			snprintf(cc, sizeof(cc), "%d.%d", d->cc_major,
				 d->cc_minor);
			json_object_set_new(o, "index", json_integer(d->index));
			json_object_set_new(o, "name", json_string(d->name));
			json_object_set_new(o, "compute_capability",
					    json_string(cc));
			json_object_set_new(o, "memory_mib",
					    json_integer((json_int_t)d->memory_mib));
			json_array_append_new(arr, o);
		}
		json_object_set_new(root, "devices", arr);
		json_object_set_new(root, "driver_version", devs.driver_version
				    ? json_string(cuda_version_text(
					      devs.driver_version, drv,
					      sizeof(drv)))
				    : json_null());
		json_object_set_new(root, "runtime_version",
				    devs.runtime_version
				    ? json_string(cuda_version_text(
					      devs.runtime_version, rt,
					      sizeof(rt)))
				    : json_null());
		json_object_set_new(root, "reason", devs.reason[0]
				    ? json_string(devs.reason) : json_null());
		rc = cli_print_json(ctx, root, JSON_INDENT(2));
		goto done;
	}
	if (devs.driver_version)
		printf("driver: CUDA %s\n", cuda_version_text(
			       devs.driver_version, drv, sizeof(drv)));
	else
		printf("driver: none\n");
	if (devs.runtime_version)
		printf("runtime: CUDA %s (%s)\n", cuda_version_text(
			       devs.runtime_version, rt, sizeof(rt)), home);
	if (!devs.n) {
		if (!devs.driver_version && libs)
			printf("no GPU: no NVIDIA driver here (%s)\n",
			       devs.reason);
		else
			printf("no GPU: %s\n", devs.reason);
		goto done;
	}
	for (i = 0; i < devs.n; i++) {
		const struct cuda_device *d = &devs.items[i];

		printf("%d  %s  sm_%d%d (compute capability %d.%d)  %llu MiB\n",
		       d->index, d->name, d->cc_major, d->cc_minor, d->cc_major,
		       d->cc_minor, d->memory_mib);
	}
done:
	cuda_devices_release(&devs);
	cuda_libs_close(libs);
	return rc;
}
