/*
 * The `roots:` section: a package root's path, role and toolkit, its tag
 * family (patterns, exclusions, prefix, spelling, setuptools-scm's
 * tag_regex), fallback and version source. Also the path-pattern lists
 * every section reads (rules_load_patterns). Checks that need PEP 440
 * (a fallback inside its line, overlapping families) are graph/family.c's.
 */
#include "rules/load.h"

#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "rules/yaml.h"
#include "base/banned.h"

/* Normalize a root path in place into the arena: no trailing '/'. */
static const char *
root_path(struct rules_load *L, const struct rules_ynode *n, const char *s)
{
	size_t len = strlen(s);
	const char *p;

	if (rules_syntax_path_chars(L, n, "path", s))
		return NULL;
	while (len > 1 && s[len - 1] == '/')
		len--;
	if (!len || s[0] == '/')
		goto bad;
	if (len == 1 && s[0] == '.')
		return ".";
	for (p = s; p < s + len;) {
		size_t c = strcspn(p, "/");

		if (c > (size_t)(s + len - p))
			c = (size_t)(s + len - p);
		if (!c || (c == 1 && p[0] == '.') ||
		    (c == 2 && p[0] == '.' && p[1] == '.') ||
		    memchr(p, '*', c) || memchr(p, '?', c) || memchr(p, '[', c))
			goto bad;
		p += c + 1;
	}
	{
		char *d = arena_strndup(&L->r->arena, s, len);

		if (!d)
			rules_load_nomem(L);
		return d;
	}
bad:
	rules_load_error(L, n,
			 "write a directory relative to the repository root, "
			 "e.g. cuda_bindings",
			 "malformed root path '%s'", s);
	return NULL;
}

static const char *const root_default_exclude[] = { "tests/**", "docs/**" };
static const char *const root_default_tests[] = { "tests/**" };

static const char *
derive_prefix(struct rules_load *L, const char *tag)
{
	size_t n = strcspn(tag, "0123456789*?[\\");
	char *d = arena_strndup(&L->r->arena, tag, n);

	if (!d)
		rules_load_nomem(L);
	return d;
}

/* version-file: and version-source: of a root. */
static void
load_version_source(struct rules_load *L, const struct rules_ynode *v,
		    struct rules_root *root, const char *const *sources)
{
	const struct rules_ynode *f = rules_ynode_get(v, "version-file");
	const struct rules_ynode *src = rules_ynode_get(v, "version-source");
	const char *s;
	size_t i;

	if (f && !rules_load_string(L, f, "version-file", &s)) {
		root->version_file = root_path(L, f, s);
		if (root->version_file && !strcmp(root->version_file, ".")) {
			rules_load_error(L, f, "name the file, e.g. VERSION",
					 "version-file '%s' is a directory", s);
			root->version_file = NULL;
		}
		root->version_source = RULES_VERSION_SOURCE_FILE;
	}
	if (src && !rules_load_string(L, src, "version-source", &s)) {
		for (i = 0; i < 3 && strcmp(s, sources[i]); i++)
			;
		if (i == 3) {
			rules_load_unknown(L, src, "version-source", s,
					   sources, 3);
			return;
		}
		root->version_source = (enum rules_version_source)i;
		if (i != RULES_VERSION_SOURCE_TAGS && !f)
			rules_load_error(L, src, "add version-file: PATH "
					 "(relative to the repository root)",
					 "version-source '%s' needs a "
					 "version-file", s);
		if (i == RULES_VERSION_SOURCE_TAGS && f)
			rules_load_error(L, src, "drop version-file, or write "
					 "version-source: file (or file+tags)",
					 "version-source 'tags' does not read "
					 "version-file");
		if (i == RULES_VERSION_SOURCE_FILE_TAGS && !root->n_tags)
			rules_load_error(L, src, "add tags: GLOB",
					 "version-source 'file+tags' needs a "
					 "tag family");
	}
}

void
rules_load_root(struct rules_load *L, const struct rules_ynode *k,
	  const struct rules_ynode *v, struct rules_root *root)
{
	static const char *const keys[] = {
		"path", "role", "toolkit", "tags", "exclude-tags",
		"tag-prefix", "fallback-version", "fallback-pretend",
		"node-length", "exclude", "tests", "tag-spelling", "tag-regex",
		"tags-follow-toolkit", "version-source", "version-file", NULL,
	};
	static const char *const roles[] = { "current", "maintenance" };
	static const char *const spellings[] = { "pep440", "zero-padded" };
	static const char *const sources[] = { "tags", "file", "file+tags" };
	const struct rules_ynode *f;
	const char *s;
	unsigned long long u;
	char what[160];
	size_t i;

	rules_load_what(what, sizeof(what), "root", k->str);
	root->name = k->str;
	root->pos = rules_load_pos(k);
	root->node_length = 9;
	root->tags_follow_toolkit = -1;
	root->exclude = (const char **)root_default_exclude;
	root->n_exclude = 2;
	root->tests = (const char **)root_default_tests;
	root->n_tests = 1;
	if (rules_load_keys(L, v, what, keys))
		return;
	f = rules_ynode_get(v, "path");
	if (!f)
		rules_load_error(L, k, "add path: DIRECTORY",
				 "root '%s' has no 'path'", k->str);
	else if (!rules_load_string(L, f, "path", &s))
		root->path = root_path(L, f, s);
	f = rules_ynode_get(v, "role");
	if (f && !rules_load_string(L, f, "role", &s)) {
		if (!strcmp(s, "current"))
			root->role = RULES_ROLE_CURRENT;
		else if (!strcmp(s, "maintenance"))
			root->role = RULES_ROLE_MAINTENANCE;
		else
			rules_load_unknown(L, f, "role", s, roles, 2);
	}
	f = rules_ynode_get(v, "toolkit");
	if (f && !rules_load_string(L, f, "toolkit", &root->toolkit) &&
	    !rules_find_toolkit(L->r, root->toolkit)) {
		const char *c[256];
		size_t n = 0;

		for (i = 0; i < L->r->n_toolkits && n < 256; i++)
			c[n++] = L->r->toolkits[i].name;
		rules_load_unknown(L, f, "toolkit", root->toolkit, c, n);
	}
	f = rules_ynode_get(v, "tags");
	if (f)
		rules_load_globs(L, f, "tags", &root->tags, &root->n_tags);
	f = rules_ynode_get(v, "exclude-tags");
	if (f)
		rules_load_globs(L, f, "exclude-tags", &root->exclude_tags,
			   &root->n_exclude_tags);
	f = rules_ynode_get(v, "tag-prefix");
	if (f)
		rules_load_string(L, f, "tag-prefix", &root->tag_prefix);
	else if (root->n_tags)
		root->tag_prefix = derive_prefix(L, root->tags[0]);
	f = rules_ynode_get(v, "fallback-version");
	if (f && !rules_load_string(L, f, "fallback-version",
				    &root->fallback_version) &&
	    rules_syntax_pep440(root->fallback_version))
		rules_load_error(L, f,
				 "write a PEP 440 version, e.g. 12.9.10.dev0",
				 "malformed fallback version '%s'",
				 root->fallback_version);
	f = rules_ynode_get(v, "fallback-pretend");
	if (f)
		rules_load_bool(L, f, "fallback-pretend", &root->fallback_pretend);
	f = rules_ynode_get(v, "node-length");
	if (f && !rules_load_uint(L, f, "node-length", 4, 40, &u))
		root->node_length = (unsigned)u;
	f = rules_ynode_get(v, "exclude");
	if (f)
		rules_load_patterns(L, f, "exclude", &root->exclude, &root->n_exclude);
	f = rules_ynode_get(v, "tests");
	if (f)
		rules_load_patterns(L, f, "tests", &root->tests, &root->n_tests);
	f = rules_ynode_get(v, "tag-spelling");
	if (f && !rules_load_string(L, f, "tag-spelling", &s)) {
		for (i = 0; i < 2 && strcmp(s, spellings[i]); i++)
			;
		if (i < 2)
			root->tag_spelling = (enum rules_tag_spelling)i;
		else
			rules_load_unknown(L, f, "tag-spelling", s, spellings, 2);
	}
	f = rules_ynode_get(v, "tag-regex");
	if (f)
		root->tag_regex_pos = rules_load_pos(f);
	if (f && !rules_load_string(L, f, "tag-regex", &root->tag_regex) &&
	    !root->tag_regex[0])
		rules_load_error(L, f, "write setuptools-scm's tag_regex, e.g. "
				 "'^(?P<version>v\\d+\\.\\d+\\.\\d+)'",
				 "empty tag-regex");
	f = rules_ynode_get(v, "tags-follow-toolkit");
	if (f)
		rules_load_bool(L, f, "tags-follow-toolkit",
				&root->tags_follow_toolkit);
	load_version_source(L, v, root, sources);
}

