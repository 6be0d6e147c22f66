/*
 * The loader's error reporting: errors at YAML positions, did-you-mean
 * hints, and arena allocation that records out-of-memory. The lowest file
 * of the loader: yaml.c and read.c report through it; it calls neither.
 */
#include "rules/load.h"

#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/spell.h"
#include "rules/yaml.h"
#include "base/banned.h"

static void
add(struct rules_load *L, int code, unsigned line, unsigned col,
    const char *hint, const char *fmt, va_list ap)
{
	struct error e;
	char msg[ERROR_MSG_MAX];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	error_init(&e);
	error_at(&e, code, L->file, line, col, "%s", msg);
	if (hint)
		error_hint(&e, "%s", hint);
	if (!L->code)
		L->code = code;
	error_list_add(&L->errors, &e);
}

void
rules_load_error_at(struct rules_load *L, unsigned line, unsigned col,
		    const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add(L, ERROR_INVALID, line, col, hint, fmt, ap);
	va_end(ap);
}

void
rules_load_error(struct rules_load *L, const struct rules_ynode *n,
		 const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add(L, ERROR_INVALID, n ? n->line : 0, n ? n->col : 0, hint, fmt, ap);
	va_end(ap);
}

void
rules_load_unknown(struct rules_load *L, const struct rules_ynode *n,
		   const char *what, const char *word,
		   const char *const *cands, size_t n_cands)
{
	const char *s = error_list_full(&L->errors) ? NULL :
		spell_suggest(word, cands, n_cands);
	char hint[ERROR_HINT_MAX];

	if (s)
		snprintf(hint, sizeof(hint), "did you mean '%s'?", s);
	rules_load_error(L, n, s ? hint : NULL, "unknown %s '%s'", what, word);
}

int
rules_load_nomem(struct rules_load *L)
{
	struct error e;

	if (L->code == ERROR_NOMEM)
		return ERROR_NOMEM;
	L->code = ERROR_NOMEM;
	error_init(&e);
	error_set(&e, ERROR_NOMEM, "out of memory");
	error_list_add(&L->errors, &e);
	return ERROR_NOMEM;
}

int
rules_load_failed_nomem(const struct rules_load *L)
{
	return L->code == ERROR_NOMEM;
}

void *
rules_load_alloc(struct rules_load *L, size_t size)
{
	void *p = arena_alloc(&L->r->arena, size);

	if (!p)
		rules_load_nomem(L);
	return p;
}

const char *
rules_load_strdup(struct rules_load *L, const char *s)
{
	char *p = arena_strdup(&L->r->arena, s);

	if (!p)
		rules_load_nomem(L);
	return p;
}

struct rules_pos
rules_load_pos(const struct rules_ynode *n)
{
	struct rules_pos p = { 0, 0 };

	if (n) {
		p.line = n->line;
		p.col = n->col;
	}
	return p;
}
