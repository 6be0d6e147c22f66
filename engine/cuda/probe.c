/*
 * Toolkit identity and device listing: asks the loaded libraries for their
 * versions, reads version.json with jansson, builds the sorted identity and
 * its canonical text, checks a pin, and lists GPUs through cudart.
 */
#include "engine/cuda/probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "engine/cuda/load.h"
#include "base/banned.h"

const char *
cuda_version_text(int version, char *buf, size_t size)
{
	snprintf(buf, size, "%d.%d", version / 1000, (version % 1000) / 10);
	return buf;
}

void
cuda_pairs_free(struct cuda_pair *pairs, size_t n)
{
	size_t i;

	if (!pairs)
		return;
	for (i = 0; i < n; i++) {
		mem_free(pairs[i].name);
		mem_free(pairs[i].value);
	}
	mem_free(pairs);
}

static int
cmp_pair(const void *a, const void *b)
{
	const struct cuda_pair *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->value, y->value);
}

/* Append a copy of (name, value) to an array of *n pairs. */
static int
pair_add(struct cuda_pair **v, size_t *n, const char *name,
	 const char *value, struct error *err)
{
	struct cuda_pair *nv = mem_realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return error_set(err, ERROR_NOMEM, "out of memory");
	*v = nv;
	nv[*n].name = mem_strdup(name);
	nv[*n].value = mem_strdup(value);
	if (!nv[*n].name || !nv[*n].value) {
		mem_free(nv[*n].name);
		mem_free(nv[*n].value);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	(*n)++;
	return 0;
}

int
cuda_version_json_read(const char *home, struct cuda_pair **out, size_t *n,
		       struct error *err)
{
	char path[CUDA_PATH_MAX];
	json_error_t jerr;
	json_t *root = NULL, *val;
	const char *key;
	FILE *f;
	int rc = 0;

	*out = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "%s/version.json", home);
	f = fopen(path, "rb");
	if (!f)
		return 0;
	root = json_loadf(f, 0, &jerr);
	fclose(f);
	if (!root)
		return error_at(err, ERROR_CORRUPT, path, (unsigned)jerr.line,
				(unsigned)jerr.column, "not JSON: %s",
				jerr.text);
	if (!json_is_object(root)) {
		rc = error_at(err, ERROR_CORRUPT, path, 0, 0,
			      "version.json is not a JSON object");
		goto done;
	}
	json_object_foreach(root, key, val) {
		json_t *v = json_is_object(val) ? json_object_get(val, "version")
						: NULL;

		if (!json_is_string(v))
			continue;	/* entries without a version: skipped */
		rc = pair_add(out, n, key, json_string_value(v), err);
		if (rc)
			goto done;
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), cmp_pair);
done:
	json_decref(root);
	if (rc) {
		cuda_pairs_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

void
cuda_toolkit_info_release(struct cuda_toolkit_info *info)
{
	if (!info)
		return;
	mem_free(info->name);
	mem_free(info->pin);
	mem_free(info->home);
	mem_free(info->nvrtc_path);
	mem_free(info->nvjitlink_path);
	mem_free(info->cudart_path);
	cuda_pairs_free(info->components, info->n_components);
	cuda_pairs_free(info->identity, info->n_identity);
	mem_free(info->identity_text);
	memset(info, 0, sizeof(*info));
}

/* mem_strdup that accepts NULL; *ok cleared on failure. */
static char *
dup_opt(const char *s, int *ok)
{
	char *d;

	if (!s)
		return NULL;
	d = mem_strdup(s);
	if (!d)
		*ok = 0;
	return d;
}

/* Build identity pairs and text from the probed fields. */
static int
identity_build(struct cuda_toolkit_info *info, struct error *err)
{
	char v[64], name[256];
	struct buf text = BUF_INIT;
	size_t i;
	int rc = 0;

	if (info->pin && (rc = pair_add(&info->identity, &info->n_identity,
					"pin", info->pin, err)))
		return rc;
	snprintf(v, sizeof(v), "%d.%d", info->nvrtc_major, info->nvrtc_minor);
	if ((rc = pair_add(&info->identity, &info->n_identity, "nvrtc", v,
			   err)))
		return rc;
	snprintf(v, sizeof(v), "%d.%d", info->nvjitlink_major,
		 info->nvjitlink_minor);
	if ((rc = pair_add(&info->identity, &info->n_identity, "nvjitlink", v,
			   err)))
		return rc;
	cuda_version_text(info->cudart_version, v, sizeof(v));
	if ((rc = pair_add(&info->identity, &info->n_identity, "cudart", v,
			   err)))
		return rc;
	for (i = 0; i < info->n_components; i++) {
		snprintf(name, sizeof(name), "component/%s",
			 info->components[i].name);
		if ((rc = pair_add(&info->identity, &info->n_identity, name,
				   info->components[i].value, err)))
			return rc;
	}
	qsort(info->identity, info->n_identity, sizeof(*info->identity),
	      cmp_pair);
	for (i = 0; i < info->n_identity && !rc; i++)
		rc = buf_addf(&text, err, "%s=%s\n", info->identity[i].name,
			      info->identity[i].value);
	if (!rc) {
		info->identity_text = buf_detach(&text);
		if (!info->identity_text)
			rc = error_set(err, ERROR_NOMEM, "out of memory");
	}
	buf_release(&text);
	return rc;
}


int
cuda_toolkit_probe(const struct cuda_libs *libs, const char *name,
		   const char *pin, struct cuda_toolkit_info *out,
		   struct error *err)
{
	unsigned jl_major = 0, jl_minor = 0;
	int ok = 1, rc = 0;
	cuda_nvrtc_result r;
	cuda_jitlink_result j;
	cuda_rt_error c;

	memset(out, 0, sizeof(*out));
	out->name = dup_opt(name, &ok);
	out->pin = dup_opt(pin, &ok);
	out->home = dup_opt(libs->home, &ok);
	out->nvrtc_path = dup_opt(libs->nvrtc_path, &ok);
	out->nvjitlink_path = dup_opt(libs->nvjitlink_path, &ok);
	out->cudart_path = dup_opt(libs->cudart_path, &ok);
	if (!ok) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	r = libs->rtc_version(&out->nvrtc_major, &out->nvrtc_minor);
	if (r != CUDA_NVRTC_SUCCESS) {
		rc = error_set(err, ERROR_INTERNAL, "nvrtcVersion failed: %s",
			       libs->rtc_error_string(r));
		goto done;
	}
	j = libs->jl_version(&jl_major, &jl_minor);
	out->nvjitlink_major = (int)jl_major;
	out->nvjitlink_minor = (int)jl_minor;
	if (j != CUDA_JITLINK_SUCCESS) {
		rc = error_set(err, ERROR_INTERNAL,
			       "nvJitLinkVersion failed with code %d", (int)j);
		goto done;
	}
	c = libs->rt_version(&out->cudart_version);
	if (c != CUDA_RT_SUCCESS) {
		rc = error_set(err, ERROR_INTERNAL,
			       "cudaRuntimeGetVersion failed: %s",
			       libs->rt_error_string(c));
		goto done;
	}
	rc = cuda_version_json_read(libs->home, &out->components,
				    &out->n_components, err);
	if (!rc)
		rc = identity_build(out, err);
done:
	if (rc)
		cuda_toolkit_info_release(out);
	return rc;
}

int
cuda_devices_list(const struct cuda_libs *libs, struct cuda_devices *out,
		  struct error *err)
{
	/* cudaDeviceProp grew and shrank between majors; its head (name,
	   uuid, luid, mask, totalGlobalMem) did not. A large buffer keeps a
	   newer or older runtime's struct in bounds. */
	union {
		struct cuda_rt_device_prop_head head;
		char bytes[CUDA_RT_DEVICE_PROP_BYTES];
	} *prop = NULL;
	cuda_rt_error c;
	int count = 0, i, rc = 0;

	memset(out, 0, sizeof(*out));
	libs->rt_version(&out->runtime_version);
	libs->rt_driver_version(&out->driver_version);
	c = libs->rt_device_count(&count);
	if (c != CUDA_RT_SUCCESS || count <= 0) {
		if (c != CUDA_RT_SUCCESS)
			snprintf(out->reason, sizeof(out->reason),
				 "%s: %s", libs->rt_error_name(c),
				 libs->rt_error_string(c));
		else
			snprintf(out->reason, sizeof(out->reason),
				 "no CUDA-capable device");
		libs->rt_last_error();	/* clear the sticky error */
		return 0;
	}
	out->items = mem_calloc((size_t)count, sizeof(*out->items));
	prop = mem_calloc(1, sizeof(*prop));
	if (!out->items || !prop) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < count; i++) {
		struct cuda_device *d = &out->items[i];

		memset(prop, 0, sizeof(*prop));
		c = libs->rt_device_props(prop, i);
		if (c == CUDA_RT_SUCCESS)
			c = libs->rt_device_attribute(&d->cc_major,
				CUDA_RT_ATTR_CC_MAJOR, i);
		if (c == CUDA_RT_SUCCESS)
			c = libs->rt_device_attribute(&d->cc_minor,
				CUDA_RT_ATTR_CC_MINOR, i);
		if (c != CUDA_RT_SUCCESS) {
			rc = error_set(err, ERROR_INTERNAL,
				       "cannot read CUDA device %d: %s", i,
				       libs->rt_error_string(c));
			goto done;
		}
		d->index = i;
		snprintf(d->name, sizeof(d->name), "%.*s",
			 (int)sizeof(prop->head.name), prop->head.name);
		d->memory_mib =
			(unsigned long long)prop->head.total_global_mem >> 20;
		out->n++;
	}
done:
	mem_free(prop);
	if (rc)
		cuda_devices_release(out);
	return rc;
}

void
cuda_devices_release(struct cuda_devices *devs)
{
	if (!devs)
		return;
	mem_free(devs->items);
	memset(devs, 0, sizeof(*devs));
}

/* Parse up to 3 dot-separated numbers; returns how many, or -1. */
static int
parse_version(const char *s, long v[3])
{
	int k = 0;
	char *end;

	while (k < 3) {
		if (*s < '0' || *s > '9')
			return -1;
		v[k++] = strtol(s, &end, 10);
		s = end;
		if (*s == '\0')
			return k;
		if (*s != '.')
			return -1;
		s++;
	}
	return *s ? -1 : k;
}

int
cuda_toolkit_pin_check(const struct cuda_toolkit_info *info,
		       struct error *err)
{
	const char *tk = info->name ? info->name : "(unnamed)";
	char cudart[16];
	long pin[3], got[3];
	int np, ng, i;
	size_t k;

	if (!info->pin)
		return 0;
	np = parse_version(info->pin, pin);
	if (np < 2) {
		error_set(err, ERROR_INVALID,
			  "toolkit '%s' has a malformed pin '%s'", tk,
			  info->pin);
		error_hint(err, "write the pin as MAJOR.MINOR.PATCH, e.g. 12.9.1");
		return ERROR_INVALID;
	}
	cuda_version_text(info->cudart_version, cudart, sizeof(cudart));
	if (pin[0] != info->nvrtc_major || pin[1] != info->nvrtc_minor)
		return error_set(err, ERROR_CONFLICT,
				 "toolkit '%s' is pinned to %s but %s has "
				 "NVRTC %d.%d", tk, info->pin, info->home,
				 info->nvrtc_major, info->nvrtc_minor);
	if (pin[0] != info->nvjitlink_major ||
	    pin[1] != info->nvjitlink_minor)
		return error_set(err, ERROR_CONFLICT,
				 "toolkit '%s' is pinned to %s but %s has "
				 "nvJitLink %d.%d", tk, info->pin, info->home,
				 info->nvjitlink_major, info->nvjitlink_minor);
	if (pin[0] != info->cudart_version / 1000 ||
	    pin[1] != (info->cudart_version % 1000) / 10)
		return error_set(err, ERROR_CONFLICT,
				 "toolkit '%s' is pinned to %s but %s has "
				 "cudart %s", tk, info->pin, info->home, cudart);
	for (k = 0; k < info->n_components; k++) {
		if (strcmp(info->components[k].name, "cuda"))
			continue;
		ng = parse_version(info->components[k].value, got);
		for (i = 0; i < np; i++)
			if (ng < 0 || i >= ng || got[i] != pin[i])
				return error_set(err, ERROR_CONFLICT,
						 "toolkit '%s' is pinned to %s "
						 "but %s has CUDA %s "
						 "(version.json)", tk,
						 info->pin, info->home,
						 info->components[k].value);
	}
	return 0;
}
