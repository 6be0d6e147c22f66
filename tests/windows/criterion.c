/*
 * The runner of tests/windows/criterion/criterion.h: every registered test
 * (or those whose "suite/name" matches --filter GLOB, fnmatch as
 * Criterion's), one after another, with the suite's .init and .fini;
 * prints one line per failure or skip and Criterion's synthesis line.
 * Exits 1 when a test failed. --list prints "suite/name" lines.
 */
#include <criterion/criterion.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/fnmatch.h"

static struct crs_test *tests;
static struct crs_suite *suites;
static jmp_buf leave;
static int failed, skipped;

void
crs_register(struct crs_test *t)
{
	t->next = tests;
	tests = t;
}

void
crs_register_suite(struct crs_suite *s)
{
	s->next = suites;
	suites = s;
}

int
crs_str_eq(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

void
crs_check(int ok, int fatal, const char *file, int line, const char *expr,
	  const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	failed = 1;
	fprintf(stderr, "[----] %s:%d: Assertion failed: %s\n", file, line,
		expr);
	if (fmt[0]) {
		fprintf(stderr, "[----]   ");
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\n");
	}
	if (fatal)
		longjmp(leave, 1);
}

void
crs_skip(const char *fmt, ...)
{
	va_list ap;

	skipped = 1;
	fprintf(stderr, "[SKIP] ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	longjmp(leave, 1);
}

void
crs_log(const char *level, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "[%s] ", level);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

static const struct crs_suite *
suite_of(const char *name)
{
	const struct crs_suite *s;

	for (s = suites; s; s = s->next)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

/* The registration order reversed: tests in file order, files in link order. */
static void
reverse(void)
{
	struct crs_test *t = tests, *prev = NULL, *next;

	for (; t; t = next) {
		next = t->next;
		t->next = prev;
		prev = t;
	}
	tests = prev;
}

/* The test being run: globals, which longjmp leaves as they are. */
static struct crs_test *cur;
static void (*cur_init)(void), (*cur_fini)(void);

/* Run cur: 0 passed, 1 failed, 2 skipped. */
static int
run_one(void)
{
	failed = skipped = 0;
	if (!setjmp(leave)) {
		if (cur_init)
			cur_init();
		cur->fn();
	}
	if (cur_fini && !setjmp(leave))
		cur_fini();
	return skipped ? 2 : failed ? 1 : 0;
}

int
main(int argc, char **argv)
{
	const char *filter = NULL;
	struct crs_test *t;
	int i, r, list = 0, n = 0, pass = 0, fail = 0, skip = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list"))
			list = 1;
		else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
			filter = argv[++i];
		else if (!strncmp(argv[i], "--filter=", 9))
			filter = argv[i] + 9;
	}
	reverse();
	for (t = tests; t; t = t->next) {
		char id[512];
		const struct crs_suite *s = suite_of(t->suite);
		void (*init)(void) = t->extra.init ? t->extra.init
				   : s ? s->extra.init : NULL;
		void (*fini)(void) = t->extra.fini ? t->extra.fini
				   : s ? s->extra.fini : NULL;

		snprintf(id, sizeof(id), "%s/%s", t->suite, t->name);
		if (filter && !fnmatch_match(filter, id))
			continue;
		if (list) {
			printf("%s\n", id);
			continue;
		}
		n++;
		if (t->extra.disabled || (s && s->extra.disabled) ||
		    t->extra.signal || t->extra.exit_code) {
			printf("[SKIP] %s::%s: disabled or expects the "
			       "process to die\n", t->suite, t->name);
			skip++;
			continue;
		}
		cur = t;
		cur_init = init;
		cur_fini = fini;
		r = run_one();
		if (r == 2) {
			printf("[SKIP] %s::%s\n", t->suite, t->name);
			skip++;
		} else if (r == 1) {
			printf("[FAIL] %s::%s\n", t->suite, t->name);
			fail++;
		} else {
			pass++;
		}
		fflush(stdout);
	}
	if (!list)
		printf("[====] Synthesis: Tested: %d | Passing: %d | "
		       "Failing: %d | Skipped: %d\n", n, pass, fail, skip);
	return fail ? 1 : 0;
}
