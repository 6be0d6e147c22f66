/* Test support: a real nginx with WebDAV PUT in a temporary folder. */
#include "tests/support/nginx.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "cache/remote.h"
#include "tests/support/support.h"

const char *
t_nginx_program(void)
{
	static const char *const places[] = {
		"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx",
		"/usr/local/bin/nginx",
	};
	size_t i;

	for (i = 0; i < sizeof(places) / sizeof(places[0]); i++)
		if (access(places[i], X_OK) == 0)
			return places[i];
	return NULL;
}

/* A loopback port nobody listens on right now (the kernel picks it). */
static int
free_port(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static int
accepts(int port)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

	if (fd < 0)
		return 0;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = !connect(fd, (struct sockaddr *)&a, sizeof(a));
	close(fd);
	return ok;
}

/* The password files of the documented config (openssl passwd -6). */
static const char trusted_users[] =
	"main:$6$ripplemain$k09R1JDX1BQOHjGvCRwm/P71iXdbBngGC.nDoLJfDOaInct"
	"QgdF.K/R.HwURP3q6Tfoin51sDyieZCunlFphx1\n";
static const char pr_user[] =
	"pr:$6$ripplepr$ErGf72pnr8z0d6Cyn9u7wUPEAQ7Viwd3/WOX7mQDHWdFAVjg5WD"
	"tDJIw.soiWkwEncjcBF9B25PsPWc2d0UiL0\n";

/* The server's locations: the documented file, or the plain test ones. */
static void
write_locations(const struct t_nginx *ng, FILE *f)
{
	char *src, *writers;

	if (!ng->domains) {
		fprintf(f,
			"    location / {\n"
			"      dav_methods PUT;\n"
			"      create_full_put_path on;\n"
			"      dav_access user:rw group:r all:r;\n"
			"    }\n");
		return;
	}
	src = realpath(t_srcdir(), NULL);
	if (!src)
		abort();
	fprintf(f, "    include %s/examples/nginx/ripple-cache.conf;\n", src);
	free(src);
	t_write(ng->dir, "ripple-trusted.htpasswd", trusted_users);
	writers = malloc(sizeof(trusted_users) + sizeof(pr_user));
	if (!writers)
		abort();
	snprintf(writers, sizeof(trusted_users) + sizeof(pr_user), "%s%s",
		 trusted_users, pr_user);
	t_write(ng->dir, "ripple-writers.htpasswd", writers);
	free(writers);
}

static void
write_conf(const struct t_nginx *ng, const char *path)
{
	FILE *f = fopen(path, "w");
	const char *d = ng->dir;

	if (!f)
		abort();
	fprintf(f,
		"daemon off;\n"
		"master_process off;\n"
		"%s"
		"pid %s/nginx.pid;\n"
		"error_log %s/error.log;\n"
		"events { worker_connections 256; }\n"
		"http {\n"
		"  log_format t '$remote_addr \"$request\" $status "
		"$body_bytes_sent auth=\"$http_authorization\"';\n"
		"  access_log %s/access.log t;\n"
		"  client_body_temp_path %s/tmp/body;\n"
		"  proxy_temp_path %s/tmp/proxy;\n"
		"  fastcgi_temp_path %s/tmp/fastcgi;\n"
		"  uwsgi_temp_path %s/tmp/uwsgi;\n"
		"  scgi_temp_path %s/tmp/scgi;\n"
		"  default_type application/octet-stream;\n"
		"  server {\n"
		"    listen 127.0.0.1:%d;\n"
		"    root %s/root;\n"
		"    client_max_body_size 0;\n"
		"    location /broken/ { return 500; }\n"
		"    location /readonly/ {\n"
		"      alias %s/root/;\n"
		"      limit_except GET HEAD { deny all; }\n"
		"    }\n"
		"    location /slow/ {\n"
		"      alias %s/root/;\n"
		"      limit_rate 100;\n"
		"    }\n",
		geteuid() == 0 ? "user root;\n" : "", d, d, d, d, d, d, d, d,
		ng->port, d, d, d);
	write_locations(ng, f);
	fprintf(f, "  }\n}\n");
	if (fclose(f))
		abort();
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* One try on one port: 0 when nginx answers, -1 when it exited. */
static int
try_start(struct t_nginx *ng, const char *prog, char *why, size_t n)
{
	char conf[1024], errlog[1024];
	int status, i;
	pid_t pid;

	snprintf(conf, sizeof(conf), "%s/nginx.conf", ng->dir);
	snprintf(errlog, sizeof(errlog), "%s/error.log", ng->dir);
	snprintf(ng->url, sizeof(ng->url), "http://127.0.0.1:%d", ng->port);
	write_conf(ng, conf);
	pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl(prog, prog, "-q", "-p", ng->dir, "-e", errlog, "-c",
		      conf, (char *)NULL);
		_exit(127);
	}
	ng->pid = pid;
	for (i = 0; i < 1000; i++) {
		if (accepts(ng->port))
			return 0;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			ng->pid = 0;
			snprintf(why, n, "nginx exited (status %d); see %s",
				 status, errlog);
			return -1;
		}
		sleep_ms(10);
	}
	snprintf(why, n, "nginx did not listen on port %d within 10 s",
		 ng->port);
	t_nginx_stop(ng);
	return -1;
}

static int
start(struct t_nginx *ng, int domains, char *why, size_t n)
{
	const char *prog = t_nginx_program();
	char p[1024];
	int attempt;
	static const char *const sub[] = { "root", "tmp", "tmp/body",
		"tmp/proxy", "tmp/fastcgi", "tmp/uwsgi", "tmp/scgi" };
	size_t i;

	memset(ng, 0, sizeof(*ng));
	ng->domains = domains;
	if (!prog) {
		snprintf(why, n, "nginx is not installed (apt-get install "
			 "nginx-light)");
		return -1;
	}
	ng->dir = t_tmpdir();
	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", ng->dir, sub[i]);
		if (mkdir(p, 0755))
			abort();
	}
	snprintf(p, sizeof(p), "%s/root", ng->dir);
	ng->root = strdup(p);
	if (!ng->root)
		abort();
	/* Another process may take the port between our probe and nginx. */
	for (attempt = 0; attempt < 5; attempt++) {
		ng->port = free_port();
		if (ng->port > 0 && !try_start(ng, prog, why, n))
			return 0;
	}
	return -1;
}

int
t_nginx_start(struct t_nginx *ng, char *why, size_t n)
{
	return start(ng, 0, why, n);
}

int
t_nginx_start_domains(struct t_nginx *ng, char *why, size_t n)
{
	return start(ng, 1, why, n);
}

void
t_nginx_stop(struct t_nginx *ng)
{
	int status;

	if (!ng || ng->pid <= 0)
		return;
	kill(ng->pid, SIGTERM);
	while (waitpid(ng->pid, &status, 0) < 0 && errno == EINTR)
		;
	ng->pid = 0;
}

void
t_nginx_free(struct t_nginx *ng)
{
	if (!ng)
		return;
	t_nginx_stop(ng);
	t_rmtree(ng->dir);
	free(ng->dir);
	free(ng->root);
	memset(ng, 0, sizeof(*ng));
}

static int
count_now(const struct t_nginx *ng, const char *needle)
{
	char path[1024], line[4096];
	FILE *f;
	int count = 0;

	snprintf(path, sizeof(path), "%s/access.log", ng->dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			count++;
	fclose(f);
	return count;
}

int
t_nginx_count(const struct t_nginx *ng, const char *needle, int want)
{
	int i, n = count_now(ng, needle);

	for (i = 0; n < want && i < 200; i++) {
		sleep_ms(10);
		n = count_now(ng, needle);
	}
	return n;
}

struct t_fx t_fx;

void
t_fx_setup(void)
{
	memset(&t_fx, 0, sizeof(t_fx));
	t_fx.tmp = t_tmpdir();
}

void
t_fx_teardown(void)
{
	/* A zeroed or half-started server is freed as well as a running one. */
	t_nginx_free(&t_fx.ng);
	t_rmtree(t_fx.tmp);
	free(t_fx.tmp);
	t_fx.tmp = NULL;
}

void
t_fx_setup_client(void)
{
	struct error err;

	t_fx_setup();
	error_init(&err);
	cr_assert_eq(remote_global_init(&err), 0, "%s", err.msg);
}

void
t_fx_teardown_client(void)
{
	t_fx_teardown();
	remote_global_cleanup();
}

void
t_fx_serve(void)
{
	char why[512];

	if (t_nginx_start(&t_fx.ng, why, sizeof(why)))
		cr_skip_test("%s", why);
}

void
t_fx_serve_domains(void)
{
	char why[512];

	if (t_nginx_start_domains(&t_fx.ng, why, sizeof(why)))
		cr_skip_test("%s", why);
}

struct run_result
t_fx_ripple(const char *clone, const char *const *argv, const char *extra)
{
	const char *v[32];
	char dir[4096];
	size_t n = 0;

	while (argv[n]) {
		cr_assert_lt(n, 28, "t_fx_ripple: too many words");
		v[n] = argv[n];
		n++;
	}
	v[n++] = "--remote-cache";
	v[n++] = t_fx.ng.url;
	if (extra)
		v[n++] = extra;
	v[n] = NULL;
	snprintf(dir, sizeof(dir), "%s/%s", t_fx.tmp, clone);
	return t_ripple(dir, v);
}

void
t_fx_cas_put(const void *p, size_t n, struct remote_digest *d)
{
	char path[4096];
	struct error err;

	error_init(&err);
	cr_assert_eq(remote_digest_buf(p, n, d, &err), 0, "%s", err.msg);
	snprintf(path, sizeof(path), "%s/cas/%s", t_fx.ng.root, d->hash);
	t_write_bytes(path, p, n);
}
