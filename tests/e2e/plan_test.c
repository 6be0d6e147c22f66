/*
 * End-to-end checks of `ripple plan` and `ripple why` on small created
 * repositories: every decision and reason of the closed set, cascades and
 * their root causes, policies for ignored and unclaimed paths, reuse
 * scopes, --assume-base-built, and explanations that outlive the baseline
 * commit.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/e2e/plan_support.h"
#include "tests/support/support.h"

static const char *const plan_base[] = { "plan", "--base", "main", "--json",
					 NULL };

/* Change REL to TEXT on a new branch `pr` and commit. */
static void
change(const char *dir, const char *rel, const char *text)
{
	free(pt_sh(dir, "git checkout -q -b pr"));
	t_write(dir, rel, text);
	cr_assert_eq(t_git_commit(dir, "change"), 0);
}

static json_t *
plan_main(const char *dir)
{
	return pt_json(dir, plan_base);
}

/* The first change of node id (asserts there is one). */
static json_t *
first_change(json_t *plan, const char *id)
{
	json_t *ch = json_object_get(pt_node(plan, id), "changes");

	cr_assert(json_array_size(ch) >= 1, "%s has no changes", id);
	return json_array_get(ch, 0);
}

Test(e2e_plan, no_baseline_run_builds_everything)
{
	char *dir = pt_repo("rebuild-all");
	json_t *p = plan_main(dir);

	cr_expect_str_eq(pt_str(p, "schema"), "ripple-plan-v1");
	cr_expect(json_is_null(json_object_get(p, "baseline_run")));
	pt_expect(p, W11A, "build", "no-baseline-run");
	pt_expect(p, W12A, "build", "no-baseline-run");
	pt_expect(p, W11B, "build", "no-baseline-run");
	pt_expect(p, W12B, "build", "no-baseline-run");
	pt_expect(p, UA, "test", "no-baseline-run");
	pt_expect(p, UB, "test", "no-baseline-run");
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan, one_root_changed_builds_that_root_and_cascades)
{
	char *dir = pt_repo("rebuild-all");
	char *old_id, *new_id;
	json_t *p, *c;

	pt_record_all(dir, "base1");
	change(dir, "pa/a.py", "a = 2\n");
	old_id = pt_sh(dir, "git rev-parse main:pa/a.py");
	new_id = pt_sh(dir, "git rev-parse HEAD:pa/a.py");
	p = plan_main(dir);
	cr_expect_str_eq(pt_str(p, "baseline_run"), "base1");
	pt_expect(p, W11A, "build", "input-content-changed");
	pt_expect(p, W12A, "build", "input-content-changed");
	pt_expect(p, UA, "test", "upstream-rebuilt");
	cr_expect_str_eq(pt_str(pt_node(p, UA), "cascade_of"), W12A);
	cr_expect_str_eq(pt_str(pt_node(p, UA), "root_cause"), W12A);
	cr_expect_null(pt_str(pt_node(p, W12A), "cascade_of"));
	pt_expect(p, W11B, "reuse", "reused");
	pt_expect(p, W12B, "reuse", "reused");
	pt_expect(p, UB, "reuse", "reused");
	cr_expect_str_eq(pt_str(pt_node(p, UB), "reused_from_run"), "base1");
	c = first_change(p, W11A);
	cr_expect_str_eq(pt_str(c, "kind"), "file");
	cr_expect_str_eq(pt_str(c, "path"), "pa/a.py");
	cr_expect_str_eq(pt_str(c, "status"), "modified");
	cr_expect_str_eq(pt_str(c, "old"), old_id);
	cr_expect_str_eq(pt_str(c, "new"), new_id);
	cr_expect_eq(json_integer_value(json_object_get(p, "root_causes")), 2);
	json_decref(p);
	free(old_id);
	free(new_id);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan, why_names_the_file_with_both_full_blob_ids)
{
	char *dir = pt_repo("rebuild-all");
	const char *argv[] = { "why", W11A, "--base", "main", "--json", NULL };
	const char *targv[] = { "why", W11A, "--base", "main", NULL };
	char *old_id, *new_id;
	struct run_result r;
	json_t *w, *c;

	pt_record_all(dir, "base1");
	change(dir, "pa/a.py", "a = 2\n");
	old_id = pt_sh(dir, "git rev-parse main:pa/a.py");
	new_id = pt_sh(dir, "git rev-parse HEAD:pa/a.py");
	w = pt_json(dir, argv);
	cr_expect_str_eq(pt_str(w, "schema"), "ripple-why-v1");
	c = json_array_get(json_object_get(json_object_get(w, "node"),
					   "changes"), 0);
	cr_expect_str_eq(pt_str(c, "path"), "pa/a.py");
	cr_expect_str_eq(pt_str(c, "old"), old_id);
	cr_expect_str_eq(pt_str(c, "new"), new_id);
	r = t_ripple(dir, targv);
	cr_expect_eq(r.status, 0);
	cr_expect(strstr(r.out, "pa/a.py") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, old_id) != NULL, "%s", r.out);
	cr_expect(strstr(r.out, new_id) != NULL, "%s", r.out);
	t_result_release(&r);
	json_decref(w);
	free(old_id);
	free(new_id);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan, why_on_a_cascade_names_the_upstream_root_cause)
{
	char *dir = pt_repo("rebuild-all");
	const char *argv[] = { "why", UA, "--base", "main", "--json", NULL };
	const char *targv[] = { "why", UA, "--base", "main", NULL };
	struct run_result r;
	json_t *w, *chain;

	pt_record_all(dir, "base1");
	change(dir, "pa/a.py", "a = 2\n");
	w = pt_json(dir, argv);
	cr_expect_str_eq(pt_str(json_object_get(w, "node"), "reason"),
			 "upstream-rebuilt");
	cr_expect_str_eq(pt_str(json_object_get(w, "node"), "root_cause"),
			 W12A);
	chain = json_object_get(w, "chain");
	cr_assert_eq(json_array_size(chain), 1);
	cr_expect_str_eq(pt_str(json_array_get(chain, 0), "id"), W12A);
	cr_expect_str_eq(pt_str(json_array_get(chain, 0), "reason"),
			 "input-content-changed");
	r = t_ripple(dir, targv);
	cr_expect_eq(r.status, 0);
	cr_expect(strstr(r.out, "root cause") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "pa/a.py") != NULL, "%s", r.out);
	t_result_release(&r);
	json_decref(w);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan, docs_only_change_builds_nothing)
{
	char *dir = pt_repo("rebuild-all");
	json_t *p, *ign, *counts;

	pt_record_all(dir, "base1");
	change(dir, "docs/index.md", "# new docs\n");
	p = plan_main(dir);
	ign = json_object_get(p, "ignored_paths");
	cr_assert_eq(json_array_size(ign), 1);
	cr_expect_str_eq(json_string_value(json_array_get(ign, 0)),
			 "docs/index.md");
	cr_expect_eq(json_array_size(json_object_get(p, "unclaimed_paths")), 0);
	counts = json_object_get(p, "counts");
	cr_expect_eq(json_integer_value(json_object_get(counts, "build")), 0);
	cr_expect_eq(json_integer_value(json_object_get(counts, "test")), 0);
	cr_expect_eq(json_integer_value(json_object_get(counts, "reuse")), 6);
	cr_expect(json_is_null(json_object_get(p, "forced")));
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan, test_only_change_runs_tests_and_builds_nothing)
{
	char *dir = pt_repo("rebuild-all");
	json_t *p, *c;

	pt_record_all(dir, "base1");
	change(dir, "pa/tests/test_a.py", "def test(): assert 1\n");
	p = plan_main(dir);
	pt_expect(p, UA, "test", "input-content-changed");
	pt_expect(p, UB, "reuse", "reused");
	pt_expect(p, W11A, "reuse", "reused");
	pt_expect(p, W12A, "reuse", "reused");
	pt_expect(p, W11B, "reuse", "reused");
	pt_expect(p, W12B, "reuse", "reused");
	c = first_change(p, UA);
	cr_expect_str_eq(pt_str(c, "path"), "pa/tests/test_a.py");
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

/*
 * The baseline run lacks W12A: it is a new node, and UA, recorded against
 * whatever W12A was then, rebuilds as its cascade even though UA's key
 * (made with W12A's key: there was no output digest) is unchanged.
 */
Test(e2e_plan, missing_baseline_record_is_new_node_and_cascades)
{
	char *dir = pt_repo("rebuild-all");
	const char *argv[] = { "why", UA, "--json", "--base", "main", NULL };
	const char *ids[] = { W11A, W11B, W12B, UA, UB };
	json_t *p, *w;
	size_t i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		pt_record(dir, "base1", ids[i], "ok", "");
	pt_finish(dir, "base1");
	change(dir, "docs/index.md", "# only docs\n");
	p = plan_main(dir);
	pt_expect(p, W12A, "build", "new-node");
	pt_expect(p, UA, "test", "upstream-rebuilt");
	cr_expect_str_eq(pt_str(pt_node(p, UA), "cascade_of"), W12A);
	pt_expect(p, W11A, "reuse", "reused");
	pt_expect(p, W11B, "reuse", "reused");
	pt_expect(p, W12B, "reuse", "reused");
	pt_expect(p, UB, "reuse", "reused");
	cr_expect_eq(json_integer_value(json_object_get(p, "root_causes")), 1);
	w = pt_json(dir, argv);
	cr_expect_str_eq(pt_str(json_object_get(w, "node"), "root_cause"),
			 W12A);
	json_decref(w);
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan, failed_baseline_record_rebuilds_only_that_node)
{
	char *dir = pt_repo("rebuild-all");
	json_t *p;

	pt_record(dir, "base1", "*", "ok", "");
	pt_record(dir, "base1", W11A, "failed", "");
	pt_finish(dir, "base1");
	p = plan_main(dir);
	pt_expect(p, W11A, "build", "baseline-record-failed");
	pt_expect(p, W12A, "reuse", "reused");
	pt_expect(p, W11B, "reuse", "reused");
	pt_expect(p, W12B, "reuse", "reused");
	pt_expect(p, UA, "reuse", "reused");
	pt_expect(p, UB, "reuse", "reused");
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan, failed_upstream_record_cascades_to_its_users)
{
	char *dir = pt_repo("rebuild-all");
	json_t *p;

	pt_record(dir, "base1", "*", "ok", "");
	pt_record(dir, "base1", W12B, "failed", "");
	pt_finish(dir, "base1");
	p = plan_main(dir);
	pt_expect(p, W12B, "build", "baseline-record-failed");
	pt_expect(p, UB, "test", "upstream-rebuilt");
	cr_expect_str_eq(pt_str(pt_node(p, UB), "root_cause"), W12B);
	pt_expect(p, UA, "reuse", "reused");
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan, unclaimed_path_with_rebuild_all_forces_everything)
{
	char *dir = pt_repo("rebuild-all");
	json_t *p, *un;

	pt_record_all(dir, "base1");
	change(dir, "tox.ini", "[tox]\nenvlist = py312\n");
	p = plan_main(dir);
	un = json_object_get(p, "unclaimed_paths");
	cr_assert_eq(json_array_size(un), 1);
	cr_expect_str_eq(json_string_value(json_array_get(un, 0)), "tox.ini");
	cr_assert_not_null(pt_str(p, "forced"));
	cr_expect(strstr(pt_str(p, "forced"), "'tox.ini'") != NULL, "%s",
		  pt_str(p, "forced"));
	pt_expect(p, W11A, "build", "forced");
	pt_expect(p, W12A, "build", "forced");
	pt_expect(p, W11B, "build", "forced");
	pt_expect(p, W12B, "build", "forced");
	pt_expect(p, UA, "test", "forced");
	pt_expect(p, UB, "test", "forced");
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan, unclaimed_path_with_policy_ignore_builds_nothing)
{
	char *dir = pt_repo("ignore");
	json_t *p, *counts;

	pt_record_all(dir, "base1");
	change(dir, "tox.ini", "[tox]\nenvlist = py312\n");
	p = plan_main(dir);
	cr_expect_eq(json_array_size(json_object_get(p, "unclaimed_paths")), 1);
	cr_expect(json_is_null(json_object_get(p, "forced")));
	counts = json_object_get(p, "counts");
	cr_expect_eq(json_integer_value(json_object_get(counts, "reuse")), 6);
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan, reuse_none_forces_everything)
{
	char *dir = pt_repo("rebuild-all");
	const char *argv[] = { "plan", "--base", "main", "--reuse", "none",
			       "--json", NULL };
	json_t *p;

	pt_record_all(dir, "base1");
	p = pt_json(dir, argv);
	pt_expect(p, W11A, "build", "forced");
	pt_expect(p, UB, "test", "forced");
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

/* A run recorded at the head (not the merge base) serves --reuse any. */
Test(e2e_plan, reuse_any_takes_a_record_with_the_same_key_in_another_run)
{
	char *dir = pt_repo("rebuild-all");
	const char *any[] = { "plan", "--base", "main", "--reuse", "any",
			      "--json", NULL };
	json_t *p;

	change(dir, "pa/a.py", "a = 3\n");
	pt_record_all(dir, "other");
	p = plan_main(dir);
	pt_expect(p, W11A, "build", "no-baseline-run");
	json_decref(p);
	p = pt_json(dir, any);
	pt_expect(p, W11A, "reuse", "reused");
	pt_expect(p, UB, "reuse", "reused");
	cr_expect_str_eq(pt_str(pt_node(p, W11A), "reused_from_run"), "other");
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan, assume_base_built_decides_from_keys_without_a_cache)
{
	char *dir = pt_repo("rebuild-all");
	const char *argv[] = { "plan", "--base", "main", "--assume-base-built",
			       "--json", NULL };
	json_t *p;

	change(dir, "pb/b.py", "b = 2\n");
	p = pt_json(dir, argv);
	cr_expect_str_eq(pt_str(p, "mode"), "assume-base-built");
	cr_expect(json_is_null(json_object_get(p, "baseline_run")));
	pt_expect(p, W11B, "build", "input-content-changed");
	pt_expect(p, W12B, "build", "input-content-changed");
	pt_expect(p, UB, "test", "upstream-rebuilt");
	pt_expect(p, W11A, "reuse", "reused");
	pt_expect(p, W12A, "reuse", "reused");
	pt_expect(p, UA, "reuse", "reused");
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

/* Editing ripple.yml is not an unclaimed path: the rule field explains. */
Test(e2e_plan, rule_field_change_names_the_field_and_both_texts)
{
	char *dir = pt_repo("rebuild-all");
	char *rules;
	json_t *p, *c;

	pt_record_all(dir, "base1");
	free(pt_sh(dir, "git checkout -q -b pr && sed -i "
			"'s/command: \\[build,/command: [build2,/' ripple.yml"));
	cr_assert_eq(t_git_commit(dir, "rule"), 0);
	rules = pt_sh(dir, "grep -c build2 ripple.yml");
	cr_assert_str_eq(rules, "1");
	free(rules);
	p = plan_main(dir);
	cr_expect(json_is_null(json_object_get(p, "forced")));
	cr_expect_eq(json_array_size(json_object_get(p, "unclaimed_paths")), 0);
	pt_expect(p, W11A, "build", "rule-changed");
	pt_expect(p, W12B, "build", "rule-changed");
	pt_expect(p, UA, "test", "upstream-rebuilt");
	c = first_change(p, W11A);
	cr_expect_str_eq(pt_str(c, "kind"), "rule");
	cr_expect_str_eq(pt_str(c, "name"), "command");
	cr_expect_str_eq(pt_str(c, "old"), "[\"build\",\"pa\",\"3.11\"]");
	cr_expect_str_eq(pt_str(c, "new"), "[\"build2\",\"pa\",\"3.11\"]");
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

/* A toolkit pin: only its nodes rebuild; a root cause is no cascade. */
Test(e2e_plan, toolkit_pin_change_rebuilds_only_that_toolkits_nodes)
{
	char *dir = pt_repo("rebuild-all");
	json_t *p, *c;

	pt_record_all(dir, "base1");
	free(pt_sh(dir, "git checkout -q -b pr && sed -i "
			"'s/version: \"2.0.0\"/version: \"2.0.1\"/' ripple.yml"));
	cr_assert_eq(t_git_commit(dir, "pin"), 0);
	p = plan_main(dir);
	pt_expect(p, W11B, "build", "toolkit-changed");
	pt_expect(p, W12B, "build", "toolkit-changed");
	pt_expect(p, W11A, "reuse", "reused");
	pt_expect(p, W12A, "reuse", "reused");
	pt_expect(p, UA, "reuse", "reused");
	/* unit[root=b] runs with root b's toolkit: a root cause itself. */
	pt_expect(p, UB, "test", "toolkit-changed");
	cr_expect_null(pt_str(pt_node(p, UB), "cascade_of"),
		       "a root cause is not a cascade");
	c = first_change(p, W11B);
	cr_expect_str_eq(pt_str(c, "kind"), "toolkit");
	cr_expect_str_eq(pt_str(c, "name"), "tkb");
	cr_expect(strstr(pt_str(c, "old"), "2.0.0") != NULL);
	cr_expect(strstr(pt_str(c, "new"), "2.0.1") != NULL);
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan, symlink_retargeted)
{
	char *dir = pt_repo("rebuild-all");
	json_t *p, *c;

	pt_record_all(dir, "base1");
	free(pt_sh(dir, "git checkout -q -b pr && ln -sfn other.py pa/link"));
	cr_assert_eq(t_git_commit(dir, "retarget"), 0);
	p = plan_main(dir);
	pt_expect(p, W11A, "build", "symlink-retargeted");
	c = first_change(p, W11A);
	cr_expect_str_eq(pt_str(c, "path"), "pa/link");
	cr_expect_str_eq(pt_str(c, "status"), "retargeted");
	cr_expect_str_eq(pt_str(c, "old"), "a.py");
	cr_expect_str_eq(pt_str(c, "new"), "other.py");
	pt_expect(p, W11B, "reuse", "reused");
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan, file_added_to_a_root_is_input_added)
{
	char *dir = pt_repo("rebuild-all");
	char *id;
	json_t *p, *c;

	pt_record_all(dir, "base1");
	change(dir, "pb/new.py", "new = 1\n");
	id = pt_sh(dir, "git rev-parse HEAD:pb/new.py");
	p = plan_main(dir);
	pt_expect(p, W11B, "build", "input-added");
	c = first_change(p, W11B);
	cr_expect_str_eq(pt_str(c, "path"), "pb/new.py");
	cr_expect_str_eq(pt_str(c, "status"), "added");
	cr_expect_null(pt_str(c, "old"));
	cr_expect_str_eq(pt_str(c, "new"), id);
	pt_expect(p, W11A, "reuse", "reused");
	json_decref(p);
	free(id);
	t_rmtree(dir);
	free(dir);
}

Test(e2e_plan, file_removed_from_a_root_is_input_removed)
{
	char *dir = pt_repo("rebuild-all");
	char *id = NULL;
	json_t *p, *c;

	pt_record_all(dir, "base1");
	id = pt_sh(dir, "git rev-parse HEAD:pa/other.py");
	free(pt_sh(dir, "git checkout -q -b pr && git rm -q pa/other.py"));
	cr_assert_eq(t_git_commit(dir, "rm"), 0);
	p = plan_main(dir);
	pt_expect(p, W12A, "build", "input-removed");
	c = first_change(p, W12A);
	cr_expect_str_eq(pt_str(c, "path"), "pa/other.py");
	cr_expect_str_eq(pt_str(c, "status"), "removed");
	cr_expect_str_eq(pt_str(c, "old"), id);
	cr_expect_null(pt_str(c, "new"));
	json_decref(p);
	free(id);
	t_rmtree(dir);
	free(dir);
}

/*
 * The baseline commit is recorded on a branch a single-branch clone does
 * not fetch: `why` still names the file and both blob ids, from the
 * manifests stored with the run.
 */
Test(e2e_plan, why_works_when_the_baseline_commit_left_the_clone)
{
	char *dir = pt_repo("rebuild-all");
	char cache[4096], clone_cmd[8192];
	const char *argv[] = { "why", W11A, "--baseline-run", "gone",
			       "--cache", cache, "--json", NULL };
	char *old_id, *gone, *new_id, *tmp, clone[4096];
	struct run_result r;
	json_t *w, *c;

	change(dir, "pa/a.py", "a = 'gone'\n");
	pt_record_all(dir, "gone");
	old_id = pt_sh(dir, "git rev-parse HEAD:pa/a.py");
	gone = pt_sh(dir, "git rev-parse HEAD");
	snprintf(cache, sizeof(cache), "%s/.ripple/cache.db", dir);
	tmp = t_tmpdir();
	snprintf(clone, sizeof(clone), "%s/c", tmp);
	snprintf(clone_cmd, sizeof(clone_cmd),
		 "git clone -q --no-local --single-branch --branch main '%s' c && cd c && "
		 "git config user.email t@t && git config user.name t && "
		 "echo 'a = 4' > pa/a.py && git commit -qam head && "
		 "! git cat-file -e %s 2>/dev/null", dir, gone);
	free(pt_sh(tmp, clone_cmd));
	new_id = pt_sh(clone, "git rev-parse HEAD:pa/a.py");
	w = pt_json(clone, argv);
	cr_expect_str_eq(pt_str(w, "baseline_run"), "gone");
	cr_expect_str_eq(pt_str(json_object_get(w, "node"), "reason"),
			 "input-content-changed");
	c = json_array_get(json_object_get(json_object_get(w, "node"),
					   "changes"), 0);
	cr_expect_str_eq(pt_str(c, "path"), "pa/a.py");
	cr_expect_str_eq(pt_str(c, "old"), old_id);
	cr_expect_str_eq(pt_str(c, "new"), new_id);
	argv[6] = NULL;
	r = t_ripple(clone, argv);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, old_id) && strstr(r.out, new_id), "%s",
		  r.out);
	t_result_release(&r);
	json_decref(w);
	free(old_id);
	free(new_id);
	free(gone);
	t_rmtree(tmp);
	free(tmp);
	t_rmtree(dir);
	free(dir);
}

/*
 * A baseline record that came from another trust domain (a pull
 * request's, in its metadata) serves no reader of the trusted one: the
 * plan rebuilds the node, saying why (record-in-other-trust-domain, not
 * new-node), and `why`, which reads the baseline's records node by node,
 * decides the same (it once took them whole, as the plan does, and the
 * two paths must check alike).
 */
Test(e2e_plan, why_reads_no_record_of_another_trust_domain)
{
	char *dir = pt_repo("rebuild-all");
	const char *argv[] = { "why", W11A, "--json", "--base", "main", NULL };
	const char *ids[] = { W12A, W11B, W12B, UA };
	json_t *p, *w, *n;
	size_t i;

	pt_record(dir, "base1", W11A, "ok", "--meta=trust-domain=pr-1");
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		pt_record(dir, "base1", ids[i], "ok", "");
	pt_record(dir, "base1", UB, "failed", "");
	pt_finish(dir, "base1");
	change(dir, "docs/index.md", "# only docs\n");
	p = plan_main(dir);
	pt_expect(p, W11A, "build", "record-in-other-trust-domain");
	pt_expect(p, W11B, "reuse", "reused");
	w = pt_json(dir, argv);
	n = json_object_get(w, "node");
	cr_expect_str_eq(pt_str(n, "decision"),
			 pt_str(pt_node(p, W11A), "decision"));
	cr_expect_str_eq(pt_str(n, "reason"), "record-in-other-trust-domain");
	/* Counted from each record's node and status alone: 5 of 6 ok. */
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(
		w, "baseline_coverage"), "covered")), 5);
	cr_expect(json_equal(json_object_get(w, "baseline_coverage"),
			     json_object_get(p, "baseline_coverage")));
	argv[1] = W11B;
	json_decref(w);
	w = pt_json(dir, argv);
	cr_expect_str_eq(pt_str(json_object_get(w, "node"), "reason"),
			 "reused");
	json_decref(w);
	json_decref(p);
	t_rmtree(dir);
	free(dir);
}
