/*
 * What base/place does the same on every system (place.c and
 * place_walk.c on POSIX, place_win.c on Windows): refusing a path with
 * its reason, remembering the folders a placement made, splitting a path
 * from its folder, adding a staged file, and reading a temporary file's
 * name (NAME.ripple-tmp-PID-RANDOM) back for the sweep of files a killed
 * placement left.
 */
#include "base/place.h"
#include "base/place_int.h"

#include <string.h>

#include "base/error.h"
#include "base/host.h"
#include "base/mem.h"
#include "base/path.h"
#include "base/banned.h"

#define OOM(err) error_set(err, ERROR_NOMEM, "out of memory")

/*
 * The PID in a temp file's name, or 0 when it is not one of ours: the
 * last mark (a name may hold the mark itself), then digits, '-' and
 * exactly the 8 lowercase hex digits make_tmp writes, so a user's file
 * that merely looks alike is never swept.
 */
long
place_tmp_pid(const char *name)
{
	const char *m = NULL, *at, *p;
	long pid = 0;
	size_t k = 0;

	for (at = name; (at = strstr(at, PLACE_TMP_MARK)); at++)
		m = at;
	if (!m)
		return 0;
	for (p = m + strlen(PLACE_TMP_MARK); *p >= '0' && *p <= '9'; p++) {
		pid = pid * 10 + (*p - '0');
		if (pid > 1L << 30)
			return 0;
	}
	if (*p != '-' || p == m + strlen(PLACE_TMP_MARK))
		return 0;
	for (p++; *p; p++, k++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return k == 8 ? pid : 0;
}

static const char hint_links[] =
	"ripple never writes through a link, into a FIFO or onto a device: "
	"remove it (it may be committed) and run again";

/* ERROR_INVALID: rel is not written because `what` (a prefix) is `kind`. */
int
place_refuse(const char *rel, const char *what, size_t what_len,
	     const char *kind, struct error *err)
{
	if (what_len == strlen(rel))
		error_set(err, ERROR_INVALID, "'%s' is not written: it is %s",
			  rel, kind);
	else
		error_set(err, ERROR_INVALID, "'%s' is not written: '%.*s' is "
			  "%s", rel, (int)what_len, what, kind);
	error_hint(err, hint_links);
	return ERROR_INVALID;
}

int
place_name_check(const char *rel, struct error *err)
{
	size_t at, len;
	const char *why = path_name_refused(rel, strlen(rel),
					    host_path_names(), &at, &len);

	if (!why)
		return 0;
	error_set(err, ERROR_INVALID, "'%s' is not written: it %s ('%.*s')",
		  rel, why, (int)len, rel + at);
	error_hint(err, "the name would write another file than it says: "
		   "'.git' or '.ripple' by another spelling, or on Windows a "
		   "device, a stream or a short name (docs/security.md)");
	return ERROR_INVALID;
}

/* Remember folder rel[0..len) as made by this placement. */
int
place_note_made(struct place *p, const char *rel, size_t len, struct error *err)
{
	char *s;

	if (!p)
		return 0;
	if (p->n_made == p->cap_made) {
		size_t cap = p->cap_made ? 2 * p->cap_made : 8;
		char **v = mem_realloc(p->made, cap * sizeof(*v));

		if (!v)
			return OOM(err);
		p->made = v;
		p->cap_made = cap;
	}
	s = mem_alloc(len + 1);
	if (!s)
		return OOM(err);
	memcpy(s, rel, len);
	s[len] = '\0';
	p->made[p->n_made++] = s;
	return 0;
}

/* The folder part of rel: its length (0 for none), and the name. */
size_t
place_split(const char *rel, const char **name)
{
	const char *slash = strrchr(rel, '/');

	*name = slash ? slash + 1 : rel;
	return slash ? (size_t)(slash - rel) : 0;
}

struct place_file *
place_file_add(struct place *p, const char *rel, unsigned mode,
	       struct error *err)
{
	struct place_file *f;

	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 8;
		struct place_file *v = mem_realloc(p->files, cap * sizeof(*v));

		if (!v) {
			OOM(err);
			return NULL;
		}
		p->files = v;
		p->cap = cap;
	}
	f = &p->files[p->n];
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->mode = mode;
	f->rel = mem_strdup(rel);
	if (!f->rel) {
		OOM(err);
		return NULL;
	}
	return f;
}
