/*
 * base/host.h on POSIX (Linux: /proc/self/exe).
 */
#define _GNU_SOURCE 1		/* sched_getaffinity, CPU_COUNT */
#include "base/host.h"

#ifdef __linux__
#include <link.h>
#endif
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

#ifdef __linux__
/* The main program's notes (the first object dl_iterate_phdr names). */
struct build_id {
	char *out;
	size_t n;
};

static int
find_build_id(struct dl_phdr_info *info, size_t size, void *payload)
{
	static const char digits[] = "0123456789abcdef";
	struct build_id *b = payload;
	ElfW(Half) i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *nh = (const void *)p;
			size_t name = (nh->n_namesz + 3) & ~(size_t)3;
			size_t desc = (nh->n_descsz + 3) & ~(size_t)3;
			const unsigned char *d = p + sizeof(*nh) + name;
			size_t k;

			if ((size_t)(end - p) - sizeof(*nh) < name + desc)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID &&
			    nh->n_namesz == 4 && !memcmp(p + sizeof(*nh),
							 "GNU", 4) &&
			    2 * (size_t)nh->n_descsz < b->n) {
				for (k = 0; k < nh->n_descsz; k++) {
					b->out[2 * k] = digits[d[k] >> 4];
					b->out[2 * k + 1] = digits[d[k] & 15];
				}
				b->out[2 * k] = '\0';
				return 1;
			}
			p += sizeof(*nh) + name + desc;
		}
	}
	return 1;	/* the main program only */
}
#endif

void
host_build_id(char *out, size_t n)
{
	if (!n)
		return;
	out[0] = '\0';
#ifdef __linux__
	{
		struct build_id b = { out, n };

		dl_iterate_phdr(find_build_id, &b);
	}
#endif
}
