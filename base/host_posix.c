/*
 * base/host.h on POSIX (Linux: /proc/self/exe).
 */
#define _GNU_SOURCE 1		/* sched_getaffinity, CPU_COUNT */
#include "base/host.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/banned.h"

void
host_stdio_init(void)
{
}

unsigned
host_path_names(void)
{
	return 0;
}

const char *
host_platform(void)
{
	struct utsname u;

	if (uname(&u) || strcmp(u.sysname, "Linux"))
		return NULL;
	if (!strcmp(u.machine, "x86_64"))
		return "linux-64";
	if (!strcmp(u.machine, "aarch64"))
		return "linux-aarch64";
	return NULL;
}

void
host_name(char *out, size_t n)
{
	if (!n)
		return;
	if (gethostname(out, n - 1))
		out[0] = '\0';
	out[n - 1] = '\0';
}

const char *const *
host_env_always(void)
{
	static const char *const none[] = { NULL };

	return none;
}

int
host_env_is(const char *entry, const char *name)
{
	size_t len = strlen(name);

	return !strncmp(entry, name, len) && entry[len] == '=';
}

size_t
host_cpus(void)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cores > 0 ? (size_t)cores : 1, quota = 0;
	char self[4096];
	FILE *f;
#ifdef CPU_COUNT
	cpu_set_t set;

	/* taskset, docker --cpuset-cpus, a CI runner's cgroup cpuset: the
	 * processors this process may run on, as nproc(1) counts them. */
	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0 &&
	    (size_t)CPU_COUNT(&set) < n)
		n = (size_t)CPU_COUNT(&set);
#endif
	/* docker --cpus, a Kubernetes CPU limit: time for fewer. */
	f = fopen("/proc/self/cgroup", "r");
	if (f) {
		size_t got = fread(self, 1, sizeof(self) - 1, f);

		self[got] = '\0';
		fclose(f);
		quota = host_cgroup_cpus("/sys/fs/cgroup", self);
	}
	return quota && quota < n ? quota : n;
}

size_t
host_open_files(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	return (size_t)rl.rlim_cur;
}

size_t
host_stack_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_STACK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	return (size_t)rl.rlim_cur;
}

void
host_self_exe(char *out, size_t n)
{
	ssize_t sl;

	if (!n)
		return;
	sl = readlink("/proc/self/exe", out, n - 1);
	out[sl > 0 ? sl : 0] = '\0';
}

int
host_stderr_columns(void)
{
	struct winsize ws;

	if (!ioctl(2, TIOCGWINSZ, &ws))
		return ws.ws_col;
	return 0;
}
