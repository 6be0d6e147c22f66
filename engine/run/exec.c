/*
 * The real process runner: posix_spawn into a new process group with the
 * log file on stdout and stderr, waitpid polling with a short sleep (so a
 * signal flag set by the CLI is seen promptly), kill by process group.
 */
#define _GNU_SOURCE 1
#include "engine/run/exec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/banned.h"

static int
posix_spawn_one(void *payload, const struct exec_spec *s, long *handle,
		struct error *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	const char **argv, **envp;
	size_t i, n = 0;
	pid_t pid;
	int rc;

	(void)payload;
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
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
				 POSIX_SPAWN_SETSIGMASK |
				 POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&at, 0);
	{
		sigset_t none, def;

		sigemptyset(&none);
		posix_spawnattr_setsigmask(&at, &none);
		sigemptyset(&def);
		sigaddset(&def, SIGINT);
		sigaddset(&def, SIGTERM);
		sigaddset(&def, SIGPIPE);
		sigaddset(&def, SIGCHLD);
		posix_spawnattr_setsigdefault(&at, &def);
	}
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (s->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, s->cwd);
	if (s->log_path) {
		posix_spawn_file_actions_addopen(&fa, 1, s->log_path,
						 O_WRONLY | O_CREAT | O_TRUNC,
						 0644);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
	}
	/* argv[0] without a slash is looked up in the child's PATH. */
	rc = (strchr(argv[0], '/') ? posix_spawn : posix_spawnp)(
		&pid, argv[0], &fa, &at, (char *const *)argv,
		(char *const *)envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
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

static int
posix_wait(void *payload, long timeout_ms, long *handle,
	   struct exec_status *st, struct error *err)
{
	long waited = 0;
	int status;

	(void)payload;
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

static int
posix_kill(void *payload, long handle, int sig)
{
	(void)payload;
	if (kill(-(pid_t)handle, sig) && kill((pid_t)handle, sig))
		return ERROR_IO;
	return 0;
}

static int64_t
posix_now(void *payload)
{
	struct timespec ts;

	(void)payload;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
exec_runner_posix(struct exec_runner *out)
{
	out->spawn = posix_spawn_one;
	out->wait = posix_wait;
	out->kill = posix_kill;
	out->now_ms = posix_now;
	out->payload = NULL;
}

size_t
exec_env_allowed(char *const *environ_, const char **out)
{
	static const char *const allowed[] = {
		"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TERM", "USER",
		"CUDA_HOME", "LD_LIBRARY_PATH",
	};
	size_t i, k, n = 0;

	for (k = 0; k < sizeof(allowed) / sizeof(*allowed); k++) {
		size_t len = strlen(allowed[k]);

		for (i = 0; environ_ && environ_[i]; i++)
			if (!strncmp(environ_[i], allowed[k], len) &&
			    environ_[i][len] == '=') {
				out[n++] = environ_[i];
				break;
			}
	}
	return n;
}
