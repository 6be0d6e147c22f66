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
#include <unistd.h>

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

/*
 * libgit2's mbedTLS set-up (a CTR-DRBG seeded from mbedTLS's entropy
 * sources, HAVEGE among them) waits for a TLS stream in a static build
 * (git_certs.c, RIPPLE_LAZY_TLS). Its sign from outside: mbedTLS gathers
 * 128 bytes (MBEDTLS_ENTROPY_MAX_GATHER) with one getrandom; libgit2 and
 * glibc ask for 8 at a time. The tests below run build/tests/git-tls-probe,
 * libgit2 linked as ripple links it, next to RIPPLE_BIN.
 */

/* Absolute path of RIPPLE_BIN's folder + "/" + rel into buf. */
static void
beside_bin(char *buf, size_t n, const char *rel)
{
	static char abs[4096];
	char *slash;

	cr_assert(realpath(ripple_bin(), abs), "no ripple at %s", ripple_bin());
	slash = strrchr(abs, '/');
	*slash = '\0';
	snprintf(buf, n, "%s/%s", abs, rel);
	*slash = '/';
}

/*
 * Skips unless strace runs and BIN links libgit2 statically (linked shared,
 * the set-up is internal to libgit2.so and stays at git_libgit2_init).
 */
static void
need_static_libgit2_and_strace(const char *bin)
{
	char cmd[4200];
	struct run_result r = t_sh(".", "command -v strace");

	if (r.status != 0) {
		t_result_release(&r);
		cr_skip_test("strace is not installed");
	}
	t_result_release(&r);
	snprintf(cmd, sizeof(cmd), "LD_TRACE_LOADED_OBJECTS=1 '%s'", bin);
	r = t_sh(".", cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	if (strstr(r.out, "libgit2")) {
		t_result_release(&r);
		cr_skip_test("libgit2 is linked shared: its TLS set-up runs at "
			     "init there");
	}
	t_result_release(&r);
}

/* Setting a CA location sets TLS up first, after init, and the bundle is
 * still refused. */
Test(engine_cli_git_certs, tls_set_up_waits_for_its_first_use)
{
	char probe[4200], cmd[8600], *dir, *init, *seed;
	struct run_result r;

	beside_bin(probe, sizeof(probe), "tests/git-tls-probe");
	cr_assert(access(probe, X_OK) == 0, "no %s (ninja builds it with "
		  "ripple-tests)", probe);
	need_static_libgit2_and_strace(probe);
	dir = t_tmpdir();
	/* LeakSanitizer cannot run under ptrace: off in an ASan build. */
	snprintf(cmd, sizeof(cmd), "ASAN_OPTIONS=\"${ASAN_OPTIONS:+"
		 "$ASAN_OPTIONS:}detect_leaks=0\" strace -e "
		 "trace=getrandom,write -o strace.out '%s' certs && "
		 "cat strace.out", probe);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	init = strstr(r.out, "write(1, \"init\\n\"");
	seed = strstr(r.out, ", 128, 0) = 128");
	cr_assert(init, "no init line: %s", r.out);
	if (!seed) {
		t_result_release(&r);
		cr_skip_test("libgit2 is not built with mbedTLS here");
	}
	cr_expect(seed > init, "mbedTLS gathered its entropy at "
		  "git_libgit2_init, before a TLS use: %s", r.out);
	cr_expect(strstr(r.out, "failed to load CA certificates"),
		  "a CA bundle was loaded: %s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/* What every ripple command pays: no TLS set-up at all. */
Test(engine_cli_git_certs, a_command_sets_no_tls_up)
{
	char abs[4096], cmd[8600], *dir;
	struct run_result r;

	cr_assert(realpath(ripple_bin(), abs), "no ripple at %s", ripple_bin());
	need_static_libgit2_and_strace(abs);
	dir = t_tmpdir();
	/* Outside a repository plan fails after git_libgit2_init. */
	snprintf(cmd, sizeof(cmd), "strace -f -e trace=getrandom "
		 "-o strace.out '%s' plan >/dev/null 2>&1; cat strace.out",
		 abs);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "getrandom("), "strace saw no getrandom at "
		  "all (libgit2 seeds its own with one): %s", r.out);
	cr_expect(!strstr(r.out, ", 128, 0) = 128"), "mbedTLS was set up: %s",
		  r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

/*
 * Set up late, a TLS stream still verifies: a handshake with a local
 * server whose certificate no CA signed fails as a certificate error
 * (GIT_ECERTIFICATE, -17). Needs the openssl program; skipped without it.
 */
Test(engine_cli_git_certs, late_tls_set_up_rejects_an_unknown_certificate)
{
	char probe[4200], cmd[8600], *dir, *port;
	struct run_result r;

	beside_bin(probe, sizeof(probe), "tests/git-tls-probe");
	cr_assert(access(probe, X_OK) == 0, "no %s", probe);
	r = t_sh(".", "command -v openssl");
	if (r.status != 0) {
		t_result_release(&r);
		cr_skip_test("openssl is not installed");
	}
	t_result_release(&r);
	dir = t_tmpdir();
	free(t_sh_out(dir, "openssl req -x509 -newkey ec -pkeyopt "
		      "ec_paramgen_curve:P-256 -nodes -keyout key.pem "
		      "-out cert.pem -days 2 -subj /CN=127.0.0.1 2>/dev/null"));
	/* One connection, then it exits; 30 s at most should none come. */
	free(t_sh_out(dir, "(timeout 30 openssl s_server -accept 127.0.0.1:0 "
		      "-naccept 1 -cert cert.pem -key key.pem -www "
		      ">server.out 2>&1 &); i=0; while [ $i -lt 100 ] && "
		      "! grep -q '^ACCEPT' server.out; do sleep 0.1; "
		      "i=$((i+1)); done; true"));
	port = t_sh_out(dir, "sed -n 's/^ACCEPT .*:\\([0-9]*\\)$/\\1/p' "
			"server.out");
	cr_assert(port[0], "openssl s_server did not start");
	snprintf(cmd, sizeof(cmd), "'%s' connect https://127.0.0.1:%s/x.git",
		 probe, port);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "init\n-17 "), "not a certificate error: %s",
		  r.out);
	t_result_release(&r);
	free(port);
	t_rmtree(dir);
	free(dir);
}

/*
 * libgit2's GSSAPI (Negotiate over HTTP) is loaded when first called
 * (engine/cli/git_gssapi.c): the static build's ripple starts without
 * Kerberos' libraries, and a Negotiate challenge still reaches GSSAPI.
 */
Test(engine_cli_git_certs, a_command_maps_no_kerberos)
{
	char abs[4096], cmd[4200];
	struct run_result r;

	cr_assert(realpath(ripple_bin(), abs), "no ripple at %s", ripple_bin());
	snprintf(cmd, sizeof(cmd), "LD_TRACE_LOADED_OBJECTS=1 '%s'", abs);
	r = t_sh(".", cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	if (strstr(r.out, "libgit2")) {
		t_result_release(&r);
		cr_skip_test("libgit2 is linked shared: it needs GSSAPI at "
			     "start");
	}
	cr_expect(!strstr(r.out, "libgssapi") && !strstr(r.out, "libkrb5"),
		  "ripple loads Kerberos at start: %s", r.out);
	t_result_release(&r);
}

/* A server that answers every request with a Negotiate challenge. */
static const char negotiate_server[] =
	"import http.server\n"
	"class H(http.server.BaseHTTPRequestHandler):\n"
	"    def do_GET(self):\n"
	"        self.send_response(401)\n"
	"        self.send_header('WWW-Authenticate', 'Negotiate')\n"
	"        self.send_header('Content-Length', '0')\n"
	"        self.end_headers()\n"
	"    def log_message(self, *a):\n"
	"        pass\n"
	"s = http.server.HTTPServer(('127.0.0.1', 0), H)\n"
	"s.timeout = 30\n"
	"open('port.tmp', 'w').write(str(s.server_address[1]))\n"
	"__import__('os').rename('port.tmp', 'port')\n"
	"for i in range(8):\n"
	"    s.handle_request()\n";

/* The probe, linked as ripple is, meets a Negotiate challenge: GSSAPI is
 * loaded then and gets as far as asking for a Kerberos ticket. */
Test(engine_cli_git_certs, negotiate_loads_gssapi_when_first_asked)
{
	char probe[4200], cmd[8600], *dir, *port;
	struct run_result r;

	beside_bin(probe, sizeof(probe), "tests/git-tls-probe");
	cr_assert(access(probe, X_OK) == 0, "no %s", probe);
	r = t_sh(".", "command -v python3");
	if (r.status != 0) {
		t_result_release(&r);
		cr_skip_test("python3 is not installed");
	}
	t_result_release(&r);
	dir = t_tmpdir();
	t_write(dir, "server.py", negotiate_server);
	free(t_sh_out(dir, "(timeout 60 python3 server.py >server.out 2>&1 &);"
		      " i=0; while [ $i -lt 100 ] && [ ! -f port ]; do "
		      "sleep 0.1; i=$((i+1)); done; true"));
	port = t_sh_out(dir, "cat port 2>/dev/null; true");
	cr_assert(port[0], "the Negotiate server did not start");
	snprintf(cmd, sizeof(cmd), "'%s' negotiate http://127.0.0.1:%s/x.git",
		 probe, port);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	if (!strstr(r.out, "negotiate")) {
		t_result_release(&r);
		cr_skip_test("libgit2 offers no Negotiate here: %s", r.out);
	}
	/* Not "could not query mechanisms" (no GSSAPI) nor "could not parse
	 * principal" (the name type refused): the context's first step. */
	cr_expect(strstr(r.out, "negotiate failure:"), "%s", r.out);
	t_result_release(&r);
	free(port);
	t_rmtree(dir);
	free(dir);
}
