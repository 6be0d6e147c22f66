/*
 * base/host.h on Windows.
 */
#include "base/host.h"

#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/path.h"
#include "base/wide_win.h"
#include "base/banned.h"

void
host_stdio_init(void)
{
	static const DWORD outs[] = { STD_OUTPUT_HANDLE, STD_ERROR_HANDLE };
	size_t i;

	_fmode = _O_BINARY;
	_setmode(_fileno(stdin), _O_BINARY);
	_setmode(_fileno(stdout), _O_BINARY);
	_setmode(_fileno(stderr), _O_BINARY);
	for (i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
		HANDLE h = GetStdHandle(outs[i]);
		DWORD mode;

		if (h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode))
			SetConsoleMode(h, mode |
				       ENABLE_VIRTUAL_TERMINAL_PROCESSING);
	}
}

unsigned
host_path_names(void)
{
	return PATH_NAMES_WINDOWS;
}

const char *
host_platform(void)
{
	SYSTEM_INFO si;

	GetNativeSystemInfo(&si);
	switch (si.wProcessorArchitecture) {
	case PROCESSOR_ARCHITECTURE_AMD64:
		return "win-64";
	case PROCESSOR_ARCHITECTURE_ARM64:
		return "win-arm64";
	default:
		return NULL;
	}
}

void
host_name(char *out, size_t n)
{
	wchar_t w[256];
	DWORD len = sizeof(w) / sizeof(w[0]);
	struct error err;
	char *u8;

	if (!n)
		return;
	out[0] = '\0';
	if (!GetComputerNameExW(ComputerNameDnsHostname, w, &len))
		return;
	error_init(&err);
	u8 = wide_to_utf8(w, &err);
	if (u8 && strlen(u8) < n)
		memcpy(out, u8, strlen(u8) + 1);
	free(u8);
}

const char *const *
host_env_always(void)
{
	static const char *const names[HOST_ENV_ALWAYS_MAX + 1] = {
		"SYSTEMROOT", "WINDIR", "TEMP", "TMP", "USERPROFILE",
		"PATHEXT", "COMSPEC", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA",
		"PROGRAMFILES", NULL,
	};

	return names;
}

int
host_env_is(const char *entry, const char *name)
{
	size_t len = strlen(name);

	return !_strnicmp(entry, name, len) && entry[len] == '=';
}

size_t
host_cpus(void)
{
	DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);

	return n > 0 ? (size_t)n : 1;
}

size_t
host_open_files(void)
{
	return 0;	/* handles have no per-process count to run out of */
}

size_t
host_stack_limit(void)
{
	return 0;	/* the reserve is ripple.exe's, set when linked */
}

void
host_self_exe(char *out, size_t n)
{
	wchar_t w[32768];
	struct error err;
	DWORD len;
	char *u8 = NULL, *p;

	if (!n)
		return;
	out[0] = '\0';
	len = GetModuleFileNameW(NULL, w, sizeof(w) / sizeof(w[0]));
	if (!len || len >= sizeof(w) / sizeof(w[0]))
		return;
	error_init(&err);
	u8 = wide_to_utf8(w, &err);
	if (u8 && strlen(u8) < n) {
		for (p = u8; *p; p++)
			if (*p == '\\')
				*p = '/';
		memcpy(out, u8, strlen(u8) + 1);
	}
	free(u8);
}

int
host_stderr_columns(void)
{
	CONSOLE_SCREEN_BUFFER_INFO ci;
	HANDLE h = GetStdHandle(STD_ERROR_HANDLE);

	if (h == INVALID_HANDLE_VALUE || !GetConsoleScreenBufferInfo(h, &ci))
		return 0;
	return ci.srWindow.Right - ci.srWindow.Left + 1;
}

void
host_build_id(char *out, size_t n)
{
	/* PE files carry no GNU build-id: "" (a memo keyed on it then
	 * misses by its layout and format names alone) */
	if (n)
		out[0] = '\0';
}
