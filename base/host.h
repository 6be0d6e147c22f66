/*
 * The machine ripple runs on, where POSIX and Windows ask differently:
 * base/host_posix.c (uname, sysconf, /proc/self/exe, TIOCGWINSZ) and
 * base/host_win.c (GetNativeSystemInfo, GetModuleFileNameW,
 * GetConsoleScreenBufferInfo).
 */
#ifndef RIPPLE_BASE_HOST_H
#define RIPPLE_BASE_HOST_H

#include <stddef.h>

/*
 * Make the standard streams, and files fopen opens without "b", carry
 * bytes as written: Windows opens them in text mode, writing "\r\n" for
 * "\n" (JSON, GitHub output files and logs then differ from Linux's);
 * also turns on escape sequences (colours) on a Windows console. Call once
 * at the start of main. Nothing to do on POSIX.
 */
void host_stdio_init(void);

/*
 * The conda platform (subdir) of this machine: "linux-64",
 * "linux-aarch64", "win-64" or "win-arm64"; NULL for another system or
 * processor. A static string.
 */
const char *host_platform(void);

/*
 * The rules for names that alias (base/path.h, path_name_refused) of the
 * system ripple runs on: PATH_NAMES_WINDOWS on Windows, 0 on POSIX.
 * Where files are placed (base/place.h) and remote cache entries read,
 * these decide what is refused beyond the rules of every system.
 */
unsigned host_path_names(void);

/*
 * This executable's build id as lowercase hex in out[0..n), NUL-terminated:
 * the linker's GNU build-id note (ELF), or on Windows the CodeView record
 * of the image's debug directory (its GUID and age, 40 digits: GNU ld's
 * --build-id, link.exe's /DEBUG); "" when it has none or it does not fit.
 * A memo of data whose meaning is this build's code (a rules model) keys
 * on it, so another build of the same version misses; with "" there is no
 * such memo.
 */
void host_build_id(char *out, size_t n);

/*
 * This machine's host name in out[0..n), NUL-terminated, UTF-8; "" when
 * the system does not say or it does not fit. Windows: the DNS host name.
 */
void host_name(char *out, size_t n);

/* The most names host_env_always lists. */
#define HOST_ENV_ALWAYS_MAX 12

/*
 * The system's own variables that every process needs, which every action
 * gets beside the rules' list (rules_env_always): none on POSIX; on
 * Windows SYSTEMROOT (without it Winsock and the C runtime fail), WINDIR,
 * TEMP, TMP, USERPROFILE, PATHEXT, COMSPEC, APPDATA, LOCALAPPDATA,
 * PROGRAMDATA, PROGRAMFILES. NULL-terminated, static.
 */
const char *const *host_env_always(void);

/*
 * 1 when the environment entry `entry` ("NAME=value") is the variable
 * `name`: exactly on POSIX, in any case on Windows, whose environment
 * spells PATH as Path.
 */
int host_env_is(const char *entry, const char *name);

/*
 * Processors this process may use (at least 1): those online, or fewer
 * where its CPU affinity allows fewer (Linux: sched_getaffinity, as
 * nproc(1) counts), or fewer again where a cgroup's CPU quota allows
 * less time (Linux: host_cgroup_cpus of /sys/fs/cgroup; `docker --cpus`,
 * Kubernetes CPU limits), as libuv's uv_available_parallelism counts.
 */
size_t host_cpus(void);

/*
 * The CPUs a Linux cgroup CPU quota allows: quota / period, rounded up,
 * the least over the process's cgroup and every cgroup above it, in each
 * hierarchy `self` names; 0 where none sets a quota. `root`: where the
 * cgroup file system is mounted ("/sys/fs/cgroup"); `self`: the text of
 * /proc/self/cgroup ("0::/PATH" for cgroup v2, whose cpu.max is read;
 * "N:cpu,cpuacct:/PATH" for v1, whose cpu.cfs_quota_us and
 * cpu.cfs_period_us are). A cgroup path not found under the mount (a
 * container sees its host's path) reads the mount's root. Files that do
 * not read or parse count as no quota. POSIX builds only.
 */
size_t host_cgroup_cpus(const char *root, const char *self);

/*
 * The files this process may have open at once (POSIX: the soft
 * RLIMIT_NOFILE, e.g. 1024 on Linux, 256 on macOS), or 0 when there is
 * no such limit or the system does not say (Windows: handles are not
 * counted so).
 */
size_t host_open_files(void);

/*
 * The stack the main thread may grow to, in bytes (POSIX: the soft
 * RLIMIT_STACK, 8 MiB by default on Linux, less after `ulimit -s`), or
 * 0 when unlimited or the system does not say (Windows: ripple.exe
 * reserves 8 MiB for it when linked, docs/windows.md).
 */
size_t host_stack_limit(void);

/*
 * The absolute path of the running program (ripple itself) in
 * out[0..n), NUL-terminated, UTF-8 ('/' separators on Windows too);
 * "" when the system does not say or it does not fit.
 */
void host_self_exe(char *out, size_t n);

/*
 * Columns of the terminal on standard error, or 0 when it is not a
 * terminal (a pipe, a file, a CI log) or the system does not say.
 */
int host_stderr_columns(void);

#endif
