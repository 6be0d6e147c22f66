/*
 * The `releases:` section: per release its axes, tag family (root.tags or a
 * glob), published artifacts and exclusions, notes path and the declared
 * metadata checks (`require-meta`).
 */
#include "rules/load.h"

#include <stdio.h>
#include <string.h>

#include "rules/yaml.h"
#include "base/banned.h"

static void
load_meta_check(struct rules_load *L, const struct rules_ynode *it,
		const struct rules_tvars *tv, struct rules_meta_check *mc)
{
	static const char *const keys[] = {
		"artifact", "key", "value", "final", "dev", NULL,
	};
	static const char *const tmpl[] = { "value", "final", "dev" };
	const char **dst[3];
	const struct rules_ynode *f;
	size_t i, n_set = 0;

	dst[0] = &mc->value;
	dst[1] = &mc->final;
	dst[2] = &mc->dev;
	mc->pos = rules_load_pos(it);
	if (rules_load_keys(L, it, "require-meta entry", keys))
		return;
	f = rules_ynode_get(it, "artifact");
	if (!f)
		rules_load_error(L, it, "add artifact: NAME",
				 "require-meta entry has no 'artifact'");
	else if (!rules_load_string(L, f, "artifact", &mc->artifact) &&
		 !rules_load_has_name(L->art_sorted, L->n_art_names,
				     mc->artifact))
		rules_load_unknown(L, f, "artifact", mc->artifact,
				   L->art_names, L->n_art_names);
	f = rules_ynode_get(it, "key");
	if (!f)
		rules_load_error(L, it, "add key: METADATA-KEY",
				 "require-meta entry has no 'key'");
	else
		rules_load_string(L, f, "key", &mc->key);
	for (i = 0; i < 3; i++) {
		f = rules_ynode_get(it, tmpl[i]);
		if (f && !rules_load_string(L, f, tmpl[i], dst[i])) {
			rules_syntax_template(L, f, *dst[i], tv);
			n_set++;
		}
	}
	if (!n_set)
		rules_load_error(L, it, "add value:, final: or dev:",
				 "require-meta entry has no expected value");
}

static void
load_require_meta(struct rules_load *L, const struct rules_ynode *f,
		  const struct rules_tvars *tv, struct rules_release *rel)
{
	size_t i;

	if (f->kind != RULES_YNODE_SEQ) {
		rules_load_error(L, f, "write a list of {artifact, key, final, "
				 "dev} maps", "'require-meta' is not a list");
		return;
	}
	if (!f->n)
		return;
	rel->require_meta = rules_load_alloc(L, f->n *
					     sizeof(*rel->require_meta));
	if (!rel->require_meta)
		return;
	rel->n_require_meta = f->n;
	for (i = 0; i < f->n; i++)
		load_meta_check(L, f->items[i], tv, &rel->require_meta[i]);
}

/*
 * A place release notes are looked up: "tag", or a branch name as git
 * allows it (check-ref-format, simplified: letters, digits, "/", ".",
 * "_", "-", no "..", no leading "-" or "/", no trailing "/" or ".lock").
 */
static void
check_notes_from(struct rules_load *L, const struct rules_ynode *n,
		 const char *s)
{
	size_t len = strlen(s);

	if (!strcmp(s, "tag"))
		return;
	if (!len || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
			   "TUVWXYZ0123456789/._-") != len ||
	    strstr(s, "..") || strstr(s, "//") || s[0] == '-' ||
	    s[0] == '/' || s[len - 1] == '/' || s[len - 1] == '.' ||
	    (len >= 5 && !strcmp(s + len - 5, ".lock")))
		rules_load_error(L, n, "name 'tag' (the tagged tree) or a "
				 "branch, e.g. [tag, main]",
				 "notes-from '%s' is neither 'tag' nor a "
				 "branch name", s);
}

static void
load_release(struct rules_load *L, const struct rules_ynode *k,
	     const struct rules_ynode *v, struct rules_release *rel)
{
	static const char *const keys[] = {
		"each", "tag", "artifacts", "exclude", "notes",
		"notes-from", "notes-skip-post", "require-meta", "tests",
		NULL,
	};
	const struct rules_ynode *f;
	struct rules_tvars tv;
	char what[160];
	size_t i;

	rules_load_what(what, sizeof(what), "release", k->str);
	rel->name = k->str;
	rel->pos = rules_load_pos(k);
	if (rules_load_keys(L, v, what, keys))
		return;
	f = rules_ynode_get(v, "each");
	if (f)
		rules_load_each(L, f, what, &rel->each);
	if (rules_load_failed_nomem(L))
		return;
	memset(&tv, 0, sizeof(tv));
	tv.each = &rel->each;
	tv.has_root = rules_each_has(&rel->each, "root");
	tv.release = 1;
	f = rules_ynode_get(v, "tag");
	if (!f)
		rules_load_error(L, k, "add tag: root.tags (or a tag glob)",
				 "%s has no 'tag'", what);
	else if (!rules_load_string(L, f, "tag", &rel->tag)) {
		if (!strcmp(rel->tag, "root.tags")) {
			if (!tv.has_root)
				rules_load_error(L, f,
						 "add root: roots to the release's 'each'",
						 "'root.tags' needs a 'root' axis");
		} else {
			rules_syntax_glob(L, f, rel->tag);
		}
	}
	f = rules_ynode_get(v, "artifacts");
	if (!f)
		rules_load_error(L, k, "add artifacts: [NAME, ...]",
				 "%s has no 'artifacts'", what);
	else if (!rules_load_strings(L, f, "artifacts", 0, &rel->artifacts,
				     &rel->n_artifacts)) {
		if (!rel->n_artifacts)
			rules_load_error(L, f, NULL, "%s publishes no artifacts",
					 what);
		for (i = 0; i < rel->n_artifacts; i++)
			if (!rules_load_has_name(L->art_sorted, L->n_art_names,
						 rel->artifacts[i]))
				rules_load_unknown(L, f->items[i], "artifact",
						   rel->artifacts[i], L->art_names,
						   L->n_art_names);
	}
	f = rules_ynode_get(v, "exclude");
	if (f && !rules_load_strings(L, f, "exclude", 0, &rel->exclude,
				     &rel->n_exclude))
		for (i = 0; i < rel->n_exclude; i++)
			rules_syntax_glob(L, f->items[i], rel->exclude[i]);
	f = rules_ynode_get(v, "notes");
	if (f && !rules_load_string(L, f, "notes", &rel->notes))
		rules_syntax_template(L, f, rel->notes, &tv);
	f = rules_ynode_get(v, "notes-from");
	if (f && !rules_load_strings(L, f, "notes-from", 0, &rel->notes_from,
				     &rel->n_notes_from))
		for (i = 0; i < rel->n_notes_from; i++)
			check_notes_from(L, f->items[i], rel->notes_from[i]);
	f = rules_ynode_get(v, "notes-skip-post");
	if (f)
		rules_load_bool(L, f, "notes-skip-post", &rel->notes_skip_post);
	f = rules_ynode_get(v, "require-meta");
	if (f)
		load_require_meta(L, f, &tv, rel);
	f = rules_ynode_get(v, "tests");
	if (f && !rules_load_strings(L, f, "tests", 0, &rel->tests,
				     &rel->n_tests))
		for (i = 0; i < rel->n_tests; i++)
			if (!rules_load_has_name(L->test_sorted,
						 L->n_test_names,
						 rel->tests[i]))
				rules_load_unknown(L, f->items[i], "test",
						   rel->tests[i], L->test_names,
						   L->n_test_names);
}

void
rules_load_releases(struct rules_load *L, const struct rules_ynode *m)
{
	size_t i;

	if (!m->n)
		return;
	L->r->releases = rules_load_alloc(L, m->n * sizeof(*L->r->releases));
	if (!L->r->releases)
		return;
	L->r->n_releases = m->n;
	for (i = 0; i < m->n; i++) {
		rules_load_name(L, m->items[2 * i], "release");
		load_release(L, m->items[2 * i], m->items[2 * i + 1],
			     &L->r->releases[i]);
		if (rules_load_failed_nomem(L))
			return;
	}
}
