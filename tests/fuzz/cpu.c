/* The fuzz targets' per-input CPU budget (see cpu.h). */
#include "tests/fuzz/cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double
fuzz_cpu_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
fuzz_cpu_check(double start)
{
	const char *s = getenv("RIPPLE_FUZZ_CPU_LIMIT");
	double limit = s ? strtod(s, NULL) : 1.0, used;

	used = fuzz_cpu_now() - start;
	if (limit > 0 && used > limit) {
		fprintf(stderr, "ripple-fuzz: slow input: %.2f s CPU, budget "
			"%.2f s\n", used, limit);
		abort();
	}
}
