/*
 * The one part of base/place that is the same on every system: reading a
 * temporary file's name (NAME.ripple-tmp-PID-RANDOM) back, for the sweep
 * of files a killed placement left (place_walk.c, place_win.c).
 */
#include "base/place.h"
#include "base/place_int.h"

#include <string.h>

#include "base/banned.h"

/*
 * The PID in a temp file's name, or 0 when it is not one of ours: the
 * last mark (a name may hold the mark itself), then digits, '-' and
 * exactly the 8 lowercase hex digits make_tmp writes, so a user's file
 * that merely looks alike is never swept.
 */
long
place_tmp_pid(const char *name)
{
	const char *m = NULL, *at, *p;
	long pid = 0;
	size_t k = 0;

	for (at = name; (at = strstr(at, PLACE_TMP_MARK)); at++)
		m = at;
	if (!m)
		return 0;
	for (p = m + strlen(PLACE_TMP_MARK); *p >= '0' && *p <= '9'; p++) {
		pid = pid * 10 + (*p - '0');
		if (pid > 1L << 30)
			return 0;
	}
	if (*p != '-' || p == m + strlen(PLACE_TMP_MARK))
		return 0;
	for (p++; *p; p++, k++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return k == 8 ? pid : 0;
}
