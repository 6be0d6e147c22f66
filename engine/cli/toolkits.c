/*
 * `ripple toolkits [--json] [--home DIR]... [--rules FILE]`: where each CUDA
 * toolkit was found and the versions its libraries report. With --home, the
 * given homes; else the toolkits declared in the rules file (a thin layer
 * over the same probe); else the default home ($CUDA_HOME, /usr/local/cuda).
 */
#include "engine/cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "base/error.h"
#include "engine/cuda/load.h"
#include "engine/cuda/probe.h"
#include "rules/rules.h"
#include "base/banned.h"

#define MAX_HOMES 32

/* One toolkit to probe: a declared one or a bare home. */
struct tk_req {
	const char *name;	/* NULL for --home, else name_buf */
	const char *pin;	/* NULL for --home, else pin_buf */
	char name_buf[256], pin_buf[64];
	char home[CUDA_PATH_MAX];
};

/* The outcome for one request. */
struct tk_out {
	struct cuda_toolkit_info info;
	int found;		/* the libraries loaded and answered */
	struct error err;	/* why not found, or the pin conflict */
	const char *launch_api;	/* cuda_libs_launch_api(): static text */
	char driver_error[256];	/* why libcuda.so.1 did not load, or "" */
};

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: ripple toolkits [--json] [--home DIR]... [--rules FILE]\n"
		"\n"
		"List CUDA toolkits: where each was found and the versions of\n"
		"NVRTC, nvJitLink and cudart, plus version.json's components.\n"
		"\n"
		"  --home DIR    probe the toolkit installed in DIR (repeatable);\n"
		"                without it, the toolkits declared in the rules\n"
		"                file, else $CUDA_HOME or /usr/local/cuda\n"
		"  --rules FILE  the rules file (default: ripple.yml at the\n"
		"                root of the repository holding the current\n"
		"                directory)\n"
		"  --json        JSON on stdout (sorted keys)\n"
		"\n"
		"exit: 0 listed (a missing toolkit is listed, not an error),\n"
		"1 a toolkit's pin disagrees with its probe, 2 usage, 3 error\n");
}

static const char *
default_home(void)
{
	const char *h = getenv("CUDA_HOME");

	return h && h[0] ? h : "/usr/local/cuda";
}

static void
probe_one(const struct tk_req *rq, struct tk_out *o)
{
	struct cuda_libs *libs = NULL;

	error_init(&o->err);
	if (cuda_libs_open(rq->home, &libs, &o->err))
		return;
	o->launch_api = cuda_libs_launch_api(libs);
	snprintf(o->driver_error, sizeof(o->driver_error), "%s",
		 libs->driver_error);
	if (!cuda_toolkit_probe(libs, rq->name, rq->pin, &o->info, &o->err)) {
		o->found = 1;
		cuda_toolkit_pin_check(&o->info, &o->err);
	}
	cuda_libs_close(libs);
}

/* Declared toolkits from the rules file; returns count or -exit code. */
static int
declared(const struct cli_ctx *ctx, const char *rules_path,
	 struct tk_req *rq, int max)
{
	struct error_list errs;
	struct rules *r = NULL;
	struct stat st;
	struct error err;
	char path[CUDA_PATH_MAX], root[4096];
	const char *display;
	size_t i;
	int n = 0;

	if (cli_rules_path(ctx, rules_path, path, sizeof(path), &display))
		return -CLI_USAGE;
	if (stat(path, &st) != 0) {
		if (rules_path) {
			error_init(&err);
			error_set(&err, ERROR_NOT_FOUND, "cannot read '%s'",
				  path);
			error_hint(&err, "--rules names the rules file, "
				   "relative to the current directory");
			return -cli_fail(ctx, &err);
		}
		return 0;
	}
	error_list_init(&errs, 0);
	if (cli_repo_root(ctx, root, sizeof(root)) < 0)
		return -CLI_ERROR;
	if (rules_load_file(path, NULL, root, &r, &errs)) {
		for (i = 0; i < errs.n; i++)
			cli_print_error(ctx, &errs.items[i]);
		error_list_release(&errs);
		return -CLI_USAGE;
	}
	error_list_release(&errs);
	for (i = 0; i < r->n_toolkits && n < max; i++, n++) {
		const struct rules_toolkit *t = &r->toolkits[i];

		snprintf(rq[n].name_buf, sizeof(rq[n].name_buf), "%s",
			 t->name);
		snprintf(rq[n].pin_buf, sizeof(rq[n].pin_buf), "%s",
			 t->version ? t->version : "");
		rq[n].name = rq[n].name_buf;
		rq[n].pin = t->version ? rq[n].pin_buf : NULL;
		if (t->home && strlen(t->home) >= sizeof(rq[n].home)) {
			/* Cut short, it would name another folder. */
			error_init(&err);
			error_set(&err, ERROR_INVALID, "toolkit '%s': home is "
				  "too long (%zu bytes)", t->name,
				  strlen(t->home));
			rules_free(r);
			return -cli_fail(ctx, &err);
		}
		if (t->home)
			snprintf(rq[n].home, sizeof(rq[n].home), "%s", t->home);
		else
			snprintf(rq[n].home, sizeof(rq[n].home),
				 "/usr/local/cuda-%u.%u", t->major, t->minor);
	}
	rules_free(r);
	return n;
}

static json_t *
pairs_json(const struct cuda_pair *p, size_t n)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < n; i++)
		json_object_set_new(o, p[i].name, json_string(p[i].value));
	return o;
}

static json_t *
tk_json(const struct tk_req *rq, const struct tk_out *o)
{
	const struct cuda_toolkit_info *in = &o->info;
	json_t *t = json_object(), *v;
	char buf[64];

	json_object_set_new(t, "name", rq->name ? json_string(rq->name)
						: json_null());
	json_object_set_new(t, "pin", rq->pin ? json_string(rq->pin)
					      : json_null());
	json_object_set_new(t, "home", json_string(rq->home));
	json_object_set_new(t, "found", json_boolean(o->found));
	json_object_set_new(t, "error", o->err.code ? json_string(o->err.msg)
						    : json_null());
	json_object_set_new(t, "error_code", o->err.code
			    ? json_string(error_code_name(o->err.code))
			    : json_null());
	if (!o->found)
		return t;
	v = json_object();
	snprintf(buf, sizeof(buf), "%d.%d", in->nvrtc_major, in->nvrtc_minor);
	json_object_set_new(v, "nvrtc", json_string(buf));
	snprintf(buf, sizeof(buf), "%d.%d", in->nvjitlink_major,
		 in->nvjitlink_minor);
	json_object_set_new(v, "nvjitlink", json_string(buf));
	json_object_set_new(v, "cudart", json_string(cuda_version_text(
				   in->cudart_version, buf, sizeof(buf))));
	json_object_set_new(t, "versions", v);
	v = json_object();
	json_object_set_new(v, "nvrtc", json_string(in->nvrtc_path));
	json_object_set_new(v, "nvjitlink", json_string(in->nvjitlink_path));
	json_object_set_new(v, "cudart", json_string(in->cudart_path));
	json_object_set_new(t, "libraries", v);
	json_object_set_new(t, "components",
			    pairs_json(in->components, in->n_components));
	json_object_set_new(t, "identity",
			    pairs_json(in->identity, in->n_identity));
	json_object_set_new(t, "identity_text",
			    json_string(in->identity_text));
	return t;
}

static void
tk_text(const struct cli_ctx *ctx, const struct tk_req *rq,
	const struct tk_out *o)
{
	const struct cuda_toolkit_info *in = &o->info;
	char buf[16];
	size_t i;

	printf("%s  %s", rq->name ? rq->name : "(home)", rq->home);
	if (rq->pin)
		printf("  pinned %s", rq->pin);
	printf("%s\n", o->found ? "" : "  NOT FOUND");
	if (!o->found) {
		printf("  %s\n", o->err.msg);
		return;
	}
	printf("  nvrtc      %d.%d  %s\n", in->nvrtc_major, in->nvrtc_minor,
	       in->nvrtc_path);
	printf("  nvjitlink  %d.%d  %s\n", in->nvjitlink_major,
	       in->nvjitlink_minor, in->nvjitlink_path);
	printf("  cudart     %s  %s\n",
	       cuda_version_text(in->cudart_version, buf, sizeof(buf)),
	       in->cudart_path);
	printf("  launch     %s", o->launch_api);
	if (strcmp(o->launch_api, "runtime library API"))
		printf(" (this cudart has no library API, new in 12.5)");
	if (o->driver_error[0])
		printf(": %s", o->driver_error);
	printf("\n");
	if (in->n_components) {
		printf("  version.json:");
		for (i = 0; i < in->n_components; i++)
			printf(" %s=%s", in->components[i].name,
			       in->components[i].value);
		printf("\n");
	} else {
		printf("  version.json: none\n");
	}
	printf("  identity:");
	for (i = 0; i < in->n_identity; i++)
		printf(" %s=%s", in->identity[i].name, in->identity[i].value);
	printf("\n");
	if (o->err.code)
		cli_print_error(ctx, &o->err);
}

int
cli_toolkits(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "home", required_argument, NULL, 'H' },
		{ "rules", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	static struct tk_req rq[MAX_HOMES];
	static struct tk_out out[MAX_HOMES];
	const char *rules_path = NULL;
	int c, n = 0, json = 0, i, conflict = 0, prc = 0;

	while ((c = cli_getopt(ctx, "toolkits", argc, argv, "hjH:r:",
					opts)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return CLI_OK;
		case 'j':
			json = 1;
			break;
		case 'H':
			if (n == MAX_HOMES)
				return cli_usage_error(ctx, "toolkits",
						       "at most %d homes",
						       MAX_HOMES);
			snprintf(rq[n++].home, sizeof(rq[0].home), "%s",
				 optarg);
			break;
		case 'r':
			rules_path = optarg;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error(ctx, "toolkits",
				       "unexpected argument '%s'", argv[optind]);
	if (!n) {
		n = declared(ctx, rules_path, rq, MAX_HOMES);
		if (n < 0)
			return -n;
	}
	if (!n)
		snprintf(rq[n++].home, sizeof(rq[0].home), "%s",
			 default_home());
	for (i = 0; i < n; i++) {
		probe_one(&rq[i], &out[i]);
		conflict |= out[i].err.code == ERROR_CONFLICT;
	}
	if (json) {
		json_t *root = json_object(), *arr = json_array();

		for (i = 0; i < n; i++)
			json_array_append_new(arr, tk_json(&rq[i], &out[i]));
		json_object_set_new(root, "toolkits", arr);
		prc = cli_print_json(ctx, root, JSON_INDENT(2));
	} else {
		for (i = 0; i < n; i++)
			tk_text(ctx, &rq[i], &out[i]);
	}
	for (i = 0; i < n; i++)
		cuda_toolkit_info_release(&out[i].info);
	if (prc)
		return prc;
	return conflict ? CLI_FAIL : CLI_OK;
}
