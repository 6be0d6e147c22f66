/*
 * sh.exe for Wine: a stand-in for Git for Windows' sh.exe, so that
 * ripple.exe under Wine can run the POSIX shell scripts a real
 * windows-latest runner runs with Git for Windows (tools/windows/demo.sh:
 * the cuda-bindings demo's win-64 nodes). Debian has no Windows sh; this
 * is a Winelib program (winegcc, wine64-tools), an ELF that Wine starts
 * as a Windows process: CreateProcessW gives ripple.exe a handle it can
 * wait on and put in a job object, and the exit status comes back, which
 * starting Debian's /bin/sh directly would not (Wine starts a Linux
 * program with no process handle). It lives with the tests, never in
 * ripple.
 *
 *   sh.exe -c LINE [ARG...]        sh.exe [OPTION] SCRIPT [ARG...]
 *
 * runs Debian's /bin/sh with the same arguments, translated as Git for
 * Windows' MSYS runtime reads them: an argument that is a whole Windows
 * absolute path ("Z:\x\ci\build-wheel", "C:/x") becomes the Unix path
 * Wine maps it to; the environment is the Windows one this process got
 * (not the Unix one Wine started it with), PATH split at ';' with each
 * folder translated and joined with ':', and any other variable whose
 * value is a whole Windows absolute path translated. The working folder
 * is the Windows one, translated. The script's stdout and stderr are
 * copied to this process's Windows standard handles (ripple's log), its
 * stdin is /dev/null. A guard process watches sh.exe: when Wine ends it
 * (ripple's timeout or kill ends the job), the guard gets SIGTERM
 * (PR_SET_PDEATHSIG) and kills the script's whole process group; when
 * the script exits, what it left running is killed too, as the job
 * object does on Windows. The exit status is the shell's
 * (128 + N for a signal N). An error of its own: a message naming
 * "sh.exe (Wine stand-in)" and exit 127.
 */
#define _GNU_SOURCE
#include <windows.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* A message of sh.exe's own on its Windows stderr. */
static void
say(const char *fmt, ...)
{
	char msg[1024];
	DWORD w;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n > 0)
		WriteFile(GetStdHandle(STD_ERROR_HANDLE), msg,
			  (DWORD)(n < (int)sizeof(msg) ? n : (int)sizeof(msg) - 1),
			  &w, NULL);
}

static char *
utf8(const WCHAR *w)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	char *s = n > 0 ? malloc((size_t)n) : NULL;

	if (s)
		WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
	return s;
}

/* 1 when s (n bytes, or up to '\0' when n is -1) is "X:\..." or "X:/...". */
static int
win_absolute(const char *s, int n)
{
	if (n < 0)
		n = (int)strlen(s);
	return n >= 3 && ((s[0] >= 'A' && s[0] <= 'Z') ||
			  (s[0] >= 'a' && s[0] <= 'z')) &&
	       s[1] == ':' && (s[2] == '\\' || s[2] == '/');
}

/* The Unix path Wine maps Windows path s (n bytes) to: malloc'd. */
static char *
unix_path(const char *s, int n)
{
	WCHAR *w;
	char *u, *r;
	int k = MultiByteToWideChar(CP_UTF8, 0, s, n, NULL, 0);

	if (k <= 0 || !(w = calloc((size_t)k + 1, sizeof(*w))))
		return NULL;
	MultiByteToWideChar(CP_UTF8, 0, s, n, w, k);
	u = wine_get_unix_file_name(w);
	free(w);
	if (!u)
		return NULL;
	r = strdup(u);
	HeapFree(GetProcessHeap(), 0, u);
	return r;
}

/* An argument or value: translated when it is a Windows path. */
static char *
arg_unix(const char *s)
{
	char *u = win_absolute(s, -1) ? unix_path(s, -1) : NULL;

	return u ? u : strdup(s);
}

/* Append n bytes of s to the malloc'd string *out (*at bytes long). */
static int
append(char **out, size_t *at, const char *s, size_t n)
{
	char *p = realloc(*out, *at + n + 1);

	if (!p)
		return -1;
	memcpy(p + *at, s, n);
	*at += n;
	p[*at] = '\0';
	*out = p;
	return 0;
}

/* "PATH=a;b" with each folder translated: "PATH=/a:/b", or NULL. */
static char *
path_unix(const char *value)
{
	char *out = NULL, *u;
	const char *p = value, *end;
	size_t at = 0;
	int rc = append(&out, &at, "PATH=", 5);

	while (!rc) {
		size_t len;

		end = strchr(p, ';');
		len = end ? (size_t)(end - p) : strlen(p);
		u = len && win_absolute(p, (int)len) ? unix_path(p, (int)len)
		    : NULL;
		if (len && at > 5)
			rc = append(&out, &at, ":", 1);
		if (len && !rc)
			rc = u ? append(&out, &at, u, strlen(u))
			     : append(&out, &at, p, len);
		free(u);
		if (!end)
			break;
		p = end + 1;
	}
	if (rc) {
		free(out);
		return NULL;
	}
	return out;
}

/* The Windows environment as Unix "NAME=VALUE" strings, NULL-ended. */
static char **
unix_environment(void)
{
	WCHAR *block = GetEnvironmentStringsW(), *e;
	size_t n = 0, i = 0;
	char **env;

	for (e = block; e && *e; e += lstrlenW(e) + 1)
		n++;
	env = calloc(n + 1, sizeof(*env));
	for (e = block; env && e && *e; e += lstrlenW(e) + 1) {
		char *s = utf8(e), *eq = s ? strchr(s, '=') : NULL, *t = NULL;

		if (!eq || eq == s) {	/* "=C:=C:\x": drive folders */
			free(s);
			continue;
		}
		*eq = '\0';
		if (!strcasecmp(s, "PATH"))
			t = path_unix(eq + 1);
		else if (win_absolute(eq + 1, -1)) {
			char *u = unix_path(eq + 1, -1);

			if (u && (t = malloc(strlen(s) + strlen(u) + 2)))
				sprintf(t, "%s=%s", s, u);
			free(u);
		}
		if (t) {
			free(s);
			env[i++] = t;
		} else {
			*eq = '=';
			env[i++] = s;
		}
	}
	FreeEnvironmentStringsW(block);
	return env;
}

static pid_t script_pid;

static void
on_term(int sig)
{
	(void)sig;
	if (script_pid > 0)
		kill(-script_pid, SIGKILL);
	_exit(128 + SIGTERM);
}

/* The script's process: its own group, default signals, then /bin/sh. */
static void
exec_shell(char **argv, char **env, const char *cwd, int out, int err)
{
	sigset_t none;
	int sig, in = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(127);
	closefrom(3);
	if (cwd && chdir(cwd)) {
		dprintf(2, "sh.exe (Wine stand-in): cannot enter %s: %s\n",
			cwd, strerror(errno));
		_exit(127);
	}
	execve("/bin/sh", argv, env);
	dprintf(2, "sh.exe (Wine stand-in): cannot run /bin/sh: %s\n",
		strerror(errno));
	_exit(127);
}

/*
 * The guard: starts the script, kills its group when sh.exe dies (the
 * SIGTERM of PR_SET_PDEATHSIG) or when the script is done, and exits
 * with the script's status.
 */
static void
guard(pid_t parent, char **argv, char **env, const char *cwd, int out,
      int err)
{
	struct sigaction sa;
	sigset_t term, old;
	int status;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(128 + SIGTERM);
	/* SIGTERM waits until script_pid names the script's group */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	script_pid = fork();
	if (script_pid < 0)
		_exit(127);
	if (!script_pid)
		exec_shell(argv, env, cwd, out, err);
	setpgid(script_pid, script_pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(out);
	close(err);
	while (waitpid(script_pid, &status, 0) < 0 && errno == EINTR)
		;
	kill(-script_pid, SIGKILL);
	_exit(WIFEXITED(status) ? WEXITSTATUS(status)
	      : 128 + WTERMSIG(status));
}

/* Copy what the script writes to fd to Windows handle h; 0 at the end. */
static int
pump(int fd, HANDLE h)
{
	char buf[65536];
	ssize_t n = read(fd, buf, sizeof(buf));
	DWORD w, at = 0;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 1;
	if (n <= 0)
		return 0;
	while (at < (DWORD)n && WriteFile(h, buf + at, (DWORD)n - at, &w,
					  NULL) && w)
		at += w;
	return 1;
}

int
main(void)
{
	WCHAR cwdw[32768], **wargv;
	int wargc, i, out[2], err[2], status;
	char **argv, **env, *cwd = NULL;
	struct pollfd pf[2];
	pid_t pid, self = getpid();

	wargv = CommandLineToArgvW(GetCommandLineW(), &wargc);
	argv = wargv ? calloc((size_t)wargc + 1, sizeof(*argv)) : NULL;
	if (!argv || wargc < 1) {
		say("sh.exe (Wine stand-in): cannot read its command line\n");
		return 127;
	}
	argv[0] = strdup("sh");
	for (i = 1; i < wargc; i++) {
		char *a = utf8(wargv[i]);

		argv[i] = a ? arg_unix(a) : NULL;
		free(a);
		if (!argv[i]) {
			say("sh.exe (Wine stand-in): argument %d is not "
			    "UTF-16\n", i);
			return 127;
		}
	}
	env = unix_environment();
	if (GetCurrentDirectoryW(32768, cwdw)) {
		char *c = utf8(cwdw);

		cwd = c && win_absolute(c, -1) ? unix_path(c, -1) : NULL;
		free(c);
	}
	if (!env || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		say("sh.exe (Wine stand-in): %s\n", strerror(errno));
		return 127;
	}
	pid = fork();
	if (pid < 0) {
		say("sh.exe (Wine stand-in): cannot fork: %s\n",
		    strerror(errno));
		return 127;
	}
	if (!pid) {
		close(out[0]);
		close(err[0]);
		guard(self, argv, env, cwd, out[1], err[1]);
	}
	close(out[1]);
	close(err[1]);
	pf[0].fd = out[0];
	pf[1].fd = err[0];
	pf[0].events = pf[1].events = POLLIN;
	while (pf[0].fd >= 0 || pf[1].fd >= 0) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < 2; i++)
			if (pf[i].fd >= 0 && pf[i].revents &&
			    !pump(pf[i].fd, GetStdHandle(i ? STD_ERROR_HANDLE
						  : STD_OUTPUT_HANDLE))) {
				close(pf[i].fd);
				pf[i].fd = -1;
			}
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(status) ? WEXITSTATUS(status)
	       : 128 + WTERMSIG(status);
}
