/*
 * Suite base_place: files placed under a root all or none, never through a
 * link, into a FIFO or onto a device; stale temporary files swept.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/place.h"
#include "tests/support/support.h"

static char *tmp;

static void
setup(void)
{
	tmp = t_tmpdir();
}

static void
teardown(void)
{
	t_rmtree(tmp);
	free(tmp);
}

TestSuite(base_place, .init = setup, .fini = teardown);

static void
sh(const char *cmd)
{
	struct run_result r = t_sh(tmp, cmd);

	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	t_result_release(&r);
}

/* The file names under tmp, one a line, sorted (find -printf). */
static char *
tree(void)
{
	struct run_result r = t_sh(tmp, "find . | LC_ALL=C sort");

	free(r.err);
	return r.out;
}

static void
put(struct place *p, int i, const char *text)
{
	struct error err;
	int fd;

	cr_assert_geq(i, 0);
	error_init(&err);
	fd = place_fd(p, (size_t)i, &err);
	cr_assert_geq(fd, 0, "%s", err.msg);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
}

Test(base_place, commit_places_every_file_and_makes_folders)
{
	struct place p;
	struct error err;
	char *s;

	error_init(&err);
	sh("mkdir repo && echo old > repo/a");
	s = malloc(PATH_MAX);
	snprintf(s, PATH_MAX, "%s/repo", tmp);
	cr_assert_eq(place_open(&p, s, &err), 0, "%s", err.msg);
	put(&p, place_stage(&p, "a", 0644, &err), "new\n");
	put(&p, place_stage(&p, "dist/x/b", 0755, &err), "bee\n");
	cr_assert_eq(place_commit(&p, &err), 0, "%s", err.msg);
	place_close(&p);
	free(s);
	s = tree();
	cr_expect_str_eq(s, ".\n./repo\n./repo/a\n./repo/dist\n"
			 "./repo/dist/x\n./repo/dist/x/b\n");
	free(s);
	sh("grep -qx new repo/a && grep -qx bee repo/dist/x/b && "
	   "test -x repo/dist/x/b && ! test -x repo/a");
}

Test(base_place, close_without_commit_leaves_the_tree_as_it_was)
{
	struct place p;
	struct error err;
	char *before, *after, root[PATH_MAX];

	error_init(&err);
	sh("mkdir repo && echo old > repo/a");
	before = tree();
	snprintf(root, sizeof(root), "%s/repo", tmp);
	cr_assert_eq(place_open(&p, root, &err), 0, "%s", err.msg);
	put(&p, place_stage(&p, "a", 0644, &err), "new\n");
	put(&p, place_stage(&p, "d1/d2/b", 0644, &err), "b\n");
	place_close(&p);
	after = tree();
	cr_expect_str_eq(after, before);
	free(before);
	free(after);
	sh("grep -qx old repo/a");
}

Test(base_place, links_fifos_and_devices_are_refused_untouched)
{
	struct place p;
	struct error err;
	char root[PATH_MAX];
	int fd;

	sh("mkdir repo out && echo victim > victim && "
	   "ln -s ../victim repo/py.typed && ln -s ../out repo/dist && "
	   "mkfifo repo/fifo && ln -s /dev/zero repo/zero && "
	   "mkdir repo/ok && ln -s ../../out repo/ok/sub");
	snprintf(root, sizeof(root), "%s/repo", tmp);
	error_init(&err);
	cr_assert_eq(place_open(&p, root, &err), 0, "%s", err.msg);
	cr_expect_eq(place_stage(&p, "py.typed", 0644, &err), ERROR_INVALID);
	cr_expect_str_eq(err.msg, "'py.typed' is not written: it is a "
			 "symbolic link");
	error_init(&err);
	cr_expect_eq(place_stage(&p, "dist/w.bin", 0644, &err),
		     ERROR_INVALID);
	cr_expect_str_eq(err.msg, "'dist/w.bin' is not written: 'dist' is a "
			 "symbolic link");
	error_init(&err);
	cr_expect_eq(place_stage(&p, "fifo", 0644, &err), ERROR_INVALID);
	cr_expect_str_eq(err.msg, "'fifo' is not written: it is a FIFO");
	error_init(&err);
	cr_expect_eq(place_stage(&p, "ok/sub/new/f", 0644, &err),
		     ERROR_INVALID);
	cr_expect_str_eq(err.msg, "'ok/sub/new/f' is not written: 'ok/sub' "
			 "is a symbolic link");
	place_close(&p);
	/* Nothing was made outside, the victim is whole. */
	sh("test -z \"$(ls out)\" && grep -qx victim victim && "
	   "! test -e repo/ok/sub/new");
	error_init(&err);
	cr_expect_eq(place_read_open(root, "zero", &err), ERROR_INVALID);
	cr_expect_str_eq(err.msg, "'zero' is not written: it is a symbolic "
			 "link");
	error_init(&err);
	cr_expect_eq(place_read_open(root, "fifo", &err), ERROR_INVALID);
	error_init(&err);
	cr_expect_eq(place_read_open(root, "missing", &err), ERROR_NOT_FOUND);
	error_init(&err);
	sh("echo hi > repo/ok/file");
	fd = place_read_open(root, "ok/file", &err);
	cr_expect_geq(fd, 0, "%s", err.msg);
	if (fd >= 0)
		close(fd);
}

Test(base_place, sweep_removes_temp_files_of_gone_processes_only)
{
	char root[PATH_MAX], name[128];
	struct error err;
	pid_t child = fork();
	char *s;

	cr_assert_geq(child, 0);
	if (!child)
		_exit(0);
	waitpid(child, NULL, 0);
	sh("mkdir -p repo/dist");
	snprintf(name, sizeof(name), "repo/dist/w.bin" PLACE_TMP_MARK
		 "%ld-0badcafe", (long)child);
	t_write(tmp, name, "partial");
	snprintf(name, sizeof(name), "repo/dist/w.bin" PLACE_TMP_MARK
		 "%ld-00000001", (long)getpid());
	t_write(tmp, name, "mine, running");
	t_write(tmp, "repo/dist/keep.ripple-tmp-notours", "user's");
	snprintf(root, sizeof(root), "%s/repo", tmp);
	error_init(&err);
	cr_expect_eq(place_sweep(root, "dist", 0, &err), 1, "%s", err.msg);
	cr_expect_eq(place_sweep(root, "missing/dir", 1, &err), 0, "%s",
		     err.msg);
	s = tree();
	snprintf(name, sizeof(name), "./repo/dist/w.bin" PLACE_TMP_MARK
		 "%ld-00000001", (long)getpid());
	cr_expect(strstr(s, name) != NULL, "%s", s);
	cr_expect(strstr(s, "0badcafe") == NULL, "%s", s);
	cr_expect(strstr(s, "keep.ripple-tmp-notours") != NULL, "%s", s);
	free(s);
}

/*
 * Only names ripple makes are swept: NAME + mark + PID + '-' + exactly 8
 * lowercase hex digits (make_tmp's "%08x"). A user's file that merely
 * has the mark and a gone PID (no hex, or not 8 of them) was removed;
 * an output whose own name holds the mark was never swept when a fetch
 * of it was killed (the first mark was read, not the temp name's own).
 */
Test(base_place, sweep_takes_only_names_ripple_makes)
{
	char root[PATH_MAX], name[160], dead[32];
	struct error err;
	pid_t child = fork();
	char *s;

	cr_assert_geq(child, 0);
	if (!child)
		_exit(0);
	waitpid(child, NULL, 0);
	snprintf(dead, sizeof(dead), "%ld", (long)child);
	sh("mkdir -p repo/dist");
	snprintf(name, sizeof(name), "repo/dist/a" PLACE_TMP_MARK "%s-", dead);
	t_write(tmp, name, "user's");
	snprintf(name, sizeof(name), "repo/dist/b" PLACE_TMP_MARK "%s-cafe",
		 dead);
	t_write(tmp, name, "user's");
	snprintf(name, sizeof(name), "repo/dist/c" PLACE_TMP_MARK "%s-0badcafe1",
		 dead);
	t_write(tmp, name, "user's");
	snprintf(name, sizeof(name), "repo/dist/o" PLACE_TMP_MARK "1-x.whl"
		 PLACE_TMP_MARK "%s-0badcafe", dead);
	t_write(tmp, name, "partial");
	snprintf(root, sizeof(root), "%s/repo", tmp);
	error_init(&err);
	cr_expect_eq(place_sweep(root, "dist", 0, &err), 1, "%s", err.msg);
	s = tree();
	cr_expect(strstr(s, "/a" PLACE_TMP_MARK) != NULL, "%s", s);
	cr_expect(strstr(s, "/b" PLACE_TMP_MARK) != NULL, "%s", s);
	cr_expect(strstr(s, "/c" PLACE_TMP_MARK) != NULL, "%s", s);
	cr_expect(strstr(s, "x.whl" PLACE_TMP_MARK) == NULL, "%s", s);
	free(s);
}

/*
 * A deep sweep goes down the folders below (a killed fetch of a node
 * whose outputs are dist/STARSTAR leaves files anywhere there), but never
 * through a link, into ".git" or ".ripple"; a shallow one stays put.
 */
Test(base_place, deep_sweep_stays_below_and_never_follows_links)
{
	const char *at[] = { "repo/dist/a/b/c", "repo/dist/x", "repo/dist/.GIT/h",
			     "repo/dist/.ripple/r", "outside/o" };
	char root[PATH_MAX], name[PATH_MAX];
	struct error err;
	pid_t child = fork();
	size_t i;
	char *s;

	cr_assert_geq(child, 0);
	if (!child)
		_exit(0);
	waitpid(child, NULL, 0);
	sh("mkdir -p repo/dist/a/b repo/dist/.GIT repo/dist/.ripple outside "
	   "&& ln -s ../../outside repo/dist/ln");
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		snprintf(name, sizeof(name), "%s" PLACE_TMP_MARK "%ld-0badcafe",
			 at[i], (long)child);
		t_write(tmp, name, "partial");
	}
	snprintf(root, sizeof(root), "%s/repo", tmp);
	error_init(&err);
	cr_expect_eq(place_sweep(root, "dist", 0, &err), 1, "%s", err.msg);
	cr_expect_eq(place_sweep(root, "dist", 1, &err), 1, "%s", err.msg);
	s = tree();
	cr_expect(strstr(s, "dist/a/b/c.ripple") == NULL, "%s", s);
	cr_expect(strstr(s, "dist/x.ripple") == NULL, "%s", s);
	cr_expect(strstr(s, ".GIT/h.ripple") != NULL, "%s", s);
	cr_expect(strstr(s, ".ripple/r.ripple") != NULL, "%s", s);
	cr_expect(strstr(s, "outside/o.ripple") != NULL, "%s", s);
	free(s);
}

/*
 * A node may have thousands of outputs: a placement holds no descriptor
 * per staged file (it held two: its folder and its temp file, so 500
 * outputs ran out of descriptors, EMFILE). 3000 files in 30 folders are
 * staged, written and placed under a limit of 64 descriptors.
 */
Test(base_place, thousands_of_files_need_no_descriptor_each)
{
	const struct rlimit lim = { 64, 64 };
	char root[PATH_MAX], rel[64], text[64];
	struct place p;
	struct error err;
	size_t i, n = 3000;
	char *s;

	sh("mkdir repo");
	snprintf(root, sizeof(root), "%s/repo", tmp);
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
	error_init(&err);
	cr_assert_eq(place_open(&p, root, &err), 0, "%s", err.msg);
	for (i = 0; i < n; i++) {
		int k, fd;

		snprintf(rel, sizeof(rel), "dist/d%02zu/f%04zu", i % 30, i);
		k = place_stage(&p, rel, 0644, &err);
		cr_assert_eq(k, (int)i, "%s: %s", rel, err.msg);
		if (i % 7)
			continue;	/* the rest stay empty */
		fd = place_fd(&p, (size_t)k, &err);
		cr_assert_geq(fd, 0, "%s", err.msg);
		snprintf(text, sizeof(text), "%zu\n", i);
		cr_assert_eq(write(fd, text, strlen(text)),
			     (ssize_t)strlen(text));
		cr_assert_eq(place_fd_close(&p, (size_t)k, &err), 0);
	}
	cr_assert_eq(place_commit(&p, &err), 0, "%s", err.msg);
	place_close(&p);
	s = tree();
	cr_expect(strstr(s, "ripple-tmp") == NULL, "temp files left");
	free(s);
	s = t_read(strcat(root, "/dist/d01/f2821"));
	cr_expect_str_eq(s, "2821\n");
	free(s);
	sh("test $(find repo -type f | wc -l) = 3000");
	sh("test $(find repo -type f -size +0 | wc -l) = 429");
}

/*
 * A staged file is reopened by name (no descriptor is held meanwhile), so
 * the reopen must find the very file place_stage made: one put in its
 * place (a hard link to a file elsewhere, a new file) is refused, never
 * written into or placed.
 */
Test(base_place, a_temp_file_swapped_meanwhile_is_refused)
{
	char root[PATH_MAX], cmd[PATH_MAX + 128];
	struct place p;
	struct error err;
	char *tmpname, *s;
	int k;

	sh("mkdir -p repo/dist && echo secret > victim");
	snprintf(root, sizeof(root), "%s/repo", tmp);
	error_init(&err);
	cr_assert_eq(place_open(&p, root, &err), 0, "%s", err.msg);
	k = place_stage(&p, "dist/w.bin", 0644, &err);
	cr_assert_geq(k, 0, "%s", err.msg);
	tmpname = place_tmp_path(&p, (size_t)k);
	cr_assert_not_null(tmpname);
	snprintf(cmd, sizeof(cmd), "rm '%s' && ln victim '%s'", tmpname,
		 tmpname);
	sh(cmd);
	cr_expect_eq(place_fd(&p, (size_t)k, &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "replaced meanwhile") != NULL, "%s",
		  err.msg);
	error_init(&err);
	cr_expect_eq(place_commit(&p, &err), ERROR_INVALID, "%s", err.msg);
	place_close(&p);
	s = t_read(strcat(root, "/../victim"));
	cr_expect_str_eq(s, "secret\n");
	free(s);
	mem_free(tmpname);
}

/*
 * A name that is '.git' or '.ripple' on some file system is never staged,
 * whoever asks (issue 29): nothing is made for it. Names only Windows
 * reads differently are POSIX names here (tests/windows/plat_test.c
 * refuses them on Windows).
 */
Test(base_place, names_that_alias_git_or_ripple_are_refused)
{
	static const char *const refused[] = {
		"dist/.GIT./config", "GIT~1/hooks/x", ".Ripple/cache.db",
		"a/.g\xe2\x80\x8cit/config",
	};
	struct place p;
	struct error err;
	char *before, *after;
	size_t i;

	error_init(&err);
	before = tree();
	cr_assert_eq(place_open(&p, tmp, &err), 0, "%s", err.msg);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		error_init(&err);
		cr_expect_eq(place_stage(&p, refused[i], 0644, &err),
			     ERROR_INVALID, "%s was staged", refused[i]);
		cr_expect(strstr(err.msg, "is not written") != NULL, "%s",
			  err.msg);
	}
	after = tree();
	cr_expect_str_eq(after, before, "nothing made");
	free(after);
	error_init(&err);
	put(&p, place_stage(&p, "dist/NUL.txt", 0644, &err), "n");
	put(&p, place_stage(&p, "dist/a:b. ", 0644, &err), "a");
	cr_expect_eq(place_commit(&p, &err), 0, "%s", err.msg);
	place_close(&p);
	free(before);
}
