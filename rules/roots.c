/*
 * Two small sections of ripple.yml: toolkits (version and home) and named
 * source sets. Roots are in root.c. Called by load.c's section loop.
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

	rules_load_what(what, sizeof(what), "toolkit", k->str);
	t->name = k->str;
	t->pos = rules_load_pos(k);
	if (rules_load_keys(L, v, what, keys))
		return;
	f = rules_ynode_get(v, "version");
	if (!f)
		rules_load_error(L, k, "add version: MAJOR.MINOR.PATCH, e.g. 12.9.1",
				 "toolkit '%s' has no 'version'", k->str);
	else if (!rules_load_string(L, f, "version", &t->version)) {
		/* MAJOR.MINOR where the repository only says that (RAPIDS'
		 * dependencies.yaml: cuda: "12.9"): any patch matches. */
		t->has_patch = !rules_syntax_triple(t->version, &t->major,
						    &t->minor, &t->patch);
		if (!t->has_patch &&
		    rules_syntax_pair(t->version, &t->major, &t->minor))
			rules_load_error(L, f, "write MAJOR.MINOR.PATCH (12.9.1) "
					 "or MAJOR.MINOR (12.9)",
					 "malformed toolkit version '%s'",
					 t->version);
	}
	f = rules_ynode_get(v, "home");
	if (f)
		rules_load_string(L, f, "home", &t->home);
}

void
rules_load_source(struct rules_load *L, const struct rules_ynode *k,
	    const struct rules_ynode *v, struct rules_source *src)
{
	static const char *const keys[] = { "paths", "exclude", NULL };
	const struct rules_ynode *f;
	char what[160];

	rules_load_what(what, sizeof(what), "source", k->str);
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
