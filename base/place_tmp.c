/*
 * The one part of base/place that is the same on every system: reading a
 * temporary file's name (NAME.ripple-tmp-PID-RANDOM) back, for the sweep
 * of files a killed placement left (place_walk.c, place_win.c).
 */
#include "base/place.h"
#include "base/place_int.h"

#include <string.h>

#include "base/banned.h"

/* The PID in a temp file's name, or 0 when it is not one of ours. */
long
place_tmp_pid(const char *name)
{
	const char *m = strstr(name, PLACE_TMP_MARK);
	const char *p;
	long pid = 0;

	if (!m)
		return 0;
	for (p = m + strlen(PLACE_TMP_MARK); *p >= '0' && *p <= '9'; p++) {
		pid = pid * 10 + (*p - '0');
		if (pid > 1L << 30)
			return 0;
	}
	if (*p != '-' || p == m + strlen(PLACE_TMP_MARK))
		return 0;
	for (p++; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return pid;
}
