/*
 * From raw claimed entries to a keyed source state: symlink resolution
 * (relative to the link's directory, staying inside the repository), the
 * warnings for links that escape or dangle, and the versioned XXH3-128
 * encoding documented in docs/patterns.md.
 */
#include "graph/source.h"
#include "graph/source_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

#define MAX_HOPS 16

void
graph_source_state_release(struct graph_source_state *st)
{
	if (!st)
		return;
	arena_release(&st->arena);
	memset(st, 0, sizeof(*st));
	arena_init(&st->arena);
}

static void
put_u32(XXH3_state_t *h, uint32_t v)
{
	unsigned char b[4];

	b[0] = (unsigned char)(v & 0xff);
	b[1] = (unsigned char)((v >> 8) & 0xff);
	b[2] = (unsigned char)((v >> 16) & 0xff);
	b[3] = (unsigned char)(v >> 24);
	XXH3_128bits_update(h, b, 4);
}

static void
put_str(XXH3_state_t *h, const char *s)
{
	uint32_t n = (uint32_t)strlen(s);

	put_u32(h, n);
	XXH3_128bits_update(h, s, n);
}

void
graph_source_dir_entry(void *state, const char *rel, unsigned mode,
		       const unsigned char oid[20])
{
	graph_source_dir_entry2(state, "", rel, mode, oid);
}

void
graph_source_dir_entry2(void *state, const char *dir, const char *name,
			unsigned mode, const unsigned char oid[20])
{
	XXH3_state_t *h = state;
	size_t a = strlen(dir), b = strlen(name);

	/* put_str of dir + name, streamed: no buffer to cut it short. */
	put_u32(h, (uint32_t)(a + b));
	XXH3_128bits_update(h, dir, a);
	XXH3_128bits_update(h, name, b);
	put_u32(h, mode);
	XXH3_128bits_update(h, oid, 20);
}

static void
hex_of(const unsigned char *b, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[2 * n] = '\0';
}

/*
 * Normalize `target` relative to the directory of `link` into *out.
 * Returns 0 inside, 1 when it escapes (absolute, or ".." above the root,
 * or the root itself).
 */
static int
normalize(const char *link, const char *target, struct buf *out)
{
	const char *slash = strrchr(link, '/'), *p, *e;
	size_t n;

	buf_reset(out);
	if (target[0] == '/' || !target[0])
		return 1;
	if (slash)
		buf_add(out, link, (size_t)(slash - link), NULL);
	for (p = target; *p; p = *e ? e + 1 : e) {
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		n = (size_t)(e - p);
		if (n == 0 || (n == 1 && p[0] == '.'))
			continue;
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *cut;

			if (!out->len)
				return 1;
			cut = strrchr(out->data, '/');
			out->len = cut ? (size_t)(cut - out->data) : 0;
			out->data[out->len] = '\0';
			continue;
		}
		if (out->len)
			buf_addch(out, '/', NULL);
		buf_add(out, p, n, NULL);
	}
	return out->len ? 0 : 1;
}

static int
add_warning(struct graph_source_state *st, struct graph_source_warning **v,
	    size_t *cap, const char *path, const char *target,
	    const char *reason, struct error *err)
{
	struct graph_source_warning *nv;

	if (st->n_warnings == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		nv = arena_alloc(&st->arena, *cap * sizeof(*nv));
		if (!nv)
			return error_set(err, ERROR_NOMEM, "out of memory");
		if (st->n_warnings)
			memcpy(nv, *v, st->n_warnings * sizeof(*nv));
		*v = nv;
	}
	(*v)[st->n_warnings].path = path;
	(*v)[st->n_warnings].target = target;
	(*v)[st->n_warnings].reason = reason;
	st->n_warnings++;
	return 0;
}

/* Note a path the resolution of f looks up (f->link_hops). */
static int
add_hop(struct graph_source_state *st, struct graph_source_file *f,
	const char *path, struct error *err)
{
	const char **v = arena_alloc(&st->arena,
				     (f->n_link_hops + 1) * sizeof(*v));

	if (!v)
		return error_set(err, ERROR_NOMEM, "out of memory");
	if (f->n_link_hops)
		memcpy(v, f->link_hops, f->n_link_hops * sizeof(*v));
	v[f->n_link_hops] = arena_strdup(&st->arena, path);
	if (!v[f->n_link_hops])
		return error_set(err, ERROR_NOMEM, "out of memory");
	f->link_hops = v;
	f->n_link_hops++;
	return 0;
}

/* Resolve one symlink file in place; a warning reason or NULL. */
static int
resolve(struct graph_source_state *st, struct graph_source_file *f,
	const struct graph_source_view *view, const char **reason,
	struct error *err)
{
	struct buf cur = BUF_INIT, text = BUF_INIT, next = BUF_INIT;
	const char *linkpath = f->path, *target = f->link_target;
	unsigned char oid[20], d[16];
	unsigned mode;
	int rc = 0, hops;
	char *owned = NULL;

	*reason = NULL;
	f->link_hops = NULL;
	f->n_link_hops = 0;
	for (hops = 0;; hops++) {
		if (hops == MAX_HOPS) {
			f->link_state = GRAPH_LINK_DANGLING;
			*reason = "too many levels of symbolic links";
			goto done;
		}
		if (normalize(linkpath, target, &next)) {
			f->link_state = GRAPH_LINK_ESCAPES;
			*reason = "escapes the repository";
			goto done;
		}
		rc = add_hop(st, f, next.data, err);
		if (rc)
			goto done;
		rc = view->lookup(view->ctx, next.data, &mode, oid, err);
		if (rc < 0)
			goto done;
		if (rc == 1) {
			rc = 0;
			f->link_state = GRAPH_LINK_DANGLING;
			*reason = "dangles";
			goto done;
		}
		if (mode != 0120000)
			break;
		/* A link to a link: follow it from its own directory. */
		buf_reset(&text);
		rc = view->link_text(view->ctx, next.data, oid, &text, err);
		if (rc)
			goto done;
		buf_reset(&cur);
		rc = buf_add(&cur, next.data, next.len, err);
		if (rc)
			goto done;
		mem_free(owned);
		owned = buf_detach(&text);
		if (!owned) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			goto done;
		}
		linkpath = cur.data;
		target = owned;
	}
	f->link_state = GRAPH_LINK_INSIDE;
	f->link_resolved = arena_strdup(&st->arena, next.data);
	if (!f->link_resolved) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	f->target_mode = mode;
	if (mode == 040000) {
		rc = view->dir_digest(view->ctx, next.data, d, err);
		if (rc)
			goto done;
		hex_of(d, 16, f->target_id);
	} else {
		hex_of(oid, 20, f->target_id);
	}
done:
	mem_free(owned);
	buf_release(&next);
	buf_release(&text);
	buf_release(&cur);
	return rc;
}

static void
le32(unsigned char *b, uint32_t v)
{
	b[0] = (unsigned char)(v & 0xff);
	b[1] = (unsigned char)((v >> 8) & 0xff);
	b[2] = (unsigned char)((v >> 16) & 0xff);
	b[3] = (unsigned char)(v >> 24);
}

static void
hash_file(XXH3_state_t *h, const struct graph_source_file *f,
	  const unsigned char oid[20], size_t plen)
{
	unsigned char rec[512];

	if (plen + 28 <= sizeof(rec)) {
		/* The same bytes as put_str, put_u32, oid: one update. */
		le32(rec, (uint32_t)plen);
		memcpy(rec + 4, f->path, plen);
		le32(rec + 4 + plen, f->mode);
		memcpy(rec + 8 + plen, oid, 20);
		XXH3_128bits_update(h, rec, plen + 28);
	} else {
		put_str(h, f->path);
		put_u32(h, f->mode);
		XXH3_128bits_update(h, oid, 20);
	}
	if (f->kind != GRAPH_FILE_SYMLINK)
		return;
	put_str(h, f->link_target);
	put_u32(h, (uint32_t)f->link_state);
	if (f->link_state != GRAPH_LINK_INSIDE)
		return;
	put_str(h, f->link_resolved);
	put_u32(h, f->target_mode);
	put_str(h, f->target_id);
}

/* A folder claimed whole and holding no symlink: its path, mode 040000
 * and git's tree id stand for everything below it. */
static void
hash_folder(XXH3_state_t *h, const struct graph_source_raw *r)
{
	put_str(h, r->path);
	put_u32(h, 040000);
	XXH3_128bits_update(h, r->oid, 20);
}

/*
 * The end of the entries under folder marker raw[i] (everything after it
 * whose path is below it, contiguous in path order), and in *links
 * whether a symlink is among them.
 */
static size_t
folder_end(const struct graph_source_raw *raw, size_t n, size_t i,
	   int *links)
{
	size_t len = strlen(raw[i].path), j;

	*links = 0;
	for (j = i + 1; j < n; j++) {
		if (strncmp(raw[j].path, raw[i].path, len) ||
		    raw[j].path[len] != '/')
			break;
		if (raw[j].mode == 0120000)
			*links = 1;
	}
	return j;
}

int
graph_source_finish(struct graph_source_state *st,
		    const struct graph_source_raw *raw, size_t n,
		    const struct graph_source_view *view, struct error *err)
{
	struct graph_source_warning *warn = NULL;
	struct buf text = BUF_INIT;
	XXH3_state_t h;
	XXH128_hash_t d;
	XXH128_canonical_t c;
	size_t i, wcap = 0, nf = 0, fold_end = 0, end;
	const char *reason;
	size_t total = 0, plen;
	uint32_t records = 0;
	char *paths = NULL;
	int rc = 0, links;

	for (i = 0; i < n; i++)
		if (raw[i].mode != 040000) {
			total += strlen(raw[i].path) + 1;
			nf++;
		}
	if (total) {
		paths = arena_alloc(&st->arena, total);
		if (!paths)
			return error_set(err, ERROR_NOMEM, "out of memory");
	}
	st->files = nf ? arena_alloc(&st->arena, nf * sizeof(*st->files)) : NULL;
	if (nf && !st->files)
		return error_set(err, ERROR_NOMEM, "out of memory");
	st->n_files = 0;
	XXH3_128bits_reset(&h);
	XXH3_128bits_update(&h, "ripple-source-v2", 17);
	for (i = 0; i < n; i++) {
		struct graph_source_file *f;

		if (raw[i].mode == 040000) {
			/* A folder claimed whole: folded into its tree id
			 * when nothing below it is a link (a link's target
			 * may change while the tree stays), else its
			 * entries are hashed one by one. */
			if (i < fold_end)
				continue;
			end = folder_end(raw, n, i, &links);
			if (!links) {
				hash_folder(&h, &raw[i]);
				records++;
				fold_end = end;
			}
			continue;
		}
		f = &st->files[st->n_files++];
		plen = strlen(raw[i].path);
		memcpy(paths, raw[i].path, plen + 1);
		f->path = paths;
		paths += plen + 1;
		f->mode = raw[i].mode;
		f->kind = raw[i].mode == 0120000 ? GRAPH_FILE_SYMLINK :
			raw[i].mode == 0160000 ? GRAPH_FILE_SUBMODULE :
			GRAPH_FILE_BLOB;
		hex_of(raw[i].oid, 20, f->id);
		if (f->kind == GRAPH_FILE_SYMLINK) {
			buf_reset(&text);
			rc = view->link_text(view->ctx, f->path, raw[i].oid,
					     &text, err);
			if (rc)
				goto done;
			f->link_target = arena_strndup(&st->arena, text.data,
						       text.len);
			if (!f->link_target) {
				rc = error_set(err, ERROR_NOMEM, "out of memory");
				goto done;
			}
			rc = resolve(st, f, view, &reason, err);
			if (rc)
				goto done;
			if (reason) {
				rc = add_warning(st, &warn, &wcap, f->path,
						 f->link_target, reason, err);
				if (rc)
					goto done;
			}
		}
		if (i >= fold_end) {
			hash_file(&h, f, raw[i].oid, plen);
			records++;
		}
	}
	put_u32(&h, records);
	st->warnings = warn;
	d = XXH3_128bits_digest(&h);
	XXH128_canonicalFromHash(&c, d);
	memcpy(st->key, c.digest, 16);
	hex_of(st->key, 16, st->key_hex);
done:
	buf_release(&text);
	return rc;
}
