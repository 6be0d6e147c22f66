/*
 * The part of Criterion's API ripple's tests use, for the Windows build
 * (tests/windows/criterion.c runs them under Wine): Debian ships Criterion
 * for Linux only, and its Windows build needs BoxFort, which starts every
 * test in a child process the way Wine cannot show. Here tests run one
 * after another in one process: a failed cr_assert leaves its test by
 * longjmp; .init and .fini run around each; .timeout is not enforced (a
 * hung test hangs the run, which ninja's caller sees).
 *
 * Only the Windows test program includes this (-Itests/windows): the
 * Linux build uses Criterion itself.
 */
#ifndef RIPPLE_TESTS_WINDOWS_CRITERION_H
#define RIPPLE_TESTS_WINDOWS_CRITERION_H

/* As Criterion's own header: its macros take empty variadic arguments. */
#pragma GCC system_header

#include <stddef.h>
#include <string.h>

struct crs_extra {
	int unused_;		/* so that "{ 0, __VA_ARGS__ }" compiles */
	void (*init)(void);
	void (*fini)(void);
	double timeout;		/* seconds; not enforced */
	int disabled;
	int signal;		/* expected signal: such tests are skipped */
	int exit_code;
	const char *description;
};

struct crs_test {
	const char *suite, *name;
	void (*fn)(void);
	struct crs_extra extra;
	struct crs_test *next;
};

struct crs_suite {
	const char *name;
	struct crs_extra extra;
	struct crs_suite *next;
};

void crs_register(struct crs_test *t);
void crs_register_suite(struct crs_suite *s);
/* Record a failed check (fatal: leave the test); ok: nothing. */
void crs_check(int ok, int fatal, const char *file, int line,
	       const char *expr, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
_Noreturn void crs_skip(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void crs_log(const char *level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int crs_str_eq(const char *a, const char *b);

#define Test(s, n, ...) \
	static void s##__##n##__fn(void); \
	static struct crs_test s##__##n##__t = { #s, #n, s##__##n##__fn, \
		{ 0, __VA_ARGS__ }, NULL }; \
	__attribute__((constructor)) static void s##__##n##__reg(void) \
	{ crs_register(&s##__##n##__t); } \
	static void s##__##n##__fn(void)

#define TestSuite(s, ...) \
	static struct crs_suite s##__suite = { #s, { 0, __VA_ARGS__ }, NULL }; \
	__attribute__((constructor)) static void s##__suite_reg(void) \
	{ crs_register_suite(&s##__suite); } \
	extern struct crs_suite s##__suite	/* takes the ';' after it */

#define CRS_(ok, fatal, expr, ...) \
	crs_check(!!(ok), (fatal), __FILE__, __LINE__, (expr), "" __VA_ARGS__)

#define cr_assert(x, ...) CRS_((x), 1, #x, __VA_ARGS__)
#define cr_expect(x, ...) CRS_((x), 0, #x, __VA_ARGS__)
#define cr_assert_not(x, ...) CRS_(!(x), 1, "!(" #x ")", __VA_ARGS__)
#define cr_expect_not(x, ...) CRS_(!(x), 0, "!(" #x ")", __VA_ARGS__)
#define cr_assert_fail(...) CRS_(0, 1, "fail", __VA_ARGS__)
#define cr_expect_fail(...) CRS_(0, 0, "fail", __VA_ARGS__)

#define CRS_CMP_(a, op, b, fatal, ...) \
	CRS_((a) op (b), (fatal), #a " " #op " " #b, __VA_ARGS__)
#define cr_assert_eq(a, b, ...) CRS_CMP_(a, ==, b, 1, __VA_ARGS__)
#define cr_expect_eq(a, b, ...) CRS_CMP_(a, ==, b, 0, __VA_ARGS__)
#define cr_assert_neq(a, b, ...) CRS_CMP_(a, !=, b, 1, __VA_ARGS__)
#define cr_expect_neq(a, b, ...) CRS_CMP_(a, !=, b, 0, __VA_ARGS__)
#define cr_assert_lt(a, b, ...) CRS_CMP_(a, <, b, 1, __VA_ARGS__)
#define cr_expect_lt(a, b, ...) CRS_CMP_(a, <, b, 0, __VA_ARGS__)
#define cr_assert_leq(a, b, ...) CRS_CMP_(a, <=, b, 1, __VA_ARGS__)
#define cr_expect_leq(a, b, ...) CRS_CMP_(a, <=, b, 0, __VA_ARGS__)
#define cr_assert_gt(a, b, ...) CRS_CMP_(a, >, b, 1, __VA_ARGS__)
#define cr_expect_gt(a, b, ...) CRS_CMP_(a, >, b, 0, __VA_ARGS__)
#define cr_assert_geq(a, b, ...) CRS_CMP_(a, >=, b, 1, __VA_ARGS__)
#define cr_expect_geq(a, b, ...) CRS_CMP_(a, >=, b, 0, __VA_ARGS__)
#define cr_assert_null(x, ...) CRS_((x) == NULL, 1, #x " == NULL", __VA_ARGS__)
#define cr_expect_null(x, ...) CRS_((x) == NULL, 0, #x " == NULL", __VA_ARGS__)
#define cr_assert_not_null(x, ...) \
	CRS_((x) != NULL, 1, #x " != NULL", __VA_ARGS__)
#define cr_expect_not_null(x, ...) \
	CRS_((x) != NULL, 0, #x " != NULL", __VA_ARGS__)
#define cr_assert_str_eq(a, b, ...) \
	CRS_(crs_str_eq((a), (b)), 1, #a " eq " #b, __VA_ARGS__)
#define cr_expect_str_eq(a, b, ...) \
	CRS_(crs_str_eq((a), (b)), 0, #a " eq " #b, __VA_ARGS__)
#define cr_assert_str_neq(a, b, ...) \
	CRS_(!crs_str_eq((a), (b)), 1, #a " neq " #b, __VA_ARGS__)
#define cr_expect_str_neq(a, b, ...) \
	CRS_(!crs_str_eq((a), (b)), 0, #a " neq " #b, __VA_ARGS__)
#define cr_skip_test(...) crs_skip("" __VA_ARGS__)
#define cr_log_info(...) crs_log("info", __VA_ARGS__)
#define cr_log_warn(...) crs_log("warn", __VA_ARGS__)
#define cr_log_error(...) crs_log("error", __VA_ARGS__)

#endif
