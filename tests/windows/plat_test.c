/*
 * Suite base_win: the Windows side of base/fsys, base/path and base/place
 * under Wine (wine-tests.exe, tests/windows/criterion.h), on files made
 * here in a folder of the run's own: roots and absolute paths, file kinds,
 * links, realpath, pread, a replacing rename, resolution under a root on
 * a drive, a placement committed or abandoned; and the environment every
 * action gets (engine/run/exec.c over base/host).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "base/error.h"
#include "base/fsys.h"
#include "base/host.h"
#include "base/path.h"
#include "base/place.h"
#include "cache/remote.h"
#include "engine/run/exec.h"

static char dir[64];
static unsigned serial;

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "t-win-%lu-%lu-%u",
		 (unsigned long)GetCurrentProcessId(),
		 (unsigned long)GetTickCount(), serial++);
	cr_assert_eq(fsys_mkdir(dir), 0);
}

TestSuite(base_win, .init = setup);

static void
write_file(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "wb");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static char *
read_file(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

Test(base_win, roots_and_absolute_paths)
{
	cr_expect_eq(fsys_root_len("C:/x"), 3);
	cr_expect_eq(fsys_root_len("c:\\x"), 3);
	cr_expect_eq(fsys_root_len("//host/share/x"), 13);
	cr_expect_eq(fsys_root_len("\\\\?\\C:\\x"), 7);
	cr_expect_eq(fsys_root_len("/x"), 0, "a rooted path without a drive "
		     "depends on the current drive");
	cr_expect_eq(fsys_root_len("C:x"), 0);
	cr_expect_eq(fsys_root_len("x/y"), 0);
	cr_expect_eq(fsys_root_len(""), 0);
	cr_expect(fsys_absolute("Z:/tmp"));
	cr_expect(!fsys_absolute("tmp"));
	cr_expect_eq(fsys_exec_bits(), 0);
}

Test(base_win, kinds_sizes_and_identity)
{
	char path[256];
	struct fsys_stat a, b;

	write_file("f.txt", "12345");
	snprintf(path, sizeof(path), "%s/f.txt", dir);
	cr_assert_eq(fsys_lstat(path, &a), 0);
	cr_expect_eq(a.kind, FSYS_REG);
	cr_expect_eq(a.size, 5);
	cr_expect_gt(a.mtime_s, 1600000000, "seconds since 1970");
	cr_assert_eq(fsys_stat(path, &b), 0);
	cr_expect(a.dev == b.dev && a.ino == b.ino, "one file, one identity");
	cr_assert_eq(fsys_lstat(dir, &a), 0);
	cr_expect_eq(a.kind, FSYS_DIR);
	cr_expect_eq(fsys_stat("NUL", &a), 0);
	cr_expect_eq(a.kind, FSYS_CHR, "NUL is a device");
	snprintf(path, sizeof(path), "%s/none", dir);
	cr_expect_eq(fsys_lstat(path, &a), ENOENT);
	snprintf(path, sizeof(path), "%s/none/deeper", dir);
	cr_expect_eq(fsys_lstat(path, &a), ENOENT);
}

Test(base_win, links_are_links_and_read_as_written)
{
	char link[256], target[256];
	struct fsys_stat st;
	size_t len = 0;
	int e;

	write_file("target.txt", "t");
	snprintf(link, sizeof(link), "%s/link", dir);
	e = fsys_symlink("target.txt", link);
	if (e == EACCES || e == EIO)
		cr_skip_test("no symbolic links here (%s): Windows needs a "
			     "privilege or Developer Mode", strerror(e));
	cr_assert_eq(e, 0, "%s", strerror(e));
	if (fsys_lstat(link, &st) == ENOENT)
		cr_skip_test("CreateSymbolicLinkW said yes and made nothing "
			     "(Wine 8 does that): links need a Windows runner");
	cr_assert_eq(fsys_lstat(link, &st), 0);
	cr_expect_eq(st.kind, FSYS_LNK);
	cr_assert_eq(fsys_readlink(link, target, sizeof(target), &len), 0);
	cr_expect_str_eq(target, "target.txt");
	cr_expect_eq(len, 10);
	cr_expect_eq(fsys_readlink(link, target, 5, &len), ENAMETOOLONG);
	cr_assert_eq(fsys_stat(link, &st), 0);
	cr_expect_eq(st.kind, FSYS_REG, "stat follows the link");
	snprintf(link, sizeof(link), "%s/target.txt", dir);
	cr_expect_eq(fsys_readlink(link, target, sizeof(target), &len),
		     EINVAL, "a file is no link");
}

Test(base_win, realpath_is_absolute_with_forward_slashes)
{
	char path[256];
	char *r;

	snprintf(path, sizeof(path), "%s/./", dir);
	r = fsys_realpath(path);
	cr_assert_not_null(r, "%s", strerror(errno));
	cr_expect(fsys_absolute(r), "%s", r);
	cr_expect_null(strchr(r, '\\'), "%s", r);
	cr_expect(strncmp(r, "//?/", 4) && strncmp(r, "\\\\?\\", 4), "%s", r);
	cr_expect_str_eq(r + strlen(r) - strlen(dir), dir);
	free(r);
	snprintf(path, sizeof(path), "%s/missing", dir);
	errno = 0;
	cr_expect_null(fsys_realpath(path));
	cr_expect_eq(errno, ENOENT);
}

Test(base_win, pread_reads_at_an_offset_and_rename_replaces)
{
	char path[256], to[256], buf[8];
	int fd;

	write_file("p.txt", "abcdefgh");
	write_file("q.txt", "old");
	snprintf(path, sizeof(path), "%s/p.txt", dir);
	fd = fsys_open_read(path);
	cr_assert_geq(fd, 0);
	cr_expect_eq(fsys_pread(fd, buf, 3, 5), 3);
	cr_expect_eq(memcmp(buf, "fgh", 3), 0);
	cr_expect_eq(fsys_pread(fd, buf, 3, 8), 0, "the end");
	close(fd);
	snprintf(to, sizeof(to), "%s/q.txt", dir);
	cr_expect_eq(fsys_rename(path, to), 0, "over an existing file");
	cr_expect_str_eq(read_file(to), "abcdefgh");
}

Test(base_win, resolve_under_a_root_on_a_drive)
{
	char out[PATH_RESOLVED_MAX], *root = fsys_realpath(dir);
	struct error err;

	cr_assert_not_null(root);
	cr_assert_eq(fsys_root_len(root), 3, "%s", root);
	error_init(&err);
	cr_expect_eq(path_resolve_under(root, "a/../b", 1, out, sizeof(out),
					&err), 1, "%s", err.msg);
	cr_expect(!strncmp(out, root, strlen(root)) &&
		  !strcmp(out + strlen(root), "/b"), "%s", out);
	cr_expect_eq(path_resolve_under(root, "../x", 1, out, sizeof(out),
					&err), 0, "'..' leaves: %s", out);
	cr_expect_eq(path_resolve_under(root, "../../../../../../../x", 1,
					out, sizeof(out), &err), 0);
	cr_expect_eq(fsys_root_len(out), 3, "never above the drive: %s", out);
	cr_expect_eq(path_mkdirs_under(root, "m/n", &err), 0, "%s", err.msg);
	free(root);
}

Test(base_win, a_placement_commits_all_or_leaves_nothing)
{
	char path[256];
	struct place p;
	struct error err;
	int i, fd;

	error_init(&err);
	cr_assert_eq(place_open(&p, dir, &err), 0, "%s", err.msg);
	i = place_stage(&p, "d/e/f.txt", 0644, &err);
	cr_assert_geq(i, 0, "%s", err.msg);
	fd = place_fd(&p, (size_t)i, &err);
	cr_assert_geq(fd, 0, "%s", err.msg);
	cr_assert_eq(write(fd, "abc", 3), 3);
	cr_expect_eq(place_fd_close(&p, (size_t)i, &err), 0);
	cr_expect_eq(place_commit(&p, &err), 0, "%s", err.msg);
	place_close(&p);
	snprintf(path, sizeof(path), "%s/d/e/f.txt", dir);
	cr_expect_str_eq(read_file(path), "abc");

	cr_assert_eq(place_open(&p, dir, &err), 0, "%s", err.msg);
	i = place_stage(&p, "g/h.txt", 0644, &err);
	cr_assert_geq(i, 0, "%s", err.msg);
	place_close(&p);	/* no commit */
	snprintf(path, sizeof(path), "%s/g", dir);
	cr_expect_eq(_access(path, 0), -1, "the folder made is gone");

	cr_assert_eq(place_open(&p, dir, &err), 0, "%s", err.msg);
	cr_expect_eq(place_stage(&p, "d/e", 0644, &err), ERROR_INVALID,
		     "a folder at the destination is refused");
	place_close(&p);
	fd = place_read_open(dir, "d/e/f.txt", &err);
	cr_expect_geq(fd, 0, "%s", err.msg);
	if (fd >= 0)
		close(fd);
	cr_expect_eq(place_read_open(dir, "d/e", &err), ERROR_INVALID);
	cr_expect_eq(place_read_open(dir, "d/none", &err), ERROR_NOT_FOUND);
}

/*
 * Names Windows reads as another file (issue 29): a device (NUL.txt is
 * the NUL device), a stream (w.whl:x), a trailing dot or space (dropped),
 * an 8.3 short name, a backslash. On Windows a remote cache entry naming
 * one is refused as a cache writer's lie, and a placement refuses to
 * stage one, making nothing; an ordinary name is still placed.
 */
Test(base_win, names_windows_reads_as_other_files_are_refused)
{
	static const char *const refused[] = {
		"dist/NUL.txt", "dist/con", "dist/COM1.log", "dist/lpt\xc2\xb9",
		"dist/w.whl:x", "dist/w.whl.", "dist/w.whl ", "PROGRA~1/x",
		"dist/.GIT./config", "GIT~1/hooks/x", ".Ripple/cache.db",
	};
	char path[256];
	struct place p;
	struct error err;
	size_t i;
	int k;

	cr_expect_eq(host_path_names(), PATH_NAMES_WINDOWS);
	error_init(&err);
	cr_assert_eq(place_open(&p, dir, &err), 0, "%s", err.msg);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		const char *r = refused[i];

		error_init(&err);
		cr_expect_eq(remote_output_path_check(r, strlen(r), &err),
			     ERROR_INVALID, "the entry's %s passed", r);
		error_init(&err);
		cr_expect_eq(place_stage(&p, r, 0644, &err), ERROR_INVALID,
			     "%s was staged", r);
		cr_expect(strstr(err.msg, "is not written") != NULL, "%s: %s",
			  r, err.msg);
	}
	snprintf(path, sizeof(path), "%s/dist", dir);
	cr_expect_eq(_access(path, 0), -1, "nothing made for them");
	snprintf(path, sizeof(path), "%s/PROGRA~1", dir);
	cr_expect_eq(_access(path, 0), -1, "nothing made for them");
	error_init(&err);
	k = place_stage(&p, "dist/w.whl", 0644, &err);
	cr_assert_geq(k, 0, "%s", err.msg);
	cr_expect_eq(place_commit(&p, &err), 0, "%s", err.msg);
	place_close(&p);
	snprintf(path, sizeof(path), "%s/dist/w.whl", dir);
	cr_expect_eq(_access(path, 0), 0, "an ordinary name is placed");
}

/*
 * Windows spells PATH as Path and needs SYSTEMROOT in every process: the
 * allow-list matches names in any case and adds the system's own.
 */
Test(base_win, actions_get_path_in_any_case_and_the_systems_variables)
{
	char *env[] = { "Path=C:\\bin", "SystemRoot=C:\\Windows",
			"TEMP=C:\\tmp", "SECRET_TOKEN=x", NULL };
	const char *out[EXEC_ENV_ALWAYS_MAX + 1];
	size_t n, i;
	int path = 0, root = 0, temp = 0;

	cr_expect(host_env_is("Path=x", "PATH"));
	cr_expect(!host_env_is("PATHEXT=x", "PATH"));
	n = exec_env_allowed(env, out);
	cr_assert_leq(n, EXEC_ENV_ALWAYS_MAX);
	for (i = 0; i < n; i++) {
		path |= !strcmp(out[i], "Path=C:\\bin");
		root |= !strcmp(out[i], "SystemRoot=C:\\Windows");
		temp |= !strcmp(out[i], "TEMP=C:\\tmp");
		cr_expect(strncmp(out[i], "SECRET", 6), "%s", out[i]);
	}
	cr_expect(path && root && temp, "%zu passed", n);
}

/*
 * host_build_id on Windows: the CodeView record's GUID and age that GNU
 * ld's --build-id writes (tools/windows/configure.sh), 40 lowercase hex
 * digits, the same as the "RSDS" record read from the .exe's bytes on disk.
 * Without it, the rules model memo is off (engine/plan/eval_rules.c).
 */
Test(base_win, the_build_id_is_the_images_codeview_record)
{
	static const char hex[] = "0123456789abcdef";
	char id[129], again[129], want[41], exe[MAX_PATH];
	unsigned char *bytes;
	size_t n, i, k;
	int found = 0;
	FILE *f;
	long len;

	host_build_id(id, sizeof(id));
	host_build_id(again, sizeof(again));
	cr_expect_str_eq(id, again);
	cr_assert_eq(strlen(id), 40, "no build id: '%s' (linked without "
		     "-Wl,--build-id?)", id);
	n = GetModuleFileNameA(NULL, exe, sizeof(exe));
	cr_assert(n > 0 && n < sizeof(exe));
	f = fopen(exe, "rb");
	cr_assert_not_null(f, "%s", exe);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	cr_assert(len > 0);
	rewind(f);
	bytes = malloc((size_t)len);
	cr_assert_not_null(bytes);
	cr_assert_eq(fread(bytes, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	/* "RSDS" is also a string of host_win.c's: one of the places holds
	 * the record */
	for (i = 0; !found && i + 24 <= (size_t)len; i++) {
		if (memcmp(bytes + i, "RSDS", 4))
			continue;
		for (k = 0; k < 20; k++) {
			want[2 * k] = hex[bytes[i + 4 + k] >> 4];
			want[2 * k + 1] = hex[bytes[i + 4 + k] & 15];
		}
		want[40] = '\0';
		found = !strcmp(id, want);
	}
	free(bytes);
	cr_expect(found, "%s is no RSDS record of %s", id, exe);
	host_build_id(again, 40);
	cr_expect_str_eq(again, "", "cut to nothing rather than short");
}
