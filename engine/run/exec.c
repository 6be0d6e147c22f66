/*
 * The real process runner: base/proc.h (fork under a guard on POSIX, a
 * job object on Windows) behind the exec_runner seam, and the variables
 * every action gets from ripple's environment.
 */
#include "engine/run/exec.h"

#include <string.h>

#include "base/error.h"
#include "base/proc.h"
#include "rules/rules.h"
#include "base/banned.h"

static int
sys_spawn(void *payload, const struct exec_spec *s, long *handle,
	  struct error *err)
{
	struct proc_spec p;

	memset(&p, 0, sizeof(p));
	p.argv = s->argv;
	p.argc = s->argc;
	p.shell = s->shell;
	p.cwd = s->cwd;
	p.env = s->env;
	p.n_env = s->n_env;
	p.log_path = s->log_path;
	return proc_spawn(payload, &p, handle, err);
}

static int
sys_wait(void *payload, long timeout_ms, long *handle,
	 struct exec_status *st, struct error *err)
{
	struct proc_status ps;
	int rc = proc_wait(payload, timeout_ms, handle, &ps, err);

	if (rc == 1) {
		st->exited = ps.exited;
		st->code = ps.code;
		st->signal = ps.signal;
	}
	return rc;
}

static int
sys_kill(void *payload, long handle, int sig)
{
	return proc_kill(payload, handle, sig == EXEC_SIGKILL ? PROC_SIGKILL
							    : PROC_SIGTERM);
}

static int64_t
sys_now(void *payload)
{
	(void)payload;
	return proc_now_ms();
}

int
exec_runner_system(struct exec_runner *out, struct error *err)
{
	struct proc_set *ps;
	int rc = proc_set_new(&ps, err);

	if (rc)
		return rc;
	out->spawn = sys_spawn;
	out->wait = sys_wait;
	out->kill = sys_kill;
	out->now_ms = sys_now;
	out->payload = ps;
	return 0;
}

void
exec_runner_system_release(struct exec_runner *r)
{
	proc_set_free(r->payload);
	r->payload = NULL;
}

size_t
exec_env_allowed(char *const *environ_, const char **out)
{
	const char *const *allowed = rules_env_always;
	size_t i, k, n = 0;

	for (k = 0; allowed[k]; k++) {
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
