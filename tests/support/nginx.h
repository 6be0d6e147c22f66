/*
 * A real HTTP cache server for tests: Debian's nginx with WebDAV PUT, on a
 * free loopback port, with its config, root, logs and temp files in a
 * fresh temporary folder. It runs in the foreground (daemon off, one
 * process) as a child of the test, which stops it at teardown; it also
 * dies with the test process if that crashes (PR_SET_PDEATHSIG).
 *
 * Locations: "/" stores and serves files under `root` (GET, HEAD, PUT);
 * "/broken/" answers every request with 500; "/slow/" serves the same
 * files as "/" at 100 bytes/s; "/readonly/" serves them and answers
 * every write 403. t_nginx_start_domains serves instead the
 * documented configuration with credentials (examples/nginx/
 * ripple-cache.conf): reads open, PUT /ac/ and /cas/ for
 * T_NGINX_MAIN_HEADER only, PUT /d/ for it and T_NGINX_PR_HEADER.
 *
 * Suites that talk to nginx share one fixture, t_fx: a scratch folder per
 * test and the server a test asks for, both removed at teardown.
 */
#ifndef RIPPLE_TESTS_SUPPORT_NGINX_H
#define RIPPLE_TESTS_SUPPORT_NGINX_H

#include <stddef.h>
#include <sys/types.h>

#include "tests/support/support.h"

struct remote_digest;

struct t_nginx {
	char *dir;		/* temp folder holding everything, malloc'd */
	char *root;		/* DIR/root: what "/" serves, malloc'd */
	int port;		/* loopback port it listens on */
	char url[64];		/* "http://127.0.0.1:PORT" */
	pid_t pid;		/* 0 once stopped */
	int domains;		/* 1: the documented credentials config */
};

/* The credentials of t_nginx_start_domains, as RIPPLE_REMOTE_CACHE_HEADER. */
#define T_NGINX_MAIN_SECRET "main-secret"
#define T_NGINX_MAIN_HEADER "Authorization: Basic bWFpbjptYWluLXNlY3JldA=="
#define T_NGINX_PR_SECRET "pr-secret"
#define T_NGINX_PR_HEADER "Authorization: Basic cHI6cHItc2VjcmV0"

/* The nginx program, or NULL when it is not installed (tests skip). */
const char *t_nginx_program(void);

/*
 * Start nginx as above and wait until it accepts connections (at most
 * 10 s). Returns 0, or -1 with a reason in why (size n) when nginx is not
 * installed or does not come up.
 */
int t_nginx_start(struct t_nginx *ng, char *why, size_t n);

/*
 * t_nginx_start with examples/nginx/ripple-cache.conf (under
 * RIPPLE_SRCDIR) as the server's locations and its two password files
 * (users main and pr, SHA-512 crypt as `openssl passwd -6` makes them).
 */
int t_nginx_start_domains(struct t_nginx *ng, char *why, size_t n);

/* Stop nginx (SIGTERM, then wait) and keep its folder. Accepts a stopped one. */
void t_nginx_stop(struct t_nginx *ng);

/* Stop nginx, remove its folder and free the strings. Accepts NULL. */
void t_nginx_free(struct t_nginx *ng);

/*
 * Lines of DIR/access.log containing `needle`. nginx logs a request just
 * after its answer leaves, so this waits (at most 2 s) while fewer than
 * `want` lines are there; a count above `want` is returned at once.
 */
int t_nginx_count(const struct t_nginx *ng, const char *needle, int want);

/*
 * The fixture of every suite that talks to nginx. Criterion runs each test
 * in a process of its own, so this one instance is one per test. Give
 * t_fx_setup and t_fx_teardown to TestSuite (or Test) as .init and .fini,
 * or call them from a suite's own; a test that needs the server calls
 * t_fx_serve (or t_fx_serve_domains) first.
 */
struct t_fx {
	char *tmp;		/* the test's scratch folder, malloc'd */
	struct t_nginx ng;	/* the server once t_fx_serve ran, else zeros */
};

extern struct t_fx t_fx;

/* A fresh t_fx.tmp and no server. Aborts when the folder cannot be made. */
void t_fx_setup(void);

/* Stop and remove the server (if any was started), then t_fx.tmp. */
void t_fx_teardown(void);

/*
 * t_fx_setup and t_fx_teardown for suites that call the remote cache
 * library (cache/remote.h) themselves: libcurl's global set-up
 * (remote_global_init) after the folder, its clean-up last.
 */
void t_fx_setup_client(void);
void t_fx_teardown_client(void);

/* t_nginx_start into t_fx.ng, or skip the test saying why. */
void t_fx_serve(void);

/* t_nginx_start_domains into t_fx.ng, or skip the test saying why. */
void t_fx_serve_domains(void);

/*
 * ripple ARGV... --remote-cache URL [EXTRA] in t_fx.tmp/CLONE, URL being
 * t_fx's server. argv is NULL-terminated (at most 28 words); extra may
 * be NULL. Free the result with t_result_release.
 */
struct run_result t_fx_ripple(const char *clone, const char *const *argv,
			      const char *extra);

/*
 * Put n bytes into the server's CAS as a cache writer would (a file
 * under ROOT/cas, no request); their digest into *d.
 */
void t_fx_cas_put(const void *p, size_t n, struct remote_digest *d);

#endif
