/* Helpers for the concurrent and kill tests (tests/e2e/stress.h). */
#include "tests/e2e/stress.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *
ts_ripple_bin(void)
{
	const char *b = getenv("RIPPLE_BIN");
	char *p = realpath(b && b[0] ? b : "build/ripple", NULL);

	cr_assert_not_null(p, "no ripple binary");
	return p;
}

int
ts_env_int(const char *name, int dflt)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !s[0])
		return dflt;
	v = strtol(s, &end, 10);
	return *end || v <= 0 || v > 1000000 ? dflt : (int)v;
}

pid_t
ts_spawn(const char *dir, const char *const *argv, const char *log)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		int out = open(log ? log : "/dev/null",
			       O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
		    dup2(out, 2) < 0 || chdir(dir))
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

int
ts_wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Whether /proc/PID/cwd is dir or below it. */
static int
cwd_under(const char *pid, const char *dir, size_t n)
{
	char link[300], target[PATH_MAX];
	ssize_t len;

	snprintf(link, sizeof(link), "/proc/%s/cwd", pid);
	len = readlink(link, target, sizeof(target) - 1);
	if (len < 0)
		return 0;
	target[len] = '\0';
	return !strncmp(target, dir, n) && (target[n] == '\0' ||
					    target[n] == '/');
}

/* Whether the process is a zombie (gone, waiting to be reaped). */
static int
zombie(const char *pid)
{
	char path[300], buf[512], *p;
	FILE *f;
	size_t got;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	got = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[got] = '\0';
	p = strrchr(buf, ')');
	return !p || p[1] == '\0' || p[2] == 'Z' || p[2] == 'X';
}

static int
scan(const char *dir, pid_t *pids, int n, int report)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t len = strlen(dir);
	int found = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char path[300], cmd[256];
		FILE *f;
		size_t got, i;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' ||
		    strtol(e->d_name, NULL, 10) == getpid() || !cwd_under(e->d_name, dir,
							       len) ||
		    zombie(e->d_name))
			continue;
		if (found < n)
			pids[found] = (pid_t)strtol(e->d_name, NULL, 10);
		found++;
		if (!report)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		f = fopen(path, "r");
		got = f ? fread(cmd, 1, sizeof(cmd) - 1, f) : 0;
		if (f)
			fclose(f);
		for (i = 0; i + 1 < got; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		cmd[got] = '\0';
		fprintf(stderr, "left running: pid %s: %s\n", e->d_name, cmd);
	}
	closedir(d);
	return found;
}

int
ts_procs_under(const char *dir, int grace_ms, pid_t *pids, int n)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	int waited;

	if (grace_ms <= 0)
		return scan(dir, pids, n, 0);
	for (waited = 0; waited < grace_ms; waited += 20) {
		if (!scan(dir, pids, n, 0))
			return 0;
		nanosleep(&pause, NULL);
	}
	return scan(dir, pids, n, 1);
}
