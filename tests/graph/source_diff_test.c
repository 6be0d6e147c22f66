/* Suite graph_source_diff: a set's changed files from the tree diff of its
 * prefixes are exactly the differences of its two walked file lists, and
 * the diff declines what only a walk can tell (links, gitlinks). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "graph/pattern.h"
#include "graph/repo.h"
#include "graph/source.h"
#include "tests/support/support.h"

static void
sh_ok(const char *dir, const char *cmd)
{
	struct run_result r = t_sh(dir, cmd);

	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	t_result_release(&r);
}

static struct pattern_set *
set_of(const char *const *inc, size_t ni, const char *const *exc, size_t ne)
{
	struct pattern_set *s = NULL;
	struct error err;

	error_init(&err);
	cr_assert_eq(pattern_set_compile(inc, ni, exc, ne, &s, &err), 0, "%s",
		     err.msg);
	return s;
}

/* One line per differing file of two walked states: "path old new", each
 * side "-" or "ID:MODE". */
static void
walked(struct graph_repo *repo, const struct graph_oid *a,
       const struct graph_oid *b, const struct pattern_set *s, char *out,
       size_t cap)
{
	struct graph_source_state x, y;
	struct error err;
	size_t i = 0, j = 0, len = 0;

	error_init(&err);
	cr_assert_eq(graph_source_compute(repo, a, s, NULL, &x, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(graph_source_compute(repo, b, s, NULL, &y, &err), 0,
		     "%s", err.msg);
	out[0] = '\0';
	while (i < x.n_files || j < y.n_files) {
		const struct graph_source_file *f = i < x.n_files ?
			&x.files[i] : NULL;
		const struct graph_source_file *g = j < y.n_files ?
			&y.files[j] : NULL;
		int c = !f ? 1 : !g ? -1 : strcmp(f->path, g->path);

		if (c == 0 && !strcmp(f->id, g->id) && f->mode == g->mode) {
			i++;
			j++;
			continue;
		}
		if (c < 0)
			g = NULL;
		if (c > 0)
			f = NULL;
		len += (size_t)snprintf(out + len, cap - len, "%s ",
					(f ? f : g)->path);
		if (f)
			len += (size_t)snprintf(out + len, cap - len,
						"%s:%o ", f->id, f->mode);
		else
			len += (size_t)snprintf(out + len, cap - len, "- ");
		if (g)
			len += (size_t)snprintf(out + len, cap - len,
						"%s:%o\n", g->id, g->mode);
		else
			len += (size_t)snprintf(out + len, cap - len, "-\n");
		i += f != NULL;
		j += g != NULL;
	}
	graph_source_state_release(&x);
	graph_source_state_release(&y);
}

/* The same lines from graph_source_diff; its result returned. */
static int
diffed(struct graph_repo *repo, const struct graph_oid *a,
       const struct graph_oid *b, const struct pattern_set *s, char *out,
       size_t cap)
{
	struct graph_change_list ch;
	char ha[GRAPH_OID_HEX], hb[GRAPH_OID_HEX];
	struct error err;
	size_t i, len = 0;
	int rc;

	error_init(&err);
	rc = graph_source_diff(repo, a, b, s, &ch, &err);
	cr_assert_geq(rc, 0, "%s", err.msg);
	out[0] = '\0';
	for (i = 0; i < ch.n; i++) {
		const struct graph_change *c = &ch.items[i];

		graph_oid_hex(&c->old_id, ha);
		graph_oid_hex(&c->new_id, hb);
		len += (size_t)snprintf(out + len, cap - len, "%s ", c->path);
		if (c->old_mode)
			len += (size_t)snprintf(out + len, cap - len,
						"%s:%o ", ha, c->old_mode);
		else
			len += (size_t)snprintf(out + len, cap - len, "- ");
		if (c->new_mode)
			len += (size_t)snprintf(out + len, cap - len,
						"%s:%o\n", hb, c->new_mode);
		else
			len += (size_t)snprintf(out + len, cap - len, "-\n");
	}
	cr_expect(rc == 1 || ch.n == 0, "a declined diff lists nothing");
	graph_change_list_release(&ch);
	return rc;
}

/* Commit the edit; the diff from the last commit must equal the walks'
 * difference (1), or decline (0): `want`. */
static void
step(const char *dir, const struct pattern_set *s, const char *edit,
     int want)
{
	static char w[8192], d[8192];
	struct graph_repo *repo = NULL;
	struct graph_oid a, b;
	struct error err;

	error_init(&err);
	sh_ok(dir, edit);
	cr_assert_eq(t_git_commit(dir, edit), 0);
	cr_assert_eq(graph_repo_open(dir, &repo, &err), 0, "%s", err.msg);
	cr_assert_eq(graph_repo_resolve(repo, "HEAD~1", &a, &err), 0);
	cr_assert_eq(graph_repo_resolve(repo, "HEAD", &b, &err), 0);
	walked(repo, &a, &b, s, w, sizeof(w));
	cr_expect_eq(diffed(repo, &a, &b, s, d, sizeof(d)), want,
		     "after '%s'", edit);
	if (want)
		cr_expect_str_eq(d, w, "after '%s'", edit);
	graph_repo_close(repo);
}

Test(graph_source_diff, names_what_the_walks_tell_apart)
{
	static const char *const inc[] = {
		"pkg/src/**", "pkg/package.json", "pkg/inc/*.h",
	};
	static const char *const exc[] = { "pkg/src/gen/**", "**/*.md" };
	char *dir = t_git_init();
	struct pattern_set *s = set_of(inc, 3, exc, 2);

	t_write(dir, "pkg/src/a.c", "a\n");
	t_write(dir, "pkg/src/deep/er/b.c", "b\n");
	t_write(dir, "pkg/src/gen/out.c", "o\n");
	t_write(dir, "pkg/src/README.md", "r\n");
	t_write(dir, "pkg/inc/h.h", "h\n");
	t_write(dir, "pkg/inc/sub/x.h", "x\n");
	t_write(dir, "pkg/package.json", "{}\n");
	t_write(dir, "pkg/package.json5", "{}\n");
	t_write(dir, "other/o.c", "o\n");
	cr_assert_eq(t_git_commit(dir, "base"), 0);
	step(dir, s, "echo 2 >> pkg/src/deep/er/b.c", 1);
	step(dir, s, "chmod +x pkg/src/a.c", 1);
	step(dir, s, "echo 2 >> pkg/src/gen/out.c && echo 2 >> "
		     "pkg/src/README.md && echo 2 >> other/o.c", 1);
	step(dir, s, "echo 2 >> pkg/package.json && echo 2 >> "
		     "pkg/package.json5 && echo 2 >> pkg/inc/sub/x.h", 1);
	step(dir, s, "git mv pkg/src/deep pkg/src/moved && echo 1 > "
		     "pkg/inc/n.h && git rm -q pkg/inc/h.h", 1);
	/* a file becomes a folder, a folder a file */
	step(dir, s, "git rm -q pkg/src/a.c && mkdir pkg/src/a.c && echo 1 "
		     "> pkg/src/a.c/in.c && git rm -rq pkg/src/moved && "
		     "echo 1 > pkg/src/moved", 1);
	step(dir, s, "git rm -q pkg/package.json && git rm -rq pkg/src", 1);
	pattern_set_free(s);
	t_rmtree(dir);
	free(dir);
}

Test(graph_source_diff, the_whole_tree_when_a_pattern_has_no_prefix)
{
	static const char *const inc[] = { "**/*.c" };
	char *dir = t_git_init();
	struct pattern_set *s = set_of(inc, 1, NULL, 0);

	t_write(dir, "a/x.c", "a\n");
	t_write(dir, "b/y.h", "b\n");
	cr_assert_eq(t_git_commit(dir, "base"), 0);
	step(dir, s, "echo 2 >> a/x.c && echo 2 >> b/y.h && echo 1 > b/z.c",
	     1);
	pattern_set_free(s);
	t_rmtree(dir);
	free(dir);
}

Test(graph_source_diff, leaves_links_and_gitlinks_to_the_walk)
{
	static const char *const inc[] = { "p/**" };
	char *dir = t_git_init();
	struct pattern_set *s = set_of(inc, 1, NULL, 0);

	t_write(dir, "p/a.c", "a\n");
	t_write(dir, "t/target", "t\n");
	cr_assert_eq(t_git_commit(dir, "base"), 0);
	step(dir, s, "ln -s ../t/target p/lnk", 0);
	step(dir, s, "echo 2 >> p/a.c", 1);	/* the link unchanged: the
						   caller knows of it */
	step(dir, s, "rm p/lnk && echo 1 > p/lnk", 0);
	/* p itself a link: the walk reads what it reaches */
	step(dir, s, "mv p q && ln -s q p", 0);
	pattern_set_free(s);
	t_rmtree(dir);
	free(dir);
}
