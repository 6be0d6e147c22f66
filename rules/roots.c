/*
 * The first sections of ripple.yml: toolkits (version and home), roots
 * (path, role, toolkit, tag family, version source, source and test
 * patterns) and named source sets. Called by load.c's section loop.
 */
#include "rules/rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/file.h"
#include "base/mem.h"
#include "base/spell.h"
#include "rules/load.h"
#include "rules/yaml.h"
#include "base/banned.h"


void
rules_load_toolkit(struct rules_load *L, const struct rules_ynode *k,
	     const struct rules_ynode *v, struct rules_toolkit *t)
{
	static const char *const keys[] = { "version", "home", NULL };
	const struct rules_ynode *f;
	char what[160];

	snprintf(what, sizeof(what), "toolkit '%s'", k->str);
	t->name = k->str;
	t->pos = rules_load_pos(k);
	if (rules_load_keys(L, v, what, keys))
		return;
	f = rules_ynode_get(v, "version");
	if (!f)
		rules_load_error(L, k, "add version: MAJOR.MINOR.PATCH, e.g. 12.9.1",
				 "toolkit '%s' has no 'version'", k->str);
	else if (!rules_load_string(L, f, "version", &t->version) &&
		 rules_syntax_triple(t->version, &t->major, &t->minor,
				     &t->patch))
		rules_load_error(L, f, "write MAJOR.MINOR.PATCH, e.g. 12.9.1",
				 "malformed toolkit version '%s'", t->version);
	f = rules_ynode_get(v, "home");
	if (f)
		rules_load_string(L, f, "home", &t->home);
}

/* Normalize a root path in place into the arena: no trailing '/'. */
static const char *
root_path(struct rules_load *L, const struct rules_ynode *n, const char *s)
{
	size_t len = strlen(s);
	const char *p;

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

static void
load_globs(struct rules_load *L, const struct rules_ynode *n,
	   const char *field, const char ***out, size_t *n_out)
{
	size_t i;

	if (rules_load_strings(L, n, field, 1, out, n_out))
		return;
	for (i = 0; i < *n_out; i++)
		rules_syntax_glob(L, n->kind == RULES_YNODE_SEQ ? n->items[i] : n,
				  (*out)[i]);
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

void
rules_load_root(struct rules_load *L, const struct rules_ynode *k,
	  const struct rules_ynode *v, struct rules_root *root)
{
	static const char *const keys[] = {
		"path", "role", "toolkit", "tags", "exclude-tags",
		"tag-prefix", "fallback-version", "fallback-pretend",
		"node-length", "exclude", "tests", NULL,
	};
	static const char *const roles[] = { "current", "maintenance" };
	const struct rules_ynode *f;
	const char *s;
	unsigned long long u;
	char what[160];
	size_t i;

	snprintf(what, sizeof(what), "root '%s'", k->str);
	root->name = k->str;
	root->pos = rules_load_pos(k);
	root->node_length = 9;
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
		load_globs(L, f, "tags", &root->tags, &root->n_tags);
	f = rules_ynode_get(v, "exclude-tags");
	if (f)
		load_globs(L, f, "exclude-tags", &root->exclude_tags,
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
}

void
rules_load_source(struct rules_load *L, const struct rules_ynode *k,
	    const struct rules_ynode *v, struct rules_source *src)
{
	static const char *const keys[] = { "paths", "exclude", NULL };
	const struct rules_ynode *f;
	char what[160];

	snprintf(what, sizeof(what), "source '%s'", k->str);
	src->name = k->str;
	src->pos = rules_load_pos(k);
	if (rules_load_keys(L, v, what, keys))
		return;
	f = rules_ynode_get(v, "paths");
	if (!f)
		rules_load_error(L, k, "add paths: [PATTERN, ...]",
				 "source '%s' has no 'paths'", k->str);
	else
		rules_load_patterns(L, f, "paths", &src->paths, &src->n_paths);
	if (f && src->n_paths == 0 && f->kind == RULES_YNODE_SEQ)
		rules_load_error(L, f, NULL, "source '%s' has no paths", k->str);
	f = rules_ynode_get(v, "exclude");
	if (f)
		rules_load_patterns(L, f, "exclude", &src->exclude, &src->n_exclude);
}
