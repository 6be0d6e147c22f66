/*
 * Suite e2e_setup_static: how ./configure links the libraries ripple always
 * uses (README, "Using it on your repository"): from their static archives
 * by default, all of them or none; shared, with one line saying why and
 * naming the package, when an archive is missing; --shared-libs by choice;
 * --static-libs or fail. ./configure runs as a copy in a temporary folder
 * (it writes build/config.ninja there, never in the source tree), with
 * --no-install, against pkg-config files edited from this machine's.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/support.h"

/*
 * Copy ./configure into a new folder and a libgit2.pc (and libpcre2-8.pc)
 * into its pc/, the Libs.private of the first (the Libs of the second)
 * extended by `git2_more` (`pcre2_more`); run `sh ./configure --no-install
 * ARGS` there with pc/ first on PKG_CONFIG_PATH. Returns the folder;
 * *config: build/config.ninja's pkg_libs line, or NULL when none was
 * written.
 */
static char *
configure_in(const char *git2_more, const char *pcre2_more, const char *args,
	     struct run_result *r, char **config)
{
	char *tmp = t_tmpdir(), *src = realpath(t_srcdir(), NULL);
	char cmd[4 * PATH_MAX], path[PATH_MAX], *text, *line;

	cr_assert(src);
	snprintf(cmd, sizeof(cmd), "cp '%s/configure' . && mkdir pc && "
		 "sed '/^Libs.private:/s/$/ %s/' \"$(pkg-config "
		 "--variable=pcfiledir libgit2)/libgit2.pc\" > pc/libgit2.pc && "
		 "sed '/^Libs:/s/$/ %s/' \"$(pkg-config --variable=pcfiledir "
		 "libpcre2-8)/libpcre2-8.pc\" > pc/libpcre2-8.pc",
		 src, git2_more, pcre2_more);
	free(t_sh_out(tmp, cmd));
	snprintf(cmd, sizeof(cmd), "PKG_CONFIG_PATH=\"$PWD/pc${PKG_CONFIG_PATH:+"
		 ":$PKG_CONFIG_PATH}\" sh ./configure --no-install %s", args);
	*r = t_sh(tmp, cmd);
	snprintf(path, sizeof(path), "%s/build/config.ninja", tmp);
	*config = NULL;
	text = t_read(path);
	if (text && (line = strstr(text, "\npkg_libs = "))) {
		line++;
		line[strcspn(line, "\n")] = '\0';
		*config = strdup(line);
	}
	free(text);
	free(src);
	return tmp;
}

static void
done(char *tmp, struct run_result *r, char *config)
{
	t_result_release(r);
	free(config);
	t_rmtree(tmp);
	free(tmp);
}

/* The default links statically where the archives link; a library named
 * twice (-lz: by libgit2's zlib, then by libpcre2-8.pc here as Debian 13's
 * libcrypto.pc does) links at its last place, after what needs it. */
Test(e2e_setup_static, the_default_links_the_archives_each_at_its_last_place,
     .timeout = 120)
{
	struct run_result r;
	char *config, *tmp = configure_in("", "-lz", "", &r, &config);
	const char *z, *pcre;

	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	if (strstr(r.out, "configure: linking libgit2")) {
		cr_log_warn("%s", strstr(r.out, "configure: linking"));
		done(tmp, &r, config);
		cr_skip_test("the static archives do not link here");
	}
	cr_assert(config, "no pkg_libs in build/config.ninja: %s", r.out);
	cr_expect(strstr(r.out, "configure: linked statically"), "%s", r.out);
	cr_expect(strstr(config, "-Wl,-Bstatic -lgit2 "), "%s", config);
	z = strstr(config, " -lz ");
	pcre = strstr(config, " -lpcre2-8 ");
	cr_expect(z && pcre && z > pcre, "-lz before -lpcre2-8: %s", config);
	cr_expect(z && !strstr(z + 1, " -lz "), "-lz twice: %s", config);
	cr_expect(strstr(z ? z : config, "-Wl,-Bdynamic"), "%s", config);
	done(tmp, &r, config);
}

/* An archive missing: one line names it and the way out; shared link. */
Test(e2e_setup_static, a_missing_archive_falls_back_to_shared_in_one_line,
     .timeout = 120)
{
	struct run_result r;
	char *config, *tmp = configure_in("-lripple_no_such", "", "", &r,
					  &config);
	const char *at;
	char line[4096];

	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(config, "no pkg_libs in build/config.ninja: %s", r.out);
	cr_expect(!strstr(config, "-Bstatic"), "%s", config);
	cr_expect(strstr(config, "-lgit2"), "%s", config);
	at = strstr(r.out, "configure: linking libgit2");
	cr_assert(at, "no line says why: %s", r.out);
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(at, "\n"), at);
	cr_expect(strstr(line, "no static archive libripple_no_such.a") &&
		  strstr(line, "docs/performance.md") &&
		  strstr(line, "--shared-libs"), "%s", line);
	cr_expect(!strstr(at + 1, "configure: linking"), "%s", r.out);
	cr_expect(!strstr(r.out, "linked statically"), "%s", r.out);
	done(tmp, &r, config);
}

/* --static-libs fails instead, naming the archive, writing nothing. */
Test(e2e_setup_static, static_libs_requires_every_archive, .timeout = 120)
{
	struct run_result r;
	char *config, *tmp = configure_in("-lripple_no_such", "",
					  "--static-libs", &r, &config);

	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "--static-libs: no static archive "
			 "libripple_no_such.a"), "%s", r.err);
	cr_expect(!config, "%s", config);
	done(tmp, &r, config);
}

/* --shared-libs: shared, and no line about it. */
Test(e2e_setup_static, shared_libs_links_shared, .timeout = 120)
{
	struct run_result r;
	char *config, *tmp = configure_in("", "", "--shared-libs", &r, &config);

	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(config, "no pkg_libs in build/config.ninja: %s", r.out);
	cr_expect(!strstr(config, "-Bstatic"), "%s", config);
	cr_expect(strstr(config, "-lgit2 "), "%s", config);
	cr_expect(!strstr(r.out, "statically") &&
		  !strstr(r.out, "configure: linking"), "%s", r.out);
	done(tmp, &r, config);
}
