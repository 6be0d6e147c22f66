/*
 * The rules model: fields and defaults, positions, sorted lists, aliases
 * and merge keys, deep nesting, a big file, and out-of-memory at every
 * allocation of a load.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "rules/load.h"
#include "rules/rules.h"
#include "tests/support/support.h"

static struct rules *
load_ok(const char *text)
{
	struct error_list errs;
	struct rules *r = NULL;
	int rc;

	error_list_init(&errs, 0);
	rc = rules_load_buffer("t.yml", text, strlen(text), &r, &errs);
	cr_assert_eq(rc, 0, "load failed: %s:%u:%u: %s",
		     errs.n ? errs.items[0].file : "", errs.n ? errs.items[0].line : 0,
		     errs.n ? errs.items[0].col : 0, errs.n ? errs.items[0].msg : "");
	cr_assert_eq(errs.n, 0);
	error_list_release(&errs);
	return r;
}

static char *
demo_text(void)
{
	char path[4096];
	char *t;

	snprintf(path, sizeof(path), "%s/examples/cuda-bindings/ripple.yml",
		 t_srcdir());
	t = t_read(path);
	cr_assert_not_null(t);
	return t;
}

Test(rules_load, demo_fields_are_parsed)
{
	char *text = demo_text();
	struct rules *r = load_ok(text);
	const struct rules_toolkit *tk = rules_find_toolkit(r, "ctk12");
	const struct rules_root *b12 = rules_find_root(r, "bindings-12");
	const struct rules_root *b13 = rules_find_root(r, "bindings-13");
	const struct rules_node *cv = rules_find_artifact(r, "core-variant");
	const struct rules_node *gpu = rules_find_test(r, "bindings-gpu");
	const struct rules_release *rel = rules_find_release(r, "bindings");
	const struct rules_axis *py = rules_find_axis(r, "python");

	cr_assert(tk && b12 && b13 && cv && gpu && rel && py);
	cr_expect_eq(r->version, 1);
	cr_expect_eq(tk->major, 12);
	cr_expect_eq(tk->minor, 9);
	cr_expect_eq(tk->patch, 1);
	cr_expect_str_eq(tk->home, "/usr/local/cuda-12.9");
	cr_expect_str_eq(b12->path, "cuda_bindings_12");
	cr_expect_eq(b12->role, RULES_ROLE_MAINTENANCE);
	cr_expect_str_eq(b12->tags[0], "v12.9.*");
	cr_expect_str_eq(b12->exclude_tags[0], "v12.9.0");
	cr_expect_str_eq(b12->fallback_version, "12.9.10.dev0");
	cr_expect_eq(b12->fallback_pretend, 1);
	cr_expect_str_eq(b12->tag_prefix, "v");
	cr_expect_eq(b13->role, RULES_ROLE_CURRENT);
	cr_expect_eq(py->n_values, 6);
	cr_expect_eq(py->n_experimental, 1);
	cr_expect_str_eq(py->experimental[0], "3.14t");
	/* each axes sorted by name; where sorted by key */
	cr_assert_eq(cv->each.n_axes, 3);
	cr_expect_str_eq(cv->each.axes[0].axis, "cuda");
	cr_expect_str_eq(cv->each.axes[1].axis, "platform");
	cr_expect_str_eq(cv->each.axes[2].axis, "python");
	cr_expect_str_eq(cv->each.axes[2].ref, "axes.python");
	cr_expect_str_eq(cv->toolkit, "toolkits[major=${cuda}]");
	cr_assert_eq(cv->n_deps, 3);
	cr_expect_eq(cv->deps[0].kind, RULES_DEP_SOURCE);
	cr_expect_eq(cv->deps[2].kind, RULES_DEP_ARTIFACT);
	cr_expect_str_eq(cv->deps[2].name, "bindings-wheel");
	cr_assert_eq(cv->deps[2].n_where, 1);
	cr_expect_str_eq(cv->deps[2].where[0].key, "root");
	cr_expect_str_eq(cv->deps[2].where[0].value, "roots[toolkit.major=${cuda}]");
	cr_assert_eq(cv->n_env, 3);
	cr_expect_str_eq(cv->env[0].key, "CUDA_CORE_BUILD_MAJOR");
	cr_expect_str_eq(cv->env[1].key, "CUDA_HOME");
	cr_expect_str_eq(cv->env[2].key, "CUDA_VERSION");
	cr_expect_eq(gpu->gpu.count, 1);
	cr_expect_eq(gpu->gpu.min_cc_major, 7);
	cr_expect_eq(gpu->gpu.min_cc_minor, 5);
	cr_expect_eq(gpu->gpu.min_memory_mb, 4096);
	cr_expect_eq(gpu->timeout_ms, 30ull * 60 * 1000);
	cr_expect_eq(gpu->each.n_include, 1);
	cr_expect_eq(gpu->deps[1].kind, RULES_DEP_ROOT_TESTS);
	cr_expect_str_eq(rel->tag, "root.tags");
	cr_expect_eq(rel->notes_skip_post, 1);
	cr_expect_eq(rules_find_test(r, "cuda-smoke")->n_command, 0);
	cr_expect_str_eq(rules_find_test(r, "cuda-smoke")->builtin, "cuda-smoke");
	cr_expect_eq(rules_find_artifact(r, "docs")->shell, 0);
	cr_expect_eq(rules_find_test(r, "driver-windows")->shell, 1);
	cr_expect_eq(r->checks[0].values[1].kind, RULES_VALUE_REGEX);
	cr_expect_eq(r->checks[1].values[1].kind, RULES_VALUE_YAML);
	cr_expect_eq(r->policy.unclaimed_paths, RULES_UNCLAIMED_REBUILD_ALL);
	cr_expect_eq(r->policy.n_ignore, 5);
	rules_free(r);
	free(text);
}

Test(rules_load, defaults_and_positions)
{
	struct rules *r = load_ok("version: 1\n"
				  "roots:\n"
				  "  a: {path: pkg/a/, tags: [\"pkg-a-v[0-9]*\"]}\n"
				  "  b: {path: b}\n"
				  "artifacts:\n"
				  "  w:\n"
				  "    command: [x]\n"
				  "    timeout: 90\n"
				  "    gpu: {min-memory: 512}\n");
	const struct rules_root *a = rules_find_root(r, "a");
	const struct rules_node *w = rules_find_artifact(r, "w");

	cr_expect_str_eq(a->path, "pkg/a");
	cr_expect_str_eq(a->tag_prefix, "pkg-a-v");
	cr_expect_eq(a->node_length, 9);
	cr_assert_eq(a->n_exclude, 2);
	cr_expect_str_eq(a->exclude[0], "tests/**");
	cr_expect_str_eq(a->exclude[1], "docs/**");
	cr_assert_eq(a->n_tests, 1);
	cr_expect_str_eq(a->tests[0], "tests/**");
	cr_expect_eq(a->role, RULES_ROLE_NONE);
	cr_expect_null(rules_find_root(r, "b")->tag_prefix);
	cr_expect_eq(a->pos.line, 3);
	cr_expect_eq(a->pos.col, 3);
	cr_expect_eq(w->pos.line, 6);
	cr_expect_eq(w->timeout_ms, 90000);
	cr_expect_eq(w->gpu.count, 1);
	cr_expect_eq(w->gpu.min_memory_mb, 512);
	cr_expect_eq(r->n_targets, 0);
	cr_expect_eq(r->policy.reuse, RULES_REUSE_BASELINE);
	cr_expect_eq(r->policy.reuse_versions, RULES_REUSE_VERSIONS_TAG);
	cr_expect_null(rules_find_root(r, "c"));
	rules_free(r);
}

Test(rules_load, policy_reuse_versions)
{
	struct rules *r = load_ok("version: 1\n"
				  "policy: {reuse-versions: exact}\n");

	cr_expect_eq(r->policy.reuse_versions, RULES_REUSE_VERSIONS_EXACT);
	rules_free(r);
}

Test(rules_load, leading_slash_anchors_a_pattern)
{
	struct rules *r = load_ok("version: 1\n"
				  "roots:\n"
				  "  a: {path: pkg, exclude: [/AGENTS.md]}\n"
				  "sources:\n"
				  "  ci: {paths: [/conftest.py, ci/**]}\n"
				  "policy:\n"
				  "  ignore: [/LICENSE]\n");

	cr_expect_str_eq(rules_find_root(r, "a")->exclude[0], "/AGENTS.md");
	cr_expect_str_eq(r->policy.ignore[0], "/LICENSE");
	rules_free(r);
}

Test(rules_load, policy_trusted_refs_are_globs_over_refs)
{
	struct rules *r = load_ok("version: 1\n"
				  "policy:\n"
				  "  trusted-refs: [refs/heads/main, "
				  "'refs/tags/*']\n");

	cr_assert_eq(r->policy.n_trusted_refs, 2);
	cr_expect_str_eq(r->policy.trusted_refs[0], "refs/heads/main");
	cr_expect_str_eq(r->policy.trusted_refs[1], "refs/tags/*");
	rules_free(r);
	r = load_ok("version: 1\n");
	cr_expect_eq(r->policy.n_trusted_refs, 0, "default: every writer");
	rules_free(r);
}

Test(rules_load, aliases_and_merge_keys)
{
	const struct rules_node *w;

	{
		struct error_list errs;
		struct rules *r2 = NULL;
		const char *t = "version: 1\n"
				"sources:\n"
				"  s: {paths: &p [a/**, b/**]}\n"
				"  t: {paths: *p}\n"
				"artifacts:\n"
				"  w:\n"
				"    <<: {command: [build], timeout: 5m}\n"
				"    timeout: 1h\n";

		error_list_init(&errs, 0);
		cr_assert_eq(rules_load_buffer("t.yml", t, strlen(t), &r2, &errs), 0);
		cr_assert_eq(rules_find_source(r2, "t")->n_paths, 2);
		cr_expect_str_eq(rules_find_source(r2, "t")->paths[1], "b/**");
		w = rules_find_artifact(r2, "w");
		cr_expect_str_eq(w->command[0], "build");
		cr_expect_eq(w->timeout_ms, 3600000ull);
		rules_free(r2);
		error_list_release(&errs);
	}
}

static int
load_fails(const char *text, size_t len, const char *msg_part)
{
	struct error_list errs;
	struct rules *r = NULL;
	int rc, found = 0;
	size_t i;

	error_list_init(&errs, 0);
	rc = rules_load_buffer("t.yml", text, len, &r, &errs);
	cr_expect_null(r);
	for (i = 0; i < errs.n; i++)
		if (strstr(errs.items[i].msg, msg_part))
			found = 1;
	cr_expect(found, "no error containing '%s' (%zu errors, first: %s)",
		  msg_part, errs.n, errs.n ? errs.items[0].msg : "");
	error_list_release(&errs);
	return rc;
}

Test(rules_load, top_level_keys_are_checked)
{
	const char *t = "version: 1\nx-common: &c [a]\n";

	cr_expect_eq(load_fails(t, strlen(t), "unknown key 'x-common'"),
		     ERROR_INVALID);
}

Test(rules_load, ten_megabytes_of_nesting_do_not_exhaust_the_stack)
{
	size_t half = 5 * 1024 * 1024, i;
	char *t = malloc(2 * half + 16);

	cr_assert_not_null(t);
	memcpy(t, "x: ", 3);
	for (i = 0; i < half; i++)
		t[3 + i] = '[';
	for (i = 0; i < half; i++)
		t[3 + half + i] = ']';
	cr_expect_eq(load_fails(t, 3 + 2 * half, "nesting deeper than 64 levels"),
		     ERROR_INVALID);
	/* Block-style nesting too. */
	{
		size_t n = 200, j, len = 0;
		char *b = malloc(n * (n + 4) + 16);

		cr_assert_not_null(b);
		for (i = 0; i < n; i++) {
			for (j = 0; j < i; j++)
				b[len++] = ' ';
			b[len++] = '-';
			b[len++] = '\n';
		}
		b[len] = '\0';
		cr_expect_eq(load_fails(b, len, "nesting deeper than 64 levels"),
			     ERROR_INVALID);
		free(b);
	}
	free(t);
}

Test(rules_load, big_file_loads)
{
	size_t n = 3000, i, len = 0, cap = n * 200 + 256;
	char *t = malloc(cap);
	struct rules *r;

	cr_assert_not_null(t);
	len += (size_t)snprintf(t + len, cap - len,
				"version: 1\naxes:\n  python: [\"3.12\", \"3.13\"]\n"
				"sources:\n  src: {paths: [src/**]}\nartifacts:\n");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(t + len, cap - len,
					"  a%zu:\n    each: {python: axes.python}\n"
					"    inputs: [src%s%zu]\n"
					"    command: [build, \"${python}\", \"%zu\"]\n",
					i, i ? ", a" : "", i ? i - 1 : 0, i);
	/* a0's inputs read "src0": rewrite to a valid list */
	r = NULL;
	{
		char *p = strstr(t, "inputs: [src0]");

		cr_assert_not_null(p);
		memcpy(p, "inputs: [src ]", 14);
	}
	r = load_ok(t);
	cr_expect_eq(r->n_artifacts, n);
	cr_expect_eq(rules_find_artifact(r, "a2999")->n_deps, 2);
	cr_expect_eq(rules_find_artifact(r, "a2999")->deps[1].kind,
		     RULES_DEP_ARTIFACT);
	rules_free(r);
	free(t);
}

Test(rules_load, errors_are_sorted_and_positioned)
{
	struct error_list errs;
	struct rules *r = NULL;
	const char *t = "version: 1\nsources:\n  b: {paths: [\"[\"]}\n"
			"  a: {pahts: [x]}\n";

	error_list_init(&errs, 0);
	cr_assert_eq(rules_load_buffer("f.yml", t, strlen(t), &r, &errs),
		     ERROR_INVALID);
	cr_assert_eq(errs.n, 3);
	cr_expect_eq(errs.items[0].line, 3);
	cr_expect_str_eq(errs.items[0].file, "f.yml");
	cr_expect_eq(errs.items[1].line, 4);
	cr_expect_eq(errs.items[1].col, 3);
	cr_expect_str_eq(errs.items[1].msg, "source 'a' has no 'paths'");
	cr_expect_eq(errs.items[2].col, 7);
	cr_expect_str_eq(errs.items[2].hint, "did you mean 'paths'?");
	error_list_release(&errs);
}

Test(rules_load, missing_file_is_not_found)
{
	struct error_list errs;
	struct rules *r = NULL;

	error_list_init(&errs, 0);
	cr_expect_eq(rules_load_file("/nonexistent/ripple.yml", NULL, NULL, &r,
				     &errs),
		     ERROR_NOT_FOUND);
	cr_expect_null(r);
	cr_expect_eq(errs.n, 1);
	error_list_release(&errs);
}

Test(rules_load, out_of_memory_at_every_allocation)
{
	char *text = demo_text();
	size_t len = strlen(text);
	long n;
	int ok = 0;

	for (n = 0; n < 200000 && !ok; n++) {
		struct error_list errs;
		struct rules *r = NULL;
		int rc;

		error_list_init(&errs, 0);
		mem_fault_after(n);
		rc = rules_load_buffer("t.yml", text, len, &r, &errs);
		mem_fault_after(-1);
		if (rc == 0) {
			cr_expect_not_null(r);
			ok = 1;
		} else {
			cr_expect_null(r);
			cr_expect(rc == ERROR_NOMEM || rc == ERROR_INVALID,
				  "n=%ld rc=%d", n, rc);
		}
		rules_free(r);
		error_list_release(&errs);
	}
	cr_expect(ok, "never loaded");
	cr_expect_gt(n, 10);
	free(text);
}

/* rules_load_what writes what snprintf's "%s '%s'" writes, cut alike. */
Test(rules_load, what_is_snprintfs_text)
{
	static const char *const names[] = { "", "a", "pkg-0037-src",
		"a-name-longer-than-the-buffers-below-by-some-way", NULL };
	char want[64], got[64];
	size_t i, n;

	for (i = 0; names[i]; i++)
		for (n = 1; n <= sizeof(got); n++) {
			memset(want, 'x', sizeof(want));
			memset(got, 'x', sizeof(got));
			snprintf(want, n, "%s '%s'", "artifact", names[i]);
			rules_load_what(got, n, "artifact", names[i]);
			cr_assert_eq(memcmp(want, got, sizeof(got)), 0,
				     "'%s' in %zu bytes: '%s' not '%s'",
				     names[i], n, got, want);
		}
}
