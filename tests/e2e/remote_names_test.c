/*
 * Suite e2e_remote_names: a remote cache entry whose output paths alias
 * another file than they say (issue 29): git's '.git' by another
 * spelling (any case, a trailing dot, an ignored code point, the 8.3
 * short name GIT~1), ripple's '.ripple' by another case. The node's
 * `outputs:` glob matches each of them, so only the name check stands
 * between the entry and the file: against a real nginx on loopback, the
 * entry is a miss (the node rebuilds) with one warning naming the
 * server, the key and the path, and `fetch` writes nothing.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/e2e/remote_entry.h"
#include "tests/support/nginx.h"
#include "tests/support/support.h"

#define WHEEL "artifact:wheel"

TestSuite(e2e_remote_names, .init = t_fx_setup, .fini = t_fx_teardown,
	  .timeout = 240);

static char *
sh(const char *cmd)
{
	return t_sh_out(t_fx.tmp, cmd);
}

/* Outputs as globs wide enough to match every hostile name below. */
static const char rules[] =
	"version: 1\n"
	"sources:\n"
	"  src: {paths: [src/**]}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    inputs: [src]\n"
	"    command: [sh, -c, 'mkdir -p dist out && cat src/a.c > dist/w.bin && "
	"echo db > out/cache.db']\n"
	"    outputs: [dist/**, '*/cache.db']\n"
	"policy:\n"
	"  trusted-refs: [refs/heads/main]\n";

static void
start(void)
{
	char dir[PATH_MAX];
	struct run_result r;
	const char *run[] = { "run", "--remote-cache", NULL, NULL };

	t_fx_serve();
	free(sh("git init -q -b main origin"));
	t_write(t_fx.tmp, "origin/ripple.yml", rules);
	t_write(t_fx.tmp, "origin/.gitignore", ".ripple/\ndist/\nout/\n");
	t_write(t_fx.tmp, "origin/src/a.c", "int a;\n");
	free(sh("cd origin && git add -A && git -c user.name=t -c "
		"user.email=t@example.com commit -qm init && cd .. && "
		"git clone -q origin a && git clone -q origin b"));
	run[2] = t_fx.ng.url;
	snprintf(dir, sizeof(dir), "%s/a", t_fx.tmp);
	r = t_ripple(dir, run);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	t_result_release(&r);
}

/* path as messages show it: bytes not printable ASCII as \xHH. */
static void
shown(const char *path, char *out, size_t size)
{
	size_t k = 0;

	for (; *path && k + 5 <= size; path++) {
		unsigned char c = (unsigned char)*path;

		if (c >= 0x20 && c < 0x7f)
			out[k++] = (char)c;
		else
			k += (size_t)snprintf(out + k, size - k, "\\x%02x", c);
	}
	out[k] = '\0';
}

static struct run_result
rip_b(const char *a0, const char *a1, const char *a2)
{
	const char *v[] = { "--remote-cache", t_fx.ng.url, a0, a1, a2, NULL };
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/b", t_fx.tmp);
	return t_ripple(dir, v);
}

Test(e2e_remote_names, an_entry_naming_git_or_ripple_another_way_is_a_miss)
{
	static const char *const paths[] = {
		"dist/GIT~1/hooks/post-checkout",	/* .git's 8.3 name */
		"dist/.Git./config",			/* Windows drops '.' */
		"dist/.g\xe2\x80\x8cit/config",		/* HFS+ ignores U+200C */
		"dist/.g\xc4\xb1t/config",		/* NTFS: U+0131 is I */
		".Ripple/cache.db",			/* case-insensitive */
	};
	char ac[PATH_MAX + 512];
	const char *action;
	unsigned char *orig;
	size_t n_orig, i;

	start();
	{
		struct entry e;

		memset(&e, 0, sizeof(e));
		entry_load(&e, WHEEL);
		snprintf(ac, sizeof(ac), "%s", e.ac);
		orig = t_read_bytes(e.ac, &n_orig);
		entry_release(&e);
	}
	action = strrchr(ac, '/') + 1;	/* the AC key, as warnings name it */
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct entry e;
		struct run_result r;
		char *s, cmd[512], said[256];
		const char *w;

		t_write_bytes(ac, orig, n_orig);
		memset(&e, 0, sizeof(e));
		entry_load(&e, WHEEL);
		entry_craft(&e, paths[i], "[core]\n\tfsmonitor = touch pwned\n",
			    0);
		r = rip_b("plan", "--reuse", "any");
		cr_log_info("plan with %s: %s", paths[i], r.err);
		cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
		cr_expect(strstr(r.out, "1 build") != NULL,
			  "%s: the node rebuilds: %s", paths[i], r.out);
		w = strstr(r.err, "warning:");
		cr_expect(w && !strstr(w + 1, "warning:"),
			  "one warning: %s", r.err);
		shown(paths[i], said, sizeof(said));
		cr_expect(strstr(r.err, said) != NULL, "names the path %s: %s",
			  said, r.err);
		cr_expect(strstr(r.err, t_fx.ng.url) != NULL,
			  "names the server: %s", r.err);
		cr_expect(strstr(r.err, action) != NULL, "names the key %s: %s",
			  action, r.err);
		t_result_release(&r);
		r = rip_b("fetch", "wheel", NULL);
		cr_expect_eq(r.status, 1, "%s: %s%s", paths[i], r.out, r.err);
		t_result_release(&r);
		snprintf(cmd, sizeof(cmd), "test ! -e 'b/%s' && test ! -e "
			 "b/dist/w.bin && echo absent", paths[i]);
		s = sh(cmd);
		cr_expect_str_eq(s, "absent", "%s was written", paths[i]);
		free(s);
		entry_release(&e);
	}
	free(orig);
}
