/*
 * Where a CI job's nodes run (jobs.c): the platforms ripple runs on and
 * their operating systems, the default runner labels of a platform, and
 * the check that a node's runner labels send it to a runner where ripple
 * runs as its platform (Linux for linux-64 and linux-aarch64 and for
 * cross-builds with `host: linux-64`; Windows for win-64).
 */
#include "engine/plan/jobs_int.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "engine/plan/jobs.h"
#include "graph/graph.h"
#include "base/banned.h"

static const char *const default_gpu[] = { "self-hosted", "linux", "gpu" };
static const char *const default_gpu_win[] = { "self-hosted", "windows",
						"gpu" };

/* GitHub's hosted image for a platform's jobs without a runners: entry. */
const char *
jobs_default_label(const char *platform)
{
	if (platform && !strcmp(platform, "linux-aarch64"))
		return "ubuntu-24.04-arm";
	if (platform && !strcmp(platform, "win-64"))
		return "windows-latest";
	return "ubuntu-latest";
}

/*
 * The platforms ripple runs on (engine/run's run_host_platform): Linux
 * (build/ripple) and Windows x86_64 (build-windows/ripple.exe,
 * docs/windows.md), each with the operating system its runners have.
 */
static const struct {
	const char *platform;
	const char *os;
} ripple_hosts[] = {
	{ "linux-64", "linux" },
	{ "linux-aarch64", "linux" },
	{ "win-64", "windows" },
};

/* The operating system of a platform ripple runs on, or NULL. */
static const char *
host_os(const char *platform)
{
	size_t i;

	for (i = 0; platform && i < sizeof(ripple_hosts) /
					sizeof(ripple_hosts[0]); i++)
		if (!strcmp(platform, ripple_hosts[i].platform))
			return ripple_hosts[i].os;
	return NULL;
}

int
plan_jobs_host_ok(const char *platform)
{
	return !platform || host_os(platform) != NULL;
}

/*
 * The operating system a runner label names, or NULL for a label that
 * names none (self-hosted labels such as `gpu`): GitHub's hosted images
 * (ubuntu-*, windows-*, macos-*) and the OS labels of self-hosted
 * runners (Linux, Windows, macOS). "macos" is one ripple does not run on.
 */
static const char *
label_os(const char *label)
{
	static const struct {
		const char *prefix;
		const char *os;
	} os[] = {
		{ "ubuntu", "linux" }, { "Ubuntu", "linux" },
		{ "linux", "linux" }, { "Linux", "linux" },
		{ "windows", "windows" }, { "Windows", "windows" },
		{ "macos", "macos" }, { "macOS", "macos" },
	};
	size_t i;

	for (i = 0; i < sizeof(os) / sizeof(os[0]); i++)
		if (!strncmp(label, os[i].prefix, strlen(os[i].prefix)))
			return os[i].os;
	return NULL;
}

/*
 * Where the node would run must be a place ripple runs, as the platform
 * it runs as: a Linux platform on Linux runners, win-64 on Windows
 * runners (or a cross-build: runners: P: {host: linux-64} on Linux
 * runners). A node that cannot run where its labels send it is refused
 * here, at plan time, rather than sent to a runner where the job can only
 * fail (`ripple run --job` refuses a job of another platform).
 */
int
jobs_check_host(struct work *w, size_t i, struct error *err)
{
	const struct graph_node *n = &w->g->nodes[i];
	const struct info *in = &w->in[i];
	const char *pf = in->platform, *os = host_os(in->host), *l = NULL;
	size_t k;

	for (k = 0; k < in->n_labels; k++) {
		l = label_os(in->labels[k]);
		if (l && (!strcmp(l, "macos") || (os && strcmp(l, os))))
			break;
	}
	if (plan_jobs_host_ok(in->host) && k == in->n_labels)
		return 0;
	if (!plan_jobs_host_ok(in->host)) {
		error_set(err, ERROR_INVALID, "%s is a %s node and no runner "
			  "ripple runs on is given for %s (ripple runs on "
			  "linux-64, linux-aarch64 and win-64)", n->id,
			  pf, pf);
		error_node(err, n->id);
		error_hint(err, "build %s on a platform ripple runs on (a "
			   "cross-build): in the rules, runners: {%s: "
			   "{runs-on: [ubuntu-24.04], host: linux-64}}; or "
			   "leave %s nodes out of this target", pf, pf, pf);
		return ERROR_INVALID;
	}
	if (!strcmp(l, "macos"))
		error_set(err, ERROR_INVALID, "%s would run on runners "
			  "labelled '%s', where ripple cannot run (ripple "
			  "runs on Linux and Windows; a macOS build does not "
			  "exist)", n->id, in->labels[k]);
	else if (strcmp(in->host, pf))
		error_set(err, ERROR_INVALID, "%s would run on runners "
			  "labelled '%s' (%s), but its platform %s is built "
			  "as %s (runners: %s: {host: %s}), which runs on %s "
			  "runners", n->id, in->labels[k], l, pf, in->host,
			  pf, in->host, os);
	else
		error_set(err, ERROR_INVALID, "%s would run on runners "
			  "labelled '%s' (%s), but a %s node runs on %s "
			  "runners (ripple run --job refuses a job of another "
			  "platform)", n->id, in->labels[k], l, pf, os);
	error_node(err, n->id);
	if (!strcmp(l, "macos"))
		error_hint(err, "give %s Linux or Windows runner labels "
			   "(runners: or the rule's runs-on)",
			   pf ? pf : "these nodes");
	else if (!strcmp(os, "windows"))
		error_hint(err, "give %s Windows runner labels (runners: %s: "
			   "{runs-on: [windows-latest]}); or "
			   "build it on Linux with runners: %s: {runs-on: "
			   "[ubuntu-24.04], host: linux-64}", pf, pf, pf);
	else if (pf && !strncmp(pf, "win-", 4))
		error_hint(err, "a cross-build (host: %s) runs on Linux "
			   "runners: give runners: %s: Linux labels, or drop "
			   "host: to run %s on Windows runners", in->host, pf,
			   pf);
	else
		error_hint(err, "give %s Linux runner labels (runners: %s: "
			   "{runs-on: [ubuntu-24.04]}) or the rule's runs-on",
			   pf ? pf : "these nodes", pf ? pf : "default");
	return ERROR_INVALID;
}

const char **
jobs_default_gpu_labels(const char *host, size_t *n)
{
	const char *os = host_os(host);

	*n = 3;
	return os && !strcmp(os, "windows") ? (const char **)default_gpu_win
					     : (const char **)default_gpu;
}
