/*
 * Suite e2e_trust_paths: nothing outside the repository is written, deleted
 * or run in (issue 14, items 1 to 5; issue 13, item 7). Each repository is
 * made at BASE/repo so that BASE holds the files an escape would reach.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support/support.h"

#define GIT_ENV "GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent " \
	"GIT_AUTHOR_NAME=Test GIT_AUTHOR_EMAIL=test@example.com " \
	"GIT_COMMITTER_NAME=Test GIT_COMMITTER_EMAIL=test@example.com "

/* BASE/repo with src/a.c, tools/mk, .gitignore and `rules`, committed. */
static char *
make_repo(const char *base, const char *rules)
{
	char *repo = malloc(PATH_MAX);
	struct run_result r;

	cr_assert_not_null(repo);
	snprintf(repo, PATH_MAX, "%s/repo", base);
	cr_assert_eq(mkdir(repo, 0777), 0);
	r = t_sh(repo, GIT_ENV "git init -q -b main . && "
		 "git config user.name Test && "
		 "git config user.email test@example.com");
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	t_write(repo, "src/a.c", "int a;\n");
	t_write(repo, "tools/mk", "#!/bin/sh\nmkdir -p \"$(dirname \"$1\")\"; "
		"echo built > \"$1\"\n");
	r = t_sh(repo, "chmod +x tools/mk");
	t_result_release(&r);
	t_write(repo, ".gitignore", ".ripple/\n");
	t_write(repo, "ripple.yml", rules);
	cr_assert_eq(t_git_commit(repo, "init"), 0);
	return repo;
}

static int
exists(const char *dir, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	if (snprintf(p, sizeof(p), "%s/%s", dir, rel) >= (int)sizeof(p))
		return 0;
	return lstat(p, &st) == 0;
}

static void
expect_has(const char *text, const char *needle)
{
	cr_expect(strstr(text, needle) != NULL, "'%s' not in:\n%s", needle,
		  text);
}

/* A run's report (its FAILED lines) is on stdout, errors on stderr. */
static void
expect_said(const struct run_result *r, const char *needle)
{
	cr_expect(strstr(r->out, needle) != NULL ||
		  strstr(r->err, needle) != NULL, "'%s' not in:\n%s%s",
		  needle, r->out, r->err);
}

/* Item 1: an axis value ".." filled into an output pattern. */
Test(e2e_trust_paths, an_axis_value_dotdot_in_outputs_is_refused_by_check)
{
	static const char y[] =
		"version: 1\n"
		"sources:\n"
		"  src: {paths: [src/**]}\n"
		"axes:\n"
		"  d: [\"..\", \"../..\", \"ok\"]\n"
		"artifacts:\n"
		"  a:\n"
		"    each: {d: axes.d}\n"
		"    inputs: [src]\n"
		"    command: [tools/mk, \"out/${d}/x.txt\"]\n"
		"    outputs: [\"out/${d}/*.txt\"]\n";
	char *base = t_tmpdir(), *repo;
	const char *check[] = { "check", NULL };
	const char *run[] = { "run", "--run-id", "r1", NULL };
	struct run_result r;

	repo = make_repo(base, y);
	t_write(base, "victim.txt", "keep\n");
	t_write(base, "victim2.txt", "keep\n");
	r = t_ripple(repo, check);
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	expect_has(r.err, "outputs");
	expect_has(r.err, "out/../*.txt");
	expect_has(r.err, "artifact:a[d=..]");
	t_result_release(&r);
	r = t_ripple(repo, run);
	cr_expect_neq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	cr_expect(exists(base, "victim.txt"), "run deleted ../victim.txt");
	cr_expect(exists(base, "victim2.txt"), "run deleted ../victim2.txt");
	cr_expect(!exists(base, "x.txt"), "the action wrote ../x.txt");
	t_rmtree(base);
	free(base);
	free(repo);
}

/* Item 1: `${toolkit.home}` leaving the repository (r-out.yml). */
Test(e2e_trust_paths, a_template_making_an_output_leave_is_refused_by_check)
{
	static const char y[] =
		"version: 1\n"
		"toolkits:\n"
		"  t: {version: \"1.2.3\", home: \"../victimdir\"}\n"
		"sources:\n"
		"  src: {paths: [src/**]}\n"
		"artifacts:\n"
		"  a:\n"
		"    inputs: [src]\n"
		"    toolkit: t\n"
		"    command: [\"true\"]\n"
		"    outputs: [\"${toolkit.home}/*\"]\n";
	char *base = t_tmpdir(), *repo;
	const char *check[] = { "check", NULL };
	const char *run[] = { "run", "--run-id", "r1", NULL };
	struct run_result r;

	repo = make_repo(base, y);
	t_write(base, "victimdir/k", "keep\n");
	r = t_ripple(repo, check);
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	expect_has(r.err, "../victimdir/*");
	t_result_release(&r);
	r = t_ripple(repo, run);
	cr_expect_neq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	cr_expect(exists(base, "victimdir/k"), "run deleted ../victimdir/k");
	t_rmtree(base);
	free(base);
	free(repo);
}

/* Item 2 (case 95): a committed link `out -> ../victim`. */
Test(e2e_trust_paths, an_output_folder_linking_outside_is_refused_by_run)
{
	static const char y[] =
		"version: 1\n"
		"artifacts:\n"
		"  a: {command: [\"true\"], outputs: [\"out/*.txt\"]}\n";
	char *base = t_tmpdir(), *repo, *repo2;
	const char *run[] = { "run", "--run-id", "r1", NULL };
	struct run_result r;

	t_write(base, "victim/a.txt", "keep\n");
	t_write(base, "victim/b.txt", "keep\n");
	repo = make_repo(base, y);
	r = t_sh(repo, "ln -s ../victim out && git add out && " GIT_ENV
		 "git commit -qm link");
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(repo, run);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	expect_said(&r, "outside the repository");
	expect_said(&r, "victim");
	t_result_release(&r);
	cr_expect(exists(base, "victim/a.txt"), "run deleted ../victim/a.txt");
	cr_expect(exists(base, "victim/b.txt"), "run deleted ../victim/b.txt");
	(void)repo2;
	t_rmtree(base);
	free(base);
	free(repo);
}

/* Item 2: `dist -> /abs/elsewhere` and `deep -> ../victim` (r-symlink-out). */
Test(e2e_trust_paths, absolute_and_recursive_output_links_are_refused)
{
	static const char y[] =
		"version: 1\n"
		"sources:\n"
		"  src: {paths: [src/**]}\n"
		"artifacts:\n"
		"  a:\n"
		"    inputs: [src]\n"
		"    command: [tools/mk, \"dist/new.whl\"]\n"
		"    outputs: [\"dist/*.whl\"]\n"
		"  b:\n"
		"    inputs: [src]\n"
		"    command: [tools/mk, \"deep/sub/new.whl\"]\n"
		"    outputs: [\"deep/**\"]\n";
	char *base = t_tmpdir(), *repo, cmd[PATH_MAX + 200];
	const char *run[] = { "run", "--run-id", "r1", "--keep-going", NULL };
	const char *run2[] = { "run", "--run-id", "r2", "--keep-going",
			       "--reuse", "none", NULL };
	struct run_result r;

	t_write(base, "elsewhere/old.whl", "keep\n");
	t_write(base, "victim/sub/old.whl", "keep\n");
	repo = make_repo(base, y);
	snprintf(cmd, sizeof(cmd), "ln -s '%s/elsewhere' dist && "
		 "ln -s ../victim deep && git add dist deep && " GIT_ENV
		 "git commit -qm links", base);
	r = t_sh(repo, cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(repo, run);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	expect_said(&r, "artifact:a");
	expect_said(&r, "artifact:b");
	expect_said(&r, "outside the repository");
	t_result_release(&r);
	cr_expect(exists(base, "elsewhere/old.whl"), "deleted through dist");
	cr_expect(exists(base, "victim/sub/old.whl"), "deleted through deep");
	cr_expect(!exists(base, "elsewhere/new.whl"), "ran and wrote there");
	r = t_ripple(repo, run2);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	t_result_release(&r);
	cr_expect(exists(base, "elsewhere/old.whl"), "deleted on a rerun");
	t_rmtree(base);
	free(base);
	free(repo);
}

/* Item 5: `cwd: ..`, `cwd: /tmp` and `cwd: ${toolkit.home}` (r-cwd.yml). */
Test(e2e_trust_paths, a_cwd_outside_the_repository_is_refused_by_check)
{
	static const char *const cwds[] = { "..", "/tmp", "src/../..",
					    "${toolkit.home}" };
	char *base = t_tmpdir(), *repo, y[1024];
	const char *check[] = { "check", NULL };
	const char *run[] = { "run", "--run-id", "r1", NULL };
	struct run_result r;
	size_t i;

	for (i = 0; i < sizeof(cwds) / sizeof(cwds[0]); i++) {
		char sub[PATH_MAX];

		snprintf(sub, sizeof(sub), "%s/%zu", base, i);
		mkdir(sub, 0777);
		snprintf(y, sizeof(y),
			 "version: 1\n"
			 "toolkits:\n"
			 "  t: {version: \"1.2.3\", home: /tmp}\n"
			 "artifacts:\n"
			 "  a:\n"
			 "    toolkit: t\n"
			 "    command: [sh, -c, \"touch ran-here\"]\n"
			 "    cwd: \"%s\"\n", cwds[i]);
		repo = make_repo(sub, y);
		r = t_ripple(repo, check);
		cr_expect_eq(r.status, 2, "cwd %s: %s%s", cwds[i], r.out,
			     r.err);
		expect_said(&r, "cwd");
		t_result_release(&r);
		r = t_ripple(repo, run);
		cr_expect_neq(r.status, 0, "cwd %s: %s%s", cwds[i], r.out,
			      r.err);
		t_result_release(&r);
		cr_expect(!exists(sub, "ran-here"), "ran in %s", cwds[i]);
		free(repo);
	}
	t_rmtree(base);
	free(base);
}

/* Item 5 at run time: a committed link `build -> ../outside` as cwd. */
Test(e2e_trust_paths, a_cwd_linking_outside_is_refused_by_run)
{
	static const char y[] =
		"version: 1\n"
		"artifacts:\n"
		"  a: {command: [sh, -c, \"touch ran-here\"], cwd: build}\n";
	char *base = t_tmpdir(), *repo;
	const char *run[] = { "run", "--run-id", "r1", NULL };
	struct run_result r;

	t_write(base, "outside/keep", "x\n");
	repo = make_repo(base, y);
	r = t_sh(repo, "ln -s ../outside build && git add build && " GIT_ENV
		 "git commit -qm link");
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(repo, run);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	expect_said(&r, "cwd");
	expect_said(&r, "outside the repository");
	t_result_release(&r);
	cr_expect(!exists(base, "outside/ran-here"), "the action ran outside");
	t_rmtree(base);
	free(base);
	free(repo);
}

/* Item 3: a run id is joined into .ripple/logs/ID. */
Test(e2e_trust_paths, a_run_id_that_is_a_path_is_refused)
{
	static const char y[] =
		"version: 1\n"
		"artifacts:\n"
		"  a: {command: [\"true\"]}\n";
	static const char *const ids[] = { "../../../x", "a/b", ".", "",
					   "-x", "r\n1" };
	char *base = t_tmpdir(), *repo;
	struct run_result r;
	size_t i;

	repo = make_repo(base, y);
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		const char *run[] = { "run", "--run-id", ids[i], NULL };
		const char *rec[] = { "record", "--run", ids[i], "--node",
				      "artifact:a", "--status", "ok", NULL };

		r = t_ripple(repo, run);
		cr_expect_eq(r.status, 2, "run id '%s': %s%s", ids[i], r.out,
			     r.err);
		expect_has(r.err, "run id");
		t_result_release(&r);
		r = t_ripple(repo, rec);
		cr_expect_eq(r.status, 2, "run id '%s': %s%s", ids[i], r.out,
			     r.err);
		t_result_release(&r);
	}
	cr_expect(!exists(base, "x"), "a folder was made outside");
	t_rmtree(base);
	free(base);
	free(repo);
}

/* Item 3: node ids whose sanitized names collided shared one log file. */
Test(e2e_trust_paths, two_node_ids_never_share_a_log_file)
{
	static const char y[] =
		"version: 1\n"
		"axes:\n"
		"  d: [\"x:y\", \"x_y\", \"x%3Ay\"]\n"
		"artifacts:\n"
		"  a:\n"
		"    each: {d: axes.d}\n"
		"    command: \"echo log of ${d}; exit 1\"\n";
	char *base = t_tmpdir(), *repo;
	const char *run[] = { "run", "--run-id", "r1", "--keep-going",
			      "--json", "-j", "1", NULL };
	struct run_result r;
	json_t *doc, *nodes, *n;
	const char *logs[3] = { NULL, NULL, NULL };
	size_t i;

	repo = make_repo(base, y);
	r = t_ripple(repo, run);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	doc = json_loads(r.out, 0, NULL);
	cr_assert_not_null(doc, "%s", r.out);
	nodes = json_object_get(doc, "nodes");
	cr_assert_eq(json_array_size(nodes), 3);
	json_array_foreach(nodes, i, n) {
		const char *id = json_string_value(json_object_get(n, "id"));
		char *text, want[64];

		logs[i] = json_string_value(json_object_get(n, "log"));
		cr_assert_not_null(logs[i]);
		cr_expect(strstr(logs[i], "/.ripple/logs/r1/") != NULL, "%s",
			  logs[i]);
		text = t_read(logs[i]);
		snprintf(want, sizeof(want), "log of %s\n",
			 strstr(id, "d=") + 2);
		want[strlen(want) - 2] = '\n';	/* drop the closing ']' */
		want[strlen(want) - 1] = '\0';
		cr_expect(text && !strcmp(text, want), "%s: log '%s' holds "
			  "'%s'", id, logs[i], text ? text : "(none)");
		free(text);
	}
	cr_expect_str_neq(logs[0], logs[1]);
	cr_expect_str_neq(logs[0], logs[2]);
	cr_expect_str_neq(logs[1], logs[2]);
	json_decref(doc);
	t_result_release(&r);
	t_rmtree(base);
	free(base);
	free(repo);
}

/* Item 4: a bare mirror without `config` was taken for a checkout. */
Test(e2e_trust_paths, a_bare_repository_plans_but_never_runs)
{
	static const char y[] =
		"version: 1\n"
		"sources:\n"
		"  src: {paths: [src/**]}\n"
		"artifacts:\n"
		"  a:\n"
		"    inputs: [src]\n"
		"    command: [tools/mk, out/x.txt]\n"
		"    outputs: [out/x.txt]\n";
	char *base = t_tmpdir(), *repo, mirror[PATH_MAX], bare[PATH_MAX];
	const char *plan[] = { "plan", "--base", "HEAD~1", "--head", "HEAD",
			       NULL };
	const char *run[] = { "run", "--run-id", "r1", NULL };
	struct run_result r;

	repo = make_repo(base, y);
	t_write(repo, "src/a.c", "int a = 2;\n");
	cr_assert_eq(t_git_commit(repo, "two"), 0);
	snprintf(bare, sizeof(bare), "%s/mirrors/bare.git", base);
	snprintf(mirror, sizeof(mirror), "%s/mirrors/noconfig.git", base);
	r = t_sh(base, "mkdir mirrors && git clone -q --bare repo "
		 "mirrors/bare.git && git clone -q --mirror repo "
		 "mirrors/noconfig.git && rm mirrors/noconfig.git/config");
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);

	r = t_ripple(bare, plan);
	cr_expect_eq(r.status, 0, "bare: %s%s", r.out, r.err);
	expect_has(r.out, "build  artifact:a");
	t_result_release(&r);
	r = t_ripple(bare, run);
	cr_expect_eq(r.status, 2, "bare: %s%s", r.out, r.err);
	expect_has(r.err, "bare repository");
	t_result_release(&r);

	r = t_ripple(mirror, plan);
	cr_expect_eq(r.status, 0, "no config: %s%s", r.out, r.err);
	t_result_release(&r);
	r = t_ripple(mirror, run);
	cr_expect_eq(r.status, 2, "no config: %s%s", r.out, r.err);
	expect_has(r.err, "bare repository");
	t_result_release(&r);
	cr_expect(!exists(base, "mirrors/.ripple"), ".ripple/ made above");
	cr_expect(!exists(base, "mirrors/out"), "the action ran above");
	t_rmtree(base);
	free(base);
	free(repo);
}

/* Issue 13 item 7: outputs two nodes of one runner may both write. */
Test(e2e_trust_paths, overlapping_outputs_of_one_runner_are_an_error)
{
	static const char shared[] =
		"version: 1\n"
		"artifacts:\n"
		"  a: {command: [\"true\"], outputs: [\"dist/*.whl\"]}\n"
		"  b: {command: [\"true\"], outputs: [\"dist/pkg-*.whl\"]}\n";
	static const char same[] =
		"version: 1\n"
		"axes:\n"
		"  py: [\"3.12\", \"3.13\"]\n"
		"artifacts:\n"
		"  w: {each: {py: axes.py}, command: [\"true\"],\n"
		"      outputs: [\"dist/*.whl\"]}\n";
	static const char apart[] =
		"version: 1\n"
		"axes:\n"
		"  platform: [linux-64, win-64]\n"
		"  py: [\"3.12\", \"3.13\"]\n"
		"artifacts:\n"
		"  w: {each: {platform: axes.platform, py: axes.py},\n"
		"      command: [\"true\"], outputs: [\"dist/${platform}/"
		"${py}/*.whl\", \"logs/${py}-${platform}.txt\"]}\n"
		"  sdist: {command: [\"true\"], outputs: [\"dist/*.tar.gz\"]}\n";
	char *base = t_tmpdir(), *repo;
	const char *check[] = { "check", NULL };
	struct run_result r;

	repo = make_repo(base, shared);
	r = t_ripple(repo, check);
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	expect_has(r.err, "error:");
	expect_has(r.err, "artifact:a");
	expect_has(r.err, "artifact:b");
	t_result_release(&r);
	t_write(repo, "ripple.yml", same);
	r = t_ripple(repo, check);
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	expect_has(r.err, "artifact:w[py=3.12]");
	t_result_release(&r);
	t_write(repo, "ripple.yml", apart);
	r = t_ripple(repo, check);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	t_rmtree(base);
	free(base);
	free(repo);
}

/* Issue 13 item 7: removal deletes only what the node's records listed. */
Test(e2e_trust_paths, stale_removal_keeps_files_no_record_of_the_node_lists)
{
	static const char y[] =
		"version: 1\n"
		"sources:\n"
		"  src: {paths: [src/**]}\n"
		"artifacts:\n"
		"  a:\n"
		"    inputs: [src]\n"
		"    command: \"mkdir -p out && cp src/a.c out/$(wc -c < "
		"src/a.c | tr -d ' ').txt\"\n"
		"    outputs: [\"out/*.txt\"]\n";
	char *base = t_tmpdir(), *repo;
	const char *run1[] = { "run", "--run-id", "r1", NULL };
	const char *run2[] = { "run", "--run-id", "r2", "--reuse", "none",
			       NULL };
	const char *export[] = { "cache", "export", "--run", "r1", NULL };
	struct run_result r;
	json_t *doc, *arts;

	repo = make_repo(base, y);
	/* Two: the identities kept before the action all pointed at one
	 * stack buffer, so only the last file listed was remembered (and
	 * under ASan not even that). */
	t_write(repo, "out/notes.txt", "mine, not the node's\n");
	t_write(repo, "out/0-mine.txt", "mine too\n");
	r = t_ripple(repo, run1);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	cr_expect(exists(repo, "out/notes.txt"), "an unrecorded file was "
		  "removed as stale");
	cr_expect(exists(repo, "out/0-mine.txt"));
	cr_expect(exists(repo, "out/7.txt"));
	r = t_ripple(repo, export);
	cr_expect_eq(r.status, 0, "%s", r.err);
	doc = json_loads(r.out, 0, NULL);
	cr_assert_not_null(doc, "%s", r.out);
	arts = json_object_get(json_array_get(json_object_get(doc, "records"),
					      0), "artifacts");
	cr_expect_eq(json_array_size(arts), 1, "%s", r.out);
	cr_expect_str_eq(json_string_value(json_array_get(arts, 0)),
			 "out/7.txt", "a file the action did not write was "
			 "recorded as its output");
	json_decref(doc);
	t_result_release(&r);
	t_write(repo, "src/a.c", "int a = 1;\n");
	cr_assert_eq(t_git_commit(repo, "grow"), 0);
	r = t_ripple(repo, run2);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
	cr_expect(!exists(repo, "out/7.txt"), "the recorded output stayed");
	cr_expect(exists(repo, "out/11.txt"));
	cr_expect(exists(repo, "out/notes.txt"));
	cr_expect(exists(repo, "out/0-mine.txt"), "the user's file was "
		  "recorded as the node's output, then removed as stale");
	t_rmtree(base);
	free(base);
	free(repo);
}

/* Logs, out dirs and the default cache live in .ripple: never through a link. */
Test(e2e_trust_paths, a_ripple_folder_linking_outside_is_refused)
{
	static const char y[] =
		"version: 1\n"
		"artifacts:\n"
		"  a: {command: [\"true\"]}\n";
	char *base = t_tmpdir(), *repo;
	const char *run[] = { "run", "--run-id", "r1", NULL };
	const char *plan[] = { "plan", NULL };
	struct run_result r;

	t_write(base, "elsewhere/keep", "x\n");
	repo = make_repo(base, y);
	r = t_sh(repo, "ln -s ../elsewhere .ripple && git add -f .ripple && "
		 GIT_ENV "git commit -qm link");
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	r = t_ripple(repo, run);
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	expect_has(r.err, "outside the repository");
	t_result_release(&r);
	r = t_ripple(repo, plan);
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	t_result_release(&r);
	cr_expect(!exists(base, "elsewhere/cache.db"), "cache made outside");
	cr_expect(!exists(base, "elsewhere/logs"), "logs made outside");
	t_rmtree(base);
	free(base);
	free(repo);
}
