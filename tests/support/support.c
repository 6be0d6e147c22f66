/* Test support: temp dirs, files, git fixtures, running the CLI. */
#include "tests/support/support.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char *
t_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *p;
	size_t n;

	if (!base || !base[0])
		base = "/tmp";
	n = strlen(base) + 32;
	p = malloc(n);
	if (!p)
		abort();
	snprintf(p, n, "%s/ripple-test-XXXXXX", base);
	if (!mkdtemp(p))
		abort();
	return p;
}

void
t_rmtree(const char *dir)
{
	struct run_result r;
	char cmd[4096];

	if (!dir || !dir[0] || !strcmp(dir, "/"))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	r = t_sh("/", cmd);
	t_result_release(&r);
}

static void
mkparents(char *path)
{
	char *s;

	for (s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			abort();
		*s = '/';
	}
}

void
t_write(const char *dir, const char *rel, const char *text)
{
	size_t n = strlen(dir) + strlen(rel) + 2;
	char *p = malloc(n);
	FILE *f;

	if (!p)
		abort();
	snprintf(p, n, "%s/%s", dir, rel);
	mkparents(p);
	f = fopen(p, "wb");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
	free(p);
}

/* The whole of f, NUL-terminated, its length in *len; aborts on OOM. */
static char *
read_all(FILE *f, size_t *len)
{
	char *p = NULL;
	size_t n = 0, cap = 0, got;
	char chunk[8192];

	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (n + got + 1 > cap) {
			cap = (n + got + 1) * 2;
			p = realloc(p, cap);
			if (!p)
				abort();
		}
		memcpy(p + n, chunk, got);
		n += got;
	}
	if (!p) {
		p = malloc(1);
		if (!p)
			abort();
	}
	p[n] = '\0';
	*len = n;
	return p;
}

char *
t_read(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t n;
	char *p;

	if (!f)
		return NULL;
	p = read_all(f, &n);
	fclose(f);
	return p;
}

unsigned char *
t_read_bytes(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p;

	cr_assert_not_null(f, "cannot read %s", path);
	p = read_all(f, len);
	cr_assert(!ferror(f), "cannot read %s", path);
	fclose(f);
	return (unsigned char *)p;
}

void
t_write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "cannot write %s", path);
	cr_assert_eq(fwrite(p, 1, n, f), n, "cannot write %s", path);
	cr_assert_eq(fclose(f), 0, "cannot write %s", path);
}

const char *
t_srcdir(void)
{
	const char *s = getenv("RIPPLE_SRCDIR");

	return s && s[0] ? s : ".";
}

static char *
slurp_fd(int fd)
{
	char *p = NULL;
	size_t n = 0, cap = 0;
	char chunk[8192];
	ssize_t got;

	while ((got = read(fd, chunk, sizeof(chunk))) > 0) {
		if (n + (size_t)got + 1 > cap) {
			cap = (n + (size_t)got + 1) * 2;
			p = realloc(p, cap);
			if (!p)
				abort();
		}
		memcpy(p + n, chunk, (size_t)got);
		n += (size_t)got;
	}
	if (!p) {
		p = malloc(1);
		if (!p)
			abort();
	}
	p[n] = '\0';
	return p;
}

/*
 * The caller's environment must not reach the ripple the tests run: a
 * developer's RIPPLE_CACHE or remote cache, a CI's RIPPLE_REF, or GitHub
 * Actions' own variables would change what ripple reads and decides. Every
 * variable ripple reads to choose a cache, a ref, a remote or a mode is
 * cleared before any test runs (tests that need one set it themselves).
 * .ci/run's second suite sets them all to hostile values to prove it.
 */
__attribute__((constructor)) static void
clear_ripple_env(void)
{
	static const char *const names[] = {
		"RIPPLE_CACHE", "RIPPLE_FULL_WALK", "RIPPLE_REF",
		"RIPPLE_REMOTE_CACHE", "RIPPLE_REMOTE_CACHE_HEADER",
		"RIPPLE_REMOTE_HEADER", "RIPPLE_REMOTE_LOW_SPEED",
		"RIPPLE_REMOTE_NETRC", "RIPPLE_REMOTE_PARALLEL",
		"RIPPLE_REMOTE_TIMEOUT", "RIPPLE_RUNNER",
		"RIPPLE_TARGET_BRANCH", "GITHUB_ACTIONS", "GITHUB_BASE_REF",
		"GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_REF",
		"RUNNER_NAME",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unsetenv(names[i]);
}

static struct run_result
run_argv(const char *dir, char *const *argv)
{
	struct run_result r = { -1, NULL, NULL };
	char outname[] = "/tmp/ripple-out-XXXXXX";
	char errname[] = "/tmp/ripple-err-XXXXXX";
	int outfd = mkstemp(outname), errfd = mkstemp(errname), st;
	pid_t pid;

	if (outfd < 0 || errfd < 0)
		abort();
	unlink(outname);
	unlink(errname);
	pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		dup2(devnull, 0);
		dup2(outfd, 1);
		dup2(errfd, 2);
		if (chdir(dir))
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			abort();
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	lseek(outfd, 0, SEEK_SET);
	lseek(errfd, 0, SEEK_SET);
	r.out = slurp_fd(outfd);
	r.err = slurp_fd(errfd);
	close(outfd);
	close(errfd);
	return r;
}

/* Write `text` to the new file STEM SUFFIX; 0 or -1. */
static int
keep_file(const char *stem, const char *suffix, const char *text)
{
	char path[4096];
	int fd, len = snprintf(path, sizeof(path), "%s%s", stem, suffix);
	size_t n = strlen(text);
	ssize_t w;

	if (len < 0 || (size_t)len >= sizeof(path))
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return -1;
	while (n && (w = write(fd, text, n)) > 0) {
		text += w;
		n -= (size_t)w;
	}
	close(fd);
	return n ? -1 : 0;
}

void
t_keep_json(const char *cmdline, const char *out)
{
	const char *dir = getenv("RIPPLE_JSON_DIR"), *s = out;
	char stem[4096];
	int fd;

	if (!dir || !dir[0] || !out)
		return;
	while (*s == ' ' || *s == '\n' || *s == '\t')
		s++;
	if (*s != '{' && *s != '[')
		return;
	/* A unique stem: the empty file .../out-XXXXXX holds the name. */
	snprintf(stem, sizeof(stem), "%s/out-XXXXXX", dir);
	fd = mkstemp(stem);
	if (fd < 0)
		return;
	close(fd);
	if (keep_file(stem, ".json", out) || keep_file(stem, ".cmd", cmdline))
		fprintf(stderr, "t_keep_json: cannot keep an output in %s\n",
			dir);
}

struct run_result
t_sh(const char *dir, const char *cmd)
{
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)cmd, NULL };
	struct run_result r = run_argv(dir, argv);

	t_keep_json(cmd, r.out);
	return r;
}

/*
 * LeakSanitizer reads this from the test binary: Criterion's runner keeps
 * two calloc'd blocks (96 bytes) to its exit, which made every sanitized
 * test run end with status 1 however the tests went. Not ripple's.
 */
const char *__lsan_default_suppressions(void);

const char *
__lsan_default_suppressions(void)
{
	return "leak:libcriterion.so\n";
}

#if defined(__SANITIZE_ADDRESS__)
#define T_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_ASAN 1
#endif
#endif

struct run_result
t_ripple_bounded(const char *dir, unsigned kib, unsigned timeout_s,
		 const char *args)
{
	const char *bin = getenv("RIPPLE_BIN");
	char *abs = realpath(bin && bin[0] ? bin : "build/ripple", NULL);
	char cmd[8192], limit[160];
	struct run_result r;

	cr_assert_not_null(abs);
#ifdef T_ASAN
	snprintf(limit, sizeof(limit), "export ASAN_OPTIONS=\"${ASAN_OPTIONS:+"
		 "$ASAN_OPTIONS:}hard_rss_limit_mb=%u\";", kib / 1024);
#else
	snprintf(limit, sizeof(limit), "ulimit -v %u;", kib);
#endif
	snprintf(cmd, sizeof(cmd), "%s exec timeout -s KILL %u '%s' %s",
		 limit, timeout_s, abs, args);
	r = t_sh(dir, cmd);
	free(abs);
	return r;
}

char *
t_sh_out(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);
	size_t n;

	cr_assert_eq(r.status, 0, "'%s' failed: %s%s", cmd, r.out, r.err);
	n = strlen(r.out);
	while (n && r.out[n - 1] == '\n')
		r.out[--n] = '\0';
	free(r.err);
	return r.out;
}

static char *
abs_path(const char *p)
{
	char *r = realpath(p, NULL);

	if (!r)
		r = strdup(p);
	if (!r)
		abort();
	return r;
}

/* DIR/tests/fake-cuda-VERSION, where DIR is path's folder. malloc'd. */
static char *
fake_home_beside(const char *path, const char *version)
{
	char *abs = abs_path(path), *slash = strrchr(abs, '/'), *home;
	size_t n = strlen(abs) + strlen(version) + 32;

	if (slash)
		*slash = '\0';
	home = malloc(n);
	if (!home)
		abort();
	snprintf(home, n, "%s/tests/fake-cuda-%s", slash ? abs : ".", version);
	free(abs);
	return home;
}

char *
t_fake_cuda_home(const char *version)
{
	const char *bin = getenv("RIPPLE_BIN");
	char *home = fake_home_beside(bin && bin[0] ? bin : "build/ripple",
				      version), *other;
	char self[4096];
	ssize_t n;

	if (!access(home, F_OK))
		return home;
	/* ripple-tests is built with the fakes beside it (ninja fake-cuda) */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return home;
	self[n] = '\0';
	other = fake_home_beside(self, version);
	if (access(other, F_OK)) {
		free(other);
		return home;
	}
	free(home);
	return other;
}

/* argv as one shell command line ('...' quoting), for t_keep_json. */
static void
keep_ripple_json(char *const *argv, const char *out)
{
	size_t n = 1, i;
	const char *c;
	char *line, *p;

	if (!getenv("RIPPLE_JSON_DIR"))
		return;
	for (i = 0; argv[i]; i++)
		n += strlen(argv[i]) * 4 + 3;
	line = p = malloc(n);
	if (!line)
		abort();
	for (i = 0; argv[i]; i++) {
		if (i)
			*p++ = ' ';
		*p++ = '\'';
		for (c = argv[i]; *c; c++) {
			if (*c == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *c;
			}
		}
		*p++ = '\'';
	}
	*p = '\0';
	t_keep_json(line, out);
	free(line);
}

struct run_result
t_ripple(const char *dir, const char *const *argv)
{
	const char *bin = getenv("RIPPLE_BIN");
	char *full[256];
	char *absbin;
	struct run_result r;
	size_t i;

	absbin = abs_path(bin && bin[0] ? bin : "build/ripple");
	full[0] = absbin;
	for (i = 0; argv[i] && i < 254; i++)
		full[i + 1] = (char *)argv[i];
	full[i + 1] = NULL;
	r = run_argv(dir, full);
	keep_ripple_json(full, r.out);
	free(absbin);
	return r;
}

void
t_result_release(struct run_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

#define GIT_ENV "GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent " \
	"GIT_AUTHOR_NAME=Test GIT_AUTHOR_EMAIL=test@example.com " \
	"GIT_COMMITTER_NAME=Test GIT_COMMITTER_EMAIL=test@example.com "

char *
t_git_init(void)
{
	char *dir = t_tmpdir();
	struct run_result r = t_sh(dir, GIT_ENV
		"git init -q -b main . && git config user.name Test && "
		"git config user.email test@example.com && "
		"git config commit.gpgsign false && git config tag.gpgsign false");

	if (r.status)
		abort();
	t_result_release(&r);
	return dir;
}

int
t_git_commit(const char *dir, const char *msg)
{
	char cmd[4096];
	struct run_result r;
	int rc;

	/* One day per commit after 2024-01-01, counted from the history. */
	snprintf(cmd, sizeof(cmd), GIT_ENV
		 "n=$(git rev-list --count HEAD 2>/dev/null || echo 0); "
		 "d=$((1704067200 + n * 86400)); "
		 "git add -A && GIT_AUTHOR_DATE=\"@$d +0000\" "
		 "GIT_COMMITTER_DATE=\"@$d +0000\" git commit -q "
		 "--allow-empty -m '%s'", msg);
	r = t_sh(dir, cmd);
	rc = r.status;
	t_result_release(&r);
	return rc;
}

char *
t_git_rev(const char *dir, const char *rev)
{
	char cmd[1024];
	struct run_result r;
	char *nl;

	snprintf(cmd, sizeof(cmd), "git rev-parse --verify '%s^{commit}'", rev);
	r = t_sh(dir, cmd);
	if (r.status) {
		t_result_release(&r);
		return NULL;
	}
	nl = strchr(r.out, '\n');
	if (nl)
		*nl = '\0';
	free(r.err);
	return r.out;
}
