/*
 * An action program for ripple's Windows run checks (tools/windows/run.sh
 * runs ripple.exe under Wine on a repository whose nodes call it): Wine
 * has cmd.exe but a findstr that finds nothing, and no sh.
 *
 *   act copy SRC DST      DST (folders made) = SRC without '#' lines
 *   act grep WORD FILE    exit 0 when a line of FILE holds WORD, else 1
 *   act env NAME          print NAME's value (exit 1 when unset)
 *   act exit N            exit N
 *   act sleep MS          sleep MS milliseconds
 *   act orphan MS FILE    start "act sleep MS" then "act touch FILE", not
 *                         waited for, and exit 0 at once: ripple must end it
 *   act later MS FILE     sleep MS, then write FILE (the orphan's child)
 *
 * Named sh.exe it stands in for Git for Windows' sh: "sh -c 'LINE'" and
 * "sh SCRIPT ARG..." (a file beginning with "#!") run LINE, or the
 * script's second line followed by the ARGs, as act's own arguments
 * (split at spaces).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

static int
make_parents(char *path)
{
	char *p;

	for (p = path; *p; p++)
		if (*p == '/' || *p == '\\') {
			char c = *p;

			*p = '\0';
			CreateDirectoryA(path, NULL);
			*p = c;
		}
	return 0;
}

static int
copy(const char *src, char *dst)
{
	char line[4096];
	FILE *in = fopen(src, "rb"), *out;

	if (!in)
		return 2;
	make_parents(dst);
	out = fopen(dst, "wb");
	if (!out)
		return 2;
	while (fgets(line, sizeof(line), in))
		if (line[0] != '#')
			fputs(line, out);
	fclose(in);
	return fclose(out) ? 2 : 0;
}

static int
grep(const char *word, const char *file)
{
	char line[4096];
	FILE *in = fopen(file, "rb");
	int found = 0;

	if (!in)
		return 2;
	while (!found && fgets(line, sizeof(line), in))
		found = strstr(line, word) != NULL;
	fclose(in);
	return found ? 0 : 1;
}

/* Start "SELF ARGS" detached from our wait: it stays in our job. */
static int
start(const char *args)
{
	char self[MAX_PATH], cmd[2 * MAX_PATH];
	STARTUPINFOA si;
	PROCESS_INFORMATION pi;

	GetModuleFileNameA(NULL, self, sizeof(self));
	snprintf(cmd, sizeof(cmd), "\"%s\" %s", self, args);
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	if (!CreateProcessA(self, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si,
			    &pi))
		return 2;
	CloseHandle(pi.hThread);
	CloseHandle(pi.hProcess);
	return 0;
}

static int dispatch(int argc, char **argv);

/* Run `line` (split at spaces) and `extra` as act's arguments. */
static int
run_line(char *line, int n_extra, char **extra)
{
	char *v[64], *p;
	int n = 1, i;

	v[0] = "act";
	for (p = strtok(line, " \r\n"); p && n < 48; p = strtok(NULL, " \r\n"))
		v[n++] = p;
	for (i = 0; i < n_extra && n < 63; i++)
		v[n++] = extra[i];
	v[n] = NULL;
	return dispatch(n, v);
}

/* "sh SCRIPT ARG...": the script's second line. */
static int
script(int argc, char **argv)
{
	char line[4096];
	FILE *f = fopen(argv[1], "rb");
	int ok;

	if (!f)
		return 127;
	ok = fgets(line, sizeof(line), f) && !strncmp(line, "#!", 2) &&
	     fgets(line, sizeof(line), f);
	fclose(f);
	if (!ok)
		return 126;
	return run_line(line, argc - 2, argv + 2);
}

int
main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '\\') ? strrchr(argv[0], '\\') + 1
			   : strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1
			   : argv[0];

	if (!_strnicmp(base, "sh", 2) && (!base[2] || base[2] == '.')) {
		if (argc == 3 && !strcmp(argv[1], "-c"))
			return run_line(argv[2], 0, NULL);
		if (argc >= 2)
			return script(argc, argv);
		return 64;
	}
	return dispatch(argc, argv);
}

static int
dispatch(int argc, char **argv)
{
	char args[2 * MAX_PATH];

	if (argc == 4 && !strcmp(argv[1], "copy"))
		return copy(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "grep"))
		return grep(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "env")) {
		const char *v = getenv(argv[2]);

		if (!v)
			return 1;
		printf("%s=%s\n", argv[2], v);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "exit"))
		return atoi(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "sleep")) {
		Sleep((DWORD)atol(argv[2]));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "orphan")) {
		snprintf(args, sizeof(args), "later %s \"%s\"", argv[2],
			 argv[3]);
		return start(args);
	}
	if (argc == 4 && !strcmp(argv[1], "later")) {
		FILE *f;

		Sleep((DWORD)atol(argv[2]));
		f = fopen(argv[3], "wb");
		if (f)
			fclose(f);
		return 0;
	}
	fprintf(stderr, "act: bad arguments\n");
	return 64;
}
