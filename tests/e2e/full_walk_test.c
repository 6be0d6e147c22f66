/*
 * Suite e2e_full_walk: every decision the fast paths make is the one the
 * full walk makes. The planner's fast path reads source keys from the
 * memo (graph/source_memo.c: a set's key by the tree ids at its prefixes,
 * written by `ripple record`); RIPPLE_FULL_WALK=1 walks every set file by
 * file instead. On the demo and on a generated repository, warm and cold
 * plans and a why must come out byte for byte the same both ways (plan
 * JSON has no timing fields), and the memo must have been there to use.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "graph/digest.h"
#include "graph/pattern.h"
#include "tests/support/support.h"

#define GIT_ID "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com " \
	"GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com " \
	"GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1; "

/* RIPPLE_BIN, else build/ripple, as an absolute path (malloc'd). */
static char *
ripple_path(void)
{
	const char *bin = getenv("RIPPLE_BIN");
	char *p = realpath(bin && *bin ? bin : "build/ripple", NULL);

	cr_assert_not_null(p, "no ripple binary");
	return p;
}

static void
must(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);

	cr_assert_eq(r.status, 0, "'%s' failed: %s%s", cmd, r.out, r.err);
	t_result_release(&r);
}

/* Rows of `table` in the cache at `db`. */
static long
table_rows(const char *db, const char *table)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	long n = -1;
	char sql[128];

	cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL),
		     SQLITE_OK, "cannot open %s", db);

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return n;
}

/*
 * In dir (a repository with a recorded baseline), run each ripple command
 * line of `cmds` (NULL-terminated; BASE in them is $base of the shell)
 * with and without RIPPLE_FULL_WALK=1 and compare the outputs.
 */
static void
same_both_ways(const char *tmp, const char *dir, const char *ripple,
	       const char *base, const char *const *cmds)
{
	char cmd[5 * PATH_MAX + 512], a[PATH_MAX + 32], b[PATH_MAX + 32];
	size_t i;

	for (i = 0; cmds[i]; i++) {
		char *fast, *full;

		snprintf(a, sizeof(a), "%s/fast-%zu.out", tmp, i);
		snprintf(b, sizeof(b), "%s/full-%zu.out", tmp, i);
		snprintf(cmd, sizeof(cmd), "base=%s; '%s' %s > '%s' && "
			 "RIPPLE_FULL_WALK=1 '%s' %s > '%s'", base, ripple,
			 cmds[i], a, ripple, cmds[i], b);
		must(dir, cmd);
		fast = t_read(a);
		full = t_read(b);
		cr_assert(strlen(fast) > 100, "%s: %s", cmds[i], fast);
		cr_expect_str_eq(fast, full, "'%s' differs with the memo "
				 "(%s) and with the full walk (%s)", cmds[i],
				 a, b);
		free(fast);
		free(full);
	}
}

/* The JSON document `ripple ARGS` prints in dir (base=BASE in ARGS). */
static json_t *
json_of(const char *dir, const char *ripple, const char *base,
	const char *args)
{
	char cmd[2 * PATH_MAX + 512];
	struct run_result r;
	json_error_t je;
	json_t *j;

	snprintf(cmd, sizeof(cmd), "base=%s; '%s' %s", base, ripple, args);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "'%s' failed: %s", cmd, r.err);
	j = json_loads(r.out, 0, &je);
	cr_assert_not_null(j, "'%s': %s", cmd, je.text);
	t_result_release(&r);
	return j;
}

/* The node object of id in a plan document. */
static json_t *
plan_item(json_t *plan, const char *id)
{
	json_t *it;
	size_t i;

	json_array_foreach(json_object_get(plan, "nodes"), i, it)
		if (!strcmp(json_string_value(json_object_get(it, "id")), id))
			return it;
	cr_assert_fail("no node %s in the plan", id);
	return NULL;
}

/*
 * `why` plans only its node, what that needs and its version groups
 * (planner why_node); every node's why (node and chain) must read as the
 * whole plan's items, with the whole closure's coverage.
 */
static void
why_reads_as_the_plan(const char *dir, const char *ripple, const char *base)
{
	json_t *plan = json_of(dir, ripple, base,
			       "plan --base \"$base\" --json"), *it, *c;
	char args[PATH_MAX + 64];
	size_t i, k, whys = 0;

	json_array_foreach(json_object_get(plan, "nodes"), i, it) {
		const char *id = json_string_value(json_object_get(it, "id"));
		json_t *why;

		snprintf(args, sizeof(args), "why '%s' --base \"$base\" --json",
			 id);
		why = json_of(dir, ripple, base, args);
		cr_expect(json_equal(json_object_get(why, "node"), it),
			  "why %s: its node differs from the plan's", id);
		cr_expect(json_equal(json_object_get(why, "baseline_coverage"),
				     json_object_get(plan,
						     "baseline_coverage")),
			  "why %s: coverage", id);
		json_array_foreach(json_object_get(why, "chain"), k, c)
			cr_expect(json_equal(c, plan_item(plan,
				json_string_value(json_object_get(c, "id")))),
				  "why %s: chain item %zu differs", id, k);
		json_decref(why);
		whys++;
	}
	cr_assert_gt(whys, 2);
	json_decref(plan);
}

Test(e2e_full_walk, generated_repository_decides_the_same_both_ways,
     .timeout = 300)
{
	static const char *const cmds[] = {
		"plan --base \"$base\" --json",
		"plan --base \"$base\" --assume-base-built --json",
		"why artifact:pkg001 --base \"$base\"",
		NULL
	};
	char *tmp = t_tmpdir(), *ripple = ripple_path(), *src;
	char cmd[4 * PATH_MAX + 1024], dir[PATH_MAX], db[PATH_MAX + 32];

	src = realpath(t_srcdir(), NULL);
	cr_assert_not_null(src);
	/* bench/plan_bench.sh's layout, smaller: 3,000 files in 30
	 * packages, one source set and one artifact each, a baseline run at
	 * the rules commit, then 10 files edited in 3 packages. */
	snprintf(cmd, sizeof(cmd), GIT_ID
		 "sh '%s/bench/gen-repo.sh' g 3000 30 >/dev/null && cd g && "
		 "git checkout -q -b t main~1 && "
		 "awk 'BEGIN { print \"version: 1\"; print \"sources:\"; "
		 "for (i = 0; i < 30; i++) printf \"  src-pkg%%03d: {paths: "
		 "[pkg%%03d/**]}\\n\", i, i; print \"artifacts:\"; "
		 "for (i = 0; i < 30; i++) printf \"  pkg%%03d: {inputs: "
		 "[src-pkg%%03d], command: [build, pkg%%03d]}\\n\", i, i, i }' "
		 "> ripple.yml && printf '.ripple/\\n' > .gitignore && "
		 "git add ripple.yml .gitignore && git commit -q -m rules && "
		 "git tag base && "
		 "'%s' record --run base --node '*' --status ok >/dev/null && "
		 "'%s' record --run base --finish ok >/dev/null && "
		 "git cherry-pick main >/dev/null", src, ripple, ripple);
	must(tmp, cmd);
	snprintf(dir, sizeof(dir), "%s/g", tmp);
	snprintf(db, sizeof(db), "%s/.ripple/cache.db", dir);
	cr_assert_gt(table_rows(db, "source_keys"), 0,
		     "record wrote no source-key memo");
	cr_assert_gt(table_rows(db, "rules_trees"), 0,
		     "record remembered no rules tree");
	same_both_ways(tmp, dir, ripple, "base", cmds);
	t_rmtree(tmp);
	free(tmp);
	free(src);
	free(ripple);
}

Test(e2e_full_walk, demo_decides_the_same_both_ways, .timeout = 300)
{
	static const char *const cmds[] = {
		"plan --base \"$base\" --json",
		"plan --base \"$base\" --assume-base-built --json",
		NULL
	};
	char *tmp = t_tmpdir(), *ripple = ripple_path(), *src;
	char cmd[4 * PATH_MAX + 1024], dir[PATH_MAX], db[PATH_MAX + 32];

	src = realpath(t_srcdir(), NULL);
	cr_assert_not_null(src);
	snprintf(cmd, sizeof(cmd), GIT_ID
		 "'%s/examples/cuda-bindings/make-demo-repo' demo >/dev/null "
		 "&& cd demo && '%s' record --run base --node '*' --status ok "
		 ">/dev/null && '%s' record --run base --finish ok && "
		 "git checkout -q -b t && "
		 "echo '# probe' >> cuda_bindings/examples/vectorAdd.py && "
		 "git commit -qam probe", src, ripple, ripple);
	must(tmp, cmd);
	snprintf(dir, sizeof(dir), "%s/demo", tmp);
	snprintf(db, sizeof(db), "%s/.ripple/cache.db", dir);
	cr_assert_gt(table_rows(db, "source_keys"), 0,
		     "record wrote no source-key memo");
	cr_assert_gt(table_rows(db, "rules_trees"), 0,
		     "record remembered no rules tree");
	same_both_ways(tmp, dir, ripple, "main", cmds);
	why_reads_as_the_plan(dir, ripple, "main");
	/* The metapackage rebuilds its version group's bindings wheels:
	 * a why of a wheel must plan the group's other members too. */
	must(dir, GIT_ID "f=$(git ls-files cuda_python | grep -v '^cuda_python/"
	     "docs/' | head -1) && echo '# probe' >> \"$f\" && "
	     "git commit -qam meta");
	same_both_ways(tmp, dir, ripple, "main", cmds);
	why_reads_as_the_plan(dir, ripple, "main");
	t_rmtree(tmp);
	free(tmp);
	free(src);
	free(ripple);
}

/*
 * The cases the memo ids must get right (graph/source_memo.c: a set keyed
 * by the id of the folder covering its prefixes): a set of two prefixes
 * whose folder changes outside them; links inside, dangling, escaping, and
 * one whose hop lies outside the set (never remembered); excludes and
 * policy.ignore; a renamed folder, a deleted folder, a folder that
 * appears; a declared output in the tree; inside q/, which the set
 * claims whole (its folders keyed by their tree ids), a deep edit, an
 * exec bit, a link added and its target edited. Plans at each later
 * commit, warm and cold, and a why, must read the same both ways.
 */
Test(e2e_full_walk, covers_links_excludes_and_moves_decide_the_same,
     .timeout = 300)
{
	static const char *const cmds[] = {
		"plan --base \"$base\" --json",
		"plan --base \"$base\" --assume-base-built --json",
		"why artifact:a --base \"$base\" --json",
		"why artifact:links --base \"$base\" --json",
		"why artifact:q --base \"$base\" --json",
		NULL
	};
	static const char *const steps[] = {
		/* outside a's prefixes, inside their folder p/ */
		"echo n > p/NOTES && git add p/NOTES",
		/* the outside hop of links/l1 retargeted */
		"ln -sfn ../a/g x/l2 && git add x/l2",
		/* excluded and ignored files only */
		"echo 2 > p/src/gen/out.c && echo 2 > p/src/README.md && "
		"git add -A",
		/* a folder renamed, one deleted, one new */
		"git mv p/src/sub p/src/moved && git rm -rq q/lib && "
		"mkdir -p q/new && echo 1 > q/new/n.c && git add -A",
		/* a claimed file edited, a link made to dangle */
		"echo 3 >> p/src/main.c && rm links/in && "
		"ln -s nowhere links/in && git add -A",
		/* q/ is claimed whole: its folders are keyed by tree id
		 * (ripple-source-v2). A deep folder appears, a file deep
		 * in it is edited, then made executable */
		"mkdir -p q/deep/a/b && echo 1 > q/deep/a/b/f.c && "
		"echo 1 > q/deep/a/g.c && git add -A",
		"echo 2 >> q/deep/a/b/f.c && git add -A",
		"chmod +x q/deep/a/b/f.c && git add -A",
		/* a link inside the link-free folder, then its target (outside
		 * q/) edited: the folder is walked, the link resolved */
		"ln -s ../../../a/g q/deep/a/lnk && git add -A",
		"echo 4 >> a/g && git add -A",
		NULL
	};
	char *tmp = t_tmpdir(), *ripple = ripple_path();
	char cmd[4 * PATH_MAX + 2048], dir[PATH_MAX], db[PATH_MAX + 32];
	size_t i;

	snprintf(cmd, sizeof(cmd), GIT_ID
		 "mkdir c && cd c && git init -q -b main && "
		 "mkdir -p p/src/sub p/src/gen p/inc q/lib a x links && "
		 "for f in p/src/main.c p/src/sub/s.c p/src/gen/out.c "
		 "p/inc/h.h p/package.json q/lib/l.c q/lib/m.c a/f a/g "
		 "p/src/README.md; do echo 1 > $f; done && "
		 "ln -s ../a/f x/l2 && ln -s ../x/l2 links/l1 && "
		 "ln -s ../p/inc/h.h links/in && ln -s /etc/passwd links/out "
		 "&& printf '%%s\\n' 'version: 1' "
		 "'policy: {ignore: [\"**/*.md\"]}' 'sources:' "
		 "'  a-src: {paths: [p/src/**, p/inc/**, p/package.json], "
		 "exclude: [p/src/gen/**]}' "
		 "'  q-src: {paths: [q/**]}' "
		 "'  links-src: {paths: [links/**]}' "
		 "'artifacts:' "
		 "'  a: {inputs: [a-src], command: [build, a], "
		 "outputs: [p/dist/**]}' "
		 "'  q: {inputs: [q-src], command: [build, q]}' "
		 "'  links: {inputs: [links-src], command: [build, links]}' "
		 "'tests:' "
		 "'  t: {needs: [a, q], command: [test]}' > ripple.yml && "
		 "printf '.ripple/\\n' > .gitignore && "
		 "git add -A && git commit -qm base && git tag base && "
		 "'%s' record --run base --node '*' --status ok >/dev/null && "
		 "'%s' record --run base --finish ok >/dev/null",
		 ripple, ripple);
	must(tmp, cmd);
	snprintf(dir, sizeof(dir), "%s/c", tmp);
	snprintf(db, sizeof(db), "%s/.ripple/cache.db", dir);
	cr_assert_gt(table_rows(db, "source_keys"), 0,
		     "record wrote no source-key memo");
	cr_assert_gt(table_rows(db, "rules_trees"), 0,
		     "record remembered no rules tree");
	for (i = 0; steps[i]; i++) {
		snprintf(cmd, sizeof(cmd), GIT_ID "%s && git commit -qm "
			 "'step %zu'", steps[i], i);
		must(dir, cmd);
		same_both_ways(tmp, dir, ripple, "base", cmds);
		why_reads_as_the_plan(dir, ripple, "base");
	}
	t_rmtree(tmp);
	free(tmp);
	free(ripple);
}

/*
 * A set claiming whole folders (keyed by their tree ids, docs/patterns.md):
 * why still names each file that changed deep inside, an exec bit, a link
 * added, a folder added; warm and cold plans and why the same both ways.
 */
Test(e2e_full_walk, folders_keyed_by_tree_id_still_name_their_files,
     .timeout = 300)
{
	static const char *const cmds[] = {
		"plan --base \"$base\" --json",
		"plan --base \"$base\" --assume-base-built --json",
		"why artifact:q --base \"$base\" --json",
		NULL
	};
	static const struct {
		const char *edit, *names;
	} steps[] = {
		{ "echo 2 >> q/a/b/c/deep.c", "\"q/a/b/c/deep.c\"" },
		{ "chmod +x q/a/b/other.c", "\"q/a/b/other.c\"" },
		{ "ln -s ../../../shared/t.txt q/a/b/lnk", "\"q/a/b/lnk\"" },
		{ "mkdir q/a/n && echo 1 > q/a/n/new.c && git rm -q q/top.c",
		  "\"q/a/n/new.c\"" },
		{ NULL, NULL }
	};
	char *tmp = t_tmpdir(), *ripple = ripple_path(), *out;
	char cmd[4 * PATH_MAX + 2048], dir[PATH_MAX];
	struct run_result r;
	size_t i;

	snprintf(cmd, sizeof(cmd), GIT_ID
		 "mkdir f && cd f && git init -q -b main && "
		 "mkdir -p q/a/b/c shared && echo 1 > q/a/b/c/deep.c && "
		 "echo 1 > q/a/b/other.c && echo 1 > q/top.c && "
		 "echo 1 > shared/t.txt && printf '%%s\\n' 'version: 1' "
		 "'policy: {unclaimed-paths: ignore}' 'sources:' "
		 "'  q-src: {paths: [q/**]}' 'artifacts:' "
		 "'  q: {inputs: [q-src], command: [build, q]}' > ripple.yml "
		 "&& printf '.ripple/\\n' > .gitignore && git add -A && "
		 "git commit -qm base && "
		 "'%s' record --run base --node '*' --status ok >/dev/null && "
		 "'%s' record --run base --finish ok >/dev/null", ripple,
		 ripple);
	must(tmp, cmd);
	snprintf(dir, sizeof(dir), "%s/f", tmp);
	for (i = 0; steps[i].edit; i++) {
		snprintf(cmd, sizeof(cmd), GIT_ID "git checkout -q main && "
			 "git checkout -q -B s%zu && %s && git add -A && "
			 "git commit -qm 'step %zu'", i, steps[i].edit, i);
		must(dir, cmd);
		same_both_ways(tmp, dir, ripple, "main", cmds);
		snprintf(cmd, sizeof(cmd), "'%s' why artifact:q --base main "
			 "--json", ripple);
		r = t_sh(dir, cmd);
		cr_assert_eq(r.status, 0, "%s", r.err);
		out = r.out;
		cr_expect(strstr(out, steps[i].names) != NULL,
			  "step %zu: why does not name %s: %s", i,
			  steps[i].names, out);
		cr_expect(strstr(out, "\"decision\": \"build\""),
			  "step %zu: q must build: %s", i, out);
		t_result_release(&r);
	}
	t_rmtree(tmp);
	free(tmp);
	free(ripple);
}

/*
 * A changed set's files are named from the tree diff since the baseline
 * run's commit (eval_input_changes) only where the diff says all: a link
 * inside the set whose target, inside it too, is edited changes while
 * its own entry does not, and why must still name it; an edit beside it
 * in a set with no link, and the set's own new link, likewise. Each step
 * reads the same both ways, and as a recorded baseline compared.
 */
Test(e2e_full_walk, a_link_whose_target_changed_is_named, .timeout = 300)
{
	static const char *const cmds[] = {
		"plan --base \"$base\" --json",
		"why artifact:q --base \"$base\" --json",
		"why artifact:p --base \"$base\" --json",
		NULL
	};
	static const struct {
		const char *edit, *names;
	} steps[] = {
		{ "echo 2 >> q/lib/l.c", "\"q/lnk\"" },
		{ "echo 2 >> p/a/b.c && echo 2 >> q/lib/m.c", "\"p/a/b.c\"" },
		{ "ln -s a/b.c p/new", "\"p/new\"" },
		{ NULL, NULL }
	};
	char *tmp = t_tmpdir(), *ripple = ripple_path(), *out;
	char cmd[4 * PATH_MAX + 2048], dir[PATH_MAX];
	struct run_result r;
	size_t i;

	snprintf(cmd, sizeof(cmd), GIT_ID
		 "mkdir l && cd l && git init -q -b main && "
		 "mkdir -p q/lib p/a && echo 1 > q/lib/l.c && "
		 "echo 1 > q/lib/m.c && echo 1 > p/a/b.c && "
		 "ln -s lib/l.c q/lnk && printf '%%s\\n' 'version: 1' "
		 "'policy: {unclaimed-paths: ignore}' 'sources:' "
		 "'  q-src: {paths: [q/**]}' '  p-src: {paths: [p/**]}' "
		 "'artifacts:' '  q: {inputs: [q-src], command: [build, q]}' "
		 "'  p: {inputs: [p-src], command: [build, p]}' > ripple.yml "
		 "&& printf '.ripple/\\n' > .gitignore && git add -A && "
		 "git commit -qm base && "
		 "'%s' record --run base --node '*' --status ok >/dev/null && "
		 "'%s' record --run base --finish ok >/dev/null", ripple,
		 ripple);
	must(tmp, cmd);
	snprintf(dir, sizeof(dir), "%s/l", tmp);
	for (i = 0; steps[i].edit; i++) {
		snprintf(cmd, sizeof(cmd), GIT_ID "git checkout -q main && "
			 "git checkout -q -B s%zu && %s && git add -A && "
			 "git commit -qm 'step %zu'", i, steps[i].edit, i);
		must(dir, cmd);
		same_both_ways(tmp, dir, ripple, "main", cmds);
		snprintf(cmd, sizeof(cmd), "'%s' plan --base main --json",
			 ripple);
		r = t_sh(dir, cmd);
		cr_assert_eq(r.status, 0, "%s", r.err);
		out = r.out;
		cr_expect(strstr(out, steps[i].names) != NULL,
			  "step %zu: the plan does not name %s: %s", i,
			  steps[i].names, out);
		t_result_release(&r);
	}
	t_rmtree(tmp);
	free(tmp);
	free(ripple);
}

/* The digest of input `name` in `ripple keys ARGS --components --json`
 * run in dir, into out (33 bytes). */
static void
input_digest(const char *dir, const char *ripple, const char *args,
	     const char *name, char out[33])
{
	char cmd[2 * PATH_MAX + 256];
	json_t *doc, *c;
	size_t i;

	snprintf(cmd, sizeof(cmd), "keys %s --components --json", args);
	doc = json_of(dir, ripple, "", cmd);
	out[0] = '\0';
	json_array_foreach(json_object_get(json_array_get(
		json_object_get(doc, "nodes"), 0), "components"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "name")),
			    name))
			snprintf(out, 33, "%s", json_string_value(
				json_object_get(c, "digest")));
	cr_assert_eq(strlen(out), 32, "keys %s: no %s", args, name);
	json_decref(doc);
}

/*
 * An untracked rules file inside a folder a set claims whole (`--rules
 * q/r.yml`) is excluded from the set, but it is in no commit: the key
 * must be the one the committed rules give, at the commit and in the
 * working tree, wherever the rules file lies (it cut the folder: the
 * key was the files one by one instead of the folder's tree id). (In
 * the working tree without --rules, q/r.yml is an untracked file of the
 * set like any other.)
 */
Test(e2e_full_walk, an_untracked_rules_file_leaves_the_keys_alone)
{
	char *tmp = t_tmpdir(), *ripple = ripple_path();
	char cmd[PATH_MAX + 1024], dir[PATH_MAX], want[33], got[33];
	static const char *const args[] = {
		"--rules q/r.yml", "--rules ../r.yml",
		"--worktree --rules q/r.yml",
	};
	size_t i;

	snprintf(cmd, sizeof(cmd), GIT_ID
		 "mkdir f && cd f && git init -q -b main && "
		 "mkdir -p q/a && echo 1 > q/a/x.c && echo 1 > q/top.c && "
		 "printf '%%s\\n' 'version: 1' 'sources:' "
		 "'  q-src: {paths: [q/**]}' 'artifacts:' "
		 "'  q: {inputs: [q-src], command: [build, q]}' > ripple.yml "
		 "&& printf '.ripple/\\n' > .gitignore && git add -A && "
		 "git commit -qm base && cp ripple.yml q/r.yml && "
		 "cp ripple.yml ../r.yml");
	must(tmp, cmd);
	snprintf(dir, sizeof(dir), "%s/f", tmp);
	input_digest(dir, ripple, "", "source:q-src", want);
	for (i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		input_digest(dir, ripple, args[i], "source:q-src", got);
		cr_expect_str_eq(got, want, "keys %s", args[i]);
	}
	t_rmtree(tmp);
	free(tmp);
	free(ripple);
}

/*
 * Source keys changed (canonical tree ids, links through folders,
 * submodules and links a set reaches inside) while the folders' object
 * ids stayed: a memo row an older ripple wrote under the memo ids of
 * version 4 would give a plan the old key, another than the full walk's.
 * Such a row (here: a key that is no key of the set) is never looked up.
 */
Test(e2e_full_walk, a_memo_row_of_an_older_version_is_not_read)
{
	char *tmp = t_tmpdir(), *ripple = ripple_path();
	char cmd[3 * PATH_MAX + 1024], dir[PATH_MAX], db[PATH_MAX + 32];
	const char *inc[] = { "q/**" }, *own[] = { ".ripple/**" };
	struct pattern_set *s = NULL;
	struct digest_state st = DIGEST_STATE_INIT;
	struct digest d;
	struct error err;
	struct run_result r;
	sqlite3 *h = NULL;
	char *fast, *full;

	snprintf(cmd, sizeof(cmd), GIT_ID
		 "mkdir f && cd f && git init -q -b main && "
		 "mkdir -p q/a && echo 1 > q/a/x.c && printf '%%s\\n' "
		 "'version: 1' 'sources:' '  q-src: {paths: [q/**]}' "
		 "'artifacts:' '  q: {inputs: [q-src], command: [build, q]}' "
		 "> ripple.yml && printf '.ripple/\\n' > .gitignore && "
		 "git add -A && git commit -qm base && "
		 "'%s' record --run base --node '*' --status ok >/dev/null",
		 ripple);
	must(tmp, cmd);
	snprintf(dir, sizeof(dir), "%s/f", tmp);
	snprintf(db, sizeof(db), "%s/.ripple/cache.db", dir);
	/* The version-4 memo id of q-src: the set as a plan compiles it. */
	error_init(&err);
	cr_assert_eq(pattern_set_compile(inc, 1, NULL, 0, &s, &err), 0);
	cr_assert_eq(pattern_set_exclude_globs(s, own, 1, &err), 0);
	r = t_sh(dir, "git rev-parse HEAD:q");
	cr_assert_eq(r.status, 0);
	r.out[40] = '\0';
	cr_assert_eq(digest_begin(&st, "ripple-source-memo-v4", &err), 0);
	digest_add(&st, pattern_set_digest(s), 16);
	digest_add_str(&st, "cover");
	digest_add_str(&st, "q");
	digest_add_str(&st, r.out);
	digest_end(&st, &d);
	t_result_release(&r);
	pattern_set_free(s);
	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	snprintf(cmd, sizeof(cmd), "INSERT OR REPLACE INTO source_keys "
		 "VALUES ('%s', '0123456789abcdef0123456789abcdef')", d.hex);
	cr_assert_eq(sqlite3_exec(h, cmd, NULL, NULL, NULL), SQLITE_OK,
		     "%s", sqlite3_errmsg(h));
	sqlite3_close(h);
	snprintf(cmd, sizeof(cmd), "'%s' plan --json > fast.json && "
		 "RIPPLE_FULL_WALK=1 '%s' plan --json > full.json", ripple,
		 ripple);
	must(dir, cmd);
	snprintf(cmd, sizeof(cmd), "%s/fast.json", dir);
	fast = t_read(cmd);
	snprintf(cmd, sizeof(cmd), "%s/full.json", dir);
	full = t_read(cmd);
	cr_expect_str_eq(fast, full, "the old memo row was read");
	free(fast);
	free(full);
	t_rmtree(tmp);
	free(tmp);
	free(ripple);
}

/*
 * A run remembers what lies below each link-free folder it listed whole
 * (the tree_scans table), and a plan keying a changed folder reads again
 * only its subtrees whose ids changed. A row damaged on disk is worked
 * out again: plans and why as the full walk gives them, with damaged,
 * intact and missing rows side by side.
 */
Test(e2e_full_walk, a_damaged_tree_scan_is_worked_out_again,
     .timeout = 300)
{
	static const char *const cmds[] = {
		"plan --base \"$base\" --json",
		"why artifact:q --base \"$base\" --json",
		NULL
	};
	static const char *const steps[] = {
		"echo 2 >> q/deep/a/b/f.c && git add -A",
		"mkdir -p q/deep/n && echo 1 > q/deep/n/g.c && git add -A",
		"echo 2 >> q/lib/l.c && git add -A",
		NULL
	};
	char *tmp = t_tmpdir(), *ripple = ripple_path();
	char cmd[3 * PATH_MAX + 1024], dir[PATH_MAX], db[PATH_MAX + 32];
	sqlite3 *h = NULL;
	size_t i;

	snprintf(cmd, sizeof(cmd), GIT_ID
		 "mkdir s && cd s && git init -q -b main && "
		 "mkdir -p q/lib q/deep/a/b q/deep/c && "
		 "for f in q/lib/l.c q/deep/a/b/f.c q/deep/a/g.c q/deep/c/h.c "
		 "q/top.c; do echo 1 > $f; done && printf '%%s\\n' "
		 "'version: 1' 'sources:' '  q-src: {paths: [q/**]}' "
		 "'artifacts:' '  q: {inputs: [q-src], command: [build, q]}' "
		 "> ripple.yml && printf '.ripple/\\n' > .gitignore && "
		 "git add -A && git commit -qm base && git tag base && "
		 "'%s' record --run base --node '*' --status ok >/dev/null && "
		 "'%s' record --run base --finish ok >/dev/null",
		 ripple, ripple);
	must(tmp, cmd);
	snprintf(dir, sizeof(dir), "%s/s", tmp);
	snprintf(db, sizeof(db), "%s/.ripple/cache.db", dir);
	/* q, q/lib, q/deep, q/deep/a, q/deep/a/b, q/deep/c */
	cr_assert_eq(table_rows(db, "tree_scans"), 6,
		     "record remembered %ld tree scans",
		     table_rows(db, "tree_scans"));
	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, "UPDATE tree_scans SET canon = "
				  "zeroblob(20) WHERE height = 0; "
				  "UPDATE tree_scans SET height = 0 WHERE "
				  "height = 1", NULL, NULL, NULL), SQLITE_OK,
		     "%s", sqlite3_errmsg(h));
	sqlite3_close(h);
	for (i = 0; steps[i]; i++) {
		snprintf(cmd, sizeof(cmd), GIT_ID "%s && git commit -qm "
			 "'step %zu'", steps[i], i);
		must(dir, cmd);
		same_both_ways(tmp, dir, ripple, "base", cmds);
	}
	t_rmtree(tmp);
	free(tmp);
	free(ripple);
}
