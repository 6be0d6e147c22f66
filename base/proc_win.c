/*
 * base/proc.h on Windows. Each action is created suspended, put into a job
 * object of its own (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: when ripple's
 * last handle to the job closes, even because ripple was killed, Windows
 * kills every process in it), then resumed; a process the action starts
 * is in the job too. When the action's process exits, the job is
 * terminated, so nothing it left running outlives the node, as the POSIX
 * guard does with its process group. PROC_SIGTERM sends Ctrl-Break to
 * the action's process group (it was created in a new one); PROC_SIGKILL
 * terminates the job.
 *
 * A script named as the command runs with the interpreter of its "#!"
 * line, found in the action's PATH ("#!/bin/sh": sh.exe; "#!/usr/bin/env
 * python3": python3.exe), as Git for Windows runs scripts.
 *
 * Command lines are quoted as the Microsoft C runtime splits them
 * (CommandLineToArgvW's rules); the environment block is UTF-16, sorted
 * as Windows expects; stdin is NUL and the log file is inherited as
 * stdout and stderr, and only those handles are inherited
 * (PROC_THREAD_ATTRIBUTE_HANDLE_LIST).
 */
#include "base/proc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/fsys.h"
#include "base/mem.h"
#include "base/wide_win.h"
#include "base/error.h"
#include "base/banned.h"

struct live {
	long id;		/* the process id: the handle */
	HANDLE process, job;
	int killed;		/* the PROC_SIG* that ended it, or 0 */
};

struct proc_set {
	struct live *v;
	size_t n, cap;
};

int
proc_set_new(struct proc_set **out, struct error *err)
{
	*out = mem_calloc(1, sizeof(**out));
	return *out ? 0 : error_set(err, ERROR_NOMEM, "out of memory");
}

static void
forget(struct proc_set *ps, size_t i)
{
	CloseHandle(ps->v[i].process);
	CloseHandle(ps->v[i].job);	/* kills what is left in it */
	ps->v[i] = ps->v[--ps->n];
}

void
proc_set_free(struct proc_set *ps)
{
	if (!ps)
		return;
	while (ps->n)
		forget(ps, ps->n - 1);
	mem_free(ps->v);
	mem_free(ps);
}

/* Append one argument to a command line as CommandLineToArgvW reads it. */
static int
quote_arg(struct buf *b, const char *a, struct error *err)
{
	size_t slashes = 0;
	int rc = 0;

	if (b->len)
		rc = buf_addch(b, ' ', err);
	if (!rc && a[0] && !strpbrk(a, " \t\n\v\""))
		return buf_addstr(b, a, err);
	if (!rc)
		rc = buf_addch(b, '"', err);
	for (; !rc && *a; a++) {
		if (*a == '\\') {
			slashes++;
			rc = buf_addch(b, '\\', err);
			continue;
		}
		if (*a == '"') {
			/* double the backslashes before a quote, then \" */
			while (!rc && slashes--)
				rc = buf_addch(b, '\\', err);
			if (!rc)
				rc = buf_addstr(b, "\\\"", err);
		} else {
			rc = buf_addch(b, *a, err);
		}
		slashes = 0;
	}
	/* backslashes before the closing quote are doubled too */
	while (!rc && slashes--)
		rc = buf_addch(b, '\\', err);
	if (!rc)
		rc = buf_addch(b, '"', err);
	return rc;
}

static int
cmp_env(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	/* Windows sorts its block by name, case-insensitively. */
	for (; *x && *x != '=' && *y && *y != '='; x++, y++) {
		int cx = (*x >= 'a' && *x <= 'z') ? *x - 32 : *x;
		int cy = (*y >= 'a' && *y <= 'z') ? *y - 32 : *y;

		if (cx != cy)
			return cx - cy;
	}
	return (*x && *x != '=') - (*y && *y != '=');
}

/* The UTF-16 environment block of spec: "K=V\0...\0\0". */
static wchar_t *
env_block(const struct proc_spec *s, struct error *err)
{
	const char **v = mem_calloc(s->n_env + 1, sizeof(*v));
	wchar_t *block = NULL, **w = NULL;
	size_t i, total = 1, at = 0;

	if (!v)
		goto nomem;
	memcpy(v, s->env, s->n_env * sizeof(*v));
	qsort(v, s->n_env, sizeof(*v), cmp_env);
	w = mem_calloc(s->n_env + 1, sizeof(*w));
	if (!w)
		goto nomem;
	for (i = 0; i < s->n_env; i++) {
		w[i] = wide_from_utf8(v[i], err);
		if (!w[i])
			goto done;
		total += wcslen(w[i]) + 1;
	}
	block = mem_calloc(total + 1, sizeof(*block));
	if (!block)
		goto nomem;
	for (i = 0; i < s->n_env; i++) {
		size_t len = wcslen(w[i]) + 1;

		memcpy(block + at, w[i], len * sizeof(*block));
		at += len;
	}
	goto done;
nomem:
	error_set(err, ERROR_NOMEM, "out of memory");
done:
	for (i = 0; w && i < s->n_env; i++)
		free(w[i]);
	mem_free(w);
	mem_free(v);
	return block;
}

/* The value of NAME in spec's environment, or NULL. */
static const char *
env_get(const struct proc_spec *s, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < s->n_env; i++)
		if (!_strnicmp(s->env[i], name, n) && s->env[i][n] == '=')
			return s->env[i] + n + 1;
	return NULL;
}

/*
 * Find argv0 as CreateProcess users expect, in the action's PATH
 * (';'-separated; relative entries against cwd), trying the name as
 * given and with ".exe". 0 with the path in out, or ENOENT.
 */
static int
find_program(const char *argv0, const struct proc_spec *s, char *out,
	     size_t n)
{
	static const char *const exts[] = { "", ".exe" };
	const char *path = env_get(s, "PATH"), *p, *end;
	struct fsys_stat st;
	size_t k;
	int w;

	if (strchr(argv0, '/') || strchr(argv0, '\\')) {
		for (k = 0; k < 2; k++) {
			w = snprintf(out, n, "%s%s%s%s",
				     fsys_absolute(argv0) || !s->cwd ? ""
				     : s->cwd, fsys_absolute(argv0) ||
				     !s->cwd ? "" : "/", argv0, exts[k]);
			if (w > 0 && (size_t)w < n && !fsys_stat(out, &st) &&
			    st.kind == FSYS_REG)
				return 0;
		}
		return ENOENT;
	}
	for (p = path ? path : ""; path; p = end + 1) {
		size_t len;

		end = strchr(p, ';');
		len = end ? (size_t)(end - p) : strlen(p);
		for (k = 0; len && k < 2; k++) {
			int rel = !fsys_absolute(p) && s->cwd;

			w = snprintf(out, n, "%s%s%.*s/%s%s", rel ? s->cwd : "",
				     rel ? "/" : "", (int)len, p, argv0,
				     exts[k]);
			if (w > 0 && (size_t)w < n && !fsys_stat(out, &st) &&
			    st.kind == FSYS_REG)
				return 0;
		}
		if (!end)
			break;
	}
	return ENOENT;
}

/*
 * A script named as the command: Windows starts only programs, so, as Git
 * for Windows does, read its "#!" line. "#!/bin/sh -e" gives "sh" and
 * "-e" (one argument, the rest of the line, as Linux passes it);
 * "#!/usr/bin/env python3" gives "python3". 1 with interp and arg
 * filled, 0 when `path` is no script (a program).
 */
static int
shebang(const char *path, char *interp, size_t n, char *arg, size_t an)
{
	char line[256], *p, *end, *name;
	size_t len;
	FILE *f = fopen(path, "rb");

	if (!f)
		return 0;
	len = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[len] = '\0';
	if (len < 3 || line[0] != '#' || line[1] != '!')
		return 0;
	line[strcspn(line, "\r\n")] = '\0';
	p = line + 2 + strspn(line + 2, " \t");
	end = p + strcspn(p, " \t");
	name = end;
	while (name > p && name[-1] != '/' && name[-1] != '\\')
		name--;
	if (*end)
		*end++ = '\0';
	end += strspn(end, " \t");
	if (!strcmp(name, "env") && *end) {
		/* "#!/usr/bin/env NAME": NAME from the PATH */
		name = end;
		end = name + strcspn(name, " \t");
		if (*end)
			*end++ = '\0';
		end = "";
	}
	if (!*name || (size_t)snprintf(interp, n, "%s", name) >= n ||
	    (size_t)snprintf(arg, an, "%s", end) >= an)
		return 0;
	return 1;
}

/* An inheritable handle to `path` for writing, truncated, or NULL. */
static HANDLE
open_log(const char *path, struct error *err)
{
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
	wchar_t *w = wide_from_utf8(path, err);
	HANDLE h;

	if (!w)
		return NULL;
	h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE |
			FILE_SHARE_DELETE, &sa, CREATE_ALWAYS,
			FILE_ATTRIBUTE_NORMAL, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		error_set(err, ERROR_IO, "cannot write the log '%s': %s", path,
			  strerror(win_errno(GetLastError())));
		return NULL;
	}
	return h;
}

/* A job that kills its processes when its last handle closes. */
static HANDLE
new_job(void)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION li;
	HANDLE job = CreateJobObjectW(NULL, NULL);

	if (!job)
		return NULL;
	memset(&li, 0, sizeof(li));
	li.BasicLimitInformation.LimitFlags =
		JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation,
				     &li, sizeof(li))) {
		CloseHandle(job);
		return NULL;
	}
	return job;
}

/* Create the process of `cmd` suspended, in `job`, then resume it. */
static int
create(wchar_t *app, wchar_t *cmd, wchar_t *env, wchar_t *cwd, HANDLE in,
       HANDLE out, HANDLE job, PROCESS_INFORMATION *pi)
{
	STARTUPINFOEXW si;
	HANDLE inherit[2];
	SIZE_T size = 0;
	DWORD e = 0, n = 0;
	LPPROC_THREAD_ATTRIBUTE_LIST attrs = NULL;
	BOOL ok;

	memset(&si, 0, sizeof(si));
	si.StartupInfo.cb = sizeof(si);
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si.StartupInfo.hStdInput = in;
	si.StartupInfo.hStdOutput = out;
	si.StartupInfo.hStdError = out;
	inherit[n++] = in;
	if (out != in)
		inherit[n++] = out;
	InitializeProcThreadAttributeList(NULL, 1, 0, &size);
	attrs = size ? malloc(size) : NULL;
	if (attrs && InitializeProcThreadAttributeList(attrs, 1, 0, &size) &&
	    UpdateProcThreadAttribute(attrs, 0,
				      PROC_THREAD_ATTRIBUTE_HANDLE_LIST,
				      inherit, n * sizeof(HANDLE), NULL,
				      NULL)) {
		si.lpAttributeList = attrs;
	}
	ok = CreateProcessW(app, cmd, NULL, NULL, TRUE,
			    CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT |
			    CREATE_NEW_PROCESS_GROUP |
			    (si.lpAttributeList ? EXTENDED_STARTUPINFO_PRESENT
			     : 0), env, cwd, &si.StartupInfo, pi);
	if (!ok)
		e = GetLastError();
	if (si.lpAttributeList)
		DeleteProcThreadAttributeList(attrs);
	free(attrs);
	if (!ok)
		return win_errno(e);
	if (!AssignProcessToJobObject(job, pi->hProcess)) {
		e = GetLastError();
		TerminateProcess(pi->hProcess, 127);
		CloseHandle(pi->hThread);
		CloseHandle(pi->hProcess);
		return win_errno(e);
	}
	ResumeThread(pi->hThread);
	CloseHandle(pi->hThread);
	return 0;
}

int
proc_spawn(struct proc_set *ps, const struct proc_spec *s, long *handle,
	   struct error *err)
{
	char path[4096], script[4096], interp[128], arg[128];
	struct buf cmd = BUF_INIT;
	const char *argv0;
	wchar_t *wapp = NULL, *wcmd = NULL, *wenv = NULL, *wcwd = NULL;
	HANDLE in = INVALID_HANDLE_VALUE, out = NULL, job = NULL;
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
	PROCESS_INFORMATION pi;
	size_t i;
	int rc = 0, e;

	if (!s->argc)
		return error_set(err, ERROR_INVALID, "empty command");
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 8;
		struct live *v = mem_realloc(ps->v, cap * sizeof(*v));

		if (!v)
			return error_set(err, ERROR_NOMEM, "out of memory");
		ps->v = v;
		ps->cap = cap;
	}
	argv0 = s->shell ? "sh" : s->argv[0];
	e = find_program(argv0, s, path, sizeof(path));
	if (e) {
		error_set(err, ERROR_NOT_FOUND, "cannot start '%s': %s", argv0,
			  strerror(e));
		if (s->shell)
			error_hint(err, "a shell command needs sh.exe in the "
				   "action's PATH (Git for Windows' usr/bin)");
		else if (s->cwd)
			error_hint(err, "relative commands and the working "
				   "directory '%s' must exist", s->cwd);
		return ERROR_NOT_FOUND;
	}
	if (s->shell) {
		rc = quote_arg(&cmd, "sh", err);
		if (!rc)
			rc = quote_arg(&cmd, "-c", err);
		if (!rc)
			rc = quote_arg(&cmd, s->argv[0], err);
	} else if (shebang(path, interp, sizeof(interp), arg, sizeof(arg))) {
		/* interp [arg] SCRIPT ARGS..., interp from the PATH */
		memcpy(script, path, sizeof(script));
		e = find_program(interp, s, path, sizeof(path));
		if (e) {
			error_set(err, ERROR_NOT_FOUND, "cannot start '%s': its "
				  "interpreter '%s' is not in the action's "
				  "PATH", s->argv[0], interp);
			error_hint(err, "a script runs with the program its "
				   "#! line names, found in PATH (Git for "
				   "Windows' usr/bin has sh and bash)");
			return ERROR_NOT_FOUND;
		}
		rc = quote_arg(&cmd, interp, err);
		if (!rc && arg[0])
			rc = quote_arg(&cmd, arg, err);
		if (!rc)
			rc = quote_arg(&cmd, script, err);
		for (i = 1; !rc && i < s->argc; i++)
			rc = quote_arg(&cmd, s->argv[i], err);
	} else {
		for (i = 0; !rc && i < s->argc; i++)
			rc = quote_arg(&cmd, s->argv[i], err);
	}
	if (rc)
		goto done;
	wapp = wide_from_utf8(path, err);
	wcmd = wapp ? wide_from_utf8(cmd.data, err) : NULL;
	wenv = wcmd ? env_block(s, err) : NULL;
	wcwd = wenv && s->cwd ? wide_from_utf8(s->cwd, err) : NULL;
	if (!wenv || (s->cwd && !wcwd)) {
		rc = err->code ? err->code : ERROR_NOMEM;
		goto done;
	}
	in = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ |
			 FILE_SHARE_WRITE, &sa, OPEN_EXISTING, 0, NULL);
	if (in == INVALID_HANDLE_VALUE) {
		rc = error_set(err, ERROR_IO, "cannot open NUL: %s",
			       strerror(win_errno(GetLastError())));
		goto done;
	}
	if (s->log_path) {
		out = open_log(s->log_path, err);
		if (!out) {
			rc = err->code;
			goto done;
		}
	}
	job = new_job();
	if (!job) {
		rc = error_set(err, ERROR_IO, "cannot make a job object: %s",
			       strerror(win_errno(GetLastError())));
		goto done;
	}
	e = create(wapp, wcmd, wenv, wcwd, in,
		   out ? out : GetStdHandle(STD_OUTPUT_HANDLE), job, &pi);
	if (e) {
		rc = error_set(err, e == ENOENT ? ERROR_NOT_FOUND : ERROR_IO,
			       "cannot start '%s': %s", argv0, strerror(e));
		goto done;
	}
	ps->v[ps->n].id = (long)pi.dwProcessId;
	ps->v[ps->n].process = pi.hProcess;
	ps->v[ps->n].job = job;
	ps->v[ps->n].killed = 0;
	ps->n++;
	job = NULL;
	*handle = (long)pi.dwProcessId;
done:
	if (job)
		CloseHandle(job);
	if (out)
		CloseHandle(out);
	if (in != INVALID_HANDLE_VALUE)
		CloseHandle(in);
	free(wapp);
	free(wcmd);
	mem_free(wenv);
	free(wcwd);
	buf_release(&cmd);
	return rc;
}

int
proc_wait(struct proc_set *ps, long timeout_ms, long *handle,
	  struct proc_status *st, struct error *err)
{
	long waited = 0;
	size_t i;

	(void)err;
	for (;;) {
		for (i = 0; i < ps->n; i++) {
			DWORD code = 0;

			if (WaitForSingleObject(ps->v[i].process, 0) !=
			    WAIT_OBJECT_0)
				continue;
			GetExitCodeProcess(ps->v[i].process, &code);
			/* What the action left running ends with it. */
			TerminateJobObject(ps->v[i].job, code);
			memset(st, 0, sizeof(*st));
			if (ps->v[i].killed) {
				st->signal = ps->v[i].killed;
			} else {
				st->exited = 1;
				st->code = (int)code;
			}
			*handle = ps->v[i].id;
			forget(ps, i);
			return 1;
		}
		if (!ps->n)
			return 0;
		if (timeout_ms >= 0 && waited >= timeout_ms)
			return 0;
		Sleep(5);
		waited += 5;
	}
}

int
proc_kill(struct proc_set *ps, long handle, int sig)
{
	size_t i;

	for (i = 0; i < ps->n; i++) {
		if (ps->v[i].id != handle)
			continue;
		if (sig == PROC_SIGTERM &&
		    GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT,
					     (DWORD)handle))
			return 0;
		/* No console to send Ctrl-Break through: end it now. */
		ps->v[i].killed = sig;
		return TerminateJobObject(ps->v[i].job, 1) ? 0 : ERROR_IO;
	}
	return ERROR_IO;
}

int64_t
proc_now_ms(void)
{
	return (int64_t)GetTickCount64();
}
