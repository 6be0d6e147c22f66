/*
 * ripple on clones like real mirrors: a bare repository without a config
 * file, and a repository whose object store lacks a blob a tree names
 * (simulated by deleting a loose object file).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

static const char rules[] =
	"version: 1\n"
	"roots:\n"
	"  pkg: {path: pkg, tags: \"v*\"}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: [pkg]}\n"
	"    inputs: [root.sources]\n"
	"    command: [\"true\"]\n"
	"targets:\n"
	"  ci: [artifacts]\n";

/* Two commits, loose objects only: pkg/link -> ../shared.txt, then an
 * edit of pkg/a.py; the first is tagged v1.0. */
static char *
two_commits(void)
{
	char *dir = t_git_init();
	struct run_result r;

	t_write(dir, "ripple.yml", rules);
	t_write(dir, "shared.txt", "one\n");
	t_write(dir, "pkg/a.py", "x = 1\n");
	r = t_sh(dir, "ln -s ../shared.txt pkg/link");
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	cr_assert_eq(t_git_commit(dir, "one"), 0);
	t_write(dir, "pkg/a.py", "x = 2\n");
	cr_assert_eq(t_git_commit(dir, "two"), 0);
	r = t_sh(dir, "git tag v1.0 HEAD~1");
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	return dir;
}

/* Delete the loose object of blob REV (e.g. HEAD:pkg/link) in dir. */
static void
drop_blob(const char *dir, const char *rev)
{
	char cmd[512];
	struct run_result r;

	snprintf(cmd, sizeof(cmd),
		 "set -e; id=$(git rev-parse %s); "
		 "f=.git/objects/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-); "
		 "test -f $f; rm -f $f; ! git cat-file -e $id 2>/dev/null",
		 rev);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "'%s': %s", cmd, r.err);
	t_result_release(&r);
}

static void
path_of(char *out, size_t n, const char *dir, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

Test(e2e_incomplete_clone, missing_symlink_blob_is_named_with_a_hint)
{
	char *dir = two_commits();
	struct run_result id = t_sh(dir, "git rev-parse HEAD:pkg/link | tr -d '\\n'");
	char yml[1024];
	const char *plan[] = { "plan", "--rules", yml, "--head", "HEAD",
			       "--base", "HEAD~1", "--assume-base-built", NULL };
	struct run_result r;

	cr_assert_eq(id.status, 0, "%s", id.err);
	cr_assert_eq(strlen(id.out), 40, "%s", id.out);
	path_of(yml, sizeof(yml), dir, "outside.yml");
	t_write(dir, "outside.yml", rules);
	drop_blob(dir, "HEAD:pkg/link");
	r = t_ripple(dir, plan);
	cr_expect_eq(r.status, 3, "%d %s", r.status, r.err);
	cr_expect(strstr(r.err, "reading symlink 'pkg/link'") != NULL, "%s",
		  r.err);
	cr_expect(strstr(r.err, id.out) != NULL, "%s", r.err);
	cr_expect(strstr(r.err, "absent from the repository's object store")
		  != NULL, "%s", r.err);
	cr_expect(strstr(r.err, "hint: the clone is incomplete") != NULL,
		  "%s", r.err);
	/* the probe for partial clones must not replace the message */
	cr_expect(strstr(r.err, "config value") == NULL, "%s", r.err);
	t_result_release(&r);
	t_result_release(&id);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_incomplete_clone, missing_rules_blob_is_not_called_absent_file)
{
	char *dir = two_commits();
	const char *plan[] = { "plan", "--head", "HEAD", "--base", "HEAD~1",
			       "--assume-base-built", NULL };
	struct run_result r;

	drop_blob(dir, "HEAD:ripple.yml");
	r = t_ripple(dir, plan);
	cr_expect_eq(r.status, 3, "%d %s", r.status, r.err);
	cr_expect(strstr(r.err, "reading 'ripple.yml' at ") != NULL, "%s",
		  r.err);
	cr_expect(strstr(r.err, "absent from the repository's object store")
		  != NULL, "%s", r.err);
	cr_expect(strstr(r.err, "has no ripple.yml") == NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_incomplete_clone, missing_unread_blob_does_not_matter)
{
	char *dir = two_commits();
	char yml[1024];
	const char *plan[] = { "plan", "--rules", yml, "--head", "HEAD",
			       "--base", "HEAD~1", "--assume-base-built", NULL };
	struct run_result r;

	/* keys hash blob ids: a regular file's bytes are never read, and
	 * neither are a symlink target's */
	path_of(yml, sizeof(yml), dir, "outside.yml");
	t_write(dir, "outside.yml", rules);
	drop_blob(dir, "HEAD:pkg/a.py");
	drop_blob(dir, "HEAD~1:pkg/a.py");
	drop_blob(dir, "HEAD:shared.txt");
	r = t_ripple(dir, plan);
	cr_expect_eq(r.status, 0, "%d %s", r.status, r.err);
	cr_expect(strstr(r.out, "1 build") != NULL, "%s", r.out);
	t_result_release(&r);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_incomplete_clone, bare_mirror_without_config_plans_and_versions)
{
	char *dir = two_commits();
	char *bare;
	char cmd[1024];
	const char *plan[] = { "plan", "--rules", NULL, "--head", "HEAD",
			       "--base", "HEAD~1", "--assume-base-built", NULL };
	const char *ver[] = { "version", "pkg", "--rules", NULL, "--rev",
			      "HEAD", NULL };
	char yml[1024];
	struct run_result r;

	bare = malloc(strlen(dir) + 16);
	cr_assert_not_null(bare);
	snprintf(bare, strlen(dir) + 16, "%s/mirror.git", dir);
	snprintf(cmd, sizeof(cmd),
		 "git clone -q --bare . mirror.git && rm mirror.git/config "
		 "&& ! test -e mirror.git/config");
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	snprintf(yml, sizeof(yml), "%s/ripple.yml", dir);
	plan[2] = yml;
	ver[3] = yml;
	r = t_ripple(bare, plan);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "1 build") != NULL, "%s", r.out);
	t_result_release(&r);
	r = t_ripple(bare, ver);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(!strncmp(r.out, "1.1.dev1+g", 10), "%s", r.out);
	t_result_release(&r);
	free(bare);
	t_rmtree(dir);
	free(dir);
}
