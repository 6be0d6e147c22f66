/*
 * Paths that stay inside a folder: the lexical ".." test and resolution on
 * disk with realpath(3). See base/path.h for the design.
 */
#include "base/path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/fsys.h"
#include "base/utf8.h"
#include "base/banned.h"

int
path_leaves(const char *rel)
{
	const char *p = rel;

	if (rel[0] == '/')
		return 1;
	while (*p) {
		size_t len = strcspn(p, "/");

		if (len == 2 && p[0] == '.' && p[1] == '.')
			return 1;
		p += len;
		if (*p)
			p++;
	}
	return 0;
}

/* Bytes of the character path_bad_char found at s (n left): 1 or 2. */
static size_t
bad_len(const unsigned char *s, size_t n)
{
	return n >= 2 && s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f ? 2 : 1;
}

const char *
path_bad_char(const char *s, size_t n, char *what)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;

	while (i < n) {
		if (p[i] < 0x20 || p[i] == 0x7f) {
			if (what)
				snprintf(what, PATH_BAD_WHAT, "control "
					 "character \\x%02x", p[i]);
			return s + i;
		}
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		k = utf8_sequence_len(p + i, n - i);
		if (!k) {
			if (what)
				snprintf(what, PATH_BAD_WHAT, "byte \\x%02x, "
					 "which is not UTF-8,", p[i]);
			return s + i;
		}
		if (bad_len(p + i, n - i) == 2) {
			if (what)
				snprintf(what, PATH_BAD_WHAT, "control "
					 "character U+%04X", p[i + 1]);
			return s + i;
		}
		i += k;
	}
	return NULL;
}

int
path_escape_controls(struct buf *b, const char *s, struct error *err)
{
	size_t n = strlen(s);
	int rc = 0;

	while (!rc && n) {
		const char *bad = path_bad_char(s, n, NULL);
		size_t ok = bad ? (size_t)(bad - s) : n, k;

		rc = buf_add(b, s, ok, err);
		s += ok;
		n -= ok;
		if (!bad || rc)
			break;
		k = bad_len((const unsigned char *)s, n);
		for (; !rc && k; k--, s++, n--)
			rc = buf_addf(b, err, "\\x%02x", (unsigned char)*s);
	}
	return rc;
}

/*
 * Fold "." and ".." components of the absolute path in buf lexically, in
 * place ("/a/b/../c" -> "/a/c"; ".." at "/" stays at "/"). Folding never
 * lengthens a path, so it fits in buf; a path of PATH_RESOLVED_MAX bytes
 * or more is refused (ERROR_INVALID) rather than cut.
 */
static int
fold(char *buf, struct error *err)
{
	char tmp[PATH_RESOLVED_MAX];
	/* The root ("/"; Windows "C:/") stays, and ".." stops there. */
	size_t root = fsys_root_len(buf), o = root;
	const char *p = buf + root;

	memcpy(tmp, buf, root);
	while (*p) {
		size_t len = strcspn(p, "/");

		if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (o > root && tmp[o - 1] != '/')
				o--;
			if (o > root)
				o--;
		} else if (len && !(len == 1 && p[0] == '.')) {
			/* '/', the component and the final NUL */
			if (o + 1 + len + 1 > sizeof(tmp))
				return error_set(err, ERROR_INVALID, "path "
						 "'%.200s' is too long", buf);
			if (o > root)
				tmp[o++] = '/';
			memcpy(tmp + o, p, len);
			o += len;
		}
		p += len;
		if (*p)
			p++;
	}
	tmp[o] = '\0';
	memcpy(buf, tmp, o + 1);
	return 0;
}

/*
 * realpath(3) of the deepest existing prefix of the absolute `path`, the
 * missing rest appended. That rest is always a suffix of `path` (buf is
 * `path` cut at a '/'), so it is taken from `path` in place, not copied.
 */
static int
resolve(const char *path, char *out, size_t n, struct error *err)
{
	char buf[PATH_RESOLVED_MAX];
	const char *tail = "";
	char *r = NULL, *slash;
	int len;

	len = snprintf(buf, sizeof(buf), "%s", path);
	if (len < 0 || (size_t)len >= sizeof(buf) || !fsys_absolute(path))
		return error_set(err, ERROR_INVALID, "path '%.200s' is too "
				 "long or not absolute", path);
	for (;;) {
		r = fsys_realpath(buf);
		if (r)
			break;
		if (errno != ENOENT && errno != ENOTDIR)
			return error_set(err, ERROR_IO, "cannot resolve "
					 "'%.200s': %s", buf, strerror(errno));
		slash = strrchr(buf, '/');
		if (!slash || strlen(buf) <= fsys_root_len(buf))
			return error_set(err, ERROR_IO, "cannot resolve "
					 "'%.200s'", path);
		tail = path + (slash - buf) + 1;
		if ((size_t)(slash - buf) < fsys_root_len(buf))
			buf[fsys_root_len(buf)] = '\0';	/* the root */
		else
			*slash = '\0';
	}
	len = snprintf(out, n, "%s%s%s", r,
		       tail[0] && r[0] && r[strlen(r) - 1] != '/' ? "/" : "",
		       tail);
	free(r);
	if (len < 0 || (size_t)len >= n)
		return error_set(err, ERROR_INVALID, "path '%.200s' is too "
				 "long", path);
	return fold(out, err);
}

static int
is_under(const char *root, const char *p)
{
	size_t n = strlen(root);

	if (n && n == fsys_root_len(root))	/* "/", "C:/" */
		return !strncmp(p, root, n);
	return !strncmp(p, root, n) && (p[n] == '\0' || p[n] == '/');
}

int
path_resolve_under(const char *root, const char *rel, int follow_last,
		   char *out, size_t n, struct error *err)
{
	char rroot[PATH_RESOLVED_MAX], full[PATH_RESOLVED_MAX];
	char dir[PATH_RESOLVED_MAX], name[PATH_RESOLVED_MAX];
	const char *last = NULL;
	int len, rc;

	rc = resolve(root, rroot, sizeof(rroot), err);
	if (rc)
		return rc;
	len = fsys_absolute(rel) ? snprintf(full, sizeof(full), "%s", rel)
		: snprintf(full, sizeof(full), "%s/%s", root, rel);
	if (len < 0 || (size_t)len >= sizeof(full))
		return error_set(err, ERROR_INVALID, "path '%.200s' is too "
				 "long", rel);
	while ((size_t)len > fsys_root_len(full) && len > 1 &&
	       full[len - 1] == '/')
		full[--len] = '\0';
	if (!follow_last) {
		size_t rl = fsys_root_len(full);
		char *slash = strrchr(full, '/');

		last = slash + 1;
		if (!strcmp(last, ".") || !strcmp(last, "..") || !*last) {
			last = NULL;	/* nothing to keep unfollowed */
		} else {
			/* keep the name apart: cutting at a root's '/'
			   puts the root back over its first bytes */
			snprintf(name, sizeof(name), "%s", last);
			last = name;
			if ((size_t)(slash - full) < rl)
				full[rl] = '\0';
			else
				*slash = '\0';
		}
	}
	rc = resolve(full, dir, sizeof(dir), err);
	if (rc)
		return rc;
	if (last)
		len = snprintf(out, n, "%s%s%s", dir,
			       dir[0] && dir[strlen(dir) - 1] != '/' ? "/" : "",
			       last);
	else
		len = snprintf(out, n, "%s", dir);
	if (len < 0 || (size_t)len >= n)
		return error_set(err, ERROR_INVALID, "path '%.200s' is too "
				 "long", rel);
	return is_under(rroot, out);
}

int
path_mkdirs_under(const char *root, const char *rel, struct error *err)
{
	char part[PATH_RESOLVED_MAX], where[PATH_RESOLVED_MAX];
	size_t i, len = strlen(rel);
	int rc, e;

	if (len >= sizeof(part) || path_leaves(rel))
		return error_set(err, ERROR_INVALID, "folder '%.200s' leaves "
				 "'%.200s'", rel, root);
	for (i = 0; i <= len; i++) {
		if (rel[i] != '/' && rel[i] != '\0')
			continue;
		if (i == 0 || rel[i - 1] == '/')
			continue;
		memcpy(part, rel, i);
		part[i] = '\0';
		rc = path_resolve_under(root, part, 1, where, sizeof(where),
					err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			error_set(err, ERROR_INVALID, "'%s' resolves to "
				  "'%s', outside '%s'", part, where, root);
			error_hint(err, "remove the symlink, or point it "
				   "inside the repository");
			return ERROR_INVALID;
		}
		e = fsys_mkdir(where);
		if (e && e != EEXIST)
			return error_set(err, ERROR_IO, "cannot make '%s': %s",
					 where, strerror(e));
		/* A link made or changed in between, or a dangling one. */
		rc = path_resolve_under(root, part, 1, where, sizeof(where),
					err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			error_set(err, ERROR_INVALID, "'%s' resolves to "
				  "'%s', outside '%s'", part, where, root);
			return ERROR_INVALID;
		}
		{
			struct fsys_stat st;

			if (fsys_stat(where, &st) || st.kind != FSYS_DIR)
				return error_set(err, ERROR_IO, "cannot make "
						 "'%s': not a folder", where);
		}
	}
	return 0;
}

/*
 * Code points HFS+ ignores in names (git's is_hfs_dotgit list): the
 * bytes of the one at p (n left), or 0. UTF-8: U+200C-U+200F are e2 80
 * 8c-8f, U+202A-U+202E e2 80 aa-ae, U+206A-U+206F e2 81 aa-af, U+FEFF
 * ef bb bf.
 */
static size_t
hfs_ignored(const unsigned char *p, size_t n)
{
	if (n < 3)
		return 0;
	if (p[0] == 0xe2 && p[1] == 0x80 &&
	    ((p[2] >= 0x8c && p[2] <= 0x8f) || (p[2] >= 0xaa && p[2] <= 0xae)))
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xaa && p[2] <= 0xaf)
		return 3;
	if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		return 3;
	return 0;
}

static char
lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/*
 * Whether component c[0..n) is `name` (".git", ".ripple") on some file
 * system: folded (ASCII case, U+0131 as i, HFS+'s ignored code points
 * dropped, cut at ':', trailing dots and spaces dropped), it is `name`,
 * or its 8.3 short name (name without the dot, at most 6 characters,
 * then '~' and digits).
 */
static int
aliases(const char *c, size_t n, const char *name)
{
	const unsigned char *p = (const unsigned char *)c;
	char f[24];
	size_t i = 0, k = 0, short_len, base;

	while (i < n && p[i] != ':') {
		size_t skip = hfs_ignored(p + i, n - i);

		if (skip) {
			i += skip;
			continue;
		}
		if (k == sizeof(f) - 1)
			return 0;
		if (i + 1 < n && p[i] == 0xc4 && p[i + 1] == 0xb1) {
			f[k++] = 'i';
			i += 2;
			continue;
		}
		f[k++] = lower(c[i++]);
	}
	while (k && (f[k - 1] == '.' || f[k - 1] == ' '))
		k--;
	f[k] = '\0';
	if (!strcmp(f, name))
		return 1;
	short_len = strlen(name + 1) < 6 ? strlen(name + 1) : 6;
	if (k < short_len + 2 || memcmp(f, name + 1, short_len) ||
	    f[short_len] != '~')
		return 0;
	for (base = short_len + 1; base < k; base++)
		if (f[base] < '0' || f[base] > '9')
			return 0;
	return 1;
}

/* Whether c[0..n) is a Windows device name (path.h has the list). */
static int
is_device(const char *c, size_t n)
{
	static const char *const plain[] = { "con", "prn", "aux", "nul",
					     "conin$", "conout$" };
	char f[8];
	size_t k = 0, i;

	/* The name before its extension or stream, spaces after it cut. */
	while (k < n && c[k] != '.' && c[k] != ':')
		k++;
	while (k && c[k - 1] == ' ')
		k--;
	if (k > sizeof(f) - 1)
		return 0;
	for (i = 0; i < k; i++)
		f[i] = lower(c[i]);
	f[k] = '\0';
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!strcmp(f, plain[i]))
			return 1;
	if (strncmp(f, "com", 3) && strncmp(f, "lpt", 3))
		return 0;
	if (k == 4 && f[3] >= '0' && f[3] <= '9')
		return 1;
	/* Superscript 1, 2, 3: U+00B9, U+00B2, U+00B3 (c2 b9, c2 b2, c2 b3). */
	return k == 5 && (unsigned char)f[3] == 0xc2 &&
	       ((unsigned char)f[4] == 0xb9 || (unsigned char)f[4] == 0xb2 ||
		(unsigned char)f[4] == 0xb3);
}

/* Whether c[0..n) has the form of an 8.3 short name with '~' digits. */
static int
is_short_name(const char *c, size_t n)
{
	const char *dot = memchr(c, '.', n);
	size_t base = dot ? (size_t)(dot - c) : n, i;

	if (base < 3 || base > 8)
		return 0;
	if (dot && (n - base - 1 > 3 || memchr(dot + 1, '.', n - base - 1)))
		return 0;
	for (i = base; i > 0 && c[i - 1] >= '0' && c[i - 1] <= '9'; i--)
		;
	return i < base && i >= 2 && c[i - 1] == '~';
}

/* Why component c[0..n) of a path is refused (path_name_refused), or
 * NULL; first says whether it is the path's first component. */
static const char *
component_refused(const char *c, size_t n, int first, int win)
{
	if (!n || (n == 1 && c[0] == '.') ||
	    (n == 2 && c[0] == '.' && c[1] == '.'))
		return NULL;	/* other checks' business */
	if (aliases(c, n, ".git"))
		return "names git's '.git' folder on some file systems";
	if (first && aliases(c, n, ".ripple"))
		return "names ripple's '.ripple' folder on some file systems";
	if (!win)
		return NULL;
	if (is_device(c, n))
		return "names a Windows device (CON, NUL, COM1, ...), also "
		       "with an extension";
	if (memchr(c, ':', n))
		return "holds ':', an alternate data stream or a drive on "
		       "Windows";
	if (c[n - 1] == '.' || c[n - 1] == ' ')
		return "has a name ending in '.' or ' ', which Windows drops";
	if (is_short_name(c, n))
		return "has the form of an 8.3 short name ('~' and digits), "
		       "another file's on Windows";
	return NULL;
}

const char *
path_name_refused(const char *s, size_t n, unsigned flags, size_t *at,
		  size_t *len)
{
	const char *c = s, *end = s + n, *why = NULL;
	size_t k = n;
	int win = (flags & PATH_NAMES_WINDOWS) != 0;

	if (win && !(flags & PATH_NAMES_GLOB) && memchr(s, '\\', n)) {
		why = "holds '\\', a separator on Windows";
	} else {
		for (;;) {
			const char *slash = memchr(c, '/', (size_t)(end - c));

			k = (size_t)((slash ? slash : end) - c);
			why = component_refused(c, k, c == s, win);
			if (why || !slash)
				break;
			c = slash + 1;
		}
	}
	if (why && at)
		*at = (size_t)(c - s);
	if (why && len)
		*len = k;
	return why;
}
