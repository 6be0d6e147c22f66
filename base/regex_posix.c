/*
 * base/regex.h with the C library's regcomp(3) and regexec(3).
 */
#include "base/regex.h"

#include <regex.h>

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
