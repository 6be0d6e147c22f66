/*
 * Test support: temporary directories, files, git repositories made with the
 * git program (tests may run git; the product never does), and running the
 * built ripple binary with its output captured.
 */
#ifndef RIPPLE_TESTS_SUPPORT_H
#define RIPPLE_TESTS_SUPPORT_H

#include <stddef.h>

struct run_result {
	int status;	/* exit status, or 128 + signal */
	char *out;	/* stdout, NUL-terminated, malloc'd */
	char *err;	/* stderr, NUL-terminated, malloc'd */
};

/* A fresh directory under $TMPDIR (or /tmp); malloc'd path. Aborts on error. */
char *t_tmpdir(void);

/* rm -rf the directory; accepts NULL. */
void t_rmtree(const char *dir);

/* Write `text` to DIR/REL, creating parent folders. Aborts on error. */
void t_write(const char *dir, const char *rel, const char *text);

/* Read a whole file; malloc'd, NUL-terminated; NULL if it does not exist. */
char *t_read(const char *path);

/*
 * The whole file at path into *len bytes (which may hold NULs), malloc'd
 * and NUL-terminated beyond them; the test fails when it cannot be read.
 */
unsigned char *t_read_bytes(const char *path, size_t *len);

/* Write n bytes to path (parents must exist); the test fails otherwise. */
void t_write_bytes(const char *path, const void *p, size_t n);

/* Path of the source tree (RIPPLE_SRCDIR, else "."): for fixtures. */
const char *t_srcdir(void);

/*
 * Run a shell command line in dir with output captured. `cmd` is passed to
 * /bin/sh -c. Returns the result; free it with t_result_release.
 */
struct run_result t_sh(const char *dir, const char *cmd);

/*
 * t_sh that must succeed (the test fails otherwise, showing the command
 * and its output): its stdout, trailing newlines cut, malloc'd.
 */
char *t_sh_out(const char *dir, const char *cmd);

/*
 * Run the built ripple (RIPPLE_BIN, else build/ripple) with argv (NULL-
 * terminated, without argv[0]) in dir.
 */
struct run_result t_ripple(const char *dir, const char *const *argv);

void t_result_release(struct run_result *r);

/*
 * Run the built ripple through /bin/sh in dir as `ripple ARGS` (args:
 * shell words, redirections allowed), killed after timeout_s seconds
 * (status 137) and bounded to `kib` KiB of memory: `ulimit -v` (address
 * space); under AddressSanitizer, whose shadow memory needs terabytes of
 * address space so that ulimit -v kills it at start, ASan's
 * hard_rss_limit_mb of the same size instead (resident memory, which
 * ASan checks as it runs): runaway memory still ends the command.
 */
struct run_result t_ripple_bounded(const char *dir, unsigned kib,
				   unsigned timeout_s, const char *args);

/*
 * Absolute path of a fake CUDA toolkit home built next to the ripple
 * binary (RIPPLE_BIN's folder, else build/), else next to this test
 * program (which is built with them): "12.4" (a runtime without the
 * library API, launching through the fake driver) or "13.0" (with it).
 * The first path when neither exists. tests/engine/cuda/fake_cuda.c says
 * what the fakes do. malloc'd.
 */
char *t_fake_cuda_home(const char *version);

/*
 * With $RIPPLE_JSON_DIR set (ninja check sets it), keep `out` when it is a
 * JSON document, as DIR/out-XXXXXX.json beside DIR/out-XXXXXX.cmd holding
 * `cmdline` (a shell command line), for tests/schemas/validate.py to check
 * against docs/schemas/. t_ripple and t_sh call it for every command;
 * call it for output captured otherwise. Does nothing without the
 * variable.
 */
void t_keep_json(const char *cmdline, const char *out);

/*
 * Make an empty git repository in a new temporary directory with a fixed
 * identity and fixed dates (GIT_AUTHOR_DATE/GIT_COMMITTER_DATE advance by
 * one day per commit made with t_git_commit). Returns the malloc'd path.
 */
char *t_git_init(void);

/* `git add -A && git commit -m MSG` with fixed dates; returns 0 on success. */
int t_git_commit(const char *dir, const char *msg);

/* Full commit id of REV in dir (static storage per call is NOT used: malloc'd). */
char *t_git_rev(const char *dir, const char *rev);

#endif
