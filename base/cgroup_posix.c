/*
 * Linux cgroups' CPU quotas, for host_cpus (base/host.h): a container or a
 * CI job given two CPUs' worth of time on a 64-core host sees 64 cores
 * online and in its affinity, and threads past the quota only wait for
 * their share (as libuv's uv_available_parallelism and Go's GOMAXPROCS
 * count it). cgroup v2: cpu.max ("QUOTA PERIOD" or "max PERIOD"); v1: the
 * cpu controller's cpu.cfs_quota_us (-1: none) and cpu.cfs_period_us.
 */
#include "base/host.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/banned.h"

/* The first line of file dir/name into buf (NUL-terminated); 0, or -1. */
static int
first_line(const char *dir, const char *name, char *buf, size_t n)
{
	char path[PATH_MAX];
	FILE *f;
	int ok;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(buf, (int)n, f) != NULL;
	fclose(f);
	return ok ? 0 : -1;
}

/* A whole decimal number of text s (leading and trailing blanks aside). */
static int
number(const char *s, long long *out)
{
	char *end;

	*out = strtoll(s, &end, 10);
	if (end == s)
		return -1;
	while (*end == ' ' || *end == '\n' || *end == '\t')
		end++;
	return *end ? -1 : 0;
}

/* CPUs for quota and period (rounded up), 0 when either is no limit. */
static size_t
cpus_of(long long quota, long long period)
{
	if (quota <= 0 || period <= 0)
		return 0;
	return (size_t)((quota + period - 1) / period);
}

/* The quota set at cgroup folder dir, as CPUs, or 0. */
static size_t
quota_at(const char *dir, int v2)
{
	char buf[128], *sp;
	long long q, p;

	if (v2) {
		if (first_line(dir, "cpu.max", buf, sizeof(buf)))
			return 0;
		sp = strchr(buf, ' ');
		if (!sp || !strncmp(buf, "max ", 4))
			return 0;
		*sp = '\0';
		return number(buf, &q) || number(sp + 1, &p) ? 0
							     : cpus_of(q, p);
	}
	if (first_line(dir, "cpu.cfs_quota_us", buf, sizeof(buf)) ||
	    number(buf, &q))
		return 0;
	if (first_line(dir, "cpu.cfs_period_us", buf, sizeof(buf)) ||
	    number(buf, &p))
		return 0;
	return cpus_of(q, p);
}

static size_t
least(size_t a, size_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/*
 * The least quota from cgroup `rel` (as /proc/self/cgroup names it) up to
 * the hierarchy's root at `mount`. Where rel is not under mount (a
 * container sees the host's path of its cgroup, mounted as the root),
 * the root's own.
 */
static size_t
walk_up(const char *mount, const char *rel, size_t rel_len, int v2)
{
	char dir[PATH_MAX], *slash;
	size_t base = strlen(mount), best = 0;
	struct stat st;

	if (base + rel_len >= sizeof(dir))
		return quota_at(mount, v2);
	memcpy(dir, mount, base);
	memcpy(dir + base, rel, rel_len);
	dir[base + rel_len] = '\0';
	while (dir[base] && dir[strlen(dir) - 1] == '/')
		dir[strlen(dir) - 1] = '\0';
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return quota_at(mount, v2);
	for (;;) {
		best = least(best, quota_at(dir, v2));
		if (strlen(dir) <= base)
			break;
		slash = strrchr(dir + base, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	return best;
}

/* 1 when the comma-separated list [s, s + n) holds the word "cpu". */
static int
has_cpu(const char *s, size_t n)
{
	const char *end = s + n, *comma;

	while (s < end) {
		comma = memchr(s, ',', (size_t)(end - s));
		if (!comma)
			comma = end;
		if (comma - s == 3 && !memcmp(s, "cpu", 3))
			return 1;
		s = comma + 1;
	}
	return 0;
}

/* One line of /proc/self/cgroup, "ID:CONTROLLERS:PATH", in spans. */
struct entry {
	const char *id, *ctrls, *path;
	size_t id_len, ctrls_len, path_len;
};

/* The entry of the line at s (up to its newline); 0, or -1 when it is
 * not one. */
static int
entry_of(const char *s, size_t n, struct entry *e)
{
	const char *c1 = memchr(s, ':', n), *c2;

	if (!c1)
		return -1;
	c2 = memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - s));
	if (!c2)
		return -1;
	e->id = s;
	e->id_len = (size_t)(c1 - s);
	e->ctrls = c1 + 1;
	e->ctrls_len = (size_t)(c2 - e->ctrls);
	e->path = c2 + 1;
	e->path_len = n - (size_t)(e->path - s);
	return 0;
}

size_t
host_cgroup_cpus(const char *root, const char *self)
{
	const char *line, *nl;
	char mount[PATH_MAX];
	struct entry e;
	struct stat st;
	size_t best = 0, n;

	for (line = self; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		n = nl ? (size_t)(nl - line) : strlen(line);
		if (entry_of(line, n, &e))
			continue;
		if (e.id_len == 1 && e.id[0] == '0' && !e.ctrls_len) {
			/* v2: one hierarchy, mounted at the root. */
			best = least(best, walk_up(root, e.path, e.path_len,
						   1));
			continue;
		}
		if (!has_cpu(e.ctrls, e.ctrls_len))
			continue;
		/* v1: the cpu controller's hierarchy, mounted under its
		 * controllers' names ("cpu,cpuacct"), or as "cpu". */
		if ((size_t)snprintf(mount, sizeof(mount), "%s/%.*s", root,
				     (int)e.ctrls_len, e.ctrls) >=
			    sizeof(mount) ||
		    (stat(mount, &st) &&
		     (size_t)snprintf(mount, sizeof(mount), "%s/cpu", root) >=
			     sizeof(mount)))
			continue;
		best = least(best, walk_up(mount, e.path, e.path_len, 0));
	}
	return best;
}
