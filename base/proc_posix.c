/*
 * base/proc.h on POSIX. Each action starts under a guard: ripple forks a
 * guard process that leads a new process group, and the guard forks the
 * action into that group. Both watch their parent (PR_SET_PDEATHSIG): if
 * ripple dies, even by SIGKILL, the guard kills the whole group, and an
 * action whose guard is gone dies too, so no build process outlives
 * ripple. When the action exits, the guard kills what it left behind in
 * the group (as Bazel's process-wrapper does) and exits with the action's
 * status. waitpid polls with a short sleep (so a signal flag set by the CLI
 * is seen promptly); kill signals the whole group.
 */
#define _GNU_SOURCE 1
#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

/* POSIX keeps its children in the kernel: waitpid(-1) finds them. */
struct proc_set {
	int unused;
};

/*
 * Everything the guard and the action need, made before fork: after it,
 * only async-signal-safe calls (ripple may hold threads of cudart).
 */
struct launch {
	const char *path;		/* the executable, resolved */
	char *const *argv;
	char *const *envp;
	const char *cwd;		/* or NULL */
	const char *log_path;		/* or NULL: stdout and stderr kept */
	pid_t ripple;			/* the guard's parent */
	int errfd;			/* CLOEXEC pipe: errno of a failed
					   start, nothing on exec */
};

/* The guard's parent is gone: kill its process group, guard included. */
static void
on_ripple_gone(int sig)
{
	(void)sig;
	kill(0, SIGKILL);
}

static void
report_errno(int fd, int e)
{
	ssize_t w;

	do
		w = write(fd, &e, sizeof(e));
	while (w < 0 && errno == EINTR);
}

/* In the action's process, after the guard's fork: never returns. */
_Noreturn static void
action(const struct launch *l, pid_t guard)
{
	struct sigaction dfl;
	sigset_t none;
	int sig, fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != guard)
		_exit(127);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0)
		goto fail;
	if (fd > 2)
		close(fd);
	if (l->cwd && chdir(l->cwd))
		goto fail;
	if (l->log_path) {
		fd = open(l->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			goto fail;
		if (fd > 2)
			close(fd);
	}
	execve(l->path, l->argv, l->envp);
fail:
	report_errno(l->errfd, errno);
	_exit(127);
}

/*
 * The guard, in ripple's child: lead a new group, start the action in it,
 * wait, clean the group up, exit as the action did. Never returns.
 */
_Noreturn static void
guard(const struct launch *l)
{
	struct sigaction sa;
	struct rlimit nocore = { 0, 0 };
	sigset_t none;
	pid_t self = getpid(), cmd;
	int st, e, sig;

	prctl(PR_SET_NAME, "ripple-guard");
	/*
	 * Keep no descriptor of ripple's but the status pipe: not the cache,
	 * not the run's owner lock (which must go when ripple goes), and
	 * nothing leaks into the action. Best effort: close_range is Linux
	 * 5.9; older kernels keep them until the action's exec (CLOEXEC).
	 */
	if (l->errfd > 3)
		close_range(3, (unsigned)l->errfd - 1, 0);
	close_range((unsigned)l->errfd + 1, ~0U, 0);
	setpgid(0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_ripple_gone;
	sigaction(SIGHUP, &sa, NULL);
	/* a group-wide SIGTERM (timeout, Ctrl-C) is for the action */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGHUP);
	if (getppid() != l->ripple)	/* ripple died before prctl */
		kill(0, SIGKILL);
	cmd = fork();
	if (cmd < 0) {
		report_errno(l->errfd, errno);
		_exit(127);
	}
	if (cmd == 0)
		action(l, self);
	close(l->errfd);
	while (waitpid(cmd, &st, 0) < 0)
		if (errno != EINTR)
			_exit(127);
	/*
	 * Leftovers (an action's background jobs) would outlive the node and
	 * could change its outputs after they are hashed: leave the group,
	 * then kill it. Parent death no longer matters here.
	 */
	prctl(PR_SET_PDEATHSIG, 0);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGHUP, &sa, NULL);
	if (setpgid(0, getpgid(l->ripple)) == 0)
		kill(-self, SIGKILL);
	if (WIFEXITED(st))
		_exit(WEXITSTATUS(st));
	sig = WTERMSIG(st);
	setrlimit(RLIMIT_CORE, &nocore);
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, NULL);
	kill(self, sig);
	e = 128 + sig;
	_exit(e);
}

/*
 * Find argv0 as execvp would, in the PATH of the action's environment
 * (else /bin:/usr/bin), relative entries against cwd. Writes the path
 * into out; returns 0 or an errno (ENOENT, EACCES, ENAMETOOLONG).
 */
static int
find_program(const char *argv0, const struct proc_spec *s, char *out,
	     size_t n)
{
	const char *path = "/bin:/usr/bin", *p, *end;
	size_t i;
	int seen_eacces = 0;

	if (strchr(argv0, '/')) {
		if ((size_t)snprintf(out, n, "%s", argv0) >= n)
			return ENAMETOOLONG;
		return 0;
	}
	for (i = 0; i < s->n_env; i++)
		if (!strncmp(s->env[i], "PATH=", 5))
			path = s->env[i] + 5;
	for (p = path;; p = end + 1) {
		struct stat st;
		size_t len;
		int w;

		end = strchr(p, ':');
		len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0)
			w = snprintf(out, n, "%s/%s", s->cwd ? s->cwd : ".",
				     argv0);
		else if (p[0] != '/' && s->cwd)
			w = snprintf(out, n, "%s/%.*s/%s", s->cwd, (int)len, p,
				     argv0);
		else
			w = snprintf(out, n, "%.*s/%s", (int)len, p, argv0);
		if (w > 0 && (size_t)w < n && !stat(out, &st) &&
		    S_ISREG(st.st_mode)) {
			if (!access(out, X_OK))
				return 0;
			seen_eacces = 1;
		}
		if (!end)
			break;
	}
	return seen_eacces ? EACCES : ENOENT;
}

/* Start *l under a guard: 0 and the guard's pid, or an errno. */
static int
launch(struct launch *l, pid_t *out)
{
	int fds[2], e = 0;
	ssize_t got;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return errno;
	if (fds[1] <= 2) {
		/* ripple started without stdin or stdout: keep the pipe off
		   the descriptors the action's stdio takes */
		int hi = fcntl(fds[1], F_DUPFD_CLOEXEC, 3);

		close(fds[1]);
		if (hi < 0) {
			e = errno;
			close(fds[0]);
			return e;
		}
		fds[1] = hi;
	}
	l->errfd = fds[1];
	l->ripple = getpid();
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(fds[0]);
		close(fds[1]);
		return e;
	}
	if (pid == 0)
		guard(l);
	/*
	 * No setpgid(pid, pid) here: the guard leads its group before it
	 * starts the action, and the read below returns only after the
	 * action's exec (or a failed start), so kill(-pid) works once this
	 * returns. Done here too, the call could come late (ripple
	 * descheduled on a loaded machine) and put back a guard that had
	 * already left its group to kill the action's leftovers: the guard
	 * then killed itself and a finished action read "killed by signal 9".
	 */
	close(fds[1]);
	do
		got = read(fds[0], &e, sizeof(e));
	while (got < 0 && errno == EINTR);
	close(fds[0]);
	if (got == (ssize_t)sizeof(e) && e) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return e;
	}
	*out = pid;
	return 0;
}

int
proc_set_new(struct proc_set **out, struct error *err)
{
	*out = mem_calloc(1, sizeof(**out));
	return *out ? 0 : error_set(err, ERROR_NOMEM, "out of memory");
}

/* What is still running was killed by the caller's stop path already:
 * the guards end their groups when ripple goes. */
void
proc_set_free(struct proc_set *ps)
{
	mem_free(ps);
}

int
proc_spawn(struct proc_set *ps, const struct proc_spec *s, long *handle,
	   struct error *err)
{
	struct launch l;
	const char **argv, **envp;
	char path[4096];
	size_t i, n = 0;
	pid_t pid = 0;
	int rc;

	(void)ps;
	if (!s->argc)
		return error_set(err, ERROR_INVALID, "empty command");
	argv = mem_calloc(s->argc + 4, sizeof(*argv));
	envp = mem_calloc(s->n_env + 1, sizeof(*envp));
	if (!argv || !envp) {
		mem_free(argv);
		mem_free(envp);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	if (s->shell) {
		argv[n++] = "/bin/sh";
		argv[n++] = "-c";
		argv[n++] = s->argv[0];
	} else {
		for (i = 0; i < s->argc; i++)
			argv[n++] = s->argv[i];
	}
	for (i = 0; i < s->n_env; i++)
		envp[i] = s->env[i];
	/* argv[0] without a slash is looked up in the action's PATH. */
	rc = find_program(argv[0], s, path, sizeof(path));
	if (!rc) {
		memset(&l, 0, sizeof(l));
		l.path = path;
		l.argv = (char *const *)argv;
		l.envp = (char *const *)envp;
		l.cwd = s->cwd;
		l.log_path = s->log_path;
		rc = launch(&l, &pid);
	}
	mem_free(argv);
	mem_free(envp);
	if (rc) {
		error_set(err, rc == ENOENT ? ERROR_NOT_FOUND : ERROR_IO,
			  "cannot start '%s': %s", s->shell ? "/bin/sh"
							    : s->argv[0],
			  strerror(rc));
		if (rc == ENOENT && s->cwd)
			error_hint(err, "relative commands and the working "
				   "directory '%s' must exist", s->cwd);
		return err->code;
	}
	*handle = (long)pid;
	return 0;
}

int
proc_wait(struct proc_set *ps, long timeout_ms, long *handle,
	  struct proc_status *st, struct error *err)
{
	long waited = 0;
	int status;

	(void)ps;
	for (;;) {
		pid_t pid = waitpid(-1, &status, WNOHANG);

		if (pid > 0) {
			*handle = (long)pid;
			memset(st, 0, sizeof(*st));
			if (WIFEXITED(status)) {
				st->exited = 1;
				st->code = WEXITSTATUS(status);
			} else if (WIFSIGNALED(status)) {
				st->signal = WTERMSIG(status);
			}
			return 1;
		}
		if (pid < 0 && errno != EINTR) {
			if (errno == ECHILD)
				return 0;
			return error_set(err, ERROR_IO, "waitpid: %s",
					 strerror(errno));
		}
		if (timeout_ms >= 0 && waited >= timeout_ms)
			return 0;
		{
			struct timespec ts = { 0, 5 * 1000 * 1000 };

			if (nanosleep(&ts, NULL) && errno == EINTR)
				return 0;
		}
		waited += 5;
	}
}

int
proc_kill(struct proc_set *ps, long handle, int sig)
{
	(void)ps;
	sig = sig == PROC_SIGKILL ? SIGKILL : SIGTERM;
	if (kill(-(pid_t)handle, sig) && kill((pid_t)handle, sig))
		return ERROR_IO;
	return 0;
}

int64_t
proc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
