/*
 * The fuzz targets' per-input CPU budget. libFuzzer's -timeout reads the
 * wall clock, which a loaded machine stretches (and its alarm can fire
 * inside malloc, which deadlocks ASan's allocator); so each target times
 * its own input in CPU seconds and, past the budget, says so on stderr
 * ("slow input") and aborts: libFuzzer then saves the input as a crash,
 * which tests/fuzz/run.sh counts as a timeout. The budget is
 * $RIPPLE_FUZZ_CPU_LIMIT seconds, 1 by default.
 */
#ifndef RIPPLE_TESTS_FUZZ_CPU_H
#define RIPPLE_TESTS_FUZZ_CPU_H

/* CPU seconds used by the process so far. */
double fuzz_cpu_now(void);

/* Abort with "slow input" when more than the budget passed since start. */
void fuzz_cpu_check(double start);

#endif
