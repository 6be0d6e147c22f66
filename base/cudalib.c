/*
 * What base/cudalib does the same on every system (cudalib_posix.c on
 * Linux, cudalib_win.c on Windows): naming the folders a library was
 * looked for in, and a file beside NVRTC. The names and folders
 * themselves, and loading, are each system's.
 */
#include "base/cudalib_int.h"

#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/banned.h"

int
cudalib_dirs_tried(struct buf *tried, const char *home,
		   const char *const *dirs, size_t n, struct error *err)
{
	size_t d;
	int rc = 0;

	for (d = 0; !rc && d < n; d++)
		rc = buf_addf(tried, err, "%s%s/%s", d ? ", " : "", home,
			      dirs[d]);
	return rc;
}

void
cudalib_beside(const char *path, const char *name, char *out, size_t n)
{
	const char *slash = strrchr(path, '/');
	int len;

	len = snprintf(out, n, "%.*s/%s", slash ? (int)(slash - path) : 1,
		       slash ? path : ".", name);
	if (len < 0 || (size_t)len >= n)
		out[0] = '\0';
}
