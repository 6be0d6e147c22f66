/* Suites for graph/repo: discovery, revisions, tags, blobs, shallow clones,
 * changed paths. Repositories are made with the git program. */
#include <criterion/criterion.h>
#include <linux/capability.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "graph/repo.h"
#include "tests/support/support.h"

static void
sh_ok(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);

	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	t_result_release(&r);
}

static struct graph_repo *
open_ok(const char *dir)
{
	struct graph_repo *repo = NULL;
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	return repo;
}

static void
expect_rev(struct graph_repo *repo, const char *dir, const char *rev,
	   const char *git_rev)
{
	struct graph_oid oid;
	struct error err;
	char hex[GRAPH_OID_HEX], *want = t_git_rev(dir, git_rev);

	error_init(&err);
	cr_assert_eq(graph_repo_resolve(repo, rev, &oid, &err), 0, "%s: %s",
		     rev, err.msg);
	graph_oid_hex(&oid, hex);
	cr_expect_str_eq(hex, want, "%s", rev);
	free(want);
}

/* Three commits on main, a lightweight and an annotated tag, a branch. */
static char *
history(void)
{
	char *dir = t_git_init();

	t_write(dir, "a.txt", "one\n");
	cr_assert_eq(t_git_commit(dir, "one"), 0);
	sh_ok(dir, "git tag v1.0 && git tag -a v1.1 -m 'annotated v1.1'");
	t_write(dir, "a.txt", "two\n");
	t_write(dir, "sub/b.txt", "b\n");
	cr_assert_eq(t_git_commit(dir, "two"), 0);
	sh_ok(dir, "git branch side HEAD");
	t_write(dir, "a.txt", "three\n");
	cr_assert_eq(t_git_commit(dir, "three"), 0);
	return dir;
}

Test(graph_repo, open_discovers_upward_and_reports_root)
{
	char *dir = history(), sub[4096], *real;
	struct graph_repo *repo;

	snprintf(sub, sizeof(sub), "%s/sub", dir);
	repo = open_ok(sub);
	real = realpath(dir, NULL);
	cr_expect_str_eq(graph_repo_root(repo), real);
	cr_expect_eq(graph_repo_is_shallow(repo), 0);
	graph_repo_close(repo);
	free(real);
	t_rmtree(dir);
	free(dir);
}

Test(graph_repo, open_outside_a_repository_is_not_found)
{
	char *dir = t_tmpdir();
	struct graph_repo *repo = NULL;
	struct error err;

	error_init(&err);
	cr_expect_eq(graph_repo_open(dir, &repo, &err), ERROR_NOT_FOUND);
	cr_expect_null(repo);
	cr_expect(strstr(err.msg, "not a git repository") != NULL, "%s",
		  err.msg);
	t_rmtree(dir);
	free(dir);
}

Test(graph_repo, resolves_every_revision_spelling)
{
	char *dir = history(), *full = t_git_rev(dir, "HEAD~1");
	struct graph_repo *repo = open_ok(dir);
	char shortid[16];

	snprintf(shortid, sizeof(shortid), "%.8s", full);
	expect_rev(repo, dir, "HEAD", "HEAD");
	expect_rev(repo, dir, "main", "main");
	expect_rev(repo, dir, "side", "side");
	expect_rev(repo, dir, "v1.0", "v1.0^{commit}");
	expect_rev(repo, dir, "v1.1", "v1.1^{commit}");
	expect_rev(repo, dir, full, "HEAD~1");
	expect_rev(repo, dir, shortid, "HEAD~1");
	expect_rev(repo, dir, "HEAD~2", "HEAD~2");
	expect_rev(repo, dir, "main^", "HEAD~1");
	graph_repo_close(repo);
	free(full);
	t_rmtree(dir);
	free(dir);
}

Test(graph_repo, unknown_revision_and_non_commit_are_errors)
{
	char *dir = history();
	struct graph_repo *repo = open_ok(dir);
	struct graph_oid oid;
	struct error err;

	error_init(&err);
	cr_expect_eq(graph_repo_resolve(repo, "nope", &oid, &err),
		     ERROR_NOT_FOUND);
	cr_expect(strstr(err.msg, "'nope'") != NULL, "%s", err.msg);
	error_init(&err);
	cr_expect_eq(graph_repo_resolve(repo, "HEAD:a.txt", &oid, &err),
		     ERROR_INVALID);
	graph_repo_close(repo);
	t_rmtree(dir);
	free(dir);
}

Test(graph_repo, merge_base_of_diverged_branches)
{
	char *dir = history(), *want, hex[GRAPH_OID_HEX];
	struct graph_repo *repo;
	struct graph_oid oid;
	struct error err;

	sh_ok(dir, "git checkout -q side && echo s > s.txt && git add s.txt && "
		   "git commit -qm side && git checkout -q main");
	repo = open_ok(dir);
	want = t_git_rev(dir, "HEAD~1");
	error_init(&err);
	cr_assert_eq(graph_repo_merge_base(repo, "main", "side", &oid, &err), 0,
		     "%s", err.msg);
	graph_oid_hex(&oid, hex);
	cr_expect_str_eq(hex, want);
	graph_repo_close(repo);
	free(want);
	t_rmtree(dir);
	free(dir);
}

Test(graph_repo, tags_are_sorted_peeled_and_flagged)
{
	char *dir = history(), *first = t_git_rev(dir, "HEAD~2"), hex[41];
	struct graph_repo *repo;
	struct graph_tag_list tags;
	struct error err;

	sh_ok(dir, "git tag v0.9 HEAD && git tag tree-tag 'HEAD^{tree}'");
	repo = open_ok(dir);
	error_init(&err);
	cr_assert_eq(graph_repo_tags(repo, &tags, &err), 0, "%s", err.msg);
	cr_assert_eq(tags.n, 3);
	cr_expect_str_eq(tags.items[0].name, "v0.9");
	cr_expect_str_eq(tags.items[1].name, "v1.0");
	cr_expect_str_eq(tags.items[2].name, "v1.1");
	cr_expect_eq(tags.items[1].annotated, 0);
	cr_expect_eq(tags.items[2].annotated, 1);
	graph_oid_hex(&tags.items[2].target, hex);
	cr_expect_str_eq(hex, first);
	graph_tag_list_release(&tags);
	graph_repo_close(repo);
	free(first);
	t_rmtree(dir);
	free(dir);
}

Test(graph_repo, broken_tag_refs_are_skipped_and_named)
{
	char *dir = history();
	struct graph_repo *repo;
	struct graph_tag_list tags;
	struct error err;

	sh_ok(dir, "echo 'ref: refs/heads/nope' > .git/refs/tags/dangling && "
		   "git rev-parse HEAD > .git/refs/tags/x.lock && "
		   "echo 0000000000000000000000000000000000000000 > "
		   ".git/refs/tags/zero");
	repo = open_ok(dir);
	error_init(&err);
	cr_assert_eq(graph_repo_tags(repo, &tags, &err), 0, "%s", err.msg);
	cr_assert_eq(tags.n, 2);
	cr_expect_str_eq(tags.items[0].name, "v1.0");
	cr_expect_str_eq(tags.items[1].name, "v1.1");
	/* a ".lock" file is a ref being written: git and libgit2 pass it */
	cr_assert_eq(tags.skipped.n, 2);
	cr_expect_str_eq(tags.skipped.v[0], "refs/tags/dangling");
	cr_expect_str_eq(tags.skipped.v[1], "refs/tags/zero");
	graph_tag_list_release(&tags);
	graph_repo_close(repo);
	t_rmtree(dir);
	free(dir);
}

Test(graph_repo, reads_a_blob_at_a_tag)
{
	char *dir = history();
	struct graph_repo *repo = open_ok(dir);
	struct graph_oid oid;
	struct buf b = BUF_INIT;
	struct error err;
	int found;

	error_init(&err);
	cr_assert_eq(graph_repo_resolve(repo, "v1.1", &oid, &err), 0);
	cr_assert_eq(graph_repo_read_blob(repo, &oid, "a.txt", &b, &err), 0,
		     "%s", err.msg);
	cr_expect_str_eq(b.data, "one\n");
	cr_expect_eq(graph_repo_read_blob(repo, &oid, "sub/b.txt", &b, &err),
		     ERROR_NOT_FOUND);
	cr_expect(strstr(err.msg, "sub/b.txt") != NULL, "%s", err.msg);
	buf_release(&b);
	found = -1;
	cr_expect_eq(graph_repo_path_exists(repo, &oid, "a.txt", &found, &err),
		     0);
	cr_expect_eq(found, 1);
	cr_expect_eq(graph_repo_path_exists(repo, &oid, "sub/b.txt", &found,
					    &err), 0);
	cr_expect_eq(found, 0);
	graph_repo_close(repo);
	t_rmtree(dir);
	free(dir);
}

Test(graph_repo, shallow_clone_missing_history_is_a_clear_error)
{
	char *dir = history(), *clone = t_tmpdir(), cmd[8192];
	char *old = t_git_rev(dir, "HEAD~2");
	struct graph_repo *repo;
	struct graph_oid oid;
	struct error err;
	size_t i;

	snprintf(cmd, sizeof(cmd),
		 "git clone -q --depth 1 'file://%s' '%s/c'", dir, clone);
	sh_ok("/", cmd);
	snprintf(cmd, sizeof(cmd), "%s/c", clone);
	repo = open_ok(cmd);
	cr_expect_eq(graph_repo_is_shallow(repo), 1);
	error_init(&err);
	cr_expect_eq(graph_repo_resolve(repo, "HEAD~1", &oid, &err),
		     ERROR_NOT_FOUND);
	cr_expect(strstr(err.msg, "shallow") != NULL, "%s", err.msg);
	cr_expect(strstr(err.hint, "git fetch --unshallow") != NULL, "%s",
		  err.hint);
	for (i = 0; i < 20; i++)
		sscanf(old + 2 * i, "%2hhx", &oid.id[i]);
	error_init(&err);
	cr_expect_eq(graph_repo_has_commit(repo, &oid, &err), ERROR_NOT_FOUND);
	cr_expect(strstr(err.msg, old) != NULL, "%s", err.msg);
	cr_expect(strstr(err.msg, "shallow") != NULL, "%s", err.msg);
	graph_repo_close(repo);
	free(old);
	t_rmtree(clone);
	free(clone);
	t_rmtree(dir);
	free(dir);
}

/*
 * A full clone whose process has no file descriptor left (a plan's
 * threads hold the last of them) cannot read a commit; the error must
 * say that, not call the clone shallow, the commit absent, or send anyone
 * to `git fetch --unshallow` (which changes nothing). Every descriptor
 * below a low soft RLIMIT_NOFILE is taken by dup() while the commit is
 * asked for; Criterion runs the test in a process of its own.
 */
Test(graph_repo, no_file_left_is_no_shallow_clone)
{
	char *dir = history(), *head = t_git_rev(dir, "HEAD");
	struct graph_repo *repo = open_ok(dir);
	struct rlimit old, low;
	struct graph_oid oid;
	struct error err;
	int held[256], n = 0, rc, fd;
	size_t i;

	for (i = 0; i < 20; i++)
		sscanf(head + 2 * i, "%2hhx", &oid.id[i]);
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 64;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	while (n < 256 && (fd = dup(0)) >= 0)
		held[n++] = fd;
	error_init(&err);
	rc = graph_repo_has_commit(repo, &oid, &err);
	while (n > 0)
		close(held[--n]);
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	cr_assert_neq(rc, 0, "the commit was read without a descriptor");
	cr_expect(strstr(err.msg, "Too many open files") != NULL, "%s",
		  err.msg);
	cr_expect(!strstr(err.msg, "shallow") &&
		  !strstr(err.msg, "not in this clone"), "%s", err.msg);
	cr_expect(!strstr(err.hint, "fetch"), "%s", err.hint);
	graph_repo_close(repo);
	free(head);
	t_rmtree(dir);
	free(dir);
}

/* A linked worktree keeps the shallow file in the common git folder:
 * libgit2's git_repository_is_shallow looks in the worktree's own. */
Test(graph_repo, linked_worktree_of_a_shallow_clone_is_shallow)
{
	char *dir = history(), *clone = t_tmpdir(), cmd[8192];
	struct graph_repo *repo;
	struct graph_oid oid;
	struct error err;

	snprintf(cmd, sizeof(cmd),
		 "git clone -q --depth 1 'file://%s' '%s/c' && "
		 "git -C '%s/c' worktree add -q -b side '%s/w'", dir, clone,
		 clone, clone);
	sh_ok("/", cmd);
	snprintf(cmd, sizeof(cmd), "%s/w", clone);
	repo = open_ok(cmd);
	cr_expect_eq(graph_repo_is_shallow(repo), 1);
	error_init(&err);
	cr_expect_eq(graph_repo_resolve(repo, "HEAD~1", &oid, &err),
		     ERROR_NOT_FOUND);
	cr_expect(strstr(err.msg, "shallow") != NULL, "%s", err.msg);
	graph_repo_close(repo);
	t_rmtree(clone);
	free(clone);
	t_rmtree(dir);
	free(dir);
}

static const struct graph_change *
change(const struct graph_change_list *l, const char *path)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->items[i].path, path))
			return &l->items[i];
	return NULL;
}

Test(graph_repo, diff_paths_without_rename_folding)
{
	char *dir = t_git_init();
	struct graph_repo *repo;
	struct graph_oid a, b;
	struct graph_change_list l;
	struct error err;
	size_t i;

	t_write(dir, "keep.txt", "k\n");
	t_write(dir, "edit.txt", "e\n");
	t_write(dir, "old-name.txt", "same content here\n");
	t_write(dir, "gone.txt", "g\n");
	t_write(dir, "tool.sh", "echo\n");
	t_write(dir, "link", "file\n");
	cr_assert_eq(t_git_commit(dir, "base"), 0);
	sh_ok(dir, "git mv old-name.txt new-name.txt && git rm -q gone.txt && "
		   "chmod +x tool.sh && rm link && ln -s keep.txt link && "
		   "echo more >> edit.txt && echo n > added.txt");
	cr_assert_eq(t_git_commit(dir, "head"), 0);
	repo = open_ok(dir);
	error_init(&err);
	cr_assert_eq(graph_repo_resolve(repo, "HEAD~1", &a, &err), 0);
	cr_assert_eq(graph_repo_resolve(repo, "HEAD", &b, &err), 0);
	cr_assert_eq(graph_repo_diff_paths(repo, &a, &b, &l, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(l.n, 7);
	for (i = 1; i < l.n; i++)
		cr_expect_lt(strcmp(l.items[i - 1].path, l.items[i].path), 0);
	cr_expect_eq(change(&l, "old-name.txt")->status, GRAPH_CHANGE_DELETED);
	cr_expect_eq(change(&l, "new-name.txt")->status, GRAPH_CHANGE_ADDED);
	cr_expect_eq(change(&l, "gone.txt")->status, GRAPH_CHANGE_DELETED);
	cr_expect_eq(change(&l, "added.txt")->status, GRAPH_CHANGE_ADDED);
	cr_expect_eq(change(&l, "edit.txt")->status, GRAPH_CHANGE_MODIFIED);
	cr_expect_eq(change(&l, "tool.sh")->status, GRAPH_CHANGE_MODIFIED);
	cr_expect_eq(change(&l, "tool.sh")->new_mode, 0100755);
	cr_expect_eq(change(&l, "link")->status, GRAPH_CHANGE_TYPECHANGE);
	cr_expect_null(change(&l, "keep.txt"));
	graph_change_list_release(&l);

	/* Working tree against HEAD: unstaged, untracked, not ignored. */
	t_write(dir, ".gitignore", "*.log\n");
	t_write(dir, "keep.txt", "changed\n");
	t_write(dir, "new/untracked.txt", "u\n");
	t_write(dir, "x.log", "ignored\n");
	cr_assert_eq(graph_repo_diff_worktree_paths(repo, &b, &l, &err), 0,
		     "%s", err.msg);
	cr_expect_eq(change(&l, "keep.txt")->status, GRAPH_CHANGE_MODIFIED);
	cr_expect_eq(change(&l, "new/untracked.txt")->status,
		     GRAPH_CHANGE_ADDED);
	cr_expect_not_null(change(&l, ".gitignore"));
	cr_expect_null(change(&l, "x.log"));
	cr_expect_eq(l.n, 3);
	graph_change_list_release(&l);
	graph_repo_close(repo);
	t_rmtree(dir);
	free(dir);
}

/*
 * A blob's id without reading it (graph_repo_blob_id) is git's, and the
 * id of bytes (graph_blob_id_of) is what `git hash-object` prints: the
 * rules memo keys a commit's ripple.yml and a working tree's by them.
 */
Test(graph_repo, blob_ids_are_gits)
{
	static const char text[] = "version: 1\n# \xc3\xa9\0tail\n";
	char *dir = t_git_init(), *head, *want, hex[GRAPH_OID_HEX];
	char path[4096];
	struct graph_repo *repo;
	struct graph_oid commit, id;
	struct error err;

	snprintf(path, sizeof(path), "%s/r.yml", dir);
	t_write_bytes(path, text, sizeof(text) - 1);
	t_write(dir, "sub/x.txt", "x\n");
	cr_assert_eq(t_git_commit(dir, "one"), 0);
	want = t_sh_out(dir, "git hash-object r.yml");
	repo = open_ok(dir);
	head = t_git_rev(dir, "HEAD");
	error_init(&err);
	cr_assert_eq(graph_repo_resolve(repo, head, &commit, &err), 0);
	cr_assert_eq(graph_repo_blob_id(repo, &commit, "r.yml", &id, &err), 0,
		     "%s", err.msg);
	graph_oid_hex(&id, hex);
	cr_expect_str_eq(hex, want);
	cr_assert_eq(graph_blob_id_of(text, sizeof(text) - 1, &id), 0);
	graph_oid_hex(&id, hex);
	cr_expect_str_eq(hex, want);
	error_init(&err);
	cr_expect_eq(graph_repo_blob_id(repo, &commit, "none.yml", &id, &err),
		     ERROR_NOT_FOUND);
	cr_expect(strstr(err.msg, "does not exist"), "%s", err.msg);
	error_init(&err);
	cr_expect_eq(graph_repo_blob_id(repo, &commit, "sub", &id, &err),
		     ERROR_INVALID);
	cr_expect(strstr(err.msg, "is not a file"), "%s", err.msg);
	graph_repo_close(repo);
	free(head);
	free(want);
	t_rmtree(dir);
	free(dir);
}

/*
 * history() packed (git gc), then a commit whose root tree is loose and
 * whose sub/ tree and sub/b.txt are only in the pack; the pack file's
 * path into pack (size n). The head's commit id into *head.
 */
static char *
packed_history(char *pack, size_t n, struct graph_oid *head)
{
	char *dir = history(), *hex, *p;
	size_t i;

	sh_ok(dir, "git gc -q");
	t_write(dir, "a.txt", "four\n");
	cr_assert_eq(t_git_commit(dir, "four"), 0);
	p = t_sh_out(dir, "ls \"$PWD\"/.git/objects/pack/*.pack");
	cr_assert_null(strchr(p, '\n'), "one pack: %s", p);
	snprintf(pack, n, "%s", p);
	free(p);
	hex = t_git_rev(dir, "HEAD");
	for (i = 0; i < 20; i++)
		sscanf(hex + 2 * i, "%2hhx", &head->id[i]);
	free(hex);
	return dir;
}

/*
 * A truncated pack file: libgit2 passes over it and says "object not
 * found" for every object in it. The error is the pack's (an I/O error
 * naming the file), not an object absent from the store, which sends
 * the user to fetch what is there.
 */
Test(graph_repo, truncated_pack_is_named_not_an_absent_object)
{
	char pack[4096], cmd[8400];
	struct graph_oid head;
	char *dir = packed_history(pack, sizeof(pack), &head);
	struct graph_repo *repo;
	struct buf out = BUF_INIT;
	struct error err;
	int rc;

	snprintf(cmd, sizeof(cmd), "chmod u+w '%s' && truncate -s 100 '%s'",
		 pack, pack);
	sh_ok(dir, cmd);
	repo = open_ok(dir);
	error_init(&err);
	rc = graph_repo_read_blob(repo, &head, "sub/b.txt", &out, &err);
	cr_expect_eq(rc, ERROR_IO, "%d: %s", rc, err.msg);
	cr_expect(strstr(err.msg, pack) != NULL, "names the pack: %s",
		  err.msg);
	cr_expect(strstr(err.msg, "absent") == NULL, "%s", err.msg);
	cr_expect(strstr(err.hint, "incomplete") == NULL, "%s", err.hint);
	buf_release(&out);
	graph_repo_close(repo);
	t_rmtree(dir);
	free(dir);
}

/*
 * Root's way past file permissions (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH)
 * left out of this process's effective set (on = 0), or put back (on =
 * 1): as root, chmod 000 then stops this process as it stops a user. The
 * permitted set keeps them; children (git, rm) start with all of root's.
 */
static void
dac_override(int on)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	unsigned bits = 1u << CAP_DAC_OVERRIDE | 1u << CAP_DAC_READ_SEARCH;

	if (geteuid() != 0)
		return;
	cr_assert_eq(syscall(SYS_capget, &h, d), 0, "capget: %s",
		     strerror(errno));
	d[0].effective = on ? d[0].effective | (d[0].permitted & bits)
			    : d[0].effective & ~bits;
	cr_assert_eq(syscall(SYS_capset, &h, d), 0, "capset: %s",
		     strerror(errno));
}

/*
 * A pack file that cannot be opened (no read permission) is named, with
 * the reason. Root reads such a file too: as root the test gives up that
 * power first, so the check runs where every run here runs.
 */
Test(graph_repo, unreadable_pack_is_named_not_an_absent_object)
{
	char pack[4096], cmd[8400];
	struct graph_oid head;
	char *dir = packed_history(pack, sizeof(pack), &head);
	struct graph_repo *repo;
	struct buf out = BUF_INIT;
	struct error err;
	int rc;

	snprintf(cmd, sizeof(cmd), "chmod 000 '%s'", pack);
	sh_ok(dir, cmd);
	dac_override(0);
	repo = open_ok(dir);
	error_init(&err);
	rc = graph_repo_read_blob(repo, &head, "sub/b.txt", &out, &err);
	graph_repo_close(repo);
	dac_override(1);
	cr_expect_eq(rc, ERROR_IO, "%d: %s", rc, err.msg);
	cr_expect(strstr(err.msg, pack) != NULL &&
		  strstr(err.msg, "Permission denied") != NULL, "%s",
		  err.msg);
	cr_expect(strstr(err.msg, "absent") == NULL, "%s", err.msg);
	buf_release(&out);
	snprintf(cmd, sizeof(cmd), "chmod 644 '%s'", pack);
	sh_ok(dir, cmd);
	t_rmtree(dir);
	free(dir);
}
