/*
 * main(): global options (-C DIR, --color, --help, --version, the remote
 * cache's, the graph's ceilings), libgit2 and (when a remote cache is used) libcurl start-up,
 * and dispatch to one command. Commands live in engine/cli/<name>.c; what
 * they share for printing is in output.c.
 */
#include "engine/cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "base/error.h"
#include "base/host.h"
#include "base/pool.h"
#include "base/spell.h"
#include "cache/cache.h"
#include "cache/remote.h"
#include "rules/rules.h"
#include "base/banned.h"

#define RIPPLE_VERSION "0.1.0"

static const struct cli_command commands[] = {
	{ "base", cli_base,
	  "the base commit CI compares with, from the GitHub event" },
	{ "cache", cli_cache, "export, import or check the run cache" },
	{ "check", cli_check, "load and validate the rules file" },
	{ "cuda-smoke", cli_cuda_smoke,
	  "compile, link, launch and check a CUDA kernel" },
	{ "devices", cli_devices, "list GPUs and the CUDA driver version" },
	{ "diff", cli_diff, "compare two recorded runs node by node" },
	{ "fetch", cli_fetch,
	  "download reused nodes' outputs from the remote cache" },
	{ "gate", cli_gate,
	  "is this commit's CI complete and green (a status check)" },
	{ "graph", cli_graph, "show the nodes and edges of a target" },
	{ "jobs", cli_jobs, "list the CI jobs a target is cut into" },
	{ "keys", cli_keys, "show node keys and what they hash" },
	{ "plan", cli_plan, "decide what to build, test or reuse" },
	{ "record", cli_record, "record the outcome of nodes run elsewhere" },
	{ "release", cli_release,
	  "check that a tag is releasable (--dry-run; never publishes)" },
	{ "roots", cli_roots, "list the package roots, toolkits and tag families" },
	{ "run", cli_run, "carry out the plan: build, test, record" },
	{ "runs", cli_runs, "list the runs recorded in the cache" },
	{ "toolkits", cli_toolkits,
	  "list CUDA toolkits, where found, and their versions" },
	{ "version", cli_version, "compute a root's version from git tags" },
	{ "why", cli_why, "explain why a node builds, tests or is reused" },
	{ NULL, NULL, NULL },
};

static size_t
command_count(void)
{
	size_t n = 0;

	while (commands[n].name)
		n++;
	return n;
}

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: ripple [-C DIR] COMMAND [ARGS...]\n"
		"\n"
		"ripple: a declarative rules engine over a content-hashed "
		"build graph.\n"
		"\n"
		"commands:\n");
	for (i = 0; commands[i].name; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(f,
		"\n"
		"options:\n"
		"  -C DIR        run as if started in DIR (relative paths "
		"are taken\n"
		"                from DIR; the repository is the one holding "
		"DIR)\n"
		"  --color=WHEN  auto (default: a terminal, not TERM=dumb or "
		"NO_COLOR),\n"
		"                always or never\n"
		"  --remote-cache URL   share records and outputs through a "
		"Bazel HTTP\n"
		"                cache (default $RIPPLE_REMOTE_CACHE; "
		"docs/remote-cache.md)\n"
		"  --remote-read-only   never write to it "
		"($RIPPLE_REMOTE_READ_ONLY=1)\n"
		"  --remote-required    a cache fault is an error, not a "
		"warning\n"
		"                ($RIPPLE_REMOTE_REQUIRED=1); the remote "
		"options may follow\n"
		"                the command too. Writing needs the credential "
		"in\n"
		"                $RIPPLE_REMOTE_CACHE_HEADER (\"Name: value\"); "
		"each ref writes\n"
		"                its own trust domain (--ref, $RIPPLE_REF)\n"
		"  --remote-timeout SECONDS   cut off a request lasting "
		"longer (default\n"
		"                600; 0 none; $RIPPLE_REMOTE_TIMEOUT)\n"
		"  --remote-low-speed BYTES:SECONDS   cut off a request "
		"slower than\n"
		"                BYTES/s for SECONDS (default 1024:30; 0:0 "
		"none;\n"
		"                $RIPPLE_REMOTE_LOW_SPEED)\n"
		"  --max-nodes N raise the ceiling on the graph's nodes "
		"(default 100000;\n"
		"                the rules' policy max-nodes can only lower "
		"it)\n"
		"  --max-edges N raise the ceiling on its edges, one node "
		"needing another\n"
		"                (default 1000000); both may follow the "
		"command too\n"
		"  -h, --help    show this help; `ripple COMMAND --help` for a "
		"command\n"
		"  -V, --version\n"
		"\n"
		"exit codes: 0 ok, 1 failed or not releasable, 2 usage or "
		"invalid rules,\n3 internal or i/o error, 4 (run, cuda-smoke) "
		"only GPU work was deferred\n");
}

enum {
	OPT_REMOTE = 256, OPT_REMOTE_RO, OPT_REMOTE_REQ, OPT_REMOTE_TIMEOUT,
	OPT_REMOTE_LOW_SPEED, OPT_MAX_NODES, OPT_MAX_EDGES,
};

/* A remote option with a value: "--NAME V" or "--NAME=V" at argv[*i]. */
static int
valued(int argc, char **argv, int *i, const char *name, const char **out)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n))
		return 0;
	if (a[n] == '=') {
		*out = a + n + 1;
		return 1;
	}
	if (a[n] || *i + 1 >= argc)
		return a[n] ? 0 : -1;
	*out = argv[++*i];
	return 1;
}

/*
 * The value of --max-nodes or --max-edges: decimal digits within
 * [1, most]. Returns 0, or prints a usage error and returns CLI_USAGE.
 */
static int
ceiling_value(const char *opt, const char *s, unsigned long long most,
	      unsigned long long *out)
{
	unsigned long long v = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9' && v <= most; p++)
		v = v * 10 + (unsigned long long)(*p - '0');
	if (!s[0] || *p || !v || v > most) {
		fprintf(stderr, "ripple: error: %s takes a number from 1 to "
			"%llu, not '%s'\nTry 'ripple --help'.\n", opt, most, s);
		return CLI_USAGE;
	}
	*out = v;
	return 0;
}

static int
env_on(const char *name)
{
	const char *v = getenv(name);

	return v && v[0] && strcmp(v, "0");
}

/*
 * Take the global options that may follow a command (the remote cache's,
 * --max-nodes, --max-edges) out of its arguments (before a "--"), so that
 * `ripple run --remote-cache URL` works like `ripple --remote-cache URL
 * run`. Returns 0, or CLI_USAGE after printing what is wrong. *argc
 * shrinks.
 */
static int
take_global_options(int *argc, char **argv, struct cli_ctx *ctx)
{
	const struct {
		const char *name;
		unsigned long long most, *out;
	} ceilings[] = {
		{ "--max-nodes", RULES_MAX_NODES_LIMIT, &ctx->max_nodes },
		{ "--max-edges", RULES_MAX_EDGES_LIMIT, &ctx->max_edges },
	};
	int i, k = 1, v;
	size_t c, n;

	for (i = 1; i < *argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			while (i < *argc)
				argv[k++] = argv[i++];
			break;
		}
		for (c = 0; c < 2; c++) {
			n = strlen(ceilings[c].name);
			if (strncmp(a, ceilings[c].name, n) ||
			    (a[n] && a[n] != '='))
				continue;
			if (!a[n] && i + 1 >= *argc) {
				fprintf(stderr, "ripple: error: %s needs a "
					"number\n", ceilings[c].name);
				return CLI_USAGE;
			}
			if (ceiling_value(ceilings[c].name,
					  a[n] ? a + n + 1 : argv[++i],
					  ceilings[c].most, ceilings[c].out))
				return CLI_USAGE;
			break;
		}
		if (c < 2)
			continue;
		if (!strcmp(a, "--remote-cache")) {
			if (i + 1 >= *argc) {
				fprintf(stderr, "ripple: error: "
					"--remote-cache needs a URL\n");
				return CLI_USAGE;
			}
			ctx->remote_url = argv[++i];
		} else if (!strncmp(a, "--remote-cache=", 15)) {
			ctx->remote_url = a + 15;
		} else if ((v = valued(*argc, argv, &i, "--remote-timeout",
				       &ctx->remote_timeout)) ||
			   (v = valued(*argc, argv, &i, "--remote-low-speed",
				       &ctx->remote_low_speed))) {
			if (v < 0) {
				fprintf(stderr, "ripple: error: %s needs a "
					"value\n", a);
				return CLI_USAGE;
			}
		} else if (!strcmp(a, "--remote-read-only")) {
			ctx->remote_read_only = 1;
		} else if (!strcmp(a, "--remote-required")) {
			ctx->remote_required = 1;
		} else {
			argv[k++] = argv[i];
		}
	}
	argv[k] = NULL;
	*argc = k;
	return 0;
}

/* A terminal that understands escapes: a TTY, and TERM is not "dumb". */
static int
smart_terminal(int fd)
{
	const char *term = getenv("TERM");

	return isatty(fd) && !(term && !strcmp(term, "dumb"));
}

/*
 * Colour on fd for --color=WHEN (NULL: auto). auto follows ninja and the
 * NO_COLOR convention: a smart terminal, and NO_COLOR unset or empty.
 */
static int
want_color(const char *when, int fd)
{
	const char *nc = getenv("NO_COLOR");

	if (when && !strcmp(when, "always"))
		return 1;
	if (when && !strcmp(when, "never"))
		return 0;
	return smart_terminal(fd) && !(nc && nc[0]);
}

/*
 * The pack files libgit2 may keep open for `open_files` files a process
 * may open (host_open_files; 0: unlimited, which is libgit2's 0 too):
 * all but 32 of them, or half of a limit of 64 or fewer, at least 1.
 */
static size_t
pack_files(size_t open_files)
{
	if (!open_files)
		return 0;
	if (open_files > 64)
		return open_files - 32;
	return open_files / 2 ? open_files / 2 : 1;
}

/* Apply -C DIR as git does: change into it. Returns 0 or CLI_USAGE. */
static int
enter_dir(const char *dir)
{
	struct stat st;

	errno = 0;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || chdir(dir)) {
		fprintf(stderr, "ripple: error: cannot use -C '%s': %s\n", dir,
			errno ? strerror(errno) : "not a directory");
		fprintf(stderr, "  hint: -C names the directory to run in\n");
		return CLI_USAGE;
	}
	return 0;
}

static int
ripple_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "color", optional_argument, NULL, 'c' },
		{ "colour", optional_argument, NULL, 'c' },
		{ "remote-cache", required_argument, NULL, OPT_REMOTE },
		{ "remote-read-only", no_argument, NULL, OPT_REMOTE_RO },
		{ "remote-required", no_argument, NULL, OPT_REMOTE_REQ },
		{ "remote-timeout", required_argument, NULL,
		  OPT_REMOTE_TIMEOUT },
		{ "remote-low-speed", required_argument, NULL,
		  OPT_REMOTE_LOW_SPEED },
		{ "max-nodes", required_argument, NULL, OPT_MAX_NODES },
		{ "max-edges", required_argument, NULL, OPT_MAX_EDGES },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_ctx ctx = { ".", "ripple", NULL, 0, 0, 0, NULL, 0, 0,
			       NULL, NULL, 0, 0 };
	const char *names[64], *color = NULL;
	size_t i, n = command_count();
	int c, rc;

	host_stdio_init();
	ctx.remote_url = getenv("RIPPLE_REMOTE_CACHE");
	ctx.remote_read_only = env_on("RIPPLE_REMOTE_READ_ONLY");
	ctx.remote_required = env_on("RIPPLE_REMOTE_REQUIRED");
	opterr = 0;	/* cli_getopt reports bad options in one form */
	while ((c = cli_getopt(&ctx, NULL, argc, argv, "+C:hV", opts)) !=
	       -1) {
		switch (c) {
		case 'C':
			/* Several -C apply in turn, as git's do. */
			if (enter_dir(optarg))
				return CLI_USAGE;
			break;
		case 'c':
			color = optarg ? optarg : "always";
			if (strcmp(color, "auto") && strcmp(color, "always") &&
			    strcmp(color, "never")) {
				fprintf(stderr, "ripple: error: --color takes "
					"auto, always or never, not '%s'\n"
					"Try 'ripple --help'.\n", color);
				return CLI_USAGE;
			}
			break;
		case OPT_REMOTE: ctx.remote_url = optarg; break;
		case OPT_REMOTE_RO: ctx.remote_read_only = 1; break;
		case OPT_REMOTE_REQ: ctx.remote_required = 1; break;
		case OPT_REMOTE_TIMEOUT: ctx.remote_timeout = optarg; break;
		case OPT_REMOTE_LOW_SPEED: ctx.remote_low_speed = optarg; break;
		case OPT_MAX_NODES:
			if (ceiling_value("--max-nodes", optarg,
					  RULES_MAX_NODES_LIMIT,
					  &ctx.max_nodes))
				return CLI_USAGE;
			break;
		case OPT_MAX_EDGES:
			if (ceiling_value("--max-edges", optarg,
					  RULES_MAX_EDGES_LIMIT,
					  &ctx.max_edges))
				return CLI_USAGE;
			break;
		case 'h':
			usage(stdout);
			return CLI_OK;
		case 'V':
			printf("ripple %s\n", RIPPLE_VERSION);
			return CLI_OK;
		default:
			return CLI_USAGE;
		}
	}
	ctx.color_out = want_color(color, 1);
	ctx.color_err = want_color(color, 2);
	ctx.smart_err = smart_terminal(2);
	if (optind >= argc) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[optind], "help")) {
		if (optind + 1 >= argc) {
			usage(stdout);
			return CLI_OK;
		}
		argv[optind] = argv[optind + 1];
		argv[optind + 1] = (char *)"--help";
	}
	for (i = 0; i < n; i++) {
		if (strcmp(commands[i].name, argv[optind]))
			continue;
		int first = optind, cargc = argc - optind;
		struct error err;

		ctx.cmd = commands[i].name;
		if (take_global_options(&cargc, argv + first, &ctx))
			return CLI_USAGE;
		error_init(&err);
		/* libcurl's set-up only when a command will use it. */
		if (ctx.remote_url && ctx.remote_url[0] &&
		    remote_global_init(&err))
			return cli_fail(&ctx, &err);
		cache_global_init();
		git_libgit2_init();
		/*
		 * git does not re-hash objects it reads; neither do we. This
		 * is libgit2's process-wide setting, so only main sets it.
		 */
		/* Objects are addressed by their hashes already; re-hashing
		 * every object read (libgit2's default, not git's) was a
		 * tenth of a plan's time on a 100,000-file repository. */
		git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
		/*
		 * libgit2 caches only trees under 4 KiB, so a directory of
		 * more than about a hundred entries (a monorepo's packages/)
		 * was inflated and parsed again for every source set that
		 * looks below it: 46% of a warm plan at 500 packages. Trees
		 * up to 1 MiB are kept (within the cache's 256 MiB bound).
		 */
		git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE,
				 (size_t)1 << 20);
		/*
		 * A plan reads most trees once (a cold plan walks every set
		 * of the base) and keeps keys, not files: libgit2's default
		 * 256 MiB cache held every tree it read, 65 MB of heap at
		 * 1,000,000 files (peak RSS of a cold plan 143 MB; 84 MB
		 * with 8 MiB). The trees read again (the root, packages/)
		 * fit: a cold plan of the 100k bench runs 505.0 M
		 * instructions either way.
		 */
		git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE,
				 (ssize_t)8 << 20);
		/*
		 * libgit2 keeps every pack file it read open; a repository
		 * of more packs than the open-file limit (a pack per fetch
		 * or maintenance prefetch; macOS allows 256 files) failed
		 * with EMFILE. As git does (packfile.c, pack_max_fds), the
		 * least recently used pack is closed past the limit, less
		 * what SQLite, loose objects and the threads keying source
		 * sets hold at once.
		 */
		git_libgit2_opts(GIT_OPT_SET_MWINDOW_FILE_LIMIT,
				 pack_files(host_open_files()));
		/* Commands parse their own options: argv[0] is their name. */
		optind = 0;
		rc = commands[i].run(cargc, argv + first, &ctx);
		/* Output that never arrived (a full disk, a closed pipe) is
		 * a failure, as coreutils' close_stdout makes it. */
		if (rc == CLI_OK && (fflush(stdout) || ferror(stdout))) {
			error_set(&err, ERROR_IO, "cannot write the output: %s",
				  strerror(errno));
			rc = cli_fail(&ctx, &err);
		}
		git_libgit2_shutdown();
		if (ctx.remote_url && ctx.remote_url[0])
			remote_global_cleanup();
		return rc;
	}
	for (i = 0; i < n && i < 64; i++)
		names[i] = commands[i].name;
	fprintf(stderr, "ripple: error: '%s' is not a ripple command\n",
		argv[optind]);
	{
		const char *s = spell_suggest(argv[optind], names, i);

		if (s)
			fprintf(stderr, "  hint: did you mean '%s'?\n", s);
	}
	fprintf(stderr, "Try 'ripple --help'.\n");
	return CLI_USAGE;
}

struct main_call {
	int argc;
	char **argv;
};

static int
call_main(void *p)
{
	struct main_call *m = p;

	return ripple_main(m->argc, m->argv);
}

/*
 * The command runs where its stack is at least Linux's default 8 MiB: a
 * tree 4,096 folders deep (graph/tree.c's limit, git's
 * core.maxTreeDepth) is walked by recursion, and under `ulimit -s 512` the
 * main thread's stack would end first (a crash, not an error). The pool's
 * threads get 8 MiB each already (base/pool.c).
 */
int
main(int argc, char **argv)
{
	struct main_call m = { argc, argv };

	return pool_call(host_stack_limit(), call_main, &m);
}
