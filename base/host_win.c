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

/*
 * The PE counterpart of the GNU build-id note: the CodeView record ("RSDS",
 * a GUID and an age) that the linker writes into the image's debug
 * directory (GNU ld's --build-id, which tools/windows/configure.sh passes;
 * Microsoft's link.exe writes one with /DEBUG). Read from the mapped main
 * module, as the loader laid it out: PE/COFF specification, "The .debug
 * Section" and "Debug Type". Returns the 20 bytes' address, or NULL.
 */
static const unsigned char *
codeview_id(void)
{
	const unsigned char *base = (const unsigned char *)GetModuleHandleW(NULL);
	const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)base;
	const IMAGE_NT_HEADERS *nt;
	const IMAGE_DATA_DIRECTORY *dir;
	const IMAGE_DEBUG_DIRECTORY *dbg;
	size_t i, count;

	if (!base || dos->e_magic != IMAGE_DOS_SIGNATURE)
		return NULL;
	nt = (const IMAGE_NT_HEADERS *)(base + dos->e_lfanew);
	if (nt->Signature != IMAGE_NT_SIGNATURE ||
	    nt->OptionalHeader.NumberOfRvaAndSizes <=
	    IMAGE_DIRECTORY_ENTRY_DEBUG)
		return NULL;
	dir = &nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_DEBUG];
	if (!dir->VirtualAddress || dir->Size < sizeof(*dbg) ||
	    dir->VirtualAddress + (size_t)dir->Size >
	    nt->OptionalHeader.SizeOfImage)
		return NULL;
	dbg = (const IMAGE_DEBUG_DIRECTORY *)(base + dir->VirtualAddress);
	count = dir->Size / sizeof(*dbg);
	for (i = 0; i < count; i++) {
		const unsigned char *rec;

		if (dbg[i].Type != IMAGE_DEBUG_TYPE_CODEVIEW ||
		    !dbg[i].AddressOfRawData || dbg[i].SizeOfData < 24 ||
		    dbg[i].AddressOfRawData + (size_t)dbg[i].SizeOfData >
		    nt->OptionalHeader.SizeOfImage)
			continue;
		rec = base + dbg[i].AddressOfRawData;
		if (!memcmp(rec, "RSDS", 4))
			return rec + 4;
	}
	return NULL;
}

void
host_build_id(char *out, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *id;
	size_t k;

	if (!n)
		return;
	out[0] = '\0';
	id = codeview_id();
	/* the GUID and the age: 20 bytes, 40 hex digits and the NUL */
	if (!id || n < 41)
		return;
	for (k = 0; k < 20; k++) {
		out[2 * k] = hex[id[k] >> 4];
		out[2 * k + 1] = hex[id[k] & 15];
	}
	out[40] = '\0';
}
