/*
 * Syntax checks of the strings the rules hold: path patterns and globs,
 * toolkit versions (MAJOR.MINOR.PATCH), PEP 440 versions (the public
 * version shape of PEP 440, normalized spelling), and `${...}` templates.
 */
#include "rules/load.h"

#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/path.h"
#include "base/spell.h"
#include "rules/yaml.h"
#include "base/banned.h"

/* Index just past the `]` closing a class opened at p[0] == '[', or 0. */
static size_t
class_end(const char *p)
{
	size_t i = 1;

	if (p[i] == '!' || p[i] == '^')
		i++;
	if (p[i] == ']')
		i++;
	for (; p[i]; i++)
		if (p[i] == ']')
			return i + 1;
	return 0;
}

int
rules_syntax_glob(struct rules_load *L, const struct rules_ynode *n,
		  const char *pat)
{
	size_t i;

	if (!pat[0]) {
		rules_load_error(L, n, NULL, "empty pattern");
		return -1;
	}
	for (i = 0; pat[i]; i++) {
		if (pat[i] == '\\' && pat[i + 1]) {
			i++;
		} else if (pat[i] == '[') {
			size_t e = class_end(pat + i);

			if (!e) {
				rules_load_error(L, n,
						 "close it with ']' or write '\\[' "
						 "for a literal bracket",
						 "unterminated '[' in pattern '%s'",
						 pat);
				return -1;
			}
			i += e - 1;
		}
	}
	return 0;
}

int
rules_syntax_path_chars(struct rules_load *L, const struct rules_ynode *n,
			const char *field, const char *s)
{
	char what[PATH_BAD_WHAT];
	const char *c = path_bad_char(s, strlen(s), what);
	struct buf text = BUF_INIT;

	if (!c)
		return 0;
	if (path_escape_controls(&text, s, NULL)) {
		rules_load_nomem(L);
		buf_release(&text);
		return -1;
	}
	rules_load_error(L, n, "paths hold no control characters: a newline "
			 "or an escape in a path forges lines of logs and "
			 "SHA256SUMS",
			 "%s '%s' holds %s at byte %zu", field, text.data,
			 what, (size_t)(c - s) + 1);
	buf_release(&text);
	return -1;
}

int
rules_syntax_pattern(struct rules_load *L, const struct rules_ynode *n,
		     const char *pat)
{
	const char *p;

	if (rules_syntax_glob(L, n, pat))
		return -1;
	if (rules_syntax_path_chars(L, n, "path pattern", pat))
		return -1;
	if (pat[0] == '/') {
		rules_load_error(L, n,
				 "patterns are relative to the repository root",
				 "absolute path in pattern '%s'", pat);
		return -1;
	}
	for (p = pat; *p;) {
		size_t len = strcspn(p, "/");

		if (len == 2 && p[0] == '.' && p[1] == '.') {
			rules_load_error(L, n,
					 "patterns cannot leave the repository",
					 "'..' in pattern '%s'", pat);
			return -1;
		}
		p += len;
		if (*p)
			p++;
	}
	return 0;
}

int
rules_syntax_output(struct rules_load *L, const struct rules_ynode *n,
		    const char *pat)
{
	size_t at, len;
	const char *why;

	if (rules_syntax_pattern(L, n, pat))
		return -1;
	why = path_name_refused(pat, strlen(pat), PATH_NAMES_GLOB, &at, &len);
	if (!why)
		return 0;
	rules_load_error(L, n, PATH_HINT_ALIAS, "output '%s' %s ('%.*s')",
			 pat, why, (int)len, pat + at);
	return -1;
}

static int
digits(const char **s, unsigned *out)
{
	unsigned long v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > 1000000000UL)
			return -1;
		p++;
	}
	*out = (unsigned)v;
	*s = p;
	return 0;
}

int
rules_syntax_triple(const char *s, unsigned *major, unsigned *minor,
		    unsigned *patch)
{
	if (digits(&s, major) || *s++ != '.' || digits(&s, minor) ||
	    *s++ != '.' || digits(&s, patch) || *s)
		return -1;
	return 0;
}

int
rules_syntax_pair(const char *s, unsigned *major, unsigned *minor)
{
	if (digits(&s, major) || *s++ != '.' || digits(&s, minor) || *s)
		return -1;
	return 0;
}

static int
skip_prefix(const char **s, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(*s, prefix, n))
		return 0;
	*s += n;
	return 1;
}

int
rules_syntax_pep440(const char *s)
{
	unsigned v;

	if (digits(&s, &v))
		return -1;
	while (*s == '.' && s[1] >= '0' && s[1] <= '9') {
		s++;
		digits(&s, &v);
	}
	if (skip_prefix(&s, "a") || skip_prefix(&s, "b") ||
	    skip_prefix(&s, "rc")) {
		if (digits(&s, &v))
			return -1;
	}
	if (skip_prefix(&s, ".post") && digits(&s, &v))
		return -1;
	if (skip_prefix(&s, ".dev") && digits(&s, &v))
		return -1;
	return *s ? -1 : 0;
}

static const char *const root_vars[] = {
	"root.name", "root.path", "root.toolkit", "root.version",
};
static const char *const toolkit_vars[] = {
	"toolkit.name", "toolkit.version", "toolkit.major", "toolkit.minor",
	"toolkit.home",
};
static const char *const release_vars[] = { "version", "tag" };

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static int
in_list(const char *w, const char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(w, v[i]))
			return 1;
	return 0;
}

static int
check_var(struct rules_load *L, const struct rules_ynode *n, const char *var,
	  const struct rules_tvars *t)
{
	const char *cands[64];
	size_t nc = 0, i;
	char hint[ERROR_HINT_MAX];
	const char *s;

	if (in_list(var, root_vars, N_OF(root_vars))) {
		if (t->has_root)
			return 0;
		rules_load_error(L, n, "add 'root' to the rule's 'each'",
				 "'${%s}' needs a 'root' axis", var);
		return -1;
	}
	if (in_list(var, toolkit_vars, N_OF(toolkit_vars))) {
		if (t->has_toolkit)
			return 0;
		rules_load_error(L, n, "give the rule a 'toolkit'",
				 "'${%s}' needs a toolkit", var);
		return -1;
	}
	if (in_list(var, release_vars, N_OF(release_vars))) {
		if (t->release)
			return 0;
		rules_load_error(L, n, NULL,
				 "'${%s}' is only known in releases", var);
		return -1;
	}
	if (t->each)
		for (i = 0; i < t->each->n_axes; i++)
			if (!strcmp(t->each->axes[i].axis, var))
				return 0;
	for (i = 0; i <= L->r->n_axes; i++)
		if (i == L->r->n_axes ? !strcmp(var, "root")
				      : !strcmp(L->r->axes[i].name, var)) {
			snprintf(hint, sizeof(hint),
				 "add '%s' to the rule's 'each'", var);
			rules_load_error(L, n, hint, "'${%s}' needs a '%s' axis",
					 var, var);
			return -1;
		}
	for (i = 0; i < N_OF(root_vars); i++)
		cands[nc++] = root_vars[i];
	for (i = 0; i < N_OF(toolkit_vars); i++)
		cands[nc++] = toolkit_vars[i];
	if (t->release)
		for (i = 0; i < N_OF(release_vars); i++)
			cands[nc++] = release_vars[i];
	for (i = 0; t->each && i < t->each->n_axes && nc < N_OF(cands); i++)
		cands[nc++] = t->each->axes[i].axis;
	s = spell_suggest(var, cands, nc);
	if (s)
		snprintf(hint, sizeof(hint), "did you mean '${%s}'?", s);
	rules_load_error(L, n, s ? hint : NULL,
			 "unknown variable '${%s}' in template", var);
	return -1;
}

int
rules_syntax_template(struct rules_load *L, const struct rules_ynode *n,
		      const char *tpl, const struct rules_tvars *vars)
{
	const char *p = tpl;
	int bad = 0;

	while ((p = strchr(p, '$'))) {
		const char *end;
		char var[128];
		size_t len;

		if (p[1] == '$') {
			p += 2;
			continue;
		}
		if (p[1] != '{') {
			p++;
			continue;
		}
		end = strchr(p + 2, '}');
		if (!end) {
			rules_load_error(L, n, "close it with '}'; '$${' is a literal '${'",
					 "unterminated '${' in '%s'", tpl);
			return -1;
		}
		len = (size_t)(end - (p + 2));
		if (!len || len >= sizeof(var)) {
			rules_load_error(L, n, NULL,
					 "empty or overlong variable in '%s'", tpl);
			return -1;
		}
		memcpy(var, p + 2, len);
		var[len] = '\0';
		if (check_var(L, n, var, vars))
			bad = 1;
		p = end + 1;
	}
	return bad ? -1 : 0;
}

int
rules_load_value_ok(const char *s)
{
	if (!s[0])
		return 0;
	if (path_bad_char(s, strlen(s), NULL))
		return 0;	/* values become output paths and ids */
	for (; *s; s++)
		if (*s == ',' || *s == '=' || *s == '[' || *s == ']' ||
		    *s == ' ' || *s == '*' || *s == '?')
			return 0;
	return 1;
}
