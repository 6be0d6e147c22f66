/*
 * Suite engine_cli_git_certs: the ripple executable keeps libgit2 from
 * parsing the system CA bundle at git_libgit2_init (engine/cli/git_certs.c):
 * with a libgit2 built on mbedTLS, its call lands in ripple, not in
 * libmbedx509, and a command still works.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static const char *
ripple_bin(void)
{
	const char *bin = getenv("RIPPLE_BIN");

	return bin && bin[0] ? bin : "build/ripple";
}

Test(engine_cli_git_certs, libgit2_init_loads_no_ca_bundle)
{
	const char *bin = ripple_bin();
	char cmd[8400], *dir, *line, *save = NULL;
	struct run_result r;
	int found = 0;

	if (bin[0] != '/') {
		/* t_sh runs in another folder below: make the path whole. */
		static char abs[4096];

		cr_assert(realpath(bin, abs), "no ripple at %s", bin);
		bin = abs;
	}
	snprintf(cmd, sizeof(cmd), "LD_TRACE_LOADED_OBJECTS=1 '%s'", bin);
	r = t_sh(".", cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	if (!strstr(r.out, "libgit2")) {
		t_result_release(&r);
		cr_skip_test("libgit2 is linked statically (the --wrap path; "
			     "no_ca_file_is_opened checks it)");
	}
	if (!strstr(r.out, "libmbedx509")) {
		t_result_release(&r);
		cr_skip_test("libgit2 is not built with mbedTLS here");
	}
	t_result_release(&r);
	/* Any command initializes libgit2; outside a repository it then
	 * fails, which does not matter here. */
	dir = t_tmpdir();
	snprintf(cmd, sizeof(cmd), "LD_DEBUG=bindings '%s' plan 2>&1",
		 bin);
	r = t_sh(dir, cmd);
	/* "binding file .../libgit2.so.1.5 [0] to ./ripple [0]: normal
	 * symbol `mbedtls_x509_crt_parse_file'" */
	for (line = strtok_r(r.out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *to = strstr(line, " to ");

		if (!strstr(line, "libgit2") || !to ||
		    !strstr(line, "`mbedtls_x509_crt_parse_file'"))
			continue;
		found = 1;
		cr_expect(!strstr(to, "libmbedx509"), "libgit2 parsed the CA "
			  "bundle through libmbedx509: %s", line);
		cr_expect(strstr(to, "ripple"), "%s", line);
	}
	cr_expect(found, "libgit2 never asked for the CA bundle?");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* libgit2's libssh2_init (OpenSSL's init and engines) lands in ripple. */
Test(engine_cli_git_certs, libgit2_init_skips_libssh2_init)
{
	const char *bin = ripple_bin();
	char cmd[8400], *dir, *line, *save = NULL;
	static char abs[4096];
	struct run_result r;
	int found = 0;

	cr_assert(realpath(bin, abs), "no ripple at %s", bin);
	snprintf(cmd, sizeof(cmd), "LD_TRACE_LOADED_OBJECTS=1 '%s'", abs);
	r = t_sh(".", cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	if (!strstr(r.out, "libgit2")) {
		t_result_release(&r);
		cr_skip_test("libgit2 is linked statically (the --wrap path; "
			     "no_ca_file_is_opened checks it)");
	}
	if (!strstr(r.out, "libssh2")) {
		t_result_release(&r);
		cr_skip_test("libgit2 is not built with libssh2 here");
	}
	t_result_release(&r);
	dir = t_tmpdir();
	snprintf(cmd, sizeof(cmd), "LD_DEBUG=bindings '%s' plan 2>&1", abs);
	r = t_sh(dir, cmd);
	for (line = strtok_r(r.out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *to = strstr(line, " to ");

		if (!strstr(line, "libgit2") || !to ||
		    !strstr(line, "`libssh2_init'"))
			continue;
		found = 1;
		cr_expect(strstr(to, "ripple") && !strstr(to, "libssh2.so"), "%s",
			  line);
	}
	cr_expect(found, "libgit2 never called libssh2_init?");
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * The same seen from outside, for a build with libgit2 linked statically
 * (./configure --static-libs: the linker's --wrap, no symbol lookup to
 * watch) as for a shared one: a command that initializes libgit2 opens
 * nothing below /etc/ssl. Needs strace; skipped without it.
 */
Test(engine_cli_git_certs, no_ca_file_is_opened)
{
	const char *bin = ripple_bin();
	char cmd[8400], *dir;
	static char abs[4096];
	struct run_result r;

	cr_assert(realpath(bin, abs), "no ripple at %s", bin);
	r = t_sh(".", "command -v strace");
	if (r.status != 0) {
		t_result_release(&r);
		cr_skip_test("strace is not installed");
	}
	t_result_release(&r);
	dir = t_tmpdir();
	snprintf(cmd, sizeof(cmd), "strace -f -e trace=open,openat "
		 "-o strace.out '%s' plan >/dev/null 2>&1; "
		 "grep -c openat strace.out; grep /etc/ssl strace.out; true",
		 abs);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(atoi(r.out) > 0, "strace saw no open at all: %s", r.out);
	cr_expect(!strstr(r.out, "/etc/ssl"), "libgit2 read a CA file: %s",
		  r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}
