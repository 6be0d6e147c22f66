/*
 * The field tables of the rules model (rules/model_image.h), one per
 * struct of rules/rules.h in declaration order, every field listed: the
 * scalars too, so image_type_check sees that nothing was left out.
 */
#include "rules/model_image.h"

#include <stddef.h>

#include "rules/rules.h"
#include "base/banned.h"

#define POD(T, f) IMAGE_POD_F(T, f)
#define STR(T, f) IMAGE_STR_F(T, f)
#define STRS(T, f, n) IMAGE_STRS_F(T, f, n)

static const struct image_field pos_f[] = {
	POD(struct rules_pos, line),
	POD(struct rules_pos, col),
};
static const struct image_type pos_t =
	IMAGE_TYPE(struct rules_pos, "rules_pos", pos_f, 0);

#define T struct rules_kv
static const struct image_field kv_f[] = {
	STR(T, key), STR(T, value), POD(T, pos),
};
#undef T
const struct image_type rules_image_kv =
	IMAGE_TYPE(struct rules_kv, "rules_kv", kv_f, 0);

#define T struct rules_toolkit
static const struct image_field toolkit_f[] = {
	STR(T, name), STR(T, version), POD(T, major), POD(T, minor),
	POD(T, patch), POD(T, has_patch), STR(T, home), POD(T, pos),
};
#undef T
const struct image_type rules_image_toolkit =
	IMAGE_TYPE(struct rules_toolkit, "rules_toolkit", toolkit_f, 1);

#define T struct rules_root
static const struct image_field root_f[] = {
	STR(T, name), STR(T, path), IMAGE_ENUM_F(T, role, 2), STR(T, toolkit),
	STRS(T, tags, n_tags), POD(T, n_tags),
	STRS(T, exclude_tags, n_exclude_tags), POD(T, n_exclude_tags),
	STR(T, tag_prefix), STR(T, fallback_version),
	POD(T, fallback_pretend), POD(T, node_length),
	IMAGE_ENUM_F(T, tag_spelling, 1), STR(T, tag_regex),
	POD(T, tag_regex_pos), POD(T, tags_follow_toolkit),
	IMAGE_ENUM_F(T, version_source, 2), STR(T, version_file),
	STRS(T, exclude, n_exclude), POD(T, n_exclude),
	STRS(T, tests, n_tests), POD(T, n_tests), POD(T, pos),
};
#undef T
const struct image_type rules_image_root =
	IMAGE_TYPE(struct rules_root, "rules_root", root_f, 1);

#define T struct rules_source
static const struct image_field source_f[] = {
	STR(T, name), STRS(T, paths, n_paths), POD(T, n_paths),
	STRS(T, exclude, n_exclude), POD(T, n_exclude), POD(T, pos),
};
#undef T
static const struct image_type source_t =
	IMAGE_TYPE(struct rules_source, "rules_source", source_f, 0);

#define T struct rules_axis
static const struct image_field axis_f[] = {
	STR(T, name), STRS(T, values, n_values), POD(T, n_values),
	STRS(T, experimental, n_experimental), POD(T, n_experimental),
	POD(T, pos),
};
#undef T
static const struct image_type axis_t =
	IMAGE_TYPE(struct rules_axis, "rules_axis", axis_f, 0);

#define T struct rules_each_axis
static const struct image_field each_axis_f[] = {
	STR(T, axis), STRS(T, values, n_values), POD(T, n_values),
	STR(T, ref), POD(T, pos),
};
#undef T
static const struct image_type each_axis_t =
	IMAGE_TYPE(struct rules_each_axis, "rules_each_axis", each_axis_f, 0);

#define T struct rules_combo
static const struct image_field combo_f[] = {
	IMAGE_ARRAY_F(T, pairs, rules_image_kv, n_pairs), POD(T, n_pairs),
	POD(T, pos),
};
#undef T
static const struct image_type combo_t =
	IMAGE_TYPE(struct rules_combo, "rules_combo", combo_f, 0);

#define T struct rules_each
static const struct image_field each_f[] = {
	IMAGE_ARRAY_F(T, axes, each_axis_t, n_axes), POD(T, n_axes),
	IMAGE_ARRAY_F(T, include, combo_t, n_include), POD(T, n_include),
	IMAGE_ARRAY_F(T, exclude, combo_t, n_exclude), POD(T, n_exclude),
};
#undef T
static const struct image_type each_t =
	IMAGE_TYPE(struct rules_each, "rules_each", each_f, 0);

#define T struct rules_dep
static const struct image_field dep_f[] = {
	IMAGE_ENUM_F(T, kind, RULES_DEP_TEST), STR(T, name), STR(T, group),
	IMAGE_ARRAY_F(T, where, rules_image_kv, n_where), POD(T, n_where),
	POD(T, pos),
};
#undef T
static const struct image_type dep_t =
	IMAGE_TYPE(struct rules_dep, "rules_dep", dep_f, 0);

#define T struct rules_gpu
static const struct image_field gpu_f[] = {
	POD(T, count), POD(T, min_cc_major), POD(T, min_cc_minor),
	POD(T, min_memory_mb), STRS(T, runs_on, n_runs_on),
	POD(T, n_runs_on), POD(T, pos),
};
#undef T
static const struct image_type gpu_t =
	IMAGE_TYPE(struct rules_gpu, "rules_gpu", gpu_f, 0);

#define T struct rules_container
static const struct image_field container_f[] = {
	STR(T, image), STR(T, options), POD(T, pos),
};
#undef T
static const struct image_type container_t =
	IMAGE_TYPE(struct rules_container, "rules_container", container_f, 0);

#define T struct rules_output_group
static const struct image_field group_f[] = {
	STR(T, name), STRS(T, outputs, n_outputs), POD(T, n_outputs),
	POD(T, pos),
};
#undef T
static const struct image_type group_t =
	IMAGE_TYPE(struct rules_output_group, "rules_output_group", group_f,
		   0);

#define T struct rules_node
static const struct image_field node_f[] = {
	IMAGE_ENUM_F(T, kind, RULES_NODE_TEST), STR(T, name),
	IMAGE_EMBED_F(T, each, each_t),
	IMAGE_ARRAY_F(T, deps, dep_t, n_deps), POD(T, n_deps),
	STR(T, toolkit), STRS(T, command, n_command), POD(T, n_command),
	POD(T, shell), STR(T, builtin),
	IMAGE_ARRAY_F(T, env, rules_image_kv, n_env), POD(T, n_env),
	STR(T, cwd), POD(T, cwd_pos), STRS(T, outputs, n_outputs),
	IMAGE_ARRAY_F(T, output_pos, pos_t, n_outputs), POD(T, n_outputs),
	IMAGE_ARRAY_F(T, groups, group_t, n_groups), POD(T, n_groups),
	STRS(T, pass_env, n_pass_env), POD(T, n_pass_env),
	IMAGE_EMBED_F(T, container, container_t),
	STRS(T, runs_on, n_runs_on), POD(T, n_runs_on),
	STRS(T, rewrites, n_rewrites),
	IMAGE_ARRAY_F(T, rewrite_pos, pos_t, n_rewrites), POD(T, n_rewrites),
	POD(T, timeout_ms), IMAGE_EMBED_F(T, gpu, gpu_t), STR(T, version),
	POD(T, cutoff_payload), STR(T, version_group),
	IMAGE_ARRAY_F(T, meta, rules_image_kv, n_meta), POD(T, n_meta),
	POD(T, pos),
};
#undef T
const struct image_type rules_image_node =
	IMAGE_TYPE(struct rules_node, "rules_node", node_f, 1);

#define T struct rules_meta_check
static const struct image_field meta_check_f[] = {
	STR(T, artifact), STR(T, key), STR(T, value), STR(T, final),
	STR(T, dev), POD(T, pos),
};
#undef T
static const struct image_type meta_check_t =
	IMAGE_TYPE(struct rules_meta_check, "rules_meta_check", meta_check_f,
		   0);

#define T struct rules_release
static const struct image_field release_f[] = {
	STR(T, name), IMAGE_EMBED_F(T, each, each_t), STR(T, tag),
	STRS(T, artifacts, n_artifacts), POD(T, n_artifacts),
	STRS(T, exclude, n_exclude), POD(T, n_exclude), STR(T, notes),
	POD(T, notes_skip_post), STRS(T, notes_from, n_notes_from),
	POD(T, n_notes_from),
	IMAGE_ARRAY_F(T, require_meta, meta_check_t, n_require_meta),
	POD(T, n_require_meta), STRS(T, tests, n_tests), POD(T, n_tests),
	POD(T, pos),
};
#undef T
const struct image_type rules_image_release =
	IMAGE_TYPE(struct rules_release, "rules_release", release_f, 1);

#define T struct rules_target
static const struct image_field target_f[] = {
	STR(T, name), STRS(T, refs, n_refs), POD(T, n_refs), POD(T, pos),
};
#undef T
static const struct image_type target_t =
	IMAGE_TYPE(struct rules_target, "rules_target", target_f, 0);

#define T struct rules_value_ref
static const struct image_field value_ref_f[] = {
	IMAGE_ENUM_F(T, kind, RULES_VALUE_LITERAL), STR(T, file),
	STR(T, path), STR(T, regex), STR(T, literal), POD(T, pos),
};
#undef T
static const struct image_type value_ref_t =
	IMAGE_TYPE(struct rules_value_ref, "rules_value_ref", value_ref_f, 0);

#define T struct rules_check
static const struct image_field check_f[] = {
	STR(T, name), IMAGE_ARRAY_F(T, values, value_ref_t, n_values),
	POD(T, n_values), POD(T, same_content),
	STRS(T, same_paths, n_same_paths), POD(T, n_same_paths),
	STRS(T, same_roots, n_same_roots), POD(T, n_same_roots),
	POD(T, pos),
};
#undef T
static const struct image_type check_t =
	IMAGE_TYPE(struct rules_check, "rules_check", check_f, 0);

#define T struct rules_policy
static const struct image_field policy_f[] = {
	IMAGE_ENUM_F(T, unclaimed_paths, RULES_UNCLAIMED_IGNORE),
	STRS(T, ignore, n_ignore), POD(T, n_ignore),
	IMAGE_ENUM_F(T, reuse, RULES_REUSE_NONE), POD(T, max_nodes),
	POD(T, max_edges),
	IMAGE_ENUM_F(T, reuse_versions, RULES_REUSE_VERSIONS_EXACT),
	STRS(T, trusted_refs, n_trusted_refs), POD(T, n_trusted_refs),
	POD(T, pos),
};
#undef T
static const struct image_type policy_t =
	IMAGE_TYPE(struct rules_policy, "rules_policy", policy_f, 0);

#define T struct rules_runner
static const struct image_field runner_f[] = {
	STR(T, platform), STRS(T, runs_on, n_runs_on), POD(T, n_runs_on),
	STRS(T, gpu_runs_on, n_gpu_runs_on), POD(T, n_gpu_runs_on),
	STR(T, host), POD(T, pos),
};
#undef T
static const struct image_type runner_t =
	IMAGE_TYPE(struct rules_runner, "rules_runner", runner_f, 0);

#define T struct rules
#define SECTION(f, t) IMAGE_ARRAY_F(T, f, t, n_##f), POD(T, n_##f)
static const struct image_field rules_f[] = {
	IMAGE_ZERO_F(T, file), IMAGE_ZERO_F(T, text), IMAGE_ZERO_F(T, text_len),
	POD(T, version),
	SECTION(toolkits, rules_image_toolkit),
	SECTION(roots, rules_image_root),
	SECTION(sources, source_t),
	SECTION(axes, axis_t),
	SECTION(artifacts, rules_image_node),
	SECTION(tests, rules_image_node),
	SECTION(releases, rules_image_release),
	SECTION(targets, target_t),
	SECTION(checks, check_t),
	SECTION(runners, runner_t),
	IMAGE_EMBED_F(T, policy, policy_t),
	IMAGE_ZERO_F(T, index), IMAGE_ZERO_F(T, arena),
};
#undef SECTION
#undef T
const struct image_type rules_image_rules =
	IMAGE_TYPE(struct rules, "rules", rules_f, 0);
