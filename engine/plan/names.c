/*
 * The closed vocabularies of plans as tables: decision, reason and file
 * status names, as JSON and text outputs spell them (docs/plan.md).
 */
#include "engine/plan/plan.h"

#include "base/banned.h"

static const char *const decision_names[] = {
	[PLAN_BUILD] = "build", [PLAN_TEST] = "test",
	[PLAN_REUSE] = "reuse", [PLAN_SKIP] = "skip",
	[PLAN_BLOCKED] = "blocked", [PLAN_DEFERRED] = "deferred",
	[PLAN_REMOTE] = "remote",
};

static const char *const reason_names[] = {
	[PLAN_REASON_REUSED] = "reused",
	[PLAN_REASON_NEW_NODE] = "new-node",
	[PLAN_REASON_INPUT_CHANGED] = "input-content-changed",
	[PLAN_REASON_INPUT_ADDED] = "input-added",
	[PLAN_REASON_INPUT_REMOVED] = "input-removed",
	[PLAN_REASON_SYMLINK_RETARGETED] = "symlink-retargeted",
	[PLAN_REASON_RULE_CHANGED] = "rule-changed",
	[PLAN_REASON_TOOLKIT_CHANGED] = "toolkit-changed",
	[PLAN_REASON_UPSTREAM_REBUILT] = "upstream-rebuilt",
	[PLAN_REASON_NO_BASELINE] = "no-baseline-run",
	[PLAN_REASON_BASELINE_FAILED] = "baseline-record-failed",
	[PLAN_REASON_ARTIFACT_MISSING] = "key-equal-artifact-missing",
	[PLAN_REASON_FORCED] = "forced",
	[PLAN_REASON_KEY_CHANGED] = "key-changed",
	[PLAN_REASON_NOT_SELECTED] = "not-selected",
	[PLAN_REASON_NOT_REPRODUCIBLE] = "output-not-reproducible",
	[PLAN_REASON_VERSION_DIFFERS] = "version-differs",
	[PLAN_REASON_VERSION_GROUP] = "version-group",
	[PLAN_REASON_BASELINE_DEFERRED] = "baseline-deferred",
	[PLAN_REASON_RECORD_CONFLICT] = "key-equal-record-conflict",
	[PLAN_REASON_OTHER_DOMAIN] = "record-in-other-trust-domain",
};

static const char *const file_status_names[] = {
	[PLAN_FILE_MODIFIED] = "modified", [PLAN_FILE_ADDED] = "added",
	[PLAN_FILE_REMOVED] = "removed", [PLAN_FILE_RETARGETED] = "retargeted",
	[PLAN_FILE_MODE] = "mode",
};

const char *
plan_decision_name(enum plan_decision d)
{
	return decision_names[d];
}

const char *
plan_reason_name(enum plan_reason r)
{
	return reason_names[r];
}

const char *
plan_file_status_name(enum plan_file_status s)
{
	return file_status_names[s];
}
