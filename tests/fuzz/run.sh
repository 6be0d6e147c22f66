#!/bin/sh
# Run the libFuzzer targets of tests/fuzz/ for SECONDS each and print, per
# target: CPU seconds (the fuzzer and its jobs), executions, crashes
# (sanitizer reports, aborted properties, leaks), timeouts (inputs over
# 1 s of CPU: each target times itself, see tests/fuzz/cpu.h; libFuzzer's
# wall-clock -timeout=30 only catches hangs, and counts when a re-run
# alone still takes over 1 s of CPU) and out-of-memory inputs. Exit 1 when
# anything counts.
#
#   tests/fuzz/run.sh SECONDS [TARGET...]     (from the repository root)
#
# Targets: rules pep440 cache_import pattern remote_entry memo (default: all). Each runs
# with its seeds (tests/fuzz/corpus/TARGET, read only) and a working corpus
# that grows across runs (build/fuzz/corpus/TARGET); logs and findings go
# to build/fuzz/runs/TIME-PID/. FUZZ_PARALLEL=1 runs the targets at once.
# Without clang and libFuzzer (see ./configure) it says so and exits 0
# (77 under `ninja check`, where that is a skip).
set -eu
secs=${1:?usage: tests/fuzz/run.sh SECONDS [TARGET...]}
shift
targets=${*:-rules pep440 cache_import pattern remote_entry memo}
fuzz_cc=$(sed -n 's/^fuzz_cc = //p' build/config.ninja 2>/dev/null || true)
if [ -z "$fuzz_cc" ]; then
	# 77: a skip under `ninja check` (tests/check/step.sh)
	echo "fuzz: skipped: no clang with libFuzzer (apt-get install" \
	    "--no-install-recommends clang libclang-rt-dev, then ./configure)"
	[ "${RIPPLE_CHECK_STEP:-0}" = 1 ] && exit 77
	exit 0
fi
ninja -f fuzz.ninja fuzz >/dev/null || { echo "fuzz: build failed" >&2; exit 1; }
run=build/fuzz/runs/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$run"

# cpu_of LINE: "0m1.5s 0m0.25s" (the children line of `times`) in seconds
cpu_of() {
	echo "$1" | awk '{ t = 0; for (i = 1; i <= 2; i++) {
		split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] }
		printf "%.1f\n", t }'
}

# one TARGET: fuzz it, then write its figures to $run/TARGET.result
one() {
	t=$1
	bin=build/fuzz/${t}_fuzz
	work=build/fuzz/corpus/$t
	art=$run/$t
	log=$run/$t.log
	mkdir -p "$work" "$art"
	dict=
	[ -f "tests/fuzz/$t.dict" ] && dict=-dict=tests/fuzz/$t.dict
	# shellcheck disable=SC2086
	cpu=$( ("$bin" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
		-ignore_ooms=1 -max_total_time="$secs" -timeout=30 \
		-rss_limit_mb=2560 -artifact_prefix="$art/" $dict \
		"$work" "tests/fuzz/corpus/$t" >"$log" 2>&1 || true; times) |
	    tail -n 1)
	cpu=$(cpu_of "$cpu")
	execs=$(grep -E '^#[0-9]+: ' "$log" | tail -n 1 | sed 's/^#\([0-9]*\):.*/\1/')
	ooms=$(find "$art" -name 'oom-*' | wc -l)
	crashes=0
	timeouts=0
	slow=0
	for f in "$art"/crash-* "$art"/leak-* "$art"/deadly-*; do
		[ -e "$f" ] || continue
		rc=0
		out=$("$bin" -runs=1 "$f" 2>&1) || rc=$?
		if echo "$out" | grep -q 'ripple-fuzz: slow input'; then
			timeouts=$((timeouts + 1))
			mv "$f" "$art/slow-${f##*/*-}"
		elif [ "$rc" = 0 ]; then	# slow once, not again
			slow=$((slow + 1))
			mv "$f" "$art/loaded-${f##*/*-}"
		else
			crashes=$((crashes + 1))
		fi
	done
	for f in "$art"/timeout-*; do
		[ -e "$f" ] || continue
		c=$( ("$bin" -runs=1 -timeout=60 "$f" >/dev/null 2>&1 || true; times) |
		    tail -n 1)
		c=$(cpu_of "$c")
		if awk -v c="$c" 'BEGIN { exit !(c > 1.0) }'; then
			timeouts=$((timeouts + 1))
		else
			slow=$((slow + 1))
			mv "$f" "$art/loaded-${f##*/timeout-}"
		fi
	done
	rmdir "$art" 2>/dev/null || true
	echo "$t ${cpu:-0} ${execs:-0} $crashes $timeouts $ooms $slow" \
	    >"$run/$t.result"
}

for t in $targets; do
	[ -x "build/fuzz/${t}_fuzz" ] || { echo "fuzz: no target '$t'" >&2; exit 2; }
	if [ "${FUZZ_PARALLEL:-0}" = 1 ]; then
		one "$t" &
	else
		one "$t"
	fi
done
wait
bad=0
printf '%-13s %8s %10s %8s %9s %5s  %s\n' target cpu_s execs crashes \
    timeouts ooms "(slow only under load)"
for t in $targets; do
	read -r name cpu execs crashes timeouts ooms slow <"$run/$t.result"
	printf '%-13s %8s %10s %8s %9s %5s  %s\n' "$name" "$cpu" "$execs" \
	    "$crashes" "$timeouts" "$ooms" "$slow"
	[ "$crashes" = 0 ] && [ "$timeouts" = 0 ] && [ "$ooms" = 0 ] || bad=1
done
if [ "$bad" = 1 ]; then
	echo "fuzz: findings in $run/TARGET/ (logs: $run/TARGET.log)"
	exit 1
fi
