/*
 * base/regex.h over the POSIX regex functions, once for both systems: the
 * C library's regcomp(3) and regexec(3), or on Windows, which has none,
 * PCRE2's (pcre2posix.h names them regcomp, regexec, regerror and regfree,
 * macros for pcre2_regcomp and the rest; its REG_EXTENDED is its own
 * syntax and REG_NEWLINE its multi-line mode).
 */
#include "base/regex.h"

#ifdef _WIN32
#include <pcre2posix.h>
#else
#include <regex.h>
#endif

#include "base/banned.h"

int
regex_group1(const char *re, int newline, const char *text,
	     size_t *groups, size_t *so, size_t *eo, char *msg, size_t n)
{
	regex_t rx;
	regmatch_t m[2];
	int rc;

	rc = regcomp(&rx, re, REG_EXTENDED | (newline ? REG_NEWLINE : 0));
	if (rc) {
		regerror(rc, &rx, msg, n);
		return -1;
	}
	if (groups)
		*groups = (size_t)rx.re_nsub;
	rc = 0;
	if (text && rx.re_nsub >= 1 && !regexec(&rx, text, 2, m, 0) &&
	    m[1].rm_so >= 0) {
		if (so)
			*so = (size_t)m[1].rm_so;
		if (eo)
			*eo = (size_t)m[1].rm_eo;
		rc = 1;
	}
	regfree(&rx);
	return rc;
}
