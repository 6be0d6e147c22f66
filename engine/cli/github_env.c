/*
 * What a GitHub Actions job's environment says about the ref it works
 * for: the ref (so a pull request's detached merge checkout is the pull
 * request's trust domain, not "no ref") and the repository's default
 * branch (trusted by default). Reads GITHUB_ACTIONS, GITHUB_EVENT_NAME,
 * GITHUB_REF and the event payload at GITHUB_EVENT_PATH; writes nothing.
 * Sources: GitHub's "Events that trigger workflows" (GITHUB_REF per
 * event) and the webhook payloads (pull_request.number,
 * repository.default_branch).
 */
#include "engine/cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/banned.h"

/* The most bytes of an event payload read (GitHub's are far smaller). */
#define EVENT_MAX (25u << 20)

static int
in_actions(void)
{
	const char *v = getenv("GITHUB_ACTIONS");

	return v && !strcmp(v, "true");
}

/* The event payload, or NULL (no file, not JSON, too large). */
static json_t *
event_payload(void)
{
	const char *path = getenv("GITHUB_EVENT_PATH");

	if (!path || !path[0])
		return NULL;
	return json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
}

/* Whether the event is about a pull request (GITHUB_REF refs/pull/N/...). */
static int
pull_request_event(const char *event)
{
	return !strcmp(event, "pull_request") ||
	       !strcmp(event, "pull_request_review") ||
	       !strcmp(event, "pull_request_review_comment") ||
	       !strcmp(event, "pull_request_target");
}

/* The pull request's number from the payload: 1 and *out, else 0. */
static int
pr_number(json_int_t *out)
{
	json_t *ev = event_payload(), *pr, *num;
	int found = 0;

	if (!ev)
		return 0;
	pr = json_object_get(ev, "pull_request");
	num = json_object_get(pr, "number");
	if (!json_is_integer(num))
		num = json_object_get(ev, "number");
	if (json_is_integer(num) && json_integer_value(num) > 0) {
		*out = json_integer_value(num);
		found = 1;
	}
	json_decref(ev);
	return found;
}

/* Whether ref is "refs/pull/DIGITS/" and more. */
static int
pull_ref(const char *ref)
{
	size_t k = 10;

	if (strncmp(ref, "refs/pull/", 10))
		return 0;
	while (ref[k] >= '0' && ref[k] <= '9')
		k++;
	return k > 10 && ref[k] == '/';
}

int
cli_github_ref(char *out, size_t n)
{
	const char *event = getenv("GITHUB_EVENT_NAME");
	const char *ref = getenv("GITHUB_REF");
	json_int_t num;
	int len;

	if (n)
		out[0] = '\0';
	if (!in_actions())
		return 0;
	if (event && pull_request_event(event)) {
		/*
		 * pull_request: GITHUB_REF is refs/pull/N/merge. For
		 * pull_request_target it is the base branch, which the
		 * pull request's code must never write as: the number
		 * comes from the payload instead.
		 */
		if (strcmp(event, "pull_request_target") && ref &&
		    pull_ref(ref))
			len = snprintf(out, n, "%s", ref);
		else if (pr_number(&num))
			len = snprintf(out, n, "refs/pull/%lld/merge",
				       (long long)num);
		else
			return 0;
	} else if (ref && !strncmp(ref, "refs/", 5)) {
		len = snprintf(out, n, "%s", ref);
	} else {
		return 0;
	}
	if (len < 0 || (size_t)len >= n) {
		out[0] = '\0';
		return 0;
	}
	return 1;
}

int
cli_github_default_branch(char *out, size_t n)
{
	json_t *ev, *name;
	int len = -1;

	if (n)
		out[0] = '\0';
	if (!in_actions() || !(ev = event_payload()))
		return 0;
	name = json_object_get(json_object_get(ev, "repository"),
			       "default_branch");
	if (json_is_string(name) && json_string_value(name)[0])
		len = snprintf(out, n, "refs/heads/%s",
			       json_string_value(name));
	json_decref(ev);
	if (len < 0 || (size_t)len >= n) {
		if (n)
			out[0] = '\0';
		return 0;
	}
	return 1;
}
