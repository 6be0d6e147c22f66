/*
 * Suite base_place: files placed under a root all or none, never through a
 * link, into a FIFO or onto a device; stale temporary files swept.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	cr_assert_geq(i, 0);
	cr_assert_eq(write(place_fd(p, (size_t)i), text, strlen(text)),
		     (ssize_t)strlen(text));
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
	cr_expect_eq(place_sweep(root, "dist", &err), 1, "%s", err.msg);
	cr_expect_eq(place_sweep(root, "missing/dir", &err), 0, "%s",
		     err.msg);
	s = tree();
	snprintf(name, sizeof(name), "./repo/dist/w.bin" PLACE_TMP_MARK
		 "%ld-00000001", (long)getpid());
	cr_expect(strstr(s, name) != NULL, "%s", s);
	cr_expect(strstr(s, "0badcafe") == NULL, "%s", s);
	cr_expect(strstr(s, "keep.ripple-tmp-notours") != NULL, "%s", s);
	free(s);
}
