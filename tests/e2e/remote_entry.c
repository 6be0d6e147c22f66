/*
 * A node's remote cache entry rewritten as a hostile cache writer would
 * (tests/e2e/remote_entry.h): raw protobuf, so the encoder's own checks
 * are no obstacle.
 */
#include "tests/e2e/remote_entry.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "engine/plan/record.h"
#include "graph/digest.h"
#include "tests/support/nginx.h"
#include "tests/support/support.h"

static size_t
varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static size_t
field_bytes(unsigned char *p, unsigned field, const void *s, size_t len)
{
	size_t n = varint(p, (uint64_t)field << 3 | 2);

	n += varint(p + n, len);
	memcpy(p + n, s, len);
	return n + len;
}

/* An OutputFile as ActionResult field 2. */
static size_t
pb_output(unsigned char *p, const char *path, const struct remote_digest *d,
	  int exec)
{
	unsigned char dg[128], of[8192];
	size_t nd = field_bytes(dg, 1, d->hash, 64), no;

	nd += varint(dg + nd, 2 << 3);
	nd += varint(dg + nd, (uint64_t)d->size);
	no = field_bytes(of, 1, path, strlen(path));
	no += field_bytes(of + no, 2, dg, nd);
	if (exec) {
		no += varint(of + no, 4 << 3);
		no += varint(of + no, 1);
	}
	return field_bytes(p, 2, of, no);
}

void
entry_load(struct entry *e, const char *node)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	struct error err;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/ac", t_fx.ng.root);
	d = opendir(dir);
	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		unsigned char *p;
		size_t n;
		json_t *j;

		if (de->d_name[0] == '.')
			continue;
		snprintf(e->ac, sizeof(e->ac), "%s/%s", dir, de->d_name);
		p = t_read_bytes(e->ac, &n);
		error_init(&err);
		cr_assert_eq(remote_action_decode(p, n, &e->a, &err), 0, "%s",
			     err.msg);
		free(p);
		snprintf(path, sizeof(path), "%s/cas/%s", t_fx.ng.root,
			 e->a.record.hash);
		j = json_load_file(path, 0, NULL);
		cr_assert_not_null(j);
		/* A run's bundle (node ripple:bundle) is no node's. */
		if (json_is_string(json_object_get(j, "node")) &&
		    !strcmp(json_string_value(json_object_get(j, "node")),
			    node)) {
			e->rec = j;
			closedir(d);
			return;
		}
		json_decref(j);
		remote_action_release(&e->a);
	}
	cr_assert_fail("no entry of %s on the server", node);
}

void
entry_craft(struct entry *e, const char *path, const char *text, int wrong)
{
	const char *names[8];
	char files[8][PATH_MAX], *blob;
	const char *fp[8];
	unsigned char buf[65536];
	struct remote_digest extra, recd;
	struct digest od;
	struct error err;
	size_t i, n = 0, len = 0;

	t_write(t_fx.tmp, "empty", "");
	for (i = 0; i < e->a.n; i++) {
		names[n] = e->a.outputs[i].path;
		/* The empty blob is never uploaded (every server has it). */
		if (e->a.outputs[i].digest.size)
			snprintf(files[n], PATH_MAX, "%s/cas/%s", t_fx.ng.root,
				 e->a.outputs[i].digest.hash);
		else
			snprintf(files[n], PATH_MAX, "%s/empty", t_fx.tmp);
		n++;
	}
	if (path) {
		t_fx_cas_put(text, strlen(text), &extra);
		names[n] = path;
		snprintf(files[n], PATH_MAX, "%s/cas/%s", t_fx.ng.root,
			 extra.hash);
		n++;
		json_array_append_new(json_object_get(e->rec, "artifacts"),
				      json_string(path));
	}
	for (i = 0; i < n; i++)
		fp[i] = files[i];
	error_init(&err);
	cr_assert_eq(record_output_digest_files(names, fp, n, &od, &err), 0,
		     "%s", err.msg);
	json_object_set_new(e->rec, "output_digest", json_string(
		wrong ? "0123456789abcdef0123456789abcdef" : od.hex));
	blob = json_dumps(e->rec, JSON_SORT_KEYS | JSON_COMPACT);
	t_fx_cas_put(blob, strlen(blob), &recd);
	free(blob);
	for (i = 0; i < e->a.n; i++)
		len += pb_output(buf + len, e->a.outputs[i].path,
				 &e->a.outputs[i].digest,
				 e->a.outputs[i].executable);
	if (path)
		len += pb_output(buf + len, path, &extra, 1);
	len += pb_output(buf + len, REMOTE_RECORD_PATH, &recd, 0);
	t_write_bytes(e->ac, buf, len);
}

void
entry_release(struct entry *e)
{
	remote_action_release(&e->a);
	json_decref(e->rec);
}
