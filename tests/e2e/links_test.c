/*
 * Committed symlinks in a checkout without links (core.symlinks false, as
 * Git for Windows checks out where making links needs a privilege): git
 * writes each as a file holding the link's text, so a build reading
 * through it reads that text under the same key as a checkout with links.
 * `ripple run` says so, naming the inputs (engine/plan/dirty.c's
 * plan_link_files, engine/cli/run_prep.c), and publishes nothing: what
 * such a checkout builds must not serve a checkout with links under the
 * same keys (tested against nginx on loopback).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/nginx.h"
#include "tests/support/support.h"

static const char rules[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [\"src/**\"]}\n"
	"  other: {paths: [\"other/**\"]}\n"
	"artifacts:\n"
	"  copy:\n"
	"    inputs: [src]\n"
	"    command: \"mkdir -p out && cat src/link > out/a.txt\"\n"
	"    outputs: [out/a.txt]\n"
	"  apart:\n"
	"    inputs: [other]\n"
	"    command: \"mkdir -p out2 && cp other/b.txt out2/b.txt\"\n"
	"    outputs: [out2/b.txt]\n"
	"policy: {unclaimed-paths: ignore, trusted-refs: [refs/heads/*]}\n";

static void
sh_ok(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);

	cr_assert_eq(r.status, 0, "'%s': %s", cmd, r.err);
	t_result_release(&r);
}

/* A repository whose src/link -> ../shared/h is read by `copy`; `apart`
 * reads other/, whose other/link is a link too. */
static char *
repo_with_links(void)
{
	char *dir = t_git_init();

	t_write(dir, "ripple.yml", rules);
	t_write(dir, ".gitignore", ".ripple/\nout/\nout2/\n");
	t_write(dir, "shared/h", "the helper\n");
	t_write(dir, "other/b.txt", "b\n");
	t_write(dir, "src/a.txt", "a\n");
	sh_ok(dir, "ln -s ../shared/h src/link && ln -s b.txt other/link");
	cr_assert_eq(t_git_commit(dir, "links"), 0);
	return dir;
}

/* A clone of dir made with core.symlinks `links` ("true"/"false"). */
static char *
clone_of(const char *dir, const char *links)
{
	char *tmp = t_tmpdir(), cmd[4096];

	snprintf(cmd, sizeof(cmd), "git clone -q -c core.symlinks=%s '%s' c",
		 links, dir);
	sh_ok(tmp, cmd);
	snprintf(cmd, sizeof(cmd), "%s/c", tmp);
	free(tmp);
	return strdup(cmd);
}

Test(e2e_links, run_notes_committed_links_a_checkout_holds_as_files)
{
	char *dir = repo_with_links(), *c = clone_of(dir, "false"), *out;
	const char *run[] = { "run", "copy", "--run-id", "r1", NULL };
	struct run_result r;
	char path[4096];

	r = t_ripple(c, run);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "note: this checkout holds 1 committed "
			 "symlink among the inputs of nodes to build as files "
			 "of the link's text (core.symlinks false): src/link\n")
		  != NULL, "%s", r.err);
	cr_expect(strstr(r.err, "hint: ") != NULL, "%s", r.err);
	/* other/link is no input of a node this run builds */
	cr_expect(strstr(r.err, "other/link") == NULL, "%s", r.err);
	/* what the note is about: the build read the link's text */
	snprintf(path, sizeof(path), "%s/out/a.txt", c);
	out = t_read(path);
	cr_expect_str_eq(out, "../shared/h", "%s", out);
	free(out);
	t_result_release(&r);
	t_rmtree(c);
	free(c);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_links, no_note_where_the_checkout_makes_links)
{
	char *dir = repo_with_links(), *c = clone_of(dir, "true"), *out;
	const char *run[] = { "run", "--run-id", "r1", NULL };
	const char *run2[] = { "run", "--run-id", "r2", NULL };
	struct run_result r;
	char path[4096];

	r = t_ripple(c, run);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "symlink") == NULL, "%s", r.err);
	snprintf(path, sizeof(path), "%s/out/a.txt", c);
	out = t_read(path);
	cr_expect_str_eq(out, "the helper\n", "%s", out);
	free(out);
	t_result_release(&r);
	/* core.symlinks false, but the links on disk are links: no note */
	sh_ok(c, "git config core.symlinks false");
	r = t_ripple(c, run2);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "symlink") == NULL, "%s", r.err);
	t_result_release(&r);
	t_rmtree(c);
	free(c);
	t_rmtree(dir);
	free(dir);
}

/* ripple run in clone c, with t_fx's server as the remote cache. */
static struct run_result
run_remote(const char *c, const char *run_id)
{
	const char *run[] = { "run", "--ref", "refs/heads/main", "--run-id",
			      run_id, "--remote-cache", t_fx.ng.url, NULL };

	return t_ripple(c, run);
}

Test(e2e_links, a_checkout_holding_links_as_files_publishes_nothing,
     .init = t_fx_setup, .fini = t_fx_teardown, .timeout = 120)
{
	char *dir, *c;
	struct run_result r;

	t_fx_serve();
	dir = repo_with_links();
	c = clone_of(dir, "false");
	r = run_remote(c, "r1");
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "so this run publishes nothing to the remote "
			 "cache ") != NULL, "%s", r.err);
	cr_expect(strstr(r.err, "published 0 nodes (read-only: committed "
			 "links checked out as files)") != NULL, "%s", r.err);
	t_result_release(&r);
	cr_expect_eq(t_nginx_count(&t_fx.ng, "\"PUT ", 0), 0,
		     "a checkout without links published its builds");
	t_rmtree(c);
	free(c);
	/* The same commit from a checkout with links publishes both. */
	c = clone_of(dir, "true");
	r = run_remote(c, "r2");
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "symlink") == NULL, "%s", r.err);
	t_result_release(&r);
	cr_expect_geq(t_nginx_count(&t_fx.ng, "\"PUT /ac/", 2), 2);
	t_rmtree(c);
	free(c);
	t_rmtree(dir);
	free(dir);
}
