/*
 * Suite e2e_setup: what the README's set-up promises of ./configure and
 * ninja install, run from the source tree (RIPPLE_SRCDIR). Only --help and
 * bad options are run, which write nothing; the install is build.ninja's
 * command for it (ninja -t commands: no nested build while `ninja check`
 * runs) into a temporary DESTDIR.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

Test(e2e_setup, configure_help_prints_the_usage_and_no_script)
{
	struct run_result r = t_sh(t_srcdir(), "sh ./configure --help");

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "usage: ./configure"), "%s", r.out);
	cr_expect(strstr(r.out, "--no-install"), "%s", r.out);
	cr_expect(strstr(r.out, "--prefix"), "%s", r.out);
	cr_expect_not(strstr(r.out, "set -eu"), "%s", r.out);
	t_result_release(&r);
}

Test(e2e_setup, configure_refuses_an_unknown_option)
{
	struct run_result r = t_sh(t_srcdir(), "sh ./configure --prefx=/x");

	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "unknown option '--prefx=/x'"), "%s", r.err);
	t_result_release(&r);
}

Test(e2e_setup, ninja_install_copies_the_binary_to_destdir_prefix)
{
	char *tmp = t_tmpdir(), *src = realpath(t_srcdir(), NULL);
	char cmd[3 * PATH_MAX], path[PATH_MAX];
	struct run_result r;

	cr_assert(src);
	snprintf(cmd, sizeof(cmd), "cd '%s' && ninja -t commands install | "
		 "tail -1 > '%s/install.sh' && DESTDIR='%s/stage' "
		 "PREFIX=/opt/ripple sh '%s/install.sh'", src, tmp, tmp, tmp);
	r = t_sh(tmp, cmd);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "/stage/opt/ripple/bin/ripple"), "%s", r.out);
	t_result_release(&r);
	snprintf(path, sizeof(path), "%s/stage/opt/ripple/bin/ripple", tmp);
	snprintf(cmd, sizeof(cmd), "cmp '%s' '%s/build/ripple' && "
		 "'%s' --help | head -1", path, src, path);
	r = t_sh(tmp, cmd);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "usage: ripple"), "%s", r.out);
	t_result_release(&r);
	t_rmtree(tmp);
	free(tmp);
	free(src);
}
