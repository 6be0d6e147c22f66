/*
 * Suite engine_run_payload: payload digests (engine/run/payload.c) of
 * real wheels made here with Python's zipfile: what is left out (the
 * long description, RECORD, the wheel's own version wherever its bytes
 * spell it) and what still counts.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "engine/run/payload.h"
#include "engine/run/wheel.h"
#include "graph/digest.h"
#include "tests/support/support.h"

/* mk.py OUT VERSION CODE README REQUIRES: a setuptools-scm shaped wheel. */
static const char mk_py[] =
	"import sys, zipfile\n"
	"out, v, code, readme, req = sys.argv[1:6]\n"
	"pub, _, local = v.partition('+')\n"
	"parts = [int(x) if x.isdigit() else x for x in pub.split('.')]\n"
	"if local: parts.append(local)\n"
	"with zipfile.ZipFile(out, 'w') as z:\n"
	"    z.writestr('lib/a.py', code)\n"
	"    z.writestr('lib/_version.py',\n"
	"               f'__version__ = version = {v!r}\\n'\n"
	"               f'__version_tuple__ = version_tuple = {tuple(parts)!r}\\n')\n"
	"    z.writestr(f'lib-{v}.dist-info/METADATA',\n"
	"               f'Metadata-Version: 2.1\\nName: lib\\nVersion: {v}\\n'\n"
	"               f'Requires-Dist: {req}\\n\\n{readme}')\n"
	"    z.writestr(f'lib-{v}.dist-info/RECORD', v + readme)\n";

static char *dir;

static void
setup(void)
{
	struct error err;

	dir = t_git_init();
	t_write(dir, "mk.py", mk_py);
	error_init(&err);
	cr_assert_eq(run_wheel_libs_require(&err), 0, "%s", err.msg);
}

static void
teardown(void)
{
	t_rmtree(dir);
	free(dir);
}

TestSuite(engine_run_payload, .init = setup, .fini = teardown);

/* The payload digest of a wheel made with these fields, as hex. */
static void
digest_of(const char *v, const char *code, const char *readme,
	  const char *req, char *hex)
{
	char cmd[1024], rel[256];
	const char *paths[1];
	struct digest d;
	struct error err;
	struct run_result r;

	snprintf(rel, sizeof(rel), "w/lib-%s-py3-none-any.whl", v);
	snprintf(cmd, sizeof(cmd), "rm -rf w && mkdir w && python3 mk.py "
		 "'%s' '%s' '%s' '%s' '%s'", rel, v, code, readme, req);
	r = t_sh(dir, cmd);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t_result_release(&r);
	paths[0] = rel;
	error_init(&err);
	cr_assert_eq(run_payload_digest(dir, paths, 1, &d, &err), 0, "%s",
		     err.msg);
	snprintf(hex, sizeof(d.hex), "%s", d.hex);
}

Test(engine_run_payload, dev_versions_of_one_payload_are_equal)
{
	char a[64], b[64];

	digest_of("1.0.1.dev1+gaaaaaaa", "x = 1", "# lib", "numpy", a);
	digest_of("1.0.1.dev2+gbbbbbbb", "x = 1", "# lib, better", "numpy",
		  b);
	cr_expect_str_eq(a, b);
}

Test(engine_run_payload, code_and_requirements_still_count)
{
	char a[64], b[64], c[64];

	digest_of("1.0.1.dev1+gaaaaaaa", "x = 1", "# lib", "numpy", a);
	digest_of("1.0.1.dev2+gbbbbbbb", "x = 2", "# lib", "numpy", b);
	digest_of("1.0.1.dev2+gbbbbbbb", "x = 1", "# lib", "numpy>=2", c);
	cr_expect_str_neq(a, b);
	cr_expect_str_neq(a, c);
}

/* A release number is no dev segment: 1.0.1 and 1.0.2 differ in the
 * version_tuple's numbers, which stay. */
Test(engine_run_payload, another_release_counts)
{
	char a[64], b[64];

	digest_of("1.0.1", "x = 1", "# lib", "numpy", a);
	digest_of("1.0.2", "x = 1", "# lib", "numpy", b);
	cr_expect_str_neq(a, b);
}
