/*
 * Distribution file names (graph/distfile.h): the version field of a
 * wheel, an sdist or a conda package, read from the base name alone.
 */
#include "graph/distfile.h"

#include <stdio.h>
#include <string.h>

#include "base/banned.h"

static int
ends_with(const char *s, size_t len, const char *suffix)
{
	size_t k = strlen(suffix);

	return len > k && !strcmp(s + len - k, suffix);
}

int
graph_dist_file_version(const char *path, char *out, size_t n)
{
	const char *base = strrchr(path, '/'), *end, *dash, *p;
	size_t len, fields = 1;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (n)
		out[0] = '\0';
	if (ends_with(base, len, ".whl")) {
		for (p = base; p < base + len - 4; p++)
			fields += *p == '-';
		if (fields < 5)
			return -1;
		dash = strchr(base, '-');
		end = strchr(dash + 1, '-');
		snprintf(out, n, "%.*s", (int)(end - dash - 1), dash + 1);
		return GRAPH_DIST_WHEEL;
	}
	if (ends_with(base, len, ".conda") || ends_with(base, len, ".tar.bz2")) {
		end = base + len - (ends_with(base, len, ".conda") ? 6 : 8);
		/* NAME-VERSION-BUILD: the names may hold dashes, the
		 * version and the build string never do. */
		for (dash = end; dash > base && dash[-1] != '-'; dash--)
			;
		if (dash == base)
			return -1;
		end = dash - 1;
		for (dash = end; dash > base && dash[-1] != '-'; dash--)
			;
		if (dash == base || dash == end)
			return -1;
		snprintf(out, n, "%.*s", (int)(end - dash), dash);
		return GRAPH_DIST_CONDA;
	}
	if (ends_with(base, len, ".tar.gz"))
		end = base + len - 7;
	else if (ends_with(base, len, ".zip"))
		end = base + len - 4;
	else
		return GRAPH_DIST_OTHER;
	for (dash = end; dash > base && dash[-1] != '-'; dash--)
		;
	if (dash == base)
		return GRAPH_DIST_OTHER;
	snprintf(out, n, "%.*s", (int)(end - dash), dash);
	return GRAPH_DIST_SDIST;
}
